"""In-place ops on views: the base's ``CopySlices`` node and the views' new histories (autograd's part of
an in-place op, as PyTorch's ``CopySlices`` in ``torch/csrc/autograd/functions/tensor.cpp``).

After ``y = x[1:]; y.mul_(w)`` the values of ``x`` changed too, so ``x`` needs a new ``grad_fn``:

  rebase_view_history   after an in-place op on a view: the base gets a ``CopySlices`` node (the gradient
                        of the view's region goes through the in-place op's backward, the rest through
                        unchanged) and the view a node that reads its region out of the base
  refresh_view_history  the other views of that base are now stale; each gets a fresh node reading from
                        the base when it is next used (``Tensor.grad_fn``, ``function._edge_to``)
  check_view_rebase     PyTorch's errors for views that may not change history (made by ``split``/``unbind``,
                        under no_grad, in inference mode)

A view's elements are found in its base by their storage positions (``_view_positions``); three small ops
gather and scatter gradients at those positions.  ``ops/shape.py``'s ``as_strided`` uses them too.
"""
import math

import numpy as np

from .._tensor import Tensor, DEFAULT, NO_GRAD_MODE, INFERENCE_MODE, MULTI_OUTPUT_NODE
from ..backend import CPU_ARRAY, CPU_BACKEND, address, namespace, overlaps_itself, scatter_add, storage_root
from .engine import zeros_like
from .function import INTERNAL_OVERLAP, ArrayFunction, _edge_to, _link_inputs
from .graph import Node, _op_name


# ---------------------------------------------------------------------- positions in the storage

# numpy, for index tables computed on the host from shapes and strides alone (the positions of a view's
# elements in its storage); they go to the data's device with ``xp.asarray`` where they are used
_host = CPU_BACKEND.xp


def _on(like, host_arr):
    """A host index table moved to the device of array ``like`` (the same array on the CPU)."""
    return host_arr if type(like) is CPU_ARRAY else namespace(like).asarray(host_arr)


def _element_positions(shape, strides, offset):
    """Storage index of every element of a strided view (vectorised index arithmetic, on the host)."""
    pos = _host.full(shape, offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(shape, strides)):
        idx = _host.arange(n, dtype=np.int64) * s
        pos = pos + idx.reshape((n,) + (1,) * (len(shape) - d - 1))
    return pos


def _storage_offset(x):
    """Where array ``x`` starts in its storage, in elements."""
    return (address(x) - address(storage_root(x))) // x.itemsize


# ---------------------------------------------------------------------- the nodes

class CopySlices(Node):
    """The base's node after an in-place op on one of its views (PyTorch's ``CopySlices``).

    Backward: the gradient of the base, with the view's region replaced by what the
    in-place op's backward says about the view's old value; the op's other inputs
    get their gradients from that same call.
    """

    def __init__(self, base, view, fn):
        Node.__init__(self)
        self.fn = fn
        self.base_shape = base._data.shape
        self.positions = _view_positions(base._data, view._data)
        # PyTorch copies the view's gradient into a view of the base's gradient shaped like ``view``: where
        # that view overlaps itself (an expand; ``fill_``/``zero_`` may write there) the copy is refused
        self.view_overlaps = overlaps_itself(view._data)
        edges = []
        nxt = []
        if base._requires_grad:
            node, nr = _edge_to(base)
            edges.append((0, node, nr, base._data.shape, base._data.dtype))
            nxt.append((node, nr))
        else:
            nxt.append((None, 0))
        for e in fn._edges:
            if e[0] != 0:
                edges.append(e)
        nxt.extend(fn._next[1:])
        self._edges = tuple(edges)
        self._next = tuple(nxt)

    def name(self):
        return "torch::autograd::CopySlices"

    def apply(self, grad):
        if self.view_overlaps:
            raise RuntimeError(INTERNAL_OVERLAP)
        view_grad = TakePositions.apply(grad, self.positions)
        res = self.fn.apply(view_grad)
        if not isinstance(res, tuple):
            res = (res,)
        g0 = res[0]
        if g0 is None:
            g0 = zeros_like(view_grad)  # (not view_grad * 0: NaN where the gradient is inf)
        elif g0.shape != view_grad.shape:
            g0 = g0.sum_to_size(view_grad.shape) if g0.dim() >= view_grad.dim() else g0.expand(view_grad.shape)
        return (PutPositions.apply(grad, self.positions, g0),) + tuple(res[1:])

    def _release(self):
        self.fn._release()


