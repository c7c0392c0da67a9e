"""geolab's GRPO trainer: TRL's GRPOTrainer with environment_factory against a geolab environment server.

    python geolab_trainer.py CONFIG.json [--dry-run] [--resume]

CONFIG is a geolab training config (docs/training.md) as `geolab train launch` writes it: parsed by the
TypeScript schema (src/train/config.ts) with every default filled in, so the defaults have one home.
This script checks it again the same way (keys, types, ranges, the rules between fields) and refuses
a config with a missing key rather than guessing a default of its own.

--dry-run validates and prints, as one JSON object, the GRPOConfig and LoraConfig keyword arguments,
the environment URL and split and what a resume would continue from, without importing torch, trl,
peft or transformers (the GPU stack is imported only on the real path).

Besides TRL's own output, the trainer writes one JSON object per line (`"geolab": KIND`, see
src/train/types.ts) to stdout and to <output_dir>/progress.jsonl: phases, a resume, one line per
logged optimizer step with TRL's metrics, and one per checkpoint. Rollout traces go to
<output_dir>/traces/rollouts.jsonl (geolab_env.py writes them).

SIGINT stops the run at the end of the current step: the trainer saves checkpoint-N, prints
"geolab: checkpoint saved at step N: PATH" and exits 0 (a second SIGINT, or SIGTERM, ends it at once).

Exit codes: 0 done or stopped with a checkpoint, 1 training failed, 2 bad config or usage (or the
stack is missing), 3 environment unreachable, 130 interrupted without a checkpoint.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import signal
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import geolab_env  # noqa: E402  (beside this file; standard library only)

CONFIG_VERSION = 1
EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE, EXIT_INTERRUPTED = 1, 2, 3, 130

# ---------------------------------------------------------------------------------------------
# The config, checked as src/train/config.ts checks it (same fields, ranges and messages).

Problem = tuple[str, str]


class _Missing:
    pass


MISSING = _Missing()
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def positive_int(value: Any) -> str | None:
    if not _number(value):
        return f"expected an integer > 0, got {_kind(value)}"
    if not float(value).is_integer():
        return "expected an integer"
    return None if value > 0 else "expected an integer > 0"


def integer(value: Any) -> str | None:
    if not _number(value):
        return f"expected an integer, got {_kind(value)}"
    return None if float(value).is_integer() else "expected an integer"


def number(check: Callable[[float], bool], message: str) -> Callable[[Any], str | None]:
    def validate(value: Any) -> str | None:
        if not _number(value):
            return f"expected a number, got {_kind(value)}"
        return None if check(value) else message

    return validate


def fraction(lo: float, hi: float) -> Callable[[Any], str | None]:
    return number(lambda v: lo <= v <= hi, f"expected a number in [{lo:g}, {hi:g}]")


def text(min_length: int = 1, message: str = "expected a non-empty string") -> Callable[[Any], str | None]:
    def validate(value: Any) -> str | None:
        if not isinstance(value, str):
            return f"expected a string, got {_kind(value)}"
        return None if len(value) >= min_length else message

    return validate


def matching(pattern: re.Pattern[str], message: str) -> Callable[[Any], str | None]:
    def validate(value: Any) -> str | None:
        if not isinstance(value, str):
            return f"expected a string, got {_kind(value)}"
        # fullmatch: `$` would let a trailing newline through, which the TS schema refuses.
        return None if pattern.fullmatch(value) else message

    return validate


def one_of(*choices: str) -> Callable[[Any], str | None]:
    def validate(value: Any) -> str | None:
        return None if value in choices else "expected one of " + ", ".join(f'"{c}"' for c in choices)

    return validate


def exactly(expected: Any, message: str) -> Callable[[Any], str | None]:
    def validate(value: Any) -> str | None:
        return None if type(value) is type(expected) and value == expected else message

    return validate


def mapping(value: Any) -> str | None:
    return None if isinstance(value, dict) else f"expected an object, got {_kind(value)}"


def boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else f"expected a boolean, got {_kind(value)}"


def http_url(value: Any) -> str | None:
    if not isinstance(value, str):
        return f"expected a string, got {_kind(value)}"
    return None if re.match(r"^https?://[^/\s]+", value) else "expected an http(s) URL"


def list_of(item: Callable[[Any], str | None], min_items: int = 0) -> Callable[[Any], str | None]:
    def validate(value: Any) -> str | None:
        if not isinstance(value, list):
            return f"expected a list, got {_kind(value)}"
        if len(value) < min_items:
            return f"expected at least {min_items} item(s)"
        return None

    validate.item = item  # type: ignore[attr-defined]
    return validate


# Every key of the resolved config: (validator, required). Nested objects are dicts of the same.
SCHEMA: dict[str, Any] = {
    "version": (lambda v: None if _number(v) and v == CONFIG_VERSION else f"expected {CONFIG_VERSION}", True),
    "name": (matching(NAME, 'expected letters, digits, "_", "-", "." (at most 64)'), True),
    "output_dir": (text(1, "expected a directory"), True),
    "model": (text(1, "expected a model id or path"), True),
    "env": {
        "mode": (one_of("local", "remote"), True),
        "url": (http_url, False),
        "split": (text(), True),
        "tasks": (list_of(text(0)), True),
        "panos": (text(0), False),
    },
    "lora": {
        "r": (positive_int, True),
        "alpha": (positive_int, True),
        "dropout": (fraction(0, 1), True),
        "target_modules": (list_of(text(), 1), True),
    },
    "grpo": {
        "vllm_importance_sampling_correction": (boolean, True),
        "vllm_importance_sampling_mode": (one_of("token_truncate", "token_mask", "sequence_truncate", "sequence_mask"), True),
        "vllm_importance_sampling_clip_min": (number(lambda v: v >= 0, "expected a number >= 0"), True),
        "vllm_importance_sampling_clip_max": (number(lambda v: v > 0, "expected a number > 0"), True),
        "use_vllm": (exactly(True, "expected true: the recipe generates with vLLM"), True),
        "vllm_mode": (exactly("colocate", 'expected "colocate": vLLM shares the training GPU'), True),
        "num_generations": (positive_int, True),
        "generation_batch_size": (positive_int, True),
        "per_device_train_batch_size": (positive_int, True),
        "gradient_accumulation_steps": (positive_int, True),
        "learning_rate": (number(lambda v: v > 0, "expected a number > 0"), True),
        "temperature": (number(lambda v: v > 0, "expected a number > 0"), True),
        "beta": (number(lambda v: v >= 0, "expected a number >= 0"), True),
        "scale_rewards": (one_of("group", "batch", "none"), True),
        "num_iterations": (positive_int, True),
        "max_steps": (positive_int, True),
        "max_completion_length": (positive_int, True),
        "max_model_len": (positive_int, True),
        "save_steps": (positive_int, True),
        "seed": (integer, True),
        "vllm_gpu_memory_utilization": (fraction(0.05, 0.95), True),
        "chat_template_kwargs": (mapping, True),
        "mask_truncated_completions": (boolean, True),
        "bf16": (boolean, True),
        "gradient_checkpointing": (boolean, True),
        "logging_steps": (positive_int, True),
        "log_completions": (boolean, True),
        "num_completions_to_print": (positive_int, True),
    },
    "episode": {
        "max_turns": (positive_int, True),
        "view_px": (positive_int, True),
    },
    "gpus": (positive_int, True),
    "trace_rollouts": (boolean, True),
    "secrets": (list_of(matching(ENV_NAME, "expected an environment variable name")), True),
    "python": (text(), True),
}

RESOLVED_HINT = "the trainer reads a resolved config: write it with `geolab train launch` (or init), which fills in every default"


def check_shape(value: Any, schema: dict[str, Any], path: str = "") -> list[Problem]:
    """Keys, types and ranges; unknown keys are refused, as the TS schema's strict objects do."""
    where = path or "(root)"
    if not isinstance(value, dict):
        return [(where, f"expected an object, got {_kind(value)}")]
    problems: list[Problem] = []
    for key, spec in schema.items():
        field = f"{path}.{key}" if path else key
        item = value.get(key, MISSING)
        if isinstance(spec, dict):
            if item is MISSING:
                problems.append((field, f"missing: {RESOLVED_HINT}"))
            else:
                problems += check_shape(item, spec, field)
            continue
        validate, required = spec
        if item is MISSING:  # null is a value, and a wrong one, as in the TS schema
            if required:
                problems.append((field, f"missing: {RESOLVED_HINT}"))
            continue
        message = validate(item)
        if message:
            problems.append((field, message))
        elif isinstance(item, list) and hasattr(validate, "item"):
            for i, element in enumerate(item):
                element_message = validate.item(element)
                if element_message:
                    problems.append((f"{field}.{i}", element_message))
    for key in value:
        if key not in schema:
            field = f"{path}.{key}" if path else key
            problems.append((field, "unknown key (expected one of " + ", ".join(schema) + ")"))
    return problems


