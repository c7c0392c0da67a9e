class TrainerCallback:
    """TRL calls every event on every callback; the ones a callback leaves alone do nothing."""

    def __getattr__(self, name):
        if name.startswith("on_"):
            return lambda *args, **kwargs: None
        raise AttributeError(name)
