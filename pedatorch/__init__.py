"""pedatorch: PyTorch's programming model, readable, on numpy (and cupy).

    import pedatorch as torch
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    x.grad        # tensor([[2., 4.], [6., 8.]])
"""
from .version import __version__  # noqa: E402,F401

from . import _malloc
_malloc.tune()

from ._dtype import (dtype, float32, float, float64, double, float16, half, bfloat16, int8, int16, short,
                     int32, int, int64, long, uint8, uint16, uint32, uint64, bool, complex64, cfloat,
                     complex128, cdouble, promote_types, get_default_dtype, set_default_dtype, finfo, iinfo)
from ._device import device, default_device as _default_device, set_default_device
from ._tensor import (Tensor, Size, strided, contiguous_format, preserve_format, channels_last, channels_last_3d,
                      UntypedStorage, layout, memory_format)
from . import storage  # noqa: F401  (torch.storage)
from .storage import TypedStorage, LEGACY_STORAGES as _LEGACY_STORAGES
globals().update(_LEGACY_STORAGES)   # torch.FloatStorage, torch.LongStorage, ...
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
from .ops.quantize import *  # noqa: F401,F403
from . import linalg  # noqa: E402
from . import special  # noqa: E402,F401
from . import fft  # noqa: E402,F401  (torch.fft)
from .ops.spectral import stft, istft  # noqa: E402,F401
from . import signal  # noqa: E402,F401  (torch.signal.windows)
from .ops import linalg_legacy as _linalg_legacy  # noqa: F401
from .ops.linalg_legacy import *  # noqa: F401,F403
from . import autograd
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled
from .autograd.grad_mode import is_inference_mode_enabled
from ._dtype import result_type_of as _result_type_of
from . import cuda  # noqa: F401
from ._random import manual_seed, seed, initial_seed, Generator, get_rng_state, set_rng_state, default_generator
from .ops.random import *  # noqa: F401,F403
from .ops.random import _sample_dirichlet  # noqa: F401  (torch._sample_dirichlet)
from ._tensor_str import set_printoptions, get_printoptions, printoptions  # noqa: F401

import builtins as _builtins


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_storage(obj):
    return isinstance(obj, (UntypedStorage, TypedStorage))


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


from ._tensor import typename  # noqa: E402



def get_default_device():
    """Where factories allocate when given no device, with its index where it has one (``cuda:0``)."""
    d = _default_device()
    if d is None:
        return device("cpu")
    if d.type == "cuda" and d.index is None:
        return device("cuda", cuda.current_device())
    return d


# torch.use_deterministic_algorithms: remembered and reported (every pedatorch kernel is deterministic already)
_deterministic = {"mode": False, "warn_only": False}


