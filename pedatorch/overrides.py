"""torch.overrides: how Tensor subclasses and tensor-like objects take over pedatorch's functions.

PyTorch's ``__torch_function__`` protocol. Before a public function (``torch.add``, ``F.relu``,
``torch.linalg.norm``...) or a Tensor method runs, it looks at its arguments (and at the items of list or
tuple arguments, as ``torch.cat`` takes them) for types other than Tensor that define
``__torch_function__``. If there are any, the first of them (subclasses before their bases, otherwise left
to right) is called instead, as ``type(arg).__torch_function__(func, types, args, kwargs)``; it may return
``NotImplemented`` to pass to the next one. ``func`` is the public function itself (``func is torch.add``).

- A Tensor subclass inherits ``Tensor.__torch_function__``: it runs the function with subclass dispatch
  off and casts the Tensor results to the subclass (``type(MyTensor(...) + 1) is MyTensor``).
- ``nn.Parameter`` opts out with ``_disabled_torch_function_impl``: ops on a Parameter return Tensors.
- A ``TorchFunctionMode`` used as a context manager sees every call first, arguments or not.

Every function of the public namespaces is wrapped when pedatorch is imported (a tensor-like can be passed
to any of them at any time). Tensor methods and operators are wrapped only once something can need it — a
Tensor subclass that dispatches is defined, a mode is entered, a tensor-like reaches a function — so a
program that never does pays nothing on its hottest calls.
"""
import functools
import types as _types

from ._tensor import Tensor, _disabled_torch_function_impl
from . import _tensor

__all__ = ["TorchFunctionMode", "handle_torch_function", "has_torch_function", "has_torch_function_unary",
           "has_torch_function_variadic", "is_tensor_like", "is_tensor_method_or_property", "wrap_torch_function",
           "get_ignored_functions", "get_overridable_functions", "get_testing_overrides", "enable_reentrant_dispatch"]


class _State:
    subclass_off = 0    # DisableTorchFunctionSubclass depth: arguments' __torch_function__ skipped
    all_off = 0         # DisableTorchFunction depth: modes skipped too
    modes = []          # the active TorchFunctionModes, innermost last
    methods_wrapped = False


_state = _State()




def _dispatches(cls):
    """Whether instances of ``cls`` take part in dispatch."""
    tf = getattr(cls, "__torch_function__", None)
    if tf is None or getattr(tf, "__func__", tf) is _disabled_torch_function_impl:
        return False
    # a PyTorch tensor (handed to from_dlpack, say) answers to PyTorch's functions, not to these
    return not getattr(tf, "__module__", "").startswith("torch")


def _overloaded_args(values):
    """The arguments whose type overrides ``__torch_function__``, one per type, subclasses before their bases."""
    found = []
    for v in values:
        cls = type(v)
        if cls in _PLAIN or not _dispatches(cls) or any(type(f) is cls for f in found):
            continue
        # before the first argument it subclasses (PyTorch's order: a subclass gets the first try)
        at = next((i for i, f in enumerate(found) if issubclass(cls, type(f))), len(found))
        found.insert(at, v)
    return found


_PLAIN = frozenset((Tensor, int, float, bool, complex, str, type(None), slice, type(Ellipsis)))


def _plain(args, kwargs):
    """Quickly: whether no argument (nor item of a list or tuple argument) overrides __torch_function__."""
    for v in (*args, *kwargs.values()) if kwargs else args:
        cls = type(v)
        if cls in _PLAIN:
            continue
        if cls is list or cls is tuple:
            if any(type(u) not in _PLAIN and _dispatches(type(u)) for u in v):
                return False
        elif _dispatches(cls):
            return False
    return True


def _relevant(args, kwargs):
    """The arguments to look at: positional and keyword ones, and the items of list and tuple ones."""
    for v in (*args, *kwargs.values()):
        if type(v) in (list, tuple):
            yield from v
        else:
            yield v


