"""Backward, watched: every node the engine runs, in the order it runs them.

:func:`backward_steps` draws the graph of ``loss`` first (backward frees what
the nodes saved), then runs the real ``loss.backward()`` with an observer in the
engine (``pedatorch.autograd.engine.watch_backward``): after each node, the
engine reports the gradients that arrived at it and the gradients it computed
for its inputs.  Nothing here re-implements the engine's order; the list of
steps *is* the order the engine used (a priority queue on the nodes' sequence
numbers, leaves first when they are ready).

Each :class:`Step` holds copies of the gradients; :meth:`BackwardSteps.graph`
draws step ``k`` (its node in red, the nodes already run in green, the
gradients it sends out on red edges); on a big graph it draws the nodes around
step ``k``'s node only (a window: the red node is always in the picture).
:meth:`BackwardSteps.widget` is the ipywidgets explorer (slider, play,
previous/next); shown without a kernel behind it (a saved notebook), it says
to run the cell, and its output carries the first step's picture beside it.

:func:`explain` says what one node computes: the op, its backward formula and
the source of its ``backward`` in pedatorch.
"""
import inspect
import os

from ._picture import html
from .graphs import _key_of, _shape_text, fit_box, graph, natural_size, saved_values

__all__ = ["backward_steps", "BackwardSteps", "Step", "explain", "Explanation"]

_EDGE_ROWS = 20   # a long backward's repr lists its first and last 20 steps
# A graph whose whole picture would be bigger than this (px, estimated) is shown around each step's node
_WHOLE_WIDTH, _WHOLE_HEIGHT = 900, 900
_PANEL_HEIGHT = 640   # the explorer's picture area (px): the same for every step, so nothing moves
_OFFLINE = "run this cell to step through"
_ACCUMULATE = "var.grad += grad   (AccumulateGrad: the leaf's gradient is summed into .grad)"


# -- small helpers ------------------------------------------------------------------------------

def _numpy(t):
    return t.detach().cpu().numpy()


def brief(t, threshold=12, precision=4):
    """A tensor's values in one short string (numpy's summarising print for big ones)."""
    import numpy as np
    if t is None:
        return "None"
    arr = _numpy(t)
    if arr.ndim == 0:
        v = arr.item()
        return f"{v:.{precision}g}" if isinstance(v, float) else str(v)
    fmt = {}
    if arr.dtype.kind == "f":
        fmt = {"float_kind": lambda v: f"{v:.{precision}g}"}
    s = np.array2string(arr, threshold=threshold, edgeitems=2, separator=", ", max_line_width=10**6,
                        formatter=fmt or None)
    return " ".join(s.split())


def _formula(node):
    """The first line of the Function's docstring ('out = a * b;   da = grad * b, ...'), else a generic text."""
    from ..autograd.graph import AccumulateGrad
    if isinstance(node, AccumulateGrad):
        return _ACCUMULATE
    fn = getattr(node, "_function", None)
    doc = fn.__dict__.get("__doc__") if fn is not None else None
    if doc and doc.strip():
        return doc.strip().splitlines()[0].strip()
    return (f"grad of each input = (grad of the output) · ∂output/∂input for {node.name()} "
            "(a vector-Jacobian product; see the source)")


def _backward_fn(node):
    from ..autograd.graph import AccumulateGrad
    if isinstance(node, AccumulateGrad):
        return type(node)._accumulate
    fn = getattr(node, "_function", None)
    if fn is not None:
        return fn.backward
    return type(node).apply


def _source(fn):
    """The source of ``fn``, dedented (None where Python cannot find it)."""
    try:
        return inspect.cleandoc("\n" + inspect.getsource(fn))
    except (OSError, TypeError):
        return None


