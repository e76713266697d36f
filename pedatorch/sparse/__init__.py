"""Sparse COO tensors (``torch.sparse_coo``) and ``torch.sparse``: the ops PyTorch runs on them.

A sparse tensor is a Tensor whose array is a ``backend.sparse.SparseCOO`` (coordinates ``indices`` and
``values``; see there). Building one: ``torch.sparse_coo_tensor(indices, values, size)``, ``x.to_sparse()``,
or the legacy ``torch.sparse.FloatTensor(indices, values, size)``. Reading it: ``to_dense()``,
``coalesce()``, ``indices()`` / ``values()`` (of a coalesced tensor), ``_nnz()``.

How an op finds its sparse kernel: an ordinary op (``Mm``, ``Mul``, ``SumAll``...) runs its dense forward;
numpy refuses the SparseCOO (``SparseUnsupported``), and ``ArrayFunction.apply`` then looks here, in
``SPARSE_KERNELS``, for the op's sparse version. So ``torch.mm(s, d)``, ``s @ d``, ``s * 2``, ``-s``,
``s + s``, ``d + s``, ``d - s``, ``d.add_(s)`` (an optimizer's step with a sparse gradient), ``s.zero_()``,
``s.t()``, ``s.sum()``, ``s.double()``, ``s.clone()`` work as in PyTorch, at no cost to dense ops, and an op
without a sparse kernel raises PyTorch's NotImplementedError ("Could not run 'aten::exp' with arguments from
the 'SparseCPU' backend"). Gradients flow as PyTorch's do: into the values of
``sparse_coo_tensor``, and to a sparse leaf as a sparse gradient where PyTorch gives one (``to_dense``,
``sparse.mm``, ``sparse.sum``: the leaf's own pattern).
"""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.function import ArrayFunction, SPARSE_KERNELS
from ..autograd.grad_mode import _state
from ..backend import namespace, scatter_add
from ..backend.sparse import SparseCOO, coalesce as _coalesce, to_dense as _to_dense, from_dense, no_sparse_kernel
from ..ops import elementwise as _ew, linalg as _la, reduction as _red, shape as _shape, conversion as _conv, \
    inplace as _inplace
from ..ops._util import register

__all__ = ["mm", "addmm", "sum", "spmm", "FloatTensor", "DoubleTensor", "LongTensor", "sparse_coo_tensor",
           "to_sparse", "SparseCOO"]


def _sp(t):
    """The SparseCOO of a sparse tensor (PyTorch's error for a dense one where a sparse one is needed)."""
    if not isinstance(t, Tensor) or type(t._data) is not SparseCOO:
        raise RuntimeError("expected a sparse COO tensor")
    return t._data


def _is_sparse(t):
    return isinstance(t, Tensor) and type(t._data) is SparseCOO


# ====================================================================== building and reading
class SparseCooTensorWithDimsAndTensors(ArrayFunction):
    """out = the sparse tensor with these indices and values;  dvalues = grad at each entry's place"""
    node_name = "SparseCooTensorWithDimsAndTensorsBackward0"

    @staticmethod
    def forward(ctx, values, indices, shape, coalesced):
        ctx.indices = indices
        return SparseCOO(indices, values, shape, coalesced)

    @staticmethod
    def backward(ctx, grad):
        dense = grad.to_dense() if _is_sparse(grad) else grad
        return dense[tuple(Tensor._make(i) for i in ctx.indices)], None, None, None


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """A sparse COO tensor: ``values[j]`` at place ``indices[:, j]`` (repeats add up), zero elsewhere; ``size``
    by default just big enough for the indices."""
    from ..ops.creation import tensor as _tensor, as_tensor
    idx = indices if isinstance(indices, Tensor) else _tensor(indices, dtype=D.int64)
    vals = values if isinstance(values, Tensor) else as_tensor(values, dtype=dtype)
    if dtype is not None and vals.dtype is not dtype:
        vals = vals.to(dtype)
    if device is not None:
        idx, vals = idx.to(device), vals.to(device)
    if idx.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(idx.shape)}")
    if idx.dtype is not D.int64:   # (PyTorch converts float, int32 or bool indices)
        idx = idx.to(D.int64)
    if idx.shape[1] != (vals.shape[0] if vals.dim() else 1):
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {idx.shape[1]}, nnz "
                           f"from values: {vals.shape[0] if vals.dim() else 1}")
    k = idx.shape[0]
    if size is None:   # the smallest size that holds every index
        top = idx._data.max(axis=1) + 1 if idx.shape[1] else namespace(idx._data).zeros(k, np.int64)
        size = tuple(int(n) for n in top) + tuple(vals.shape[1:])
    size = tuple(int(n) for n in size)
    if len(size) != k + vals.dim() - 1:
        raise RuntimeError(f"number of dimensions must be sparse_dim ({k}) + dense_dim ({vals.dim() - 1}), but got "
                           f"{len(size)}")
    if check_invariants and idx.shape[1]:
        for d in range(k):
            if int(idx._data[d].min()) < 0 or int(idx._data[d].max()) >= size[d]:
                raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {size[d]} but found "
                                   f"index {int(idx._data[d].max())}")
    out = SparseCooTensorWithDimsAndTensors.apply(vals, idx._data, size, bool(is_coalesced))
    return out.requires_grad_() if requires_grad else out


