"""Tracing: run the program once and write down every op it calls.

Every built-in op goes through ``ArrayFunction.apply``; while an ``OpMode`` is entered, that call is
handed to the mode first (``autograd/function.py``).  The tracer is such a mode: for each call it
notes the op class and its arguments -- tensors as graph ``Value``s, everything else as constants --
then runs the op and gives its outputs new Values.  A tensor the tracer meets without having seen it
made is a parameter or buffer of the traced module (``prim::GetAttr``), a ``detach()`` of a known
tensor (same memory), a tensor of one repeated value (``zeros``, ``full``: re-made on each run), or a
constant.  A learner's ``autograd.Function`` is recorded as the ops its forward runs.

What a trace cannot see: Python control flow (an ``if`` on a tensor is decided once, and the tracer
warns when a tensor becomes a Python bool/int/float/list: ``TracerWarning``), tensor factories
(``randn``, ``arange``, ``torch.tensor``: their results become constants, with a warning), and sizes
(``x.view(x.size(0), -1)`` records the numbers).  For sizes there is a second look: the tracer runs
the program once more with one more row in the batch and compares the two graphs.  A number that
changed is ``k * batch`` and is written as such (``SymInt``), so the graph runs on other batch sizes;
when the graphs differ otherwise the trace keeps the traced sizes and checks its inputs against them.
``onnx.export`` uses the same comparison for each dynamic axis it is given.
"""
import inspect
import math
import sys
import warnings
from contextlib import contextmanager

import numpy as np

from .._warnings import user_stacklevel
from .. import _tensor
from .._random import get_rng_state, set_rng_state
from .._tensor import Tensor
from ..autograd.function import OpMode, Function
from ..autograd.grad_mode import _state, no_grad
from ..backend import namespace, is_array
from ..ops.creation import arange
from ..ops.indexing import Index, IndexPut, IndexPut_
from ..nn.modules.rnn import _RNNLayer, _RNNLayerMkldnn
from ..utils._pytree import tree_flatten
from ._ir import Graph, Node, TensorMeta, SymInt, KeyIndex, KeyMask, RnnSteps, Value, walk, leaves

__all__ = ["TracerWarning", "TracingCheckError", "is_tracing", "record", "generalize", "CannotGeneralize"]


class TracerWarning(Warning):
    """A traced value will not follow the inputs when the trace runs again."""

    @staticmethod
    def ignore_lib_warnings():
        """Hide the tracer's warnings that come from inside torch (pedatorch) itself, as PyTorch does."""
        warnings.filterwarnings("ignore", category=TracerWarning, module="pedatorch(?!\\.jit)")


class TracingCheckError(Exception):
    """The trace failed its check (``check_trace``)."""

    def __init__(self, graph_diff_error, tensor_compare_error, extra_msg=None):
        self.message = "Tracing failed sanity checks!\n"
        if extra_msg is not None:
            self.message += extra_msg + "\n"
        if graph_diff_error is not None:
            self.message += "ERROR: Graphs differed across invocations!\n" + graph_diff_error + "\n"
        if tensor_compare_error is not None:
            self.message += ("ERROR: Tensor-valued Constant nodes differed in value across invocations. This "
                             "often indicates that the tracer has encountered untraceable code.\n"
                             + tensor_compare_error + "\n")
        super().__init__(self.message)


_TRACERS = []   # the tracers at work, innermost last


def is_tracing():
    """Is a trace recording right now?"""
    return bool(_TRACERS)


_CONVERSION_TEXT = ("Converting a tensor to a Python {} might cause the trace to be incorrect. We can't record "
                    "the data flow of Python values, so this value will be treated as a constant in the future. "
                    "This means that the trace might not generalize to other inputs!")


