"""``autocast``: run each op of a region in the dtype that suits it (``torch.autocast``).

Inside ``with autocast("cpu", dtype=torch.bfloat16):`` the matrix products and convolutions run in
bfloat16 (fast, and accurate enough: they add up many products in float32 and round once), while ops
that need range or accuracy (``exp``, ``log``, the losses) run in float32, whatever dtype their inputs
have.  The model's parameters stay float32: autocast casts an op's inputs just before the op, with
``Tensor.to``, which records a ``ToCopyBackward0`` node, so gradients flow back through the cast and
arrive at each parameter in its own dtype.

How it sees the ops: every built-in op is an ``ArrayFunction`` whose ``apply`` hands the call to the
entered ``OpMode`` s first (``autograd/function.py``).  Autocast is one OpMode, entered while autocast is
enabled for some device: its ``op`` looks the op class up in ``op_lists`` (PyTorch's lists) and casts the
arguments by the rule it finds before calling the op.  When autocast is not enabled, the mode is not
entered and ops pay nothing.

The state (enabled? which dtype? per device type), like PyTorch's, is per thread: ``autocast`` saves it
on ``__enter__`` and restores it on ``__exit__``, so regions nest, and ``autocast(enabled=False)`` inside
an enabled region switches it off for a while.  Casts of parameters (float32 leaves that require grad)
are kept for the outermost region (``cache_enabled``), so a weight used at every time step of an RNN is
cast once.
"""
import collections.abc
import contextlib
import functools
import threading
import warnings

from .._warnings import user_stacklevel
from .. import cuda as _cuda
from .._device import device as _device
from .._dtype import bfloat16, dtype as _dtype_cls, float16, float32, float64
from .._tensor import Tensor
from ..autograd.function import OpMode, active_modes
from . import op_lists

__all__ = ["autocast_decorator", "autocast", "is_autocast_available", "custom_fwd", "custom_bwd"]

# the device types PyTorch can autocast, with their default lower-precision dtypes (pedatorch's tensors
# live on "cpu" and "cuda" only; the others are accepted so that device-agnostic code runs unchanged)
_DEFAULT_DTYPES = {"cpu": bfloat16, "cuda": float16, "xpu": float16, "mps": float16, "hpu": bfloat16,
                   "xla": bfloat16, "mtia": float16, "maia": bfloat16, "ipu": float16, "privateuseone": float16}


class _State(threading.local):
    """Autocast's state in this thread."""

    def __init__(self):
        self.enabled = dict.fromkeys(_DEFAULT_DTYPES, False)
        self.dtype = dict(_DEFAULT_DTYPES)
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}   # (id(parameter), dtype) -> (parameter, its cast)


_state = _State()


def _device_type(device_type, fn="is_autocast_enabled", error="unknown device type for autocast in "
                                                               "get_autocast_dispatch_key_from_device_type"):
    """Check a device type argument as PyTorch's bindings do."""
    if not isinstance(device_type, str):
        raise TypeError(f"{fn}(): argument 'device_type' (position 1) must be str, not {type(device_type).__name__}")
    if device_type not in _DEFAULT_DTYPES:
        _device(device_type)   # an unknown name raises the device parser's error
        raise RuntimeError(error)   # a device without autocast ("meta")
    return device_type


# ---------------------------------------------------------------- the state functions (torch.*_autocast_*)

def is_autocast_available(device_type):
    """Can autocast run on ``device_type`` ('cpu', 'cuda', ...)?"""
    if not isinstance(device_type, str):
        raise TypeError(f"is_autocast_available(): argument 'device_type' (position 1) must be str, not "
                        f"{type(device_type).__name__}")
    if device_type in _DEFAULT_DTYPES:
        return True
    _device(device_type)   # an unknown name raises; a known device without autocast ("meta") is False
    return False


def is_autocast_enabled(device_type=None):
    """Is autocast on for ``device_type`` (no argument: for CUDA, as in PyTorch)?"""
    return _state.enabled[_device_type("cuda" if device_type is None else device_type)]


