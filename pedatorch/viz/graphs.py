"""The autograd graph, drawn: from the outputs back to the leaves.

Every op that records history leaves a node (its output's ``grad_fn``); each
node's ``next_functions`` are the nodes its inputs' gradients flow to next, down
to the ``AccumulateGrad`` of each leaf.  :func:`graph` walks exactly that
structure (nothing is re-computed) and draws it:

* grey boxes are grad_fn nodes, by their PyTorch names (``MulBackward0``);
* blue boxes are leaves (their ``AccumulateGrad``), named from ``params``;
* the green box is the output; edges carry the shape of the tensor that flows
  along them;
* with ``show_saved=True``, orange boxes are what each node saved for backward.

Arrows follow the forward pass (inputs to output), as in torchviz; backward
walks them the other way.

``graph(model, example_input)`` runs the model once with forward hooks on every
submodule, and draws the nodes each submodule's call created inside a labelled
cluster, so a ResNet reads as its blocks.  Large graphs stay readable: runs of
three or more identical sibling blocks are collapsed to their first, one summary
box and their last, and past ``max_nodes`` nodes the rest is one "… N more
nodes" box.

>>> loss = (a * b + c).sum()                                   # doctest: +SKIP
>>> viz.graph(loss, params={"a": a, "b": b, "c": c})           # doctest: +SKIP
"""
import collections

from ._picture import Picture, html, quote

__all__ = ["graph", "Graph"]

_OP_FILL, _LEAF_FILL, _OUT_FILL, _SAVED_FILL = "#e8e8e8", "#cfe3ff", "#c9f2c0", "#ffd9a8"
_HOT, _HOT_FILL, _DONE_FILL, _MORE_FILL = "#d62728", "#ffd0d0", "#e6f6e0", "#ffffff"
_CLUSTER_FILLS = ("#f6f6fb", "#eef3fa", "#f7f3ea", "#f1f8f0")