def _dispatch(func, overloaded, args, kwargs):
    types = tuple(type(a) for a in overloaded)
    if _state.modes and not _state.all_off:
        # the mode runs with itself taken off the stack, so the calls it makes reach the next mode or the function
        mode = _state.modes.pop()
        try:
            result = mode.__torch_function__(func, types, args, kwargs)
        finally:
            _state.modes.append(mode)
        if result is not NotImplemented:
            return result
    for arg in overloaded:
        result = type(arg).__torch_function__(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = getattr(func, "_torch_name", None) or f"{getattr(func, '__module__', None)}.{func.__name__}"
    if not getattr(func, "_torch_native", False):   # (PyTorch's words for its functions written in Python)
        raise TypeError(f"no implementation found for '{name}' on types that implement __torch_function__: "
                        f"{list(types)}")
    handlers = "".join(f"\n  - tensor subclass {t}" for t in types)
    raise TypeError(f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers returned "
                    f"NotImplemented:\n{handlers}\n\nFor more information, try re-running with "
                    f"TORCH_LOGS=not_implemented")


def _dispatching(fn, func=None, name=None, native=True):
    """``fn`` checking its arguments for ``__torch_function__`` first. The overrides are told ``func``: the
    wrapper itself (what users call), or for an operator the method PyTorch names (``x + y`` is Tensor.add)."""
    @functools.wraps(fn)
    def public(*args, **kwargs):
        modes = _state.modes and not _state.all_off
        if not modes and (_state.all_off or _state.subclass_off or _plain(args, kwargs)):
            return fn(*args, **kwargs)   # (the common case: Tensors, numbers, lists of them)
        overloaded = [] if _state.subclass_off or _state.all_off else _overloaded_args(_relevant(args, kwargs))
        if not overloaded and not modes:
            return fn(*args, **kwargs)
        if not _state.methods_wrapped:
            _wrap_tensor_methods()
        return _dispatch(public if func is None else func, overloaded, args, kwargs)
    public._torch_function_wraps = fn
    # for error messages: "torch.sum"; whether PyTorch's own is native code (its messages differ)
    public._torch_name, public._torch_native = name, native
    return public


# ------------------------------------------------------------------ what gets wrapped

def _wrap_namespace(module, prefix, native):
    """Wrap every public function that ``module`` defines or re-exports from pedatorch (not classes); the
    functions are named ``prefix.name`` in messages, as PyTorch's (``native``: PyTorch's are C++)."""
    _NAMESPACES[prefix] = module
    for name in getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]:
        fn = getattr(module, name, None)
        if isinstance(fn, _types.FunctionType) and fn.__module__.startswith("pedatorch") \
                and not hasattr(fn, "_torch_function_wraps") and name not in _IGNORED:
            if fn not in _WRAPPED:
                _WRAPPED[fn] = _named(_dispatching(fn, name=f"{prefix}.{name}", native=native), module.__name__, name)
            setattr(module, name, _WRAPPED[fn])


def _named(wrapper, module, qualname):
    """The wrapper found where it lives (pickle stores functions as module + qualified name)."""
    wrapper.__module__, wrapper.__qualname__ = module, qualname
    return wrapper


# PyTorch's get_ignored_functions, as far as pedatorch has them: settings, seeds, factories from sizes,
# function transforms, serialization
_IGNORED = frozenset((
    "tensor", "as_tensor", "asarray", "zeros", "ones", "empty", "full", "arange", "range", "linspace", "logspace",
    "eye", "rand", "randn", "randint", "randperm", "empty_strided", "tril_indices", "triu_indices", "from_numpy",
    "frombuffer", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "set_default_dtype",
    "get_default_dtype", "set_default_device", "get_default_device", "set_default_tensor_type", "is_grad_enabled",
    "set_grad_enabled", "is_inference_mode_enabled", "is_tensor", "is_storage", "set_printoptions",
    "get_printoptions", "load", "save", "compile", "promote_types", "can_cast", "vmap", "set_num_threads",
    "get_num_threads", "set_num_interop_threads", "get_num_interop_threads", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "set_float32_matmul_precision", "get_float32_matmul_precision",
    "set_anomaly_enabled", "is_anomaly_enabled", "typename", "summary", "from_dlpack", "sym_int", "sym_float",
    "sym_max", "sym_min", "sym_not", "cond", "while_loop", "get_device_module", "set_warn_always",
    "is_warn_always_enabled"))