def consistency(c: dict) -> list[Problem]:
    """The rules between fields that TRL would otherwise reject an hour into a run (or never)."""
    g = c["grpo"]
    out: list[Problem] = []
    if g["num_generations"] < 2:
        out.append(("grpo.num_generations", "expected at least 2: GRPO compares completions within a group"))
    if g["generation_batch_size"] % g["num_generations"] != 0:
        out.append(("grpo.generation_batch_size", f"expected a multiple of num_generations ({g['num_generations']})"))
    per_step = g["per_device_train_batch_size"] * g["gradient_accumulation_steps"] * c["gpus"]
    if per_step % g["num_generations"] != 0:
        out.append(
            (
                "grpo.gradient_accumulation_steps",
                f"per_device_train_batch_size x gradient_accumulation_steps x gpus ({per_step}) must be a multiple of "
                f"num_generations ({g['num_generations']}), so every step holds whole groups",
            )
        )
    per_device = g["per_device_train_batch_size"] * c["gpus"]
    if g["generation_batch_size"] % per_device != 0:
        out.append(("grpo.generation_batch_size", f"expected a multiple of per_device_train_batch_size x gpus ({per_device})"))
    if g["max_completion_length"] >= g["max_model_len"]:
        out.append(("grpo.max_completion_length", f"expected less than max_model_len ({g['max_model_len']}): the prompt needs room"))
    if g["vllm_importance_sampling_clip_min"] >= g["vllm_importance_sampling_clip_max"]:
        out.append(
            (
                "grpo.vllm_importance_sampling_clip_min",
                f"expected less than vllm_importance_sampling_clip_max ({_plain(g['vllm_importance_sampling_clip_max'])})",
            )
        )
    if c["env"]["mode"] == "remote" and not c["env"].get("url"):
        out.append(("env.url", "expected the server URL for a remote environment"))
    return out


