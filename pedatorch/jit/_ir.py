"""The graph a trace records, and how it runs again.

A traced program is a list of nodes in the order the ops ran.  Each node names what made its
outputs (a built-in op class, a parameter of the module, a constant, ...) and holds its arguments
as a *template*: the arguments as they were passed, with every tensor replaced by the ``Value`` that
stands for it.  Running the graph walks the nodes once, turns each template back into arguments
(Values -> the tensors computed so far) and calls the op again: ``cls.apply(*args)``, the very call
that ran while tracing.  So a replay computes what the Python code computed, gradients included
(it builds the same autograd graph), without running the Python code.

Template leaves that are not plain Python values:

- ``Value``      a tensor computed in the graph (an input, an op's output, a parameter, a constant);
- ``SymInt``     an int that follows the size of an input (``2 * x.size(0)``), found by tracing twice
                 (see ``_trace.py``: the batch size of a view's shape, of an RNN's time steps);
- ``KeyIndex`` / ``KeyMask``   the numpy index an indexing op (``x[idx]``, ``x[mask]``) was given,
                 re-made from the index tensor on every run, so a new index selects new rows;
- ``RnnSteps``   the time steps of a recurrent layer, re-made from its input's shape.

Printing follows TorchScript's IR (``graph.graph``) and gives a Python-like listing (``graph.code``).
"""
import re

import numpy as np

from ..autograd.grad_mode import _state, no_grad
from ..backend import namespace, is_array
from .._device import device
from .._dtype import dtype
from .._tensor import Tensor
from ..autograd.op_names import op_name

__all__ = ["Value", "Node", "Graph", "SymInt", "KeyIndex", "KeyMask", "RnnSteps", "op_name", "op_key", "op_table", "walk",
           "leaves"]


class Value:
    """One tensor (or other result) of the graph: its name and what it looked like while tracing."""

    __slots__ = ("name", "index", "meta", "shape")

    def __init__(self, name, index, meta):
        self.name = name      # "x", "fc1.weight", "3"
        self.index = index    # position in Graph.values (two traces of one program number values alike)
        self.meta = meta      # TensorMeta while tracing, or None for a non-tensor result
        self.shape = meta.shape if meta is not None else None   # ints, or SymInts where sizes follow inputs

    def __repr__(self):
        return "%" + self.name


class TensorMeta:
    """What a traced tensor was: enough to print its type and to check a replay."""

    __slots__ = ("shape", "dtype", "strides", "requires_grad", "device")

    def __init__(self, t):
        self.shape = tuple(t.shape)
        self.dtype = t.dtype
        self.strides = t.stride()
        self.requires_grad = t.requires_grad
        self.device = t.device


class SymInt:
    """An int that follows the sizes of the graph's inputs: ``coef * size_1 * size_2 ...``.

    ``symbols`` names the sizes (keys of ``Graph.symbols``, each an (input, dim) pair), with repeats
    for powers.  A trace records plain ints; ``_trace.generalize`` finds the ones that changed when a
    size changed and writes them so."""

    __slots__ = ("coef", "symbols")

    def __init__(self, coef, symbols):
        self.coef, self.symbols = coef, tuple(symbols)

    def eval(self, sizes):
        n = self.coef
        for s in self.symbols:
            n *= sizes[s]
        return n

    def __eq__(self, other):
        return isinstance(other, SymInt) and (self.coef, self.symbols) == (other.coef, other.symbols)

    def __hash__(self):
        return hash((self.coef, self.symbols))

    def __repr__(self):
        return "SymInt(" + " * ".join(([str(self.coef)] if self.coef != 1 else []) + list(self.symbols)) + ")"


class KeyIndex:
    """The int64 index array an indexing op got from the index tensor ``value``."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def make(self, t):
        return namespace(t._data).asarray(t._data, dtype=np.int64)


class KeyMask:
    """Coordinate ``j`` of the nonzero entries of the bool mask ``value`` (what ``x[mask]`` indexes with)."""

    __slots__ = ("value", "j")

    def __init__(self, value, j):
        self.value, self.j = value, j

    def make(self, t):
        arr = t._data.astype(bool)   # (a uint8 mask counts as a bool one, as in indexing)
        return namespace(arr).nonzero(arr)[self.j]


class RnnSteps:
    """The time steps of a recurrent layer over the (T, B, ...) input ``value``: ((t * B, B) for each t),
    the rows of each step in the flattened input; re-made from the input's shape on every run."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    @staticmethod
    def steps(shape):
        T, B = shape[0], shape[1]
        return tuple((t * B, B) for t in range(T))

    def make(self, t):
        return self.steps(t.shape)


