"""pedatorch: PyTorch's programming model, readable, on numpy (and cupy).

    import pedatorch as torch
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    x.grad        # tensor([[2., 4.], [6., 8.]])
"""
__version__ = "0.1.0"

from ._dtype import (dtype, float32, float, float64, double, float16, half, bfloat16, int8, int16, short,
                     int32, int, int64, long, uint8, uint16, uint32, uint64, bool, complex64, cfloat,
                     complex128, cdouble, promote_types, get_default_dtype, set_default_dtype, finfo, iinfo)
from ._device import device
from ._tensor import (Tensor, Size, strided, contiguous_format, preserve_format, channels_last,
                      UntypedStorage)
from . import ops as _ops  # noqa: F401  (attaches the methods to Tensor)
from .ops.elementwise import *  # noqa: F401,F403
from .ops.shape import *  # noqa: F401,F403
from .ops.reduction import *  # noqa: F401,F403
from .ops.creation import *  # noqa: F401,F403
from .ops.join import *  # noqa: F401,F403
from .ops.indexing import *  # noqa: F401,F403
from .ops.linalg import *  # noqa: F401,F403
from .ops.sorting import *  # noqa: F401,F403
from .ops.manip import *  # noqa: F401,F403
from .ops.special import *  # noqa: F401,F403
from . import linalg  # noqa: E402
from .ops import linalg_legacy as _linalg_legacy  # noqa: F401
from .ops.linalg_legacy import *  # noqa: F401,F403
from . import autograd
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled
from .autograd.grad_mode import is_inference_mode_enabled
from ._dtype import result_type_of as _result_type_of
from . import cuda  # noqa: F401
from ._random import manual_seed, seed, initial_seed, Generator, get_rng_state, set_rng_state, default_generator
from .ops.random import *  # noqa: F401,F403
from ._tensor_str import set_printoptions, get_printoptions, printoptions  # noqa: F401

import builtins as _builtins


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_storage(obj):
    return isinstance(obj, UntypedStorage)


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    return input.is_complex()


def is_nonzero(input):
    if input.numel() != 1:
        raise RuntimeError(f"Boolean value of Tensor with {'no values' if input.numel() == 0 else 'more than one value'} is ambiguous")
    return _builtins.bool(input.item())


def result_type(tensor1, tensor2):
    return _result_type_of(tensor1, tensor2)


def can_cast(from_, to):
    if from_.is_complex and not to.is_complex:
        return False
    if from_.is_floating_point and not (to.is_floating_point or to.is_complex):
        return False
    if from_ is not bool and to is bool:
        return False
    return True


def typename(obj):
    return obj.type() if isinstance(obj, Tensor) else type(obj).__name__


def get_default_device():
    return device("cpu")


def use_deterministic_algorithms(mode, *, warn_only=False):
    pass


def are_deterministic_algorithms_enabled():
    return False


def set_num_threads(n):
    pass


def get_num_threads():
    return 1


def compile(model=None, **kwargs):
    """No compiler here: returns the model (or function) unchanged."""
    if model is None:
        return lambda m: m
    return model
