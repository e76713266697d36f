"""Broadcasting, drawn: how shapes line up, which dimensions stretch, and how
gradients are summed back.

Broadcasting compares shapes **from the right** (the trailing dimension first):

1. the shorter shape is padded on the left with 1s (``(4, 3)`` against
   ``(2, 1, 3)`` is treated as ``(1, 4, 3)``): those dimensions are *prepended*;
2. in every dimension the sizes must be equal, or one of them must be 1; a size
   1 is *stretched* to the other size (no copy is made: the stride is 0);
3. otherwise the shapes clash and PyTorch raises
   ``RuntimeError: The size of tensor a (3) must match the size of tensor b (4)
   at non-singleton dimension 1``.

:func:`broadcast` draws this as a table with one column per dimension of the
result; :meth:`BroadcastDiagram.grad_view` draws the way back: the gradient of
the result has the result's shape, and autograd sums it over every dimension an
input was stretched or prepended in, which is exactly ``grad.sum_to_size(shape)``.
:func:`broadcast_widget` lets you type the shapes and watch the picture change.

>>> from pedatorch import viz
>>> print(viz.broadcast((2, 1, 3), (4, 3)))        # doctest: +SKIP
"""
import numbers
import operator
import textwrap

from .._dtype import bool as _bool, float32
from .._tensor import Size
from ..ops.creation import zeros
from ._picture import Picture, html, quote

__all__ = ["broadcast", "broadcast_widget", "BroadcastDiagram", "BroadcastDim", "GradReduction"]

# colours of the table cells, one per role a dimension plays for an operand
COLORS = {
    "kept": "#ffffff",        # the size is the result's size
    "stretched": "#ffd59e",   # a size-1 dimension stretched to n (orange)
    "prepended": "#eeeeee",   # an implicit 1 added on the left (grey, dashed border)
    "clash": "#ff8a8a",       # sizes that cannot broadcast (red)
    "result": "#cfe8ff",      # the result's sizes (blue)
    "header": "#f7f7f7",
}
_STRETCH_TEXT = "#b35900"   # colour of the "1→n" text
_ERROR_TEXT = "#b00000"

# The op whose error message is shown for a clash.  Every elementwise op gives
# the same text; the value says which dummy dtype the op accepts.
_OPS = {
    "+": (operator.add, "float"), "-": (operator.sub, "float"), "*": (operator.mul, "float"),
    "/": (operator.truediv, "float"), "**": (operator.pow, "float"), "//": (operator.floordiv, "float"),
    "%": (operator.mod, "float"), "==": (operator.eq, "float"), "!=": (operator.ne, "float"),
    "<": (operator.lt, "float"), "<=": (operator.le, "float"), ">": (operator.gt, "float"),
    ">=": (operator.ge, "float"), "&": (operator.and_, "bool"), "|": (operator.or_, "bool"),
    "^": (operator.xor, "bool"),
}


# --------------------------------------------------------------------- shapes
def _as_shape(x, what):
    """A tuple of ints from a tensor (anything with ``.shape``), a tuple/list/Size, or an int."""
    if hasattr(x, "shape") and not isinstance(x, (tuple, list)):
        return tuple(int(s) for s in x.shape)
    if isinstance(x, numbers.Integral) and not isinstance(x, bool):
        x = (x,)   # like torch.broadcast_shapes: an int n is the shape (n,)
    if not isinstance(x, (tuple, list)):
        raise TypeError(f"viz.broadcast(): {what} must be a tensor or a shape (tuple, list or "
                        f"torch.Size of ints), got {type(x).__name__}")
    out = []
    for s in x:
        if isinstance(s, bool) or not isinstance(s, numbers.Integral):
            raise TypeError(f"viz.broadcast(): {what} {tuple(x)!r} has a size of type "
                            f"{type(s).__name__}; sizes must be ints")
        if s < 0:
            raise ValueError(f"viz.broadcast(): {what} {tuple(x)!r} has a negative size {s}")
        out.append(int(s))
    return tuple(out)