# ---------------------------------------------------------------- templates

def walk(obj, fn):
    """``obj`` with ``fn`` applied to every leaf; tuples, lists and slices are taken apart."""
    t = type(obj)
    if t is tuple or t is list:
        return t(walk(o, fn) for o in obj)
    if t is slice:
        return slice(walk(obj.start, fn), walk(obj.stop, fn), walk(obj.step, fn))
    return fn(obj)


def leaves(obj):
    """The leaves of a template, in order (what two traces of one program are compared by)."""
    out = []
    walk(obj, out.append)
    return out


# ---------------------------------------------------------------- names of ops

def op_key(cls):
    """An op class's name in a saved file: its place in pedatorch ("ops.linalg.Addmm")."""
    return cls.__module__[len("pedatorch."):] + "." + cls.__qualname__


def op_table():
    """Every built-in op class by its key (the few keys two classes share are left out)."""
    from ..autograd.function import ArrayFunction
    table, dup = {}, set()
    todo = [ArrayFunction]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            key = op_key(sub)
            if key in table and table[key] is not sub:
                dup.add(key)
            table[key] = sub
    for key in dup:
        del table[key]
    return table


# ---------------------------------------------------------------- nodes and the graph

class Node:
    """One step of the graph.  ``kind``:

    - "op":     ``op`` is a built-in op class, run as ``op.apply(*args)``;
    - "param":  ``op`` is the qualified name of a parameter or buffer of the traced module ("fc1.weight");
    - "const":  ``op`` is a tensor the trace met without seeing it made (a factory result, a global);
    - "full":   a tensor of one repeated value (``zeros``, ``full``), made anew on each run:
                ``args = (shape, value, dtype, device)``;
    - "detach": ``args = (value,)``: ``value.detach()`` (the tracer recognises it by its shared memory).
    """

    __slots__ = ("kind", "op", "args", "outputs", "multi", "scope", "grad")

    def __init__(self, kind, op, args, outputs, multi=False, scope="", grad=True):
        self.kind, self.op, self.args, self.outputs = kind, op, args, outputs
        self.multi = multi    # the op returned a tuple (its outputs are that tuple's entries)
        self.scope = scope    # the module the op ran in ("layer1.0.conv1"), for reading
        self.grad = grad      # grad mode was on when it ran (a replay runs it the same way)

    def name(self):
        if self.kind == "op":
            return op_name(self.op)
        return {"param": "prim::GetAttr", "const": "prim::Constant", "full": "aten::full",
                "detach": "aten::detach"}[self.kind]