def use_deterministic_algorithms(mode, *, warn_only=False):
    if not isinstance(mode, _builtins.bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    _deterministic["mode"], _deterministic["warn_only"] = mode, _builtins.bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _deterministic["mode"]


def is_deterministic_algorithms_warn_only_enabled():
    return _deterministic["warn_only"]


def set_num_threads(n):
    pass


def get_num_threads():
    return 1


from .compiler import compile  # noqa: E402,F401  (no compiler here: the model comes back unchanged)


# ---------------------------------------------------------------- the rest of torch's namespace

# torch.exp_(t), torch.relu_(t), ...: the in-place methods, as functions
for _name in """abs_ acos_ acosh_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ atan_ atanh_
        ceil_ clamp_ clamp_max_ clamp_min_ clip_ cos_ cosh_ deg2rad_ erf_ erfc_ exp2_ exp_ expm1_ fill_ fix_ floor_
        frac_ gcd_ i0_ lcm_ ldexp_ log10_ log1p_ log2_ log_ logit_ nan_to_num_ neg_ negative_ rad2deg_ reciprocal_
        relu_ resize_as_ round_ rsqrt_ sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_ zero_
        addmv_ as_strided_ detach_ conj_physical_""".split():
    if hasattr(Tensor, _name):
        globals()[_name] = getattr(Tensor, _name)
for _name in ("detach", "is_signed", "get_device", "is_inference", "is_neg", "is_nonzero"):
    globals()[_name] = getattr(Tensor, _name)
del _name


def fill(input, value):
    return input.clone().fill_(value)


from .ops.shape import view_copy_of as _copy_of  # noqa: E402

# the *_copy twins of the view ops (same values, their own memory)
for _name in ("view", "t", "permute", "expand", "squeeze", "unsqueeze", "transpose", "unbind", "split",
              "split_with_sizes", "select", "diagonal", "as_strided", "detach", "unfold", "view_as_real",
              "view_as_complex"):
    if _name + "_copy" not in globals():
        globals()[_name + "_copy"] = _copy_of(getattr(Tensor, _name) if hasattr(Tensor, _name)
                                              else globals()[_name])
alias_copy = _copy_of(lambda t: t, "AliasBackward0_copy")
slice_copy = _copy_of(lambda t, dim=0, start=None, end=None, step=1: t.narrow(dim, start or 0, (
    (end if end is not None else t.shape[dim]) - (start or 0))) if step == 1 else t[(slice(None),) * dim +
                                                                                  (slice(start, end, step),)])
del _name
from .ops.join import row_stack  # noqa: E402,F401
from .autograd.anomaly_mode import is_anomaly_enabled, is_anomaly_check_nan_enabled  # noqa: E402,F401


def set_anomaly_enabled(enabled, check_nan=True):
    autograd.set_detect_anomaly(enabled, check_nan)


_settings = {"warn_always": False, "interop_threads": 1}


def set_warn_always(b):
    _settings["warn_always"] = _builtins.bool(b)


def is_warn_always_enabled():
    return _settings["warn_always"]


from .backends.cuda import set_float32_matmul_precision, get_float32_matmul_precision  # noqa: E402


def get_num_interop_threads():
    return _settings["interop_threads"]


def set_num_interop_threads(n):
    _settings["interop_threads"] = n


def set_flush_denormal(mode):
    return False



def set_default_tensor_type(t):
    name = t if isinstance(t, str) else t.__name__
    set_default_dtype({"torch.FloatTensor": float32, "torch.DoubleTensor": float64, "FloatTensor": float32,
                       "DoubleTensor": float64}[name])


def get_deterministic_debug_mode():
    """0 (default), 1 (warn) or 2 (error): what use_deterministic_algorithms set."""
    if not _deterministic["mode"]:
        return 0
    return 1 if _deterministic["warn_only"] else 2


def set_deterministic_debug_mode(debug_mode):
    if isinstance(debug_mode, str):
        names = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in names:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = names[debug_mode]
    elif not isinstance(debug_mode, _builtins.int) or isinstance(debug_mode, _builtins.bool):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


# ---------------------------------------------------------------- torch.compile's helpers, run eagerly
def cond(pred, true_fn, false_fn, operands=()):
    """``torch.cond``: ``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)`` (eagerly, a Python if)."""
    return true_fn(*operands) if pred else false_fn(*operands)


def while_loop(cond_fn, body_fn, carried_inputs):
    """``torch.while_loop``: apply ``body_fn`` to the carried values while ``cond_fn`` holds (eagerly)."""
    values = tuple(carried_inputs)
    while cond_fn(*values):
        values = tuple(body_fn(*values))
    return values


# symbolic-shape helpers: on plain Python numbers they are the builtins
def sym_int(a):
    return _builtins.int(a)


def sym_float(a):
    return _builtins.float(a)


def sym_max(a, b):
    return _builtins.max(a, b)


def sym_min(a, b):
    return _builtins.min(a, b)


def sym_not(a):
    return not a


def sym_sqrt(a):
    return _math.sqrt(a)


def sym_ite(b, t, f):
    return t if b else f


def sym_sum(args):
    return _builtins.sum(args)


def get_device_module(device=None):
    """The module of a device type (``torch.cuda`` for "cuda"); the current accelerator's, else torch.cpu."""
    if device is None:
        return cuda if cuda.is_available() else cpu
    name = str(device).split(":")[0]   # (a device prints as "cuda:0")
    modules = {"cpu": cpu, "cuda": cuda, "mps": mps, "xpu": xpu}
    if name not in modules:
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'.")
    return modules[name]

from . import nn, optim, utils  # noqa: E402,F401  (torch.nn, torch.optim, torch.utils.data as in PyTorch)
from .utils import checkpoint as _checkpoint, data as _data  # noqa: E402,F401  (torch.utils.data, .checkpoint)
from . import accelerator, backends, distributions, mps, onnx, serialization, testing, xpu  # noqa: E402,F401
from .distributions.gamma import _standard_gamma  # noqa: E402,F401  (torch._standard_gamma: differentiable)
from . import func  # noqa: E402,F401
from . import amp, jit  # noqa: E402,F401  (mixed precision; tracing)
from .amp import autocast, GradScaler  # noqa: E402,F401
from .amp import (is_autocast_enabled, set_autocast_enabled, get_autocast_dtype, set_autocast_dtype,  # noqa: E402,F401
                  is_autocast_cache_enabled, set_autocast_cache_enabled, clear_autocast_cache,
                  autocast_increment_nesting, autocast_decrement_nesting, is_autocast_cpu_enabled,
                  set_autocast_cpu_enabled, get_autocast_cpu_dtype, set_autocast_cpu_dtype, get_autocast_gpu_dtype,
                  set_autocast_gpu_dtype, is_autocast_xla_enabled, set_autocast_xla_enabled, get_autocast_xla_dtype,
                  set_autocast_xla_dtype, is_autocast_ipu_enabled, set_autocast_ipu_enabled, get_autocast_ipu_dtype,
                  set_autocast_ipu_dtype)
from . import cpu  # noqa: E402,F401  (torch.cpu: loaded with amp already; named here as torch names it)
from .serialization import save, load  # noqa: E402,F401


def summary(model, *args, **kwargs):
    """A torchinfo-style table of ``model``'s layers: ``pedatorch.viz.summary`` (see there)."""
    from .viz import summary as _summary   # viz sits above the core: imported when asked for
    return _summary(model, *args, **kwargs)


from .func import vmap  # noqa: E402,F401  (torch.vmap is torch.func.vmap)


# torch.conv2d, torch.max_pool2d, torch.layer_norm, ...: the functional ops PyTorch also offers at top level
for _name in ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
              "avg_pool1d", "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
              "adaptive_avg_pool1d", "adaptive_max_pool1d", "layer_norm", "group_norm",
              "rms_norm", "embedding_bag", "cosine_similarity", "pairwise_distance",
              "pdist", "cdist", "pixel_shuffle", "pixel_unshuffle", "bilinear", "prelu", "selu", "selu_", "celu",
              "celu_", "rrelu", "rrelu_", "hardshrink", "threshold_", "alpha_dropout", "feature_alpha_dropout",
              "kl_div", "binary_cross_entropy_with_logits", "cosine_embedding_loss", "hinge_embedding_loss",
              "margin_ranking_loss", "poisson_nll_loss", "triplet_margin_loss", "ctc_loss", "channel_shuffle",
              "native_channel_shuffle",
              "grid_sampler", "affine_grid_generator"):
    if hasattr(nn.functional, _name) and _name not in globals():
        globals()[_name] = getattr(nn.functional, _name)