def _warn_conversion(kind):
    """``_tensor._trace_warner`` while a trace runs: a tensor became a Python value (see _tensor.py)."""
    if not _TRACERS[-1].warn:
        return
    frame = sys._getframe(2)
    while frame.f_globals.get("__name__") == "pedatorch.overrides":   # (a method's __torch_function__ wrapper)
        frame = frame.f_back
    caller = frame.f_globals.get("__name__", "")
    if caller.startswith("pedatorch.") and not caller.startswith("pedatorch.jit"):
        return   # pedatorch's own code reading a number (PyTorch hides its library's warnings too)
    if kind == "len":
        msg = ("Using len to get tensor shape might cause the trace to be incorrect. Recommended usage would be "
               "tensor.shape[0]. Passing a tensor of different shape might lead to errors or silently give "
               "incorrect results.")
    else:
        msg = _CONVERSION_TEXT.format(kind)
    warnings.warn(msg, TracerWarning, stacklevel=user_stacklevel())


# the ops whose numpy index key was made from index tensors passed after it: (position of the key,
# position of the first index tensor)
_KEYED = {Index: (1, 2), IndexPut: (2, 4), IndexPut_: (2, 4)}
# the recurrent layers over a padded (T, B, ...) input: argument 9 is their time steps
_RNN_LAYERS = (_RNNLayer, _RNNLayerMkldnn)


class _Tracer(OpMode):
    """The op mode that writes the graph (see the module docstring)."""

    def __init__(self, graph, named_tensors, known, module_names, warn):
        self.graph = graph
        self.by_id = {}          # id(tensor) -> its current Value
        self.pinned = []         # the traced tensors, kept alive so that their ids stay theirs
        self.params = {id(t): name for name, t in named_tensors}
        self.named = [t for _, t in named_tensors]   # (keeps their ids valid too)
        self.known = known       # ids of tensors that existed before the trace (no warning as constants)
        self.module_names = module_names
        self.warn = warn
        self.scopes = []
        self.counter = 0

    # ------------------------------------------------------------ values
    def bind(self, t, v):
        self.by_id[id(t)] = v
        self.pinned.append(t)

    def new_value(self, t, name=None):
        if name is None:
            self.counter += 1
            name = str(self.counter)
        return self.graph.new_value(name, TensorMeta(t) if isinstance(t, Tensor) else None)

    def add_node(self, node):
        node.scope = self.scopes[-1] if self.scopes else ""   # ("" at the top module)
        self.graph.nodes.append(node)

    def value_of(self, t):
        """The Value of tensor ``t``; a tensor not made by a traced op gets the node that stands for it."""
        v = self.by_id.get(id(t))
        if v is not None:
            m = v.meta
            if m is None or (t.shape == m.shape and t.stride() == m.strides):
                return v
            # ``t.transpose_(0, 1)``, ``t.squeeze_()``: the tensor took the layout of a view op's result
            # (the op itself was traced); it stands for that result from now on
            source = self._aliased(t)
            if source is not None:
                self.bind(t, source)
                return source
        name = self.params.get(id(t))
        if name is not None:
            v = self.new_value(t, name)
            self.add_node(Node("param", name, (), [v]))
        else:
            source = self._aliased(t)
            if source is not None:
                v = self.new_value(t)
                self.add_node(Node("detach", None, (source,), [v]))
            elif _is_filled(t):
                v = self.new_value(t)
                value = t._data.reshape(-1)[0].item() if t.numel() else 0
                self.add_node(Node("full", None, (tuple(t.shape), value, t.dtype, t.device), [v]))
            else:
                v = self.new_value(t)
                self.add_node(Node("const", t, (), [v]))
                if self.warn and id(t) not in self.known:
                    warnings.warn(
                        f"A tensor of shape {tuple(t.shape)} made inside the traced code is registered as a constant "
                        "in the trace: pedatorch's tracer does not see tensor factories (torch.tensor, randn, "
                        "arange, ...), nonzero, or numpy conversions. You can safely ignore this warning if the tensor "
                        "is the same every time the code runs; in any other case, this might cause the trace to be "
                        "incorrect.", TracerWarning, stacklevel=user_stacklevel())
        self.bind(t, v)
        return v

    def _aliased(self, t):
        """A traced value whose tensor shows the same memory the same way (``t`` is its ``detach()``)."""
        if not self.by_id:
            return None
        ptr, shape, strides, dtype = t.data_ptr(), t.shape, t.stride(), t.dtype
        for s in reversed(self.pinned):
            if s is not t and s.data_ptr() == ptr and s.shape == shape and s.stride() == strides and s.dtype == dtype:
                v = self.by_id.get(id(s))
                if v is not None and v.meta is not None and v.meta.shape == shape and v.meta.strides == strides:
                    return v
        return None

    # ------------------------------------------------------------ ops
    def op(self, cls, args):
        def leaf(a):
            return self.value_of(a) if isinstance(a, Tensor) else a

        template = walk(args, leaf)
        keyed = _KEYED.get(cls)
        if keyed is not None:
            template = _key_template(template, args, *keyed)
        elif cls in _RNN_LAYERS and args[9] == RnnSteps.steps(args[0].shape):
            # a recurrent layer's steps follow its input's shape: made again from it on each run
            template = template[:9] + (RnnSteps(template[0]),) + template[10:]
        grad = _state.enabled or _in_recording_function()
        out = cls.apply(*args)
        multi = type(out) is tuple or type(out) is list
        outs = out if multi else (out,)
        values = [self.new_value(o) for o in outs]
        for o, v in zip(outs, values):
            if isinstance(o, Tensor):
                self.bind(o, v)
        self.add_node(Node("op", cls, template, values, multi=multi, grad=grad))
        return out

    # ------------------------------------------------------------ module scopes (for reading the graph)
    def enter_module(self, module, args):
        self.scopes.append(self.module_names.get(id(module), type(module).__name__))

    def leave_module(self, module, args, result):
        if self.scopes:
            self.scopes.pop()