class Graph:
    """The traced program: inputs, nodes in run order, outputs.

    ``in_spec``/``out_spec``: the pytree structure of the inputs (args, kwargs) and of the result.
    ``symbols``: sizes the graph generalizes over, name -> (input position, dim).
    """

    def __init__(self):
        self.inputs = []      # Values of the tensor inputs, in order
        self.in_spec = None   # pytree spec of (args, kwargs); its leaves are the inputs
        self.nodes = []
        self.values = []      # every Value, inputs first, in creation order
        self.outputs = None   # template of the result (Values at its tensor leaves)
        self.out_spec = None
        self.symbols = {}     # "batch" -> (input index, dim)
        self.self_type = None  # "__torch__.Net" when traced from a module
        self.fresh_consts = set()   # const nodes an in-place op writes into: copied on every run

    def new_value(self, name, meta):
        v = Value(name, len(self.values), meta)
        self.values.append(v)
        return v

    # ------------------------------------------------------------ running
    def run(self, module, args, kwargs=None):
        """The outputs of the program for new inputs, computed by calling each node's op again."""
        from ..utils._pytree import tree_flatten, tree_unflatten
        from ..ops.creation import full
        flat, spec = tree_flatten((tuple(args), dict(kwargs or {})))
        self._check_inputs(flat, spec)
        env = {}
        for v, t in zip(self.inputs, flat):
            env[v] = t
        sizes = {s: flat[i].shape[d] for s, (i, d) in self.symbols.items()}

        def resolve(leaf):
            lt = type(leaf)
            if lt is Value:
                return env[leaf]
            if lt is SymInt:
                return leaf.eval(sizes)
            if lt is KeyIndex or lt is KeyMask or lt is RnnSteps:
                return leaf.make(env[leaf.value])
            return leaf

        for node in self.nodes:
            kind = node.kind
            if kind == "op":
                call = walk(node.args, resolve)
                if node.grad or not _state.enabled:
                    out = node.op.apply(*call)
                else:
                    with no_grad():
                        out = node.op.apply(*call)
            elif kind == "param":
                out = _get_attr(module, node.op)
            elif kind == "const":
                out = node.op.clone() if node in self.fresh_consts else node.op
            elif kind == "full":
                shape, value, dtype, device = walk(node.args, resolve)
                out = full(shape, value, dtype=dtype, device=device)
            else:   # detach
                out = env[node.args[0]].detach()
            if node.multi:
                for v, o in zip(node.outputs, out):
                    env[v] = o
            else:
                env[node.outputs[0]] = out
        return tree_unflatten([walk(leaf, resolve) for leaf in self.outputs], self.out_spec)

    def _check_inputs(self, flat, spec):
        """The inputs must have the traced structure and shapes (sizes named in ``symbols`` may vary)."""
        if spec != self.in_spec:
            raise RuntimeError(f"The traced code was recorded for inputs structured as {self.in_spec}, "
                               f"but got {spec}")
        varying = {}
        for s, (i, d) in self.symbols.items():
            varying.setdefault(i, set()).add(d)
        sizes = {}
        for pos, (v, t) in enumerate(zip(self.inputs, flat)):
            if not isinstance(t, Tensor):
                raise RuntimeError(f"Expected a Tensor for input {v!r}, but got {type(t).__name__}")
            want = v.shape
            got = tuple(t.shape)
            ok = len(want) == len(got)
            if ok:
                for d, (w, g) in enumerate(zip(want, got)):
                    if type(w) is SymInt:
                        n = sizes.setdefault(w.symbols, g) if w.coef == 1 and len(w.symbols) == 1 else g
                        ok = ok and n == g
                    else:
                        ok = ok and w == g
            if not ok:
                shown = tuple("*" if type(w) is SymInt else w for w in want)
                free = (" (a * marks a size that may change: the batch size the trace generalized over)"
                        if "*" in shown else " (its sizes are constants of the trace)" if self.symbols else
                        " (this trace could not be generalized to other sizes: its ops depend on them in a "
                        "way a second trace could not explain)")
                raise RuntimeError(
                    f"The traced code was recorded for input {v!r} of shape {_shape_text(shown)}{free}, but got "
                    f"shape {_shape_text(got)}. pedatorch's trace records sizes as constants; trace again with "
                    "inputs of the new shape.")

    # ------------------------------------------------------------ printing
    def __str__(self):
        return self.graph_text()

    def graph_text(self):
        """The IR in TorchScript's layout: ``%y : Float(2, 3, ...) = aten::relu(%x)``."""
        head = []
        if self.self_type is not None:
            head.append(f"%self.1 : {self.self_type}")
        head += [f"%{v.name} : {_type_text(v)}" for v in self.inputs]
        lines = ["graph(" + ",\n      ".join(head) + "):"]
        for node in self.nodes:
            outs = ", ".join(f"%{v.name} : {_type_text(v)}" for v in node.outputs)
            if node.kind == "param":
                call = f'prim::GetAttr[name="{node.op}"](%self.1)'
            elif node.kind == "const":
                call = f"prim::Constant[value=<Tensor>]()"
            else:
                call = f"{node.name()}({', '.join(_arg_text(a, self) for a in node.args)})"
            scope = f", scope: {node.scope}" if node.scope else ""
            lines.append(f"  {outs} = {call}{scope}")
        outs = [o for o in leaves(self.outputs)]
        lines.append(f"  return ({', '.join(_arg_text(o, self) for o in outs)})")
        return "\n".join(lines) + "\n"

    def code_text(self, name="forward", method=True):
        """A Python-like listing of the graph, one assignment per node."""
        names = {}

        def pyname(v):
            if v not in names:
                names[v] = ("_" + v.name) if v.name[0].isdigit() else re.sub(r"\W", "_", v.name)
            return names[v]

        for v in self.inputs:
            pyname(v)
        params = (["self"] if method else []) + [f"{pyname(v)}: Tensor" for v in self.inputs]
        lines = [f"def {name}(" + ",\n    ".join(params) + ") -> " + _py_out_type(self) + ":"]

        def arg(a):
            return _arg_text(a, self, lambda v: names.get(v) or pyname(v), python=True)

        for node in self.nodes:
            lhs = ", ".join(pyname(v) for v in node.outputs)
            if node.kind == "param":
                rhs = "self." + node.op
            elif node.kind == "const":
                rhs = "CONSTANTS.c" + pyname(node.outputs[0]).lstrip("_")
            else:
                rhs = node.name().replace("::", ".") + "(" + ", ".join(arg(a) for a in node.args) + ")"
            lines.append(f"  {lhs} = {rhs}")
        outs = [arg(o) for o in leaves(self.outputs)]
        lines.append("  return " + (outs[0] if len(outs) == 1 and self.out_spec.is_leaf() else
                                    "(" + ", ".join(outs) + ("," if len(outs) == 1 else "") + ")"))
        return "\n".join(lines) + "\n"


