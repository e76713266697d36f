"""The backward graph: nodes (a tensor's ``grad_fn``), edges and saved tensors.

Every op that records history creates one ``Node``.  The node is also the
``ctx`` its Function's ``forward`` and ``backward`` receive, exactly as in
PyTorch, so ``y.grad_fn.saved_tensors`` is what ``forward`` saved.

Edges: ``node._edges`` lists, for each input that needs a gradient, the
position of its gradient in ``backward``'s result and the node that gradient
flows to next (another op's node, or the ``AccumulateGrad`` of a leaf).
``next_functions`` shows the same edges the way PyTorch does.
"""
import contextlib
import functools
import itertools
import sys
import weakref
from typing import NamedTuple

from ..backend import CPU_ARRAY, CPU_BACKEND, SparseCOO, is_array, writeable
from .._layout import copy_like_leaf, obeys_grad_layout
from ..utils.hooks import _HookDict, add_hook

_seq = itertools.count()


# What ``save_for_backward`` keeps, one small tuple per saved value:
#   (SAVED_INPUT, tensor, version)                  an input, checked against its version at unpack
#   (SAVED_OUTPUT, array, counter, version, nr)      an output of this node: re-wrapped at unpack with
#                                                    grad_fn = this node (holding the Tensor itself
#                                                    would make a reference cycle)
#   (SAVED_OUTPUT, ..., nr, weakref(fn), fn_nr)      the output of an in-place op on a view: re-wrapped with
#                                                    the view's history after the write (fn: its grad_fn
#                                                    then), as PyTorch's SavedVariable does (weakly held:
#                                                    fn leads back to this node)
#   (SAVED_CONST, value)                             a number, or an array/tensor used as a constant
#   (SAVED_PACKED, packed, unpack_hook, nr, edge)    a tensor given to a saved_tensors_hooks pack hook: only
#                                                    what it returned is kept (nr: the output number for an
#                                                    output of this node, else None; edge: (node, nr) an
#                                                    input's gradient flows to, re-attached at unpack)
SAVED_INPUT, SAVED_OUTPUT, SAVED_CONST, SAVED_PACKED = 0, 1, 2, 3

# the (pack_hook, unpack_hook) pairs of the saved_tensors_hooks contexts entered, innermost last
SAVED_TENSORS_HOOKS = []
_HOOKS_DISABLED = []   # the error messages of the disable_saved_tensors_hooks contexts entered


class saved_tensors_hooks:
    """While entered, every tensor an op saves for backward goes through ``pack_hook(tensor)``, and only
    what it returns is kept; backward gets ``unpack_hook(packed)`` back (a tensor equal to the original).
    The way to trade memory for time: keep saved tensors on the host, compressed, or on disk.

    ``pack_hook`` sees the tensor itself (an op's output too); in-place changes made to it after packing are
    not detected (the version check needs the original)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if _HOOKS_DISABLED:
            raise RuntimeError(_HOOKS_DISABLED[-1])
        SAVED_TENSORS_HOOKS.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        SAVED_TENSORS_HOOKS.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU and moved back to their device for backward (``pin_memory`` and
    ``device_type`` are accepted as PyTorch's; there is no pinned memory here)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            return t.device, t.detach().cpu() if t.device.type != "cpu" else t.detach()

        def unpack(packed):
            device, t = packed
            return t.to(device)
        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """While entered, entering ``saved_tensors_hooks`` raises RuntimeError(error_message)."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        _HOOKS_DISABLED.append(self.error_message)
        return self

    def __exit__(self, *exc):
        _HOOKS_DISABLED.pop()


def pack_saved(t, nr, edge):
    """The record of a tensor saved while saved_tensors_hooks are active (the innermost pair packs it;
    the pack hook runs with no hooks active, so what it computes saves nothing through it).  ``edge``:
    (node, output_nr) where an input's gradient flows, or None."""
    pack, unpack = SAVED_TENSORS_HOOKS[-1]
    hooks = SAVED_TENSORS_HOOKS[:]
    SAVED_TENSORS_HOOKS.clear()
    try:
        packed = pack(t)
    finally:
        SAVED_TENSORS_HOOKS.extend(hooks)
    return (SAVED_PACKED, packed, unpack, nr, edge)


def saved_input(t):
    c = t._version_counter
    return (SAVED_INPUT, t, 0 if c is None else c.value)


def saved_output(t, output_nr):
    c = t._shared_version()
    return (SAVED_OUTPUT, t._data, c, c.value, output_nr)


def saved_const(value):
    return (SAVED_CONST, value)


FREED = ("Trying to backward through the graph a second time (or directly access saved tensors after they "
         "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
         "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second "
         "time or if you need to access saved tensors after calling backward.")


