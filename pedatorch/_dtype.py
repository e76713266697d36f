"""dtypes as objects, and PyTorch's type-promotion rules.

A ``pedatorch.dtype`` wraps a numpy dtype.  Promotion follows
``torch.result_type``: operands are split into three priority levels
(tensors with dimensions, zero-dim tensors, Python scalars) and a lower level
only changes the result when it is of a higher *category*
(bool < integer < floating < complex).
"""
import numpy as np

__all__ = [
    "dtype", "float32", "float", "float64", "double", "float16", "half", "bfloat16",
    "int8", "int16", "short", "int32", "int", "int64", "long", "uint8", "uint16",
    "uint32", "uint64", "bool", "complex64", "cfloat", "complex128", "cdouble",
    "promote_types", "get_default_dtype", "set_default_dtype", "finfo", "iinfo",
]

_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3


class dtype:
    """A tensor element type: ``pedatorch.float32`` prints as ``torch.float32``."""

    __slots__ = ("name", "_np", "_category", "itemsize", "is_signed", "_np_name")

    def __init__(self, name, np_name, category, itemsize, is_signed):
        self.name = name
        self._np_name = np_name
        self._np = np.dtype(np_name) if np_name is not None else None
        self._category = category
        self.itemsize = itemsize
        self.is_signed = is_signed

    @property
    def np(self):
        """The numpy dtype this dtype stores its elements as."""
        if self._np is None:  # bfloat16: numpy knows it only through ml_dtypes
            _load_bfloat16()
        return self._np

    @property
    def is_floating_point(self):
        return self._category == _FLOAT

    @property
    def is_complex(self):
        return self._category == _COMPLEX

    def to_complex(self):
        return {float32: complex64, float64: complex128, float16: complex64}.get(self, self)

    def to_real(self):
        return {complex64: float32, complex128: float64}.get(self, self)

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):  # pickle as the module-level singleton
        return (_dtype_by_name, (self.name,))


float32 = float = dtype("float32", "float32", _FLOAT, 4, True)
float64 = double = dtype("float64", "float64", _FLOAT, 8, True)
float16 = half = dtype("float16", "float16", _FLOAT, 2, True)
bfloat16 = dtype("bfloat16", None, _FLOAT, 2, True)
int8 = dtype("int8", "int8", _INT, 1, True)
int16 = short = dtype("int16", "int16", _INT, 2, True)
int32 = int = dtype("int32", "int32", _INT, 4, True)
int64 = long = dtype("int64", "int64", _INT, 8, True)
uint8 = dtype("uint8", "uint8", _INT, 1, False)
uint16 = dtype("uint16", "uint16", _INT, 2, False)
uint32 = dtype("uint32", "uint32", _INT, 4, False)
uint64 = dtype("uint64", "uint64", _INT, 8, False)
bool = dtype("bool", "bool", _BOOL, 1, False)
complex64 = cfloat = dtype("complex64", "complex64", _COMPLEX, 8, True)
complex128 = cdouble = dtype("complex128", "complex128", _COMPLEX, 16, True)

_ALL = [float32, float64, float16, bfloat16, int8, int16, int32, int64, uint8,
        uint16, uint32, uint64, bool, complex64, complex128]

# numpy dtype -> pedatorch dtype (the hot lookup: Tensor.dtype)
_from_np = {d._np: d for d in _ALL if d._np is not None}


def _dtype_by_name(name):
    return globals()[name]


def _load_bfloat16():
    try:
        import ml_dtypes
    except ImportError:  # pragma: no cover - depends on the environment
        raise TypeError("bfloat16 needs the ml-dtypes package: pip install ml-dtypes") from None
    bfloat16._np = np.dtype(ml_dtypes.bfloat16)
    _from_np[bfloat16._np] = bfloat16


def is_float_np(npdt):
    """Is this numpy dtype a real floating-point type?  bfloat16 counts: ml_dtypes gives it kind 'V',
    so ``npdt.kind == "f"`` alone would miss it (use these checks, not ``kind``, for float tests)."""
    return npdt.kind == "f" or npdt.name == "bfloat16"


def is_inexact_np(npdt):
    """Floating point or complex (bfloat16 included)."""
    return npdt.kind in "fc" or npdt.name == "bfloat16"


def is_reduced_np(npdt):
    """float16 or bfloat16: PyTorch computes them in float32 ("opmath") and rounds the result."""
    return npdt.itemsize == 2 and is_float_np(npdt)


_FLOAT32_NP = np.dtype(np.float32)


def opmath_np(npdt):
    """The dtype PyTorch computes in for ``npdt``: float32 for float16/bfloat16, else itself.
    (Called by every reduction and product: the common case is decided by one itemsize test.)"""
    if npdt.itemsize != 2:
        return npdt
    return _FLOAT32_NP if is_float_np(npdt) else npdt


def to_opmath(a):
    """An array in the dtype PyTorch computes it in: float16/bfloat16 as float32 (a copy), anything
    else (None, a Python number) as it is.  Kernels widen their inputs with it and round their result once."""
    if not hasattr(a, "dtype"):  # None, or a Python number
        return a
    dt = opmath_np(a.dtype)
    return a if dt is a.dtype else a.astype(dt)


def from_numpy_dtype(npdt):
    """The pedatorch dtype of a numpy dtype (TypeError when PyTorch has none)."""
    try:
        return _from_np[npdt]
    except KeyError:
        pass
    npdt = np.dtype(npdt)
    if npdt in _from_np:
        return _from_np[npdt]
    if npdt.name == "bfloat16":
        _load_bfloat16()
        return bfloat16
    raise TypeError(
        f"can't convert np.ndarray of type numpy.{npdt.name}. The only supported types are: "
        "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, "
        "uint32, uint16, uint8, and bool.")


