"""Convolutions: ``conv1d/2d/3d``, ``conv_transpose1d/2d/3d``, ``unfold`` (im2col) and ``fold`` (col2im).

A convolution is one matrix product on a rearranged copy of the input (*im2col*)::

    cols[n, (c, i, j), (oh, ow)] = xpad[n, c, oh*stride + i*dilation, ow*stride + j*dilation]
    out[n, o, (oh, ow)]          = sum_{(c,i,j)} weight[o, (c, i, j)] * cols[n, (c, i, j), (oh, ow)]

``cols`` is a strided *view* of the padded input (``np.lib.stride_tricks.as_strided``: no data is
moved until the one copy that makes it contiguous), followed by ONE ``xp.matmul``.  Groups are a
reshape of the channel axis into (groups, channels per group), so they are a batch dim of that same
matmul, not a Python loop.

The backward needs three kernels, each built from the same pieces:

* input grad  (``_input_grad``):  gcols = weight^T @ grad, then *col2im*: every kernel offset (i, j)
  adds its slice of gcols back into the padded input (a loop over the kh*kw offsets);
* weight grad (``_weight_grad``): grad @ cols^T (one matmul over batch and positions);
* bias grad: grad summed over batch and positions.

A transposed convolution is the input grad of a convolution (``conv_transpose2d(x, w)`` *is*
``_input_grad(x, w)``), and its gradients are again these kernels.  Because the three are bilinear,
their derivatives are each other: ``_ConvForward``, ``_ConvInputGrad`` and ``_ConvWeightGrad`` are
ArrayFunctions whose backwards call one another, so gradients of gradients (``gradgradcheck``)
need no extra code.

Two memory layouts are used for the matmuls, chosen by size (``_Geom.layout``): batch first,
(N, C*K, L) with one small matmul per image (best for big images), or batch last, (C*K, L*N) with a
single large matmul (best for small feature maps, where per-image products are tiny).  For stride 1,
the batch-first col2im adds each kernel offset as ONE contiguous run of the flattened input plane
("flat"; the gradient rows are widened with zeros to the padded row length), which is much faster in
numpy than a 4-d strided slice per offset.

The forward keeps its im2col matrix for the weight gradient (no second im2col in the backward).
"""
import numbers
import warnings

import numpy as np

from ..._warnings import user_stacklevel
from ..._dtype import _type_word, can_cast_np, opmath_np, result_type_of
from ..._layout import conv_result, in_format

from ..._tensor import Tensor
from ...autograd.function import ArrayFunction, before_checks
from ...backend import namespace, as_strided
from ...ops._util import shape_str
from ...ops.linalg import _product  # xp.matmul with PyTorch's float16/bfloat16 precision (and dtype)

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
           "unfold", "fold"]

_BATCH_FIRST_MIN_POSITIONS = 256   # output positions per image from which per-image matmuls pay off


# ====================================================================== geometry

class _Geom:
    """Sizes of one convolution, seen from its forward direction (the "input" is the big side).

    ``insp``: input spatial sizes (unpadded), ``outsp``: output spatial sizes, ``k``: kernel sizes,
    ``lo``/``hi``: padding before/after per dim, ``groups``.  The same object describes the
    transposed convolution whose output is ``insp``.  ``layout`` is how the kernels lay out the
    im2col matrix: "last" (batch last) or "first" (batch first; see ``_im2col``).
    """

    __slots__ = ("k", "stride", "lo", "hi", "dil", "groups", "insp", "outsp", "layout")

    def __init__(self, k, stride, lo, hi, dil, groups, insp, outsp, n):
        self.k, self.stride, self.lo, self.hi, self.dil = k, stride, lo, hi, dil
        self.groups, self.insp, self.outsp = groups, insp, outsp
        self.layout = "last" if n > 1 and _prod(outsp) < _BATCH_FIRST_MIN_POSITIONS else "first"

    @property
    def padded(self):
        return tuple(n + a + b for n, a, b in zip(self.insp, self.lo, self.hi))

    def offsets(self):
        """Every kernel offset with the slices of the padded input it touches."""
        for off in np.ndindex(*self.k):
            yield off, tuple(slice(o * d, o * d + s * (n - 1) + 1, s)
                             for o, d, s, n in zip(off, self.dil, self.stride, self.outsp))

    # The "flat" col2im (stride 1): an output position (q1, .., qD) is the flat index sum q_i * P_i of
    # the padded input plane (P_i: the plane's strides in elements), so each kernel offset adds ONE
    # contiguous run into that plane.  For that the gradient rows are widened to the padded input's
    # rows with zeros ("wide" positions), which add nothing.
    def plane_strides(self):
        p = self.padded
        return tuple(_prod(p[i + 1:]) for i in range(len(p)))

    def wide(self):
        return (self.outsp[0],) + self.padded[1:]

    def span(self):
        return sum((o - 1) * s for o, s in zip(self.outsp, self.plane_strides())) + 1

    def offset_starts(self):
        ps = self.plane_strides()
        return [sum(o * d * s for o, d, s in zip(off, self.dil, ps)) for off in np.ndindex(*self.k)]


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def _out_size(n, k, s, lo, hi, d):
    return (n + lo + hi - d * (k - 1) - 1) // s + 1