def set_autocast_enabled(*args):
    """``set_autocast_enabled(device_type, enabled)`` (or the older ``set_autocast_enabled(enabled)``, for CUDA)."""
    if len(args) == 1 and isinstance(args[0], bool):
        device_type, enabled = "cuda", args[0]
    elif len(args) == 2 and isinstance(args[0], str):
        device_type, enabled = args
        if not isinstance(enabled, bool):
            raise TypeError(f"set_autocast_enabled(): argument 'enabled' (position 2) must be bool, not "
                            f"{type(enabled).__name__}")
    elif len(args) == 1:
        raise TypeError(f"set_autocast_enabled(): argument 'enabled' (position 1) must be bool, not "
                        f"{type(args[0]).__name__}")
    else:
        got = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"set_autocast_enabled() received an invalid combination of arguments - got ({got}), but "
                        f"expected one of:\n * (str device_type, bool enabled)\n * (bool enabled)\n")
    _state.enabled[_device_type(device_type, "set_autocast_enabled")] = enabled
    _MODE.sync()


def _is_any_autocast_enabled():
    """Is autocast on for any device type (``torch._C._is_any_autocast_enabled``)?"""
    return any(_state.enabled.values())


def get_autocast_dtype(device_type):
    """The lower-precision dtype of ``device_type``'s autocast regions."""
    return _state.dtype[_device_type(device_type, "get_autocast_dtype", "unsupported scalarType")]


def set_autocast_dtype(device_type, dtype):
    _device_type(device_type, "set_autocast_dtype")
    if not isinstance(dtype, _dtype_cls):
        raise TypeError(f"set_autocast_dtype(): argument 'dtype' (position 2) must be torch.dtype, not "
                        f"{type(dtype).__name__}")
    _state.dtype[device_type] = dtype


def is_autocast_cache_enabled():
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled):
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    _state.cache_enabled = enabled


def clear_autocast_cache():
    """Forget the casts of parameters kept by the autocast regions."""
    _state.cache.clear()


def autocast_increment_nesting():
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting():
    _state.nesting -= 1
    return _state.nesting


def _deprecated(old, new, line, fn):
    """PyTorch's per-device functions (``is_autocast_cpu_enabled()``...): ``fn`` with PyTorch's warning."""
    message = (f"torch.{old} is deprecated. Please use torch.{new} instead. (Triggered internally at "
               f"/__w/pytorch/pytorch/torch/csrc/autograd/init.cpp:{line}.)")

    def deprecated(*args):
        warnings.warn(message, DeprecationWarning, stacklevel=user_stacklevel())
        return fn(*args)
    deprecated.__name__ = old[:old.index("(")]
    return deprecated


is_autocast_cpu_enabled = _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')", 883,
                                      lambda: is_autocast_enabled("cpu"))
set_autocast_cpu_enabled = _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)",
                                       874, lambda enabled: set_autocast_enabled("cpu", enabled))
get_autocast_cpu_dtype = _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')", 1016,
                                     lambda: get_autocast_dtype("cpu"))
set_autocast_cpu_dtype = _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)", 967,
                                     lambda dtype: set_autocast_dtype("cpu", dtype))
get_autocast_gpu_dtype = _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')", 1007,
                                     lambda: get_autocast_dtype("cuda"))
set_autocast_gpu_dtype = _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)", 952,
                                     lambda dtype: set_autocast_dtype("cuda", dtype))
is_autocast_xla_enabled = _deprecated("is_autocast_xla_enabled()", "is_autocast_enabled('xla')", 935,
                                      lambda: is_autocast_enabled("xla"))
set_autocast_xla_enabled = _deprecated("set_autocast_xla_enabled(enabled)", "set_autocast_enabled('xla', enabled)",
                                       926, lambda enabled: set_autocast_enabled("xla", enabled))
get_autocast_xla_dtype = _deprecated("get_autocast_xla_dtype()", "get_autocast_dtype('xla')", 1034,
                                     lambda: get_autocast_dtype("xla"))
set_autocast_xla_dtype = _deprecated("set_autocast_xla_dtype(dtype)", "set_autocast_dtype('xla', dtype)", 997,
                                     lambda dtype: set_autocast_dtype("xla", dtype))