_FUNCTION_APPLY = Function.apply.__func__.__code__


def _in_recording_function():
    """Is this op part of a learner's ``autograd.Function`` whose call records a graph node?

    ``Function.apply`` runs the learner's forward with grad mode off (its backward is the Function's
    own); the trace keeps the forward's ops, which on a re-run must record gradients for the gradient to
    flow (through their own derivatives: the trace cannot keep the Python backward).  The innermost
    ``Function.apply`` on the stack tells, in its local ``record``, whether the call recorded a node."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code is _FUNCTION_APPLY:
            return bool(frame.f_locals.get("record"))
        frame = frame.f_back
    return False


def _is_filled(t):
    """A tensor of one repeated value (``zeros``, ``ones``, ``full``): the trace re-makes it on each run."""
    if t.requires_grad or t._base is not None or not t.is_contiguous():
        return False
    a = t._data
    if a.size == 0:
        return True
    flat = a.reshape(-1)
    first = flat[0]
    if first != first:   # NaN: equality cannot tell
        return False
    return bool((flat == first).all())


def _key_template(template, args, key_at, first_index):
    """Replace the arrays of an indexing key by what makes them from the index tensors (KeyIndex,
    KeyMask), so that a replay indexes with the new index tensors' values.  Arrays that came from a
    list (``x[[0, 2]]``) stay constants."""
    key = args[key_at]
    if type(key) is not tuple:
        return template
    tensors = args[first_index:]
    values = template[first_index:]
    out, ti, p = [], 0, 0
    while p < len(key):
        e = key[p]
        if isinstance(e, slice) or ti >= len(tensors):
            out.append(template[key_at][p])
            p += 1
            continue
        arr = tensors[ti]._data
        if arr.dtype == np.bool_ or arr.dtype == np.uint8:
            coords = namespace(arr).nonzero(arr.astype(bool))
            k = len(coords)
            if p + k <= len(key) and all(_same_array(key[p + j], coords[j]) for j in range(k)):
                out += [KeyMask(values[ti], j) for j in range(k)]
                p, ti = p + k, ti + 1
                continue
        elif _same_array(e, arr):
            out.append(KeyIndex(values[ti]))
            p, ti = p + 1, ti + 1
            continue
        out.append(e)
        p += 1
    template = list(template)
    template[key_at] = tuple(out)
    return tuple(template)


def _same_array(a, b):
    return getattr(a, "shape", None) == b.shape and bool((a == b).all())


# ====================================================================== one trace

def _known_tensors(fn, module):
    """Ids of the tensors the program could hold before running: the module's attributes, the
    function's globals and closure.  Constants among them need no warning."""
    known = set()
    if module is not None:
        for m in module.modules():
            for v in list(vars(m).values()) + list(m._parameters.values()) + list(m._buffers.values()):
                if isinstance(v, Tensor):
                    known.add(id(v))
    fn = getattr(fn, "__func__", fn)
    for v in list(getattr(fn, "__globals__", {}).values()) + [c.cell_contents for c in
                                                             (getattr(fn, "__closure__", None) or ())
                                                             if _cell_full(c)]:
        if isinstance(v, Tensor):
            known.add(id(v))
    return known