# ====================================================================== array kernels

def _pad_to(x, g, lead, value=0):
    """``x`` (dims: lead, spatial, rest) padded by the geometry (``x`` itself when no padding)."""
    if not any(g.lo) and not any(g.hi):
        return x
    d = len(g.k)
    xp = namespace(x)
    shape = x.shape[:lead] + g.padded + x.shape[lead + d:]
    out = xp.full(shape, value, dtype=x.dtype) if value else xp.zeros(shape, dtype=x.dtype)
    out[(slice(None),) * lead + tuple(slice(a, a + n) for a, n in zip(g.lo, g.insp))] = x
    return out


def _windows(xpad, g, lead):
    """The strided view (lead, *k, *out, rest) of padded ``xpad`` (lead, *padded, rest): no copy (read only:
    nothing writes into these views)."""
    d = len(g.k)
    st = xpad.strides
    sp = st[lead:lead + d]
    shape = xpad.shape[:lead] + tuple(g.k) + tuple(g.outsp) + xpad.shape[lead + d:]
    strides = (st[:lead] + tuple(s * dl for s, dl in zip(sp, g.dil)) + tuple(s * sd for s, sd in zip(sp, g.stride))
               + st[lead + d:])
    return as_strided(xpad, shape, strides)


def _group_shape(g, rows, cols, batch=None):
    """([N,] [G,] rows, cols): the group dim is left out when groups == 1 (numpy runs plain 2-d products
    faster than batches of one)."""
    grp = (g.groups,) if g.groups > 1 else ()
    return ((batch,) if batch is not None else ()) + grp + (rows, cols)


def _im2col(x, g, layout):
    """The one im2col copy, as a matrix (stack) for the product with the weight:

    * "first": (N, [G,] Cg*K, L), cols[n, (c, offset), position]: one product per image;
    * "last":  ([G,] Cg*K, L*N), batch innermost: ONE product for the whole batch (small images).
    """
    n, c = x.shape[:2]
    xp = namespace(x)
    kk, cg, ll = _prod(g.k), c // g.groups, _prod(g.outsp)
    if layout == "last":
        xt = xp.moveaxis(x, 0, -1)                      # (C, *sp, N): a view, made contiguous by the padding
        xpad = _pad_to(xt, g, 1) if any(g.lo) or any(g.hi) else xp.ascontiguousarray(xt)
        cols = xp.ascontiguousarray(_windows(xpad, g, 1))  # (C, *k, *out, N)
        return cols.reshape(_group_shape(g, cg * kk, ll * n))
    cols = xp.ascontiguousarray(_windows(_pad_to(x, g, 2), g, 2))   # (N, C, *k, *out)
    return cols.reshape(_group_shape(g, cg * kk, ll, n))


def _col2im(gcols, g, n, c, dtype, layout):
    """Add every kernel offset's slice of ``gcols`` back into the (cropped) input: the adjoint of im2col."""
    xp = namespace(gcols)
    if layout == "flat":
        gcols = gcols.reshape(n, c, _prod(g.k), _prod(g.wide()))
        acc = xp.zeros((n, c, _prod(g.padded)), dtype=dtype)
        span = g.span()
        for i, start in enumerate(g.offset_starts()):
            acc[:, :, start:start + span] += gcols[:, :, i, :span]
        acc = acc.reshape((n, c) + g.padded)
        lead = 2
    else:
        if layout == "last":
            gcols = gcols.reshape((c,) + tuple(g.k) + tuple(g.outsp) + (n,))
            acc = xp.zeros((c,) + g.padded + (n,), dtype=dtype)
            lead = 1
        else:
            gcols = gcols.reshape((n, c) + tuple(g.k) + tuple(g.outsp))
            acc = xp.zeros((n, c) + g.padded, dtype=dtype)
            lead = 2
        head = (slice(None),) * lead
        for off, sl in g.offsets():
            acc[head + sl] += gcols[head + off]
    if any(g.lo) or any(g.hi):
        acc = acc[(slice(None),) * lead + tuple(slice(a, a + m) for a, m in zip(g.lo, g.insp))]
    if layout == "last":
        acc = xp.moveaxis(acc, -1, 0)
    return xp.ascontiguousarray(acc)


