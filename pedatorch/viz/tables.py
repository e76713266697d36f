"""``summary(model, input)``: a table of a model's layers, as torchinfo prints one.

One forward pass on an example input (or a zero input of ``input_size``) with a hook on every
module: a pre-hook notes where a call starts (its depth in the call stack), a forward hook notes
what it returned. Each call becomes one row, in call order: a module called twice (a shared
layer, an RNN cell unrolled over time) gives two rows, its parameters counted once.

Columns (``col_names``): ``input_size``, ``output_size``, ``num_params``, ``params_percent``,
``kernel_size``, ``mult_adds``, ``trainable``. Below the table: the parameter totals, the
multiply-adds of one forward pass and a memory estimate.

* parameters: a row shows the parameters the module holds itself (``--`` when they all live in
  its submodules); the totals count each parameter once, however many modules share it;
* multiply-adds: the weights' multiplications only — for a convolution, weight elements x output
  positions x batch; for any other weight (Linear, Embedding-free layers, RNN weights), weight
  elements x the number of vectors it is applied to (the output's leading dimensions); others 0;
* memory (MB = 10**6 bytes): the input, the outputs of the innermost layers twice (forward values
  and their gradients), the parameters.
"""
import html as _html
import math

from .. import nn
from .._dtype import float32
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops.creation import zeros

_COLUMNS = {"input_size": "Input Shape", "output_size": "Output Shape", "num_params": "Param #",
            "params_percent": "Param %", "kernel_size": "Kernel Shape", "mult_adds": "Mult-Adds",
            "trainable": "Trainable"}
_RULE_CHAR = "="


class _Row:
    """One call of one module."""

    def __init__(self, module, depth, index, first_call):
        self.module, self.depth, self.index, self.first_call = module, depth, index, first_call
        self.input_shape = self.output_shape = None
        self.output_bytes = 0
        self.leaf = not any(True for _ in module.children())
        own = list(module.parameters(recurse=False))
        self.own_params = sum(p.numel() for p in own)
        self.trainable = (None if not own else
                          "True" if all(p.requires_grad for p in own) else
                          "False" if not any(p.requires_grad for p in own) else "Partial")
        weight = getattr(module, "weight", None)
        self.kernel = list(weight.shape[2:]) if isinstance(weight, Tensor) and "Conv" in type(module).__name__ \
            else None
        self.mult_adds = 0

    def count_mult_adds(self, output):
        """The weights' multiplications for this call (see the module docstring)."""
        shape = _first_shape(output)
        if shape is None or not shape:
            return
        if isinstance(self.module, (nn.Embedding, nn.EmbeddingBag)):
            return   # a lookup: no multiplications
        conv = "Conv" in type(self.module).__name__
        for name, p in self.module.named_parameters(recurse=False):
            if "weight" not in name or p.dim() < 2:
                continue   # biases and per-channel scales (norms) are not counted
            if conv:   # each output position multiplies the whole kernel of its channel
                batched = len(shape) == p.dim()
                positions = shape[0] * math.prod(shape[2:]) if batched else math.prod(shape[1:])
                self.mult_adds += p.numel() * positions
            else:      # a matrix applied to each vector of the output's leading dimensions
                self.mult_adds += p.numel() * math.prod(shape[:-1])

    def label(self):
        name = f"{type(self.module).__name__}: {self.depth}-{self.index}" if self.depth else \
            type(self.module).__name__
        return ("│    " * max(self.depth - 1, 0) + ("└─" if self.depth > 1 else "├─") if self.depth else "") + name


def _first_shape(value):
    """The shape of the first tensor in value (a tensor, or a tuple/list/dict holding tensors)."""
    if isinstance(value, Tensor):
        return list(value.shape)
    if isinstance(value, (tuple, list)):
        for v in value:
            s = _first_shape(v)
            if s is not None:
                return s
    if isinstance(value, dict):
        return _first_shape(list(value.values()))
    return None


def _shapes(value):
    """Shapes as torchinfo shows them: one list for a tensor, a list of lists for several."""
    if isinstance(value, Tensor):
        return list(value.shape)
    if isinstance(value, (tuple, list)):
        inner = [s for s in (_shapes(v) for v in value) if s is not None]
        return inner[0] if len(inner) == 1 else (inner or None)
    if isinstance(value, dict):
        return _shapes(list(value.values()))
    return None


