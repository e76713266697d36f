"""Activation checkpointing: trade compute for memory (PyTorch's ``torch.utils.checkpoint``).

``checkpoint(fn, *args)`` returns ``fn(*args)`` but keeps, for the backward
pass, only the inputs: the activations inside ``fn`` are not held.  Backward
runs ``fn`` again, with the random number generator put back where it was at
the forward (so dropout masks repeat), and backpropagates through that
recomputation.  The gradients are those without checkpointing.

Two variants, as in PyTorch:

* ``use_reentrant=True`` -- ``CheckpointFunction``, PyTorch's own reentrant
  design: an ``autograd.Function`` whose forward runs ``fn`` under ``no_grad``
  and saves the tensor arguments; its backward recomputes ``fn`` on detached
  copies of them and calls ``autograd.backward`` inside the outer backward
  (parameters used by ``fn`` get their ``.grad`` from that inner call).  Only
  tensors passed as arguments that require grad make the output differentiable.

* ``use_reentrant=False`` (recommended) -- PyTorch hooks the saving of tensors
  to drop them during the forward; pedatorch gets the same effect with the graph
  itself.  The forward runs ``fn`` with the graph on, finds where the recorded
  region reads tensors from outside (its boundary: the arguments, parameters
  and any other tensor ``fn`` closes over), and replaces the region by one
  ``_NonReentrantCheckpoint`` node whose edges go to that boundary; the region's
  nodes, and the activations they saved, are freed as soon as ``fn`` returns.
  The node's backward recomputes ``fn``, points the recomputed region's boundary
  edges at stand-in leaves, takes ``autograd.grad`` to those stand-ins and
  returns the result along its own edges.  So parameters that ``fn`` closes over
  get gradients even when no argument requires grad, keyword arguments are
  allowed, ``autograd.grad`` works, and so does a second backward
  (``create_graph=True``).  Differences from PyTorch's: the activations of ``fn``
  are alive until ``fn`` returns (PyTorch frees each as it is made, so its peak
  memory inside ``fn`` is lower); the recomputation always runs ``fn`` to its end
  (``early_stop`` is accepted and ignored); the determinism check compares the
  tensors the recomputed region saved with those of the forward (count, shapes,
  dtypes, devices) once, at backward.
"""
import contextlib
import warnings

from .. import amp, autograd, cuda
from .._device import device
from .._dtype import from_numpy_dtype
from .._random import get_rng_state, set_rng_state
from .._tensor import Size, Tensor
from ..backend import namespace
from ..autograd.function import Function, _edge_to
from ..autograd.graph import AccumulateGrad, SAVED_INPUT, SAVED_OUTPUT, SAVED_CONST, _seq
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..nn.modules.container import Sequential

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "get_device_states", "set_device_states",
           "noop_context_fn", "set_checkpoint_early_stop", "DefaultDeviceType", "set_checkpoint_debug_enabled"]

_DEFAULT_DETERMINISM_MODE = "default"
_checkpoint_debug_enabled = None
_checkpoint_early_stop = None


class CheckpointError(RuntimeError):
    pass


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Override the ``debug`` flag of every checkpoint inside the block (None: leave it to each call)."""
    global _checkpoint_debug_enabled
    prev = _checkpoint_debug_enabled
    _checkpoint_debug_enabled = enabled
    try:
        yield
    finally:
        _checkpoint_debug_enabled = prev


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Accepted for compatibility: pedatorch's recomputation always runs the function to its end."""
    global _checkpoint_early_stop
    prev = _checkpoint_early_stop
    _checkpoint_early_stop = enable
    try:
        yield
    finally:
        _checkpoint_early_stop = prev


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    """Detached copies of the tensors in a tuple, keeping their ``requires_grad``."""
    if isinstance(inputs, tuple):
        out = []
        for inp in inputs:
            if not isinstance(inp, Tensor):
                out.append(inp)
                continue
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            out.append(x)
        return tuple(out)
    raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


