"""The GeoGuesser environment as TRL's GRPOTrainer sees it (``environment_factory=GeolabEnv``).

Python standard library only, so it can be tested (and used by any harness) without the training
stack: it speaks the geolab environment server's stateful HTTP sessions (``POST /sessions``,
``POST /sessions/{id}/step``, ``DELETE /sessions/{id}``) with urllib. Pillow is used when present,
only to downscale views to the configured size.

What the model sees is decided here and nowhere else: one image and one text per tool result. The
environment's metadata never reaches it, its "N actions left." is replaced by the trainer's own
count of tool calls (the only budget the model is told about), and a guess's feedback, which
reveals the true location, is replaced by a neutral sentence: the outcome travels through the reward
alone.

Configure once per process with ``configure(url=..., max_turns=..., ...)`` before TRL builds the
instances (TRL's factory takes no arguments).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

# ---------------------------------------------------------------------------------------------
# The reference curve (docs/scoring.md), the reward GRPO optimises. Same numbers as src/core/scoring.ts.

GAME_DECAY_KM = 1492.7  # GeoGuessr's world-map decay
MIXTURE_WIDE_DECAY_KM = 5000.0  # keeps a gradient for guesses thousands of km off
REFERENCE_COST_CAP = 0.2  # the cost never takes more than a fifth of the score


def reference_reward(distance_km: float | None, cost: float) -> float:
    """0 without a usable guess, else min(1, mixture) * (1 - min(max(cost, 0), 0.2))."""
    if distance_km is None:
        return 0.0
    mixture = 0.5 * math.exp(-distance_km / GAME_DECAY_KM) + 0.5 * math.exp(-distance_km / MIXTURE_WIDE_DECAY_KM)
    return min(1.0, mixture) * (1.0 - min(max(cost, 0.0), REFERENCE_COST_CAP))


# ---------------------------------------------------------------------------------------------
# Settings


@dataclass(frozen=True)
class Settings:
    url: str = ""
    split: str = "train"
    max_turns: int = 12
    view_px: int = 448
    run: str = "geolab"
    model: str = ""
    #: `<output_dir>/traces/rollouts.jsonl`; None keeps no traces.
    trace_path: str | None = None
    request_timeout_s: float = 180.0
    #: How long opening a session may wait for a free slot (CAPACITY_REACHED) or a reachable server.
    open_wait_s: float = 600.0
    #: First back-off; doubled per attempt up to `backoff_max_s`.
    backoff_s: float = 1.0
    backoff_max_s: float = 15.0


_settings = Settings()
_lock = threading.Lock()
#: The optimizer step rollouts belong to; the trainer's callback publishes it.
_train_step = 0


def configure(**changes: Any) -> Settings:
    """Replaces settings for every instance made from now on (TRL's factory takes no arguments)."""
    global _settings
    _settings = replace(_settings, **changes)
    return _settings


def set_train_step(step: int) -> None:
    global _train_step
    _train_step = int(step)


class EnvUnreachable(RuntimeError):
    """The server could not be reached (or kept refusing a session) within the settings' wait."""


class EnvRefused(RuntimeError):
    """The server answered with an error: `status`, `code` (the WebSocket codes), `message`."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message


# ---------------------------------------------------------------------------------------------
# HTTP


def request(method: str, url: str, body: Any = None, timeout_s: float | None = None) -> Any:
    """One JSON request; an error answer raises EnvRefused, no answer at all EnvUnreachable."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout_s or _settings.request_timeout_s) as res:
            return json.loads(res.read())
    except urllib.error.HTTPError as err:
        raw = err.read()
        try:
            payload = json.loads(raw)
        except ValueError:
            payload = {}
        code = payload.get("code", "HTTP_%d" % err.code) if isinstance(payload, dict) else "HTTP_%d" % err.code
        message = payload.get("message", raw.decode(errors="replace")[:200]) if isinstance(payload, dict) else ""
        raise EnvRefused(err.code, code, message) from None
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise EnvUnreachable(f"{url}: {reason}") from None


def num_tasks(url: str, split: str) -> int:
    """The split's size, from the Task API."""
    return int(request("POST", url.rstrip("/") + "/geoguesser_env/num_tasks", {"split": split})["num_tasks"])


# ---------------------------------------------------------------------------------------------
# Model-facing text

#: The environment's budget sentence; the model hears one budget only, the trainer's.
_ENV_BUDGET = re.compile(r"\s*\b\d+ actions? left\.")

_GUESS_NOTE = "Guess submitted. The episode is over."
_OVER_NOTE = "The episode is over."
_UNSCORED_NOTE = "The episode is over, and without a guess it scores 0."


def without_env_budget(feedback: str) -> str:
    return _ENV_BUDGET.sub("", feedback).strip()


def budget_sentence(left: int) -> str:
    """The trainer's count after a call; loud at one left, which is when models forget to guess."""
    if left <= 0:
        return "No tool calls left. The episode ends here, and without a guess it scores 0."
    if left == 1:
        return "1 tool call left: THIS IS YOUR FINAL ACTION. Call guess now, or the episode scores 0."
    return f"{left} tool calls left."


def instruction(max_turns: int) -> str:
    return "\n".join(
        [
            "You are standing somewhere on Earth in a street-level panorama; the image is your view,",
            "facing true north with a 90 degree field of view. Work out where you are.",
            "Tools (one call at a time):",
            "- look: face a compass heading (0 north, 90 east), optionally with a field of view and a tilt.",
            "- zoom: narrow the field of view to read something far away.",
            "- move: walk forward or backward along the road.",
            "- pin: drop a pin and learn which place the pin itself is in. It never says whether you are right.",
            "- guess: submit your final latitude and longitude. This ends the episode and scores it by distance.",
            f"You have {max_turns} tool calls. Every result says how many are left.",
            "An episode without a guess scores 0, worse than any guess: guess before they run out.",
        ]
    )


# ---------------------------------------------------------------------------------------------
# Images

_pillow_note_shown = False


def image_block(image_base64: str, kind: str, view_px: int) -> dict:
    """A view or map for the model: a PIL image downscaled to `view_px`, or without Pillow a data URL as served."""
    raw = base64.b64decode(image_base64)
    try:
        from PIL import Image  # lazily: the environment itself needs only the standard library
    except ImportError:
        _note_no_pillow(view_px)
        mime = "image/png" if kind == "map" else "image/jpeg"
        return {"type": "image", "image": f"data:{mime};base64,{image_base64}"}
    import io

    image = Image.open(io.BytesIO(raw)).convert("RGB")
    if max(image.size) > view_px:
        image.thumbnail((view_px, view_px), Image.Resampling.LANCZOS)
    return {"type": "image", "image": image}


def _note_no_pillow(view_px: int) -> None:
    global _pillow_note_shown
    if not _pillow_note_shown:
        _pillow_note_shown = True
        print(
            f"geolab_env: Pillow is not installed, so images reach the model at the server's size, "
            f"not downscaled to {view_px} px (pip install pillow; requirements.txt has it)",
            file=sys.stderr,
        )


# ---------------------------------------------------------------------------------------------
# Traces


def write_trace(record: dict, path: str | None) -> None:
    """Appends one rollout as one line; threads (and a future async worker) never interleave lines."""
    if path is None:
        return
    line = json.dumps(record, separators=(",", ":")) + "\n"
    with _lock:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line)


