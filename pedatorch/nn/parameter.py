"""``nn.Parameter`` (a leaf tensor that a Module registers as one of its parameters), ``nn.Buffer``, and the
placeholders of lazy modules (``UninitializedParameter``, ``UninitializedBuffer``)."""
import functools
import sys

from .._tensor import Tensor, _disabled_torch_function_impl
from .._dtype import is_inexact_np

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "UninitializedTensorMixin",
           "is_lazy"]


class Parameter(Tensor):
    """A Tensor that requires grad by default and is registered when assigned to a Module attribute.

    It shares memory with the tensor it wraps (``Parameter(t)`` views ``t``'s data); ops on a
    Parameter return plain Tensors.
    """

    __torch_function__ = _disabled_torch_function_impl   # ops on a Parameter return plain Tensors

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from ..ops.creation import empty
            data = empty(0)
        p = Tensor.__new__(cls)  # the legacy constructor would copy: wrap the same array instead
        p._init_from(data._data, False)
        p._version_counter = data._shared_version()
        if requires_grad:
            if not is_inexact_np(data._data.dtype):   # (worded with a capital O, as PyTorch's Parameter words it)
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            p.requires_grad = True
        return p

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (Tensor._make(self._data.copy() if not self.is_cuda else self._data),
                                     self._requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        new = Parameter(Tensor._make(self._data.copy()), self._requires_grad)
        memo[id(self)] = new
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        return new


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


class _BufferMeta(type):
    """``isinstance(t, nn.Buffer)`` holds for the tensors ``nn.Buffer`` made: they carry a mark, not a class."""

    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """``nn.Buffer(t)``: marks a tensor to be registered as a buffer when assigned to a Module.

    As in PyTorch, what it returns is a plain Tensor (``t.detach()``, sharing ``t``'s memory and keeping its
    ``requires_grad``) that carries ``persistent`` and the mark ``isinstance(.., nn.Buffer)`` looks for.
    """
    __torch_function__ = _disabled_torch_function_impl   # (its instances are plain Tensors anyway)

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from ..ops.creation import empty
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


# ---------------------------------------------------------------------------- lazy modules
class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet (a lazy module learns it from its first input).

    It holds an empty array that remembers the dtype and device to use; ``materialize(shape)`` gives it
    memory of that shape and turns the very same object into a ``Parameter`` (or plain ``Tensor``), so
    an optimizer created before the first forward keeps working.

    As in PyTorch, any op on a placeholder raises ValueError: every op reads its inputs' arrays through
    ``_data``, and here ``_data`` is a property that refuses.  The few things PyTorch allows (the
    properties such as ``dtype``/``device``/``data``, and ``size``, ``to``, ``float``, ...) run with
    the refusal lifted (``_allowed`` below).
    """
    __torch_function__ = _disabled_torch_function_impl   # (reads of the data are refused instead)

    __slots__ = ()  # no new layout: ``__class__`` can be swapped for ``cls_to_become``

    @property
    def _data(self):
        if _allowed.running:
            return _ARRAY_SLOT.__get__(self)
        raise ValueError(
            f"Attempted to use an uninitialized parameter in {_calling_op()}. This error happens when you are "
            f"using a `LazyModule` or explicitly manipulating `torch.nn.parameter.{type(self).__name__}` "
            "objects. When using LazyModules Call `forward` with a dummy batch to initialize the parameters "
            "before calling torch functions")

    @_data.setter
    def _data(self, array):
        _ARRAY_SLOT.__set__(self, array)

    def materialize(self, shape, device=None, dtype=None):
        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        from ..ops.creation import empty
        self.data = empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
                           "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def requires_grad_(self, requires_grad=True):  # it reads no data, but PyTorch refuses it too
        self._data
        return super().requires_grad_(requires_grad)

    def __reduce_ex__(self, protocol):
        return (self.__class__, (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]


_ARRAY_SLOT = Tensor.__dict__["_data"]  # the slot a Tensor keeps its array in, bypassing the refusal


def _calling_op():
    """``<function add>``: the outermost pedatorch function on the stack, i.e. the op the user called."""
    frame, name = sys._getframe(2), "an operation"
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith("pedatorch") and frame.f_code.co_name != "wrapper" and module != "pedatorch.overrides":
            name = frame.f_code.co_name  # (decorators' "wrapper" frames are skipped, and __torch_function__'s)
        frame = frame.f_back
    return f"<function {name}>"


def _allowed(method):
    """``method`` run with placeholders' ``_data`` readable (PyTorch's ``_allowed_methods``).  As there, the
    permission belongs to the call, not to one tensor: ``lazy.copy_(other_lazy)`` reads both."""
    @functools.wraps(method)
    def run(*args, **kwargs):
        _allowed.running += 1
        try:
            return method(*args, **kwargs)
        finally:
            _allowed.running -= 1
    return run


_allowed.running = 0  # how many allowed methods are on the stack (lazy modules are set up in one thread)


# PyTorch lets these through, and every property (its "method-wrapper" rule) except ``shape``.
for _name in ("__hash__", "size", "copy_", "is_complex", "is_floating_point", "half", "float", "double",
              "char", "short", "int", "long", "cuda", "cpu", "to", "get_device", "materialize"):
    setattr(UninitializedTensorMixin, _name, _allowed(getattr(UninitializedTensorMixin, _name, None)
                                                      or getattr(Tensor, _name)))
for _name, _prop in vars(Tensor).items():
    if isinstance(_prop, property) and _name not in ("shape", "_data"):
        setattr(UninitializedTensorMixin, _name,
                property(_allowed(_prop.fget), _prop.fset and _allowed(_prop.fset), _prop.fdel, _prop.__doc__))


def is_lazy(param):
    """Whether ``param`` is an ``UninitializedParameter`` or ``UninitializedBuffer``."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A ``Parameter`` whose shape is not known yet; becomes a ``Parameter`` when materialised."""
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from ..ops.creation import empty
        return Parameter.__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet; becomes a plain ``Tensor`` when materialised."""
    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        from ..ops.creation import empty
        b = Tensor.__new__(cls)
        b._init_from(empty(0, device=device, dtype=dtype)._data, requires_grad)
        b.persistent = persistent
        b._is_buffer = True  # an nn.Buffer too: assigning it to a Module registers a buffer
        return b

    def to(self, *args, **kwargs):
        # as in PyTorch, casting or moving a buffer keeps it uninitialised (module.double() replaces each
        # buffer by its converted self); a parameter's conversions are ordinary tensors, which
        # Module._apply pours into the same parameter object
        moved = super().to(*args, **kwargs)
        if moved is self:
            return self
        return UninitializedBuffer(self.requires_grad, moved.device, moved.dtype, self.persistent)