class DefaultDeviceType:
    """The device type whose RNG state checkpoint saves when no tensor argument says (kept for the API)."""

    _default_device_type = None

    @staticmethod
    def set_device_type(device="cuda"):
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type():
        return DefaultDeviceType._default_device_type


def get_device_states(*args):
    """The CUDA devices the tensor arguments live on, and their generators' states (the recomputation
    draws the same random numbers there, as on the CPU)."""
    devices = sorted({a.device.index or 0 for a in _flatten(args)[0] if a.device.type == "cuda"})
    return devices, [cuda.get_rng_state(d) for d in devices]


def set_device_states(devices, states, *, device_type=None):
    """Restore what ``get_device_states`` returned."""
    for d, state in zip(devices, states):
        cuda.set_rng_state(state, d)


class _ForwardContext:
    """What the forward ran under, for the recomputation: the random generators' states (CPU, and the CUDA
    devices of the arguments) and the autocast settings of each device type."""

    def __init__(self, args, preserve):
        self.rng = get_rng_state() if preserve else None
        self.devices, self.device_rng = get_device_states(*args) if preserve else ([], [])
        self.autocast = [(dev, amp.is_autocast_enabled(dev), amp.get_autocast_dtype(dev)) for dev in ("cpu", "cuda")]
        self.autocast_cache = amp.is_autocast_cache_enabled()

    @contextlib.contextmanager
    def restored(self):
        """Run the block with the forward's random states and autocast settings; the generators are put back
        afterwards."""
        with contextlib.ExitStack() as stack:
            if self.rng is not None:
                stack.enter_context(_fork_rng(True, self.devices))
                set_rng_state(self.rng)
                set_device_states(self.devices, self.device_rng)
            for dev, enabled, dtype in self.autocast:
                if enabled or amp.is_autocast_enabled(dev):   # (a device type nobody autocasts is left alone)
                    stack.enter_context(amp.autocast(dev, dtype=dtype, enabled=enabled,
                                                     cache_enabled=self.autocast_cache))
            yield


@contextlib.contextmanager
def _fork_rng(enabled=True, devices=()):
    """Run a block and put the default generator's state back afterwards (and the CUDA ``devices``' ones)."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    device_states = [cuda.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        set_rng_state(state)
        set_device_states(devices, device_states)


# ---------------------------------------------------------------- use_reentrant=True

class CheckpointFunction(Function):
    """The reentrant checkpoint: forward under no_grad saving the inputs; backward recomputes and backprops."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        ctx.fwd = _ForwardContext(args, preserve_rng_state)
        # non-tensor arguments are kept in ctx; tensors are saved (and version-checked)
        ctx.inputs = []
        ctx.tensor_indices = []
        tensor_inputs = []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        return run_function(*args)  # Function.apply runs forward with the graph off

    @staticmethod
    def backward(ctx, *args):
        inputs = list(ctx.inputs)
        for i, idx in enumerate(ctx.tensor_indices):
            inputs[idx] = ctx.saved_tensors[i]
        with ctx.fwd.restored():
            detached_inputs = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached_inputs)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        outputs_with_grad = []
        args_with_grad = []
        for i in range(len(outputs)):
            if isinstance(outputs[i], Tensor) and outputs[i].requires_grad:
                outputs_with_grad.append(outputs[i])
                args_with_grad.append(args[i])
        if len(outputs_with_grad) == 0:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        autograd.backward(outputs_with_grad, args_with_grad)
        grads = tuple(inp.grad if isinstance(inp, Tensor) else None for inp in detached_inputs)
        return (None, None) + grads


# ---------------------------------------------------------------- use_reentrant=False

def _flatten(obj):
    """The tensors of a (nested) tuple/list/dict output, and a spec that ``_unflatten`` puts them back with.

    (Plain module functions, not closures: a recursive closure is a reference cycle, and the outputs it
    held would keep the forward's graph alive until the garbage collector runs.)
    """
    leaves = []
    return leaves, _spec(obj, leaves)


