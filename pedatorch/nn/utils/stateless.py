"""``torch.nn.utils.stateless.functional_call``: the older name of ``torch.func.functional_call``
(deprecated since PyTorch 2.0; it warns, then calls the module with some parameters and buffers
replaced)."""
import warnings

from ..._warnings import user_stacklevel
from ...func import functional_call as _func_functional_call

__all__ = ["functional_call"]


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Call ``module(*args, **kwargs)`` with the tensors of ``parameters_and_buffers`` (a dict by dotted
    name, as in ``state_dict``) in place of its own; the module is left as it was.  ``args`` that is not a
    tuple is one argument.  Deprecated: use ``torch.func.functional_call``."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed "
                  "in a future version of PyTorch. Please use `torch.func.functional_call` instead which is a "
                  "drop-in replacement.", FutureWarning, stacklevel=user_stacklevel())
    return _func_functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights,
                                 strict=strict)