is_autocast_ipu_enabled = _deprecated("is_autocast_ipu_enabled()", "is_autocast_enabled('ipu')", 909,
                                      lambda: is_autocast_enabled("ipu"))
set_autocast_ipu_enabled = _deprecated("set_autocast_ipu_enabled(enabled)", "set_autocast_enabled('ipu', enabled)",
                                       900, lambda enabled: set_autocast_enabled("ipu", enabled))
get_autocast_ipu_dtype = _deprecated("get_autocast_ipu_dtype()", "get_autocast_dtype('ipu')", 1025,
                                     lambda: get_autocast_dtype("ipu"))
set_autocast_ipu_dtype = _deprecated("set_autocast_ipu_dtype(dtype)", "set_autocast_dtype('ipu', dtype)", 982,
                                     lambda dtype: set_autocast_dtype("ipu", dtype))


# ---------------------------------------------------------------- the mode that casts

def _eligible(t, device_type):
    """Would autocast cast ``t``?  A floating-point tensor on the region's device, not float64."""
    return isinstance(t, Tensor) and t.is_floating_point() and t._data.dtype != float64.np and \
        t.device.type == device_type


def _cast(t, dtype, device_type):
    """``t`` in ``dtype`` if autocast casts it (else ``t``); a parameter's cast is kept for the region."""
    if not _eligible(t, device_type) or t.dtype is dtype:
        return t
    # PyTorch caches float32 -> lower-precision casts of leaves that require grad: the parameters
    cache = _state.cache_enabled and dtype is _state.dtype[device_type] and t.dtype is float32 and \
        t.requires_grad and t.is_leaf and t._base is None
    if not cache:
        return t.to(dtype)
    key = (id(t), dtype)
    hit = _state.cache.get(key)
    if hit is None or hit[0] is not t:
        hit = _state.cache[key] = (t, t.to(dtype))   # (holding t keeps its id from being reused)
    return hit[1]


def _widest(args, device_type, lower):
    """PyTorch's promote rule: float32 if any eligible tensor is float32, else the lower dtype."""
    current = lower
    for t in args:
        if _eligible(t, device_type):
            if current is float32 or t.dtype is float32:
                current = float32
            elif not (current is lower and t.dtype is lower):
                raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return current


class _Autocast(OpMode):
    """The one OpMode of autocast: entered while autocast is enabled in some thread, for some device."""

    def __init__(self):
        self._lock = threading.Lock()
        self._threads = set()   # the threads with autocast enabled for some device type

    def sync(self):
        """Enter or leave the mode after this thread's autocast state changed."""
        with self._lock:
            me = threading.get_ident()
            if any(_state.enabled.values()):
                self._threads.add(me)
            else:
                self._threads.discard(me)
            entered = self in active_modes()
            if self._threads and not entered:
                self.__enter__()
            elif not self._threads and entered:
                self.__exit__(None, None, None)

    def _rule(self, op, args):
        """The rule for ``op`` (an op class, or a composite's name) and the region's device type, or
        (None, None) when autocast leaves the call alone."""
        # the region's device: the first tensor argument's (an op's tensors share one device)
        device_type = next((a.device.type for a in args if isinstance(a, Tensor)), None)
        if device_type is None or not _state.enabled.get(device_type):
            return None, None
        if isinstance(op, str):
            keys = (op,)
        elif op._inplace_of is None:
            keys = op.__mro__          # (an op class made from a listed one follows its rule)
        else:
            return None, None           # in-place ops are not autocast: the result keeps its dtype
        rules = op_lists.POLICIES.get(device_type, {})
        rule = next((rules[k] for k in keys if k in rules), None)
        if rule == op_lists.RNN:
            rule = op_lists.rnn_rule(args)
        return rule, device_type

    def _cast_all(self, rule, args, device_type):
        """``args`` with the eligible tensors cast by a LOWER, FP32 or PROMOTE rule."""
        lower = _state.dtype[device_type]
        target = lower if rule == op_lists.LOWER else float32 if rule == op_lists.FP32 else \
            _widest(args, device_type, lower)
        return tuple(_cast(a, target, device_type) for a in args)

    def op(self, cls, args):
        rule, device_type = self._rule(cls, args)
        if rule is None:
            return cls.apply(*args)
        if rule == op_lists.FP32_UNLESS_DTYPE:
            # float32 for the input unless the call names an output dtype (then the op keeps it)
            pos = op_lists.DTYPE_ARG[cls]
            if (pos is not None and args[pos] is not None) or not _eligible(args[0], device_type):
                return cls.apply(*args)
            return cls.apply(_cast(args[0], float32, device_type), *args[1:])
        if rule == op_lists.BANNED:
            raise RuntimeError(
                "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
                "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
                "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
                "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
                "safe to autocast.")
        return cls.apply(*self._cast_all(rule, args, device_type))

    def prepare(self, op, args):
        """The tensors of a call of ``op`` cast before its front end checks or computes with them (``mm``
        refuses a float32 and a bfloat16 matrix before ``Mm.apply``; ``cross_entropy`` is a composite of ops
        that PyTorch casts as a whole): PyTorch's autocast runs at an op's entry, before its checks."""
        rule, device_type = self._rule(op, args)
        if rule in (op_lists.LOWER, op_lists.FP32, op_lists.PROMOTE):
            return self._cast_all(rule, args, device_type)
        return args