def _spec(o, leaves):
    if isinstance(o, Tensor):
        leaves.append(o)
        return len(leaves) - 1
    if isinstance(o, (tuple, list)):
        return (type(o), [_spec(v, leaves) for v in o], hasattr(o, "_fields"))
    if isinstance(o, dict):
        return (dict, {k: _spec(v, leaves) for k, v in o.items()}, False)
    return ("const", o, False)


def _unflatten(spec, leaves):
    if isinstance(spec, int):
        return leaves[spec]
    kind, items, is_namedtuple = spec
    if kind == "const":
        return items
    if kind is dict:
        return {k: _unflatten(v, leaves) for k, v in items.items()}
    values = [_unflatten(v, leaves) for v in items]
    return kind(*values) if is_namedtuple else kind(values)


def _region(roots, start):
    """Walk the graph recorded since sequence number ``start`` from the outputs' edges ``roots``.

    Returns the region's nodes (oldest first) and its boundary: for every edge
    that leaves the region, (node, output_nr) -> (shape, numpy dtype).
    """
    def inside(node):
        return type(node) is not AccumulateGrad and node._seq_nr > start

    nodes = {}
    boundary = {}
    stack = []
    for node, nr, shape, dtype in roots:
        if inside(node):
            if node not in nodes:
                nodes[node] = True
                stack.append(node)
        else:
            boundary.setdefault((node, nr), (shape, dtype))
    while stack:
        node = stack.pop()
        for _, nxt, nr, shape, dtype in node._edges:
            if inside(nxt):
                if nxt not in nodes:
                    nodes[nxt] = True
                    stack.append(nxt)
            else:
                boundary.setdefault((nxt, nr), (shape, dtype))
    return sorted(nodes, key=lambda n: n._seq_nr), boundary


def _roots_of(tensors):
    out = []
    for t in tensors:
        node, nr = _edge_to(t)
        out.append((node, nr, t._data.shape, t._data.dtype))
    return out


def _default_meta_extractor(shape, dtype, device):
    return {"shape": Size(shape), "dtype": dtype, "device": device}


def _saved_metadata(nodes):
    """Shape/dtype/device of every tensor the region's nodes saved, in the order they were made."""
    metas = []
    for node in nodes:
        for s in node._saved or ():
            if s is None:
                continue
            if s[0] == SAVED_INPUT or (s[0] == SAVED_CONST and isinstance(s[1], Tensor)):
                t = s[1]
                metas.append(_default_meta_extractor(t.shape, t.dtype, t.device))
            elif s[0] == SAVED_OUTPUT:
                arr = s[1]
                metas.append(_default_meta_extractor(arr.shape, from_numpy_dtype(arr.dtype), device("cpu")))
    return metas


_debug_tip_msg = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint\u2011debug mode globally.

If this error occurs under torch.compile with automatic_dynamic_shapes enabled,
it may be because the recomputation selected a different compiled graph than the
forward pass (e.g., a dynamic graph instead of the original static graph).
To fix this, either:
  - Use torch._dynamo.mark_dynamic() to explicitly mark varying dimensions as
    dynamic upfront, avoiding the static-to-dynamic transition.
  - Call torch._C._dynamo.eval_frame._set_lru_cache(False) to disable LRU cache
    reordering, which can change which graph is checked first between forward
    and recompute.