def saved_property(index):
    """``node._saved_<name>``: the value at ``index`` of what the op saved (see saved_names.py)."""
    def get(node):
        saved = node._saved
        if saved is None:
            raise RuntimeError(FREED)
        if index >= len(saved):   # this call of the op saved nothing there
            return None
        value = node._unpack(saved[index])
        if isinstance(value, (bool, int, float, complex)):   # a number operand: PyTorch's wrapped scalar
            from .._tensor import Tensor
            value = Tensor._make(CPU_BACKEND.xp.asarray(value))   # (float64, int64, bool, complex128)
        return value
    return property(get)


class Node:
    """A step of the backward pass: takes gradients of an op's outputs, returns those of its inputs.

    Attributes set when an op records it (see ``Function.apply``):
      _edges:  tuple of (index into backward's result, next node, next node's input_nr, shape, np dtype)
      _next:   one (node or None, input_nr) per tensor input (what ``next_functions`` shows)
      _saved:  the saved tensors, or None once backward has freed them
    """

    # the attributes every recorded call sets live in slots (no per-node dict unless an op stores more)
    __slots__ = ("needs_input_grad", "_next", "_edges", "_saved", "_seq_nr", "__dict__", "__weakref__")

    def __init__(self):
        self._seq_nr = next(_seq)
        self._saved = ()
        self._edges = ()
        self._next = ()
        self.needs_input_grad = ()

    _hooks = None          # post hooks: fn(grad_inputs, grad_outputs)
    _pre_hooks = None      # pre hooks:  fn(grad_outputs)
    _tensor_hooks = None   # {output_nr: _HookDict} from Tensor.register_hook on non-leaf outputs
    _retain = None         # {output_nr: weakref to the tensor} for retain_grad()
    _out_meta = None       # per output (shape, np dtype, differentiable) when there are several
    _anomaly_trace = None
    _materialize_grads = True

    # -- what PyTorch shows
    def name(self):
        return type(self).__name__

    @property
    def next_functions(self):
        return self._next

    @property
    def metadata(self):
        d = self.__dict__.get("_metadata")
        if d is None:
            d = self.__dict__["_metadata"] = {}
        return d

    def _sequence_nr(self):
        return self._seq_nr

    _repr_prefix = ""
    _wraps_numbers = False   # (see function.py: _link_inputs)

    def __repr__(self):
        return f"<{self._repr_prefix}{type(self).__name__} object at {id(self):#x}>"

    # -- ctx API (used inside Function.forward / backward)
    def save_for_backward(self, *tensors):
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        self._to_save_forward = tensors

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        self._materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        saved = self._saved
        if saved is None:
            raise RuntimeError(FREED)
        return tuple(self._unpack(s) for s in saved)

    def _unpack(self, s):
        if s is None:
            return None
        kind = s[0]
        if kind == SAVED_INPUT:
            t = s[1]
            c = t._version_counter
            if c is not None and c.value != s[2]:
                self._version_error(t._data, _describe_producer(t), c.value, s[2])
            return t
        if kind == SAVED_OUTPUT:
            data, counter, version, nr = s[1:5]
            if counter.value != version:
                self._version_error(data, f"output {nr} of {_op_name(self)}", counter.value, version)
            from .._tensor import Tensor
            node = self
            if len(s) > 5:   # the output of an in-place op on a view: it continues from the view's new history
                view_fn = s[5]()
                if view_fn is not None:
                    node, nr = view_fn, s[6]
            return Tensor._make(data, node, nr, counter)
        if kind == SAVED_PACKED:
            t = s[2](s[1])
            from .._tensor import Tensor
            if not isinstance(t, Tensor):
                raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                                f"type {type(t).__name__}")
            if s[3] is not None:   # this node's output: backward through it continues at this node
                return Tensor._make(t._data, self, s[3])
            edge = s[4]
            if edge is None:
                return t
            node, nr = edge
            if type(node) is AccumulateGrad:   # a leaf: the unpacked tensor's gradient goes to it
                if t is node.variable:
                    return t
                u = Tensor._make(t._data)
                u._requires_grad = True
                u._grad_acc = weakref.ref(node)
                u._leaf_node = node   # (keeps the leaf's AccumulateGrad alive as long as u)
                return u
            if t._grad_fn is node and t._output_nr == nr and t._base is None:
                return t
            return Tensor._make(t._data, node, nr)
        return s[1]

    def _version_error(self, data, what, now, expected):
        from .grad_mode import _state
        hint = ("Hint: the backtrace further above can point to the operation that failed to compute its "
                "gradient. The variable in question was changed in there or anywhere later. Good luck!"
                if _state.anomaly else
                "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
                "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
        raise RuntimeError(
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{_type_name(data)} [{', '.join(map(str, data.shape))}]]"
            f"{'' if what is None else ', which is ' + what + ','} is at version {now}; expected version "
            f"{expected} instead. " + hint)

    # -- hooks
    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; it may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = _HookDict()
        return add_hook(self._hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; it may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = _HookDict()
        return add_hook(self._pre_hooks, fn)

    def _register_tensor_hook(self, output_nr, fn):
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        d = self._tensor_hooks.setdefault(output_nr, _HookDict())
        return add_hook(d, fn)

    # -- running
    def apply(self, *grad_outputs):
        """Compute input gradients from output gradients (the Function's ``backward``)."""
        return self._function.backward(self, *grad_outputs)

    def _release(self):
        if self._saved:
            self._saved = None


def _type_name(arr):
    from .._dtype import from_numpy_dtype
    # PyTorch's toString(): the legacy tensor type names where one exists, else "CPU<ScalarType>Type"
    names = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
             "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor", "int8": "CharTensor",
             "uint8": "ByteTensor"}
    others = {"bfloat16": "BFloat16", "complex64": "ComplexFloat", "complex128": "ComplexDouble", "bool": "Bool"}
    name = from_numpy_dtype(arr.dtype).name
    cuda = type(arr) is not CPU_ARRAY and is_array(arr)   # (PyTorch: torch.cuda.FloatTensor)
    if name in others:
        return ("CUDA" if cuda else "CPU") + others[name] + "Type"
    return ("torch.cuda." if cuda else "torch.") + names.get(name, "Tensor")