def _weight_matrix(w, g):
    """weight (O, Cg, *k) as ([G,] Og, Cg*K)."""
    return w.reshape(_group_shape(g, w.shape[0] // g.groups, w[0].size))


def _conv_forward(x, w, g, layout=None):
    """out = W @ im2col(x): (N, O, *out), and the cols (kept for the weight gradient)."""
    layout = layout or g.layout
    xp = namespace(x)
    n = x.shape[0]
    o = w.shape[0]
    cols = _im2col(x, g, layout)
    out = _product(xp.matmul, _weight_matrix(w, g), cols)     # last: ([G,] Og, L*N); first: (N, [G,] Og, L)
    if layout == "last":
        out = xp.moveaxis(out.reshape((o,) + tuple(g.outsp) + (n,)), -1, 0)
        return xp.ascontiguousarray(out), cols
    return out.reshape((n, o) + tuple(g.outsp)), cols


def _grad_matrix(gy, g, layout):
    """grad (N, O, *out) in the layout of the cols: ([G,] Og, L*N) or (N, [G,] Og, L)."""
    n, o = gy.shape[:2]
    xp = namespace(gy)
    og = o // g.groups
    if layout == "last":
        return xp.ascontiguousarray(xp.moveaxis(gy, 0, -1)).reshape(_group_shape(g, og, _prod(g.outsp) * n))
    if layout == "flat":   # zeros at the wide positions: they add nothing
        wide = xp.zeros((n, o) + g.wide(), dtype=gy.dtype)
        wide[(slice(None), slice(None)) + tuple(slice(0, m) for m in g.outsp)] = gy
        return wide.reshape(_group_shape(g, og, _prod(g.wide()), n))
    return gy.reshape(_group_shape(g, og, _prod(g.outsp), n))


def _input_grad(gy, w, g, layout=None):
    """dx = col2im(W^T @ grad): (N, C, *in).  Also the forward of a transposed convolution.
    (The finiteness check of W reads one bool from the device: a sync, once per call.)"""
    layout = layout or g.layout
    xp = namespace(gy, w)
    if layout == "first" and len(g.k) > 1 and all(s == 1 for s in g.stride) and xp.isfinite(w).all():
        layout = "flat"           # (W^T @ 0 at the wide positions must be 0: W finite)
    n = gy.shape[0]
    c = w.shape[1] * g.groups
    dt = np.result_type(gy, w)
    acc = opmath_np(dt)      # float16/bfloat16: products and overlapping windows summed in float32, rounded once
    gy, w = gy.astype(acc, copy=False), w.astype(acc, copy=False)
    gcols = _product(xp.matmul, xp.swapaxes(_weight_matrix(w, g), -1, -2), _grad_matrix(gy, g, layout))
    return _col2im(gcols, g, n, c, acc, layout).astype(dt, copy=False)


def _weight_grad(x, gy, g, w_shape, cols=None, layout=None):
    """dW = grad @ im2col(x)^T, summed over the batch: (O, Cg, *k)."""
    layout = layout or g.layout
    xp = namespace(gy)
    if cols is None:
        cols = _im2col(x, g, layout)
    gw = _product(xp.matmul, _grad_matrix(gy, g, layout), xp.swapaxes(cols, -1, -2))
    if layout != "last":
        gw = gw.sum(0) if gw.shape[0] else xp.zeros(w_shape, dtype=gw.dtype)
    return gw.reshape(w_shape)


# ====================================================================== autograd functions

def _has_kernel(dtype, transposed):
    """Has ATen a CPU convolution kernel for this dtype? None for bool; the transposed ones none for the
    integer types but int64."""
    if dtype == np.bool_:
        return False
    return not (transposed and dtype.kind in "iu" and dtype != np.int64)


def _uses_onednn(dtype, xshape, ws, groups):
    """Does PyTorch's CPU convolution choose oneDNN (``ConvParams::use_mkldnn``)? For bfloat16/float16 where
    the CPU has oneDNN's kernels for them (bfloat16: AVX-512 F/BW/VL/DQ; float16: AVX512-FP16); for a float32
    input where it expects oneDNN to be faster than its own kernel (with more than one thread, as usual);
    1-d convolutions run as 2-d ones with a height of 1."""
    from ...backends.cpu import has_cpu_feature
    if dtype.name == "bfloat16":
        return has_cpu_feature("AVX512_SKX")
    if dtype == np.float16:
        return has_cpu_feature("AVX512FP16")
    if dtype != np.float32:
        return False
    if len(xshape) == 3:
        xshape, ws = xshape[:2] + (1,) + xshape[2:], ws[:2] + (1,) + ws[2:]
    n, c, h, w = xshape[:4]
    return groups > 1 or ws[-1] > 3 and ws[-2] > 3 or n > 1 or n * c * h * w > 20480


def _legacy_type(dtype):
    """PyTorch's old name of a tensor type: "torch.FloatTensor"; the types added later are "CPUBoolType"."""
    word = _type_word(dtype)
    return f"CPU{word}Type" if word in ("BFloat16", "Bool") or dtype.kind == "c" else f"torch.{word}Tensor"


def _kernel_name(k, stride, lo, hi, dilation, groups, transposed):
    """The name of the ATen CPU kernel that refuses a dtype (1-d convolutions run as 2-d ones)."""
    if transposed:
        return f"slow_conv_transpose{max(len(k), 2)}d_out_cpu"
    if any(d != 1 for d in dilation):
        return "slow_conv_dilated<>"
    if len(k) < 3:
        return "slow_conv2d_cpu"
    # the 3-d kernel first builds its columns, unless they are a view of the input (1x1x1, no stride/padding)
    if all(v == 1 for v in tuple(k) + tuple(stride)) and not any(tuple(lo) + tuple(hi)) and groups == 1:
        return "slow_conv3d_cpu"
    return "compute_columns3d"


class Convolution(ArrayFunction):
    """out = conv(x, W) + b   (or the transposed convolution);
    dx = conv^T(grad, W),  dW = grad (*) x,  db = sum of grad over batch and positions"""
    node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, x, w, b, g, transposed):
        ctx.save_for_backward(x, w)
        if not transposed and x.shape[1] == 0:
            # ATen's "Empty" backend: no input channel gives no output channel (nor bias) either
            if ctx.needs_input_grad:   # (recording: never store on the shared no-graph ctx)
                ctx.empty = True
            return in_format(namespace(x).zeros((x.shape[0], 0) + tuple(g.outsp), x.dtype), "contiguous_format")
        # float16/bfloat16: the convolution and the bias are summed in float32 and rounded once, as PyTorch
        acc = opmath_np(x.dtype)
        xa, wa = x.astype(acc, copy=False), w.astype(acc, copy=False)
        if transposed:
            out = _input_grad(xa, wa, g)
            cols = None
        else:
            out, cols = _conv_forward(xa, wa, g)
        if b is not None:
            out += b.astype(acc, copy=False).reshape((-1,) + (1,) * len(g.k))
        out = conv_result(out.astype(x.dtype, copy=False), x, w)   # a channels-last input or weight: channels-last
        need = ctx.needs_input_grad
        if need:                                   # recording (never store arrays on the shared no-graph ctx)
            ctx.g, ctx.transposed, ctx.empty = g, transposed, False
            ctx.cols = cols if need[1] and acc == x.dtype else None   # (widened cols: the weight grad remakes them)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        if ctx.empty:   # nothing flowed through: zero gradients (the bias's too, though it has elements)
            gx, gw, gb = _EmptyConvGrads.apply(grad, x, w)
            return gx if need[0] else None, gw if need[1] else None, gb if need[2] else None, None, None
        g = ctx.g
        gx = gw = gb = None
        if ctx.transposed:   # out = conv^T(x, W): dx = conv(grad, W), dW = grad (*) x with roles swapped
            if need[0]:
                gx = _ConvForward.apply(grad, w, g)
            if need[1]:
                gw = _ConvWeightGrad.apply(grad, x, g, tuple(w.shape), None)
        else:
            if need[0]:
                gx = _ConvInputGrad.apply(grad, w, g)
            if need[1]:
                gw = _ConvWeightGrad.apply(x, grad, g, tuple(w.shape), ctx.cols)
        ctx.cols = None
        if need[2]:
            gb = grad.sum((0,) + tuple(range(2, grad.ndim)))
        return gx, gw, gb, None, None


class _EmptyConvGrads(ArrayFunction):
    """The (x, W, b) gradients of a convolution with no input channel: zeros.  One node on (grad, x, W), as
    PyTorch's, so that they stay in a recorded graph.  Its backward is PyTorch's double backward: zeros,
    but the bias gradient's gradient is viewed as (1, C_out, 1, ...) and expanded to grad's shape, which has
    no channel: an error (ATen's expand message) when C_out > 0."""
    node_name = "ConvolutionBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, x, w):
        ctx.set_materialize_grads(False)   # an unused gradient gets None: only a used bias gradient raises
        ctx.shapes, ctx.dtypes = (grad.shape, x.shape, w.shape), (grad.dtype, x.dtype, w.dtype)
        xp = namespace(x)
        return xp.zeros(x.shape, x.dtype), xp.zeros(w.shape, w.dtype), xp.zeros(w.shape[:1], w.dtype)

    @staticmethod
    def backward(ctx, ggx, ggw, ggb):
        grad_shape = ctx.shapes[0]
        if ggb is not None:   # ATen: ggb.view(1, C_out, 1, ...).expand(grad's shape)
            ggb.reshape((1, ggb.shape[0]) + (1,) * (len(grad_shape) - 2)).expand(grad_shape)
        given = [g for g in (ggx, ggw, ggb) if g is not None]
        if not given:
            return None, None, None
        # as ATen's: grad's gradient comes from any of them, x's from ggw only, W's from ggx only
        xp = namespace(given[0]._data)
        gets = (True, ggw is not None, ggx is not None)
        return tuple(Tensor._make(xp.zeros(shape, dt)) if n and got else None
                     for n, got, shape, dt in zip(ctx.needs_input_grad, gets, ctx.shapes, ctx.dtypes))


class _ConvForward(ArrayFunction):
    """y = conv(x, W) without bias (a gradient inside the backward of a convolution);
    dx = conv^T(grad, W),  dW = grad (*) x"""
    node_name = "ConvolutionBackwardBackward0"

    @staticmethod
    def forward(ctx, x, w, g):
        ctx.save_for_backward(x, w)
        ctx.g = g
        return _conv_forward(x, w, g)[0]

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        return (_ConvInputGrad.apply(grad, w, ctx.g) if need[0] else None,
                _ConvWeightGrad.apply(x, grad, ctx.g, tuple(w.shape), None) if need[1] else None, None)


class _ConvInputGrad(ArrayFunction):
    """dx = conv^T(gy, W) (col2im of W^T gy);   d gy = conv(grad, W),  dW = gy (*) grad"""
    node_name = "ConvolutionBackwardBackward0"

    @staticmethod
    def forward(ctx, gy, w, g):
        ctx.save_for_backward(gy, w)
        ctx.g = g
        return _input_grad(gy, w, g)

    @staticmethod
    def backward(ctx, grad):
        gy, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        return (_ConvForward.apply(grad, w, ctx.g) if need[0] else None,
                _ConvWeightGrad.apply(grad, gy, ctx.g, tuple(w.shape), None) if need[1] else None, None)


class _ConvWeightGrad(ArrayFunction):
    """dW = gy (*) x (gy @ im2col(x)^T);   dx = conv^T(gy, grad),  d gy = conv(x, grad)"""
    node_name = "ConvolutionBackwardBackward0"

    @staticmethod
    def forward(ctx, x, gy, g, w_shape, cols):
        ctx.save_for_backward(x, gy)
        ctx.g = g
        return _weight_grad(x, gy, g, w_shape, cols)

    @staticmethod
    def backward(ctx, grad):
        x, gy = ctx.saved_tensors
        need = ctx.needs_input_grad
        return (_ConvInputGrad.apply(gy, grad, ctx.g) if need[0] else None,
                _ConvForward.apply(x, grad, ctx.g) if need[1] else None, None, None, None)


# ====================================================================== argument checks

_C_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
           "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
           "uint8": "unsigned char", "bool": "bool"}