def _legacy(dtype):
    def make(*args, device=None):
        """``torch.sparse.FloatTensor(indices, values, size)`` (or ``(size)``: an empty one), the old spelling."""
        if len(args) >= 2:
            return sparse_coo_tensor(args[0], args[1], args[2] if len(args) > 2 else None, dtype=dtype,
                                     device=device)
        size = tuple(args[0]) if args and not isinstance(args[0], int) else tuple(args)
        from ..ops.creation import zeros
        return sparse_coo_tensor(zeros((len(size), 0), dtype=D.int64), zeros(0, dtype=dtype), size)
    return make


FloatTensor, DoubleTensor, LongTensor = _legacy(D.float32), _legacy(D.float64), _legacy(D.int64)


class ToDense(ArrayFunction):
    """out = the dense tensor;  dx = grad at x's places (a sparse gradient with x's coalesced pattern)"""
    node_name = "ToDenseBackward0"

    @staticmethod
    def forward(ctx, sp):
        ctx.pattern = _coalesce(sp)
        return _to_dense(sp)

    @staticmethod
    def backward(ctx, grad):
        return SparseMask.apply(grad, ctx.pattern)


class SparseMask(ArrayFunction):
    """out = x's values at a pattern's places (a sparse tensor);  dx = grad made dense"""
    node_name = "SparseMaskBackward0"

    @staticmethod
    def forward(ctx, x, pattern):
        return SparseCOO(pattern.indices, x[tuple(pattern.indices)], x.shape, pattern.coalesced)

    @staticmethod
    def backward(ctx, grad):
        return grad.to_dense(), None


def sparse_mask(self, mask):
    """The elements of ``self`` at the places of the sparse ``mask`` (its values are ignored): a sparse tensor
    with mask's indices. Adagrad and SparseAdam read their state at a sparse gradient's places this way."""
    if not _is_sparse(mask):
        raise NotImplementedError("Could not run 'aten::sparse_mask' with arguments from the 'CPU' backend.")
    if self.shape != mask.shape:
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size {list(self.shape)} but "
                           f"mask has size {list(mask.shape)}")
    return SparseMask.apply(to_dense(self), _sp(mask))


def to_dense(self, dtype=None, *, masked_grad=None):
    """The dense tensor (a dense tensor is its own)."""
    if not _is_sparse(self):
        return self if dtype is None else self.to(dtype)
    out = ToDense.apply(self)
    return out if dtype is None else out.to(dtype)


def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """The nonzero entries of a dense tensor as a (coalesced) sparse COO tensor over its first ``sparse_dim``
    dims (all of them by default)."""
    if _is_sparse(self):
        return self
    k = self.dim() if sparse_dim is None else sparse_dim
    if not 0 <= k <= self.dim():
        raise RuntimeError(f"sparse_dim argument must be in [0, {self.dim()}] range, but got {k}")
    return SparseMask.apply(self, from_dense(self._data, k)) if self.requires_grad else Tensor._make(
        from_dense(self._data, k))


class Coalesce(ArrayFunction):
    """out = x with its places sorted and repeats added up;  dx = grad"""
    node_name = "CoalesceBackward0"

    @staticmethod
    def forward(ctx, sp):
        return _coalesce(sp)

    @staticmethod
    def backward(ctx, grad):
        return grad


def coalesce(self):
    sp = _sp(self)
    return self if sp.coalesced else Coalesce.apply(self)