del _name


# the ATen forms whose arguments come in another order than nn.functional's
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return nn.functional.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    return nn.functional.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return nn.functional.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def dropout(input, p, train):
    """``torch.dropout(input, p, train)`` (all positional, as the ATen op)."""
    return nn.functional.dropout(input, p, train)


def dropout_(input, p, train):
    return nn.functional.dropout(input, p, train, inplace=True)


def feature_dropout(input, p, train):
    return nn.functional.dropout2d(input, p, train) if input.dim() == 4 else nn.functional.dropout1d(input, p, train)


# ---------------------------------------------------------------- legacy typed constructors

class _LegacyTensorType(type):
    """``isinstance(t, torch.FloatTensor)`` is a dtype (and device) check, as in PyTorch."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls._dtype and obj.is_cpu

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


def _legacy_type(name, dt):
    def new(cls, *args, device=None):
        return Tensor(*args, dtype=dt, device=device) if not (len(args) == 1 and isinstance(args[0], Tensor)) \
            else args[0].to(dt)
    return _LegacyTensorType(name, (), {"_dtype": dt, "__new__": new, "dtype": dt, "is_cuda": False})


FloatTensor = _legacy_type("FloatTensor", float32)
DoubleTensor = _legacy_type("DoubleTensor", float64)
HalfTensor = _legacy_type("HalfTensor", float16)
BFloat16Tensor = _legacy_type("BFloat16Tensor", bfloat16)
LongTensor = _legacy_type("LongTensor", int64)
IntTensor = _legacy_type("IntTensor", int32)
ShortTensor = _legacy_type("ShortTensor", int16)
CharTensor = _legacy_type("CharTensor", int8)
ByteTensor = _legacy_type("ByteTensor", uint8)
BoolTensor = _legacy_type("BoolTensor", bool)


_ops._util.add_numpy_names(globals())  # torch.sum(x, axis=0, keepdims=True), as PyTorch's argument parser allows

from . import random, compiler, multiprocessing, distributed, profiler, hub  # noqa: E402,F401  (torch.random, ...)
from . import sparse  # noqa: E402,F401  (torch.sparse: sparse COO tensors)
from . import functional, types  # noqa: E402,F401  (torch.functional, torch.types)
from .ops.foreach import FOREACH as _FOREACH  # noqa: E402
globals().update(_FOREACH)   # torch._foreach_add_, ... (loops over a list of tensors)
from .utils import model_zoo as _model_zoo  # noqa: E402,F401  (torch.utils.model_zoo)
from .sparse import sparse_coo_tensor, spmm  # noqa: E402,F401
from ._tensor import sparse_coo  # noqa: E402,F401

# torch.pi, torch.e, ...: Python's constants, as PyTorch re-exports them
import math as _math  # noqa: E402
pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan
newaxis = None

# The __torch_function__ protocol (torch.overrides): every public function looks at its arguments for
# Tensor subclasses and tensor-likes first; wrapped last, once every namespace is complete.
from . import overrides  # noqa: E402
from . import _C  # noqa: E402,F401
import sys as _sys  # noqa: E402
for _ns, _prefix, _native in ((nn.functional, "torch.nn.functional", False), (nn.init, "torch.nn.init", False),
                              (linalg, "torch.linalg", True), (special, "torch.special", True),
                              (fft, "torch.fft", True), (_sys.modules[__name__], "torch", True)):
    overrides._wrap_namespace(_ns, _prefix, _native)
del _ns, _prefix, _native
