"""What the public eval harness and OpenEnv's generic client do, in the Python standard library.

The harness (geoeval.py of the public GeoGuesser project) drives an environment through OpenEnv's
GenericEnvClient: a WebSocket at /ws with reset/step messages, observations handed back as plain
dicts, metadata read from inside the observation (older OpenEnv clients; newer ones read it beside
the observation), Task API helpers that unwrap `{"num_tasks": N}` and `{"task": spec}`, and one
schema-v2 record per episode built from those observations and metadata. This script does the same
with a scripted policy instead of a model, so the suite can check geolab's server and records
against what that client expects without installing openenv or a WebSocket library.

    harness_client.py play BASE_URL OUT_DIR RUN_ID SPLIT INDEX:LAT:LON [INDEX:LAT:LON ...]
        plays each task (LAT, LON: where the scripted policy guesses), writes
        OUT_DIR/RUN_ID/episodes.jsonl and run.json, prints one JSON line of what it saw
"""
import base64
import hashlib
import json
import math
import pathlib
import sys
import time
import urllib.parse
import urllib.request
import uuid

from stdlib_websocket import EnvSocket

SCHEMA_VERSION = 2
ENV_NAME = "geoguesser_env"


# ----------------------------------------------------------------------------- the reward the
# harness reports: its pinned reference curve (docs/scoring.md), recomputed from distance and cost.
def training_reward(distance_km, cost=0.0):
    if distance_km is None:
        return 0.0
    score = 0.5 * math.exp(-distance_km / 1492.7) + 0.5 * math.exp(-distance_km / 5000.0)
    return min(1.0, score) * (1.0 - min(max(cost, 0.0), 0.2))


# ----------------------------------------------------------------------------- the generic client
class Step:
    def __init__(self, data):
        # OpenEnv's generic client hands the observation back as a dict, reward and done beside it.
        self.observation = data.get("observation") or {}
        self.reward = data.get("reward")
        self.done = bool(data.get("done"))
        self.metadata_beside = data.get("metadata")