def _nbytes(value):
    if isinstance(value, Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (tuple, list)):
        return sum(_nbytes(v) for v in value)
    if isinstance(value, dict):
        return sum(_nbytes(v) for v in value.values())
    return 0


def _example_inputs(input_size, dtypes, device):
    """Zero tensors of the given sizes: zeros are valid for every layer (an Embedding's indices too)
    and draw nothing from the random generator, so a summary never changes a seeded run."""
    sizes = [input_size] if input_size and all(isinstance(d, int) for d in input_size) else list(input_size)
    dtypes = list(dtypes) if dtypes is not None else [float32] * len(sizes)
    if len(dtypes) != len(sizes):
        raise ValueError(f"summary: {len(sizes)} input sizes but {len(dtypes)} dtypes")
    return [zeros(*s, dtype=d, device=device) for s, d in zip(sizes, dtypes)]


class ModelSummary:
    """The result of :func:`summary`: prints as torchinfo's text table, shows as an HTML table in
    Jupyter; the numbers are attributes (``total_params``, ``trainable_params``, ``total_mult_adds``,
    ``input_size``, ``total_output_bytes``, ``total_param_bytes``, ``rows``)."""

    def __init__(self, model, rows, col_names, depth, inputs):
        self.rows = rows
        self.col_names = col_names
        self.depth = depth
        seen = {}
        for p in model.parameters():
            seen[id(p)] = p
        params = list(seen.values())
        self.total_params = sum(p.numel() for p in params)
        self.trainable_params = sum(p.numel() for p in params if p.requires_grad)
        self.total_param_bytes = sum(p.numel() * p.element_size() for p in params)
        self.total_mult_adds = sum(r.mult_adds for r in rows)
        self.total_input = _nbytes(inputs)
        self.total_output_bytes = 2 * sum(r.output_bytes for r in rows if r.leaf)

    # ------------------------------------------------------------------ the cells
    def _cells(self, row):
        cells = [row.label()]
        for col in self.col_names:
            if col == "input_size":
                cells.append(str(row.input_shape) if row.input_shape is not None else "--")
            elif col == "output_size":
                cells.append(str(row.output_shape) if row.output_shape is not None else "--")
            elif col == "num_params":
                cells.append("(recursive)" if not row.first_call and row.own_params else
                             f"{row.own_params:,}" if row.own_params else "--")
            elif col == "params_percent":
                share = row.own_params / self.total_params * 100 if self.total_params else 0
                cells.append(f"{share:.2f}%" if row.own_params and row.first_call else "--")
            elif col == "kernel_size":
                cells.append(str(row.kernel) if row.kernel else "--")
            elif col == "mult_adds":
                cells.append(f"{row.mult_adds:,}" if row.mult_adds else "--")
            elif col == "trainable":
                cells.append(row.trainable or "--")
        return cells

    def _visible(self):
        return [r for r in self.rows if r.depth <= self.depth]

    def _totals(self):
        mb = 1e6
        mult_adds = self.total_mult_adds
        unit, scale = next(((u, s) for u, s in (("T", 1e12), ("G", 1e9), ("M", 1e6)) if mult_adds >= s),
                           ("M", 1e6))
        return [[f"Total params: {self.total_params:,}",
                 f"Trainable params: {self.trainable_params:,}",
                 f"Non-trainable params: {self.total_params - self.trainable_params:,}",
                 f"Total mult-adds ({unit}): {mult_adds / scale:.2f}"],
                [f"Input size (MB): {self.total_input / mb:.2f}",
                 f"Forward/backward pass size (MB): {self.total_output_bytes / mb:.2f}",
                 f"Params size (MB): {self.total_param_bytes / mb:.2f}",
                 f"Estimated Total Size (MB): "
                 f"{(self.total_input + self.total_output_bytes + self.total_param_bytes) / mb:.2f}"]]

    # ------------------------------------------------------------------ text
    def __str__(self):
        header = ["Layer (type:depth-idx)"] + [_COLUMNS[c] for c in self.col_names]
        body = [self._cells(r) for r in self._visible()]
        first = max(40, *(len(c[0]) + 1 for c in body)) if body else 40
        widths = [first] + [max(25, *(len(c[i]) + 1 for c in body)) if body else 25
                            for i in range(1, len(header))]

        def line(cells):
            return "".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

        rule = _RULE_CHAR * sum(widths)
        out = [rule, line(header), rule, *(line(c) for c in body), rule]
        for block in self._totals():
            out += block + [rule]
        return "\n".join(out)

    __repr__ = __str__

    # ------------------------------------------------------------------ Jupyter
    def _repr_html_(self):
        esc = _html.escape
        numeric = {"num_params", "params_percent", "mult_adds"}   # right-aligned, so the digits line up
        align = ["left"] + ["right" if c in numeric else "left" for c in self.col_names]
        head = "".join(f"<th style='text-align:{a}'>{esc(h)}</th>"
                       for a, h in zip(align, ["Layer (type:depth-idx)"] + [_COLUMNS[c] for c in self.col_names]))
        rows = []
        for r in self._visible():
            cells = self._cells(r)
            name = (f"<td style='text-align:left;padding-left:{1.2 * r.depth:.1f}em'>"
                    f"{esc(type(r.module).__name__)}"
                    + (f" <span style='opacity:.6'>{r.depth}-{r.index}</span>" if r.depth else "") + "</td>")
            rows.append("<tr>" + name + "".join(f"<td style='text-align:{a}'>{esc(c)}</td>"
                                                for a, c in zip(align[1:], cells[1:])) + "</tr>")
        totals = "<br>".join(esc(t) for block in self._totals() for t in block)
        return ("<div class='pedatorch-summary'><table>"
                f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
                f"<p style='font-family:monospace'>{totals}</p></div>")


