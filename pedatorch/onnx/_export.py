"""``onnx.export``: a traced graph written as an ONNX model.

The model is traced (``jit._trace.record``: the ops it calls, in order), and each recorded op is
written as ONNX nodes by the converter registered for its op class in ``_CONVERTERS`` (one table:
``Addmm`` -> ``Gemm``, ``NativeLayerNorm`` -> ``LayerNormalization``, an LSTM layer -> ``LSTM``, ...).
Parameters and buffers become initializers under their names; the inputs and outputs get the names
given (or the forward's argument names).

Dynamic axes: the sizes an ONNX graph must not fix (``{"x": {0: "batch"}}``).  The model is traced
once more per named size, with that size one larger, and the two graphs are compared
(``jit._trace.generalize``): every number in an op's arguments that changed is a multiple of the size
(``SymInt``), and is written as computed from the input's shape at run time (``Shape`` -> ``Gather``
-> ``Mul``), or as the -1 of a ``Reshape``.  A model whose graph changes otherwise with the size
(data-dependent control flow, a ``torch.arange(n)`` constant) cannot be exported with that axis
dynamic, and the error says which op depends on it.
"""
import math
import os
import warnings

import numpy as np

from .._warnings import user_stacklevel
from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.function import ArrayFunction
from ..backend import CPU_BACKEND, is_array, to_host
from ..jit._ir import Value, SymInt, KeyIndex, op_table, _get_attr
from ..jit._trace import record, generalize, CannotGeneralize, grown, untouched
from ..utils._pytree import tree_flatten, tree_unflatten
from .errors import OnnxExporterError, UnsupportedOperatorError

__all__ = ["export_model", "DEFAULT_OPSET", "MIN_OPSET", "MAX_OPSET"]

DEFAULT_OPSET = 20   # PyTorch 2.13's default
MIN_OPSET = 14       # the oldest opset the converters below are written for
MAX_OPSET = 23       # the newest PyTorch 2.13 writes

_INT64_MAX = np.iinfo(np.int64).max
_host = CPU_BACKEND.xp   # an ONNX file holds host arrays: constants are made with numpy itself


def _onnx():
    try:
        import onnx
    except ImportError:
        raise ModuleNotFoundError("pedatorch.onnx.export needs the onnx package: pip install 'pedatorch[deploy]'") \
            from None
    return onnx


# ====================================================================== the converter table

_CONVERTERS = {}


def converts(*classes):
    """Register ``fn(ctx, node) -> ONNX names of the node's outputs`` for these op classes (and their
    subclasses: the in-place twin ``Relu_`` of ``Relu``, ``MaxPool3d`` of ``_MaxPool``)."""
    def decorator(fn):
        for cls in classes:
            _CONVERTERS[cls] = fn
        return fn
    return decorator


def _op(name):
    """The built-in op class called ``name`` (``"Addmm"``)."""
    cls = _OPS.get(name)
    if cls is None:
        raise KeyError(f"pedatorch has no op class '{name}'")
    return cls


def _ops_by_name():
    table, dup = {}, set()
    for cls in op_table().values():
        if cls.__name__ in table:
            dup.add(cls.__name__)
        table[cls.__name__] = cls
    return {k: v for k, v in table.items() if k not in dup}


_OPS = _ops_by_name()


def _converter(cls):
    for c in cls.__mro__:
        fn = _CONVERTERS.get(c)
        if fn is not None:
            return fn
        if c is ArrayFunction:
            break
    return None


# ====================================================================== building the ONNX graph

_ONNX_TYPES = {"float32": "FLOAT", "float64": "DOUBLE", "float16": "FLOAT16", "bfloat16": "BFLOAT16",
               "int64": "INT64", "int32": "INT32", "int16": "INT16", "int8": "INT8", "uint8": "UINT8",
               "uint16": "UINT16", "uint32": "UINT32", "uint64": "UINT64", "bool": "BOOL"}


