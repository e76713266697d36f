"""The backward engine: walk the graph from the outputs back to the leaves.

``loss.backward()`` arrives here as ``run_backward``:

1. ``_collect`` walks ``node._edges`` from the root and counts, for every node,
   how many edges lead into it (its dependencies).
2. Nodes run when all their dependencies have delivered: a ready queue ordered
   like PyTorch's (the most recently created node first; leaves' AccumulateGrad
   as soon as they are ready).
3. Running a node: tensor hooks -> pre-hooks -> ``node.apply(*grads)`` (the
   op's ``backward``) -> post-hooks.  Each returned gradient is checked against
   the input it belongs to (``_validate``: summed back to the input's shape when
   the op broadcast it, cast to its dtype) and added into the next node's buffer.
4. ``AccumulateGrad`` adds the gradient into ``leaf.grad``.

``autograd.grad`` runs the same loop but captures the gradients of the given
inputs instead of accumulating them, and skips nodes that lead to none of them.
"""
import heapq
import itertools
import warnings

from .grad_mode import _state
from .graph import AccumulateGrad, GradientEdge
from .function import _edge_to, _ZEROS, is_efficient_zero
from .._layout import format_strides, relayout
from .._tensor import Tensor
from ..backend import namespace

__all__ = ["run_backward"]