def _fmt(shape):
    """A shape as Python writes a tuple: ``(2, 3)``, ``(4,)``, ``()``."""
    return repr(tuple(shape))


def _pair_shape(x, y):
    """The broadcast shape of two shapes, or None if they clash (no error text)."""
    n = max(len(x), len(y))
    x = (1,) * (n - len(x)) + tuple(x)
    y = (1,) * (n - len(y)) + tuple(y)
    out = []
    for p, q in zip(x, y):
        if p != q and p != 1 and q != 1:
            return None
        out.append(q if p == 1 else p)
    return tuple(out)


def _error_text(x, y, op):
    """The error pedatorch raises for ``a op b`` with shapes x and y.

    The operands are dummies: a 0-d zero expanded to each shape, so they have
    stride 0 everywhere and take no memory, and the op fails before it would
    allocate anything."""
    fn, kind = _OPS.get(op, (operator.add, "float"))
    dtype = _bool if kind == "bool" else float32
    a = zeros((), dtype=dtype).expand(*x)
    b = zeros((), dtype=dtype).expand(*y)
    try:
        fn(a, b)
    except RuntimeError as e:
        return f"RuntimeError: {e}"
    # pedatorch did not raise: say what the rule says (should not happen)
    return f"RuntimeError: shapes {_fmt(x)} and {_fmt(y)} cannot be broadcast"


# --------------------------------------------------------------------- records
class BroadcastDim:
    """One dimension of the aligned shapes (one column of the picture).

    * ``index`` / ``neg_index``: its position in the result, from the left (0, 1, …)
      and from the right (-1, -2, …);
    * ``sizes``: each operand's size there, ``None`` where the operand has no such
      dimension (an implicit 1 is prepended);
    * ``size``: the result's size, ``None`` where the sizes clash;
    * ``roles``: per operand ``"kept"``, ``"stretched"`` (1 → n),
      ``"prepended"`` (implicit 1; stretched too when ``size`` > 1) or ``"clash"``.
    """

    __slots__ = ("index", "neg_index", "sizes", "size", "roles")

    def __init__(self, index, neg_index, sizes, size, roles):
        self.index, self.neg_index, self.sizes, self.size, self.roles = index, neg_index, sizes, size, roles

    @property
    def clash(self):
        return "clash" in self.roles

    @property
    def stretched(self):
        """The operands (by position) whose size 1 here is stretched to ``size`` > 1,
        including prepended implicit 1s."""
        grown = self.size is not None and self.size != 1
        return tuple(k for k, r in enumerate(self.roles)
                     if r == "stretched" or (r == "prepended" and grown))

    @property
    def prepended(self):
        """The operands (by position) that lack this dimension."""
        return tuple(k for k, s in enumerate(self.sizes) if s is None)

    def __repr__(self):
        return (f"BroadcastDim(index={self.index}, neg_index={self.neg_index}, sizes={self.sizes}, "
                f"size={self.size}, roles={self.roles})")


