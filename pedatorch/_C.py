"""``torch._C``: the few names of PyTorch's C extension that Python programs use directly.

Tensor subclasses written for PyTorch reach for the ``__torch_function__`` switches here
(``with torch._C.DisableTorchFunctionSubclass(): ...``); they live in pedatorch.overrides.
"""
from .overrides import DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: F401
from ._tensor import _disabled_torch_function_impl  # noqa: F401
from .overrides import (_get_current_function_mode as _get_function_mode,  # noqa: F401
                        _get_current_function_mode_stack, _len_torch_function_stack,  # noqa: F401
                        _is_torch_function_mode_enabled)  # noqa: F401
from .autograd import is_grad_enabled, set_grad_enabled as _set_grad_enabled  # noqa: F401


def _get_tracing_state():
    """None: no TorchScript tracer is recording (pedatorch.jit.is_tracing() says whether its own is)."""
    return None