_MODE = _Autocast()


# ---------------------------------------------------------------- autocast

def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    return decorate_autocast


class autocast:
    """``with autocast(device_type, dtype=None, enabled=True, cache_enabled=None):`` a region (or, as
    ``@autocast(...)``, a function) whose ops run in mixed precision: see the module docstring.

    ``dtype`` defaults to the device's (``get_autocast_dtype``: bfloat16 on the CPU, float16 on CUDA).
    CUDA autocast where CUDA is not available warns and leaves the region disabled, as in PyTorch; so does a
    dtype other than float16/bfloat16.
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.custom_backend_name = "privateuseone"
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled:
            if device_type == "cuda":
                if not _cuda.is_available():
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=user_stacklevel())
                    enabled = False
                elif self.fast_dtype is bfloat16 and not _cuda.is_bf16_supported():
                    raise RuntimeError("Current CUDA Device does not support bfloat16. Please switch dtype to "
                                       "float16.")
            elif self.fast_dtype not in (bfloat16, float16):
                name = device_type if device_type == self.custom_backend_name else device_type.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                              f"{name} Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                              stacklevel=user_stacklevel())
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if autocast_decrement_nesting() == 0:   # leaving the outermost region: forget the cached casts
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(f"autocast()(func) requires a callable, but got {type(func).__name__}. Did you mean to use "
                            f"autocast as a context manager? For example:\n    with torch.autocast(device_type=...):\n"
                            f"        output = model(input)")
        return autocast_decorator(self, func)


@contextlib.contextmanager
def autocast_excluded(device_type):
    """Inside an op that autocast has already cast the inputs of: its own ops run in the dtypes they are
    given, not autocast again (PyTorch's dispatcher excludes the Autocast keys inside an op).  For pedatorch's
    composites that compute in another dtype than the rule gives them (attention's float32 math)."""
    if not _state.enabled.get(device_type):
        yield
        return
    with autocast(device_type, enabled=False):
        yield


# ---------------------------------------------------------------- custom autograd Functions under autocast

def _cast_inputs(value, device_type, dtype):
    """``value`` with its floating-point tensors (also inside lists, tuples, dicts) cast to ``dtype``."""
    if isinstance(value, Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type and value.dtype is not float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)) or type(value).__module__ == "numpy":
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast_inputs(k, device_type, dtype): _cast_inputs(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        cast = (_cast_inputs(v, device_type, dtype) for v in value)
        return type(value)(cast) if isinstance(value, (list, tuple)) else cast
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorate a custom ``Function.forward`` for autocast: with ``cast_inputs``, in an autocast region its
    floating-point tensor inputs are cast to ``cast_inputs`` and ``forward`` runs with autocast off;
    without, ``forward`` runs in the region's state (which ``custom_bwd`` replays for ``backward``)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast_inputs(args, device_type, cast_inputs), **_cast_inputs(kwargs, device_type, cast_inputs))
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorate a custom ``Function.backward``: it runs in the autocast state its ``forward`` ran in."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