# ---------------------------------------------------------------------------------------------
# The environment


@dataclass
class _Episode:
    split: str
    index: int
    session: str | None = None
    turns: int = 0
    done: bool = False
    guessed: bool = False
    distance_km: float | None = None
    cost: float = 0.0
    trace: list = field(default_factory=list)
    traced: bool = False
    #: Why it ended without a guess, when the environment ended it (a lost session, a server error).
    ended_by: str | None = None


class GeolabEnv:
    """One GeoGuesser episode per rollout; TRL exposes every public method but reset and get_reward as a tool."""

    def __init__(self) -> None:
        self._settings = _settings
        self._episode: _Episode | None = None
        #: Attempts to open a session that the server refused at its cap (for tests and logs).
        self.capacity_retries = 0

    # -- reset and reward (not tools) ---------------------------------------------------------

    def reset(self, split: str | None = None, index: int | None = None, **row: Any) -> list[dict]:
        """Starts the row's task in a new session and returns the opening view and the instruction."""
        self._close()
        self._settings = _settings
        s = self._settings
        if index is None:
            raise ValueError("reset needs the row's task index (the dataset's `index` column)")
        episode = _Episode(split=split or s.split, index=int(index))
        opened = self._open(episode.split, episode.index)
        episode.session = opened["session_id"]
        self._episode = episode
        observation = opened["observation"]
        text = instruction(s.max_turns)
        self._record({"op": "reset"}, observation, text)
        blocks = [image_block(observation["image_base64"], observation.get("image_kind", "view"), s.view_px)] if observation.get("image_base64") else []
        return blocks + [{"type": "text", "text": text}]

    def get_reward(self) -> float:
        """The rollout's reward on the reference curve; ends the session and writes the rollout's trace once."""
        episode = self._episode
        if episode is None:
            return 0.0
        self._close()
        reward = reference_reward(episode.distance_km if episode.guessed else None, episode.cost)
        if not episode.traced:
            episode.traced = True
            s = self._settings
            write_trace(
                {
                    "run": s.run,
                    "step": _train_step,
                    "model": s.model,
                    "env": s.url,
                    "task": {"split": episode.split, "index": episode.index},
                    "outcome": {
                        "reward": reward,
                        "distance_km": episode.distance_km,
                        "action_cost": episode.cost,
                        "turns_used": episode.turns,
                        "guessed": episode.guessed,
                        "max_turns": s.max_turns,
                        **({"ended_by": episode.ended_by} if episode.ended_by else {}),
                    },
                    "turns": episode.trace,
                },
                s.trace_path,
            )
        return reward

    # -- tools ---------------------------------------------------------------------------------

    def look(self, heading_deg: float, fov_deg: float = 90.0, pitch_deg: float = 0.0) -> list[dict]:
        """Face a compass heading and see the view; costs 0.01.

        Args:
            heading_deg: Compass heading in degrees, 0 north, 90 east, 180 south, 270 west.
            fov_deg: Horizontal field of view in degrees, 10 (zoomed in) to 120 (wide). Defaults to 90.
            pitch_deg: Tilt in degrees, -90 to 90; positive looks up. Defaults to 0.
        """
        return self._act(
            {
                "op": "look",
                "heading_deg": _clamp(heading_deg, -3600, 3600),
                "fov_deg": _clamp(fov_deg, 10, 120),
                "pitch_deg": _clamp(pitch_deg, -90, 90),
            }
        )

    def zoom(self, fov_deg: float) -> list[dict]:
        """Set the field of view to read something far away, and see the view; costs 0.01.

        Args:
            fov_deg: Horizontal field of view in degrees, 10 (most zoomed in) to 120 (wide).
        """
        return self._act({"op": "zoom", "fov_deg": _clamp(fov_deg, 10, 120)})

    def move(self, direction: str = "forward", meters: float = 10.0) -> list[dict]:
        """Walk along the captured road and see the view there; costs 0.05, even at a dead end.

        Args:
            direction: Along the road or back the way it came. (choices: ["forward", "backward"])
            meters: How far to walk, up to 500. The result says how far you really moved.
        """
        way = "backward" if str(direction).strip().lower().startswith("b") else "forward"
        return self._act({"op": "move", "direction": way, "meters": _clamp(meters, 1, 500)})

    def pin(self, lat: float, lon: float) -> list[dict]:
        """Drop a pin and see a map with the place the pin is in; costs 0.02. It never says whether you are right.

        Args:
            lat: Latitude of the pin, -90 to 90.
            lon: Longitude of the pin, -180 to 180.
        """
        return self._act({"op": "pin", "lat": _clamp(lat, -90, 90), "lon": _clamp(lon, -180, 180), "span_deg": 7})

    def guess(self, lat: float, lon: float) -> list[dict]:
        """Submit your final answer; this ends the episode and scores it by distance.

        Args:
            lat: Latitude of your guess, -90 to 90.
            lon: Longitude of your guess, -180 to 180.
        """
        return self._act({"op": "guess", "lat": _clamp(lat, -90, 90), "lon": _clamp(lon, -180, 180)})

    # -- the episode ---------------------------------------------------------------------------

    def _act(self, action: dict) -> list[dict]:
        episode = self._episode
        if episode is None:
            raise ValueError("no episode: reset first")
        s = self._settings
        if episode.done or episode.turns >= s.max_turns:
            return [{"type": "text", "text": _OVER_NOTE}]
        episode.turns += 1
        left = max(0, s.max_turns - episode.turns)
        try:
            result = request("POST", f"{s.url.rstrip('/')}/sessions/{episode.session}/step", {"action": action})
        except EnvRefused as err:
            if err.code == "VALIDATION_ERROR":
                # Refused without cost or effect: the model may try again with valid arguments.
                text = f"That call was refused: {err.message} {budget_sentence(left)}"
                self._record(action, None, text)
                return [{"type": "text", "text": text}]
            return self._lost(action, f"{err.code}: {err.message}")
        except EnvUnreachable as err:
            return self._lost(action, str(err))

        observation = result.get("observation") or {}
        done = bool(result.get("done")) or observation.get("distance_km") is not None
        if isinstance(observation.get("action_cost"), (int, float)):
            episode.cost = float(observation["action_cost"])
        if done:
            episode.done = True
            episode.distance_km = observation.get("distance_km")
            episode.guessed = action["op"] == "guess" and episode.distance_km is not None
            # The terminal feedback and map reveal the truth: the model gets neither.
            # A budget sentence here would contradict the count the model was given: it just ended.
            text = _GUESS_NOTE if action["op"] == "guess" else _UNSCORED_NOTE
            self._record(action, observation, text)
            self._close()
            return [{"type": "text", "text": text}]
        feedback = without_env_budget(str(observation.get("feedback") or ""))
        text = f"{feedback} {budget_sentence(left)}".strip()
        self._record(action, observation, text)
        blocks = []
        if observation.get("image_base64"):
            blocks.append(image_block(observation["image_base64"], observation.get("image_kind", "view"), s.view_px))
        return blocks + [{"type": "text", "text": text}]

    def _lost(self, action: dict, reason: str) -> list[dict]:
        """The environment could not take the action (session gone, server error): the rollout ends unscored."""
        episode = self._episode
        assert episode is not None
        episode.done = True
        episode.ended_by = reason
        text = f"The environment could not take that action. {_UNSCORED_NOTE}"
        self._record(action, None, text)
        self._close()
        return [{"type": "text", "text": text}]

    def _record(self, action: dict, observation: dict | None, text: str) -> None:
        """One turn of the trace: what was done, and the text the model read after it."""
        episode = self._episode
        if episode is None or self._settings.trace_path is None:
            return
        turn: dict[str, Any] = {"turn": episode.turns, "action": action, "feedback": text}
        if observation is not None:
            metadata = observation.get("metadata") or {}
            image = observation.get("image_base64")
            turn.update(
                {
                    "pins": [[p["lat"], p["lon"]] for p in observation.get("pins") or []],
                    "steps_remaining": observation.get("steps_remaining"),
                    "camera_after": {
                        "heading_deg": observation.get("heading_deg"),
                        "pitch_deg": observation.get("pitch_deg"),
                        "fov_deg": observation.get("fov_deg"),
                        "frame_index": metadata.get("frame_index"),
                    },
                    "image_kind": observation.get("image_kind"),
                    # A prefix of the served image's hash, so a re-render can be checked; never the image.
                    "image_sha256": hashlib.sha256(base64.b64decode(image)).hexdigest()[:16] if image else None,
                    "moved_meters": observation.get("moved_meters"),
                    "action_cost": observation.get("action_cost"),
                }
            )
        episode.trace.append(turn)

    def _open(self, split: str, index: int) -> dict:
        """Opens a session, waiting out CAPACITY_REACHED and an unreachable server with back-off."""
        s = self._settings
        deadline = time.monotonic() + s.open_wait_s
        delay = s.backoff_s
        while True:
            try:
                return request("POST", s.url.rstrip("/") + "/sessions", {"split": split, "index": index})
            except EnvRefused as err:
                if err.code != "CAPACITY_REACHED":
                    raise
                self.capacity_retries += 1
                last = f"the server is at its session cap ({err.message})"
            except EnvUnreachable as err:
                last = str(err)
            if time.monotonic() + delay > deadline:
                raise EnvUnreachable(f"could not open a session for {split}[{index}] within {s.open_wait_s:g} s: {last}")
            time.sleep(delay)
            delay = min(delay * 2, s.backoff_max_s)

    def _close(self) -> None:
        episode = self._episode
        if episode is None or episode.session is None:
            return
        session, episode.session = episode.session, None
        try:
            request("DELETE", f"{self._settings.url.rstrip('/')}/sessions/{session}", timeout_s=30)
        except (EnvRefused, EnvUnreachable):
            pass  # already gone (ended, timed out); the server's idle timeout covers the rest


def _clamp(value: Any, low: float, high: float) -> float:
    """Models send strings and out-of-range numbers; the range is clamped as the JSON protocol does."""
    number = float(value)
    if math.isnan(number):
        raise ValueError("expected a number, got NaN")
    return max(low, min(high, number))