class Values(ArrayFunction):
    """out = the values of a coalesced sparse tensor;  dx = a sparse tensor of grad at x's places"""
    node_name = "ValuesBackward0"

    @staticmethod
    def forward(ctx, sp):
        ctx.sp = sp
        return sp.values

    @staticmethod
    def backward(ctx, grad):
        sp = ctx.sp
        return SparseCooTensorWithDimsAndTensors.apply(grad, sp.indices, sp.shape, sp.coalesced)


def _need_coalesced(self, what):
    if not _sp(self).coalesced:
        raise RuntimeError(f"Cannot get {what} on an uncoalesced tensor, please call .coalesce() first")


def values(self):
    _need_coalesced(self, "values")
    return Values.apply(self)


def indices(self):
    _need_coalesced(self, "indices")
    return Tensor._make(_sp(self).indices)


def _values(self):
    return Tensor._make(_sp(self).values)


def _indices(self):
    return Tensor._make(_sp(self).indices)


# ====================================================================== products
class SparseAddmm(ArrayFunction):
    """out = beta * bias + alpha * (S @ D), S sparse;  dD = alpha * S^T @ grad,  dS = alpha * (grad @ D^T) at S's
    places,  dbias = beta * grad"""
    node_name = "SparseAddmmBackward0"

    @staticmethod
    def forward(ctx, bias, sp, dense, beta, alpha, masked=True):
        ctx.save_for_backward(sp, dense)
        ctx.beta, ctx.alpha, ctx.pattern, ctx.masked = beta, alpha, _coalesce(sp), masked
        out = _sparse_times_dense(sp, dense)
        if alpha != 1:
            out = out * alpha
        if bias is not None:
            out = out + (bias if beta == 1 else bias * beta)
        return out.astype(dense.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        s, d = ctx.saved_tensors
        a = ctx.alpha
        g_bias = (grad if ctx.beta == 1 else grad * ctx.beta) if ctx.needs_input_grad[0] else None
        g_s = None
        if ctx.needs_input_grad[1]:
            g_s = grad @ d.t().conj() * a
            if ctx.masked:   # (sparse.mm: at S's places only; torch.mm gives S the whole dense gradient)
                g_s = SparseMask.apply(g_s, ctx.pattern)
        g_d = mm(s.t(), grad) * a if ctx.needs_input_grad[2] else None
        return g_bias, g_s, g_d, None, None, None


class SparseMm(SparseAddmm):
    """``torch.mm(S, D)`` / ``S @ D`` with S sparse: PyTorch names the node after mm, and S's gradient is dense
    (applied with ``masked=False``)."""
    node_name = "MmBackward0"


class SparseMv(SparseMm):
    node_name = "MvBackward0"


def _sparse_times_dense(sp, dense):
    """S @ D for a 2-D sparse S: each entry (i, j, v) adds v * D[j] to row i."""
    if sp.ndim != 2 or sp.sparse_dim != 2:
        raise RuntimeError(f"mm: expected a 2-D sparse tensor with 2 sparse dims, got {sp.ndim}-D")
    if sp.shape[1] != dense.shape[0]:   # (PyTorch's sparse mm is an addmm, and says so)
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {sp.shape[1]}, got {dense.shape[0]}")
    xp = namespace(dense)
    rows, cols = sp.indices
    out = xp.zeros((sp.shape[0],) + dense.shape[1:], np.result_type(sp.dtype, dense.dtype))
    if sp.nnz:
        vals = sp.values.reshape((-1,) + (1,) * (dense.ndim - 1))
        scatter_add(out, rows, vals * dense[cols])
    return out


def mm(mat1, mat2):
    """``torch.sparse.mm``: sparse @ dense (a dense result; gradients for both, the sparse one at its places)."""
    if _is_sparse(mat2) and not _is_sparse(mat1):
        return mm(mat2.t(), mat1.t()).t()   # D @ S = (S^T @ D^T)^T
    _need_matrix(mat2)
    return SparseAddmm.apply(None, mat1, mat2, 1, 1)


def _need_matrix(dense):
    if dense.dim() == 1:   # (PyTorch's kernel reads dense.size(1) first)
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")


spmm = mm


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """``torch.sparse.addmm``: beta * mat + alpha * (mat1 @ mat2), mat1 sparse."""
    _need_matrix(mat2)
    mat.expand(mat1.shape[0], mat2.shape[1])   # (PyTorch's error for a mat that does not fit the product)
    return SparseAddmm.apply(mat, mat1, mat2, beta, alpha)


# ====================================================================== sums
class SparseSumAll(ArrayFunction):
    """out = the sum of the values (a dense 0-dim tensor);  dx = grad at every one of x's places"""
    node_name = "SumBackward0"

    @staticmethod
    def forward(ctx, sp):
        ctx.pattern = _coalesce(sp)
        return _red._accumulate("sum", sp.values, None)

    @staticmethod
    def backward(ctx, grad):
        return SparseMask.apply(grad.expand(ctx.pattern.shape), ctx.pattern)


def sum(input, dim=None, dtype=None):
    """``torch.sparse.sum``: over all dims (a dense 0-dim tensor), or over ``dim`` (sparse, or dense when no
    sparse dim is left)."""
    if dtype is not None:
        input = input.to(dtype)
    if dim is None:
        return SparseSumAll.apply(input)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    dense = input.to_dense().sum(dims)
    k = _sp(input).sparse_dim - len([d for d in dims if d % input.dim() < _sp(input).sparse_dim])
    return dense if k == 0 else to_sparse(dense, k)


# ====================================================================== elementwise, shape, copies
class SparseScale(ArrayFunction):
    """out = x with its values times a number (``divide``: divided by it);  dx = grad times (divided by) it"""
    node_name = "MulBackward0"

    @staticmethod
    def forward(ctx, sp, c, divide=False):
        ctx.c, ctx.divide = c, divide
        return SparseCOO(sp.indices, sp.values / c if divide else sp.values * c, sp.shape, sp.coalesced)

    @staticmethod
    def backward(ctx, grad):
        return (grad / ctx.c if ctx.divide else grad * ctx.c), None, None


class SparseNeg(SparseScale):
    node_name = "NegBackward0"


class SparseDiv(SparseScale):
    node_name = "DivBackward0"


def _same_size(a, b, kind):
    if a.shape != b.shape:   # (no broadcasting between a sparse operand and another)
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size {list(a.shape)} "
                           f"while other has size {list(b.shape)} (FYI: {kind} addition does not currently support "
                           f"broadcasting)")