_NAMESPACES = {}   # "torch.linalg": the module, for every namespace wrapped
_WRAPPED = {}   # one wrapper per function: torch.add and torch.nn.functional's alias stay the same object

# methods that are part of how a Tensor works rather than ops on it
_NOT_METHODS = {"__new__", "__init__", "__init_subclass__", "__torch_function__", "__getattr__", "__getattribute__",
                "__setattr__", "__delattr__", "__hash__", "__reduce_ex__", "__reduce__", "__setstate__",
                "__getstate__", "__deepcopy__", "__copy__", "__class_getitem__", "__sizeof__", "__dir__",
                "__array__", "__array_wrap__", "__dlpack__", "__dlpack_device__", "as_subclass"}


def _wrap_tensor_methods():
    """Wrap Tensor's methods and operators (once; see the module's docstring for when)."""
    if _state.methods_wrapped:
        return
    _state.methods_wrapped = True
    for name, fn in list(vars(Tensor).items()):
        if isinstance(fn, _types.FunctionType) and name not in _NOT_METHODS \
                and (not name.startswith("_") or (name.startswith("__") and name.endswith("__"))):
            method = vars(Tensor).get(_OPERATOR_METHODS.get(name))
            setattr(Tensor, name, _named(_dispatching(fn, method, f"torch.Tensor.{name}"), Tensor.__module__,
                                         f"Tensor.{name}"))


# the operators whose override is told a method's name, as PyTorch binds them (``x + y`` calls Tensor.add)
_OPERATOR_METHODS = {
    "__add__": "add", "__radd__": "add", "__sub__": "sub", "__mul__": "mul", "__rmul__": "mul", "__truediv__": "div",
    "__mod__": "remainder", "__pow__": "pow", "__matmul__": "matmul", "__neg__": "neg", "__pos__": "positive",
    "__abs__": "abs", "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__ne__": "ne",
    "__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_", "__ipow__": "pow_",
    "__imod__": "remainder_", "__ifloordiv__": "floor_divide_"}


def _subclass_defined(cls):
    """Called by ``Tensor.__init_subclass__``: a subclass that dispatches needs the methods wrapped."""
    if _dispatches(cls):
        _wrap_tensor_methods()


# ------------------------------------------------------------------ Tensor's own __torch_function__

def _convert(result, cls):
    """Results cast to ``cls`` (tuples and lists item by item), as PyTorch's ``_convert``."""
    if cls is Tensor:
        return result
    if isinstance(result, Tensor) and not isinstance(result, cls):
        result = result.as_subclass(cls)
    if isinstance(result, (tuple, list)):
        items = [_convert(r, cls) for r in result]
        result = result._make(items) if hasattr(result, "_make") else type(result)(items)
    return result


def _tensor_torch_function(cls, func, types, args=(), kwargs=None):
    """Tensor's ``__torch_function__``: run ``func`` with subclass dispatch off, then cast the results to ``cls``
    (so subclasses keep their class through ops). Unknown tensor-likes among ``types``: NotImplemented."""
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        return _convert(func(*args, **kwargs), cls)


Tensor.__torch_function__ = classmethod(_tensor_torch_function)
_tensor._subclass_hook = _subclass_defined


# ------------------------------------------------------------------ switches and modes