class _Context:
    """What a converter works with: the pedatorch graph, and the ONNX nodes and initializers written so far."""

    def __init__(self, onnx, graph, opset, module):
        self.onnx, self.graph, self.opset, self.module = onnx, graph, opset, module
        self.nodes = []
        self.initializers = []
        self.names = {}       # Value -> ONNX name
        self.consts = {}      # (dtype, shape, bytes) -> initializer name (small constants are shared)
        self.producer = {v: n for n in graph.nodes for v in n.outputs}
        self.scope = ""
        self.counter = 0
        self.sizes = {}       # symbol -> name of its 1-D int64 size
        self.node = None      # the pedatorch node being converted
        self.param_names = {}  # qualified parameter name -> its ONNX name

    # ------------------------------------------------------------ names
    def fresh(self, hint):
        self.counter += 1
        prefix = "/" + self.scope.replace(".", "/") if self.scope else ""
        return f"{prefix}/{hint}_{self.counter}"

    def emit(self, op_type, inputs, outputs=1, **attrs):
        """Add an ONNX node; its output name(s) (one name when ``outputs`` is 1)."""
        base = self.fresh(op_type)
        outs = [f"{base}_output_{i}" for i in range(outputs)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(self.onnx.helper.make_node(op_type, list(inputs), outs, name=base, **attrs))
        return outs[0] if outputs == 1 else outs

    def const(self, array, hint="Constant"):
        """An initializer holding ``array`` (shared when it is small and repeated)."""
        arr = _host.asarray(to_host(array))
        key = None
        if arr.size <= 16:
            key = (arr.dtype.str, arr.shape, arr.tobytes())
            if key in self.consts:
                return self.consts[key]
        name = self.fresh(hint)
        self.initializers.append(self.onnx.numpy_helper.from_array(arr, name))
        if key is not None:
            self.consts[key] = name
        return name

    def ints(self, values):
        """A 1-D int64 tensor of ``values``: ints, or SymInts computed from the inputs' shapes."""
        values = list(values)
        if all(type(v) is not SymInt for v in values):
            return self.const(_host.array(values, dtype=np.int64), "ints")
        parts, run = [], []
        for v in values:
            if type(v) is SymInt:
                if run:
                    parts.append(self.const(_host.array(run, dtype=np.int64), "ints"))
                    run = []
                parts.append(self.sym(v))
            else:
                run.append(v)
        if run:
            parts.append(self.const(_host.array(run, dtype=np.int64), "ints"))
        return parts[0] if len(parts) == 1 else self.emit("Concat", parts, axis=0)

    def sym(self, s):
        """A 1-D int64 tensor [value of SymInt s]: coef * the sizes, read from the inputs' shapes."""
        out = None
        for name in s.symbols:
            size = self.sizes.get(name)
            if size is None:
                i, d = self.graph.symbols[name]
                size = self.emit("Shape", [self.names[self.graph.inputs[i]]], start=d, end=d + 1)
                self.sizes[name] = size
            out = size if out is None else self.emit("Mul", [out, size])
        if s.coef != 1 or out is None:
            k = self.const(_host.array([s.coef], dtype=np.int64), "ints")
            out = k if out is None else self.emit("Mul", [out, k])
        return out

    # ------------------------------------------------------------ values
    def ndim(self, v):
        return len(v.meta.shape)

    def name(self, v):
        """The ONNX name of Value ``v``."""
        n = self.names.get(v)
        if n is None:
            node = self.producer.get(v)
            raise OnnxExporterError(f"the value %{v.name} of {node.name() if node else 'the graph'} has no ONNX "
                                    "equivalent here (an output the converter of its op does not write)")
        return n

    def tensor(self, a, dtype=None):
        """The ONNX name of argument ``a`` (a Value, or a number/array made a constant) in ``dtype``."""
        if type(a) is Value:
            name = self.name(a)
            if dtype is not None and a.meta is not None and a.meta.dtype != dtype:
                name = self.emit("Cast", [name], to=onnx_type(self.onnx, dtype))
            return name
        if type(a) is SymInt:
            out = self.emit("Squeeze", [self.sym(a)])
            if dtype is not None and dtype != D.int64:
                out = self.emit("Cast", [out], to=onnx_type(self.onnx, dtype))
            return out
        if isinstance(a, Tensor):
            a = a._data
        if is_array(a):
            a = to_host(a)
            return self.const(a if dtype is None else a.astype(dtype.np))
        if dtype is None:
            dtype = D.bool if isinstance(a, bool) else D.get_default_dtype() if isinstance(a, float) else D.int64
        return self.const(_host.asarray(a, dtype=dtype.np))

    def unsupported(self, why=None):
        raise UnsupportedOperatorError(self.node.name(), self.opset, None, reason=why)


def onnx_type(onnx, dtype):
    name = _ONNX_TYPES.get(dtype.name)
    if name is None:
        raise OnnxExporterError(f"ONNX has no element type for {dtype}")
    return getattr(onnx.TensorProto, name)


# ====================================================================== converters
# Each converter reads ``node.args`` as the op's forward received them (see the op's class) and returns
# the ONNX names of the node's outputs (None for an output it does not write).

def _out_dtype(node, i=0):
    return node.outputs[i].meta.dtype


def _unary(op_type):
    def convert(ctx, node):
        return [ctx.emit(op_type, [ctx.tensor(node.args[0], _out_dtype(node))])]
    return convert


def _binary(op_type):
    def convert(ctx, node):
        dt = _out_dtype(node)
        return [ctx.emit(op_type, [ctx.tensor(node.args[0], dt), ctx.tensor(node.args[1], dt)])]
    return convert


def _common_dtype(args):
    """The dtype two operands of a comparison are compared in (PyTorch's promotion)."""
    dts = [a.meta.dtype for a in args if type(a) is Value]
    dt = dts[0] if dts else D.get_default_dtype()
    for d in dts[1:]:
        dt = D.promote_types(dt, d)
    if any(isinstance(a, float) for a in args) and not (dt.is_floating_point or dt.is_complex):
        dt = D.get_default_dtype()
    return dt


def _compare(op_type, negate=False):
    def convert(ctx, node):
        dt = _common_dtype(node.args[:2])
        out = ctx.emit(op_type, [ctx.tensor(node.args[0], dt), ctx.tensor(node.args[1], dt)])
        return [ctx.emit("Not", [out]) if negate else out]
    return convert


def _register_simple():
    for cls, op in [(_op("Relu"), "Relu"), (_op("Sigmoid"), "Sigmoid"), (_op("Tanh"), "Tanh"), (_op("Exp"), "Exp"), (_op("Log"), "Log"),
                    (_op("Sqrt"), "Sqrt"), (_op("Neg"), "Neg"), (_op("Abs"), "Abs"), (_op("Sin"), "Sin"), (_op("Cos"), "Cos"),
                    (_op("Tan"), "Tan"), (_op("Asin"), "Asin"), (_op("Acos"), "Acos"), (_op("Atan"), "Atan"), (_op("Sinh"), "Sinh"),
                    (_op("Cosh"), "Cosh"), (_op("Asinh"), "Asinh"), (_op("Acosh"), "Acosh"), (_op("Atanh"), "Atanh"), (_op("Erf"), "Erf"),
                    (_op("Floor"), "Floor"), (_op("Ceil"), "Ceil"), (_op("Round"), "Round"), (_op("Sign"), "Sign"),
                    (_op("Reciprocal"), "Reciprocal"), (_op("Hardswish"), "HardSwish"), (_op("Hardsigmoid"), "HardSigmoid"),
                    (_op("LogicalNot"), "Not")]:
        _CONVERTERS[cls] = _unary(op)
    for cls, op in [(_op("Mul"), "Mul"), (_op("Maximum"), "Max"), (_op("Minimum"), "Min"), (_op("Pow"), "Pow"),
                    (_op("PowTensor"), "Pow"), (_op("LogicalAnd"), "And"), (_op("LogicalOr"), "Or"), (_op("LogicalXor"), "Xor")]:
        _CONVERTERS[cls] = _binary(op)
    for cls, op, neg in [(_op("Eq"), "Equal", False), (_op("Ne"), "Equal", True), (_op("Lt"), "Less", False),
                         (_op("Le"), "LessOrEqual", False), (_op("Gt"), "Greater", False), (_op("Ge"), "GreaterOrEqual", False)]:
        _CONVERTERS[cls] = _compare(op, neg)


def _add_sub(op_type, swapped=False):
    def convert(ctx, node):
        a, b = node.args[:2]
        alpha = node.args[2] if len(node.args) > 2 else 1
        if swapped:                       # rsub(a, b, alpha) = b - alpha * a
            a, b = b, a
        dt = _out_dtype(node)
        if swapped:
            a_name, b_name = ctx.tensor(a, dt), ctx.tensor(b, dt)
            if alpha != 1:
                b_name = ctx.emit("Mul", [b_name, ctx.tensor(alpha, dt)])
            return [ctx.emit(op_type, [a_name, b_name])]
        b_name = ctx.tensor(b, dt)
        if alpha != 1:
            b_name = ctx.emit("Mul", [b_name, ctx.tensor(alpha, dt)])
        return [ctx.emit(op_type, [ctx.tensor(a, dt), b_name])]
    return convert


def _register_arithmetic():
    _CONVERTERS[_op("Add")] = _add_sub("Add")
    _CONVERTERS[_op("Sub")] = _add_sub("Sub")
    _CONVERTERS[_op("Rsub")] = _add_sub("Sub", swapped=True)
    _CONVERTERS[_op("RsubTensor")] = _add_sub("Sub", swapped=True)

    @converts(_op("Div"))
    def div(ctx, node):
        if len(node.args) > 2 and node.args[2] is not None:
            ctx.unsupported(f"rounding_mode={node.args[2]!r}")
        dt = _out_dtype(node)
        return [ctx.emit("Div", [ctx.tensor(node.args[0], dt), ctx.tensor(node.args[1], dt)])]

    @converts(_op("RPow"))
    def rpow(ctx, node):    # number ** tensor: RPow(tensor, number)
        dt = _out_dtype(node)
        return [ctx.emit("Pow", [ctx.tensor(node.args[1], dt), ctx.tensor(node.args[0], dt)])]

    @converts(_op("Rsqrt"))
    def rsqrt(ctx, node):
        return [ctx.emit("Reciprocal", [ctx.emit("Sqrt", [ctx.tensor(node.args[0], _out_dtype(node))])])]

    @converts(_op("Clamp"))
    def clamp(ctx, node):   # also ClampMin/ClampMax (x, lo, hi) with None for the missing bound
        x, lo, hi = node.args
        dt = _out_dtype(node)
        out = ctx.tensor(x, dt)
        if lo is not None:
            out = ctx.emit("Max", [out, ctx.tensor(lo, dt)])
        if hi is not None:
            out = ctx.emit("Min", [out, ctx.tensor(hi, dt)])
        return [out]

    for cls in (_op("ClampTensor"), _op("ClampMinTensor"), _op("ClampMaxTensor")):
        _CONVERTERS[cls] = clamp

    @converts(_op("Where"))
    def where(ctx, node):
        cond, a, b = node.args
        dt = _out_dtype(node)
        return [ctx.emit("Where", [ctx.tensor(cond, D.bool), ctx.tensor(a, dt), ctx.tensor(b, dt)])]

    @converts(_op("Log2"), _op("Log10"))
    def log_base(ctx, node):
        dt = _out_dtype(node)
        base = 2.0 if issubclass(node.op, _op("Log2")) else 10.0
        return [ctx.emit("Div", [ctx.emit("Log", [ctx.tensor(node.args[0], dt)]), ctx.tensor(math.log(base), dt)])]

    @converts(_op("Log1p"))
    def log1p(ctx, node):
        dt = _out_dtype(node)
        return [ctx.emit("Log", [ctx.emit("Add", [ctx.tensor(node.args[0], dt), ctx.tensor(1.0, dt)])])]

    @converts(_op("Expm1"))
    def expm1(ctx, node):
        dt = _out_dtype(node)
        return [ctx.emit("Sub", [ctx.emit("Exp", [ctx.tensor(node.args[0], dt)]), ctx.tensor(1.0, dt)])]


def _register_activations():

    @converts(_op("LeakyRelu"))
    def leaky_relu(ctx, node):
        return [ctx.emit("LeakyRelu", [ctx.tensor(node.args[0])], alpha=float(node.args[1]))]

    @converts(_op("Hardtanh"))
    def hardtanh(ctx, node):
        x, lo, hi = node.args
        dt = _out_dtype(node)
        return [ctx.emit("Clip", [ctx.tensor(x), ctx.tensor(float(lo), dt), ctx.tensor(float(hi), dt)])]

    @converts(_op("Elu"))
    def elu(ctx, node):     # elu, selu (scale), celu (input_scale = 1/alpha)
        x, alpha, scale, input_scale = node.args
        dt = _out_dtype(node)
        name = ctx.tensor(x, dt)
        if issubclass(node.op, _op("Celu")):
            return [ctx.emit("Celu", [name], alpha=float(alpha))]
        if input_scale != 1:
            ctx.unsupported("input_scale other than 1")
        if scale != 1:
            return [ctx.emit("Selu", [name], alpha=float(alpha), gamma=float(scale))]
        return [ctx.emit("Elu", [name], alpha=float(alpha))]

    @converts(_op("Gelu"))
    def gelu(ctx, node):
        x, approximate = node.args
        dt = _out_dtype(node)
        name = ctx.tensor(x, dt)
        if ctx.opset >= 20:
            return [ctx.emit("Gelu", [name], approximate=approximate)]
        if approximate == "tanh":     # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
            cube = ctx.emit("Mul", [ctx.emit("Mul", [name, name]), name])
            inner = ctx.emit("Add", [name, ctx.emit("Mul", [cube, ctx.tensor(0.044715, dt)])])
            t = ctx.emit("Tanh", [ctx.emit("Mul", [inner, ctx.tensor(math.sqrt(2 / math.pi), dt)])])
        else:                         # 0.5 x (1 + erf(x / sqrt 2))
            t = ctx.emit("Erf", [ctx.emit("Div", [name, ctx.tensor(math.sqrt(2.0), dt)])])
        half = ctx.emit("Mul", [name, ctx.tensor(0.5, dt)])
        return [ctx.emit("Mul", [half, ctx.emit("Add", [t, ctx.tensor(1.0, dt)])])]

    @converts(_op("Silu"))
    def silu(ctx, node):
        name = ctx.tensor(node.args[0], _out_dtype(node))
        return [ctx.emit("Mul", [name, ctx.emit("Sigmoid", [name])])]

    @converts(_op("Mish"))
    def mish(ctx, node):
        name = ctx.tensor(node.args[0], _out_dtype(node))
        return [ctx.emit("Mul", [name, ctx.emit("Tanh", [ctx.emit("Softplus", [name])])])]

    @converts(_op("Softplus"))
    def softplus(ctx, node):
        x, beta, threshold = node.args
        dt = _out_dtype(node)
        name = ctx.tensor(x, dt)
        scaled = name if beta == 1 else ctx.emit("Mul", [name, ctx.tensor(float(beta), dt)])
        out = ctx.emit("Softplus", [scaled])
        if beta != 1:
            out = ctx.emit("Div", [out, ctx.tensor(float(beta), dt)])
        # above the threshold PyTorch returns x itself
        big = ctx.emit("Greater", [scaled, ctx.tensor(float(threshold), dt)])
        return [ctx.emit("Where", [big, name, out])]

    @converts(_op("LogSigmoid"))
    def log_sigmoid(ctx, node):   # -softplus(-x)
        name = ctx.tensor(node.args[0], _out_dtype(node))
        return [ctx.emit("Neg", [ctx.emit("Softplus", [ctx.emit("Neg", [name])])])]

    @converts(_op("Threshold"))
    def threshold(ctx, node):
        x, th, value = node.args
        dt = _out_dtype(node)
        name = ctx.tensor(x, dt)
        return [ctx.emit("Where", [ctx.emit("Greater", [name, ctx.tensor(th, dt)]), name, ctx.tensor(value, dt)])]

    @converts(_op("PreluKernel"))
    def prelu(ctx, node):
        return [ctx.emit("PRelu", [ctx.tensor(node.args[0]), ctx.tensor(node.args[1], _out_dtype(node))])]

    @converts(_op("Glu"))
    def glu(ctx, node):
        x, dim = node.args
        a, b = ctx.emit("Split", [ctx.tensor(x)], outputs=2, axis=dim, **({"num_outputs": 2} if ctx.opset >= 18
                                                                           else {}))
        return [ctx.emit("Mul", [a, ctx.emit("Sigmoid", [b])])]


def _register_reductions():

    def reduce(ctx, op_type, x, dims, keepdim, dt=None):
        name = ctx.tensor(x, dt)
        if dims is None:
            return ctx.emit(op_type, [name], keepdims=int(bool(keepdim)))
        dims = [dims] if isinstance(dims, int) else list(dims)
        if op_type == "ReduceSum" or ctx.opset >= 18:
            return ctx.emit(op_type, [name, ctx.ints(dims)], keepdims=int(bool(keepdim)))
        return ctx.emit(op_type, [name], axes=dims, keepdims=int(bool(keepdim)))

    @converts(_op("Mean"))
    def mean(ctx, node):
        x, dims, keepdim = node.args[:3]
        return [reduce(ctx, "ReduceMean", x, dims, keepdim, _out_dtype(node))]

    @converts(_op("Sum"))
    def sum_(ctx, node):
        x, dims, keepdim = node.args[:3]
        return [reduce(ctx, "ReduceSum", x, dims, keepdim, _out_dtype(node))]

    @converts(_op("MeanAll"))
    def mean_all(ctx, node):
        return [reduce(ctx, "ReduceMean", node.args[0], None, False, _out_dtype(node))]

    @converts(_op("SumAll"))
    def sum_all(ctx, node):
        return [reduce(ctx, "ReduceSum", node.args[0], None, False, _out_dtype(node))]

    @converts(_op("Amax"), _op("Amin"))
    def amax(ctx, node):
        x, dims, keepdim = node.args
        return [reduce(ctx, "ReduceMax" if issubclass(node.op, _op("Amax")) else "ReduceMin", x, dims, keepdim)]

    @converts(_op("MaxAll"), _op("MinAll"))
    def max_all(ctx, node):
        return [reduce(ctx, "ReduceMax" if issubclass(node.op, _op("MaxAll")) else "ReduceMin", node.args[0], None,
                       False)]

    @converts(_op("MaxDim"), _op("MinDim"))
    def max_dim(ctx, node):
        x, dim, keepdim = node.args[:3]
        is_max = issubclass(node.op, _op("MaxDim"))
        values = reduce(ctx, "ReduceMax" if is_max else "ReduceMin", x, [dim], keepdim)
        idx = ctx.emit("ArgMax" if is_max else "ArgMin", [ctx.tensor(x)], axis=dim, keepdims=int(keepdim),
                       select_last_index=0)
        return [values, idx]

    @converts(_op("ArgMax"), _op("ArgMin"))
    def argmax(ctx, node):
        x, dim, keepdim = node.args[:3]
        op_type = "ArgMax" if issubclass(node.op, _op("ArgMax")) else "ArgMin"
        name = ctx.tensor(x)
        if dim is None:   # over the flattened tensor
            name = ctx.emit("Reshape", [name, ctx.ints([-1])])
            out = ctx.emit(op_type, [name], axis=0, keepdims=0)
            if keepdim:
                out = ctx.emit("Reshape", [out, ctx.ints([1] * ctx.ndim(x))])
            return [out]
        return [ctx.emit(op_type, [name], axis=dim, keepdims=int(keepdim))]

    @converts(_op("Softmax"), _op("SafeSoftmax"))
    def softmax(ctx, node):
        return [ctx.emit("Softmax", [ctx.tensor(node.args[0], _out_dtype(node))], axis=node.args[1])]

    @converts(_op("LogSoftmax"))
    def log_softmax(ctx, node):
        return [ctx.emit("LogSoftmax", [ctx.tensor(node.args[0], _out_dtype(node))], axis=node.args[1])]

    @converts(_op("Cumsum"))
    def cumsum(ctx, node):
        x, dim = node.args[:2]
        return [ctx.emit("CumSum", [ctx.tensor(x, _out_dtype(node)), ctx.tensor(dim)])]


# ---------------------------------------------------------------- shapes, views, indexing

def _register_shapes():

    @converts(_op("View"), _op("UnsafeView"), _op("ReshapeAlias"))
    def view(ctx, node):
        x, shape = node.args
        shape = list(shape)
        syms = [i for i, s in enumerate(shape) if type(s) is SymInt]
        if len(syms) == 1:      # one size follows the inputs: Reshape works it out (-1)
            shape[syms[0]] = -1
        return [ctx.emit("Reshape", [ctx.tensor(x), ctx.ints(shape)])]

    @converts(_op("Expand"))
    def expand(ctx, node):
        x, shape = node.args
        return [ctx.emit("Expand", [ctx.tensor(x), ctx.ints([1 if s == -1 else s for s in shape])])]

    @converts(_op("T"))
    def t(ctx, node):
        x = node.args[0]
        if ctx.ndim(x) < 2:
            return [ctx.tensor(x)]
        return [ctx.emit("Transpose", [ctx.tensor(x)], perm=[1, 0])]

    @converts(_op("Transpose"))
    def transpose(ctx, node):
        x, d0, d1 = node.args
        n = ctx.ndim(x)
        perm = list(range(n))
        d0, d1 = d0 % n, d1 % n
        perm[d0], perm[d1] = perm[d1], perm[d0]
        return [ctx.emit("Transpose", [ctx.tensor(x)], perm=perm)]

    @converts(_op("Permute"))
    def permute(ctx, node):
        x, dims = node.args
        n = ctx.ndim(x)
        return [ctx.emit("Transpose", [ctx.tensor(x)], perm=[d % n for d in dims])]

    @converts(_op("Unsqueeze"))
    def unsqueeze(ctx, node):
        x, dim = node.args
        return [ctx.emit("Unsqueeze", [ctx.tensor(x), ctx.ints([dim % (ctx.ndim(x) + 1)])])]

    @converts(_op("Squeeze"), _op("SqueezeDim"), _op("SqueezeDims"))
    def squeeze(ctx, node):
        x = node.args[0]
        dims = node.args[1] if len(node.args) > 1 else None
        shape = x.meta.shape
        n = len(shape)
        if dims is None:
            dims = range(n)
        dims = [dims] if isinstance(dims, int) else dims
        axes = sorted({d % n for d in dims if shape[d % n] == 1 and type(x.shape[d % n]) is not SymInt})
        if not axes:
            return [ctx.tensor(x)]
        return [ctx.emit("Squeeze", [ctx.tensor(x), ctx.ints(axes)])]

    @converts(_op("Select"), _op("Slice"), _op("Alias"))
    def basic_index(ctx, node):
        x, key = node.args
        return [_basic_index(ctx, ctx.tensor(x), key, ctx.ndim(x), x.meta.shape)]

    @converts(_op("Clone"))
    def clone(ctx, node):
        return [ctx.emit("Identity", [ctx.tensor(node.args[0])])]

    @converts(_op("ToCopy"))
    def to_copy(ctx, node):
        x = node.args[0]
        dt = _out_dtype(node)
        if dt == x.meta.dtype:
            return [ctx.emit("Identity", [ctx.tensor(x)])]
        return [ctx.emit("Cast", [ctx.tensor(x)], to=onnx_type(ctx.onnx, dt))]

    @converts(_op("Cat"))
    def cat(ctx, node):
        dim, *parts = node.args
        dt = _out_dtype(node)
        parts = [p for p in parts if not (type(p) is Value and p.meta.shape == (0,))]   # cat skips empty 1-D
        return [ctx.emit("Concat", [ctx.tensor(p, dt) for p in parts], axis=dim)]

    @converts(_op("Stack"))
    def stack(ctx, node):
        dim, *parts = node.args
        dt = _out_dtype(node)
        n = ctx.ndim(parts[0]) + 1
        axis = ctx.ints([dim % n])
        return [ctx.emit("Concat", [ctx.emit("Unsqueeze", [ctx.tensor(p, dt), axis]) for p in parts], axis=dim % n)]

    @converts(_op("Split"), _op("SplitWithSizes"))
    def split(ctx, node):
        x, dim, bounds = node.args
        sizes = [_sym_sub(b, a) for a, b in bounds]
        if any(s is None for s in sizes):
            ctx.unsupported("split sizes that follow a dynamic axis in a way other than a multiple of it")
        outs = ctx.emit("Split", [ctx.tensor(x), ctx.ints(sizes)], outputs=len(sizes), axis=dim)
        return outs if isinstance(outs, list) else [outs]

    @converts(_op("Unbind"))
    def unbind(ctx, node):
        x, dim = node.args
        n = len(node.outputs)
        dim = dim % ctx.ndim(x)
        outs = ctx.emit("Split", [ctx.tensor(x), ctx.ints([1] * n)], outputs=n, axis=dim)
        outs = outs if isinstance(outs, list) else [outs]
        return [ctx.emit("Squeeze", [o, ctx.ints([dim])]) for o in outs]

    @converts(_op("Index"))
    def index(ctx, node):
        x, key = node.args[:2]
        entries = [(p, k) for p, k in enumerate(key) if not (isinstance(k, slice) and k == slice(None))]
        if len(entries) != 1 or isinstance(entries[0][1], slice):
            ctx.unsupported("advanced indexing other than with one index tensor (x[idx], x[:, idx]); boolean masks "
                            "give data-dependent shapes")
        p, k = entries[0]
        idx = ctx.tensor(k.value, D.int64) if type(k) is KeyIndex else ctx.const(to_host(k).astype(np.int64))
        return [ctx.emit("Gather", [ctx.tensor(x), idx], axis=p)]

    @converts(_op("IndexSelect"))
    def index_select(ctx, node):
        x, dim, idx = node.args
        return [ctx.emit("Gather", [ctx.tensor(x), ctx.tensor(idx, D.int64)], axis=dim)]

    @converts(_op("Gather"))
    def gather(ctx, node):
        x, dim, idx = node.args
        return [ctx.emit("GatherElements", [ctx.tensor(x), ctx.tensor(idx, D.int64)], axis=dim)]

    @converts(_op("MaskedFill"))
    def masked_fill(ctx, node):   # also MaskedFillTensor (value a 0-dim tensor)
        x, mask, value = node.args
        dt = _out_dtype(node)
        return [ctx.emit("Where", [ctx.tensor(mask, D.bool), ctx.tensor(value, dt), ctx.tensor(x, dt)])]

    @converts(_op("ConstantPadNd"))
    def pad(ctx, node):
        x, pads, value = node.args
        n = ctx.ndim(x)
        begin, end = [0] * n, [0] * n
        for i in range(len(pads) // 2):   # (last dim's before, after, the dim before's, ...)
            begin[n - 1 - i], end[n - 1 - i] = pads[2 * i], pads[2 * i + 1]
        if any(p < 0 for p in begin + end):
            ctx.unsupported("negative padding")
        dt = _out_dtype(node)
        return [ctx.emit("Pad", [ctx.tensor(x), ctx.ints(begin + end), ctx.tensor(value, dt)], mode="constant")]

    @converts(_op("Flip"))
    def flip(ctx, node):
        x, dims = node.args
        n = ctx.ndim(x)
        dims = [d % n for d in dims]
        k = len(dims)
        return [ctx.emit("Slice", [ctx.tensor(x), ctx.ints([-1] * k), ctx.ints([-_INT64_MAX] * k), ctx.ints(dims),
                                   ctx.ints([-1] * k)])]

    @converts(_op("Repeat"))
    def repeat(ctx, node):
        x, repeats = node.args
        name = ctx.tensor(x)
        extra = len(repeats) - ctx.ndim(x)
        if extra:
            name = ctx.emit("Reshape", [name, ctx.ints([1] * extra + list(x.shape))])
        return [ctx.emit("Tile", [name, ctx.ints(repeats)])]

    @converts(_op("Fill"), _op("FillTensor"), _op("Zero"))
    def fill(ctx, node):     # a tensor filled with one value, in place (written out of place)
        x = node.args[0]
        dt = _out_dtype(node)
        value = 0 if issubclass(node.op, _op("Zero")) else node.args[1]
        v = ctx.tensor(value, dt)
        return [ctx.emit("Expand", [v, ctx.emit("Shape", [ctx.tensor(x)])])]

    @converts(_op("Copy"))
    def copy(ctx, node):     # dst.copy_(src)
        dst, src = node.args
        dt = _out_dtype(node)
        return [ctx.emit("Expand", [ctx.tensor(src, dt), ctx.emit("Shape", [ctx.tensor(dst)])])]


def _sym_sub(b, a):
    """b - a for split bounds that may follow an input size (SymInt); None if that is no SymInt."""
    if type(a) is not SymInt and type(b) is not SymInt:
        return b - a
    if a == 0:
        return b
    if type(a) is SymInt and type(b) is SymInt and a.symbols == b.symbols:
        return SymInt(b.coef - a.coef, a.symbols) if b.coef != a.coef else 0
    return None


def _basic_index(ctx, name, key, ndim, shape):
    """``x[key]`` for a key of ints, slices, None and ... (PyTorch's basic indexing: views)."""
    key = list(key) if isinstance(key, tuple) else [key]
    specified = sum(1 for k in key if k is not None and k is not Ellipsis)
    out_axis, in_axis = 0, 0
    for k in key:
        if k is Ellipsis:
            skip = ndim - specified
            out_axis += skip
            in_axis += skip
        elif k is None:
            name = ctx.emit("Unsqueeze", [name, ctx.ints([out_axis])])
            out_axis += 1
        elif isinstance(k, slice):
            if k != slice(None) and k != slice(None, None, 1):
                step = 1 if k.step is None else k.step
                start = k.start if k.start is not None else (0 if step > 0 else -1)
                stop = k.stop if k.stop is not None else (_INT64_MAX if step > 0 else -_INT64_MAX)
                name = ctx.emit("Slice", [name, ctx.ints([start]), ctx.ints([stop]), ctx.ints([out_axis]),
                                          ctx.ints([step])])
            out_axis += 1
            in_axis += 1
        else:   # an int: select (Gather with a scalar index drops the axis)
            idx = ctx.tensor(k, D.int64) if type(k) is SymInt else ctx.const(_host.array(int(k), dtype=np.int64))
            if type(k) is SymInt:
                idx = ctx.emit("Reshape", [idx, ctx.ints([])])
            name = ctx.emit("Gather", [name, idx], axis=out_axis)
            in_axis += 1
    return name


# ---------------------------------------------------------------- linear algebra, layers

def _register_layers():
    from ..nn.functional import pooling as Pl
    from ..nn.functional import vision as V

    def untransposed(ctx, v):
        """(name, transposed?): the source of a ``t()`` (so Gemm reads the weight as stored: transB=1)."""
        node = ctx.producer.get(v)
        if node is not None and node.kind == "op" and node.op is _op("T") and ctx.ndim(node.args[0]) == 2:
            return ctx.tensor(node.args[0]), 1
        return ctx.tensor(v), 0

    @converts(_op("Addmm"))
    def addmm(ctx, node):
        bias, m1, m2, beta, alpha = node.args
        dt = _out_dtype(node)
        b, trans_b = untransposed(ctx, m2)
        return [ctx.emit("Gemm", [ctx.tensor(m1, dt), b, ctx.tensor(bias, dt)], alpha=float(alpha),
                         beta=float(beta), transB=trans_b)]

    @converts(_op("Mm"), _op("Bmm"), _op("Mv"), _op("Dot"))
    def matmul(ctx, node):
        dt = _out_dtype(node)
        return [ctx.emit("MatMul", [ctx.tensor(node.args[0], dt), ctx.tensor(node.args[1], dt)])]

    @converts(_op("Baddbmm"))
    def baddbmm(ctx, node):
        x, b1, b2, beta, alpha = node.args
        dt = _out_dtype(node)
        prod = ctx.emit("MatMul", [ctx.tensor(b1, dt), ctx.tensor(b2, dt)])
        if alpha != 1:
            prod = ctx.emit("Mul", [prod, ctx.tensor(float(alpha), dt)])
        if beta == 0:
            return [prod]
        xs = ctx.tensor(x, dt)
        if beta != 1:
            xs = ctx.emit("Mul", [xs, ctx.tensor(float(beta), dt)])
        return [ctx.emit("Add", [xs, prod])]

    @converts(_op("Convolution"))
    def convolution(ctx, node):
        x, w, b, g, transposed = node.args
        inputs = [ctx.tensor(x), ctx.tensor(w)] + ([ctx.tensor(b)] if b is not None else [])
        attrs = dict(kernel_shape=list(g.k), strides=list(g.stride), pads=list(g.lo) + list(g.hi),
                     dilations=list(g.dil), group=g.groups)
        if not transposed:
            return [ctx.emit("Conv", inputs, **attrs)]
        # the geometry describes the forward convolution whose input (insp) is this op's output
        natural = [s * (o - 1) + d * (k - 1) + 1 - lo - hi for s, o, d, k, lo, hi in
                   zip(g.stride, g.outsp, g.dil, g.k, g.lo, g.hi)]
        extra = [n - m for n, m in zip(g.insp, natural)]
        return [ctx.emit("ConvTranspose", inputs, output_padding=extra, **attrs)]

    @converts(_op("_MaxPool"))
    def max_pool(ctx, node):
        x, g, need_idx = node.args
        out = ctx.emit("MaxPool", [ctx.tensor(x)], kernel_shape=list(g.k), strides=list(g.s),
                       pads=list(g.p) * 2, dilations=list(g.d), ceil_mode=_ceil_mode(g))
        return [out] + [None] * (len(node.outputs) - 1)   # (PyTorch's indices are not ONNX's)

    @converts(_op("_AvgPool"))
    def avg_pool(ctx, node):
        x, g, div = node.args
        div = to_host(div) if is_array(div) else div
        ceil = _ceil_mode(g)
        include = None
        for flag in (True, False):
            expected = Pl._avg_divisor(g, ceil, flag, None, np.float64, np)
            if np.allclose(np.broadcast_to(expected, np.shape(div)), div):
                include = flag
                break
        if include is None:
            ctx.unsupported("divisor_override")
        return [ctx.emit("AveragePool", [ctx.tensor(x)], kernel_shape=list(g.k), strides=list(g.s),
                         pads=list(g.p) * 2, ceil_mode=ceil, count_include_pad=int(include))]

    @converts(_op("_AdaptiveAvgPool"))
    def adaptive_avg_pool(ctx, node):
        x, mats = node.args
        n = ctx.ndim(x)
        dt = _out_dtype(node)
        return [_apply_matrices(ctx, ctx.tensor(x), [(n - len(mats) + i, m) for i, m in enumerate(mats)], n, dt)]

    @converts(_op("_Upsample"))
    def upsample(ctx, node):
        x, taps = node.args
        n = ctx.ndim(x)
        dt = _out_dtype(node)
        name = ctx.tensor(x)
        gathers = [(axis, idx) for axis, idx, w in taps if w is None]
        for axis, idx in gathers:   # nearest: a gather per dim (exact)
            name = ctx.emit("Gather", [name, ctx.const(to_host(idx[:, 0]).astype(np.int64))], axis=axis)
        mats = [(axis, V._matrix(to_host(idx), to_host(w), node.args[0].meta.shape[axis], np.float64))
                for axis, idx, w in taps
                if w is not None]
        return [_apply_matrices(ctx, name, mats, n, dt) if mats else name]

    @converts(_op("NativeBatchNorm"))
    def batch_norm(ctx, node):
        x, w, b, rm, rv, training, momentum, eps = node.args
        if training or rm is None:
            ctx.unsupported("batch normalization with batch statistics (training mode, or track_running_stats="
                            "False): export the model in eval mode")
        dt = _out_dtype(node)
        c = x.meta.shape[1]
        scale = ctx.tensor(w, dt) if w is not None else ctx.const(_host.ones(c, dtype=dt.np))
        bias = ctx.tensor(b, dt) if b is not None else ctx.const(_host.zeros(c, dtype=dt.np))
        out = ctx.emit("BatchNormalization", [ctx.tensor(x, dt), scale, bias, ctx.tensor(rm, dt), ctx.tensor(rv, dt)],
                       epsilon=float(eps))
        return [out] + [None] * (len(node.outputs) - 1)

    @converts(_op("NativeLayerNorm"))
    def layer_norm(ctx, node):
        x, k, w, b, eps = node.args
        if ctx.opset < 17:
            raise UnsupportedOperatorError(node.name(), ctx.opset, 17)
        dt = _out_dtype(node)
        normalized = tuple(x.meta.shape[-k:])
        scale = ctx.tensor(w, dt) if w is not None else ctx.const(_host.ones(normalized, dtype=dt.np))
        inputs = [ctx.tensor(x, dt), scale] + ([ctx.tensor(b, dt)] if b is not None else [])
        out = ctx.emit("LayerNormalization", inputs, axis=-k, epsilon=float(eps))
        return [out] + [None] * (len(node.outputs) - 1)

    @converts(_op("Embedding"))
    def embedding(ctx, node):
        w, idx = node.args[:2]
        return [ctx.emit("Gather", [ctx.tensor(w), ctx.tensor(idx, D.int64)], axis=0)]

    @converts(_op("ScaledDotProductFlashAttentionForCpu"))
    def attention(ctx, node):
        q, k, v, mask, scale, rep = node.args
        if rep != 1:
            ctx.unsupported("grouped-query attention (enable_gqa)")
        dt = _out_dtype(node)
        n = ctx.ndim(k)
        perm = list(range(n))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        qs = ctx.emit("Mul", [ctx.tensor(q, dt), ctx.tensor(float(scale), dt)])
        scores = ctx.emit("MatMul", [qs, ctx.emit("Transpose", [ctx.tensor(k, dt)], perm=perm)])
        if mask is not None:
            if type(mask) is Value and mask.meta.dtype == D.bool:
                mask = ctx.emit("Where", [ctx.tensor(mask), ctx.tensor(0.0, dt), ctx.tensor(float("-inf"), dt)])
            else:
                mask = ctx.tensor(mask, dt)
            scores = ctx.emit("Add", [scores, mask])
        weights = ctx.emit("Softmax", [scores], axis=-1)
        out = ctx.emit("MatMul", [weights, ctx.tensor(v, dt)])
        return [out] + [None] * (len(node.outputs) - 1)


def _ceil_mode(g):
    from ..nn.functional.pooling import _pooling_output_shape
    floor = [_pooling_output_shape(n, k, p, s, d, False) for n, k, p, s, d in zip(g.insp, g.k, g.p, g.s, g.d)]
    return int(list(g.outsp) != floor)


def _apply_matrices(ctx, name, mats, ndim, dt):
    """Replace dim ``axis`` of x by ``M @ (that dim)`` for each (axis, M): MatMul on the last two dims,
    moving another dim there and back."""
    for axis, m in mats:
        m = _host.asarray(to_host(m), dtype=dt.np)
        if axis == ndim - 1:
            name = ctx.emit("MatMul", [name, ctx.const(_host.ascontiguousarray(m.T), "matrix")])
        elif axis == ndim - 2:
            name = ctx.emit("MatMul", [ctx.const(m, "matrix"), name])
        else:
            perm = list(range(ndim))
            perm[axis], perm[-1] = perm[-1], perm[axis]
            name = ctx.emit("Transpose", [name], perm=perm)
            name = ctx.emit("MatMul", [name, ctx.const(_host.ascontiguousarray(m.T), "matrix")])
            name = ctx.emit("Transpose", [name], perm=perm)
    return name


# ---------------------------------------------------------------- recurrent layers

def _register_rnn():

    # PyTorch's gate order -> ONNX's: LSTM i f g o -> i o f c; GRU r z n -> z r h
    orders = {"LSTM": (4, [0, 3, 1, 2]), "GRU": (3, [1, 0, 2]), "RNN_TANH": (1, [0]), "RNN_RELU": (1, [0])}

    def gates(ctx, w, n, order, dt):
        """Weight ``w`` (n*H, ...) with its gate blocks in ONNX's order, and a leading direction axis."""
        name = ctx.tensor(w, dt)
        if n > 1:
            chunk = w.meta.shape[0] // n
            parts = ctx.emit("Split", [name, ctx.ints([chunk] * n)], outputs=n, axis=0)
            name = ctx.emit("Concat", [parts[i] for i in order], axis=0)
        return ctx.emit("Unsqueeze", [name, ctx.ints([0])])

    @converts(_op("_RNNLayer"))
    def rnn_layer(ctx, node):
        if issubclass(node.op, _op("_RNNLayerPacked")):
            ctx.unsupported("packed sequences")
        x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, mode, steps, reverse = node.args
        if w_hr is not None:
            ctx.unsupported("LSTM projections (proj_size)")
        n, order = orders[mode]
        dt = _out_dtype(node)
        hidden = w_hh.meta.shape[1]
        W = gates(ctx, w_ih, n, order, dt)
        R = gates(ctx, w_hh, n, order, dt)
        if b_ih is not None:
            B = ctx.emit("Concat", [gates(ctx, b_ih, n, order, dt), gates(ctx, b_hh, n, order, dt)], axis=1)
        else:
            B = ""
        inputs = [ctx.tensor(x, dt), W, R, B, "", ctx.emit("Unsqueeze", [ctx.tensor(h0, dt), ctx.ints([0])])]
        attrs = dict(hidden_size=hidden, direction="reverse" if reverse else "forward")
        if mode == "LSTM":
            inputs.append(ctx.emit("Unsqueeze", [ctx.tensor(c0, dt), ctx.ints([0])]))
            y, yh, yc = ctx.emit("LSTM", inputs, outputs=3, **attrs)
            tails = [yh, yc]
        elif mode == "GRU":
            y, yh = ctx.emit("GRU", inputs, outputs=2, linear_before_reset=1, **attrs)
            tails = [yh]
        else:
            y, yh = ctx.emit("RNN", inputs, outputs=2, activations=["Tanh" if mode == "RNN_TANH" else "Relu"],
                             **attrs)
            tails = [yh]
        out = ctx.emit("Squeeze", [y, ctx.ints([1])])            # (T, 1, B, H) -> (T, B, H)
        return [out] + [ctx.emit("Squeeze", [t, ctx.ints([0])]) for t in tails]


_register_simple()
_register_arithmetic()
_register_activations()
_register_reductions()
_register_shapes()
_register_layers()
_register_rnn()


# ====================================================================== nodes that are not ops

def _convert_node(ctx, node):
    """The ONNX names of a node's outputs."""
    if node.kind == "param":
        return [ctx.param_names[node.op]]
    if node.kind == "const":
        return [ctx.const(to_host(node.op._data), "Constant")]
    if node.kind == "detach":
        return [ctx.tensor(node.args[0])]
    if node.kind == "full":
        shape, value, dtype, _ = node.args
        if all(type(s) is not SymInt for s in shape):
            return [ctx.const(_host.full(shape, value, dtype=dtype.np), "Constant")]
        fill = ctx.onnx.numpy_helper.from_array(_host.array([value], dtype=dtype.np))
        return [ctx.emit("ConstantOfShape", [ctx.ints(shape)], value=fill)]
    fn = _converter(node.op)
    if fn is None:
        raise UnsupportedOperatorError(node.name(), ctx.opset, None)
    if node.op._inplace_of is not None:
        _check_inplace_target(ctx, node)
    return fn(ctx, node)


def _check_inplace_target(ctx, node):
    """An in-place write is exported as its out-of-place op: right unless the tensor written is a view of
    another one (``x[0] = v``, ``x[:, :2].relu_()``), whose base would have to change too."""
    target = node.args[node.op._inplace_of]
    src = ctx.producer.get(target) if type(target) is Value else None
    if src is not None and (src.kind == "op" and src.op._view_of is not None or src.kind == "detach"):
        raise UnsupportedOperatorError(
            node.name(), ctx.opset, None,
            reason=f"it writes in place into a view of another tensor (made by {src.name()}), such as x[i] = v; write "
                   "the model with an out-of-place op instead (torch.where, torch.cat, masked_fill)")


# ====================================================================== export

def _dynamic_axes(dynamic_axes, input_names, output_names):
    """{name: {axis: symbol name}} from PyTorch's two spellings ({axis: name} or [axes])."""
    out = {}
    for key, axes in (dynamic_axes or {}).items():
        if isinstance(axes, dict):
            out[key] = {int(a): str(n) for a, n in axes.items()}
        else:
            out[key] = {int(a): f"{key}_dynamic_axes_{i + 1}" for i, a in enumerate(axes)}
    known = set(input_names) | set(output_names)
    for key in out:
        if key not in known:
            warnings.warn(f"Provided key {key} for dynamic axes is not a valid input/output name", stacklevel=user_stacklevel())
    return out


def export_model(model, args, f, kwargs=None, export_params=True, verbose=False, input_names=None,
                 output_names=None, opset_version=None, dynamic_axes=None, keep_initializers_as_inputs=False):
    """Trace ``model`` on ``args`` and write it to ``f`` as ONNX; returns the ModelProto."""
    from ..nn.modules.module import Module
    onnx = _onnx()
    opset = DEFAULT_OPSET if opset_version is None else int(opset_version)
    if not MIN_OPSET <= opset <= MAX_OPSET:
        raise ValueError(f"Unsupported ONNX opset version: {opset}. pedatorch writes opset versions "
                         f"{MIN_OPSET} to {MAX_OPSET}.")
    if isinstance(args, Tensor):
        args = (args,)
    args = tuple(args)
    kwargs = dict(kwargs or {})
    if args and isinstance(args[-1], dict) and not kwargs:   # PyTorch's old spelling: kwargs last in args
        args, kwargs = args[:-1], dict(args[-1])
    module = model if isinstance(model, Module) else None

    # 1. the trace, and its names
    graph, _ = record(model, args, kwargs, module, warn=True)
    in_names = list(input_names or [])[:len(graph.inputs)]
    in_names += [v.name for v in graph.inputs[len(in_names):]]
    n_out = len(graph.outputs)
    out_names = list(output_names or [])[:n_out]
    out_names += (["output"] if n_out == 1 else [f"output_{i}" for i in range(n_out)])[len(out_names):]
    if len(set(in_names + out_names)) != len(in_names) + len(out_names):
        raise ValueError(f"input and output names must be unique: {in_names + out_names}")
    axes = _dynamic_axes(dynamic_axes, in_names, out_names)

    # 2. the sizes that may change: found by more traces (see the module docstring)
    _free_sizes(graph, model, module, args, kwargs, in_names, axes)

    # 3. the ONNX graph: inputs, parameters, a converter call per node, outputs
    ctx = _Context(onnx, graph, opset, module)
    graph_inputs = []
    for v, name in zip(graph.inputs, in_names):
        ctx.names[v] = name
        graph_inputs.append(_value_info(onnx, name, v, axes.get(name, {})))
    initializers = _parameters(ctx, export_params, keep_initializers_as_inputs, graph_inputs)
    for node in graph.nodes:
        ctx.node, ctx.scope = node, node.scope
        for v, n in zip(node.outputs, _convert_node(ctx, node)):
            if n is not None:
                ctx.names[v] = n
    ctx.scope = ""
    graph_outputs = []
    for v, name in zip(graph.outputs, out_names):
        ctx.nodes.append(onnx.helper.make_node("Identity", [ctx.tensor(v)], [name], name=f"/Identity_{name}"))
        graph_outputs.append(_value_info(onnx, name, v, axes.get(name, {})))
    nodes = _drop_unused_nodes(ctx.nodes, [o.name for o in graph_outputs])
    used = {i for n in nodes for i in n.input}
    inits = [t for t in initializers + ctx.initializers if t.name in used or keep_initializers_as_inputs]

    # 4. the model, checked, written
    onnx_graph = onnx.helper.make_graph(nodes, "main_graph", graph_inputs, graph_outputs, inits)
    model_proto = onnx.helper.make_model(onnx_graph, opset_imports=[onnx.helper.make_opsetid("", opset)],
                                         producer_name="pedatorch", producer_version=_version())
    model_proto.ir_version = 8 if opset <= 18 else 9 if opset <= 20 else 10   # (the IR version each opset needs)
    onnx.checker.check_model(model_proto)
    if verbose:
        print(onnx.helper.printable_graph(model_proto.graph))
    data = model_proto.SerializeToString()
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            fh.write(data)
    elif f is not None:
        f.write(data)
    return model_proto


def _free_sizes(graph, model, module, args, kwargs, in_names, axes):
    """Trace once more per dynamic size (one larger) and rewrite ``graph``'s size arguments as SymInts."""
    flat_in, spec = tree_flatten((args, kwargs))
    groups = {}   # symbol -> the (input, axis) places that carry it
    for i, name in enumerate(in_names):
        for axis, sym in axes.get(name, {}).items():
            if axis >= flat_in[i].dim():
                raise ValueError(f"dynamic axis {axis} of input '{name}' is out of range for its shape "
                                 f"{tuple(flat_in[i].shape)}")
            groups.setdefault(sym, []).append((i, axis))
    if not groups:
        return
    others = []
    for sym, where in groups.items():
        n = flat_in[where[0][0]].shape[where[0][1]]
        if any(flat_in[i].shape[a] != n for i, a in where):
            raise ValueError(f"the inputs' sizes named '{sym}' differ: they must be equal")
        big_args, big_kwargs = tree_unflatten(grown(flat_in, where), spec)
        try:
            with untouched(module), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                g, _ = record(model, big_args, big_kwargs, module, warn=False)
        except Exception as e:
            raise OnnxExporterError(f"the model fails on inputs whose size '{sym}' is one larger, so that axis "
                                    f"cannot be dynamic: {type(e).__name__}: {e}") from e
        others.append((sym, n, g))
    try:
        generalize(graph, others)
    except CannotGeneralize as e:
        raise OnnxExporterError(f"The dynamic axes {sorted(groups)} cannot be exported: {e}. Such a model can be "
                                "exported with fixed sizes (no dynamic_axes)") from None
    graph.symbols = {sym: where[0] for sym, where in groups.items()}
    for sym, where in groups.items():
        for i, d in where:
            v = graph.inputs[i]
            v.shape = tuple(SymInt(1, (sym,)) if k == d else s for k, s in enumerate(v.shape))


def _parameters(ctx, export_params, as_inputs, graph_inputs):
    """The module's parameters and buffers the graph reads: initializers under their own names (graph
    inputs instead with ``export_params=False``; both with ``keep_initializers_as_inputs``)."""
    onnx = ctx.onnx
    initializers = []
    for node in ctx.graph.nodes:
        if node.kind != "param" or node.op in ctx.param_names:
            continue
        t = _get_attr(ctx.module, node.op)
        ctx.param_names[node.op] = node.op
        arr = _host.ascontiguousarray(to_host(t._data))
        if export_params:
            initializers.append(onnx.numpy_helper.from_array(arr, node.op))
        if not export_params or as_inputs:
            graph_inputs.append(onnx.helper.make_tensor_value_info(node.op, onnx_type(onnx, t.dtype), list(arr.shape)))
    return initializers


def _version():
    from ..version import __version__
    return __version__


def _value_info(onnx, name, v, named_axes):
    """A graph input/output's type: fixed sizes, symbol names where the size follows a dynamic axis."""
    dims = []
    for d, s in enumerate(v.shape):
        if d in named_axes:
            dims.append(named_axes[d])
        elif type(s) is SymInt:
            dims.append(s.symbols[0] if s.coef == 1 and len(s.symbols) == 1 else None)
        else:
            dims.append(s)
    return onnx.helper.make_tensor_value_info(name, onnx_type(onnx, v.meta.dtype), dims)


def _drop_unused_nodes(nodes, outputs):
    """Keep the ONNX nodes some graph output depends on (a ``t()`` folded into a Gemm leaves its Transpose)."""
    needed = set(outputs)
    kept = []
    for n in reversed(nodes):
        if any(o in needed for o in n.output):
            kept.append(n)
            needed.update(i for i in n.input if i)
    return kept[::-1]
