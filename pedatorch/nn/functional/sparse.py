"""Lookup tables: ``embedding``, ``embedding_bag``, ``one_hot``.

``embedding(input, weight)`` is ``weight[input]``: a row gather.  Its backward adds each gradient row into the
row it was read from (rows read several times get the sum; the ``padding_idx`` row gets nothing), done by
sorting the indices and summing runs (``xp.add.reduceat``) rather than element by element.
With ``sparse=True`` the gradient is instead a sparse COO tensor, as PyTorch gives it: one entry per index
looked up, in lookup order, holding that position's gradient row (repeats not added up: uncoalesced). An
optimizer then touches only those rows (``optim.SparseAdam``, ``SGD``, ``Adagrad``).
"""
import numpy as np

from ..._warnings import user_stacklevel
from ..._layout import in_format
from ..._tensor import Tensor
from ...autograd.function import ArrayFunction
from ...backend import namespace, reduceat, allocation_error
from ...autograd.grad_mode import no_grad, is_grad_enabled
from ...ops.creation import zeros, arange, _size_arg
from ...ops._util import needed

__all__ = ["embedding", "embedding_bag", "one_hot"]

_INDEX_WORDS = {"float32": "Float", "float64": "Double", "float16": "Half", "int16": "Short", "int8": "Char",
                "uint8": "Byte", "bool": "Bool", "bfloat16": "BFloat16", "complex64": "ComplexFloat",
                "complex128": "ComplexDouble"}


def _class_repr(obj):
    """``repr(type(obj))`` as PyTorch prints it: a tensor's class is ``torch.Tensor`` there."""
    if type(obj) is Tensor:
        return "<class 'torch.Tensor'>"
    return repr(type(obj)).replace("'pedatorch.", "'torch.")


def _check_indices(t, fn):
    if t._data.dtype not in (np.int64, np.int32):
        word = _INDEX_WORDS.get(t._data.dtype.name, t._data.dtype.name)
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{word}Tensor instead (while checking arguments for {fn})")


def _row_sums(rows, idx, num_rows):
    """out[r] = sum of rows[i] with idx[i] == r (zeros elsewhere): a stable sort, then run sums."""
    xp = namespace(rows, idx)
    out = xp.zeros((num_rows,) + rows.shape[1:], dtype=rows.dtype)
    if idx.size == 0:
        return out
    order = xp.argsort(idx, kind="stable")
    sidx = idx[order]
    starts = xp.flatnonzero(xp.concatenate([xp.ones(1, dtype=bool), sidx[1:] != sidx[:-1]]))
    out[sidx[starts]] = xp.add.reduceat(rows[order], starts, axis=0)
    return out


class EmbeddingDenseBackward(ArrayFunction):
    """grad_weight[r] = sum of grad rows whose index is r (scaled by 1/count with scale_grad_by_freq; nothing
    for padding_idx);  its own backward gathers again: d(grad)[i] = gg[idx[i]] * scale[i]"""
    node_name = "EmbeddingDenseBackwardBackward0"

    @staticmethod
    def forward(ctx, g, idx, num_weights, padding_idx, scale_grad_by_freq):
        D = g.shape[-1]
        xp = namespace(g, idx)
        flat = idx.reshape(-1).astype(np.int64, copy=False)
        rows = g.reshape(flat.size, D)  # (not -1: numpy cannot infer it when D is 0)
        scale = None
        if scale_grad_by_freq:
            counts = xp.bincount(flat, minlength=num_weights)
            scale = (1.0 / counts[flat]).astype(g.dtype)
        if padding_idx >= 0:
            keep = (flat != padding_idx).astype(g.dtype)
            scale = keep if scale is None else scale * keep
        ctx.flat, ctx.g_shape, ctx.scale = flat, g.shape, scale
        return _row_sums(rows * scale[:, None] if scale is not None else rows, flat, num_weights)

    @staticmethod
    def backward(ctx, gg):
        out = gg.index_select(0, Tensor._make(ctx.flat))
        if ctx.scale is not None:
            out = out * Tensor._make(ctx.scale[:, None])
        return out.reshape(ctx.g_shape), None, None, None, None