def _where(fn):
    """'pedatorch/ops/elementwise.py:100' for pedatorch's own code, else the file's name and line."""
    try:
        fn = inspect.unwrap(fn)
        path = inspect.getsourcefile(fn) or inspect.getfile(fn)
        line = inspect.getsourcelines(fn)[1]
    except (OSError, TypeError):
        return None
    # the folder that holds the package: this file is <root>/pedatorch/viz/steps.py
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    absolute = os.path.abspath(path)
    if absolute.startswith(root + os.sep):
        path = os.path.relpath(absolute, root).replace(os.sep, "/")
    else:
        path = os.path.basename(path)
    return f"{path}:{line}"


# -- explain ------------------------------------------------------------------------------------

class Explanation:
    """What :func:`explain` returns: text in ``repr``, HTML (with the source) in Jupyter.

    Attributes: ``name`` (``MulBackward0``), ``op`` (``Mul``), ``function`` (the
    pedatorch Function's qualified name), ``formula``, ``inputs`` (the names of
    ``next_functions``), ``saved`` (what the node saved, with shapes),
    ``where`` (``pedatorch/ops/elementwise.py:100``) and ``source`` (the code
    of its backward).
    """

    def __init__(self, name, op, function, formula, inputs, saved, where, source):
        self.name, self.op, self.function, self.formula = name, op, function, formula
        self.inputs, self.saved, self.where, self.source = inputs, saved, where, source

    def _lines(self):
        out = [f"{self.name}: the backward of {self.op}",
               f"  formula:  {self.formula}",
               f"  function: {self.function}"]
        out.append("  inputs:   " + (", ".join(self.inputs) if self.inputs else "(none)"))
        if self.saved is not None:
            out.append("  saved:    " + (", ".join(self.saved) if self.saved else "(nothing)"))
        if self.where:
            out.append(f"  source:   {self.where}")
        return out

    def __repr__(self):
        text = "\n".join(self._lines())
        if self.source:
            text += "\n\n" + self.source.rstrip("\n")
        return text

    def _repr_html_(self):
        rows = [("formula", f"<code>{html(self.formula)}</code>"), ("function", html(self.function)),
                ("inputs", html(", ".join(self.inputs) or "(none)"))]
        if self.saved is not None:
            rows.append(("saved", html(", ".join(self.saved) or "(nothing)")))
        if self.where:
            rows.append(("source", f"<code>{html(self.where)}</code>"))
        table = "".join(f"<tr><th style='text-align:left;padding-right:1em'>{k}</th><td style='text-align:left'>"
                        f"{v}</td></tr>" for k, v in rows)
        src = (f"<pre style='background:#f6f8fa;padding:6px;font-size:90%'>{html(self.source)}</pre>"
               if self.source else "")
        return (f"<div><b>{html(self.name)}</b>: the backward of <b>{html(self.op)}</b>"
                f"<table>{table}</table>{src}</div>")


def _saved_description(node):
    items = saved_values(node)
    if items is None:
        return ["freed by backward (use retain_graph=True to keep it)"]
    what = {"input": "input tensor", "result": "its result", "constant": "constant", "packed": "packed by a hook:"}
    return [f"{what[kind]} {detail}" for _, kind, _, detail in items]


def explain(grad_fn):
    """What one autograd node computes: its op, backward formula, inputs, saved values and source.

    ``grad_fn``: a node (``loss.grad_fn``, ``y.grad_fn.next_functions[0][0]``) or a
    tensor (its ``grad_fn``; for a leaf that requires grad, its AccumulateGrad).
    """
    from .._tensor import Tensor
    from ..autograd.graph import AccumulateGrad, Node, _op_name
    node = grad_fn
    if isinstance(grad_fn, Tensor):
        node = grad_fn.grad_fn
        if node is None:
            if not grad_fn.requires_grad:
                raise ValueError("explain(): this tensor has no grad_fn and does not require grad "
                                 "(nothing of autograd's to explain)")
            return _explain_leaf(grad_fn)
    if not isinstance(node, Node):
        raise TypeError(f"explain() expects a grad_fn node or a tensor, got {type(grad_fn).__name__}")
    if isinstance(node, AccumulateGrad):
        return _explain_leaf(node.variable)
    fn = getattr(node, "_function", None)
    function = f"{fn.__module__}.{fn.__qualname__}" if fn is not None else type(node).__qualname__
    inputs = []
    for nxt, nr in node.next_functions or ():
        inputs.append("None (no grad needed)" if nxt is None else
                      nxt.name() + (f"[{nr}]" if nr else ""))
    back = _backward_fn(node)
    return Explanation(node.name(), _op_name(node), function, _formula(node), inputs,
                       _saved_description(node), _where(back), _source(back))