def _cell_full(cell):
    try:
        cell.cell_contents
        return True
    except ValueError:
        return False


def _type_name(x):
    """TorchScript's name of a Python value's type, for the 'cannot be traced' error."""
    if isinstance(x, Tensor):
        return "Tensor"
    if isinstance(x, (tuple, list)):
        inner = ", ".join(_type_name(o) for o in x)
        return ("Tuple[" if isinstance(x, tuple) else "List[") + inner + "]"
    if isinstance(x, dict):
        return "Dict[str, " + (", ".join(sorted({_type_name(v) for v in x.values()})) or "Tensor") + "]"
    return {bool: "bool", int: "int", float: "float", str: "str"}.get(type(x), type(x).__name__)


def _input_names(fn, args, kwargs, n):
    """Names for the inputs: the function's parameter names (``x``, ``input``), numbered when nested."""
    from ..nn.modules.module import Module
    try:
        params = list(inspect.signature(fn.forward if isinstance(fn, Module) else fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i, a in enumerate(args):
        p = params[i] if i < len(params) and params[i].kind in (params[i].POSITIONAL_ONLY,
                                                                  params[i].POSITIONAL_OR_KEYWORD) else None
        base = p.name if p is not None else "input"
        count = len(tree_flatten(a)[0])
        names += [base] if count == 1 else [f"{base}.{j}" for j in range(count)]
    for k, a in kwargs.items():
        count = len(tree_flatten(a)[0])
        names += [k] if count == 1 else [f"{k}.{j}" for j in range(count)]
    seen = {}
    out = []
    for nm in names[:n] + ["input"] * (n - len(names)):
        if nm in seen:
            seen[nm] += 1
            nm = f"{nm}.{seen[nm]}"
        else:
            seen[nm] = 0
        out.append(nm)
    return out


def record(fn, args, kwargs=None, module=None, warn=True, strict=True):
    """Run ``fn(*args, **kwargs)`` once under a tracer; the Graph it ran, and its result."""
    from ..nn.modules.module import register_module_forward_pre_hook, register_module_forward_hook
    kwargs = dict(kwargs or {})
    flat, spec = tree_flatten((tuple(args), kwargs))
    for x in flat:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"Type '{_type_name(tuple(args) if len(args) != 1 else args[0])}' cannot be traced. "
                               "Only Tensors and (possibly nested) Lists, Dicts, and Tuples of Tensors can be traced")
    graph = Graph()
    graph.in_spec = spec
    named = []
    module_names = {}
    if module is not None:
        named = list(module.named_parameters(remove_duplicate=False)) + list(module.named_buffers(
            remove_duplicate=False))
        module_names = {id(m): name for name, m in module.named_modules()}
        graph.self_type = "__torch__." + type(module).__qualname__
    tracer = _Tracer(graph, named, _known_tensors(fn, module), module_names, warn)
    names = _input_names(fn, args, kwargs, len(flat))
    for t, name in zip(flat, names):
        v = graph.new_value(name, TensorMeta(t))
        graph.inputs.append(v)
        tracer.bind(t, v)
    hooks = [register_module_forward_pre_hook(tracer.enter_module), register_module_forward_hook(tracer.leave_module)]
    old_warner = _tensor._trace_warner
    _TRACERS.append(tracer)
    _tensor._trace_warner = _warn_conversion
    try:
        with tracer:
            result = fn(*args, **kwargs)
    finally:
        _TRACERS.pop()
        _tensor._trace_warner = old_warner
        for h in hooks:
            h.remove()
    _check_output(result, strict, warn)
    out_flat, graph.out_spec = tree_flatten(result)
    outs = []
    for o in out_flat:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"Only tensors, lists, tuples of tensors, or dictionary of tensors can be output from "
                               f"traced functions, but got {_type_name(o)}")
        outs.append(tracer.value_of(o))   # (an output the ops did not make: an input, a parameter, a constant)
    graph.outputs = outs
    _drop_unused(graph)
    _mark_fresh_consts(graph)
    return graph, result