class SparseAdd(ArrayFunction):
    """out = a + alpha * b, both sparse: their entries merged;  da = grad,  db = alpha * grad"""
    node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha):
        _same_size(a, b, "op2-sparse")
        ctx.alpha = alpha
        return _merge(a, b, alpha)

    @staticmethod
    def backward(ctx, grad):
        return grad, (grad if ctx.alpha == 1 else grad * ctx.alpha), None


class SparseSub(SparseAdd):
    """out = a - alpha * b, both sparse (applied as a + (-alpha) * b)"""
    node_name = "SubBackward0"


class DenseAddSparse(SparseAdd):
    """out = dense a + alpha * sparse b, a dense tensor (b's entries added in at their places); the gradients as
    SparseAdd's (dense for b: PyTorch hands the sparse operand the whole gradient here)"""
    node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, sp, alpha):
        _same_size(a, sp, "dense-sparse")
        ctx.alpha = alpha
        out = a.astype(np.result_type(a.dtype, sp.dtype))   # a copy: add_ writes it back into a
        if sp.nnz:
            vals = sp.values * alpha if alpha != 1 else sp.values
            scatter_add(out, tuple(sp.indices), vals.astype(out.dtype, copy=False))
        return out


class DenseSubSparse(DenseAddSparse):
    """out = dense a - alpha * sparse b (applied as a + (-alpha) * b)"""
    node_name = "SubBackward0"