def _explain_leaf(var):
    from ..autograd.graph import AccumulateGrad
    back = AccumulateGrad._accumulate
    return Explanation("torch::autograd::AccumulateGrad",
                       f"a leaf {_shape_text(var.shape, var._data.dtype)} (requires_grad=True)",
                       "pedatorch.autograd.graph.AccumulateGrad", _ACCUMULATE, [], None, _where(back),
                       _source(back))


# -- the steps ----------------------------------------------------------------------------------

class Step:
    """One node the engine ran.

    * ``index``: its place in the engine's order (0 is the first node run);
    * ``node``: the grad_fn node (or AccumulateGrad), ``name``: its name, ``id``:
      its box in :meth:`BackwardSteps.graph`;
    * ``grad_outputs``: copies of the gradients that arrived, one per output of
      the node (None where none did);
    * ``grad_inputs``: ``(target, target_id, grad)`` for each gradient the node
      sent on: the name of the node (or leaf) it went to, that box's id, a copy;
      for an AccumulateGrad step, ``(leaf name + '.grad', id, .grad after it)``;
    * ``summed_from``: ``{i: shape}`` where the op's backward returned a bigger
      gradient for ``grad_inputs[i]`` and the engine summed it back to the
      input's shape (the input had been broadcast);
    * ``formula``: the backward formula of the op.
    """

    def __init__(self, index, node, name, id, grad_outputs, grad_inputs, formula, summed_from=None,
                 targets=()):
        self.index, self.node, self.name, self.id = index, node, name, id
        self.grad_outputs, self.grad_inputs, self.formula = grad_outputs, grad_inputs, formula
        self.summed_from = summed_from or {}
        self._targets = targets     # (target node, grad) per edge: where BackwardSteps.graph draws red

    def _summed_note(self, i):
        raw = self.summed_from.get(i)
        return "" if raw is None else f"   (summed from {_shape_text(raw)}: that input was broadcast)"

    def _lines(self):
        out = [f"steps[{self.index}]: {self.name}", f"  formula: {self.formula}"]
        for nr, g in enumerate(self.grad_outputs):
            tag = f"grad in [{nr}]" if len(self.grad_outputs) > 1 else "grad in"
            out.append(f"  {tag}: " + ("None" if g is None else f"{_shape_text(g.shape, g._data.dtype)} {brief(g)}"))
        for i, (target, _, g) in enumerate(self.grad_inputs):
            out.append(f"  -> {target}: " + ("None" if g is None else
                                              f"{_shape_text(g.shape, g._data.dtype)} {brief(g)}")
                       + self._summed_note(i))
        return out

    def __repr__(self):
        return "\n".join(self._lines())

    def _repr_html_(self):
        def row(k, v):
            return f"<tr><th style='text-align:left;padding-right:1em'>{k}</th><td style='text-align:left'>{v}</td></tr>"

        def val(g):
            if g is None:
                return "None"
            return f"{html(_shape_text(g.shape, g._data.dtype))} <code>{html(brief(g))}</code>"
        rows = [row("formula", f"<code>{html(self.formula)}</code>")]
        for nr, g in enumerate(self.grad_outputs):
            rows.append(row(f"grad in [{nr}]" if len(self.grad_outputs) > 1 else "grad in", val(g)))
        for i, (target, _, g) in enumerate(self.grad_inputs):
            rows.append(row(f"&rarr; {html(target)}", val(g) + html(self._summed_note(i))))
        return f"<div><b>steps[{self.index}]: {html(self.name)}</b><table>{''.join(rows)}</table></div>"