def _embedding_sparse_backward(grad, idx, num_weights, padding_idx, scale_grad_by_freq):
    """The weight's gradient as a sparse COO tensor (``sparse=True``): entry k sits at row ``idx[k]`` and holds
    the gradient row of lookup k; lookups of ``padding_idx`` are left out. Built from differentiable ops, so
    that it has a gradient itself (with respect to ``grad``), as PyTorch's has."""
    from ...sparse import sparse_coo_tensor   # (pedatorch.sparse is imported after nn.functional)
    if scale_grad_by_freq:
        raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")
    dim = grad.shape[-1]
    flat = idx.reshape(-1)
    rows = grad.reshape(flat.shape[0], dim)
    if padding_idx >= 0:
        keep = flat != padding_idx
        flat, rows = flat[keep], rows[keep]
    if grad.numel() == 0:   # (no gradient at all: PyTorch's empty gradient has no entries)
        flat, rows = flat[:0], rows[:0]
    return sparse_coo_tensor(flat.long().unsqueeze(0), rows, (num_weights, dim))


class Embedding(ArrayFunction):
    """out = weight[indices];  dweight = rows of grad added into the rows they came from (sparse=True: the
    rows of grad, each at the row it came from, as a sparse tensor)"""
    node_name = "EmbeddingBackward0"

    @staticmethod
    def forward(ctx, w, idx, padding_idx, scale_grad_by_freq, sparse=False):
        ctx.save_for_backward(idx)
        ctx.num_weights, ctx.padding_idx, ctx.sgbf, ctx.sparse = w.shape[0], padding_idx, scale_grad_by_freq, sparse
        return namespace(w).take(w, idx, axis=0)

    @staticmethod
    def backward(ctx, grad):
        idx, = ctx.saved_tensors
        if ctx.sparse:
            gw = _embedding_sparse_backward(grad, idx, ctx.num_weights, ctx.padding_idx, ctx.sgbf)
        else:
            gw = EmbeddingDenseBackward.apply(grad, idx._data, ctx.num_weights, ctx.padding_idx, ctx.sgbf)
        return gw, None, None, None, None


def _renorm_(weight, input, max_norm, norm_type):
    """embedding_renorm_: rows of ``weight`` used by ``input`` whose p-norm exceeds max_norm are scaled in
    place by max_norm / (norm + 1e-7) (under no_grad, as PyTorch does)."""
    w = weight._data
    xp = namespace(w)
    rows = xp.unique(input._data.reshape(-1))
    if rows.size == 0:
        return
    sel = w[rows]
    if norm_type == float("inf"):
        norms = xp.max(xp.abs(sel), axis=1)
    elif norm_type == 0:
        norms = xp.count_nonzero(sel, axis=1).astype(np.float64)
    else:
        norms = xp.sum(xp.abs(sel.astype(np.float64)) ** norm_type, axis=1) ** (1.0 / norm_type)
    norms = norms.astype(np.float64)
    big = norms > max_norm
    if big.any():   # (a device sync: max_norm is rare)
        scale = (max_norm / (norms[big] + 1e-7)).astype(w.dtype)
        w[rows[big]] = sel[big] * scale[:, None]
        weight._bump_version()


