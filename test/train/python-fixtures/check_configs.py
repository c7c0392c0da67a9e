"""Checks many configs in one process with the trainer's own loader: {file: [fields it refused]}.

Usage: check_configs.py PYTHON_DIR FILE... -> one JSON object.
"""
import json
import sys

sys.path.insert(0, sys.argv[1])
import geolab_trainer  # noqa: E402

out = {}
for file in sys.argv[2:]:
    try:
        geolab_trainer.load_config(file)
        out[file] = []
    except geolab_trainer.ConfigError as err:
        out[file] = [field for field, _ in err.problems]
print(json.dumps(out))
