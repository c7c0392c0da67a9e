"""Plays geolab_env.GeolabEnv as TRL would, against a real server; prints one JSON object of what happened.

Usage: drive_env.py PYTHON_DIR PLAN_FILE
The plan: {url, trace_path, episodes: [{split, index, guess: [lat, lon]}], pin: [lat, lon],
           capacity: {split, index, fillers}, no_guess: {split, index, max_turns}}
"""
import json
import sys
import threading
import time

sys.path.insert(0, sys.argv[1])
import geolab_env  # noqa: E402

plan = json.load(open(sys.argv[2]))
url = plan["url"]
geolab_env.configure(
    url=url, max_turns=12, view_px=448, trace_path=plan["trace_path"], run="drive", model="scripted",
    backoff_s=0.05, backoff_max_s=0.2, open_wait_s=30,
)


def summary(blocks):
    """What the model would read: the texts, and each image as its kind of data URL (stdlib mode)."""
    return {
        "texts": [b["text"] for b in blocks if b["type"] == "text"],
        "images": [b["image"][: b["image"].index(";")] if isinstance(b["image"], str) else type(b["image"]).__name__ for b in blocks if b["type"] == "image"],
    }


def play(episode, barrier, out, slot):
    env = geolab_env.GeolabEnv()
    # TRL passes the whole dataset row, prompt included.
    calls = [summary(env.reset(split=episode["split"], index=episode["index"], prompt=[{"role": "user", "content": ""}]))]
    barrier.wait(timeout=180)  # all sessions open at once
    lat, lon = plan["pin"]
    calls.append(summary(env.look(heading_deg=90)))
    calls.append(summary(env.zoom(fov_deg="60")))  # models quote numbers
    calls.append(summary(env.pin(lat=lat, lon=lon)))
    calls.append(summary(env.move(direction="forward", meters=30)))
    calls.append(summary(env.guess(lat=episode["guess"][0], lon=episode["guess"][1])))
    calls.append(summary(env.look(heading_deg=0)))  # after the end: refused, not played
    ep = env._episode
    out[slot] = {
        "index": episode["index"],
        "calls": calls,
        "distance_km": ep.distance_km,
        "cost": ep.cost,
        "reward": env.get_reward(),
        "reward_again": env.get_reward(),
    }


episodes = plan["episodes"]
barrier = threading.Barrier(len(episodes))
results = [None] * len(episodes)
errors = []


def guarded(*args):
    try:
        play(*args)
    except Exception as exc:  # reported, so the test shows it
        errors.append(repr(exc))
        barrier.abort()


threads = [threading.Thread(target=guarded, args=(e, barrier, results, i)) for i, e in enumerate(episodes)]
for t in threads:
    t.start()
for t in threads:
    t.join()

# A full server: the reset waits (backing off) until a slot frees.
cap = plan["capacity"]
fillers = [geolab_env.request("POST", url + "/sessions", {"split": cap["split"], "index": cap["index"]})["session_id"] for _ in range(cap["fillers"])]
waiting = geolab_env.GeolabEnv()
opened = {}
waiter = threading.Thread(target=lambda: opened.setdefault("blocks", waiting.reset(split=cap["split"], index=cap["index"])))
waiter.start()
deadline = time.monotonic() + 30
while waiting.capacity_retries < 2 and time.monotonic() < deadline:
    time.sleep(0.02)
retries_while_full = waiting.capacity_retries
geolab_env.request("DELETE", f"{url}/sessions/{fillers.pop()}")
waiter.join(timeout=30)
for sid in fillers:
    geolab_env.request("DELETE", f"{url}/sessions/{sid}")
capacity = {"retries_while_full": retries_while_full, "opened": "blocks" in opened, "reward": waiting.get_reward()}

# The server loses the session mid-episode (ended from outside, as an idle timeout would).
lost_env = geolab_env.GeolabEnv()
lost_env.reset(split=cap["split"], index=cap["index"])
geolab_env.request("DELETE", f"{url}/sessions/{lost_env._episode.session}")
lost = {
    "texts": summary(lost_env.look(heading_deg=45))["texts"] + summary(lost_env.look(heading_deg=90))["texts"],
    "reward": lost_env.get_reward(),
    "ended_by": lost_env._episode.ended_by,
}

# A rollout that never guesses, on a smaller budget.
ng = plan["no_guess"]
geolab_env.configure(max_turns=ng["max_turns"])
env = geolab_env.GeolabEnv()
calls = [summary(env.reset(split=ng["split"], index=ng["index"]))]
for heading in range(ng["max_turns"] + 1):
    calls.append(summary(env.look(heading_deg=heading * 90)))
no_guess = {"calls": calls, "reward": env.get_reward(), "turns": env._episode.turns}



def tool_schemas():
    """What TRL needs of each tool (transformers builds the schema from them): typed parameters, each under Args:."""
    import inspect
    import re
    import typing

    out = {}
    for name, method in inspect.getmembers(geolab_env.GeolabEnv(), inspect.ismethod):
        if name in ("reset", "get_reward") or name.startswith("_"):
            continue
        params = [p for p in inspect.signature(method).parameters]
        hints = typing.get_type_hints(method)
        doc = inspect.getdoc(method) or ""
        documented = re.findall(r"^\s+(\w+): ", doc.split("Args:", 1)[1], re.M) if "Args:" in doc else []
        out[name] = {"params": params, "typed": [p for p in params if p in hints], "documented": documented, "summary": doc.split("\n", 1)[0]}
    return out


print(json.dumps({
    "tools": tool_schemas(),
    "errors": errors,
    "episodes": results,
    "capacity": capacity,
    "lost": lost,
    "no_guess": no_guess,
    "check_value": geolab_env.reference_reward(1348.52, 0.05),
    "no_guess_value": geolab_env.reference_reward(None, 0.0),
}))