def _shape_text(shape, dtype=None):
    s = "(" + ", ".join(str(int(d)) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    if dtype is not None:
        name = _dtype_name(dtype)
        if name != "float32":
            s += " " + name
    return s


def _dtype_name(np_dtype):
    try:
        from .._dtype import from_numpy_dtype
        return from_numpy_dtype(np_dtype).name
    except Exception:
        return str(np_dtype)


def saved_values(node):
    """What ``node`` saved for backward: ``[(i, kind, value, detail)]``, or None once backward freed it.

    ``kind`` is "input" (a tensor input; ``value`` is it), "result" (the node's own output) or
    "constant" (an array or Python value); ``detail`` is the shape (and non-float32 dtype), or a
    short repr of a non-array value.
    """
    from ..autograd.graph import SAVED_INPUT, SAVED_OUTPUT
    saved = node._saved
    if saved is None:
        return None
    out = []
    for i, s in enumerate(saved):
        if s is None:
            continue
        val = s[1]
        if s[0] == SAVED_INPUT:
            out.append((i, "input", val, _shape_text(val.shape, val._data.dtype)))
        elif s[0] == SAVED_OUTPUT:
            out.append((i, "result", None, _shape_text(val.shape, val.dtype)))
        else:
            shape = getattr(val, "shape", None)
            if shape is not None:
                dt = getattr(val, "_data", val).dtype if hasattr(val, "dtype") else None
                detail = _shape_text(shape, dt)
            else:
                r = repr(val)
                detail = r if len(r) <= 24 else r[:21] + "..."
            out.append((i, "constant", None, detail))
    return out


class _V:
    """One box of the picture."""

    __slots__ = ("id", "kind", "obj", "title", "lines", "cluster", "plain")

    def __init__(self, id, kind, obj, title, lines=(), cluster=None):
        self.id, self.kind, self.obj, self.title = id, kind, obj, title
        self.lines = list(lines)
        self.cluster = cluster
        self.plain = " ".join([title, *self.lines])


class _Call:
    """One call of a submodule during ``graph(model, x)``: the seq-nr range of the nodes it made."""

    __slots__ = ("name", "cls", "start", "end", "parent", "children", "members", "collapsed_into")

    def __init__(self, name, cls, start, parent):
        self.name, self.cls, self.start, self.end, self.parent = name, cls, start, None, parent
        self.children, self.members, self.collapsed_into = [], [], None

    def label(self):
        return f"{self.name}: {self.cls}"

    def all_members(self):
        out = list(self.members)
        for c in self.children:
            out.extend(c.all_members())
        return out

    def signature(self):
        """What makes two calls 'the same block': the class and the multiset of its nodes."""
        def what(v):
            return ("leaf", tuple(v.obj.shape)) if v.kind == "leaf" else (v.kind, v.title)
        return (self.cls, tuple(sorted(collections.Counter(what(v) for v in self.all_members()).items())))


class Graph(Picture):
    """The picture :func:`graph` returns (a :class:`~pedatorch.viz.Picture`).

    ``.source`` is the DOT text, ``.ids`` maps each grad_fn node (and leaf
    tensor) to its DOT node id, ``.labels`` maps each id to the box's text, and
    ``.edges`` lists ``(from_id, to_id, label)`` in the forward direction.
    """

    kind = "Graph"

    def __init__(self, source, summary, ids, labels, edges, clusters):
        super().__init__(source, summary)
        self._ids = ids
        self.labels = labels
        self.edges = edges
        self.clusters = clusters

    @property
    def ids(self):
        """{node or leaf tensor: DOT id} (a dict keyed by object identity)."""
        return {obj: i for obj, i in self._ids.values()}

    def id_of(self, obj):
        """The DOT id of a grad_fn node, an AccumulateGrad, or a tensor (its grad_fn or leaf)."""
        key = _key_of(obj)
        if key not in self._ids:
            raise KeyError(f"{obj!r} is not in this graph")
        return self._ids[key][1]

    def to_graphviz(self):
        """A ``graphviz.Source`` of this picture (needs the ``graphviz`` package)."""
        from . import _need
        gv = _need("graphviz")
        from . import _render
        try:
            exe = _render.renderer()
            if "graphviz-pure" in _render.renderer_name():
                gv.backend.dot_command.DOT_BINARY = exe   # the graphviz package runs it too
        except _render.RendererNotFound:
            pass
        return gv.Source(self.source)


def _key_of(obj):
    from .._tensor import Tensor
    from ..autograd.graph import AccumulateGrad
    if isinstance(obj, Tensor):
        if obj.grad_fn is not None:
            return id(obj.grad_fn)
        return ("leaf", id(obj))
    if isinstance(obj, AccumulateGrad):
        return ("leaf", id(obj.variable))
    return id(obj)


def _param_names(params):
    if params is None:
        return {}
    if hasattr(params, "named_parameters"):
        params = dict(params.named_parameters())
    elif not isinstance(params, dict):
        params = {f"param {i}": p for i, p in enumerate(params)}
    return {id(t): str(name) for name, t in params.items()}


class _Builder:
    """Walks the graph once; ``dot()`` draws it, with optional step highlighting."""

    def __init__(self, outputs, names, params, show_saved, show_shapes, max_nodes, collapse,
                 calls=None, owners=None, title=None):
        from .._tensor import Tensor
        from ..autograd.graph import AccumulateGrad
        self.Tensor, self.AccumulateGrad = Tensor, AccumulateGrad
        self.names = _param_names(params)
        self.show_saved, self.show_shapes = show_saved, show_shapes
        self.max_nodes = max_nodes
        self.title = title
        self.boxes = {}           # key -> _V
        self.order = []           # keys in BFS order from the outputs
        self.edges = []           # (src key, dst key, label), forward direction
        self.saved = []           # (op key, _V of a saved value)
        self.keep = []            # the objects behind the keys stay alive while we draw
        self.calls = calls or []
        self.owners = owners or {}
        self._walk(outputs, names)
        self._assign_clusters()
        self.redirect = {}        # key -> key of the summary/"more" box that stands for it
        self.hidden = 0
        if collapse and max_nodes is not None and self._visible_count() > max_nodes:
            self._collapse()
        if max_nodes is not None and self._visible_count() > max_nodes:
            self._cap()

    # -- walking
    def _new_id(self):
        return f"n{len(self.boxes)}"

    def _leaf_box(self, key, var):
        name = self.names.get(id(var))
        lines = [_shape_text(var.shape, var._data.dtype)] if self.show_shapes or name is None else []
        lines.append("AccumulateGrad")
        v = _V(self._new_id(), "leaf", var, name or "leaf", lines)
        return v

    def _walk(self, outputs, names):
        queue = collections.deque()
        for i, (t, name) in enumerate(zip(outputs, names)):
            oid = f"out{i}"
            okey = ("out", i)
            lines = [_shape_text(t.shape, t._data.dtype)]
            root = None
            if t.grad_fn is not None:
                root = t.grad_fn
                rkey = id(root)
            elif t.requires_grad:
                root = t
                rkey = ("leaf", id(t))
            else:
                lines.append("no grad_fn: requires_grad=False")
            v = _V(oid, "output", t, name, lines)
            self.boxes[okey] = v
            self.order.append(okey)
            self.keep.append(t)
            if root is not None:
                if rkey not in self.boxes:
                    self._add(rkey, root, queue)
                label = _shape_text(t.shape, t._data.dtype) if self.show_shapes else ""
                self.edges.append((rkey, okey, label))
        while queue:
            key, node = queue.popleft()
            self._expand(key, node, queue)

    def _add(self, key, obj, queue):
        if isinstance(obj, self.Tensor):        # a leaf output
            v = self._leaf_box(key, obj)
        elif isinstance(obj, self.AccumulateGrad):
            v = self._leaf_box(key, obj.variable)
        else:
            v = _V(self._new_id(), "op", obj, obj.name())
            queue.append((key, obj))
        self.boxes[key] = v
        self.order.append(key)
        self.keep.append(obj)

    def _expand(self, key, node, queue):
        edges = getattr(node, "_edges", ()) or ()
        if edges:
            inputs = [(nxt, nr, shape, dtype) for _, nxt, nr, shape, dtype in edges]
        else:
            inputs = [(nxt, nr, None, None) for nxt, nr in (node.next_functions or ()) if nxt is not None]
        n_out = {}
        for nxt, nr, shape, dtype in inputs:
            meta = getattr(nxt, "_out_meta", None)
            n_out[id(nxt)] = 1 if meta is None else len(meta)
        for nxt, nr, shape, dtype in inputs:
            nkey = ("leaf", id(nxt.variable)) if isinstance(nxt, self.AccumulateGrad) else id(nxt)
            if nkey not in self.boxes:
                self._add(nkey, nxt, queue)
            label = ""
            if self.show_shapes and shape is not None:
                label = _shape_text(shape, dtype)
            if n_out[id(nxt)] > 1:
                label = (f"[{nr}] " + label).strip()
            self.edges.append((nkey, key, label))
        if self.show_saved:
            self._saved_boxes(key, node)

    def _saved_boxes(self, key, node):
        items = saved_values(node)
        if items is None:
            v = _V(f"s{len(self.saved)}", "saved", None, "saved tensors freed",
                   ["by backward (retain_graph=False)"])
            self.saved.append((key, v))
            return
        for i, kind, obj, detail in items:
            name = self.names.get(id(obj)) if kind == "input" else "result" if kind == "result" else None
            v = _V(f"s{len(self.saved)}", "saved", None, f"saved {i}" + (f": {name}" if name else ""), [detail])
            self.saved.append((key, v))

    # -- clusters (graph(model, x))
    def _assign_clusters(self):
        if not self.calls:
            return
        by_start = sorted(self.calls, key=lambda c: c.start)
        first_call = {}
        for c in by_start:
            first_call.setdefault(c.name, c)
        for key in self.order:
            v = self.boxes[key]
            if v.kind == "op":
                seq = v.obj._seq_nr
                best = None
                for c in by_start:
                    if c.start > seq:
                        break
                    if seq < c.end:
                        best = c            # later starts are deeper: the innermost wins
                if best is not None:
                    v.cluster = best
                    best.members.append(v)
            elif v.kind == "leaf":
                owner = self.owners.get(id(v.obj))
                c = first_call.get(owner)
                if c is not None:
                    v.cluster = c
                    c.members.append(v)

    def _roots(self):
        return [c for c in sorted(self.calls, key=lambda c: c.start) if c.parent is None]

    def _visible_count(self):
        return sum(1 for k in self.order if k not in self.redirect) + len(set(self.redirect.values()))

    def _collapse(self):
        """Runs of >= 3 identical sibling calls: keep the first and last, one box for the middle."""
        level = self._roots()
        while level and self._visible_count() > self.max_nodes:
            nxt = []
            siblings = collections.defaultdict(list)
            for c in level:
                siblings[id(c.parent)].append(c)
            for group in siblings.values():
                group.sort(key=lambda c: c.start)
                i = 0
                while i < len(group):
                    j = i
                    sig = group[i].signature()
                    while j + 1 < len(group) and group[j + 1].signature() == sig:
                        j += 1
                    if j - i + 1 >= 3 and sig[1]:
                        self._collapse_run(group[i:j + 1])
                    i = j + 1
            for c in level:
                if c.collapsed_into is None:
                    nxt.extend(c.children)
            level = nxt

    def _collapse_run(self, run):
        middle = run[1:-1]
        members = [v for c in middle for v in c.all_members()]
        each = len(run[0].all_members())
        key = ("collapsed", len(self.boxes))
        names = f"{middle[0].name} … {middle[-1].name}" if len(middle) > 1 else middle[0].name
        v = _V(f"c{len(self.boxes)}", "collapsed", None, f"{len(middle)} × {run[0].cls}",
               [names, f"{each} nodes each, not drawn"], cluster=run[0].parent)
        self.boxes[key] = v
        if run[0].parent is not None:
            run[0].parent.members.append(v)
        for c in middle:
            c.collapsed_into = key
            for m in c.all_members():
                m.cluster = None
        ids = {id(m) for m in members}
        for k in self.order:
            if id(self.boxes[k]) in ids:
                self.redirect[k] = key
        # the summary box sits where the middle run's first node was in the BFS order
        pos = min((self.order.index(k) for k in self.redirect if self.redirect[k] == key), default=len(self.order))
        self.order.insert(pos, key)
        self.redirect.pop(key, None)

    def _cap(self):
        """Keep the first max_nodes boxes in BFS order from the outputs; the rest is one box."""
        visible = []
        seen = set()
        for k in self.order:
            k2 = self.redirect.get(k, k)
            if k2 not in seen:
                seen.add(k2)
                visible.append(k2)
        n_out = sum(1 for k in visible if self.boxes[k].kind == "output")
        keep = set(visible[:max(self.max_nodes, n_out)])
        more = ("more",)
        hidden_nodes = 0
        for k in self.order:
            k2 = self.redirect.get(k, k)
            if k2 not in keep:
                hidden_nodes += 1
                self.redirect[k] = more
        for k in visible:
            if k not in keep and self.boxes[k].kind == "collapsed":
                self.redirect[k] = more
        self.hidden = hidden_nodes
        self.boxes[more] = _V("more", "more", None, f"… {hidden_nodes} more nodes",
                              [f"max_nodes={self.max_nodes}"])
        self.order.append(more)

    # -- drawing
    def final_edges(self):
        """Edges between the boxes drawn.  Every recorded edge is drawn (``x * x`` has two arrows
        from x); edges that a summary or "more" box stands for are drawn once per pair of boxes."""
        out, seen = [], set()
        for a, b, label in self.edges:
            a2, b2 = self.redirect.get(a, a), self.redirect.get(b, b)
            if a2 == b2:
                continue
            if (a2, b2) != (a, b):
                if ("more",) in (a2, b2):
                    label = ""      # several hidden tensors may stand behind this one arrow
                if (a2, b2) in seen:
                    continue
                seen.add((a2, b2))
            out.append((a2, b2, label))
        return out

    def shown_key(self, obj):
        """The key of the box that shows ``obj`` (a node, leaf or tensor): its own, or a stand-in's."""
        k = _key_of(obj)
        return self.redirect.get(k, k)

    def visible_keys(self):
        return [k for k in dict.fromkeys(self.order) if k not in self.redirect]

    def dot(self, highlight=(), done=(), hot_edges=None, note=None):
        """DOT text; ``highlight``/``done``: keys to mark; ``hot_edges``: {(src, dst): label}."""
        hot_edges = hot_edges or {}
        lines = ["digraph pedatorch_graph {",
                 '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, nodesep=0.25, ranksep=0.35, '
                 'bgcolor="white"' + (f", label={quote(note or self.title)}, labelloc=t"
                                      if (note or self.title) else "") + "];",
                 '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11, '
                 f'fillcolor="{_OP_FILL}", color="#555555", margin="0.12,0.05"];',
                 '  edge [fontname="Helvetica", fontsize=9, color="#666666", fontcolor="#444444", '
                 'arrowsize=0.7];']
        keys = self.visible_keys()
        in_cluster = collections.defaultdict(list)
        loose = []
        for k in keys:
            v = self.boxes[k]
            c = v.cluster
            while c is not None and c.collapsed_into is not None:
                c = c.parent
            if c is None:
                loose.append(k)
            else:
                in_cluster[id(c)].append(k)
        for k in loose:
            lines.append("  " + self._node_line(k, highlight, done))
        counter = [0]

        def emit(call, depth):
            inner = [ch for ch in sorted(call.children, key=lambda c: c.start) if ch.collapsed_into is None]
            own = in_cluster.get(id(call), [])
            body = []
            for ch in inner:
                body.extend(emit(ch, depth + 1))
            if not own and not body:
                return []
            counter[0] += 1
            ind = "  " * (depth + 1)
            out = [f"{ind}subgraph cluster_{counter[0]} {{",
                   f'{ind}  label={quote(call.label())}; style="rounded,filled"; '
                   f'fillcolor="{_CLUSTER_FILLS[depth % len(_CLUSTER_FILLS)]}"; color="#9aa5b8"; '
                   'fontsize=10; fontcolor="#34495e";']
            out.extend(f"{ind}  " + self._node_line(k, highlight, done) for k in own)
            out.extend(body)
            out.append(f"{ind}}}")
            return out

        for root in self._roots():
            if root.collapsed_into is None:
                lines.extend(emit(root, 0))
        for k, v in self.saved:
            if k in self.redirect:
                continue
            lines.append(f"  {v.id} [label={self._label(v)}, fillcolor=\"{_SAVED_FILL}\", fontsize=9, "
                         'style="filled", shape=box];')
            lines.append(f"  {v.id} -> {self.boxes[k].id} [style=dashed, arrowhead=none, color=\"#c77d2a\"];")
        for a, b, label in self.final_edges():
            attrs = []
            hot = hot_edges.get((a, b))
            if hot is not None:
                attrs += [f'color="{_HOT}"', "penwidth=2.2", f'fontcolor="{_HOT}"']
                label = hot
            if label:
                attrs.append(f"label={quote(' ' + label)}")
            lines.append(f"  {self.boxes[a].id} -> {self.boxes[b].id}" +
                         (f" [{', '.join(attrs)}]" if attrs else "") + ";")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _label(self, v):
        parts = [f"<b>{html(v.title)}</b>"] if v.kind in ("leaf", "output", "collapsed") else [html(v.title)]
        for line in v.lines:
            small = line in ("AccumulateGrad",) or v.kind == "more"
            parts.append(f'<font point-size="9">{html(line)}</font>' if small else html(line))
        return "<" + "<br/>".join(parts) + ">"

    def _node_line(self, k, highlight, done):
        v = self.boxes[k]
        fill = {"op": _OP_FILL, "leaf": _LEAF_FILL, "output": _OUT_FILL, "collapsed": "#fdf6d8",
                "more": _MORE_FILL}[v.kind]
        attrs = [f"label={self._label(v)}"]
        style = "rounded,filled"
        if v.kind == "more":
            style = "rounded,dashed"
        elif v.kind == "collapsed":
            style = "rounded,filled,dashed"
        if k in done:
            fill = _DONE_FILL
        if k in highlight:
            fill = _HOT_FILL
            attrs += [f'color="{_HOT}"', "penwidth=3"]
        attrs.append(f'fillcolor="{fill}"')
        attrs.append(f'style="{style}"')
        return f"{v.id} [{', '.join(attrs)}];"

    def picture(self, **kw):
        source = self.dot(**kw)
        keys = self.visible_keys()
        ops = [k for k in keys if self.boxes[k].kind == "op"]
        leaves = [k for k in keys if self.boxes[k].kind == "leaf"]
        outs = [self.boxes[k] for k in keys if self.boxes[k].kind == "output"]
        first = [self.boxes[a].title for a, b, _ in self.edges if self.boxes[b].kind == "output"]
        summary = f"{len(ops)} grad_fn nodes, {len(leaves)} leaves"
        if self.hidden:
            summary += f", {self.hidden} more not drawn"
        n_collapsed = sum(1 for k in keys if self.boxes[k].kind == "collapsed")
        if n_collapsed:
            summary += f", {n_collapsed} collapsed runs"
        if first:
            summary += " (output: " + ", ".join(first) + ")"
        elif outs:
            summary += " (no grad_fn)"
        ids = {}
        for key in self.order:
            v = self.boxes[key]
            if v.obj is None or v.kind == "output":
                continue
            shown = self.redirect.get(key, key)
            ids[key] = (v.obj, self.boxes[shown].id)   # ops by their node, leaves by their tensor
        labels = {self.boxes[k].id: self.boxes[k].plain for k in keys}
        edges = [(self.boxes[a].id, self.boxes[b].id, label) for a, b, label in self.final_edges()]
        clusters = {}
        for k in keys:
            c = self.boxes[k].cluster
            while c is not None and c.collapsed_into is not None:
                c = c.parent
            if c is not None:
                clusters.setdefault(c.label(), []).append(self.boxes[k].id)
        return Graph(source, summary, ids, labels, edges, clusters)


def _trace_calls(model, example_input, kwargs):
    """Run ``model`` once with hooks on every submodule; returns (outputs, calls, owners)."""
    from ..autograd import graph as _g
    calls, stack, handles = [], [], []

    def pre(name, cls):
        def hook(module, args):
            c = _Call(name, cls, next(_g._seq), stack[-1] if stack else None)
            if c.parent is not None:
                c.parent.children.append(c)
            calls.append(c)
            stack.append(c)
        return hook

    def post(module, args, output):
        c = stack.pop()
        c.end = next(_g._seq)

    owners = {}
    for name, m in model.named_modules():
        for pname, p in m.named_parameters(recurse=False):
            owners.setdefault(id(p), name)
        if not name:
            continue
        handles.append(m.register_forward_pre_hook(pre(name, type(m).__name__)))
        handles.append(m.register_forward_hook(post))
    try:
        args = example_input if isinstance(example_input, tuple) else (example_input,)
        out = model(*args, **kwargs)
    finally:
        for h in handles:
            h.remove()
    for c in calls:
        if c.end is None:          # a forward that raised inside a submodule
            c.end = next(_g._seq)
    return out, calls, owners


def _flatten(out):
    from .._tensor import Tensor
    if isinstance(out, Tensor):
        return [("output", out)]
    if isinstance(out, dict):
        items = []
        for k, v in out.items():
            items.extend((f"{k}" if n == "output" else f"{k}.{n}", t) for n, t in _flatten(v))
        return items
    if isinstance(out, (tuple, list)):
        items = []
        for i, v in enumerate(out):
            items.extend((f"output {i}" if n == "output" else n, t) for n, t in _flatten(v))
        return items
    return []


def graph(*outputs, params=None, show_saved=False, show_shapes=True, max_nodes=200, collapse=True,
          highlight=None, **model_kwargs):
    """Draw the autograd graph behind ``outputs`` (tensors), back to the leaves.

    * ``params``: names for the leaves: a dict ``{name: tensor}``, a Module (its
      ``named_parameters()``), or a list of tensors;
    * ``show_saved``: also draw what each node saved for backward (with shapes);
    * ``show_shapes``: label edges with the shape (and non-float32 dtype) that flows;
    * ``max_nodes``: past this many boxes, repeated blocks are collapsed (when
      ``collapse``), then the rest is one "… N more nodes" box; ``None`` draws all;
    * ``highlight``: a grad_fn node (or tensor, or list of them) to mark in red.

    ``graph(model, example_input)`` (a Module, then its input: a tensor or a
    tuple of them; further keyword arguments go to ``model``) runs the model once
    and groups each submodule's nodes into a labelled cluster; the leaves are
    then named from ``model.named_parameters()`` unless ``params`` is given.

    Outputs may also be a dict ``{name: tensor}`` (the name labels the output box).
    Returns a :class:`Graph`.
    """
    from ..nn.modules.module import Module
    calls, owners, title = None, None, None
    if outputs and isinstance(outputs[0], Module):
        if len(outputs) != 2:
            raise TypeError("graph(model, example_input): expected the model and one example input "
                            f"(a tensor or a tuple of tensors), got {len(outputs) - 1} more arguments")
        model, example = outputs
        out, calls, owners = _trace_calls(model, example, model_kwargs)
        if params is None:
            params = model
        title = type(model).__name__
        items = _flatten(out)
        if not items:
            raise TypeError(f"graph(model, example_input): {type(model).__name__} returned "
                            f"{type(out).__name__}, which holds no tensor to draw")
    else:
        if model_kwargs:
            raise TypeError(f"graph() got unexpected keyword arguments {sorted(model_kwargs)} "
                            "(extra keyword arguments are passed to the model in graph(model, x))")
        if len(outputs) == 1 and isinstance(outputs[0], dict):
            items = _flatten(outputs[0])
        else:
            items = _flatten(list(outputs)) if len(outputs) > 1 else _flatten(outputs[0]) if outputs else []
        if not items:
            raise TypeError("graph() expects one or more tensors (or graph(model, example_input)), got "
                            + (", ".join(type(o).__name__ for o in outputs) or "nothing"))
    if max_nodes is not None and max_nodes < 1:
        raise ValueError(f"graph(): max_nodes must be at least 1 (or None), got {max_nodes}")
    names = [n for n, _ in items]
    tensors = [t for _, t in items]
    b = _Builder(tensors, names, params, show_saved, show_shapes, max_nodes, collapse, calls, owners, title)
    hl = set()
    if highlight is not None:
        for h in (highlight if isinstance(highlight, (list, tuple, set)) else [highlight]):
            k = _key_of(h)
            if k in b.boxes:
                hl.add(b.redirect.get(k, k))
            else:
                raise ValueError(f"graph(): highlight={h!r} is not a node of this graph")
    g = b.picture(highlight=hl)
    g._builder = b
    return g