See https://github.com/pytorch/pytorch/issues/166926 for more details and
workaround examples.
"""


def _check_determinism(state, nodes):
    if not state.check:
        return
    recomputed = _saved_metadata(nodes)
    forward = state.saved_meta
    debug = ""
    if state.debug:
        debug = ("\nOperators in the original forward:\n" + "\n".join(state.fwd_ops) +
                 "\nOperators in the recomputation:\n" + "\n".join(n.name() for n in nodes) + "\n")
    tip = debug or _debug_tip_msg
    if len(forward) != len(recomputed):
        raise CheckpointError("torch.utils.checkpoint: A different number of tensors was saved during the original "
                              "forward and recomputation.\n"
                              f"Number of tensors saved during forward: {len(forward)}\n"
                              f"Number of tensors saved during recomputation: {len(recomputed)}.\n{tip}")
    mismatched = ""
    for idx, (a, b) in enumerate(zip(forward, recomputed)):
        if a != b:
            mismatched += f"tensor at position {idx}:\nsaved metadata: {a}\nrecomputed metadata: {b}\n"
    if mismatched:
        raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors have different "
                              f"metadata than during the forward pass.\n{mismatched}.\n{tip}")


class _State:
    """What the non-reentrant node needs to recompute: the function, its non-tensor arguments, the forward's
    random states and autocast settings (``fwd``)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


class _NonReentrantCheckpoint(Function):
    """One node standing for a whole checkpointed region (see the module docstring).

    ``apply(state, *arg_tensors, *extras)``: ``arg_tensors`` are the tensor
    arguments of ``fn`` (saved for backward), ``extras`` the other tensors the
    region read from outside (parameters, tensors ``fn`` closes over) -- together
    they give the node its edges.
    """

    @staticmethod
    def forward(ctx, state, *tensors):
        ctx.state = state
        ctx.save_for_backward(*tensors[:state.n_args])
        outs = state.pending  # computed already by checkpoint(); only their values are returned
        state.pending = None
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grad_outputs):
        state = ctx.state
        create_graph = is_grad_enabled()  # the engine turns grad mode on for create_graph=True
        arg_tensors = ctx.saved_tensors
        args = list(state.args)
        for i, pos in enumerate(state.tensor_positions):
            args[pos] = arg_tensors[i]
        with state.fwd.restored():
            start = next(_seq)
            with enable_grad(), state.recompute_context:
                out = state.function(*args, **state.kwargs)
        leaves, _ = _flatten(out)
        roots = [leaves[i] for i in state.root_positions if i < len(leaves)]
        if len(roots) != len(state.root_positions) or not all(r.requires_grad for r in roots):
            raise CheckpointError("torch.utils.checkpoint: the recomputed function returned different outputs "
                                  "than during the forward pass." + _debug_tip_msg)
        nodes, _ = _region(_roots_of(roots), start)
        _check_determinism(state, nodes)

        # point every edge that leaves the recomputed region at a stand-in leaf (one per boundary tensor)
        xp = namespace(roots[0]._data)   # (on the device the region computed on)
        stand_in = {}    # (node, nr) -> stand-in leaf
        rewired = []     # (node, original edges) to put back
        for node in nodes:
            edges = node._edges
            new_edges = []
            changed = False
            for e in edges:
                index, nxt, nr, shape, dtype = e
                if type(nxt) is not AccumulateGrad and nxt._seq_nr > start:
                    new_edges.append(e)
                    continue
                leaf = stand_in.get((nxt, nr))
                if leaf is None:
                    leaf = Tensor._make(xp.broadcast_to(xp.zeros((), dtype), shape))
                    leaf._requires_grad = True
                    leaf._checkpoint_acc = _edge_to(leaf)[0]  # keep its AccumulateGrad node alive
                    stand_in[(nxt, nr)] = leaf
                new_edges.append((index, leaf._checkpoint_acc, 0, shape, dtype))
                changed = True
            if changed:
                rewired.append((node, edges))
                node._edges = tuple(new_edges)

        grads = {}  # boundary key -> gradient
        inner_outs, inner_grads = [], []
        for r, g in zip(roots, grad_outputs):
            if g is None:
                continue
            key = _edge_to(r)
            if type(key[0]) is not AccumulateGrad and key[0]._seq_nr > start:
                inner_outs.append(r)
                inner_grads.append(g)
            else:  # fn returned a tensor from outside as it is: its gradient goes straight there
                grads[key] = g if key not in grads else grads[key] + g
        try:
            keys = list(stand_in)
            if inner_outs and keys:
                found = autograd.grad(inner_outs, [stand_in[k] for k in keys], inner_grads,
                                      retain_graph=create_graph, create_graph=create_graph,
                                      allow_unused=True)
                for k, g in zip(keys, found):
                    if g is not None:
                        grads[k] = g if k not in grads else grads[k] + g
        finally:
            for node, edges in rewired:  # a second backward (create_graph) goes to the real inputs
                node._edges = edges

        result = [None]
        given = set()
        for key in state.input_keys:
            if key is None or key in given:
                result.append(None)
            else:
                given.add(key)
                result.append(grads.get(key))
        return tuple(result)


