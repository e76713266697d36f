"""``skip_init``: build a module without initializing its parameters and buffers."""
import inspect

from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """Instantiate ``module_cls(*args, **kwargs)`` with its parameters and buffers left uninitialized (as
    ``torch.empty`` leaves them), e.g. when they are about to be overwritten by a custom initialization or
    a checkpoint.  The class must take a ``device`` argument.

    As PyTorch does it: the module is built on the "meta" device (shapes without values, so no initializer
    draws a number or moves a random stream), then given empty storage on the device asked for
    (``to_empty``)."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)
