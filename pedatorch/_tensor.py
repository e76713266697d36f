"""The Tensor: an n-dimensional array plus what autograd needs to know about it.

A Tensor holds
  _data            the numpy (or cupy) array: dtype, shape, strides and memory
  _requires_grad   whether gradients flow to it
  grad_fn          the graph node that made it (None for leaves; slot ``_grad_fn``, refreshed for stale views)
  _grad            the accumulated gradient of a leaf (``.grad``)
  _version_counter shared by a tensor and all its views; bumped by in-place ops
  _base            for a view, the tensor whose memory it views (``._base``)

Views are numpy views: ``x.t()``, ``x[1:]``, ``x.view(...)`` wrap an array that
shares memory with ``x``'s, and share ``x``'s version counter.  Math and shape
ops are attached to this class by the modules of ``pedatorch.ops``; they are
functions whose first argument is the tensor, so ``t.sin()`` is
``pedatorch.sin(t)``.
"""
import numbers
import warnings

import numpy as np

from ._warnings import user_stacklevel
from . import _dtype as D
from ._device import CPU, as_device, device_of, to_device_array
from ._dtype import is_float_np
from ._layout import dense_if_empty, is_in_format
from .storage import TypedStorage, UntypedStorage, legacy_class, _warn_typed_storage_removal
from .backend import CPU_ARRAY, MetaArray, SparseCOO, address, as_strided, storage_root, device_namespace, to_host

__all__ = ["Tensor", "Size"]

_new = object.__new__


class _Version:
    """The version counter a tensor shares with its views."""

    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``torch.Size([2, 3])``."""

    def __repr__(self):
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return Size(r) if isinstance(item, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __reduce__(self):   # (pickled as PyTorch's: the class and the tuple of sizes)
        return (Size, (tuple(self),))


class layout:
    """``torch.layout``: how a tensor's elements are stored (``torch.strided``: sizes and strides)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name


strided = layout("strided")
sparse_coo = layout("sparse_coo")