def _as_ints(value: Any, schema: dict[str, Any]) -> None:
    """JSON's 16.0 is an integer to the TS schema; make it one here too."""
    for key, spec in schema.items():
        if isinstance(spec, dict):
            _as_ints(value[key], spec)
        elif spec[0] in (positive_int, integer) and isinstance(value.get(key), float):
            value[key] = int(value[key])


class ConfigError(Exception):
    def __init__(self, file: str, problems: list[Problem]) -> None:
        super().__init__(f"{file}: {len(problems)} problem(s)")
        self.file = file
        self.problems = problems


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def load_config(file: str) -> dict:
    """Reads and checks a config; raises ConfigError naming the file and each field."""
    try:
        raw = Path(file).read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(file, [("(file)", f"cannot read it: {err.strerror or err}")]) from None
    try:
        value = json.loads(raw, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise ConfigError(f"{file}:{err.lineno}:{err.colno}", [("(file)", f"not valid JSON: {err.msg}")]) from None
    except ValueError as err:
        raise ConfigError(file, [("(file)", f"not valid JSON: {err}")]) from None
    problems = check_shape(value, SCHEMA)
    if not problems:
        problems = consistency(value)
    if problems:
        raise ConfigError(file, problems)
    _as_ints(value, SCHEMA)
    out = Path(value["output_dir"])
    # launch writes it absolute; by hand it is relative to the config, not to wherever we run.
    value["output_dir"] = str(out if out.is_absolute() else (Path(file).resolve().parent / out))
    return value


def derive(c: dict) -> dict:
    """What the recipe's numbers mean per optimizer step (as src/train/config.ts derive())."""
    g = c["grpo"]
    completions = g["per_device_train_batch_size"] * g["gradient_accumulation_steps"] * c["gpus"]
    tasks = completions / g["num_generations"]
    return {
        "completionsPerStep": completions,
        "tasksPerStep": _plain(tasks),
        "stepsPerGeneration": _plain(g["generation_batch_size"] / (g["per_device_train_batch_size"] * c["gpus"])),
        "tasksTotal": _plain(tasks * g["max_steps"]),
        "checkpoints": g["max_steps"] // g["save_steps"],
    }


def _plain(x: float) -> float | int:
    return int(x) if float(x).is_integer() else x


# ---------------------------------------------------------------------------------------------
# TRL and peft arguments


def grpo_kwargs(c: dict) -> dict:
    """GRPOConfig's keyword arguments: every one the published run set, from the config (docs/training.md,
    "The recipe against TRL's defaults"), so none falls to a TRL or transformers default."""
    g, episode = c["grpo"], c["episode"]
    return {
        # First because it matters most: TRL's default (on, "sequence_mask") exponentiates a sum over the
        # whole completion; on this task the ratio's mean was ~1e-4 and the gradient vanished.
        "vllm_importance_sampling_correction": g["vllm_importance_sampling_correction"],
        "vllm_importance_sampling_mode": g["vllm_importance_sampling_mode"],
        "vllm_importance_sampling_clip_min": g["vllm_importance_sampling_clip_min"],
        "vllm_importance_sampling_clip_max": g["vllm_importance_sampling_clip_max"],
        "output_dir": c["output_dir"],
        "run_name": c["name"],
        "seed": g["seed"],
        "max_steps": g["max_steps"],
        "learning_rate": g["learning_rate"],
        "per_device_train_batch_size": g["per_device_train_batch_size"],
        "gradient_accumulation_steps": g["gradient_accumulation_steps"],
        "num_generations": g["num_generations"],
        "generation_batch_size": g["generation_batch_size"],
        "temperature": g["temperature"],
        "beta": g["beta"],
        "scale_rewards": g["scale_rewards"],
        "num_iterations": g["num_iterations"],
        # The whole rollout (every reply and every tool result, images included), not one turn.
        "max_completion_length": g["max_completion_length"],
        # The turn limit: the same number the model is told (geolab_env counts it down).
        "max_tool_calling_iterations": episode["max_turns"],
        "use_vllm": g["use_vllm"],
        "vllm_mode": g["vllm_mode"],
        "vllm_gpu_memory_utilization": g["vllm_gpu_memory_utilization"],
        "vllm_max_model_length": g["max_model_len"],
        "save_strategy": "steps",
        "save_steps": g["save_steps"],
        "logging_steps": g["logging_steps"],
        # The recipe's GPUs (A100 and newer) all do bf16; pre-flight fails a card that does not.
        "bf16": g["bf16"],
        "gradient_checkpointing": g["gradient_checkpointing"],
        # Thinking was off in the evaluation the recipe is calibrated on, and a reasoning block per
        # turn does not fit twelve turns of images in the completion budget. `train serve` uses the same.
        "chat_template_kwargs": dict(g["chat_template_kwargs"]),
        # A rollout cut off mid-call says nothing about the policy.
        "mask_truncated_completions": g["mask_truncated_completions"],
        # Writes <output_dir>/completions/completions_*.parquet, which `geolab audit` reads.
        "log_completions": g["log_completions"],
        "num_completions_to_print": g["num_completions_to_print"],
        # Progress goes to progress.jsonl; nothing is sent anywhere, nothing is pushed.
        "report_to": "none",
        "push_to_hub": False,
    }


def lora_kwargs(c: dict) -> dict:
    lora = c["lora"]
    return {
        "r": lora["r"],
        "lora_alpha": lora["alpha"],
        "lora_dropout": lora["dropout"],
        "target_modules": list(lora["target_modules"]),
        "task_type": "CAUSAL_LM",
    }


CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")


def last_checkpoint(output_dir: str) -> tuple[str, int] | None:
    """The newest `checkpoint-N` TRL saved (with its trainer state), or None."""
    root = Path(output_dir)
    if not root.is_dir():
        return None
    found = [
        (int(m.group(1)), entry)
        for entry in root.iterdir()
        if (m := CHECKPOINT.match(entry.name)) and entry.is_dir() and (entry / "trainer_state.json").is_file()
    ]
    if not found:
        return None
    step, path = max(found)
    return str(path), step


def trace_path(c: dict) -> str | None:
    if not c["trace_rollouts"]:
        return None
    # One file per rank under several GPUs: a lock serialises threads, not processes.
    rank = os.environ.get("RANK")
    suffix = f"-rank{rank}" if c["gpus"] > 1 and rank not in (None, "0") else ""
    return str(Path(c["output_dir"]) / "traces" / f"rollouts{suffix}.jsonl")


def plan(c: dict, resume: bool) -> dict:
    """Everything the real path would hand TRL and the environment, as plain JSON."""
    checkpoint = last_checkpoint(c["output_dir"]) if resume else None
    return {
        "config_version": c["version"],
        "name": c["name"],
        "model": c["model"],
        "output_dir": c["output_dir"],
        "env": {"mode": c["env"]["mode"], "url": c["env"].get("url"), "split": c["env"]["split"]},
        "episode": {"max_turns": c["episode"]["max_turns"], "view_px": c["episode"]["view_px"]},
        "grpo_config": grpo_kwargs(c),
        "lora_config": lora_kwargs(c),
        "reward": "GeolabEnv.get_reward: the reference curve of the environment's distance and cost",
        "derived": derive(c),
        "trace_path": trace_path(c),
        "progress_path": str(Path(c["output_dir"]) / "progress.jsonl"),
        "resume_from": {"checkpoint": checkpoint[0], "step": checkpoint[1]} if checkpoint else None,
        "gpus": c["gpus"],
    }


# ---------------------------------------------------------------------------------------------
# Progress lines (src/train/types.ts TrainerEvent)


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Progress:
    """Writes TrainerEvent lines to stdout and `<output_dir>/progress.jsonl`, from the main process only."""

    def __init__(self, output_dir: str, main_process: bool = True) -> None:
        self.path = Path(output_dir) / "progress.jsonl"
        self.main = main_process
        self.lock = threading.Lock()

    def emit(self, event: dict) -> None:
        if not self.main:
            return
        line = json.dumps(event, separators=(",", ":"))
        with self.lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(line + "\n")
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    def phase(self, phase: str, message: str | None = None) -> None:
        self.emit({"geolab": "phase", "phase": phase, "time": now(), **({"message": message} if message else {})})


# What `geolab train stop` waits for in the log (src/train/stop.ts reads it with the same wording).
CHECKPOINT_SAVED = "geolab: checkpoint saved at step {step}: {path}"


class StopRequest:
    """SIGINT asks for a stop at the end of the current step, with a checkpoint (docs/training.md, "Stop
    means checkpoint"). The first SIGINT only sets the flag; a second one interrupts at once."""

    def __init__(self) -> None:
        self.requested = False
        self.saved: tuple[int, str] | None = None

    def handle(self, signum, frame) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        print("geolab: stop requested: a checkpoint is saved when this step ends (interrupt again to stop now)", flush=True)


class ProgressHooks:
    """The TrainerCallback methods, apart from transformers so they can be exercised without it."""

    def __init__(self, progress: Progress, output_dir: str, stop: StopRequest | None = None) -> None:
        self.progress = progress
        self.output_dir = output_dir
        self.started = time.monotonic()
        self.stop = stop or StopRequest()

    def on_step_end(self, args, state, control, **kwargs):
        # The Trainer saves (on_save follows) and then leaves its loop: a stop never loses the step.
        if self.stop.requested:
            control.should_save = True
            control.should_training_stop = True
        return control

    def on_train_begin(self, args, state, control, **kwargs):
        self.progress.phase("training")

    def on_step_begin(self, args, state, control, **kwargs):
        # Rollouts are generated inside the step: their traces carry its number.
        geolab_env.set_train_step(state.global_step)

    def on_log(self, args, state, control, logs=None, **kwargs):
        if not logs or not state.is_world_process_zero or "train_runtime" in logs:
            return  # the end-of-training summary is not a step
        metrics = {k: float(v) for k, v in logs.items() if _number(v) and math.isfinite(v)}
        if not metrics:
            return
        self.progress.emit(
            {
                "geolab": "step",
                "time": now(),
                "step": int(state.global_step),
                "max_steps": int(state.max_steps),
                "metrics": metrics,
                "elapsed_s": round(time.monotonic() - self.started, 3),
            }
        )

    def on_save(self, args, state, control, **kwargs):
        path = str(Path(self.output_dir) / f"checkpoint-{state.global_step}")
        if self.stop.requested:
            self.stop.saved = (int(state.global_step), path)
        if state.is_world_process_zero:
            self.progress.emit({"geolab": "checkpoint", "time": now(), "step": int(state.global_step), "path": path})
            if self.stop.requested:
                print(CHECKPOINT_SAVED.format(step=int(state.global_step), path=path), flush=True)


# ---------------------------------------------------------------------------------------------
# The real run


def _trl_owns_env_reward(version: str) -> bool:
    """From TRL 1.10 an environment's get_reward() is a reward source (before, it was exposed as a tool)."""
    numbers = [int(n) for n in re.findall(r"\d+", version)[:2]]
    return len(numbers) == 2 and tuple(numbers) >= (1, 10)


def train(c: dict, resume: bool, progress: Progress, stop: StopRequest | None = None) -> None:
    env, episode = c["env"], c["episode"]
    url = env.get("url")
    if not url:
        raise Usage("env.url: expected the server URL (train launch fills it in for a local environment)")
    progress.phase("starting", f"environment {url}, split {env['split']}")
    try:
        total = geolab_env.num_tasks(url, env["split"])
    except geolab_env.EnvUnreachable as err:
        raise Unreachable(f"the environment server is unreachable: {err}") from None
    except geolab_env.EnvRefused as err:
        raise Usage(f"env.split: the server refused split {env['split']!r}: {err.message}") from None
    if total == 0:
        raise Usage(f"env.split: split {env['split']!r} has no tasks")

    checkpoint = last_checkpoint(c["output_dir"]) if resume else None
    geolab_env.configure(
        url=url,
        split=env["split"],
        max_turns=episode["max_turns"],
        view_px=episode["view_px"],
        run=c["name"],
        model=c["model"],
        trace_path=trace_path(c),
    )
    # TRL writes completions parquet files here but does not create the folder.
    for sub in ("completions", "traces"):
        (Path(c["output_dir"]) / sub).mkdir(parents=True, exist_ok=True)

    progress.phase("loading", f"model {c['model']}")
    # A long completion over a large vocabulary fragments the CUDA caching allocator.
    os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")
    try:
        import importlib.metadata as metadata

        from datasets import Dataset
        from peft import LoraConfig
        from transformers import TrainerCallback
        from trl import GRPOConfig, GRPOTrainer
    except ImportError as err:
        raise Usage(f"the training stack is missing ({err}): pip install -r {Path(__file__).with_name('requirements.txt')}") from None
    trl_version = metadata.version("trl")
    if not _trl_owns_env_reward(trl_version):
        raise Usage(f"trl {trl_version} does not take an environment's get_reward as the reward: install requirements.txt")

    import random

    indices = list(range(total))
    random.Random(c["grpo"]["seed"]).shuffle(indices)
    # reset() supplies the view and the instruction; the prompt only has to exist for TRL to repeat it.
    dataset = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": [{"type": "text", "text": ""}]}], "split": env["split"], "index": i} for i in indices]
    )
    stop = stop or StopRequest()
    callback = type("GeolabProgress", (ProgressHooks, TrainerCallback), {})(progress, c["output_dir"], stop)
    trainer = GRPOTrainer(
        model=c["model"],
        train_dataset=dataset,
        # No reward_funcs: TRL takes GeolabEnv.get_reward (the reference curve) as the reward
        # source; passing it again would count every reward twice.
        environment_factory=geolab_env.GeolabEnv,
        peft_config=LoraConfig(**lora_kwargs(c)),
        args=GRPOConfig(**grpo_kwargs(c)),
        callbacks=[callback],
    )
    if checkpoint:
        # The plain line is what log readers cut at when a resumed run replays old output.
        print(f"geolab: resuming from {checkpoint[0]} (step {checkpoint[1]})", flush=True)
        progress.emit({"geolab": "resume", "time": now(), "checkpoint": checkpoint[0], "step": checkpoint[1]})
    elif resume:
        print(f"geolab: no checkpoint in {c['output_dir']}; starting from step 0", flush=True)
    trainer.train(resume_from_checkpoint=checkpoint[0] if checkpoint else None)
    if stop.saved:
        # Stopped, not done: no final adapter, so `train resume` continues from this checkpoint.
        return
    progress.phase("saving", "final adapter")
    final = Path(c["output_dir"]) / "final"
    trainer.save_model(str(final))
    progress.phase("done", f"adapter in {final}")