def _merge(a, b, alpha):
    """a + alpha * b as ATen's CPU kernel adds two sparse tensors: one walk through both entry lists, taking
    the entry at the smaller place next and adding the two where the places are equal. For coalesced inputs
    that is the coalesced sum; for others it is what the walk meets (``s + s`` doubles each entry)."""
    xp = namespace(a.values)
    dims = a.shape[:a.sparse_dim]
    la = xp.ravel_multi_index(tuple(a.indices), dims).tolist() if a.nnz else []
    lb = xp.ravel_multi_index(tuple(b.indices), dims).tolist() if b.nnz else []
    from_a, from_b = [], []   # for each entry of the result: its entry in a, in b (-1: none)
    i = j = 0
    while i < len(la) or j < len(lb):
        if j == len(lb) or i < len(la) and la[i] < lb[j]:
            from_a.append(i), from_b.append(-1)
            i += 1
        elif i == len(la) or lb[j] < la[i]:
            from_a.append(-1), from_b.append(j)
            j += 1
        else:
            from_a.append(i), from_b.append(j)
            i, j = i + 1, j + 1
    from_a, from_b = xp.asarray(from_a, dtype=np.int64), xp.asarray(from_b, dtype=np.int64)
    in_a, in_b = from_a >= 0, from_b >= 0
    indices = xp.empty((a.sparse_dim, len(from_a)), np.int64)   # (either side may have no entries at all)
    indices[:, in_a] = a.indices[:, from_a[in_a]]
    indices[:, ~in_a] = b.indices[:, from_b[~in_a]]
    dtype = np.result_type(a.dtype, b.dtype)
    values = xp.zeros((len(from_a),) + a.values.shape[1:], dtype)
    values[in_a] += a.values[from_a[in_a]]
    values[in_b] += b.values[from_b[in_b]] * alpha if alpha != 1 else b.values[from_b[in_b]]
    return SparseCOO(indices, values, a.shape, a.coalesced and b.coalesced)


class SparseTranspose(ArrayFunction):
    """out = x with two sparse dims swapped;  dx = grad with them swapped back"""
    node_name = "TransposeBackward0"

    @staticmethod
    def forward(ctx, sp, d0, d1):
        ctx.dims = (d0, d1)
        if max(d0, d1) >= sp.sparse_dim:
            raise RuntimeError("transpose: only sparse dims of a sparse tensor can be swapped here")
        order = list(range(sp.sparse_dim))
        order[d0], order[d1] = d1, d0
        shape = list(sp.shape)
        shape[d0], shape[d1] = shape[d1], shape[d0]
        return SparseCOO(sp.indices[order], sp.values, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(*ctx.dims), None, None


class SparseT(SparseTranspose):
    node_name = "TBackward0"

    @staticmethod
    def backward(ctx, grad):
        return grad.t(), None, None


class SparseToCopy(ArrayFunction):
    """out = x with its values in another dtype;  dx = grad in x's dtype"""
    node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, sp, np_dtype):
        ctx.dtype = D.from_numpy_dtype(sp.dtype)
        return SparseCOO(sp.indices, sp.values.astype(np_dtype), sp.shape, sp.coalesced)

    @staticmethod
    def backward(ctx, grad):
        return grad.to(ctx.dtype), None


class SparseClone(ArrayFunction):
    node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, sp):
        return SparseCOO(sp.indices.copy(), sp.values.copy(), sp.shape, sp.coalesced)

    @staticmethod
    def backward(ctx, grad):
        return grad


def _number(c):
    """A Python number or a 0-dim tensor's value (what scales a sparse tensor), else None."""
    if isinstance(c, Tensor):
        return c.item() if c.dim() == 0 and not _is_sparse(c) else None
    return c if isinstance(c, (int, float, complex)) else None


# ---------------------------------------------------------------- the sparse kernels of ordinary ops
class SparseMulDense(ArrayFunction):
    """out = sparse x times dense y, at x's places (x's entries, each times y there);  dx = grad * y,
    dy = grad * x, both made dense"""
    node_name = "MulBackward0"

    @staticmethod
    def forward(ctx, sp, dense):
        ctx.save_for_backward(sp, dense)
        xp = namespace(dense)
        at = xp.broadcast_to(dense, sp.shape)[tuple(sp.indices)]
        return SparseCOO(sp.indices, sp.values * at, sp.shape, sp.coalesced)

    @staticmethod
    def backward(ctx, grad):
        s, d = ctx.saved_tensors
        g_s = grad * d if ctx.needs_input_grad[0] else None
        g_d = to_dense(grad) * s.to_dense() if ctx.needs_input_grad[1] else None
        return g_s, g_d


def _mul(a, b):
    if not _is_sparse(a):
        a, b = b, a
    c = _number(b)
    if c is not None:
        return SparseScale.apply(a, c)
    if _is_sparse(b):
        raise no_sparse_kernel("aten::mul")
    return SparseMulDense.apply(a, b)


def _div(a, b):
    c = _number(b)
    if not _is_sparse(a) or c is None:
        raise no_sparse_kernel("aten::div")
    return SparseDiv.apply(a, c, True)


def _add(a, b, alpha=1, sub=False):
    if _is_sparse(a) and _is_sparse(b):
        return (SparseSub.apply(a, b, -alpha) if sub else SparseAdd.apply(a, b, alpha))
    if _is_sparse(a) or not _is_sparse(b):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    return DenseSubSparse.apply(a, b, -alpha) if sub else DenseAddSparse.apply(a, b, alpha)   # a dense sum