class BackwardSteps:
    """The steps of one backward pass, in the engine's order (a sequence of :class:`Step`).

    ``graph(k)`` draws step ``k`` (``windowed``: only the nodes around its node, the
    whole graph being too big to read); ``widget()`` is the explorer; in JupyterLab the
    object shows itself as the explorer (a table of steps without ipywidgets).
    """

    def __init__(self, steps, builder, output_name, windowed=False):
        self._steps = steps
        self._builder = builder
        self._output_name = output_name
        self._svgs = {}
        self.windowed = windowed     # each step's picture shows the nodes around it: the whole is too big

    def __len__(self):
        return len(self._steps)

    def __getitem__(self, k):
        return self._steps[k]

    def __iter__(self):
        return iter(self._steps)

    @property
    def names(self):
        """The node names in the order the engine ran them."""
        return [s.name for s in self._steps]

    def __repr__(self):
        head = f"<pedatorch.viz.BackwardSteps: {len(self)} steps from {self._output_name}>"
        lines = [head]
        for s in self._shown():
            if s is None:
                lines.append(f"  ... {len(self) - 2 * _EDGE_ROWS} more steps (all of them: list(steps))")
                continue
            sent = ", ".join(f"{t} {_shape_text(g.shape)}" for t, _, g in s.grad_inputs if g is not None)
            lines.append(f"  {s.index:>2}  {s.name:<34} -> {sent or '(nothing)'}")
        return "\n".join(lines)

    def _shown(self):
        """The steps a repr lists: all of them, or the first and last _EDGE_ROWS with None between."""
        if len(self._steps) <= 3 * _EDGE_ROWS:
            return self._steps
        return [*self._steps[:_EDGE_ROWS], None, *self._steps[-_EDGE_ROWS:]]

    def graph(self, k, window=None):
        """The graph at step ``k``: its node in red, earlier ones green, its outgoing gradients on red edges.

        ``window``: draw only the nodes around step ``k``'s node (the rest is two "… N nodes" boxes);
        by default when the whole graph is too big to read in a notebook (``self.windowed``).
        """
        return self._picture(k, window)

    def _picture(self, k, window=None, note=""):
        n = len(self._steps)
        if not -n <= k < n:
            raise IndexError(f"BackwardSteps.graph(): step {k} is out of range for {n} steps")
        k = k % n
        step = self._steps[k]
        b = self._builder
        view = b.window(_key_of(step.node)) if (self.windowed if window is None else window) else b.view
        me = b.shown_key(step.node, view)
        shown = {b.shown_key(s.node, view) for s in self._steps[:k]}
        done = {key for key in shown if key not in view.extra}      # not the "… N nodes" boxes
        hot = {}
        for target_node, g in step._targets:
            if g is not None:
                hot[(b.shown_key(target_node, view), me)] = f"grad {_shape_text(g.shape, g._data.dtype)}"
        note = f"steps[{k}] of {n}: {step.name}" + note
        return b.picture(view, highlight={me}, done=done, hot_edges=hot, note=note)

    def _svg(self, k):
        """Step ``k``'s picture for the explorer: scaled down to its picture area."""
        if k not in self._svgs:
            self._svgs[k] = fit_box(self.graph(k).svg(full_size=True))
        return self._svgs[k]

    def widget(self):
        """An ipywidgets explorer: a slider and play button over the steps, the graph and the step's details.

        The controls wrap onto a second line in a narrow notebook; the picture area keeps its size from
        step to step (each picture is scaled down to fit it), so the details beside it stay in place.
        Shown from a saved notebook (no kernel behind it), the controls are hidden and a line says to
        run the cell.
        """
        from . import _need
        w = _need("ipywidgets")
        from . import _render
        n = len(self._steps)
        slider = w.IntSlider(value=0, min=0, max=max(n - 1, 0), description="step", continuous_update=True,
                             layout=w.Layout(flex="1 1 16em", min_width="14em"))
        play = w.Play(value=0, min=0, max=max(n - 1, 0), interval=900, description="play")
        w.jslink((play, "value"), (slider, "value"))
        prev = w.Button(description="◀ previous", layout=w.Layout(width="auto", min_width="8em"))
        nxt = w.Button(description="next ▶", layout=w.Layout(width="auto", min_width="6.5em"))
        height = _PANEL_HEIGHT
        if n and not self.windowed:          # every step is the same picture, recoloured
            size = None
            try:
                size = natural_size(self.graph(0).svg(full_size=True))
            except _render.RendererNotFound:
                pass
            height = min(height, int(size[1]) + 4) if size else height
        picture = w.HTML(layout=w.Layout(flex="1 1 28em", min_width="16em", height=f"{height}px"))
        details = w.HTML(layout=w.Layout(flex="0 1 24em", min_width="16em"))

        def show(change=None):
            k = slider.value
            if n == 0:
                details.value = "<i>backward ran no node</i>"
                return
            try:
                picture.value = f'<div style="height: {height}px">{self._svg(k)}</div>'
            except _render.RendererNotFound as e:
                picture.value = f"<pre>{html(str(e))}</pre>"
            details.value = self._steps[k]._repr_html_()

        def step_by(d):
            def click(_):
                slider.value = min(max(slider.value + d, 0), max(n - 1, 0))
            return click
        prev.on_click(step_by(-1))
        nxt.on_click(step_by(1))
        slider.observe(show, names="value")
        show()
        controls = w.HBox([play, prev, slider, nxt], layout=w.Layout(flex_flow="row wrap", align_items="center"))
        controls.add_class("pedatorch-controls")
        panel = w.HBox([picture, details], layout=w.Layout(flex_flow="row wrap", align_items="flex-start"))
        box = w.VBox([w.HTML(_OFFLINE_HTML), controls, panel])
        box.add_class("pedatorch-backward-steps")
        return box

    def _table_html(self):
        rows = []
        for s in self._shown():
            if s is None:
                rows.append(f"<tr><td colspan='4'>… {len(self) - 2 * _EDGE_ROWS} more steps</td></tr>")
                continue
            sent = "<br/>".join(f"&rarr; {html(t)} {html(_shape_text(g.shape, g._data.dtype))}"
                                for t, _, g in s.grad_inputs if g is not None)
            rows.append(f"<tr><td>{s.index}</td><td><b>{html(s.name)}</b></td><td><code>{html(s.formula)}</code>"
                        f"</td><td>{sent}</td></tr>")
        return ("<table><tr><th>step</th><th>node</th><th>formula</th><th>gradients sent</th></tr>"
                + "".join(rows) + "</table>")

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": repr(self), "text/html": self._table_html()}
        if _in_kernel():
            try:
                view = self.widget()._repr_mimebundle_(include=include, exclude=exclude)
            except ModuleNotFoundError:
                view = None
            if view:
                # next to the widget, the first step's picture: what a front end without the widget's
                # live state shows (an untrusted notebook, a notebook viewer), saying how to get it back
                del bundle["text/html"]
                if len(self):
                    bundle.update(self._picture(0, note=f" ({_OFFLINE})")._repr_mimebundle_())
                bundle.update(view)
                bundle["text/plain"] = repr(self)
        return bundle