def _op_name(node):
    """'MulBackward0' -> 'Mul' (how PyTorch names the op in version errors)."""
    import re
    return re.sub(r"Backward\d*$", "", node.name())


def _describe_producer(t):
    """What a saved tensor is now: PyTorch names its current grad_fn."""
    if t.grad_fn is not None:
        return f"output {t._output_nr} of {_op_name(t.grad_fn)}"
    return "a leaf Variable" if t._requires_grad else None  # PyTorch says nothing of a plain tensor


# Keeping the engine's gradient as ``.grad`` instead of copying it (PyTorch's rule: steal the buffer
# when its use count says nobody else has it).  While _exclusively_owned runs, an unshared gradient
# Tensor is referenced by exactly: the popped buffer list, _run_leaf's and _accumulate's arguments,
# this function's argument and getrefcount's own (5); its array by the Tensor, the local ``arr`` and
# getrefcount's (3).  A gradient referenced from anywhere else (a second edge, a hook that kept it,
# a view of its array, the caller's own tensor) has more, and is copied.  CPython 3.14 counts
# references differently, so there it is always copied.
_STEAL = sys.version_info < (3, 14) and hasattr(sys, "getrefcount")
_ENGINE_REFS = 4


def _exclusively_owned(grad, var):
    if not _STEAL:
        return False
    arr = grad._data
    if (type(arr) is not CPU_ARRAY and not is_array(arr) or not writeable(arr)
            or not obeys_grad_layout(arr, var._data)):
        return False  # .grad is laid out as the leaf is (PyTorch's layout contract)
    if sys.getrefcount(grad) != _ENGINE_REFS + 1 or sys.getrefcount(arr) != 3:
        return False
    base = arr.base
    if base is None:
        return arr.flags.owndata
    # a contiguous view of all of an array nobody else holds (a transposed-twice matmul result, a
    # reshaped sum); the view tensor's own ``_base`` tensor may hold that array too, and nothing more
    holder = grad._base
    extra = 0
    if holder is not None:
        if holder._data is not base or sys.getrefcount(holder) != 3:
            return False
        extra = 1
    return (is_array(base) and base.base is None and base.flags.owndata and base.size == arr.size
            and sys.getrefcount(base) == 3 + extra)


def _Tensor():
    from .._tensor import Tensor
    return Tensor


