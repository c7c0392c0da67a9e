"""With (a stand-in for) Pillow, views and maps reach the model downscaled to view_px.

Usage: drive_pillow.py PYTHON_DIR URL SPLIT INDEX VIEW_PX -> one JSON object.
"""
import json
import sys

sys.path.insert(0, sys.argv[1])
import geolab_env  # noqa: E402

url, split, index, view_px = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
geolab_env.configure(url=url, view_px=view_px)
env = geolab_env.GeolabEnv()


def images(blocks):
    return [
        {"kind": b["image"].kind, "served": list(b["image"].served_size), "size": list(b["image"].size), "mode": b["image"].mode, "resample": b["image"].resample}
        for b in blocks
        if b["type"] == "image"
    ]


out = images(env.reset(split=split, index=index)) + images(env.pin(lat=0, lon=-30)) + images(env.zoom(fov_deg=30))
env.get_reward()
print(json.dumps(out))