class Client(EnvSocket):
    def _ask(self, message):
        return Step(self.ask(message))

    def reset(self, **data):
        return self._ask({"type": "reset", "data": data})

    def step(self, action):
        return self._ask({"type": "step", "data": action})

    def close(self):
        self.ws.close()

    def _task_api(self, route, payload=None):
        data = None if payload is None else json.dumps(payload).encode()
        request = urllib.request.Request(
            f"{self.base_url}/{ENV_NAME}/{route}", data=data, method="GET" if data is None else "POST",
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    def num_tasks(self, split):
        return int(self._task_api("num_tasks", {"split": split})["num_tasks"])

    def get_task(self, split, index):
        return self._task_api("task", {"split": split, "index": index})["task"]

    def list_tasks(self, split):
        return self._task_api("tasks", {"split": split})

    def task_range(self, split, start, stop):
        return self._task_api("task_range", {"split": split, "start": start, "stop": stop})["tasks"]


# ----------------------------------------------------------------------------- the harness's record
def metadata_of(observation):
    return observation.get("metadata") or {}


def camera_of(observation):
    return {
        "heading_deg": observation.get("heading_deg"),
        "pitch_deg": observation.get("pitch_deg"),
        "fov_deg": observation.get("fov_deg"),
        "frame_index": metadata_of(observation).get("frame_index"),
    }


def image_digest(image_b64):
    return hashlib.sha256(base64.b64decode(image_b64)).hexdigest() if image_b64 else None


def turn_record(turn, camera_before, action, step, chat, prompt, status):
    observation = step.observation
    record = {
        "turn": turn,
        "status": status,
        "camera_before": camera_before,
        "action": action,
        "camera_after": camera_of(observation),
        "pins": [[p["lat"], p["lon"]] for p in observation.get("pins") or []],
        "image_kind": observation.get("image_kind"),
        "image_sha256": image_digest(observation.get("image_base64")),
        "feedback": observation.get("feedback"),
        "action_cost": observation.get("action_cost"),
        "steps_remaining": observation.get("steps_remaining"),
        "moved_meters": observation.get("moved_meters"),
        "total_moved_meters": observation.get("total_moved_meters"),
        "available_tools": list(observation.get("available_tools") or []),
        "reward": step.reward,
        "done": step.done,
    }
    if chat is not None:
        record["model"] = chat
    if prompt is not None:
        record["prompt"] = prompt
    return record


def scripted_chat(turn, reply):
    # What a provider reports, in the harness's own token keys.
    return {
        "reply": reply,
        "reasoning": None,
        "finish_reason": "stop",
        "tokens": {"input": 900 + turn, "output": 40 + turn, "total": 940 + 2 * turn, "reasoning": None},
        "latency_s": 0.25,
        "attempts": 1,
        "errors": [],
    }


def play_episode(client, split, index, lat, lon, seen):
    episode_id = uuid.uuid4().hex[:12]
    started = time.time()
    opening = client.reset(split=split, index=index)
    seen["metadata_beside"].append(opening.metadata_beside == metadata_of(opening.observation))
    task_meta = dict(metadata_of(opening.observation))
    seen["reset_metadata_keys"] = sorted(task_meta)
    turns = [turn_record(0, camera_of(opening.observation), {"action": "reset"}, opening, None, None, "ok")]
    observation = opening.observation
    plan = [
        {"action": "look", "heading_deg": 90, "fov_deg": 60},
        {"action": "pin", "lat": lat + 0.5, "lon": lon, "span_deg": 3},
        {"action": "guess", "lat": lat, "lon": lon},
    ]
    wire = [
        {"op": "look", "heading_deg": 90.0, "pitch_deg": 0.0, "fov_deg": 60.0},
        {"op": "pin", "lat": lat + 0.5, "lon": lon, "span_deg": 3.0},
        {"op": "guess", "lat": lat, "lon": lon},
    ]
    result = opening
    for turn, (spec, action) in enumerate(zip(plan, wire), start=1):
        before = camera_of(observation)
        prompt = f"You have {len(plan) - turn + 1} turns left. {observation.get('steps_remaining')} actions remain."
        result = client.step(action)
        observation = result.observation
        seen["metadata_beside"].append(result.metadata_beside == metadata_of(observation))
        if not result.done:
            seen["turn_metadata_keys"] = sorted(metadata_of(observation))
        turns.append(turn_record(turn, before, spec, result, scripted_chat(turn, json.dumps(spec)), prompt, "ok"))
        if result.done:
            break
    final = result.observation
    final_meta = dict(metadata_of(final))
    seen["final_metadata_keys"] = sorted(final_meta)
    used = [t for t in turns if t["turn"] > 0]
    return {
        "schema_version": SCHEMA_VERSION,
        "episode_id": episode_id,
        "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "model_name": "scripted-harness",
        "model": {"provider": "openai", "model": "scripted-harness", "base_url": "http://127.0.0.1:9/v1"},
        "task": {
            "split": split,
            "index": index,
            "sample": 0,
            "task_id": task_meta.get("task_id"),
            "country": final_meta.get("country"),
            "sequence_id": task_meta.get("sequence_id"),
            "captured_at": task_meta.get("captured_at"),
            "attribution": task_meta.get("attribution"),
        },
        "config": {
            "mode": "agentic",
            "prompt_version": "v2",
            "max_turns": 12,
            "retries": 3,
            "base_url": client.base_url,
            "street_detail": task_meta.get("street_detail"),
        },
        "turns": turns,
        "outcome": {
            "reward": result.reward,
            "train_reward": round(training_reward(final.get("distance_km"), float(final.get("action_cost") or 0.0)), 4),
            "distance_km": final.get("distance_km"),
            "parsed_ok": final.get("parsed_ok"),
            "guess": final_meta.get("guess") or [lat, lon],
            "guess_country": final_meta.get("guess_country"),
            "verdict": final_meta.get("verdict"),
            "country_hit": final_meta.get("country_hit"),
            "region_hit": final_meta.get("region_hit"),
            "score_before_cost": final.get("score"),
            "n_looks": final_meta.get("n_looks"),
            "n_maps": final_meta.get("n_maps"),
            "n_pins": final_meta.get("n_pins"),
            "n_moves": final_meta.get("n_moves"),
            "truth": [final.get("true_lat"), final.get("true_lon")],
            "action_cost": final.get("action_cost"),
            "total_moved_meters": final.get("total_moved_meters"),
            "forced_guess": False,
            "turns_used": len(used),
            "turns_ok": sum(1 for t in used if t["status"] == "ok"),
            "turns_unparseable": 0,
            "turns_provider_error": 0,
            "wall_clock_s": round(time.time() - started, 3),
            "model_latency_s": round(sum(t.get("model", {}).get("latency_s", 0.0) for t in used), 3),
            "tokens_in": sum((t.get("model", {}).get("tokens", {}) or {}).get("input") or 0 for t in used),
            "tokens_out": sum((t.get("model", {}).get("tokens", {}) or {}).get("output") or 0 for t in used),
        },
    }


def play(base_url, out_dir, run_id, split, targets):
    client = Client(base_url)
    seen = {"metadata_beside": []}
    try:
        seen["num_tasks"] = client.num_tasks(split)
        seen["task_spec"] = client.get_task(split, targets[0][0])
        listed = client.list_tasks(split)
        seen["tasks_env_name"] = listed.get("env_name")
        seen["tasks_count"] = len(listed["tasks"])
        # Python slice semantics, as OpenEnv's task_range documents them.
        seen["task_range_last_two"] = [t["task_index"] for t in client.task_range(split, -2, None)]
        records = [play_episode(client, split, index, lat, lon, seen) for index, lat, lon in targets]
    finally:
        client.close()
    run_dir = pathlib.Path(out_dir) / run_id
    run_dir.mkdir(parents=True, exist_ok=True)
    with open(run_dir / "episodes.jsonl", "w") as handle:
        for record in records:
            handle.write(json.dumps(record) + "\n")
    (run_dir / "run.json").write_text(json.dumps({"run_id": run_id, "schema_version": SCHEMA_VERSION, "base_url": base_url, "split": split}))
    seen["episode_ids"] = [r["episode_id"] for r in records]
    print(json.dumps(seen))


def main():
    if sys.argv[1] == "play":
        base, out_dir, run_id, split = sys.argv[2:6]
        targets = []
        for item in sys.argv[6:]:
            index, lat, lon = item.split(":")
            targets.append((int(index), float(lat), float(lon)))
        play(base, out_dir, run_id, split, targets)
    else:
        sys.exit(f"unknown mode {sys.argv[1]!r}")


main()