def _int_list(v, n, fname, argname):
    """An int or a sequence of ints -> list (an int repeats ``n`` times, as PyTorch's arg parser does)."""
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return [int(v)] * n
    if isinstance(v, (str, bool)) or not hasattr(v, "__iter__"):
        raise TypeError(f"{fname}(): argument '{argname}' must be tuple of ints, not {type(v).__name__}")
    out = []
    for e in v:
        if isinstance(e, Tensor) and e.ndim == 0:
            e = e.item()
        if not isinstance(e, numbers.Integral) or isinstance(e, bool):
            raise TypeError(f"{fname}(): argument '{argname}' must be tuple of ints, but found element of type "
                            f"{type(e).__name__} at pos {len(out)}")
        out.append(int(e))
    return out


def _expand(vals, name, dim):
    if len(vals) == 1:
        return vals * dim
    if len(vals) != dim:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {dim} values to match the "
                           f"convolution dimensions, but got {name}={shape_str(vals)}")
    return list(vals)


def _check_tensor(t, fname, argname, pos):
    if not isinstance(t, Tensor):
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be Tensor, not {type(t).__name__}")


def _batchify(input, num_spatial, fname):
    """Unbatched input (C, *spatial) gets a batch dim of 1 (squeezed away again at the end)."""
    d = input.ndim
    if d not in (num_spatial + 1, num_spatial + 2):
        raise RuntimeError(f"Expected {num_spatial + 1}D (unbatched) or {num_spatial + 2}D (batched) input to "
                           f"{fname}, but got input of size: {shape_str(input.shape)}")
    if d == num_spatial + 1:
        return input.unsqueeze(0), False
    return input, True