def _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, debug, early_stop, *args,
                                  **kwargs):
    debug = _checkpoint_debug_enabled if _checkpoint_debug_enabled is not None else debug
    if debug and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in (_DEFAULT_DETERMINISM_MODE, "none"):
        raise ValueError(f"determinism_check should be one of {[_DEFAULT_DETERMINISM_MODE, 'none']}, but got "
                         f"{determinism_check}")
    forward_context, recompute_context = context_fn()
    fwd = _ForwardContext(args, preserve)
    if not is_grad_enabled():  # nothing is recorded: nothing to recompute
        with forward_context:
            return function(*args, **kwargs)

    start = next(_seq)
    with forward_context:
        out = function(*args, **kwargs)
    leaves, spec = _flatten(out)
    root_positions = [i for i, t in enumerate(leaves) if t.requires_grad and t._data.dtype.kind in "fcV"]
    if not root_positions:
        return out
    roots = [leaves[i] for i in root_positions]
    nodes, boundary = _region(_roots_of(roots), start)
    check = determinism_check != "none"
    saved_meta = _saved_metadata(nodes) if check else None
    fwd_ops = [n.name() for n in nodes] if debug else None
    del nodes

    # the node's inputs: the tensor arguments, then whatever else the region read from outside
    tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    arg_tensors = [args[i] for i in tensor_positions]
    input_keys = [_edge_to(a) if a.requires_grad else None for a in arg_tensors]
    covered = set(k for k in input_keys if k is not None)
    extras = []
    for key, (shape, dtype) in boundary.items():
        if key in covered:
            continue
        node, nr = key
        if type(node) is AccumulateGrad:
            extras.append(node.variable)
        else:  # a non-leaf from outside: a stand-in tensor with its place in the graph
            xp = namespace(roots[0]._data)
            extras.append(Tensor._make(xp.broadcast_to(xp.zeros((), dtype), shape), node, nr))
        input_keys.append(key)
    state = _State(function=function, kwargs=kwargs, fwd=fwd, recompute_context=recompute_context,
                   args=[None if isinstance(a, Tensor) else a for a in args], tensor_positions=tensor_positions,
                   n_args=len(arg_tensors), root_positions=root_positions, input_keys=input_keys, check=check,
                   saved_meta=saved_meta, debug=debug, fwd_ops=fwd_ops,
                   pending=[r.detach() for r in roots])
    del roots
    results = _NonReentrantCheckpoint.apply(state, *arg_tensors, *extras)
    new_leaves = list(leaves)
    for pos, r in zip(root_positions, results):
        new_leaves[pos] = r
    return _unflatten(spec, new_leaves)


# ---------------------------------------------------------------- the API

def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check=_DEFAULT_DETERMINISM_MODE, debug=False, early_stop=True, **kwargs):
    """``function(*args, **kwargs)``, keeping only the inputs for backward and recomputing the rest there.

    Keyword args: ``use_reentrant`` (pass it; False is recommended), ``preserve_rng_state=True``,
    ``context_fn``, ``determinism_check`` ("default" or "none"), ``debug`` (the last three with
    ``use_reentrant=False`` only), ``early_stop`` (ignored).
    """
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
                      "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between "
                      "the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, debug, early_stop,
                                         *args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (an ``nn.Sequential`` or a list) in ``segments`` chunks, checkpointing all but the last."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default "
                      "behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences "
                      "between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1  # the last chunk is not checkpointed
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