def _drop_unused(graph):
    """Leave out the ops whose results nothing uses (``if x.sum() > 0`` leaves a ``sum`` and a ``gt``), as
    TorchScript's dead-code pass does; ops that write into a tensor (in-place ops, batch norm's running
    statistics) stay."""
    from ..nn.functional.normalization import NativeBatchNorm
    live = set(leaves(graph.outputs))
    kept = []
    for node in reversed(graph.nodes):
        writes = node.kind == "op" and (node.op._inplace_of is not None or issubclass(node.op, NativeBatchNorm))
        if writes or any(v in live for v in node.outputs):
            kept.append(node)
            for a in leaves(node.args):
                if type(a) is Value:
                    live.add(a)
                elif type(a) in (KeyIndex, KeyMask, RnnSteps):
                    live.add(a.value)
    graph.nodes = kept[::-1]


def _check_output(result, strict, warn):
    for kind, name in ((list, "list"), (dict, "dict")):
        if _contains(result, kind):
            msg = (f"Encountering a {name} at the output of the tracer might cause the trace to be incorrect, this "
                   "is only valid if the container structure does not change based on the module's inputs. "
                   "Consider using a constant container instead (e.g. for `list`, use a `tuple` instead. for `dict`, "
                   "use a `NamedTuple` instead). If you absolutely need this and know the side effects, pass "
                   "strict=False to trace() to allow this behavior.")
            if strict and kind is dict:
                raise RuntimeError(msg)
            if strict and warn:
                warnings.warn(msg, TracerWarning, stacklevel=user_stacklevel())


def _contains(obj, kind):
    if isinstance(obj, kind):
        return True
    if isinstance(obj, (tuple, list)):
        return any(_contains(o, kind) for o in obj)
    if isinstance(obj, dict):
        return any(_contains(o, kind) for o in obj.values())
    return False


def _mark_fresh_consts(graph):
    """Constants written in place by an op must be copied on every run (else runs would add up)."""
    made_by = {v: n for n in graph.nodes for v in n.outputs}
    for node in graph.nodes:
        if node.kind == "op" and node.op._inplace_of is not None:
            target = node.args[node.op._inplace_of]
            while isinstance(target, Value):
                src = made_by.get(target)
                if src is None:
                    break
                if src.kind == "const":
                    graph.fresh_consts.add(src)
                    break
                if src.kind == "op" and src.op._view_of is not None:
                    target = src.args[src.op._view_of]
                elif src.kind == "detach":
                    target = src.args[0]
                else:
                    break