class GradReduction:
    """How the result's gradient is summed back to one operand's shape.

    * ``summed_away``: leading dims of the gradient that the operand lacks; they are
      summed and disappear (``sum`` without keepdim);
    * ``summed_keepdim``: dims (numbered in the operand's own shape) where the operand
      had size 1 and was stretched; they are summed with ``keepdim=True``;
    * ``call``: the same as Python code, e.g. ``grad.sum(dim=0).sum(dim=0, keepdim=True)``;
    * ``sum_to_size``: the one-call equivalent, e.g. ``grad.sum_to_size(1, 3)``.

    ``apply(grad)`` runs exactly the reduction that ``call`` describes.
    """

    def __init__(self, name, shape, result_shape):
        self.name, self.shape, self.result_shape = name, tuple(shape), tuple(result_shape)
        lead = len(result_shape) - len(shape)
        self.summed_away = tuple(range(lead))
        self.summed_keepdim = tuple(i for i, (s, r) in enumerate(zip(shape, result_shape[lead:]))
                                    if s == 1 and r != 1)
        self.sum_to_size = f"grad.sum_to_size({', '.join(map(str, shape)) if shape else '()'})"
        self.call = "grad" + "".join(self._steps())

    def _steps(self):
        """The ``.sum(...)`` calls, as text."""
        def dims(ds):
            return str(ds[0]) if len(ds) == 1 else "(" + ", ".join(map(str, ds)) + ")"
        if not self.shape and self.result_shape:
            return [".sum()"]                      # a scalar: everything is summed
        steps = []
        if self.summed_away:
            steps.append(f".sum(dim={dims(self.summed_away)})")
        if self.summed_keepdim:
            steps.append(f".sum(dim={dims(self.summed_keepdim)}, keepdim=True)")
        return steps

    @property
    def identity(self):
        """True when nothing is summed: the gradient already has the operand's shape."""
        return not self.summed_away and not self.summed_keepdim

    def apply(self, grad):
        """Sum ``grad`` (a pedatorch or torch tensor of the result's shape) back to
        the operand's shape, by the steps in ``call``."""
        if tuple(grad.shape) != self.result_shape:
            raise ValueError(f"GradReduction.apply: grad has shape {_fmt(grad.shape)}, "
                             f"expected the result's shape {_fmt(self.result_shape)}")
        if not self.shape and self.result_shape:
            return grad.sum()
        if self.summed_away:
            grad = grad.sum(dim=self.summed_away)
        if self.summed_keepdim:
            grad = grad.sum(dim=self.summed_keepdim, keepdim=True)
        return grad

    def __repr__(self):
        return f"GradReduction({self.name}: {_fmt(self.result_shape)} -> {_fmt(self.shape)}: {self.call})"


