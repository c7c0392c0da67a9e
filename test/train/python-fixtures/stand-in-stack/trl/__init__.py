"""Stand-in GRPOTrainer: records its arguments, then plays rollouts through the environment class.

STANDIN_CRASH_AT_STEP=N raises inside step N, as a real crash would.
"""
import inspect
import json
import os
from pathlib import Path
from types import SimpleNamespace


class GRPOConfig:
    def __init__(self, **kwargs):
        self.kwargs = kwargs
        self.__dict__.update(kwargs)


class GRPOTrainer:
    def __init__(self, model, train_dataset, args, environment_factory=None, peft_config=None, callbacks=(), reward_funcs=None):
        self.args = args
        self.rows = train_dataset.rows
        self.factory = environment_factory
        self.callbacks = list(callbacks)
        probe = environment_factory()
        tools = sorted(n for n, m in inspect.getmembers(probe, inspect.ismethod) if n not in ("reset", "get_reward") and not n.startswith("_"))
        Path(args.output_dir).mkdir(parents=True, exist_ok=True)
        with open(Path(args.output_dir) / "standin-trainer.json", "a") as handle:
            handle.write(json.dumps({
                "model": model,
                "rows": len(self.rows),
                "first_rows": self.rows[:2],
                "grpo_config": args.kwargs,
                "lora_config": peft_config.kwargs,
                "reward_funcs": reward_funcs,
                "tools": tools,
                "env_reward": callable(getattr(probe, "get_reward", None)),
            }) + "\n")

    def _each(self, event, state, **kwargs):
        for callback in self.callbacks:
            getattr(callback, event)(self.args, state, SimpleNamespace(), **kwargs)

    def train(self, resume_from_checkpoint=None):
        start = 0
        if resume_from_checkpoint:
            start = json.loads((Path(resume_from_checkpoint) / "trainer_state.json").read_text())["global_step"]
            print(f"Continuing training from checkpoint, step {start}", flush=True)
        state = SimpleNamespace(global_step=start, max_steps=self.args.max_steps, is_world_process_zero=True)
        self._each("on_train_begin", state)
        crash_at = int(os.environ.get("STANDIN_CRASH_AT_STEP", "0"))
        tasks_per_step = self.args.per_device_train_batch_size * self.args.gradient_accumulation_steps // self.args.num_generations
        for step in range(start + 1, self.args.max_steps + 1):
            self._each("on_step_begin", state)
            if step == crash_at:
                raise RuntimeError(f"CUDA out of memory (stand-in) at step {step}")
            rewards = []
            for t in range(tasks_per_step):
                row = self.rows[((step - 1) * tasks_per_step + t) % len(self.rows)]
                for g in range(self.args.num_generations):
                    env = self.factory()
                    env.reset(**row)
                    env.look(heading_deg=90 * g)
                    if g % 2 == 0:
                        env.guess(lat=10.0 * g, lon=20.0)
                    rewards.append(env.get_reward())
            state.global_step = step
            mean = sum(rewards) / len(rewards)
            self._each("on_log", state, logs={"loss": 0.01 * step, "reward": mean, "reward_std": 0.0, "completions/mean_length": 321.0, "learning_rate": self.args.learning_rate, "entropy": float("nan")})
            if step % self.args.save_steps == 0:
                checkpoint = Path(self.args.output_dir) / f"checkpoint-{step}"
                checkpoint.mkdir(parents=True, exist_ok=True)
                (checkpoint / "trainer_state.json").write_text(json.dumps({"global_step": step}))
                self._each("on_save", state)
        self._each("on_log", state, logs={"train_runtime": 1.0, "train_loss": 0.5})

    def save_model(self, path):
        Path(path).mkdir(parents=True, exist_ok=True)
        (Path(path) / "adapter_config.json").write_text("{}")
