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

* ``use_reentrant=False`` (recommended) -- PyTorch's design on saved-tensor
  hooks (``autograd.graph.saved_tensors_hooks``).  The forward runs ``fn`` with
  the graph on, but every tensor an op inside saves for backward is handed to a
  pack hook that keeps only an empty *holder* in its place: the activations are
  dropped as they are made.  The first time a backward pass unpacks one of the
  holders, the function is run again (same arguments, random states and
  autocast) under other hooks that put the n-th tensor saved into the n-th
  holder; with ``early_stop`` (the default) the rerun stops as soon as the last
  one is back, so what ``fn`` does after that (a forward hook, a print) runs once
  only.  Backward re-attaches each recomputed tensor to the forward's graph, so
  parameters that ``fn`` closes over get gradients, keyword arguments are
  allowed, ``autograd.grad`` works, and so does a second backward
  (``create_graph=True``).  The determinism check compares the count and the
  shapes, dtypes and devices of what the rerun saved with the forward's.
"""
import contextlib
import itertools
import os
import traceback
import warnings
import weakref

from .._warnings import user_stacklevel
from .. import amp, autograd, cuda
from .._random import get_rng_state, set_rng_state
from .._tensor import Tensor
from ..autograd.engine import current_graph_task
from ..autograd.function import Function, OpMode, save_tensor
from ..autograd.graph import Node, saved_tensors_hooks
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..jit._ir import op_name
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
    """Inside the block, non-reentrant checkpoints stop (True) or do not stop (False) their recomputation once
    every tensor backward needs is back; None leaves it to each call's ``early_stop``."""
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
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=user_stacklevel())


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
    devices = sorted({a.device.index or 0 for a in _flatten(args) if a.device.type == "cuda"})
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
    """The tensors of a (nested) tuple/list/dict, in order."""
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (tuple, list)):
        return [t for o in obj for t in _flatten(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _flatten(o)]
    return []


class _StopRecomputation(Exception):
    """Raised inside the recomputation once every tensor backward needs is back (early stop)."""


class _Holder:
    """What a node of the checkpointed region keeps instead of a saved tensor: an empty slot per backward
    pass, filled by that pass's recomputation (``handles[gid]``; None once backward has taken it)."""
    __slots__ = ("handles", "__weakref__")

    def __init__(self):
        self.handles = {}

    def __repr__(self):   # (what viz.graph(show_saved=True) shows in the node's saved box)
        return "recomputed by checkpoint"


def _metadata(t):
    return {"shape": t.shape, "dtype": t.dtype, "device": t.device}


_unpack_ids = itertools.count(1 << 40)   # a pass id for unpacking outside backward (never a backward's id)


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


class _Frame:
    """One non-reentrant checkpoint call: how to recompute, and the holders its forward handed out.

    Forward: every tensor an op of the region saves goes to ``pack`` (a saved_tensors_hooks pair), which
    keeps only a new holder (weakly, in order) and the tensor's metadata.  Backward: the first ``unpack``
    of a pass reruns the function under ``_recompute_hooks``, whose pack puts the n-th tensor saved into
    the n-th holder; with early stop it stops the rerun there, once the last one is back."""

    def __init__(self, recompute, early_stop, check, debug_log):
        self.recompute = recompute
        self.early_stop = early_stop
        self.check = check             # compare shape/dtype/device of what the rerun saves (determinism_check)
        self.debug_log = debug_log     # (forward ops, recomputed ops) for debug=True, else None
        self.inputs = None             # a Node whose saved tensors are the arguments
        self.args = None               # the arguments, tensors replaced by None
        self.weak_holders = []
        self.metadata = []
        self.counter = {}              # gid -> how many tensors the rerun of that pass saved so far
        self.recomputed = set()        # gids whose rerun ran
        self.forward_completed = False
        self.ignore_saved_mismatch = False

    # -- the forward's hooks
    def pack(self, t):
        holder = _Holder()
        self.weak_holders.append(weakref.ref(holder))
        if self.check:
            self.metadata.append(_metadata(t))
        return holder

    def unpack(self, holder):
        try:
            return self._unpack(holder)
        except CheckpointError as e:
            if self.debug_log is None:
                raise
            raise CheckpointError(_debug_message(*self.debug_log)) from e

    def _unpack(self, holder):
        task = current_graph_task()
        gid = task.id if task is not None else next(_unpack_ids)
        if gid not in self.recomputed:
            args = list(self.args)
            tensors = iter(self.inputs._unpack(s) for s in self.inputs._saved)
            args = [next(tensors) if a is None else a for a in args]
            try:
                with _recompute_hooks(self, gid), enable_grad():
                    self.recompute(*args)
            except _StopRecomputation:
                pass
            self.recomputed.add(gid)
            self._check_recomputed(gid)
        value = holder.handles.get(gid)
        if value is None:
            raise CheckpointError("torch.utils.checkpoint: Unpack is being triggered for a tensor that was "
                                  "already unpacked once. If you are calling ctx.saved_tensors in backward, make "
                                  "sure to do so only once. Otherwise please open an issue with details on your "
                                  "use case.")
        holder.handles[gid] = None   # backward holds it now; the frame does not
        return value

    def _check_recomputed(self, gid):
        if self.ignore_saved_mismatch:
            return
        tip = _debug_tip_msg
        if self.counter.get(gid, 0) != len(self.weak_holders):
            raise CheckpointError("torch.utils.checkpoint: A different number of tensors was saved during the "
                                  "original forward and recomputation.\n"
                                  f"Number of tensors saved during forward: {len(self.weak_holders)}\n"
                                  f"Number of tensors saved during recomputation: {self.counter.get(gid, 0)}.\n"
                                  f"{_debug_tip_msg}")
        if not self.check:
            return
        mismatched = ""
        for idx, ref in enumerate(self.weak_holders):
            holder = ref()
            if holder is None:   # its node is gone (freed by an earlier backward)
                continue
            now = _metadata(holder.handles[gid])
            if now != self.metadata[idx]:
                mismatched += (f"tensor at position {idx}:\nsaved metadata: {self.metadata[idx]}\n"
                               f"recomputed metadata: {now}\n")
        if mismatched:
            raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors have "
                                  f"different metadata than during the forward pass.\n{mismatched}.\n{_debug_tip_msg}")