class AccumulateGrad(Node):
    """The node at a leaf: adds the incoming gradient into ``variable.grad``."""

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def __init__(self, variable):
        self.variable = variable
        self._seq_nr = 2**62  # PyTorch gives leaves the highest priority
        self._edges = ()
        self._next = ()
        self._saved = ()
        self.needs_input_grad = (True,)

    def apply(self, grad):  # the engine calls _accumulate directly; this is for learners
        self._accumulate(grad, False)
        return ()

    def _accumulate(self, grad, create_graph):
        var = self.variable
        old = var._grad
        if type(grad._data) is SparseCOO or type(var._data) is SparseCOO or (old is not None and
                                                                              type(old._data) is SparseCOO):
            # a sparse gradient (pedatorch.sparse) is kept as it came; a second sparse one is added into it (in
            # place, as PyTorch does); with a dense one the sum is a new, dense tensor
            if old is None:
                var._grad = grad
            elif type(old._data) is SparseCOO and type(grad._data) is SparseCOO and not create_graph:
                old._data = (old + grad)._data
                old._bump_version()
            else:
                var._grad = grad + old if type(old._data) is SparseCOO else old + grad
            return
        if old is None:
            if create_graph:
                var._grad = grad.clone()  # keeps its history: a gradient penalty differentiates it
            elif _exclusively_owned(grad, var):
                var._grad = _Tensor()._make(grad._data)  # nobody else can see this array: keep it
            else:   # a copy, laid out as PyTorch's gradient layout contract asks
                var._grad = _Tensor()._make(copy_like_leaf(grad._data, var._data))
        elif create_graph or old._requires_grad:
            var._grad = old + grad
        else:
            old._data += grad._data
            old._bump_version()


# ---------------------------------------------------------------- edges, versions, hooks over several tensors

class GradientEdge(NamedTuple):
    """Where the gradient of a tensor is computed: a node and which of its inputs (``output_nr``).
    ``autograd.grad(loss, edge)`` gives the same gradient as ``autograd.grad(loss, tensor)``."""

    node: Node
    output_nr: int
    ownership_token: Node = None   # (PyTorch: keeps a learner's Function node alive; a node here needs none)


def get_gradient_edge(tensor):
    """The ``GradientEdge`` of ``tensor``: its grad_fn (or its leaf's AccumulateGrad) and output number."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require "
                           "gradients")
    from .function import _edge_to
    node, nr = _edge_to(tensor)
    return GradientEdge(node, nr)


def increment_version(tensor):
    """Tell autograd that ``tensor`` (or each of several) was written in place behind its back (through
    ``.data`` or numpy): saved copies of it then fail the version check instead of giving wrong gradients."""
    from .._tensor import Tensor
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        if not t._is_inference:   # (an inference tensor has no version counter)
            t._bump_version()


_MUTATION_ALLOWED = []   # the allow_mutation_on_saved_tensors context entered (at most one)


class _AllowMutationOnSaved:
    """What ``allow_mutation_on_saved_tensors`` yields; ``clear()`` drops the copies it keeps."""

    def __init__(self):
        self.active = True

    def clear(self):
        self.active = False


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Inside, a tensor saved for backward may be written in place: backward sees the values it had when it
    was saved.  PyTorch copies a saved tensor when it is first written; here each saved tensor is copied
    when it is saved (simpler, more memory).  Backward gets the tensor itself while it is unchanged (its
    graph intact, for double backward), the copy once it was written."""
    if _MUTATION_ALLOWED:
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    ctx = _AllowMutationOnSaved()

    def pack(t):
        return t, t._version, t.detach().clone()

    def unpack(packed):
        if not ctx.active:   # (PyTorch's words, its missing space included)
            raise AssertionError("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                                 "in which the graph was originally recorded.")
        t, version, copy = packed
        return t if t._version == version else copy

    _MUTATION_ALLOWED.append(ctx)
    try:
        with saved_tensors_hooks(pack, unpack):
            yield ctx
    finally:
        _MUTATION_ALLOWED.pop()
        ctx.clear()


class _MultiHandle:
    """The handle of a hook made of several hooks: ``remove()`` removes them all."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for h in self.handles:
            h.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """One hook over several tensors, built from a tensor hook on each.

    ``mode="all"``: ``fn(grads)`` once per backward pass, when every tensor whose node the pass runs has its
    gradient (``None`` for the others).  ``mode="any"``: ``fn(grad)`` with the first gradient computed.
    """
    from .engine import current_graph_task
    from .function import _edge_to
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    if mode == "any":
        fired = set()   # the ids of the passes the hook ran in

        @functools.wraps(fn)
        def first_grad(grad):
            task = current_graph_task().id
            if task not in fired:
                fired.add(task)
                fn(grad)
        return _MultiHandle(tuple(t.register_hook(first_grad) for t in tensors if t.requires_grad))

    nodes = [_edge_to(t)[0] for t in tensors]
    pending = {}   # pass id -> [grads so far, how many hooks are still to run]

    def hook_for(i):
        def collect(grad):
            task = current_graph_task()
            entry = pending.get(task.id)
            if entry is None:   # the first of the tensors in this pass: how many will get a gradient?
                entry = pending[task.id] = [[None] * len(tensors), sum(map(task.will_execute, nodes))]
            entry[0][i] = grad
            entry[1] -= 1
            if entry[1] == 0:
                del pending[task.id]
                fn(entry[0])
        return collect
    return _MultiHandle(tuple(t.register_hook(hook_for(i)) for i, t in enumerate(tensors)))
