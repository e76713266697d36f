"""A fuzz program is plain data that renders to Python source.

A program is a list of inputs (numpy data + dtype + layout + requires_grad) and a
list of steps. Every step is one line of PyTorch code, made from an op's template
(``"torch.add({0}, {1}{kw})"``) and its operands and parameters. The same lines run
with ``torch`` bound to real PyTorch or to pedatorch, and the same lines are what
a repro file shows: the program *is* its source code.

Names: input ``i`` is ``x{i}``, step ``k`` binds ``y{k}``.
"""
import math
import string
from dataclasses import dataclass, field

import numpy as np

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool"]
FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["int8", "int16", "int32", "int64", "uint8"]


class Code:
    """Source text used verbatim as a literal (``torch.float32``, ``torch.tensor([0, 1])``)."""

    def __init__(self, src):
        self.src = src

    def __repr__(self):
        return self.src

    def __eq__(self, other):
        return isinstance(other, Code) and other.src == self.src

    def __hash__(self):
        return hash(self.src)


def dt(name):
    """The dtype ``name`` as a source literal: ``torch.float32``."""
    return Code(f"torch.{name}")


def lit(v):
    """Python source for a parameter value."""
    if isinstance(v, Code):
        return v.src
    if isinstance(v, bool) or v is None or isinstance(v, (str, int)):
        return repr(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "float('nan')"
        if math.isinf(v):
            return "float('inf')" if v > 0 else "float('-inf')"
        return repr(v)
    if isinstance(v, tuple):
        inner = ", ".join(lit(e) for e in v)
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if isinstance(v, list):
        return "[" + ", ".join(lit(e) for e in v) + "]"
    if isinstance(v, slice):
        s = "" if v.start is None else lit(v.start)
        s += ":" + ("" if v.stop is None else lit(v.stop))
        if v.step is not None:
            s += ":" + lit(v.step)
        return s
    if v is Ellipsis:
        return "..."
    raise TypeError(f"no literal for {v!r}")


def index_src(idx):
    """Source for what goes between ``[`` and ``]``: ``1, ::2, None``."""
    if not isinstance(idx, tuple):
        idx = (idx,)
    return ", ".join(lit(e) for e in idx) if idx else "()"


def array_src(data, dtype):
    """``np.array([...])`` source holding ``data`` exactly (a float's repr keeps every bit)."""
    if data.size == 0:
        npdt = "bool" if dtype == "bool" else "float64" if dtype in FLOATS else "int64"
        return f"np.zeros({tuple(data.shape)!r}, dtype={npdt!r})"
    if dtype == "bool":
        return f"np.array({data.astype(bool).tolist()!r}, dtype=bool)"
    if dtype in FLOATS:
        return f"np.array({lit_nested(data.astype(np.float64).tolist())})"
    return f"np.array({data.astype(np.int64).tolist()!r})"


def lit_nested(v):
    if isinstance(v, list):
        return "[" + ", ".join(lit_nested(e) for e in v) + "]"
    return lit(float(v))


@dataclass
class Input:
    """An input tensor: ``data`` (numpy, already rounded to ``dtype``) made into a tensor of
    ``dtype``, then viewed through ``layout`` (source appended to the tensor, e.g.
    ``.transpose(-2, -1)``, ``[..., ::2]``, ``.expand(3, 2)``), then ``requires_grad_()``."""
    data: np.ndarray
    dtype: str
    layout: str = ""
    requires_grad: bool = False

    def source(self, name):
        s = f"{name} = torch.tensor({array_src(self.data, self.dtype)}, dtype=torch.{self.dtype}){self.layout}"
        if self.requires_grad:
            s += ".requires_grad_()"
        return s


@dataclass
class Step:
    """One op applied: ``operands`` are value names (``"x0"``, ``"y2"``) or literal values
    (Python scalars); ``params`` fill the template's named fields and ``{kw}``."""
    op: str
    operands: list
    params: dict = field(default_factory=dict)
    form: int = 0  # which of the op's templates (function, method, operator ...)

    def names(self):
        return [a for a in self.operands if isinstance(a, str)]


_FMT = string.Formatter()


def render_template(template, operands, params):
    """Fill ``template`` with operand sources and parameters; parameters not named in the
    template become keyword arguments in ``{kw}``."""
    fields = {f for _, f, _, _ in _FMT.parse(template) if f and not f.isdigit()}
    kw = ", ".join(f"{k}={lit(v)}" for k, v in params.items() if k not in fields)
    values = {k: (v.src if isinstance(v, Code) else index_src(v) if k == "idx" else lit(v))
              for k, v in params.items() if k in fields}
    ops = [a if isinstance(a, str) else lit(a) for a in operands]
    return template.format(*ops, kw=(", " + kw) if kw else "", **values)


@dataclass
class Program:
    seed: int
    inputs: list
    steps: list

    def step_line(self, k):
        """``y{k} = <op source>`` (statement ops such as setitem are two lines)."""
        from .ops import OPS
        step = self.steps[k]
        op = OPS[step.op]
        src = render_template(op.forms[step.form], step.operands, step.params)
        if op.stmt:                       # e.g. "{0}[idx] = {1}" then y = {0}
            return f"{src}\ny{k} = {step.operands[0]}"
        return f"y{k} = {src}"

    def source(self):
        lines = [inp.source(f"x{i}") for i, inp in enumerate(self.inputs)]
        lines += [self.step_line(k) for k in range(len(self.steps))]
        return "\n".join(lines)

    def ops(self):
        return [s.op for s in self.steps]