class _recompute_hooks(saved_tensors_hooks):
    """The hooks of a rerun: the n-th tensor saved goes into the frame's n-th holder (detached: the rerun's
    own graph is thrown away; backward re-attaches the tensor to the forward's graph when it unpacks it)."""

    def __init__(self, frame, gid):
        def pack(t):
            t = t.detach() if t.requires_grad else t
            n = frame.counter.get(gid, 0)
            frame.counter[gid] = n + 1
            if n >= len(frame.weak_holders):
                if not frame.forward_completed:   # a backward inside the checkpointed function itself
                    frame.ignore_saved_mismatch = True
                    return t
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors during recomputation "
                                      "than during the original forward pass.\n" + _debug_tip_msg)
            holder = frame.weak_holders[n]()
            if holder is not None:   # (a holder whose node was freed needs nothing)
                holder.handles[gid] = t
            if frame.early_stop and n + 1 == len(frame.weak_holders):
                raise _StopRecomputation
            return t

        super().__init__(pack, lambda t: t)


class _OpLog(OpMode):
    """debug=True: the ops a run made, each with where the program called it from."""

    def __init__(self, label):
        self.label = label
        self.ops = []
        self.traces = []

    def op(self, cls, args):
        shapes = ", ".join(str(list(a.shape)) for a in args if isinstance(a, Tensor))
        self.ops.append(f"{op_name(cls)}({shapes})")
        self.traces.append([f"{f.filename}:{f.lineno}:{f.name}" for f in traceback.extract_stack()
                            if not f.filename.startswith(_PACKAGE)])
        return cls.apply(*args)

    def dump(self):
        out = ""
        for i, (op, trace) in enumerate(zip(self.ops, self.traces)):
            out += f"{op}   ({i + 1} of {len(self.ops)} in {self.label})\n\n" + "".join(t + "\n" for t in trace)
            out += "\n\n"
        return out


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_RULE = "+" + "~" * 78 + "+"


