"""Printing tensors exactly as PyTorch prints them.

``repr(t)`` is built in three steps:

1. *Which elements are shown.*  When a tensor has more than ``threshold``
   elements it is summarized: along every dimension longer than
   ``2 * edgeitems`` only the first and last ``edgeitems`` entries are kept
   (``...`` marks the cut).  The kept elements form a smaller array, the
   "shown" array.
2. *How each element is written.*  All shown elements of a tensor share one
   format and one width:

   - integers and bools: ``str(value)``;
   - floats, judged on the nonzero finite values only:
       * scientific (``1.2346e+05``) when ``max/min > 1000``, ``max > 1e8`` or
         ``min < 1e-4`` (of the absolute values), unless ``sci_mode`` forces it;
       * otherwise, if every such value is a whole number: ``3.`` style;
       * otherwise fixed point with ``precision`` decimals (``3.1416``);
     the common width is the longest of those nonzero finite values (zeros,
     ``nan`` and ``inf`` do not widen it), and every element is right-aligned
     to it;
   - complex: the real and imaginary parts each get their own float format;
     an element is ``real`` (padded) + ``+``/``-`` + ``imag`` (unpadded) + ``j``.
3. *Layout.*  Rows are ``[a, b, c]``; a row wraps after as many elements as
   fit in ``linewidth`` (counting the indent and ``", "``); a dimension ``d``
   levels from the end is separated by ``d - 1`` blank lines; every nesting
   level indents by one more space.  Then suffixes follow in PyTorch's order
   (``device=``, ``size=``, ``dtype=``, ``grad_fn=`` / ``requires_grad=``),
   each moving to a new line when it would pass ``linewidth``.
"""
import contextlib
import math

import numpy as np

from . import _dtype as D
from ._dtype import is_float_np

__all__ = ["set_printoptions", "get_printoptions", "printoptions"]


class _Options:
    """The current print options (one module-level instance, like PyTorch's PRINT_OPTS)."""

    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self):
        self.precision = 4
        self.threshold = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode = None

    def __repr__(self):
        # PyTorch's options are a dataclass named __PrinterOptions: print(torch._tensor_str.PRINT_OPTS)
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"__PrinterOptions({fields})"


PRINT_OPTS = _Options()

_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """Set how tensors print (``torch.set_printoptions``).

    ``profile`` ('default', 'short' or 'full') sets the first four options at
    once; explicit arguments then override it.  ``sci_mode`` is always set:
    True or False forces scientific notation on or off, None (also what a call
    that leaves it out gives) lets each tensor decide.
    """
    o = PRINT_OPTS
    if profile is not None and profile in _PROFILES:
        o.precision, o.threshold, o.edgeitems, o.linewidth = _PROFILES[profile]
    if precision is not None:
        o.precision = precision
    if threshold is not None:
        o.threshold = threshold
    if edgeitems is not None:
        o.edgeitems = edgeitems
    if linewidth is not None:
        o.linewidth = linewidth
    o.sci_mode = sci_mode


def get_printoptions():
    """The current options as a dict that ``set_printoptions(**d)`` accepts."""
    o = PRINT_OPTS
    return {"precision": o.precision, "threshold": o.threshold, "edgeitems": o.edgeitems,
            "linewidth": o.linewidth, "sci_mode": o.sci_mode}


@contextlib.contextmanager
def printoptions(**kwargs):
    """Change the print options inside a ``with`` block, restoring them after."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# ---------------------------------------------------------------- element formats

def _host_array(data):
    """The tensor's array on the host, in a dtype numpy can format."""
    if type(data) is not np.ndarray:
        data = np.asarray(data) if isinstance(data, (np.ndarray, np.generic)) else data.get()
    if data.dtype.kind == "V" or data.dtype.name == "bfloat16":  # ml_dtypes: exact in float32
        data = data.astype(np.float32)
    return data