class memory_format:
    """``torch.memory_format``: an order of a tensor's dims in memory (``contiguous_format``, ``channels_last``)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


# How a view was made (PyTorch's CreationMeta): all but DEFAULT forbid rebasing its history after an
# in-place write (writing through it, or through its base or another view of the base)
DEFAULT, IN_CUSTOM_FUNCTION, MULTI_OUTPUT_NODE, NO_GRAD_MODE, INFERENCE_MODE = range(5)
_grad_state = None  # autograd's grad-mode state; set by autograd/function.py (which imports this module)
# While ``jit.trace`` records, it sets this to a function that warns that a tensor became a Python value
# (the trace keeps the value as a constant): called with "boolean", "number", ... (one check otherwise)
_trace_warner = None


# Set by overrides.py (the __torch_function__ protocol): called with each new subclass of Tensor, since one
# that dispatches needs Tensor's methods to look for __torch_function__ (a hook: this layer imports nothing above)
_subclass_hook = None


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """The ``__torch_function__`` of a subclass that opts out (nn.Parameter): its instances act as Tensors."""
    return func(*args, **(kwargs or {}))


class Tensor:
    """An n-dimensional array that can record the operations applied to it."""

    __slots__ = ("_data", "_requires_grad", "_grad_fn", "__weakref__", "__dict__")

    __array_priority__ = 1000  # numpy defers to our reflected operators

    # rarely set, so they live in the instance dict only when set (class defaults otherwise)
    _grad = None
    _output_nr = 0
    _version_counter = None
    _base = None
    _grad_acc = None
    _hooks = None
    _retains_grad = False
    _is_inference = False
    _view_version = 0      # for a view: the version at which its grad_fn was made
    _creation_meta = 0     # for a view: how it was made (DEFAULT, MULTI_OUTPUT_NODE, NO_GRAD_MODE, ...)

    # ------------------------------------------------------------ construction
    @staticmethod
    def _make(data, grad_fn=None, output_nr=0, counter=None):
        """Wrap an array (the one constructor every op uses; no checks, no copies)."""
        t = _new(Tensor)
        # numpy gives a new empty array 0 strides, c10 contiguous ones (views keep what they were given)
        t._data = data if data.size or data.base is not None else dense_if_empty(data)
        t._grad_fn = grad_fn
        if grad_fn is None:
            t._requires_grad = False
        else:
            t._requires_grad = True
            if output_nr:
                t._output_nr = output_nr
        if counter is not None:
            t._version_counter = counter
        return t

    def __new__(cls, *args, device=None, dtype=None):
        """Legacy constructor: ``Tensor(2, 3)`` (uninitialised) or ``Tensor([1, 2])`` (float data)."""
        d = D.get_default_dtype() if dtype is None else dtype
        if len(args) == 1 and not isinstance(args[0], numbers.Integral):
            src = args[0]
            if isinstance(src, Tensor):
                arr = src._data
            elif isinstance(src, Size):
                arr = device_namespace(as_device(device)).zeros(tuple(src), dtype=d.np)
            else:
                arr = device_namespace(as_device(device)).asarray(_plain_values(src), dtype=d.np)
        else:
            if not all(isinstance(a, numbers.Integral) for a in args):
                raise TypeError(f"new(): argument 'size' must be tuple of ints, but found element of "
                                f"type {type(args[0]).__name__}")
            arr = device_namespace(as_device(device)).zeros(tuple(int(a) for a in args) if args else (0,),
                                                             dtype=d.np)
        t = _new(cls)
        t._init_from(arr)
        if device is not None:
            t._data = to_device_array(arr, as_device(device))
        return t

    @staticmethod
    def _make_subclass(cls, data, require_grad=False, dispatch_sizes_strides_policy=None, dispatch_device=False,
                       dispatch_layout=False, _extra_dispatch_keys=None, storage_size=None):
        """A ``cls`` instance sharing ``data``'s memory, detached (a leaf): how Parameter-like subclasses are
        built in PyTorch (the dispatch options are for C++ subclasses; nothing to set here)."""
        t = _new(cls)
        t._init_from(data._data)
        t._version_counter = data._shared_version()
        if require_grad:
            if not t.is_floating_point() and not t.is_complex():
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            t.requires_grad_(True)
        return t

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if _subclass_hook is not None:
            _subclass_hook(cls)

    def _init_from(self, arr, requires_grad=False):
        self._data = arr
        self._requires_grad = requires_grad
        self._grad_fn = None

    # ------------------------------------------------------------ versions and views
    def _shared_version(self):
        c = self._version_counter
        if c is None:
            c = self._version_counter = _Version()
        return c

    def _bump_version(self):
        c = self._version_counter
        if c is None:
            c = self._version_counter = _Version()
        c.value += 1

    @property
    def _version(self):
        if self._is_inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        c = self._version_counter
        return 0 if c is None else c.value

    def _become_view_of(self, src, multi_output=False):
        self._base = src if src._base is None else src._base
        self._version_counter = src._shared_version()
        self._view_version = self._version_counter.value  # its grad_fn describes the base as it is now
        # how the view was made decides whether it may be rebased after an in-place write
        # (PyTorch's CreationMeta; ``autograd/views.py: check_view_rebase``)
        state = _grad_state
        meta = (INFERENCE_MODE if state.inference else MULTI_OUTPUT_NODE if multi_output and state.enabled
                else DEFAULT if state.enabled else NO_GRAD_MODE)
        inherited = src._creation_meta  # a view of a view keeps the stricter of the two
        if inherited != DEFAULT and (meta == DEFAULT or inherited == INFERENCE_MODE):
            meta = inherited
        if meta != DEFAULT:
            self._creation_meta = meta

    def _set_history(self, node, output_nr):
        self._grad_fn = node
        self._output_nr = output_nr
        self._requires_grad = True

    def _alias(self):
        """A new tensor over the same memory and version counter, with no history."""
        # a view object of its own: saved arrays are told apart by identity (autograd/function.py _save)
        t = Tensor._make(self._data.view(), counter=self._shared_version())
        t._base = self if self._base is None else self._base
        # the history it gets next describes the memory as it is now: not stale after earlier in-place writes
        t._view_version = t._version_counter.value
        return t

    def _detached_copy(self):
        return Tensor._make(self._data.copy())

    def _is_view(self):
        return self._base is not None

    # ------------------------------------------------------------ autograd attributes
    @property
    def grad_fn(self):
        # a view whose base was written in place since gets a fresh node reading from the base, at
        # this access (PyTorch regenerates it lazily, too)
        if self._base is not None and self._view_version != self._version_counter.value:
            # deliberate upward import (tensor -> autograd): making the node is autograd's work, and
            # autograd builds on Tensor (PyTorch's Tensor calls into its autograd the same way)
            from .autograd.views import refresh_view_history
            refresh_view_history(self)
        return self._grad_fn

    @property
    def requires_grad(self):
        # a (differentiable) view requires grad when its base does, even if made under no_grad
        return self._requires_grad or (self._base is not None and self._base._requires_grad and
                                       self._data.dtype.kind in "fcV")

    @requires_grad.setter
    def requires_grad(self, value):
        value = bool(value)
        if self.grad_fn is not None:
            if not value:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to use a "
                    "computed variable in a subgraph that doesn't require differentiation use "
                    "var_no_grad = var.detach().")
            return
        if value and self._data.dtype.kind not in "fcV":
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        if value and self._is_inference and not _grad_state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._requires_grad = value

    def requires_grad_(self, requires_grad=True):
        if requires_grad and self._data.dtype.kind not in "fcV":   # (PyTorch's wording here omits complex)
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def grad(self):
        if self.grad_fn is not None and not self._retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
                "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
                "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
                "instead. See github.com/pytorch/pytorch/pull/30531 for more informations.",
                UserWarning, stacklevel=user_stacklevel())
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError("assigned grad has data of a different type")
            if value._data.shape != self._data.shape:
                raise RuntimeError("assigned grad has data of a different size")
            if value.device != self.device:
                raise RuntimeError("assigned grad has data located on a different device")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        return self._retains_grad

    def retain_grad(self):
        """Keep ``.grad`` for this non-leaf tensor after backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        import weakref
        node = self.grad_fn
        if node._retain is None:
            node._retain = {}
        node._retain[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; it may return a new one."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn._register_tensor_hook(self._output_nr, hook)
        from .utils.hooks import _HookDict, add_hook
        if self._hooks is None:
            self._hooks = _HookDict()
        return add_hook(self._hooks, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` runs after ``.grad`` of this leaf has been accumulated."""
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        from .utils.hooks import _HookDict, add_hook
        d = self.__dict__.get("_post_acc_hooks")
        if d is None:
            d = self.__dict__["_post_acc_hooks"] = _HookDict()
        return add_hook(d, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor w.r.t. the graph leaves (see ``autograd.backward``)."""
        # deliberate upward import (tensor -> autograd): autograd builds on Tensor, so Tensor can reach
        # it only when called (PyTorch's torch/_tensor.py imports torch.autograd the same way)
        from .autograd import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        """A tensor over the same memory, cut off from the graph."""
        # a view object of its own, so ``op(x, x.detach())`` can tell its two arguments apart
        data = self._data
        data = data.view() if type(data) is not SparseCOO else SparseCOO(data.indices, data.values, data.shape,
                                                                         data.coalesced)
        return Tensor._make(data, counter=self._shared_version())

    def detach_(self):
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self):
        return Tensor._make(self._data.view())  # an array object of its own, as detach()

    @data.setter
    def data(self, value):
        self._data = value._data

    # ------------------------------------------------------------ type, device, shape
    @property
    def dtype(self):
        try:
            return D._from_np[self._data.dtype]
        except KeyError:
            return D.from_numpy_dtype(self._data.dtype)

    @property
    def device(self):
        return CPU if type(self._data) is CPU_ARRAY else device_of(self._data)

    @property
    def is_cuda(self):
        kind = type(self._data)
        return kind is not CPU_ARRAY and self.device.type == "cuda"

    @property
    def is_cpu(self):
        kind = type(self._data)
        return kind is CPU_ARRAY or kind is SparseCOO and type(self._data.values) is CPU_ARRAY

    @property
    def is_meta(self):
        """On the meta device: a shape, dtype and strides, no values (see ``backend.meta``)."""
        return type(self._data) is MetaArray

    is_xpu = is_mps = is_mkldnn = is_vulkan = is_ipu = is_xla = is_mtia = is_maia = False
    is_sparse_csr = False

    @property
    def is_sparse(self):
        """A sparse COO tensor (``pedatorch.sparse``): indices and values, not strided memory."""
        return type(self._data) is SparseCOO

    @property
    def layout(self):
        return sparse_coo if type(self._data) is SparseCOO else strided

    is_quantized = False
    is_nested = False

    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[self._wrap_dim(dim)]

    def _wrap_dim(self, dim):
        n = self._data.ndim
        if n == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        lo, hi = -n, n - 1
        if not lo <= dim <= hi:
            raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                             f"but got {dim})")
        return dim + n if dim < 0 else (0 if n == 0 else dim)

    def dim(self):
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    @property
    def itemsize(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return self._data.nbytes

    def stride(self, dim=None):
        """Strides in elements (numpy counts bytes)."""
        item = self._data.itemsize
        strides = tuple(s // item for s in self._data.strides)
        if dim is None:
            return strides
        return strides[self._wrap_dim(dim)]

    def storage_offset(self):
        return (address(self._data) - self.untyped_storage().data_ptr()) // self._data.itemsize

    def data_ptr(self):
        if type(self._data) is SparseCOO:
            raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
        return 0 if self.is_meta else address(self._data)   # (a meta tensor has no memory to point at)

    const_data_ptr = data_ptr

    def storage_type(self):
        """The legacy storage class of this tensor's dtype (``torch.FloatStorage`` for float32)."""
        _warn_typed_storage_removal()
        return legacy_class(self.dtype)

    def untyped_storage(self):
        """The bytes of the memory this tensor views (shared with its base and every view of it)."""
        return UntypedStorage._wrap(storage_root(self._data))

    def storage(self):
        """The same memory as elements of this tensor's dtype (PyTorch's deprecated TypedStorage)."""
        _warn_typed_storage_removal()
        return TypedStorage(wrap_storage=self.untyped_storage(), dtype=self.dtype, _internal=True)

    def dim_order(self, *, ambiguity_check=False):
        """The dims from the outermost in memory to the innermost: (0, 1, ..., n-1) for a contiguous tensor,
        (0, 2, 3, 1) for channels_last (dims of equal stride keep their order)."""
        strides = self._data.strides
        return tuple(sorted(range(len(strides)), key=lambda d: -strides[d]))

    def is_set_to(self, tensor):
        """Do both tensors look at the same memory in the same way (storage, offset, sizes, strides)?"""
        a, b = self._data, tensor._data
        return (storage_root(a) is storage_root(b) and address(a) == address(b) and a.shape == b.shape
                and a.strides == b.strides)

    def is_contiguous(self, memory_format=contiguous_format):
        """True when the elements lie in row-major order with no gaps (size-1 dims don't count);
        ``channels_last``: in N, H, W, C order instead."""
        if memory_format is preserve_format:
            raise RuntimeError("is_contiguous does not support preserve memory format")
        item = self._data.itemsize
        return is_in_format(self._data.shape, [st // item for st in self._data.strides], memory_format.name)

    def is_inference(self):
        """True for tensors made inside ``inference_mode``."""
        return self._is_inference

    def is_floating_point(self):
        return is_float_np(self._data.dtype) or self.dtype is D.bfloat16

    def is_complex(self):
        return self._data.dtype.kind == "c"

    def is_signed(self):
        return self.dtype.is_signed

    def get_device(self):
        return self._data.device.id if self.is_cuda else -1

    # ------------------------------------------------------------ conversions
    def numpy(self, *, force=False):
        """The numpy array behind this tensor: same memory, no copy."""
        if _trace_warner is not None:
            _trace_warner("NumPy array")
        if type(self._data) is SparseCOO:
            raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")
        if not self.is_cpu:
            if force:
                return self._data.get()
            raise TypeError(f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() "
                            "to copy the tensor to host memory first.")
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        if self.dtype is D.bfloat16 and not force:
            raise TypeError("Got unsupported ScalarType BFloat16")
        return self._data.view()   # a new array object over the same memory on each call, as PyTorch's

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        arr = self._data if self.is_cpu else self._data.get()
        if dtype is not None and arr.dtype != dtype:
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """numpy hands a ufunc's result back here: ``np.exp(t)`` is a Tensor, as in PyTorch (which turns a
        bool result into uint8 first, and keeps a 0-dim result a tensor)."""
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        return Tensor._make(array)

    def tolist(self):
        if type(self._data) is SparseCOO:
            raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
        if _trace_warner is not None:
            _trace_warner("list")
        arr = self._data if self.is_cpu else self._data.get()
        if arr.dtype.name == "bfloat16":
            arr = arr.astype(np.float32)
        return arr.tolist()

    def item(self):
        if _trace_warner is not None:
            _trace_warner("number")
        return self._item()

    def _item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        if self.is_meta:
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        v = self._data.reshape(-1)[0]
        if not self.is_cpu:
            v = v.get()
        if v.dtype.name == "bfloat16":
            return float(v)
        return v.item()

    def _python_scalar(self):
        """The one element, for int()/float()/complex() (PyTorch's ValueError where item() says RuntimeError)."""
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._item()

    def __float__(self):
        if _trace_warner is not None:
            _trace_warner("float")
        return float(self._python_scalar())

    def __int__(self):
        if _trace_warner is not None:
            _trace_warner("integer")
        return int(self._python_scalar())

    def __complex__(self):
        if _trace_warner is not None:
            _trace_warner("complex")
        return complex(self._python_scalar())

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with {'no values' if self._data.size == 0 else 'more than one value'}"
                " is ambiguous")
        if _trace_warner is not None:
            _trace_warner("boolean")
        return bool(self._item())

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        if _trace_warner is not None:
            _trace_warner("integer")
        return int(self._item())

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        if _trace_warner is not None:
            _trace_warner("len")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    def __contains__(self, element):
        if isinstance(element, (Tensor, numbers.Number)):
            return bool((self == element).any().item())
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                           f"{type(element)}.")

    def __dlpack__(self, stream=None, **kwargs):
        if self._requires_grad:
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        return self._data.__dlpack__(**({"stream": stream} if stream is not None else {}), **kwargs)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

    # ------------------------------------------------------------ dtype / device moves
    def _parse_to(self, args, kwargs):
        dev = kwargs.pop("device", None)
        dt = kwargs.pop("dtype", None)
        copy = kwargs.pop("copy", False)
        kwargs.pop("non_blocking", None)
        fmt = kwargs.pop("memory_format", preserve_format)
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments - got unexpected keyword "
                            f"{', '.join(kwargs)}")
        for a in args:
            if isinstance(a, D.dtype):
                dt = a
            elif isinstance(a, Tensor):
                dt, dev = a.dtype, a.device
            elif isinstance(a, (str, int)) and not isinstance(a, bool) or a.__class__.__name__ == "device":
                dev = a
            elif isinstance(a, bool):
                copy = a if len(args) > 1 else copy
            elif a is None:   # to(None): no device asked for (``x.to(device)`` with a device that may be None)
                pass
            else:
                raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__})")
        return as_device(dev), dt, copy, fmt

    # ``to()`` itself is an op: ops/conversion.py attaches it (reading its arguments with _parse_to above),
    # as every op module attaches its methods (``t.sin()``); cpu() and cuda() call it

    def cpu(self, memory_format=preserve_format):
        return self.to("cpu", memory_format=memory_format)

    def cuda(self, device=None, non_blocking=False, memory_format=preserve_format):
        if device is None:
            device = "cuda"
        elif isinstance(device, int):
            device = f"cuda:{device}"
        return self.to(device, memory_format=memory_format)

    def type(self, dtype=None, non_blocking=False, **kwargs):
        names = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
                 "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor",
                 "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor",
                 "bool": "BoolTensor", "complex64": "ComplexFloatTensor",
                 "complex128": "ComplexDoubleTensor"}
        if dtype is None:
            prefix = "torch." if self.is_cpu else f"torch.{self.device.type}."
            return prefix + names.get(self.dtype.name, "Tensor")
        if isinstance(dtype, str):
            rev = {v: k for k, v in names.items()}
            dtype = getattr(D, rev[dtype.split(".")[-1]])
        elif hasattr(dtype, "_dtype"):  # a legacy class: x.type(torch.FloatTensor)
            dtype = dtype._dtype
        return self.to(dtype)

    def float(self, memory_format=preserve_format):
        return self.to(D.float32, memory_format=memory_format)

    def double(self, memory_format=preserve_format):
        return self.to(D.float64, memory_format=memory_format)

    def half(self, memory_format=preserve_format):
        return self.to(D.float16, memory_format=memory_format)

    def bfloat16(self, memory_format=preserve_format):
        return self.to(D.bfloat16, memory_format=memory_format)

    def long(self, memory_format=preserve_format):
        return self.to(D.int64, memory_format=memory_format)

    def int(self, memory_format=preserve_format):
        return self.to(D.int32, memory_format=memory_format)

    def short(self, memory_format=preserve_format):
        return self.to(D.int16, memory_format=memory_format)

    def char(self, memory_format=preserve_format):
        return self.to(D.int8, memory_format=memory_format)

    def byte(self, memory_format=preserve_format):
        return self.to(D.uint8, memory_format=memory_format)

    def bool(self, memory_format=preserve_format):
        return self.to(D.bool, memory_format=memory_format)

    def cfloat(self, memory_format=preserve_format):
        return self.to(D.complex64, memory_format=memory_format)

    def cdouble(self, memory_format=preserve_format):
        return self.to(D.complex128, memory_format=memory_format)

    def type_as(self, other):
        return self.to(other.dtype)

    # ------------------------------------------------------------ printing, copying, pickling
    def __repr__(self, *, tensor_contents=None):
        from ._tensor_str import _str
        return _str(self, tensor_contents=tensor_contents)

    def __format__(self, format_spec):
        # as PyTorch: f"{t}" of a 0-dim tensor formats its Python number (f"{x.grad}" -> 3.6589...)
        if self._data.ndim == 0 and type(self) is Tensor:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the "
                               "deepcopy protocol at the moment.  If you were attempting to deepcopy a "
                               "module, this may be because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        new = _new(type(self))
        new._init_from(self._data.copy(), self._requires_grad)
        memo[id(self)] = new
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        if self.__dict__:
            import copy
            for k, v in self.__dict__.items():
                if not k.startswith("_post_acc"):
                    setattr(new, k, copy.deepcopy(v, memo))
        return new

    def __reduce_ex__(self, protocol):
        if self.is_meta:   # no values: the shape, dtype and strides are the whole tensor
            return (_rebuild_meta_tensor, (type(self), tuple(self.shape), self.dtype, self.stride(),
                                           self._requires_grad))
        arr = to_host(self._data)
        return (_rebuild_tensor, (type(self), arr.copy(order="C"), self._requires_grad,
                                  str(self.device)))

    def __setstate__(self, state):  # pragma: no cover - pickles made by _rebuild_tensor need none
        pass

    # ------------------------------------------------------------ misc
    @property
    def T(self):
        if self._data.ndim not in (0, 2):
            warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape "
                          "is deprecated and it will throw an error in a future release.", UserWarning,
                          stacklevel=user_stacklevel())
        return self.permute(tuple(range(self._data.ndim - 1, -1, -1)))

    @property
    def mT(self):
        if self._data.ndim == 0:
            warnings.warn("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.",
                          UserWarning, stacklevel=user_stacklevel())
            return self
        if self._data.ndim < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got "
                               f"{self._data.ndim}-D tensor.")
        return self.transpose(-2, -1)

    @property
    def H(self):
        return self.T.conj() if self.is_complex() else self.T

    @property
    def mH(self):
        if self._data.ndim == 0:
            warnings.warn("Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().", UserWarning,
                          stacklevel=user_stacklevel())
            return self.conj() if self.is_complex() else self
        return self.mT.conj() if self.is_complex() else self.mT

    # the properties ``real`` and ``imag`` are ops: ops/elementwise.py attaches them

    @property
    def names(self):
        return (None,) * self._data.ndim


def _plain_values(data):
    """Nested lists with tensors inside become nested lists of numbers (the legacy constructor's input)."""
    if isinstance(data, Tensor):
        return data.tolist()
    if isinstance(data, (list, tuple)):
        return [_plain_values(d) for d in data]
    return data


def _rebuild_tensor(cls, arr, requires_grad, device="cpu"):
    t = _new(cls)
    t._init_from(arr, requires_grad)
    if device != "cpu":
        t._data = to_device_array(arr, as_device(device))
    return t


def _rebuild_meta_tensor(cls, shape, dtype, stride, requires_grad):
    """A meta tensor from its pickle: a flat meta array as long as the strides reach, viewed with them."""
    n = 1 + sum((s - 1) * st for s, st in zip(shape, stride)) if all(shape) else 0
    flat = device_namespace(as_device("meta")).empty(max(n, 1), dtype.np)
    t = _new(cls)
    t._init_from(as_strided(flat, shape, tuple(st * flat.itemsize for st in stride)), requires_grad)
    return t


def typename(obj):
    """``torch.typename``: 'torch.FloatTensor' for a tensor, else the object's module and qualified name."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    if module in ("", "builtins"):
        return qualname
    return module + "." + qualname