# ---------------------------------------------------------------- defaults

class _Defaults:
    float = float32


_defaults = _Defaults()


def get_default_dtype():
    return _defaults.float


def set_default_dtype(d):
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _defaults.float = d


def _default_complex():
    return complex128 if _defaults.float is float64 else complex64


# ---------------------------------------------------------------- promotion

def promote_types(type1, type2):
    """The smallest dtype both can be cast to (``torch.promote_types``)."""
    if type1 is type2:
        return type1
    c1, c2 = type1._category, type2._category
    if c1 != c2:
        hi, lo = (type1, type2) if c1 > c2 else (type2, type1)
        if hi._category == _COMPLEX and lo is float64:
            return complex128
        return hi
    if c1 == _FLOAT:
        if {type1, type2} == {float16, bfloat16}:
            return float32
        return type1 if type1.itemsize >= type2.itemsize else type2
    if c1 == _COMPLEX:
        return type1 if type1.itemsize >= type2.itemsize else type2
    if c1 == _INT:
        if type1.is_signed == type2.is_signed:
            return type1 if type1.itemsize >= type2.itemsize else type2
        u, s = (type1, type2) if not type1.is_signed else (type2, type1)
        if s.itemsize > u.itemsize:
            return s
        if u is uint64:
            raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, "
                               f"attempted to promote {type1.name} and {type2.name}")
        return {1: int16, 2: int32, 4: int64}[u.itemsize]
    return type1


def _scalar_dtype(value):
    """The dtype a Python number stands for when it meets a tensor."""
    if isinstance(value, _pybool):
        return bool
    if isinstance(value, _pyint):
        return int64
    if isinstance(value, _pyfloat):
        return _defaults.float
    if isinstance(value, _pycomplex):
        return _default_complex()
    if isinstance(value, np.generic):  # numpy scalars count as Python numbers
        return _scalar_dtype(value.item())
    raise TypeError(f"unsupported operand type: {type(value).__name__}")


import builtins as _b  # noqa: E402

_pybool, _pyint, _pyfloat, _pycomplex = _b.bool, _b.int, _b.float, _b.complex


def _combine_categories(higher, lower):
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher._category == _COMPLEX:
        return higher
    if lower._category == _COMPLEX:
        if higher._category == _FLOAT:
            return higher.to_complex()
        return lower
    if higher._category == _FLOAT:
        return higher
    if higher is bool or lower._category == _FLOAT:
        return promote_types(higher, lower)
    return higher


def result_type_of(*operands):
    """``torch.result_type`` over any mix of tensors and Python numbers."""
    dim = zero = wrapped = None
    for op in operands:
        d = None if isinstance(op, np.generic) else getattr(op, "dtype", None)
        if d is not None and not isinstance(d, dtype):
            d = from_numpy_dtype(d)  # a numpy/cupy array
        if d is not None:
            if op.ndim > 0:
                dim = d if dim is None else promote_types(dim, d)
            else:
                zero = d if zero is None else promote_types(zero, d)
        else:
            d = _scalar_dtype(op)
            wrapped = d if wrapped is None else promote_types(wrapped, d)
    return _combine_categories(dim, _combine_categories(zero, wrapped))


# ---------------------------------------------------------------- casting into a tensor; names in messages

def can_cast_np(src, dst):
    """PyTorch's ``canCast`` for writing a result into an existing tensor (in-place ops, ``out=``): only
    float -> integer/bool, complex -> real and non-bool -> bool are refused; integer -> any integer is
    allowed (``uint8_t.add_(int32_t)`` wraps), where numpy's "same_kind" refuses signed -> unsigned."""
    src, dst = np.dtype(src), np.dtype(dst)
    if src == dst:
        return True
    if src.kind == "c" and dst.kind != "c":
        return False
    if is_inexact_np(src) and not is_inexact_np(dst):
        return False
    return not (src.kind != "b" and dst.kind == "b")


def _type_word(npdt):
    """PyTorch's name of a dtype in its messages: "Float", "Long", "ComplexDouble"."""
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
            "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
            "complex128": "ComplexDouble", "bfloat16": "BFloat16"}.get(np.dtype(npdt).name, str(npdt))


# ---------------------------------------------------------------- finfo / iinfo

class finfo:
    """Machine limits of a floating dtype (``torch.finfo``)."""

    def __init__(self, type=None):
        type = type or get_default_dtype()
        if not type.is_floating_point and not type.is_complex:
            # (PyTorch's message names 'torch.finfo' where the type belongs)
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        info = np.finfo(type.to_real().np)
        self.dtype = type.to_real().name
        self.bits = info.bits
        self.eps = _pyfloat(info.eps)
        self.max = _pyfloat(info.max)
        self.min = _pyfloat(info.min)
        self.tiny = self.smallest_normal = _pyfloat(info.tiny)
        self.resolution = 10.0 ** -info.precision   # a power of ten: 1e-06 for float32

    def __repr__(self):   # (every number as C's %g writes it, as PyTorch prints them)
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.tiny:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype (``torch.iinfo``)."""

    def __init__(self, type):
        if type.is_floating_point or type.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                            "'torch.iinfo'")
        if type.np == np.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        info = np.iinfo(type.np)
        self.dtype = type.name
        self.bits = type.itemsize * 8
        self.max = _pyint(info.max)
        self.min = _pyint(info.min)

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
