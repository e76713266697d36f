"""``pedatorch.amp``: automatic mixed precision (``torch.amp``) -- being built."""

__all__ = ["autocast", "GradScaler", "is_autocast_available", "custom_fwd", "custom_bwd"]


def _todo(*args, **kwargs):
    raise NotImplementedError("pedatorch.amp is being built")


autocast = GradScaler = is_autocast_available = custom_fwd = custom_bwd = _todo