class Usage(Exception):
    pass


class Unreachable(Exception):
    pass


# ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="geolab_trainer.py", description="GRPO training against a geolab environment server.")
    parser.add_argument("config", help="the training config JSON (as `geolab train launch` writes it)")
    parser.add_argument("--dry-run", action="store_true", help="validate and print the resolved TRL/peft arguments; import no GPU stack")
    parser.add_argument("--resume", action="store_true", help="continue from the last checkpoint in output_dir")
    args = parser.parse_args(argv)

    try:
        config = load_config(args.config)
    except ConfigError as err:
        print(f"geolab_trainer: {err.file}: the config is not usable:", file=sys.stderr)
        for field, message in err.problems:
            print(f"  {field}: {message}", file=sys.stderr)
        return EXIT_USAGE

    if args.dry_run:
        print(json.dumps(plan(config, args.resume), indent=2))
        return 0

    progress = Progress(config["output_dir"], main_process=os.environ.get("RANK", "0") == "0")

    def terminate(signum, frame):  # SIGTERM ends the run at once, with a last line
        raise KeyboardInterrupt

    stop = StopRequest()
    signal.signal(signal.SIGINT, stop.handle)
    signal.signal(signal.SIGTERM, terminate)
    try:
        train(config, args.resume, progress, stop)
        return 0
    except Usage as err:
        progress.phase("failed", str(err))
        print(f"geolab_trainer: {err}", file=sys.stderr)
        return EXIT_USAGE
    except Unreachable as err:
        progress.phase("failed", str(err))
        print(f"geolab_trainer: {err}", file=sys.stderr)
        return EXIT_UNREACHABLE
    except KeyboardInterrupt:
        progress.phase("failed", "interrupted")
        return EXIT_INTERRUPTED
    except Exception as err:  # a crash: the log keeps the traceback, the last line says what
        import traceback

        traceback.print_exc()
        progress.phase("failed", f"{type(err).__name__}: {err}")
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