class DisableTorchFunctionSubclass:
    """``with``: arguments' ``__torch_function__`` is not called (modes still are); ``torch._C``'s."""

    def __enter__(self):
        _state.subclass_off += 1
        return self

    def __exit__(self, *exc):
        _state.subclass_off -= 1


class DisableTorchFunction:
    """``with``: no ``__torch_function__`` at all, modes included; ``torch._C``'s."""

    def __enter__(self):
        _state.all_off += 1
        return self

    def __exit__(self, *exc):
        _state.all_off -= 1


class TorchFunctionMode:
    """Subclass it and define ``__torch_function__(self, func, types, args=(), kwargs=None)``; inside
    ``with Mode():`` every public function and Tensor method calls it first (innermost mode first)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _wrap_tensor_methods()
        _state.modes.append(self)
        return self

    def __exit__(self, *exc):
        _state.modes.remove(self)

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs).__enter__()


def _get_current_function_mode():
    return _state.modes[-1] if _state.modes else None


def _get_current_function_mode_stack():
    return list(_state.modes)


def _len_torch_function_stack():
    return len(_state.modes)


def _is_torch_function_mode_enabled():
    return bool(_state.modes) and not _state.all_off


def enable_reentrant_dispatch():
    """PyTorch's context manager for re-entering the dispatcher from Python; nothing to switch here."""
    import contextlib
    return contextlib.nullcontext()


# ------------------------------------------------------------------ PyTorch's helper functions

def has_torch_function(relevant_args):
    """Whether any of ``relevant_args`` overrides ``__torch_function__`` (or a mode is active)."""
    if _state.all_off:
        return False
    return bool(_state.modes) or (not _state.subclass_off and bool(_overloaded_args(relevant_args)))


def has_torch_function_unary(arg):
    return has_torch_function((arg,))


def has_torch_function_variadic(*args):
    return has_torch_function(args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Dispatch ``public_api(*args, **kwargs)`` to the overrides among ``relevant_args`` (and the modes):
    for functions written outside pedatorch that take part in the protocol."""
    if not _state.methods_wrapped:
        _wrap_tensor_methods()
    overloaded = [] if _state.subclass_off else _overloaded_args(relevant_args)
    return _dispatch(public_api, overloaded, args, kwargs)


def wrap_torch_function(dispatcher):
    """Decorator: the function dispatches on the arguments ``dispatcher(*args, **kwargs)`` returns."""
    def decorator(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return decorator


def is_tensor_like(inp):
    """A Tensor, or an object whose type defines ``__torch_function__``."""
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


def is_tensor_method_or_property(func):
    return func in vars(Tensor).values() or getattr(func, "__name__", None) in vars(Tensor)


def get_ignored_functions():
    """Public functions nothing can override (they take no tensors, or transform functions): not wrapped."""
    return {getattr(ns, n) for ns in _NAMESPACES.values() for n in _IGNORED if hasattr(ns, n)}


def get_overridable_functions():
    """``{namespace: [functions]}`` of what dispatches: pedatorch's public namespaces and Tensor."""
    ignored = get_ignored_functions()
    out = {}
    for ns in _NAMESPACES.values():
        out[ns] = [f for f in vars(ns).values() if hasattr(f, "_torch_function_wraps") and f not in ignored]
    out[Tensor] = [f for n, f in vars(Tensor).items() if callable(f) and not n.startswith("_")]
    return out


def get_testing_overrides():
    """``{function: a lambda with its signature returning -1}``, for testing a tensor-like's coverage."""
    import inspect
    out = {}
    for funcs in get_overridable_functions().values():
        for f in funcs:
            try:
                sig = inspect.signature(f)
            except (TypeError, ValueError):
                continue
            out[f] = _returns_minus_one(sig)
    return out


def _returns_minus_one(sig):
    def dummy(*args, **kwargs):
        sig.bind(*args, **kwargs)
        return -1
    dummy.__signature__ = sig
    return dummy
