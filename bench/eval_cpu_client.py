"""eval.cpu_per_episode's baseline client (bench/eval-cpu.ts, docs/budgets.md): what the public eval
harness does each episode, in the Python standard library only, so that geolab's CPU per episode has
a plain client to be measured against in the same run.

It drives `geolab env serve` over the environment's WebSocket protocol (docs/protocol.md: /ws,
reset/step messages, the Task API) and, every turn, asks an OpenAI-compatible endpoint for the next
tool call with the whole conversation so far (text, every image as a data URL, the trained tools,
docs/endpoints.md), turns the call into the environment's action and steps, until the episode is
done. One JSON record per episode goes to OUT (task, turns with actions, reward, distance), as the
harness writes them; the last stdout line is {"episodes", "seconds"}.

    eval_cpu_client.py ENV_URL MODEL_BASE_URL SPLIT TASKS PASSES OUT
        plays tasks 0..TASKS-1, PASSES times each, one WebSocket session for all of them
"""
import base64
import hashlib
import http.client
import json
import os
import sys
import time
import urllib.parse

# The WebSocket client the interop tests use too.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "interop"))
from stdlib_websocket import EnvSocket  # noqa: E402

ENV_NAME = "geoguesser_env"
MAX_TURNS = 12
TRAINED_PIN_SPAN_DEG = 7

# The five tools of the published adapter, as geolab offers them (`--tools trained`).
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "look",
            "description": "Face a compass heading (0 north, 90 east) with a field of view and a tilt, and see the view; costs 0.01.",
            "parameters": {
                "type": "object",
                "properties": {
                    "heading_deg": {
                        "default": 0,
                        "description": "Compass heading to face, degrees clockwise from true north (0 north, 90 east).",
                        "type": "number",
                        "minimum": -3600,
                        "maximum": 3600
                    },
                    "fov_deg": {
                        "default": 90,
                        "description": "Horizontal field of view in degrees; smaller zooms in.",
                        "type": "number",
                        "minimum": 10,
                        "maximum": 120
                    },
                    "pitch_deg": {
                        "default": 0,
                        "description": "Tilt in degrees; positive looks up.",
                        "type": "number",
                        "minimum": -90,
                        "maximum": 90
                    }
                },
                "required": [
                    "heading_deg"
                ]
            }
        }
    },
    {
        "type": "function",
        "function": {
            "name": "zoom",
            "description": "Set the field of view (10 to 120 degrees; smaller zooms in) and see the view; costs 0.01.",
            "parameters": {
                "type": "object",
                "properties": {
                    "fov_deg": {
                        "type": "number",
                        "minimum": 10,
                        "maximum": 120,
                        "description": "Horizontal field of view in degrees; smaller zooms in."
                    }
                },
                "required": [
                    "fov_deg"
                ]
            }
        }
    },
    {
        "type": "function",
        "function": {
            "name": "move",
            "description": "Walk forward or backward along the captured road (up to 500 m) and see the view there; costs 0.05, even at a dead end.",
            "parameters": {
                "type": "object",
                "properties": {
                    "direction": {
                        "default": "forward",
                        "description": "Along the captured road: forward or backward.",
                        "type": "string",
                        "enum": [
                            "forward",
                            "backward"
                        ]
                    },
                    "meters": {
                        "default": 10,
                        "description": "How far to walk, in metres.",
                        "type": "number",
                        "exclusiveMinimum": 0,
                        "maximum": 500
                    }
                },
                "required": [
                    "direction"
                ]
            }
        }
    },
    {
        "type": "function",
        "function": {
            "name": "pin",
            "description": "Drop a pin and see a map around it with the place the pin is in, which never tells you whether you are right; costs 0.02.",
            "parameters": {
                "type": "object",
                "properties": {
                    "lat": {
                        "type": "number",
                        "minimum": -90,
                        "maximum": 90,
                        "description": "Latitude in degrees, north positive."
                    },
                    "lon": {
                        "type": "number",
                        "minimum": -180,
                        "maximum": 180,
                        "description": "Longitude in degrees, east positive."
                    }
                },
                "required": [
                    "lat",
                    "lon"
                ]
            }
        }
    },
    {
        "type": "function",
        "function": {
            "name": "guess",
            "description": "Submit your final latitude and longitude, which ends and scores the episode; free.",
            "parameters": {
                "type": "object",
                "properties": {
                    "lat": {
                        "type": "number",
                        "minimum": -90,
                        "maximum": 90,
                        "description": "Latitude in degrees, north positive."
                    },
                    "lon": {
                        "type": "number",
                        "minimum": -180,
                        "maximum": 180,
                        "description": "Longitude in degrees, east positive."
                    }
                },
                "required": [
                    "lat",
                    "lon"
                ]
            }
        }
    }
]

SYSTEM = "You are an expert geographer playing GeoGuesser. Call exactly one tool per reply."