# ====================================================================== sizes that follow the inputs

class CannotGeneralize(Exception):
    """Two traces of one program differ in a way a size expression cannot explain (the reason)."""


@contextmanager
def untouched(module):
    """Extra runs that leave nothing behind: the module's buffers (BatchNorm's running statistics) and
    the random generator are put back as they were."""
    saved = [(b, b._data.copy()) for b in module.buffers()] if module is not None else []
    rng = get_rng_state()
    try:
        yield
    finally:
        for b, data in saved:
            if b._data.shape == data.shape:
                b._data[...] = data
        set_rng_state(rng)


def grown(flat, where):
    """Copies of the inputs with one more entry along the given (input, dim) places (rows repeated, so
    that indices and masks in them stay valid)."""
    out = list(flat)
    for i, d in where:
        t = out[i]
        n = t.shape[d]
        with no_grad():
            g = t.index_select(d, arange(n + 1, device=t.device) % n)
        if t.requires_grad:
            g.requires_grad_()
        out[i] = g
    return out


def generalize(base, others):
    """Rewrite ``base`` so that the ints which follow a size become ``SymInt``s.

    ``others``: (symbol, base size, graph) for each symbol: ``graph`` is the program traced with that
    size one larger.  An int that changed from v to w fits ``k * size`` when v * (n+1) == w * n; an
    int that follows several sizes is a product of them.  Anything else that changed (a float, a
    constant tensor, the ops themselves) raises CannotGeneralize with the reason."""
    for _, _, g in others:
        if len(g.nodes) != len(base.nodes):
            raise CannotGeneralize(f"the traced code ran {len(base.nodes)} ops for one size and {len(g.nodes)} for "
                                   "another (its control flow depends on the size)")
    sizes = {s: n for s, n, _ in others}
    new_nodes_args = []
    for i, node in enumerate(base.nodes):
        where = f"op #{i} {node.name()}" + (f" (in {node.scope})" if node.scope else "")
        for _, _, g in others:
            _same_node(node, g.nodes[i], where)
        ls = leaves(node.args)
        other_ls = [leaves(g.nodes[i].args) for _, _, g in others]
        fitted = []
        for j, a in enumerate(ls):
            changed = {s: ol[j] for (s, _, _), ol in zip(others, other_ls) if not _same_leaf(a, ol[j])}
            if not changed:
                fitted.append(a)
                continue
            if type(a) is not int or any(type(b) is not int for b in changed.values()):
                raise CannotGeneralize(f"{where} has an argument {a!r} that becomes {list(changed.values())[0]!r} when "
                                       f"the size '{list(changed)[0]}' changes")
            sym = _fit(a, changed, sizes)
            if sym is None:
                raise CannotGeneralize(f"{where} has a size argument {a} that does not follow the size "
                                       f"'{list(changed)[0]}' as a multiple of it")
            fitted.append(sym)
        new_nodes_args.append(_rebuild(node.args, iter(fitted)))
    out_len = len(leaves(base.outputs))
    for _, _, g in others:
        if g.out_spec != base.out_spec or len(leaves(g.outputs)) != out_len or any(
                a.index != b.index for a, b in zip(leaves(base.outputs), leaves(g.outputs))):
            raise CannotGeneralize("the traced code returns other values for another size")
    for node, args in zip(base.nodes, new_nodes_args):
        node.args = args
    # the shapes of all values, with the sizes that follow the inputs (ONNX names those dims)
    for v in base.values:
        if v.meta is None:
            continue
        dims = []
        for d, n in enumerate(v.meta.shape):
            changed = {}
            for s, _, g in others:
                m = g.values[v.index].meta.shape
                if len(m) != len(v.meta.shape):
                    changed = None
                    break
                if m[d] != n:
                    changed[s] = m[d]
            dims.append(n if changed == {} else (_fit(n, changed, sizes) if changed else None))
        v.shape = tuple(dims)