# --------------------------------------------------------------------- the picture
class BroadcastDiagram(Picture):
    """The picture :func:`broadcast` returns.

    Attributes: ``shapes`` (the operands' shapes), ``names`` (``a``, ``b``, …),
    ``op``, ``result_shape`` (None if the shapes clash), ``error`` (PyTorch's error
    text, or None), ``dims`` (one :class:`BroadcastDim` per column), ``grad``
    (whether this is the gradient view) and ``reductions`` (one
    :class:`GradReduction` per operand; None if the shapes clash).
    ``str()`` gives the same alignment as plain text.
    """

    kind = "BroadcastDiagram"

    def __init__(self, shapes, names, op="+", grad=False):
        self.shapes = tuple(Size(s) for s in shapes)
        self.names = tuple(names)
        self.op = op
        self.grad = bool(grad)
        self.ndim = max(len(s) for s in shapes)
        self.error = None
        self.dims = self._align()
        # the error text comes from pedatorch itself, folding left like a op b op c
        cur = self.shapes[0]
        for s in self.shapes[1:]:
            nxt = _pair_shape(cur, s)
            if nxt is None:
                self.error = _error_text(cur, s, op)
                break
            cur = nxt
        self.result_shape = None if self.error else Size(cur)
        self.reductions = None if self.error else [GradReduction(n, s, self.result_shape)
                                                   for n, s in zip(self.names, self.shapes)]
        super().__init__(self._dot(), self._summary())

    # ..................................................................... analysis
    def _align(self):
        dims = []
        n = self.ndim
        for j in range(n):
            neg = j - n
            sizes = tuple(s[neg] if -neg <= len(s) else None for s in self.shapes)
            real = {s for s in sizes if s is not None and s != 1}
            size = None if len(real) > 1 else (real.pop() if real else 1)
            roles = []
            for s in sizes:
                if s is None:
                    roles.append("prepended")
                elif len(real) > 1 and s != 1:
                    roles.append("clash")
                elif s == 1 and size is not None and size != 1:
                    roles.append("stretched")
                else:
                    roles.append("kept")
            dims.append(BroadcastDim(j, neg, sizes, size, tuple(roles)))
        return dims

    def expression(self):
        """``a + b`` (the operands joined by the op)."""
        return f" {self.op} ".join(self.names)

    def _summary(self):
        left = f" {self.op} ".join(_fmt(s) for s in self.shapes)
        if self.error:
            return f"{left} -> error: {self.error}"
        if self.grad:
            calls = "; ".join(f"{r.name}: {r.call}" for r in self.reductions)
            return f"grad of {left} -> {_fmt(self.result_shape)}: {calls}"
        return f"{left} -> {_fmt(self.result_shape)}"

    def grad_view(self):
        """The reverse picture: how the result's gradient is summed back to each input."""
        return BroadcastDiagram(self.shapes, self.names, self.op, grad=True)

    def forward_view(self):
        """The forward picture (how the shapes broadcast)."""
        return BroadcastDiagram(self.shapes, self.names, self.op, grad=False)

    # ..................................................................... text
    def _cell_text(self, k, d):
        """What operand k shows in dim d (plain text; the picture uses the same words)."""
        s, role = d.sizes[k], d.roles[k]
        if self.grad:
            if role == "prepended":
                return "summed"
            if role == "stretched":
                return "sum->1"
            return str(s)
        if role == "prepended":
            return f"[1->{d.size}]" if d.size not in (None, 1) else "[1]"
        if role == "stretched":
            return f"1->{d.size}"
        if role == "clash":
            return f"{s}!"
        return str(s)

    def __str__(self):
        rows = [["dim"] + [str(d.neg_index) for d in self.dims],
                [""] + [str(d.index) for d in self.dims]]
        res_sizes = [("?" if d.size is None else str(d.size)) for d in self.dims]
        if self.grad and not self.error:
            rows.append([f"grad {_fmt(self.result_shape)}"] + res_sizes)
            for k, (name, shape) in enumerate(zip(self.names, self.shapes)):
                rows.append([f"{name}.grad {_fmt(shape)}"] + [self._cell_text(k, d) for d in self.dims])
        else:
            for k, (name, shape) in enumerate(zip(self.names, self.shapes)):
                rows.append([f"{name} {_fmt(shape)}"] + [self._cell_text(k, d) for d in self.dims])
            rows.append([f"result {_fmt(self.result_shape) if self.result_shape is not None else '?'}"]
                        + res_sizes)
        w0 = max(len(r[0]) for r in rows)
        ws = [max(len(r[j]) for r in rows) for j in range(1, self.ndim + 1)]
        lines = [self._title_text()]
        for i, r in enumerate(rows):
            line = r[0].ljust(w0) + "  " + "  ".join(c.rjust(w) for c, w in zip(r[1:], ws))
            if self.grad and not self.error and i >= 3:
                red = self.reductions[i - 3]
                line += f"   {red.call}" + ("" if red.identity else f"  ==  {red.sum_to_size}")
            lines.append(line.rstrip())
        if self.error:
            lines.append(self.error)
        elif self.grad:
            lines.append("summed = a prepended dim, summed away; sum->1 = a stretched dim, summed with keepdim=True")
        else:
            lines.append("[1] = implicit 1 prepended on the left; 1->n = a size-1 dim stretched to n")
        return "\n".join(lines)

    def _title_text(self):
        shapes = f" {self.op} ".join(_fmt(s) for s in self.shapes)
        if self.error:
            return f"{self.expression()}: {shapes} cannot broadcast"
        if self.grad:
            back = ", ".join(f"{n} {_fmt(s)}" for n, s in zip(self.names, self.shapes))
            return f"gradient of {self.expression()}: grad {_fmt(self.result_shape)} summed back to {back}"
        return f"{self.expression()}: {shapes} -> {_fmt(self.result_shape)}"

    # ..................................................................... DOT
    def _td(self, text, color, port=None, sub=None, sub_color=None, dashed=False, bold=False, tooltip=None):
        attrs = f' BGCOLOR="{color}"'
        if port:
            attrs += f' PORT="{port}"'
        if dashed:
            attrs += ' STYLE="dashed"'
        if tooltip:
            attrs += f' TOOLTIP="{html(tooltip)}"'
        body = html(text)
        if bold:
            body = f"<B>{body}</B>"
        if dashed:
            body = f'<FONT COLOR="#888888">{body}</FONT>'
        if sub is not None:
            fc = f' COLOR="{sub_color}"' if sub_color else ""
            body += f'<BR/><FONT POINT-SIZE="9"{fc}>{html(sub)}</FONT>'
        return f"<TD{attrs}>{body}</TD>"

    def _name_td(self, name, shape):
        return (f'<TD ALIGN="RIGHT" BGCOLOR="{COLORS["header"]}"><B>{html(name)}</B><BR/>'
                f'<FONT POINT-SIZE="9">{html(_fmt(shape) if shape is not None else "?")}</FONT></TD>')

    def _header_rows(self, extra=""):
        neg = "".join(f'<TD BORDER="0"><FONT POINT-SIZE="10" COLOR="#666666">{d.neg_index}</FONT></TD>' for d in self.dims)
        pos = "".join(f'<TD BORDER="0"><FONT POINT-SIZE="10" COLOR="#666666">{d.index}</FONT></TD>' for d in self.dims)
        return (f'<TR><TD BORDER="0" ALIGN="RIGHT"><FONT POINT-SIZE="10" COLOR="#666666">dim (from the right)</FONT></TD>'
                f'{neg}{extra}</TR>'
                f'<TR><TD BORDER="0" ALIGN="RIGHT"><FONT POINT-SIZE="10" COLOR="#666666">dim of the result</FONT></TD>'
                f'{pos}{extra}</TR>')

    def _forward_rows(self):
        rows = [self._header_rows()]
        for k, (name, shape) in enumerate(zip(self.names, self.shapes)):
            cells = [self._name_td(name, shape)]
            for d in self.dims:
                s, role, port = d.sizes[k], d.roles[k], f"o{k}d{d.index}"
                if role == "prepended":
                    stretched = d.size not in (None, 1)
                    cells.append(self._td("1", COLORS["prepended"], port, dashed=True,
                                          sub=f"new, 1→{d.size}" if stretched else "new",
                                          sub_color=_STRETCH_TEXT if stretched else "#888888",
                                          tooltip=f"{name} has no dim {d.neg_index}: an implicit 1 is prepended"))
                elif role == "stretched":
                    cells.append(self._td("1", COLORS["stretched"], port, sub=f"1→{d.size}",
                                          sub_color=_STRETCH_TEXT,
                                          tooltip=f"{name}'s size 1 is stretched to {d.size} (stride 0)"))
                elif role == "clash":
                    cells.append(self._td(str(s), COLORS["clash"], port, sub="clash", sub_color=_ERROR_TEXT,
                                          bold=True))
                else:
                    cells.append(self._td(str(s), COLORS["kept"], port, sub="kept", sub_color="#888888"))
            rows.append("<TR>" + "".join(cells) + "</TR>")
        cells = [self._name_td("result", self.result_shape)]
        for d in self.dims:
            if d.clash:
                sizes = " vs ".join(str(s) for s in d.sizes if s not in (None, 1))
                cells.append(self._td("?", COLORS["clash"], f"r{d.index}", sub=sizes, sub_color=_ERROR_TEXT,
                                      bold=True))
            else:
                cells.append(self._td(str(d.size), COLORS["result"], f"r{d.index}", bold=True))
        rows.append("<TR>" + "".join(cells) + "</TR>")
        return rows

    def _grad_rows(self):
        rows = [self._header_rows('<TD BORDER="0"></TD>')]
        cells = [self._name_td("grad", self.result_shape)]
        cells += [self._td(str(d.size), COLORS["result"], f"r{d.index}", bold=True) for d in self.dims]
        cells.append('<TD ALIGN="LEFT"><FONT POINT-SIZE="10">the gradient of the result</FONT></TD>')
        rows.append("<TR>" + "".join(cells) + "</TR>")
        for k, (name, red) in enumerate(zip(self.names, self.reductions)):
            cells = [self._name_td(f"{name}.grad", red.shape)]
            lead = len(red.summed_away)
            for d in self.dims:
                role, port = d.roles[k], f"o{k}d{d.index}"
                if role == "prepended":
                    cells.append(self._td("Σ", COLORS["prepended"], port, dashed=True, sub="summed away",
                                          sub_color="#888888"))
                elif role == "stretched":
                    cells.append(self._td("1", COLORS["stretched"], port, sub=f"Σ dim {d.index - lead}, keepdim",
                                          sub_color=_STRETCH_TEXT))
                else:
                    cells.append(self._td(str(d.sizes[k]), COLORS["kept"], port, sub="kept", sub_color="#888888"))
            note = f'<FONT FACE="Courier">{html(red.call)}</FONT>'
            if not red.identity:
                note += f'<BR/><FONT FACE="Courier" POINT-SIZE="10">= {html(red.sum_to_size)}</FONT>'
            else:
                note += '<BR/><FONT POINT-SIZE="10">nothing to sum</FONT>'
            cells.append(f'<TD ALIGN="LEFT" BALIGN="LEFT" PORT="call{k}">{note}</TD>')
            rows.append("<TR>" + "".join(cells) + "</TR>")
        return rows

    def _legend(self):
        if self.grad:
            items = [("kept", COLORS["kept"], False), ("stretched: summed, keepdim=True", COLORS["stretched"], False),
                     ("prepended: summed away", COLORS["prepended"], True)]
        else:
            items = [("kept", COLORS["kept"], False), ("stretched 1→n (stride 0, no copy)", COLORS["stretched"], False),
                     ("implicit 1 (prepended on the left)", COLORS["prepended"], True)]
            if self.error:
                items.append(("clash", COLORS["clash"], False))
        cells = "".join(f'<TD BGCOLOR="{c}"{" STYLE=" + chr(34) + "dashed" + chr(34) if dashed else ""}>'
                        f'<FONT POINT-SIZE="10">{html(t)}</FONT></TD>' for t, c, dashed in items)
        return f'<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="4"><TR>{cells}</TR></TABLE>'

    def _dot(self):
        rows = self._grad_rows() if (self.grad and not self.error) else self._forward_rows()
        table = ('<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="3" CELLPADDING="5">'
                 + "".join(rows) + "</TABLE>")
        lines = [
            "digraph broadcast {",
            f"  graph [fontname=Helvetica labelloc=t fontsize=14 nodesep=0.3 ranksep=0.25 "
            f"label={quote(self._title_text().replace('->', '→'))}];",
            "  node [fontname=Helvetica shape=plaintext];",
            "  edge [fontname=Helvetica];",
            f"  table [label=<{table}>];",
            f"  legend [label=<{self._legend()}>];",
            "  table -> legend [style=invis];",
        ]
        if self.error:
            lines.append(f"  error [shape=note style=filled fillcolor=\"#fff0f0\" color=\"{_ERROR_TEXT}\" "
                         f"fontcolor=\"{_ERROR_TEXT}\" fontname=Courier "
                         f"label={quote(chr(10).join(textwrap.wrap(self.error, 56)))}];")
            for d in self.dims:
                if d.clash:
                    lines.append(f"  table:r{d.index}:s -> error [color=\"{_ERROR_TEXT}\"];")
        lines.append("}")
        return "\n".join(lines) + "\n"