def _float_strings(a):
    """Strings for the float array ``a`` (flat) and their common width."""
    values = a.tolist()
    finite = np.isfinite(a)
    counted = finite & (a != 0)  # only nonzero finite values decide the format and the width
    all_counted = bool(counted.all())
    vals = a if all_counted else a[counted]
    p = PRINT_OPTS.precision
    if vals.size == 0:
        # nothing to judge by: whole-number style, width 1
        return [f"{v:.0f}." if f else f"{v:.0f}" for v, f in zip(values, finite.tolist())], 1

    int_mode = bool((vals == np.ceil(vals)).all())
    absv = np.abs(vals).astype(np.float64)
    lo, hi = float(absv.min()), float(absv.max())
    sci = PRINT_OPTS.sci_mode
    if sci is None:
        sci = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4

    if sci:
        strs = list(map(("{:.%de}" % p).format, values))
    elif int_mode:
        strs = list(map("{:.0f}.".format, values))
        if not finite.all():
            for i in np.flatnonzero(~finite).tolist():
                strs[i] = strs[i][:-1]  # nan, inf, -inf get no decimal point
    else:
        strs = list(map(("{:.%df}" % p).format, values))

    if all_counted:
        width = max(map(len, strs))
    else:
        width = max(len(strs[i]) for i in np.flatnonzero(counted).tolist())
    return strs, max(width, 1)


def _plain_strings(a):
    """Strings for an integer or bool array (flat) and their common width."""
    strs = list(map(str, a.tolist()))
    return strs, max(1, max(map(len, strs)))


def _real_elements(a):
    """Right-aligned element strings for a real array (flat), and the width."""
    strs, width = _float_strings(a) if is_float_np(a.dtype) else _plain_strings(a)
    return [s.rjust(width) for s in strs], width


def _elements(shown):
    """Element strings of the shown array (flat, row-major) and the width one element takes."""
    flat = shown.reshape(-1)
    if flat.dtype.kind != "c":
        return _real_elements(flat)
    re, w_re = _real_elements(np.ascontiguousarray(flat.real))
    im_strs, w_im = _float_strings(np.ascontiguousarray(flat.imag))
    out = []
    for r, i in zip(re, im_strs):
        # the imaginary part carries its own sign; -0.0 shows as "-0.j"
        out.append(r + i + "j" if i[0] in "+-" else r + "+" + i + "j")
    return out, w_re + w_im + 1


# ---------------------------------------------------------------- layout

def _shown_array(arr, edge):
    """The elements a summarized print shows, and per dimension whether it was cut."""
    cut = [n > 2 * edge for n in arr.shape]
    if arr.ndim == 1:
        return (arr[np.r_[0:edge, arr.shape[0] - edge:arr.shape[0]]] if cut[0] else arr), cut
    idx = [np.r_[0:edge, n - edge:n] if c else np.arange(n) for n, c in zip(arr.shape, cut)]
    return arr[np.ix_(*idx)], cut


def _layout(strs, shape, cut, elem_width, indent):
    """Nest the flat element strings ``strs`` (of an array of ``shape``) into PyTorch's brackets."""
    opts = PRINT_OPTS
    edge = opts.edgeitems
    ndim = len(shape)
    linewidth = opts.linewidth
    strides = [1] * ndim
    for d in range(ndim - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]

    def row(start, ind):
        items = strs[start:start + shape[-1]]
        if cut[-1]:
            items = items[:edge] + [" ..."] + items[edge:]
        per_line = max(1, math.floor((linewidth - ind) / (elem_width + 2)))
        if len(items) <= per_line:
            return "[" + ", ".join(items) + "]"
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (ind + 1)).join(lines) + "]"

    def block(start, d, ind):
        if d == ndim - 1:
            return row(start, ind)
        step = strides[d]
        parts = [block(start + k * step, d + 1, ind + 1) for k in range(shape[d])]
        if cut[d]:
            parts = parts[:edge] + ["..."] + parts[edge:]
        return "[" + ("," + "\n" * (ndim - d - 1) + " " * (ind + 1)).join(parts) + "]"

    return block(0, 0, indent)


def _body(arr, indent):
    """The bracketed contents of a nonempty tensor's array."""
    opts = PRINT_OPTS
    if arr.ndim == 0:
        strs, _ = _elements(arr)
        return strs[0]
    if arr.size > opts.threshold:
        edge = opts.edgeitems
        if not edge:
            return "[...]"
        shown, cut = _shown_array(arr, edge)
    else:
        shown, cut = arr, [False] * arr.ndim
    strs, width = _elements(shown)
    return _layout(strs, shown.shape, cut, width, indent)


# ---------------------------------------------------------------- the whole repr

