"""``pedatorch.jit``: tracing ops into a graph (``torch.jit``) -- being built."""

__all__ = ["trace", "script", "save", "load", "TracerWarning"]


class TracerWarning(Warning):
    """A traced value will not follow the inputs when the trace runs again."""


def _todo(*args, **kwargs):
    raise NotImplementedError("pedatorch.jit is being built")


trace = script = save = load = _todo
