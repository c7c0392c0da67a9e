"""Stand-in transformers: the callback classes and the Trainer's step loop, as far as geolab relies on them.

The loop keeps the order the real Trainer follows: the handler clears the step's flags at on_step_begin,
the flow callback (first in the list) asks for a save every save_steps at on_step_end, then the other
callbacks' on_step_end may change the control; a save requested by then writes checkpoint-N/ (trainer
state and adapter) and calls on_save, which clears the request; should_training_stop ends the loop.
"""
import json
from pathlib import Path
from types import SimpleNamespace


class TrainerControl:
    def __init__(self):
        self.should_training_stop = False
        self.should_epoch_stop = False
        self.should_save = False
        self.should_evaluate = False
        self.should_log = False


class TrainerCallback:
    """Every event is called on every callback; the ones a callback leaves alone do nothing."""

    def __getattr__(self, name):
        if name.startswith("on_"):
            return lambda *args, **kwargs: None
        raise AttributeError(name)


class _Flow(TrainerCallback):
    """The default flow: a save every save_steps, a stop at max_steps."""

    def on_step_end(self, args, state, control, **kwargs):
        if args.save_strategy == "steps" and state.global_step % args.save_steps == 0:
            control.should_save = True
        if state.global_step >= state.max_steps:
            control.should_training_stop = True
            if args.save_strategy == "steps":
                control.should_save = True
        return control


class Trainer:
    """Subclasses provide training_step(state) -> logs dict (or None)."""

    def __init__(self, args, callbacks=()):
        self.args = args
        self.callbacks = [_Flow(), *callbacks]
        self.control = TrainerControl()

    def add_callback(self, callback):
        self.callbacks.append(callback)

    def _event(self, event, state, **kwargs):
        for callback in self.callbacks:
            result = getattr(callback, event)(self.args, state, self.control, **kwargs)
            if result is not None:
                self.control = result

    def train(self, resume_from_checkpoint=None):
        start = 0
        if resume_from_checkpoint:
            start = json.loads((Path(resume_from_checkpoint) / "trainer_state.json").read_text())["global_step"]
            print(f"Continuing training from checkpoint, step {start}", flush=True)
        state = SimpleNamespace(global_step=start, max_steps=self.args.max_steps, is_world_process_zero=True)
        self._event("on_train_begin", state)
        while state.global_step < state.max_steps:
            self.control.should_log = self.control.should_save = self.control.should_evaluate = False
            self._event("on_step_begin", state)
            logs = self.training_step(state)
            state.global_step += 1
            self._event("on_step_end", state)
            if logs:
                self._event("on_log", state, logs=logs)
            if self.control.should_save:
                self._save_checkpoint(state)
                self.control.should_save = False
                self._event("on_save", state)
            if self.control.should_training_stop:
                break
        self._event("on_log", state, logs={"train_runtime": 1.0, "train_loss": 0.5})
        self._event("on_train_end", state)

    def _save_checkpoint(self, state):
        checkpoint = Path(self.args.output_dir) / f"checkpoint-{state.global_step}"
        checkpoint.mkdir(parents=True, exist_ok=True)
        (checkpoint / "trainer_state.json").write_text(json.dumps({"global_step": state.global_step}))
        (checkpoint / "adapter_config.json").write_text("{}")
        print(f"Saving model checkpoint to {checkpoint}", flush=True)

    def save_model(self, path):
        Path(path).mkdir(parents=True, exist_ok=True)
        (Path(path) / "adapter_config.json").write_text("{}")