def zeros_like(t, requires_grad=False):
    """``pedatorch.zeros_like(t)`` made here, below the ops layer (autograd needs zero gradients): zeros of
    t's dtype on t's device, with the strides PyTorch's preserve_format gives them."""
    x = t._data
    zeros = namespace(x).zeros(x.shape, x.dtype)
    out = Tensor._make(relayout(zeros, format_strides(x.shape, [st // x.itemsize for st in x.strides],
                                                      "preserve_format")))
    if requires_grad:
        out.requires_grad = True
    if _state.inference:   # made in inference mode: an inference tensor, as every factory's result
        out._is_inference = True
    return out


def _collect(roots, targets=None):
    """How many edges enter each node reachable from ``roots``.

    With ``targets`` (a set of nodes), also the set of nodes on a path to a
    target (the only ones ``autograd.grad`` needs to run); otherwise None.
    """
    deps = {}
    seen = set(roots)
    stack = list(seen)
    while stack:
        node = stack.pop()
        for e in node._edges:
            nxt = e[1]
            deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    if targets is None:
        return None, deps
    # a node is needed when it is a target or leads to a needed node: decide children first
    needed = set()
    done = set()
    for root in roots:
        stack = [(root, iter(root._edges))]
        done.add(root)
        while stack:
            node, it = stack[-1]
            for e in it:
                if e[1] not in done:
                    done.add(e[1])
                    stack.append((e[1], iter(e[1]._edges)))
                    break
            else:
                stack.pop()
                if node in targets or any(e[1] in needed for e in node._edges):
                    needed.add(node)
    deps = {}
    for node in needed:
        for e in node._edges:
            if e[1] in needed:
                deps[e[1]] = deps.get(e[1], 0) + 1
    return needed, deps


def _validate(node, index, grad, shape, np_dtype):
    """Make a gradient fit its input: the reverse of broadcasting, and the input's dtype."""
    if not isinstance(grad, Tensor):
        raise TypeError(f"Function {node.name()} returned a gradient of type {type(grad).__name__} at "
                        f"index {index}; expected a Tensor or None")
    gshape = grad._data.shape
    if gshape != shape:
        if not _expandable(shape, gshape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"[{', '.join(map(str, gshape))}] but expected shape compatible with "
                f"[{', '.join(map(str, shape))}]")
        grad = grad.sum_to_size(shape)
    if grad._data.dtype != np_dtype:
        grad = grad.to(_from_np(np_dtype))
    return grad


def _from_np(npdt):
    from .._dtype import from_numpy_dtype
    return from_numpy_dtype(npdt)


def _expandable(shape, to):
    if len(shape) > len(to):
        return False
    for s, t in zip(reversed(shape), reversed(to)):
        if s != 1 and s != t:
            return False
    return True


def _call_tensor_hooks(hooks, grad):
    for fn in list(hooks.values()):
        new = fn(grad)
        if new is not None:
            grad = new
    return grad


def _n_outputs(node):
    meta = node._out_meta
    return 1 if meta is None else len(meta)


# Observers of the backward pass (pedatorch's own; PyTorch has no such public hook).
# Each is called as ``fn(node, grad_outputs, grad_inputs)`` right after ``node`` ran,
# in the engine's real execution order: ``grad_outputs`` are the gradients that arrived
# at the node's outputs, ``grad_inputs`` what it sends along its edges (None for a leaf's
# AccumulateGrad).  pedatorch.viz.backward_steps is built on this.
_observers = []
_starters = []   # ``fn(node)`` right before a node runs (the profiler times nodes with it)


class watch_backward:
    """Context manager: call ``fn(node, grad_outputs, grad_inputs)`` after each node
    the engine runs while the block is active (see ``pedatorch.viz.backward_steps``),
    and ``before(node)``, when given, right before it runs."""

    def __init__(self, fn, before=None):
        self.fn, self.before = fn, before

    def __enter__(self):
        _observers.append(self.fn)
        if self.before is not None:
            _starters.append(self.before)
        return self

    def __exit__(self, *exc):
        _observers.remove(self.fn)
        if self.before is not None:
            _starters.remove(self.before)
        return False


def _notify(node, grads, result):
    for fn in list(_observers):
        fn(node, tuple(grads), result)


# The backward passes running now, innermost last (a hook may start another): their ids and what they run.
# register_multi_grad_hook asks which of its tensors' nodes the current pass will reach.
_TASKS = []
_task_ids = itertools.count()


class _GraphTask:
    __slots__ = ("id", "roots", "needed", "deps")

    def will_execute(self, node):
        """Whether this pass runs ``node`` (PyTorch's ``_will_engine_execute_node``)."""
        reached = node in self.deps or node in self.roots
        return reached and (self.needed is None or node in self.needed)


def current_graph_task():
    """The innermost backward pass running now, or None outside backward."""
    return _TASKS[-1] if _TASKS else None


def run_backward(roots, root_grads, keep_graph, create_graph, inputs=None, accumulate=True):
    """Run backward from ``roots`` (a list of (node, output_nr)) seeded with ``root_grads``.

    ``inputs``: tensors whose gradients to capture (``autograd.grad``) or to
    restrict accumulation to (``backward(inputs=...)``).  Returns the captured
    gradients, one per input (None where no gradient arrived).
    """
    targets = None
    leaf_targets = {}      # AccumulateGrad node -> index in inputs
    nonleaf_targets = {}   # (node, output_nr) -> index in inputs
    captured = None
    if inputs is not None:
        captured = [None] * len(inputs)
        targets = set()
        for i, t in enumerate(inputs):
            node, nr = (t.node, t.output_nr) if type(t) is GradientEdge else _edge_to(t)
            targets.add(node)
            if isinstance(node, AccumulateGrad):
                leaf_targets[node] = i
            else:
                nonleaf_targets[(node, nr)] = i

    root_nodes = [n for n, _ in roots]
    needed, deps = _collect(root_nodes, targets)

    buffers = {}
    for (node, nr), g in zip(roots, root_grads):
        if needed is not None and node not in needed:
            continue
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * _n_outputs(node)
        buf[nr] = g if buf[nr] is None else buf[nr] + g

    ready = []
    tie = 0
    for node in dict.fromkeys(root_nodes):
        if (needed is None or node in needed) and deps.get(node, 0) == 0:
            heapq.heappush(ready, (-node._seq_nr, tie, node))
            tie += 1

    task = _GraphTask()
    task.id, task.roots, task.needed, task.deps = next(_task_ids), set(root_nodes), needed, deps
    _TASKS.append(task)
    prev_mode = _state.enabled
    _state.enabled = create_graph
    prev_zeros, _ZEROS[0] = _ZEROS[0], False
    g = None
    try:
        while ready:
            node = heapq.heappop(ready)[2]
            grads = buffers.pop(node, None)
            result = None
            if grads is not None:
                if _starters:
                    for fn in list(_starters):
                        fn(node)
                if type(node) is AccumulateGrad:
                    _run_leaf(node, grads[0], create_graph, captured, leaf_targets, accumulate)
                else:
                    result = _run_node(node, grads, keep_graph, create_graph, captured, nonleaf_targets,
                                       needed)
                if _observers:
                    _notify(node, grads, result)
            # send each input gradient along its edge; a node is ready once all its edges delivered
            for edge in node._edges:
                index, nxt, nr, shape, np_dtype = edge
                if needed is not None and nxt not in needed:
                    continue
                if result is not None and index < len(result):
                    g = result[index]
                    if g is not None:
                        if type(g) is not Tensor or g._data.shape != shape or g._data.dtype != np_dtype:
                            g = _validate(node, index, g, shape, np_dtype)
                        buf = buffers.get(nxt)
                        if buf is None:
                            buf = buffers[nxt] = [None] * _n_outputs(nxt)
                        old = buf[nr]
                        if old is None:
                            buf[nr] = g
                        elif not _ZEROS[0]:
                            buf[nr] = old + g
                        else:   # (an efficient zero adds nothing: PyTorch's add gives the other gradient)
                            buf[nr] = g if is_efficient_zero(old) else old if is_efficient_zero(g) else old + g
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0:
                    heapq.heappush(ready, (-nxt._seq_nr, tie, nxt))
                    tie += 1
            g = result = None  # hold no gradient here: AccumulateGrad keeps a buffer nobody else holds
        if _ZEROS[0] and captured:   # the caller's gradients are plain zeros, free to be written to (unmarked
            for g in captured:       # only now: the same tensor may have flowed on to other nodes)
                if g is not None:
                    g.__dict__.pop("_zerotensor", None)
    finally:
        _state.enabled = prev_mode
        _ZEROS[0] = prev_zeros
        _TASKS.pop()
    return captured


def _run_leaf(node, grad, create_graph, captured, leaf_targets, accumulate):
    var = node.variable
    if var._hooks:
        grad = _call_tensor_hooks(var._hooks, grad)
    if node._pre_hooks:
        for fn in list(node._pre_hooks.values()):
            new = fn((grad,))
            if new is not None:
                grad = new[0]
    if captured is not None and node in leaf_targets:
        captured[leaf_targets[node]] = grad
        if not accumulate:
            return
    if accumulate:
        node._accumulate(grad, create_graph)
        post = var.__dict__.get("_post_acc_hooks")
        if post:
            for fn in list(post.values()):
                fn(var)


def _call_node_hooks(node, result, grad_outputs):
    """A node's post hooks see ``grad_inputs`` as PyTorch shows them: one per ``next_functions`` entry, each
    already fitted to its input (summed over broadcast dims, cast), None where no gradient flows.  A hook may
    return replacements, in the same order."""
    edges = iter(node._edges)
    places = [next(edges) if nxt is not None else None for nxt, _ in node._next]   # (edges follow _next's order)
    grad_inputs = tuple(None if e is None or e[0] >= len(result) or result[e[0]] is None
                        else _validate(node, e[0], result[e[0]], e[3], e[4]) for e in places)
    for fn in list(node._hooks.values()):
        new = fn(grad_inputs, grad_outputs)
        if new is not None:
            grad_inputs = tuple(new)
    result = list(result)
    for e, g in zip(places, grad_inputs):
        if e is not None and e[0] < len(result):
            result[e[0]] = g
    return tuple(result)


def _run_node(node, grads, keep_graph, create_graph, captured, nonleaf_targets, needed):
    # gradients of the node's outputs: tensor hooks, retain_grad, capture
    if node._tensor_hooks:
        for nr, hooks in node._tensor_hooks.items():
            if grads[nr] is not None and hooks:
                grads[nr] = _call_tensor_hooks(hooks, grads[nr])
    if node._retain:
        for nr, ref in node._retain.items():
            t = ref()
            if t is not None and grads[nr] is not None:
                g = grads[nr]
                if t._grad is None:
                    t._grad = g if create_graph else g._detached_copy()
                else:
                    t._grad = t._grad + g
    if captured is not None:
        for nr in range(len(grads)):
            i = nonleaf_targets.get((node, nr))
            if i is not None:
                captured[i] = grads[nr]
        if not any(e[1] in needed for e in node._edges):
            return None  # a captured input: nothing below it is wanted
    if node._pre_hooks:
        for fn in list(node._pre_hooks.values()):
            new = fn(tuple(grads))
            if new is not None:
                grads = list(new)
    meta = node._out_meta
    if meta is not None:
        xp = None
        for nr, g in enumerate(grads):
            m = meta[nr]
            # (a learner's Function gets zeros even for outputs it marked non-differentiable, as documented)
            if g is None and m is not None and (m[2] or getattr(node, "_custom", False)) and node._materialize_grads:
                if xp is None:   # the zeros go where the node's other output gradients are
                    xp = namespace(*(t._data for t in grads if t is not None))
                grads[nr] = Tensor._make(xp.zeros(m[0], dtype=m[1]))
    try:
        result = node.apply(*grads)
    except Exception:
        if _state.anomaly and node._anomaly_trace:
            warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the "
                          f"error:\n{node._anomaly_trace}", UserWarning)
        raise
    if type(result) is not tuple:
        result = (result,) if not isinstance(result, list) else tuple(result)
    if getattr(node, "_custom", False):
        n_in = len(node.needs_input_grad)
        if len(result) != n_in:
            if len(result) > n_in and all(r is None for r in result[n_in:]):
                result = result[:n_in]
            else:
                raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                                   f"(expected {n_in}, got {len(result)})")
    if node._hooks:
        result = _call_node_hooks(node, result, tuple(grads))
    if _state.anomaly and _state.anomaly_check_nan:
        for i, r in enumerate(result):
            if isinstance(r, Tensor) and r._data.dtype.kind in "fcV" and bool(namespace(r._data).isnan(r._data).any()):
                if node._anomaly_trace:
                    warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that "
                                  f"caused the error:\n{node._anomaly_trace}", UserWarning)
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
    if not keep_graph:
        node._release()
    return result