def tangent_of(t):
    """A tensor's forward-mode tangent, or None; autograd/forward_ad.py puts its lookup here (it lives above)."""
    return None


def _add_suffixes(text, suffixes, indent, force_newline=False):
    """Append ``, suffix`` items and the closing parenthesis, wrapping past ``linewidth`` (``force_newline``: the
    first one on a line of its own, as for a sparse tensor)."""
    linewidth = PRINT_OPTS.linewidth
    out = [text]
    last = len(text) - text.rfind("\n") + 1  # (PyTorch's measure of the last line)
    for s in suffixes:
        if force_newline or last + len(s) + 2 > linewidth:
            out.append(",\n" + " " * indent + s)
            last = indent + len(s)
            force_newline = False
        else:
            out.append(", " + s)
            last += len(s) + 2
    out.append(")")
    return "".join(out)


def _param_class(cls):
    for c in cls.__mro__:
        if c.__name__ == "Parameter" and c.__module__.startswith("pedatorch"):
            return c
    return None


def _sparse_body(sp, indent):
    """``indices=tensor(...),\n values=tensor(...)``: a sparse tensor's two arrays, aligned as PyTorch does."""
    parts = []
    for name, arr in (("indices", sp.indices), ("values", sp.values)):
        prefix = name + "=tensor("
        arr = _host_array(arr)
        body = _body(arr, indent + len(prefix)) if arr.size else "[], size=" + str(tuple(arr.shape))
        parts.append(prefix + body + ")")
    return (",\n" + " " * indent).join(parts)


def _str(self, tensor_contents=None):
    """``repr(tensor)``; ``tensor_contents`` replaces the bracketed values when given."""
    from ._tensor import Tensor

    cls = type(self)
    param = None if cls is Tensor else _param_class(cls)
    plain = cls is Tensor or (param is not None and cls is param)
    prefix = "tensor(" if plain else cls.__name__ + "("
    indent = len(prefix)
    opts = PRINT_OPTS

    data = self._data
    suffixes = []
    if not (isinstance(data, (np.ndarray, np.generic)) or self.is_cpu):   # (a sparse tensor's values may be)
        suffixes.append("device='" + str(self.device) + "'")
    dtype = self.dtype
    default = D.get_default_dtype()

    if self.is_sparse:   # indices and values, each printed as a tensor of its own
        body = _sparse_body(data, indent) if tensor_contents is None else tensor_contents
        suffixes += ["size=" + str(tuple(data.shape)), "nnz=" + str(data.nnz)]
        if not (dtype is default or dtype is D.int64 or dtype is D.bool):
            suffixes.append("dtype=" + repr(dtype))
        suffixes.append("layout=torch.sparse_coo")
    elif self.is_meta:   # no values to show: PyTorch prints "..." and the size, always
        suffixes.append("size=" + str(tuple(data.shape)))
        if dtype is not default:
            suffixes.append("dtype=" + repr(dtype))
        body = "..." if tensor_contents is None else tensor_contents
    elif data.size == 0:
        if data.ndim != 1:
            suffixes.append("size=" + str(tuple(data.shape)))
        if dtype is not default:
            suffixes.append("dtype=" + repr(dtype))
        body = "[]" if tensor_contents is None else tensor_contents
    else:
        if not opts.edgeitems:
            suffixes.append("size=" + str(tuple(data.shape)))
        if not (dtype is default or dtype is D.int64 or dtype is D.bool
                or dtype is (D.complex128 if default is D.float64 else D.complex64)):
            suffixes.append("dtype=" + repr(dtype))
        body = _body(_host_array(data), indent) if tensor_contents is None else tensor_contents

    grad_fn = self.grad_fn
    if grad_fn is not None:
        name = grad_fn.name() if hasattr(grad_fn, "name") else type(grad_fn).__name__
        suffixes.append("grad_fn=<" + name.rsplit("::", 1)[-1] + ">")
    elif self.requires_grad:
        suffixes.append("requires_grad=True")
    tangent = tangent_of(self)   # (forward-mode AD: a dual tensor shows its tangent)
    if tangent is not None:
        suffixes.append("tangent=" + repr(tangent))

    text = _add_suffixes(prefix + body, suffixes, indent, force_newline=self.is_sparse)
    if param is not None and not plain:
        text = "Parameter(" + text + ")"
    return text
