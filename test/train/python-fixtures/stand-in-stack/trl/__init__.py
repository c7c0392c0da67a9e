"""Stand-in GRPOTrainer: records its arguments, then plays rollouts through the environment class,
inside the stand-in transformers Trainer's step loop (callbacks, saves and stops as the real one).

STANDIN_CRASH_AT_STEP=N raises inside step N, as a real crash would. STANDIN_STEP_S=S sleeps S seconds
in each step, so a signal can land in the middle of one.
"""
import inspect
import json
import os
import time
from pathlib import Path

from transformers import Trainer


class GRPOConfig:
    def __init__(self, **kwargs):
        self.kwargs = kwargs
        self.__dict__.update(kwargs)


class GRPOTrainer(Trainer):
    def __init__(self, model, train_dataset, args, environment_factory=None, peft_config=None, callbacks=(), reward_funcs=None):
        super().__init__(args, callbacks)
        self.rows = train_dataset.rows
        self.factory = environment_factory
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

    def training_step(self, state):
        step = state.global_step + 1
        if step == int(os.environ.get("STANDIN_CRASH_AT_STEP", "0")):
            raise RuntimeError(f"CUDA out of memory (stand-in) at step {step}")
        time.sleep(float(os.environ.get("STANDIN_STEP_S", "0")))
        tasks_per_step = self.args.per_device_train_batch_size * self.args.gradient_accumulation_steps // self.args.num_generations
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
        mean = sum(rewards) / len(rewards)
        return {"loss": 0.01 * step, "reward": mean, "reward_std": 0.0, "completions/mean_length": 321.0, "learning_rate": self.args.learning_rate, "entropy": float("nan")}