# ----------------------------------------------------------------------------- the environment
class Env(EnvSocket):
    def _ask(self, message):
        return self.ask(message)

    def reset(self, **data):
        return self._ask({"type": "reset", "data": data})

    def step(self, action):
        return self._ask({"type": "step", "data": action})

    def num_tasks(self, split):
        parts = urllib.parse.urlsplit(self.base_url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        try:
            conn.request("POST", f"/{ENV_NAME}/num_tasks", json.dumps({"split": split}), {"Content-Type": "application/json"})
            return int(json.loads(conn.getresponse().read())["num_tasks"])
        finally:
            conn.close()

    def close(self):
        self.ws.close()


# ----------------------------------------------------------------------------- the model
class Model:
    def __init__(self, base_url):
        parts = urllib.parse.urlsplit(base_url.rstrip("/"))
        self.path = parts.path + "/chat/completions"
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)

    def complete(self, messages):
        body = json.dumps({"model": "scripted", "messages": messages, "tools": TOOLS, "temperature": 0.0, "max_tokens": 1024})
        started = time.time()
        self.conn.request("POST", self.path, body, {"Content-Type": "application/json"})
        response = self.conn.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"model endpoint: HTTP {response.status}: {data[:200]!r}")
        reply = json.loads(data)
        return reply["choices"][0]["message"], reply.get("usage") or {}, time.time() - started


def image_part(observation):
    image = observation.get("image_base64")
    if not image:
        return None
    mime = "image/png" if observation.get("image_kind") == "map" else "image/jpeg"
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{image}"}}


def to_action(name, args):
    """A trained tool call as the environment's action (docs/protocol.md)."""
    if name == "look":
        return {
            "op": "look",
            "heading_deg": float(args.get("heading_deg", 0)),
            "fov_deg": float(args.get("fov_deg", 90)),
            "pitch_deg": float(args.get("pitch_deg", 0)),
        }
    if name == "zoom":
        return {"op": "zoom", "fov_deg": float(args["fov_deg"])}
    if name == "move":
        return {"op": "move", "direction": args.get("direction", "forward"), "meters": float(args.get("meters", 10))}
    if name == "pin":
        return {"op": "pin", "lat": float(args["lat"]), "lon": float(args["lon"]), "span_deg": TRAINED_PIN_SPAN_DEG}
    if name == "guess":
        return {"op": "guess", "lat": float(args["lat"]), "lon": float(args["lon"])}
    raise ValueError(f"unknown tool {name!r}")


def play_episode(env, model, split, index, sample):
    started = time.time()
    step = env.reset(split=split, index=index)
    observation = step["observation"]
    opening = (
        "You are standing somewhere on Earth in a street-level panorama. Work out where you are.\n"
        f"The image is your view: heading {observation.get('heading_deg')}, field of view {observation.get('fov_deg')}, "
        f"pitch {observation.get('pitch_deg')}.\nYou have {MAX_TURNS} tool calls; call guess before they run out."
    )
    first = image_part(observation)
    messages = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": [{"type": "text", "text": opening}] + ([first] if first else [])},
    ]
    turns = []
    for turn in range(1, MAX_TURNS + 1):
        message, usage, latency = model.complete(messages)
        calls = message.get("tool_calls") or []
        if not calls:
            raise RuntimeError(f"turn {turn}: the model called no tool")
        call = calls[0]
        args = call["function"]["arguments"]
        args = json.loads(args) if isinstance(args, str) else args
        action = to_action(call["function"]["name"], args)
        step = env.step(action)
        observation = step["observation"]
        image = observation.get("image_base64")
        turns.append({
            "turn": turn,
            "action": action,
            "feedback": observation.get("feedback"),
            "image_kind": observation.get("image_kind"),
            "image_sha256": hashlib.sha256(base64.b64decode(image)).hexdigest() if image else None,
            "steps_remaining": observation.get("steps_remaining"),
            "reward": step.get("reward"),
            "done": bool(step.get("done")),
            "tokens": usage,
            "latency_s": round(latency, 4),
        })
        if step.get("done"):
            break
        messages.append({"role": "assistant", "content": message.get("content"), "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": f"{observation.get('feedback')} {MAX_TURNS - turn} tool calls left."})
        part = image_part(observation)
        if part:
            messages.append({"role": "user", "content": [{"type": "text", "text": f"The view after {call['function']['name']}:"}, part]})
    metadata = step.get("metadata") or observation.get("metadata") or {}
    return {
        "task": {"split": split, "index": index, "sample": sample},
        "turns": turns,
        "outcome": {
            "reward": step.get("reward"),
            "distance_km": observation.get("distance_km"),
            "score": observation.get("score"),
            "action_cost": observation.get("action_cost"),
            "verdict": metadata.get("verdict"),
            "turns_used": len(turns),
            "wall_clock_s": round(time.time() - started, 3),
        },
    }


def main():
    env_url, model_url, split, tasks, passes, out = sys.argv[1:7]
    tasks, passes = int(tasks), int(passes)
    started = time.time()
    env = Env(env_url)
    model = Model(model_url)
    episodes = 0
    try:
        available = env.num_tasks(split)
        if available < tasks:
            sys.exit(f"split {split} has {available} tasks, fewer than {tasks}")
        with open(out, "w") as handle:
            for sample in range(passes):
                for index in range(tasks):
                    record = play_episode(env, model, split, index, sample)
                    if record["outcome"]["reward"] is None:
                        sys.exit(f"task {index} sample {sample}: the episode did not end with a reward")
                    handle.write(json.dumps(record) + "\n")
                    episodes += 1
    finally:
        env.close()
    print(json.dumps({"episodes": episodes, "seconds": round(time.time() - started, 3)}))


main()