def _get_attr(module, qualname):
    obj = module
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


# TorchScript's type names: Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)
_SCALAR_TYPES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                 "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                 "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64", "bool": "Bool",
                 "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _shape_text(shape):
    return "(" + ", ".join(str(s) for s in shape) + ")"


def _type_text(v):
    m = v.meta
    if m is None:
        return "NoneType"
    dims = ", ".join(str(s) for s in m.shape)
    sep = ", " if dims else ""
    return (f"{_SCALAR_TYPES.get(m.dtype.name, m.dtype.name)}({dims}{sep}strides=[{', '.join(map(str, m.strides))}], "
            f"requires_grad={int(m.requires_grad)}, device={m.device})")


def _py_out_type(graph):
    n = len(leaves(graph.outputs))
    return "Tensor" if graph.out_spec.is_leaf() else "Tuple[" + ", ".join(["Tensor"] * n) + "]"


def _arg_text(a, graph, name=None, python=False):
    """An argument as the listing shows it: values by name, sizes as expressions, literals as literals."""
    t = type(a)
    if t is Value:
        return name(a) if name else "%" + a.name
    if t is tuple or t is list:
        return "[" + ", ".join(_arg_text(x, graph, name, python) for x in a) + "]"
    if t is slice:
        return "slice(" + ", ".join(_arg_text(x, graph, name, python) for x in (a.start, a.stop, a.step)) + ")"
    if t is SymInt:
        parts = [str(a.coef)] if a.coef != 1 or not a.symbols else []
        for s in a.symbols:
            i, d = graph.symbols[s]
            v = graph.inputs[i]
            parts.append(f"{name(v) if name else '%' + v.name}.size({d})")
        return "*".join(parts)
    if t is KeyIndex:
        return f"index({_arg_text(a.value, graph, name, python)})"
    if t is KeyMask:
        return f"nonzero({_arg_text(a.value, graph, name, python)})[{a.j}]"
    if t is RnnSteps:
        return f"steps({_arg_text(a.value, graph, name, python)})"
    if is_array(a):
        return f"<array {a.dtype.name} {_shape_text(a.shape)}>"
    if isinstance(a, np.dtype):
        return "torch." + a.name if python else a.name
    if a is None:
        return "None"
    if isinstance(a, (bool, int, float, complex, str)):
        return repr(a)
    if a is Ellipsis:
        return "..."
    if isinstance(a, (dtype, device)):
        return repr(a) if python else str(a).replace("torch.", "")
    slots = [s for c in type(a).__mro__ for s in getattr(c, "__slots__", ())]
    if slots and all(hasattr(a, s) for s in slots):   # a geometry object (conv, pooling sizes)
        return f"{type(a).__name__}(" + ", ".join(f"{s}={getattr(a, s)!r}" for s in slots) + ")"
    return repr(a)