# Shown by the explorer only when its widgets are not live (a saved notebook, a restarted kernel):
# ipywidgets marks each of them "jupyter-widgets-disconnected" (and draws a broken-link icon on it).
_OFFLINE_HTML = (
    "<style>"
    ".pedatorch-backward-steps .pedatorch-offline {display: none}"
    ".pedatorch-backward-steps.jupyter-widgets-disconnected .pedatorch-offline {display: block}"
    ".pedatorch-backward-steps.jupyter-widgets-disconnected .pedatorch-controls {display: none}"
    ".pedatorch-backward-steps.jupyter-widgets-disconnected::before,"
    ".pedatorch-backward-steps .jupyter-widgets-disconnected::before {display: none}"
    "</style>"
    f'<div class="pedatorch-offline"><i>No kernel behind this explorer: {_OFFLINE}.</i></div>')


def _in_kernel():
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    ip = get_ipython()
    return ip is not None and getattr(ip, "kernel", None) is not None


def backward_steps(loss, params=None, gradient=None, retain_graph=None, inputs=None, max_nodes=200):
    """Run ``loss.backward()`` and record every node the engine runs, in its order.

    * ``params``: names for the leaves (a dict or a Module), as in :func:`graph`;
    * ``gradient``, ``retain_graph``, ``inputs``: passed to ``loss.backward``;
    * ``max_nodes``: as in :func:`graph`, for a graph small enough to draw whole at each step (a
      bigger one is drawn around each step's node: ``.windowed``).

    This is the real backward pass: the leaves' ``.grad`` fill exactly as
    ``loss.backward()`` would fill them.  Returns a :class:`BackwardSteps`.
    """
    from .._tensor import Tensor
    from ..autograd import engine
    from ..autograd.graph import AccumulateGrad
    if not isinstance(loss, Tensor):
        raise TypeError(f"backward_steps() expects a tensor, got {type(loss).__name__}")
    if not loss.requires_grad:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    picture = graph(loss, params=params, max_nodes=max_nodes)
    builder = picture._builder
    width, height = builder.estimate()
    windowed = width > _WHOLE_WIDTH or height > _WHOLE_HEIGHT
    records = []

    def copy(g):
        return None if g is None else g.detach().clone()

    def watch(node, grads, result):
        if isinstance(node, AccumulateGrad):
            records.append((node, [copy(g) for g in grads], None))
            return
        sent = []
        if result is not None:
            for index, nxt, nr, shape, dtype in node._edges:
                g = result[index] if index < len(result) else None
                raw = None
                if g is not None and (tuple(g.shape) != tuple(shape) or g._data.dtype != dtype):
                    # what the engine does next on this edge: sum back to the input's shape
                    raw = tuple(g.shape)
                    g = engine._validate(node, index, g, shape, dtype)
                sent.append((nxt, copy(g), raw))
        records.append((node, [copy(g) for g in grads], sent))

    with engine.watch_backward(watch):
        loss.backward(gradient=gradient, retain_graph=retain_graph, inputs=inputs)

    def box(obj):
        """The box that shows ``obj`` in the step pictures: its own in a window, else the first picture's."""
        if windowed:
            return builder.boxes.get(_key_of(obj))
        key = builder.shown_key(obj)
        return builder.view.extra.get(key) or builder.boxes.get(key)

    steps = []
    for i, (node, grads, sent) in enumerate(records):
        v = box(node)
        summed, targets, outs = {}, [], []
        if isinstance(node, AccumulateGrad):
            var = node.variable
            outs.append((f"{v.title if v is not None else 'leaf'}.grad", v.id if v is not None else None,
                         None if var.grad is None else var.grad.detach().clone()))
        else:
            for nxt, g, raw in sent or ():
                tv = box(nxt)
                if raw is not None:
                    summed[len(outs)] = raw
                outs.append((tv.title if tv is not None else nxt.name(), tv.id if tv is not None else None, g))
                targets.append((nxt, g))
        steps.append(Step(i, node, node.name(), v.id if v is not None else None, tuple(grads), outs,
                          _formula(node), summed, targets))
    out_name = loss.grad_fn.name() if loss.grad_fn is not None else "a leaf"
    return BackwardSteps(steps, builder, out_name, windowed)