def summary(model, input_size=None, input_data=None, *, depth=3, col_names=("output_size", "num_params"),
            dtypes=None, device=None, mode="eval", **kwargs):
    """A table of ``model``'s layers for one forward pass (torchinfo's ``summary``).

    ``input_size``: a shape (tuple of ints) or a list of shapes, for zero inputs of ``dtypes``
    (float32 by default); or ``input_data``: the example input itself (a tensor, a tuple/list of
    tensors, or a dict of keyword arguments). A tensor given as the second argument is taken as
    input data. ``depth``: the deepest nesting shown (all levels count in the totals).
    ``mode``: ``"eval"`` (default), ``"train"`` or ``"same"``: the mode the pass runs in; the model's
    own mode is restored afterwards. Other keyword arguments go to ``model.forward``.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"summary() expects an nn.Module, got {type(model).__name__}")
    if isinstance(input_size, (Tensor, dict)) or (isinstance(input_size, (list, tuple)) and input_size
                                                   and all(isinstance(t, Tensor) for t in input_size)):
        input_size, input_data = None, input_size
    unknown = [c for c in col_names if c not in _COLUMNS]
    if unknown:
        raise ValueError(f"summary: unknown column {unknown[0]!r}; choose from {', '.join(_COLUMNS)}")
    if mode not in ("eval", "train", "same"):
        raise ValueError(f"summary: mode must be 'eval', 'train' or 'same', not {mode!r}")

    args, call_kwargs = (), dict(kwargs)
    if input_data is not None:
        if isinstance(input_data, dict):
            call_kwargs.update(input_data)
        else:
            args = tuple(input_data) if isinstance(input_data, (list, tuple)) else (input_data,)
    elif input_size is not None:
        args = tuple(_example_inputs(input_size, dtypes, device))
    inputs = list(args) + list(call_kwargs.values())

    rows, stack, counters, calls = [], [], {}, set()

    def pre_hook(module, hook_args):
        depth = len(stack)
        counters[depth] = counters.get(depth, 0) + 1
        row = _Row(module, depth, counters[depth], id(module) not in calls)
        calls.add(id(module))
        row.input_shape = _shapes(hook_args)
        rows.append(row)
        stack.append(row)

    def hook(module, hook_args, output):
        row = stack.pop()
        row.output_shape = _shapes(output)
        row.output_bytes = _nbytes(output)
        row.count_mult_adds(output)

    handles = []
    was_training = model.training
    try:
        for m in model.modules():
            handles.append(m.register_forward_pre_hook(pre_hook))
            handles.append(m.register_forward_hook(hook))
        if mode != "same":
            model.train(mode == "train")
        with no_grad():
            model(*args, **call_kwargs)
    finally:
        for h in handles:
            h.remove()
        model.train(was_training)
    return ModelSummary(model, rows, tuple(col_names), depth, inputs)