def _convolution(fname, nsp, input, weight, bias, stride, padding, dilation, groups, transposed=False,
                 output_padding=0):
    """The shared body of conv*d and conv_transpose*d (PyTorch's checks, in PyTorch's order)."""
    _check_tensor(input, fname, "input", 1)
    _check_tensor(weight, fname, "weight", 2)
    if bias is not None:
        _check_tensor(bias, fname, "bias", 3)
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral):
        raise TypeError(f"{fname}(): argument 'groups' must be int, not {type(groups).__name__}")
    groups = int(groups)
    stride = _int_list(stride, nsp, fname, "stride")
    dilation = _int_list(dilation, nsp, fname, "dilation")
    mode = None
    if isinstance(padding, str):
        if transposed:
            raise TypeError(f"{fname}(): argument 'padding' must be tuple of ints, not str")
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        mode = padding
        padding = [0] * nsp
    else:
        padding = _int_list(padding, nsp, fname, "padding")
    output_padding = _int_list(output_padding, nsp, fname, "output_padding")

    x, batched = _batchify(input, nsp, fname)
    wd = weight.ndim
    dim = wd - 2
    if dim <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    stride = _expand(stride, "stride", dim)
    padding = _expand(padding, "padding", dim)
    dilation = _expand(dilation, "dilation", dim)
    output_padding = _expand(output_padding, "output_padding", dim)
    ws = tuple(weight.shape)
    lo, hi = list(padding), list(padding)
    if mode == "same":
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        for i in range(dim):
            total = dilation[i] * (ws[2 + i] - 1)
            lo[i], hi[i] = total // 2, total - total // 2
        if lo != hi:
            _warn_same_padding()
            # PyTorch pads the extra amount explicitly (a ConstantPadNd node) and keeps the rest symmetric
            pad_nd = [0] * (2 * dim)
            for i in range(dim):
                pad_nd[2 * (dim - 1 - i) + 1] = hi[i] - lo[i]
            from ...ops.manip import constant_pad_nd
            x = constant_pad_nd(x, pad_nd, 0)
            hi = list(lo)
    _check_shape(x, ws, bias, stride, lo, dilation, groups, transposed, output_padding)
    x, weight, bias = before_checks(Convolution, x, weight, bias)   # (autocast casts first)
    xa, wa = x._data, weight._data
    bias_mismatch = bias is not None and bias._data.dtype != xa.dtype
    if bias_mismatch and not transposed:   # (ATen checks this before it chooses a kernel)
        _bias_type_error(xa, bias)
    if xa.size == 0 and xa.shape[0] and xa.shape[1]:
        # ATen's choice of kernel: an empty batch or channel dim gives an empty result; an empty spatial dim
        # (padded to a size the kernel fits) has no kernel. 1-d convolutions run as 2-d ones: a height of 1
        shape = xa.shape[:2] + (1,) + xa.shape[2:] if dim == 1 else xa.shape
        raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got input shape: "
                           f"{shape_str(shape)}")
    sp = tuple(xa.shape[2:])
    k = tuple(ws[2:])
    if xa.size and not _has_kernel(xa.dtype, transposed):
        name = _kernel_name(k, stride, lo, hi, dilation, groups, transposed)
        raise NotImplementedError(f'"{name}" not implemented for \'{_type_word(xa.dtype)}\'')
    # the kernel's own checks, in its own words: oneDNN's, where PyTorch picks it
    onednn = _uses_onednn(xa.dtype, xa.shape, ws, groups)
    if wa.dtype != xa.dtype:
        if onednn:
            raise RuntimeError(f"Input type ({_legacy_type(xa.dtype)}) and weight type ({_legacy_type(wa.dtype)}) "
                               f"should be the same or input should be a MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {_type_word(xa.dtype)} but found {_type_word(wa.dtype)}")
    if bias_mismatch:   # (a transposed convolution's)
        bt = bias._data.dtype
        if onednn:
            raise RuntimeError(f"Input type ({_legacy_type(xa.dtype)}) and bias type ({_legacy_type(bt)}) should be "
                               f"the same or input should be a MKLDNN tensor and bias is a dense tensor")
        if dim == 3:
            raise RuntimeError(f"expected scalar type {_type_word(xa.dtype)} but found {_type_word(bt)}")
        # the 1-d/2-d kernel adds the bias in place (output.add_(bias)): any dtype that may be added so
        common = result_type_of(xa, bias._data).np
        if not can_cast_np(common, xa.dtype):
            raise RuntimeError(f"result type {_type_word(common)} can't be cast to the desired output type "
                               f"{_type_word(xa.dtype)}")
        bias = bias.to(x.dtype)
    if transposed:
        for i in range(dim):
            op, s, d = output_padding[i], stride[i], dilation[i]
            if op >= s and op >= d:
                _output_padding_error(output_padding, stride, dilation)
        outsp = tuple((sp[i] - 1) * stride[i] - lo[i] - hi[i] + dilation[i] * (k[i] - 1) + output_padding[i] + 1
                      for i in range(dim))
        if any(n < 0 for n in outsp):
            raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, sp))}). Calculated output size "
                               f"per channel: ({' x '.join(map(str, outsp))}). Output size is too small")
        g = _Geom(k, tuple(stride), tuple(lo), tuple(hi), tuple(dilation), groups, outsp, sp, xa.shape[0])
    else:
        outsp = tuple(_out_size(sp[i], k[i], stride[i], lo[i], hi[i], dilation[i]) for i in range(dim))
        g = _Geom(k, tuple(stride), tuple(lo), tuple(hi), tuple(dilation), groups, sp, outsp, xa.shape[0])
    out = Convolution.apply(x, weight, bias, g, transposed)
    return out if batched else out.squeeze(0)