# --------------------------------------------------------------------- entry points
def broadcast(a, *more, op="+", grad=False, names=None):
    """Draw how the shapes of ``a``, ``b``, … broadcast (``a op b op …``).

    Each operand is a tensor or a shape (tuple, list or ``torch.Size``; an int
    ``n`` means ``(n,)``, as in ``torch.broadcast_shapes``).  Returns a
    :class:`BroadcastDiagram`: it renders inline in Jupyter, ``print()`` gives the
    same alignment as text, and ``.result_shape``, ``.error``, ``.dims`` say what
    it shows.  For shapes that clash, ``.error`` is the RuntimeError that
    pedatorch (and PyTorch) raise for ``a op b``.

    ``grad=True`` (or ``.grad_view()``) draws the way back: how autograd sums the
    result's gradient to each operand's shape, with the equivalent code.
    ``names`` names the operands (default ``a``, ``b``, ``c``, …).
    """
    operands = (a,) + more
    if names is None:
        names = [chr(ord("a") + k) if k < 26 else f"t{k}" for k in range(len(operands))]
    names = list(names)
    if len(names) != len(operands):
        raise ValueError(f"viz.broadcast(): got {len(operands)} operands but {len(names)} names")
    shapes = [_as_shape(x, f"operand {n}") for x, n in zip(operands, names)]
    return BroadcastDiagram(shapes, names, str(op), grad=grad)