def _view_positions(base, view):
    """For each element of ``view``, its flat (row-major) index in ``base`` (found by storage position)."""
    item = base.itemsize
    base_pos = _element_positions(base.shape, tuple(s // item for s in base.strides),
                                  _storage_offset(base)).reshape(-1)
    view_pos = _element_positions(view.shape, tuple(s // item for s in view.strides), _storage_offset(view))
    order = _host.argsort(base_pos, kind="stable")
    return _on(base, order[_host.searchsorted(base_pos[order], view_pos)])


class TakePositions(ArrayFunction):
    """out = x.flatten()[positions];  dx = grads added back at those positions"""
    node_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, x, positions):
        ctx.shape = x.shape
        ctx.positions = positions
        return x.reshape(-1)[positions]

    @staticmethod
    def backward(ctx, grad):
        if grad._data.size == 0:   # an empty view: PyTorch's as_strided_backward gives plain zeros (no graph)
            return Tensor._make(namespace(grad._data).zeros(ctx.shape, grad._data.dtype)), None
        return ScatterPositions.apply(grad, ctx.shape, ctx.positions), None


class ScatterPositions(ArrayFunction):
    """out = zeros(shape) with x added at the flat positions;  dx = grad.flatten()[positions]"""
    node_name = "AsStridedBackwardBackward0"

    @staticmethod
    def forward(ctx, x, shape, positions):
        ctx.positions = positions
        xp = namespace(x)
        out = xp.zeros(math.prod(shape), dtype=x.dtype)
        scatter_add(out, positions.reshape(-1), xp.broadcast_to(x, positions.shape).reshape(-1))
        return out.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        return TakePositions.apply(grad, ctx.positions), None, None


class PutPositions(ArrayFunction):
    """out = x with x.flatten()[positions] = src;  dx = grad with those zeroed,  dsrc = grad[positions]"""
    node_name = "CopySlicesBackward0"

    @staticmethod
    def forward(ctx, x, positions, src):
        ctx.positions = positions
        xp = namespace(x)
        out = xp.array(x, copy=True).reshape(-1)
        out[positions.reshape(-1)] = xp.broadcast_to(src, positions.shape).reshape(-1)
        return out.reshape(x.shape)

    @staticmethod
    def backward(ctx, grad):
        # the overwritten positions get 0 by assignment, as PyTorch's copy_ into them (a product with a
        # 0/1 mask would keep a NaN or inf there)
        zero = Tensor._make(namespace(grad._data).zeros((), dtype=grad._data.dtype))
        return PutPositions.apply(grad, ctx.positions, zero), None, TakePositions.apply(grad, ctx.positions)


def rebase_view_history(view):
    """After an in-place op on ``view``: the base gets a CopySlices node; the view reads from the base."""
    base = view._base
    fn = view._grad_fn  # the in-place op's node (``grad_fn`` would see a stale view and refresh it)
    if base._requires_grad and base._grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    node = CopySlices(base, view, fn)
    base._set_history(node, 0)
    _read_from_base(view, node.positions)


def _read_from_base(view, positions):
    """Give ``view`` a grad_fn that reads its elements out of its base's current history."""
    base = view._base
    old = view._grad_fn
    ctx = TakePositions._backward_cls()
    ctx.shape = base._data.shape
    ctx.positions = positions
    _link_inputs(ctx, (base, positions))
    view._set_history(ctx, 0)
    view._view_version = view._version_counter.value
    if view._retains_grad and old is not None and old._retain:  # retain_grad() moves to the new node
        ctx._retain = {0: old._retain.pop(view._output_nr, None)}


def refresh_view_history(view):
    """A view whose base was modified in place since its grad_fn was made gets a fresh one (as PyTorch).

    Called lazily, when the view's ``grad_fn`` is read or the view is used by an op.
    """
    if view._grad_fn is None and not view._base._requires_grad:
        return  # no history to refresh, none to gain
    if view._data.dtype.kind not in "fcV":
        view._view_version = view._version_counter.value
        return
    check_view_rebase(view, True)
    _read_from_base(view, _view_positions(view._base._data, view._data))


def check_view_rebase(view, indirect):
    """PyTorch's handle_view_on_rebase: a view made by a multi-output op (``split``, ``unbind``) or under
    no_grad/inference_mode cannot get a new history after an in-place write, through it (direct) or
    through its base or another view of the base (indirect)."""
    meta = view._creation_meta
    if meta == DEFAULT:
        return
    fn = view._grad_fn
    modified = "its base or another view of its base has been" if indirect else "is being"
    if meta in (NO_GRAD_MODE, INFERENCE_MODE) or fn is None:
        prefix = (f"Output {view._output_nr} of {_op_name(fn)} is a view of a view which was created in"
                  if fn is not None else "A view was created in")
        if meta == INFERENCE_MODE:
            msg = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        msg = f"Output {view._output_nr} of {_op_name(fn)} is a view and {modified} modified inplace."
    if meta == MULTI_OUTPUT_NODE:
        msg += (" This view is the output of a function that returns multiple views. Such functions do not "
                "allow the output views to be modified inplace. You should replace the inplace operation by "
                "an out-of-place one.")
    else:
        block = "inference_mode" if meta == INFERENCE_MODE else "no_grad"
        msg += (" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
                f"code by moving both the view and the inplace either both inside the {block} block (if you "
                "don't want the inplace to be tracked) or both outside (if you want the inplace to be "
                "tracked).")
    raise RuntimeError(msg)