def _check_shape(x, ws, bias, stride, padding, dilation, groups, transposed, output_padding):
    """ATen's check_shape_forward: messages and order as PyTorch's."""
    k = x.ndim
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if len(ws) != k:
        raise RuntimeError(f"Expected {len(ws)}-dimensional input for {len(ws)}-dimensional weight {shape_str(ws)}, "
                           f"but got {k}-dimensional input of size {shape_str(x.shape)} instead")
    if ws[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {shape_str(ws)} instead")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{shape_str(ws)}] instead")
    c = x.shape[1]
    bshape = None if bias is None else tuple(bias.shape)
    if not transposed:
        if c != ws[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {shape_str(ws)}, expected input"
                               f"{shape_str(x.shape)} to have {ws[1] * groups} channels, but got {c} channels instead")
        if bshape is not None and (len(bshape) != 1 or bshape[0] != ws[0]):
            raise RuntimeError(f"Given weight of size {shape_str(ws)}, expected bias to be 1-dimensional with {ws[0]} "
                               f"elements, but got bias of size {shape_str(bshape)} instead")
        padded = [x.shape[2 + i] + 2 * padding[i] for i in range(k - 2)]
        kern = [dilation[i] * (ws[2 + i] - 1) + 1 for i in range(k - 2)]
        if any(p < q for p, q in zip(padded, kern)):
            raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                               f"size: ({' x '.join(map(str, kern))}). Kernel size can't be greater than actual input "
                               f"size")
    else:
        if c != ws[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {shape_str(ws)}, expected input{shape_str(x.shape)}"
                               f" to have {ws[0]} channels, but got {c} channels instead")
        if bshape is not None and (len(bshape) != 1 or bshape[0] != ws[1] * groups):
            raise RuntimeError(f"Given transposed=1, weight of size {shape_str(ws)}, expected bias to be 1-dimensional "
                               f"with {ws[1] * groups} elements, but got bias of size {shape_str(bshape)} instead")