def _in_place(self, result):
    """An in-place op on a sparse tensor: it takes the entries of the out-of-place result (a sparse tensor's
    entries live in its own arrays, which another tensor cannot be viewing). Not recorded: PyTorch's uses are
    an optimizer's buffers, under no_grad."""
    if self.requires_grad and _state.enabled:
        raise RuntimeError("in-place operations on a sparse tensor that requires grad are not supported here")
    self._data = result._data
    self._bump_version()
    return self


def _add_(a, b, alpha=1, sub=False):
    """``dense.add_(sparse)``: an optimizer's step ``p.add_(grad, alpha=-lr)`` with a sparse gradient; on a
    sparse self (a momentum buffer), the sparse sum."""
    if _is_sparse(a):
        if not _is_sparse(b):
            raise no_sparse_kernel("aten::sub_" if sub else "aten::add_")
        return _in_place(a, _add(a, b, alpha, sub))
    if not np.can_cast(np.result_type(a._data.dtype, _sp(b).dtype), a._data.dtype, "same_kind"):
        raise RuntimeError(f"Can't convert result type {D._type_word(_sp(b).dtype)} to output "
                           f"{D._type_word(a._data.dtype)} in add operation")
    cls = DenseSubSparse if sub else DenseAddSparse
    return _ew._ip(cls).apply(a, b, -alpha if sub else alpha)


def _zero_(t):
    """``s.zero_()`` (``optimizer.zero_grad(set_to_none=False)`` on a sparse gradient): PyTorch leaves no entries
    at all rather than zero values."""
    sp = _sp(t)
    xp = namespace(sp.values)
    t._data = SparseCOO(xp.zeros((sp.sparse_dim, 0), np.int64), xp.zeros((0,) + sp.values.shape[1:], sp.dtype),
                        sp.shape, True)
    t._bump_version()
    return t


def _mm(a, b):
    if _is_sparse(b) and not _is_sparse(a):
        return mm(a, b)
    _need_matrix(b)
    return SparseMm.apply(None, a, b, 1, 1, False)


def _mv(a, x):
    if a.shape[-1] != x.shape[-1]:
        raise RuntimeError("mv: expected self.size(-1) == vec.size(-1)")
    return SparseMv.apply(None, a, x.unsqueeze(1), 1, 1, False).squeeze(1)


SPARSE_KERNELS.update({
    _ew.Mul: _mul, _ew.Div: _div, _ew.Add: _add, _ew.Neg: lambda a: SparseNeg.apply(a, -1),
    _ew.Sub: lambda a, b, alpha=1: _add(a, b, alpha, sub=True),
    _ew._ip(_ew.Add): _add_, _ew._ip(_ew.Sub): lambda a, b, alpha=1: _add_(a, b, alpha, sub=True),
    _ew._ip(_ew.Mul): lambda a, b: _in_place(a, _mul(a, b)), _ew._ip(_ew.Div): lambda a, b: _in_place(a, _div(a, b)),
    _inplace.Zero: _zero_,
    _la.Mm: _mm, _la.Mv: _mv, _red.SumAll: lambda x, *rest: SparseSumAll.apply(x),
    _shape.Transpose: lambda x, d0, d1: SparseTranspose.apply(x, d0, d1), _shape.T: lambda x: SparseT.apply(x, 0, 1),
    _shape.Clone: lambda x, *fmt: SparseClone.apply(x),
    _conv.ToCopy: lambda x, dev, np_dtype, *fmt: SparseToCopy.apply(x, np_dtype if np_dtype is not None
                                                                   else x._data.dtype),
})


def _is_coalesced(self):
    return _sp(self).coalesced


register({
    "to_dense": to_dense, "to_sparse": to_sparse, "to_sparse_coo": lambda self: to_sparse(self),
    "coalesce": coalesce, "is_coalesced": _is_coalesced, "sparse_mask": sparse_mask, "indices": indices,
    "values": values,
    "_indices": _indices, "_values": _values, "_nnz": lambda self: _sp(self).nnz,
    "sparse_dim": lambda self: _sp(self).sparse_dim if _is_sparse(self) else 0,
    "dense_dim": lambda self: self.dim() - _sp(self).sparse_dim if _is_sparse(self) else self.dim(),
})