def _fit(v, changed, sizes):
    """``k * s1 * s2 ...`` for an int that was v and became changed[s] when size s grew by one; None if none."""
    syms = []
    for s, w in changed.items():
        n = sizes[s]
        if v == 0 or v * (n + 1) != w * n:
            return None
        syms.append(s)
    denom = math.prod(sizes[s] for s in syms)
    if v % denom:
        return None
    return SymInt(v // denom, sorted(syms))


def _rebuild(template, fitted):
    return walk(template, lambda leaf: next(fitted))


def _same_node(a, b, where):
    if a.kind != b.kind or a.multi != b.multi or len(a.outputs) != len(b.outputs):
        raise CannotGeneralize(f"{where} is another op for another size")
    if a.kind == "op" and a.op is not b.op or a.kind == "param" and a.op != b.op:
        raise CannotGeneralize(f"{where} is {b.name()} for another size")
    if a.kind == "const" and not _same_tensor(a.op, b.op):
        raise CannotGeneralize(f"{where}: a constant tensor of shape {tuple(a.op.shape)} (made inside the traced "
                               f"code) is of shape {tuple(b.op.shape)} or has other values for another size")
    if len(leaves(a.args)) != len(leaves(b.args)):
        raise CannotGeneralize(f"{where} has other arguments for another size")


def _same_tensor(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and bool((a._data == b._data).all())


def _same_leaf(a, b):
    ta = type(a)
    if ta is not type(b):
        return False
    if ta is Value:
        return a.index == b.index
    if ta is KeyIndex:
        return a.value.index == b.value.index
    if ta is KeyMask:
        return a.value.index == b.value.index and a.j == b.j
    if ta is RnnSteps:
        return a.value.index == b.value.index
    if is_array(a):
        return a.shape == b.shape and a.dtype == b.dtype and bool((a == b).all())
    if ta in (int, float, bool, str, complex, type(None)) or a is Ellipsis:
        return a == b or (ta is float and a != a and b != b)
    if ta.__eq__ is object.__eq__:
        # an op's geometry object (convolution, pooling sizes): it holds the input's spatial sizes, which
        # the op reads again from its input where it is converted; it is compared by type
        return True
    return a == b



# ====================================================================== trace with generalization

def trace_graph(fn, args, kwargs=None, module=None, warn=True, strict=True):
    """Trace ``fn`` and generalize the graph over the batch size (dim 0 of the inputs that share the
    first input's dim 0) when a second trace explains every change; the Graph and the result."""
    graph, result = record(fn, args, kwargs, module, warn, strict)
    flat, _ = tree_flatten((tuple(args), dict(kwargs or {})))
    if not flat or flat[0].dim() == 0 or flat[0].shape[0] == 0:
        return graph, result
    n = flat[0].shape[0]
    where = [(i, 0) for i, t in enumerate(flat) if t.dim() > 0 and t.shape[0] == n]
    try:
        other = _retrace(fn, args, kwargs, module, strict, where)
        generalize(graph, [("batch", n, other)])
    except CannotGeneralize:
        return graph, result
    except Exception:   # the program refuses a batch of another size: it keeps its traced shapes
        return graph, result
    graph.symbols = {"batch": where[0]}
    for i, d in where:
        v = graph.inputs[i]
        v.shape = tuple(SymInt(1, ("batch",)) if k == d else s for k, s in enumerate(v.meta.shape))
    return graph, result


def _retrace(fn, args, kwargs, module, strict, where):
    """The graph of ``fn`` on inputs grown at ``where``, leaving no side effects."""
    from ..utils._pytree import tree_unflatten
    flat, spec = tree_flatten((tuple(args), dict(kwargs or {})))
    big_args, big_kwargs = tree_unflatten(grown(flat, where), spec)
    with untouched(module), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph, _ = record(fn, big_args, big_kwargs, module, warn=False, strict=strict)
    return graph