def _bias_type_error(xa, bias):
    raise RuntimeError(f"Input type ({_C_TYPE.get(xa.dtype.name, xa.dtype.name)}) and bias type "
                       f"({_C_TYPE.get(bias._data.dtype.name, bias._data.dtype.name)}) should be the same")


def _output_padding_error(op, s, d):
    names = ["depth", "height", "width"][-len(op):] if len(op) > 1 else ["height", "width"]
    if len(op) == 1:   # 1-d transposed convolutions run as 2-d ones with a height of 1
        op, s, d = [0] + op, [1] + s, [1] + d
    parts = [f"output_padding_{n}: {v}" for n, v in zip(names, op)]
    parts += [f"stride_{n}: {v}" for n, v in zip(names, s)]
    parts += [f"dilation_{n}: {v}" for n, v in zip(names, d)]
    raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(parts))


_warned_same = False


def _warn_same_padding():
    global _warned_same
    if not _warned_same:
        _warned_same = True
        warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy "
                      "of the input be created", UserWarning, stacklevel=user_stacklevel())


# ====================================================================== public convolutions

def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution over (N, C, L) or (C, L): see the module docstring."""
    return _convolution("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution over (N, C, H, W) or (C, H, W): im2col + one matmul."""
    return _convolution("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution over (N, C, D, H, W) or (C, D, H, W)."""
    return _convolution("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of conv1d (its input gradient); weight is (C_in, C_out / groups, k)."""
    return _convolution("conv_transpose1d", 1, input, weight, bias, stride, padding, dilation, groups, True,
                        output_padding)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of conv2d (its input gradient, col2im); weight is (C_in, C_out / groups, kh, kw)."""
    return _convolution("conv_transpose2d", 2, input, weight, bias, stride, padding, dilation, groups, True,
                        output_padding)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of conv3d; weight is (C_in, C_out / groups, kd, kh, kw)."""
    return _convolution("conv_transpose3d", 3, input, weight, bias, stride, padding, dilation, groups, True,
                        output_padding)


# ====================================================================== unfold / fold

class Im2Col(ArrayFunction):
    """out[n, (c, i, j), l] = xpad[n, c, window l + offset (i, j)]  (``unfold``);   dx = col2im(grad)"""
    node_name = "Im2ColBackward0"

    @staticmethod
    def forward(ctx, x, g):
        ctx.g = g
        unbatched = x.ndim == 3
        xb = x[None] if unbatched else x
        n, c = xb.shape[:2]
        cols = namespace(x).ascontiguousarray(_windows(_pad_to(xb, g, 2), g, 2)).reshape(n, c * _prod(g.k), _prod(g.outsp))
        return cols[0] if unbatched else cols

    @staticmethod
    def backward(ctx, grad):
        return Col2Im.apply(grad, ctx.g), None


class Col2Im(ArrayFunction):
    """out = the sum of every block back at its place (``fold``);   dcols = im2col(grad)"""
    node_name = "Col2ImBackward0"

    @staticmethod
    def forward(ctx, cols, g):
        ctx.g = g
        unbatched = cols.ndim == 2
        cb = cols[None] if unbatched else cols
        n = cb.shape[0]
        c = cb.shape[1] // _prod(g.k)
        out = _col2im(cb, g, n, c, cb.dtype, "first")
        return out[0] if unbatched else out

    @staticmethod
    def backward(ctx, grad):
        return Im2Col.apply(grad, ctx.g), None


def _pair_arg(v, fname, name):
    """``_pair`` then im2col's length check."""
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return [int(v)] * 2
    vals = _int_list(v, 2, fname, name)
    if len(vals) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(vals)}")
    return vals


def _im2col_checks(k, d, p, s):
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {k[0]} kernel_width: "
                           f"{k[1]}")
    if s[0] <= 0 or s[1] <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {s[0]} stride_width: {s[1]}")
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {d[0]} dilation_width: "
                           f"{d[1]}")
    if p[0] < 0 or p[1] < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {p[0]} pad_width: {p[1]}")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding blocks of (N, C, H, W) -> (N, C*kh*kw, L) (im2col): each column is one flattened window."""
    _check_tensor(input, "unfold", "input", 1)
    k = _pair_arg(kernel_size, "im2col", "kernel_size")
    d = _pair_arg(dilation, "im2col", "dilation")
    p = _pair_arg(padding, "im2col", "padding")
    s = _pair_arg(stride, "im2col", "stride")
    _im2col_checks(k, d, p, s)
    nd = input.ndim
    if nd < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(nd, 1)}, {max(nd, 1) - 1}], "
                         f"but got {max(nd, 1)})")
    shape = tuple(input.shape)
    if nd not in (3, 4) or any(shape[i] == 0 for i in range(1 if nd == 4 else 0, nd)):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {shape_str(shape)}")
    sp = shape[-2:]
    outsp = tuple(_out_size(sp[i], k[i], s[i], p[i], p[i], d[i]) for i in range(2))
    if outsp[0] < 1 or outsp[1] < 1:
        raise RuntimeError(f"Given input with spatial size ({sp[0]}, {sp[1]}), kernel_size=({k[0]}, {k[1]}), "
                           f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), calculated shape of the array of "
                           f"sliding blocks as ({outsp[0]}, {outsp[1]}), but its components must be at least one.")
    g = _Geom(tuple(k), tuple(s), tuple(p), tuple(p), tuple(d), 1, sp, outsp, 1)
    return Im2Col.apply(input, g)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of unfold (col2im): add each column's block back at its place in (N, C, *output_size)."""
    _check_tensor(input, "fold", "input", 1)
    o = _pair_arg(output_size, "col2im", "output_size")
    k = _pair_arg(kernel_size, "col2im", "kernel_size")
    d = _pair_arg(dilation, "col2im", "dilation")
    p = _pair_arg(padding, "col2im", "padding")
    s = _pair_arg(stride, "col2im", "stride")
    _im2col_checks(k, d, p, s)
    shape = tuple(input.shape)
    nd = len(shape)
    if nd not in (2, 3) or any(shape[i] == 0 for i in range(1 if nd == 3 else 0, nd)):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {shape_str(shape)}")
    ch = shape[-2]
    if ch % (k[0] * k[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={ch} and kernel_size=({k[0]}, {k[1]}).")
    outsp = tuple(_out_size(o[i], k[i], s[i], p[i], p[i], d[i]) for i in range(2))
    args = (f"Given output_size=({o[0]}, {o[1]}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, {d[1]}), "
            f"padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), ")
    if shape[-1] != outsp[0] * outsp[1]:
        raise RuntimeError(f"{args}expected size of input's dimension 2 to match the calculated number of sliding "
                           f"blocks {outsp[0]} * {outsp[1]} = {outsp[0] * outsp[1]}, but got "
                           f"input.size(2)={shape[-1]}.")
    if outsp[0] < 1 or outsp[1] < 1:
        raise RuntimeError(f"{args}calculated shape of the array of sliding blocks as ({outsp[0]}, {outsp[1]}), which "
                           f"is too small (non-positive)")
    g = _Geom(tuple(k), tuple(s), tuple(p), tuple(p), tuple(d), 1, tuple(o), outsp, 1)
    return Col2Im.apply(input, g)