def _debug_message(forward, recompute):
    """The error of a failed unpack with debug=True: both runs' ops and where they were called, laid out
    as PyTorch's (its section titles, so a search for them finds each part)."""
    def header(title):
        return f"{_RULE}\n|{title:<78}|\n+{'-' * 78}+\n\n"
    return (" \nAn error happened while unpacking tensors; dumping logs of latest computation\n"
            "because you passed `debug=True` to `torch.utils.checkpoint.checkpoint()`.\n"
            "Scroll all the way down for guidance on how to navigate these logs.\n\n" +
            header("        1. Stack traces of the operators that ran in the original forward") + forward.dump() +
            header("        2. Stack traces of the operators that ran during recomputation") + recompute.dump() +
            header("        3. Log of operators in the original forward and recomputation") +
            "Operations executed during the original forward:\n\n" + "\n".join(forward.ops) +
            "\n\nOperations executed during recomputation:\n\n" + "\n".join(recompute.ops) + "\n\n" +
            "+" + "-" * 78 + "+\n"
            " ERROR: Detected non-determinism while running activation checkpointing\n\n"
            " You are seeing this error because you passed `debug=True` to checkpoint and\n"
            " the tensors saved during the original forward differ from those saved during\n"
            " recomputation: different operators ran.  Compare the two lists of operators\n"
            " above, and the stack traces of each, to find where they part.\n" + "-" * 80 + "\n")


def _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, debug, early_stop, *args,
                                  **kwargs):
    debug = _checkpoint_debug_enabled if _checkpoint_debug_enabled is not None else debug
    debug_log = None
    if debug:
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
        debug_log = (_OpLog("original"), _OpLog("recompute"))
        context_fn = lambda: debug_log   # noqa: E731  (the forward's log, the rerun's log)
    if determinism_check not in (_DEFAULT_DETERMINISM_MODE, "none"):
        raise ValueError(f"determinism_check should be one of {[_DEFAULT_DETERMINISM_MODE, 'none']}, but got "
                         f"{determinism_check}")
    forward_context, recompute_context = context_fn()
    fwd = _ForwardContext(args, preserve)

    def recompute(*args):
        with fwd.restored(), recompute_context:
            function(*args, **kwargs)

    frame = _Frame(recompute, _checkpoint_early_stop if _checkpoint_early_stop is not None else early_stop,
                   determinism_check != "none", debug_log)
    if not is_grad_enabled():   # nothing is recorded: nothing to recompute
        with forward_context:
            return function(*args, **kwargs)
    # the arguments are saved as an op saves its inputs (version-checked; packed by an enclosing checkpoint)
    frame.inputs = Node()
    frame.inputs._saved = tuple(save_tensor(a, frame.inputs) for a in args if isinstance(a, Tensor))
    frame.args = [None if isinstance(a, Tensor) else a for a in args]
    suppressed = True
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        out = function(*args, **kwargs)
        suppressed = False
    if suppressed:
        raise RuntimeError("torch.utils.checkpoint: the forward context provided by context_fn suppressed an "
                           "exception raised during the checkpointed forward. This is not supported because "
                           "checkpoint cannot return a value for a failed forward.")
    frame.forward_completed = True
    return out


# ---------------------------------------------------------------- the API

def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check=_DEFAULT_DETERMINISM_MODE, debug=False, early_stop=True, **kwargs):
    """``function(*args, **kwargs)``, keeping only the inputs for backward and recomputing the rest there.

    Keyword args: ``use_reentrant`` (pass it; False is recommended), ``preserve_rng_state=True``,
    ``context_fn``, ``determinism_check`` ("default" or "none"), ``debug``, ``early_stop`` (these four with
    ``use_reentrant=False`` only).
    """
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
                      "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between "
                      "the two variants.", stacklevel=user_stacklevel())
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
                      "between the two variants.", stacklevel=user_stacklevel())
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