def parse_shape(text):
    """A shape typed as text: ``"2,1,3"``, ``"(2, 1, 3)"``, ``"[4]"``, ``"5"``;
    ``"()"`` or ``""`` is a scalar's shape.  Raises ValueError saying what is wrong."""
    t = str(text).strip()
    if t.startswith("torch.Size(") and t.endswith(")"):
        t = t[len("torch.Size("):-1].strip()
    if len(t) >= 2 and (t[0], t[-1]) in (("(", ")"), ("[", "]")):
        t = t[1:-1]
    parts = [p.strip() for p in t.split(",")]
    if parts and parts[-1] == "":
        parts.pop()          # "3," is the 1-d shape (3,)
    out = []
    for p in parts:
        try:
            v = int(p)
        except ValueError:
            raise ValueError(f"{p!r} is not a whole number" if p else "an empty size between commas") from None
        if v < 0:
            raise ValueError(f"sizes cannot be negative (got {v})")
        out.append(v)
    return tuple(out)


def broadcast_widget(shape_a="2,1,3", shape_b="4,3", op="+", grad=False):
    """An ipywidgets box: type two shapes (comma lists, ``()`` for a scalar), tick
    the gradient view, and the broadcast picture follows every edit.

    The returned VBox has ``.text_a``, ``.text_b`` (the Text inputs),
    ``.grad_toggle``, ``.picture`` (a ``widgets.HTML`` holding the SVG),
    ``.diagram`` (the current :class:`BroadcastDiagram`, None while the text is
    bad), ``.message`` (what is wrong with the text, or None) and ``.update()``.
    """
    from . import _need
    from ._render import RendererNotFound
    widgets = _need("ipywidgets")
    text_a = widgets.Text(value=str(shape_a), description="shape a", continuous_update=True)
    text_b = widgets.Text(value=str(shape_b), description="shape b", continuous_update=True)
    toggle = widgets.ToggleButton(value=bool(grad), description="gradient view",
                                  tooltip="show how the gradient is summed back to each shape")
    picture = widgets.HTML()
    box = widgets.VBox([widgets.HBox([text_a, text_b, toggle]), picture])

    def show_message(msg):
        box.diagram, box.message = None, msg
        picture.value = f'<p style="color:{_ERROR_TEXT}; font-family:monospace">{html(msg)}</p>'

    def update(change=None):
        shapes = []
        for label, w in (("a", text_a), ("b", text_b)):
            try:
                shapes.append(parse_shape(w.value))
            except ValueError as e:
                return show_message(f"could not read shape {label} {w.value!r}: {e}")
        d = broadcast(*shapes, op=op, grad=toggle.value)
        box.diagram, box.message = d, None
        try:
            svg = d.svg()
            picture.value = svg[svg.find("<svg"):]
        except RendererNotFound:
            picture.value = f"<pre>{html(str(d))}</pre>"
        return d

    for w in (text_a, text_b, toggle):
        w.observe(update, names="value")
    box.text_a, box.text_b, box.grad_toggle, box.picture, box.update = text_a, text_b, toggle, picture, update
    update()
    return box
