"""``skip_init``: build a module without initializing its parameters and buffers."""
import inspect

from ...ops.creation import empty_like
from ...random import fork_rng
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """Instantiate ``module_cls(*args, **kwargs)`` with its parameters and buffers left uninitialized (as
    ``torch.empty`` leaves them), e.g. when they are about to be overwritten by a custom initialization or
    a checkpoint.  The class must take a ``device`` argument.

    PyTorch builds the module on the "meta" device (shapes without storage, so no initializer runs) and
    then allocates empty storage.  pedatorch has no meta device: it builds the module normally, with the
    random generators' states saved and restored around it (the initializers' draws leave no trace in the
    random stream, as under PyTorch), then replaces every tensor by an empty one."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = final_device
    with fork_rng():
        module = module_cls(*args, **kwargs)
    # Parameters keep their identity (_apply assigns param.data); the values are no longer the initializers'
    return module._apply(lambda t: empty_like(t))
