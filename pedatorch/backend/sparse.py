"""Sparse COO arrays: the values of a ``torch.sparse_coo`` tensor, as coordinates and values.

A sparse COO tensor of shape ``(s_0, ..., s_{k-1}, d_0, ...)`` stores ``nnz`` entries: ``indices``, an int64
array ``(k, nnz)`` whose column j says where entry j is in the k sparse dims, and ``values``, an array
``(nnz, d_0, ...)`` of what is there (a number, or a dense block for the "dense dims" after the sparse
ones). Every other element is zero. The same place may appear twice (the tensor is *uncoalesced*: its
entries add up); ``coalesce`` sorts the places and adds up repeats.

``SparseCOO`` answers what ops read off an array (``shape``, ``dtype``, ``ndim``, ``size``), and refuses the
rest: numpy functions, operators and array attributes raise ``SparseUnsupported``, which an op turns into
PyTorch's NotImplementedError ("Could not run 'aten::exp' with arguments from the 'SparseCPU' backend").
The ops that do take sparse tensors (``pedatorch.sparse``, ``to_dense``, ``mm``) read ``indices`` and
``values`` themselves.
"""
import math

import numpy as np

__all__ = ["SparseCOO", "SparseUnsupported", "no_sparse_kernel", "coalesce", "to_dense", "from_dense"]


class SparseUnsupported(NotImplementedError):
    """An op that has no sparse kernel was given a sparse tensor."""


class SparseCOO:
    __slots__ = ("indices", "values", "shape", "coalesced")

    def __init__(self, indices, values, shape, coalesced=False):
        self.indices, self.values, self.shape = indices, values, tuple(shape)
        # one entry or none is coalesced already, and PyTorch marks it so
        self.coalesced = coalesced or indices.shape[1] < 2

    # ---------------------------------------------------------------- what ops may read
    @property
    def dtype(self):
        return self.values.dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return math.prod(self.shape)

    @property
    def itemsize(self):
        return self.values.itemsize

    @property
    def strides(self):
        return (0,) * len(self.shape)   # (no strided memory: PyTorch's stride() of a sparse tensor is all 0)

    base = None

    @property
    def nnz(self):
        return self.indices.shape[1]

    @property
    def sparse_dim(self):
        return self.indices.shape[0]

    # ---------------------------------------------------------------- what they may not
    def __array__(self, *args, **kwargs):
        raise SparseUnsupported("numpy conversion")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise SparseUnsupported(ufunc.__name__)

    def __array_function__(self, func, types, args, kwargs):
        raise SparseUnsupported(func.__name__)

    def __getattr__(self, name):
        if name.startswith("__"):   # (copy, pickle and hasattr probe these: a plain "no")
            raise AttributeError(name)
        raise SparseUnsupported(name)

    def __repr__(self):
        return f"SparseCOO(shape={self.shape}, nnz={self.nnz}, dtype={self.dtype})"


def no_sparse_kernel(name):
    """PyTorch's error for an op (``aten::exp``) given a sparse tensor it has no kernel for."""
    return NotImplementedError(
        f"Could not run '{name}' with arguments from the 'SparseCPU' backend. This could be because the operator "
        "doesn't exist for this backend, or was omitted during the selective/custom build process (if using "
        "custom build).")


def _refuse(self, *args):
    raise SparseUnsupported("operator")


for _name in ("add sub mul truediv floordiv mod pow matmul and or xor lt le gt ge eq ne neg pos abs invert "
              "getitem setitem len iter bool float int "
              # the reflected ones too: ``2 * sp`` in a dense kernel must refuse, not raise TypeError
              "radd rsub rmul rtruediv rfloordiv rmod rpow rmatmul rand ror rxor").split():
    setattr(SparseCOO, f"__{_name}__", _refuse)
SparseCOO.__hash__ = None


def _xp(arr):
    from . import namespace   # (this module is imported by the backend package itself)
    return namespace(arr)


def coalesce(sp):
    """The same tensor with its places sorted (row-major over the sparse dims) and repeats added up."""
    if sp.coalesced:
        return sp
    xp = _xp(sp.values)
    idx, vals = sp.indices, sp.values
    if sp.nnz == 0:
        return SparseCOO(idx, vals, sp.shape, True)
    dims = sp.shape[:sp.sparse_dim]
    flat = xp.ravel_multi_index(tuple(idx), dims) if dims else xp.zeros(sp.nnz, np.int64)
    order = xp.argsort(flat, kind="stable")
    flat, vals = flat[order], vals[order]
    first = xp.ones(flat.shape, bool)
    first[1:] = flat[1:] != flat[:-1]
    starts = xp.nonzero(first)[0]
    summed = xp.add.reduceat(vals, starts, axis=0) if vals.size else vals[starts]
    places = xp.stack(xp.unravel_index(flat[starts], dims)).astype(np.int64) if dims else idx[:, starts]
    return SparseCOO(places.reshape(len(dims), -1), summed.astype(vals.dtype), sp.shape, True)


def to_dense(sp):
    """A dense array with the entries added up at their places (zero elsewhere)."""
    xp = _xp(sp.values)
    out = xp.zeros(sp.shape, sp.dtype)
    if sp.nnz:
        from . import scatter_add
        scatter_add(out, tuple(sp.indices), sp.values)
    return out


def from_dense(arr, sparse_dim):
    """The nonzero entries of ``arr`` over its first ``sparse_dim`` dims (coalesced: in row-major order); with
    dense dims, a place is an entry when any element of its block is nonzero."""
    xp = _xp(arr)
    if sparse_dim == 0:
        return SparseCOO(xp.zeros((0, 1), np.int64), arr[None], arr.shape, True)
    blocks = arr.reshape(arr.shape[:sparse_dim] + (-1,))
    hit = (blocks != 0).any(-1) if blocks.shape[-1] else xp.zeros(blocks.shape[:-1], bool)
    places = xp.stack(xp.nonzero(hit)).astype(np.int64).reshape(sparse_dim, -1)
    return SparseCOO(places, arr[tuple(places)], arr.shape, True)