def _check_index_range(input, n):
    d = input._data
    if d.size and n == 0:   # (PyTorch's index_select refuses an empty table before it looks at the indices)
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    if d.size and (d.min() < 0 or d.max() >= n):
        raise IndexError("index out of range in self")


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """Row lookup ``weight[input]``; no gradient flows into the ``padding_idx`` row."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None and weight.dim() != 2:   # (the renorm runs first, and checks first)
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {weight.dim()}-dimensional tensor for argument "
                           f"#1 'self' (while checking arguments for embedding_renorm_)")
    if weight.dim() == 0 and weight.requires_grad and is_grad_enabled():
        # (PyTorch's autograd wrapper reads weight.size(0), to save it, before the kernel checks the dims)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(input, "embedding")
    _check_index_range(input, weight.shape[0])
    if max_norm is not None:
        input = input.contiguous()
        with no_grad():
            _renorm_(weight, input, max_norm, norm_type)
    return Embedding.apply(weight, input, int(padding_idx), bool(scale_grad_by_freq), bool(sparse))


# ====================================================================== embedding_bag

class EmbeddingBag(ArrayFunction):
    """Bag b holds positions offsets[b] <= i < offsets[b + 1] (indices equal to padding_idx are skipped):
    sum: out[b] = sum_i psw_i * weight[idx_i];  mean: the sum over the bag's count;  max: per-column max.
    dweight: grad rows added back into the rows used (max: only the row that gave each column's max; with
    sparse=True, a sparse tensor with one entry per position used);  dpsw_i = <grad[bag(i)], weight[idx_i]>"""
    node_name = "EmbeddingBagBackward0"

    @staticmethod
    def forward(ctx, w, idx, starts, ends, mode, psw, padding_idx, sgbf, sparse=False):
        B, D = starts.shape[0], w.shape[1]
        xp = namespace(w)
        lengths = xp.maximum(ends - starts, 0)
        first = xp.cumsum(lengths) - lengths            # where each bag starts in the list of positions
        total = int(lengths.sum())   # (a device sync: the number of positions sizes the arrays below)
        pos = (xp.arange(total) + xp.repeat(starts - first, lengths)).astype(np.int64)
        bag = xp.repeat(xp.arange(B), lengths)
        if padding_idx >= 0:
            keep = idx[pos] != padding_idx
            pos, bag = pos[keep], bag[keep]
        iv = idx[pos].astype(np.int64)
        rows = xp.take(w, iv, axis=0)
        out = xp.zeros((B, D), dtype=w.dtype)
        counts = xp.bincount(bag, minlength=B)
        ctx.mode, ctx.pos, ctx.bag, ctx.iv, ctx.num_weights, ctx.sgbf = mode, pos, bag, iv, w.shape[0], sgbf
        ctx.sparse = sparse
        ctx.n_input = idx.shape[0]
        if bag.size:
            starts_nz = xp.flatnonzero(xp.concatenate([xp.ones(1, dtype=bool), bag[1:] != bag[:-1]]))
            ub = bag[starts_nz]
            if mode == 2:
                mx = reduceat("maximum", rows, starts_nz)
                out[ub] = mx
                hit = rows == out[bag]
                where = xp.where(hit, xp.arange(bag.size)[:, None], bag.size)
                first = reduceat("minimum", where, starts_nz)
                arg = xp.zeros((B, D), np.int64)
                arg[ub] = iv[xp.minimum(first, bag.size - 1)]
                ctx.arg, ctx.nonempty = arg, (counts > 0)
            else:
                if psw is not None:
                    rows = rows * psw[pos][:, None]
                out[ub] = xp.add.reduceat(rows, starts_nz, axis=0)
                if mode == 1:
                    out[ub] /= counts[ub][:, None].astype(w.dtype)
        elif mode == 2:
            ctx.arg, ctx.nonempty = xp.zeros((B, D), np.int64), counts > 0
        ctx.counts = counts
        # as PyTorch saves them: the weight for psw's gradient only; the indices and psw (an optional
        # tensor: PyTorch never skips saving one) always
        ctx.save_for_backward(needed(ctx, 5, w), psw, idx)
        return out

    @staticmethod
    def backward(ctx, grad):
        w, psw, _ = ctx.saved_tensors
        need = ctx.needs_input_grad
        gw = gpsw = None
        V = ctx.num_weights
        if ctx.mode == 2:
            if need[0]:
                src = grad * Tensor._make(ctx.nonempty[:, None].astype(grad._data.dtype))
                gw = zeros(V, grad.shape[1], dtype=grad.dtype, device=grad.device).scatter_add(0, Tensor._make(ctx.arg), src)
            return gw, None, None, None, None, None, None, None, None
        bag_t = Tensor._make(ctx.bag)
        g_rows = grad.index_select(0, bag_t)
        if need[0]:
            r = g_rows
            if ctx.mode == 1:
                r = r * Tensor._make((1.0 / namespace(ctx.counts).maximum(ctx.counts[ctx.bag], 1))[:, None].astype(grad._data.dtype))
            if psw is not None:
                r = r * psw.index_select(0, Tensor._make(ctx.pos)).unsqueeze(1)
            if ctx.sparse:   # (the padding positions were dropped in the forward already)
                gw = _embedding_sparse_backward(r, Tensor._make(ctx.iv), V, -1, ctx.sgbf)
            else:
                gw = EmbeddingDenseBackward.apply(r, ctx.iv, V, -1, ctx.sgbf)
        if need[5]:   # (psw requires grad: it was given)
            vals = (g_rows * w.index_select(0, Tensor._make(ctx.iv))).sum(1)
            gpsw = zeros(ctx.n_input, dtype=vals.dtype, device=vals.device).index_add(0, Tensor._make(ctx.pos), vals)
        return gw, None, None, None, None, gpsw, None, None, None


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embeddings (bags given by ``offsets``, or the rows of a 2-D input)."""
    if weight._data.dtype == np.int64 and input.is_floating_point():
        import warnings
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=user_stacklevel())
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if not weight.dim() == 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {_class_repr(offsets)}")
        offsets = arange(0, input.numel(), input.size(1), dtype=input.dtype, device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode == "sum":
        mode_enum = 0
    elif mode == "mean":
        mode_enum = 1
    elif mode == "max":
        mode_enum = 2
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    else:
        raise ValueError("mode has to be one of sum, mean or max")
    _check_indices(input, "embedding_bag")
    if max_norm is not None:
        with no_grad():
            _renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    V = weight.shape[0]
    if padding_idx is None:
        padding_idx = -1
    else:
        if not -V <= padding_idx < V:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{V} through {V - 1}, but got "
                               f"{padding_idx}")
        if padding_idx < 0:
            padding_idx += V
    off = offsets._data.astype(np.int64)
    n = input.shape[0]
    if off.size:
        if off[0] != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                               f"position 0. However, got {int(off[0])}\n[ torch."
                               f"{'Int' if offsets._data.dtype == np.int32 else 'Long'}Tensor{{}} ]")
        if off[-1] > n:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of "
                               f"{int(off[-1])}")
    flat = input._data.reshape(-1)
    bad = (flat < 0) | (flat >= V)
    if bad.any():   # (embedding_bag's own check, with its own words: the first bad index)
        i = int(bad.argmax())
        raise RuntimeError(f"Index {i} of input takes value {int(flat[i])} which is not in the valid range [0, {V})")
    if include_last_offset:
        starts, ends = off[:-1], off[1:]
    else:
        xp = namespace(off)
        starts, ends = off, xp.concatenate([off[1:], xp.full(1, n, dtype=np.int64)])
    return EmbeddingBag.apply(weight, input, starts, ends, mode_enum, per_sample_weights, int(padding_idx),
                              bool(scale_grad_by_freq), bool(sparse))


# ====================================================================== one_hot

def one_hot(tensor, num_classes=-1):
    """int64 tensor of shape (*, num_classes) with a 1 at each value's position."""
    d = tensor._data
    xp = namespace(d)
    if d.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if d.size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return Tensor._make(xp.zeros(d.shape + (num_classes,), np.int64))
    if d.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(d.max()) + 1
        if num_classes > 2 ** 63 - 1:  # PyTorch's int64 max + 1 wraps around to a negative size
            raise RuntimeError("zeros: Dimension size must be non-negative.")
    elif d.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    _size_arg(d.shape + (num_classes,))   # PyTorch's error for a result too large to address
    try:   # zeros, then a 1 in each row (PyTorch's way: no (n, num_classes) comparison in between)
        out = xp.zeros((d.size, num_classes), np.int64)
    except MemoryError as e:
        raise allocation_error(e).with_traceback(None) from None
    out[xp.arange(d.size), d.reshape(-1)] = 1
    return Tensor._make(out.reshape(d.shape + (num_classes,)))
