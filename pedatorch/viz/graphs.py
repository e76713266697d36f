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
cluster, so a ResNet reads as its blocks.

A big model would make a picture of thousands of pixels, so the first picture
is made to fit a notebook.  Three ways of drawing less, each only grouping what
autograd recorded (the walk itself is never changed, and ``Graph.full`` has all
of it):

* folding: at ``depth=1`` each top-level module is one box (its class, input
  and output shapes, parameter count), at ``depth=2`` one level more unfolds;
  by default the deepest depth whose picture fits is chosen;
* collapsing: a run of three or more repetitions of the same block (or of the
  same few blocks in turn, as an RNN cell unrolled over time calls
  Embedding, LSTMCell, Linear, Embedding, ...) is one box "35 × (...)";
* the cap: past ``max_nodes`` boxes, the middle of the graph is one "… N more
  nodes" box; the input side and the output side stay.

Each is a *view*: a map from hidden boxes to the box drawn in their place.
The explorer of :mod:`.steps` uses one more view, a window around one node.

>>> loss = (a * b + c).sum()                                   # doctest: +SKIP
>>> viz.graph(loss, params={"a": a, "b": b, "c": c})           # doctest: +SKIP
"""
import collections
import re

from ._picture import Picture, html, quote

__all__ = ["graph", "Graph"]

_OP_FILL, _LEAF_FILL, _OUT_FILL, _SAVED_FILL = "#e8e8e8", "#cfe3ff", "#c9f2c0", "#ffd9a8"
_HOT, _HOT_FILL, _DONE_FILL, _MORE_FILL = "#d62728", "#ffd0d0", "#e6f6e0", "#ffffff"
_MODULE_FILL, _RUN_FILL = "#dfe8f6", "#fdf6d8"
_CLUSTER_FILLS = ("#f6f6fb", "#eef3fa", "#f7f3ea", "#f1f8f0")

# The first picture of graph(model, x) fits in this (its natural size, in px at 96 per inch): a notebook
# is about 1000 px wide, and a picture at most ~1.4 times that keeps its 11 pt text above ~10 px.
_FIRST_WIDTH, _FIRST_HEIGHT, _FIRST_BOXES = 1400, 1500, 60
# A picture wider than this takes the notebook's width (width="100%") instead of its own: the output
# area of JupyterLab at 1024 px with its file browser open is about 590 px wide
_FIT_WIDTH = 560
_PERIOD = 8       # the longest sequence of blocks that is looked for repeating (Embedding, LSTMCell, Linear: 3)


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


def _shapes_of(value, most=3):
    """The shapes of the tensors in a module's arguments or result (nested tuples, lists, dicts)."""
    from .._tensor import Tensor
    found = []

    def visit(v):
        if isinstance(v, Tensor):
            found.append(_shape_text(v.shape, v._data.dtype))
        elif isinstance(v, (tuple, list)):
            for x in v:
                visit(x)
        elif isinstance(v, dict):
            for x in v.values():
                visit(x)
    visit(value)
    return ", ".join(found[:most]) + (", …" if len(found) > most else "")


def saved_values(node):
    """What ``node`` saved for backward: ``[(i, kind, value, detail)]``, or None once backward freed it.

    ``kind`` is "input" (a tensor input; ``value`` is it), "result" (the node's own output),
    "constant" (an array or Python value) or "packed" (what a saved_tensors_hooks pack hook kept
    instead: a checkpoint keeps an empty holder); ``detail`` is the shape (and non-float32 dtype), or
    a short repr of a non-array value.  Nothing is unpacked (that would run the unpack hook).
    """
    from ..autograd.graph import SAVED_INPUT, SAVED_OUTPUT, SAVED_PACKED
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
        elif s[0] == SAVED_PACKED:
            r = repr(val)
            out.append((i, "packed", None, r if len(r) <= 32 else r[:29] + "..."))
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


# -- the SVG's size in a notebook ---------------------------------------------------------------

_SVG_SIZE = re.compile(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"')


def natural_size(svg):
    """(width, height) in px, at 96 px per inch, of an SVG that Graphviz wrote (its size is in pt)."""
    m = _SVG_SIZE.search(svg)
    if m is None:
        return None
    return float(m.group(1)) * 96 / 72, float(m.group(2)) * 96 / 72


def fit_width(svg):
    """The SVG, made to take the notebook's width when it is wider than ``_FIT_WIDTH`` px.

    JupyterLab shows an ``image/svg+xml`` output as an ``<img>`` at the SVG's own size, with no
    max-width: a 4000 px picture leaves the screen empty.  Without a size of its own (``width="100%"``
    and the ``viewBox`` Graphviz writes), the ``<img>`` takes the width of the output area and the
    height that keeps the picture's proportions.  A narrower picture keeps its size (it would only be
    blown up).  Inline in HTML, ``max-width`` keeps it from growing past its own size.
    """
    size = natural_size(svg)
    if size is None or size[0] <= _FIT_WIDTH:
        return svg
    return _SVG_SIZE.sub(f'<svg width="100%" style="max-width: {size[0]:.0f}px; height: auto"', svg, count=1)


def fit_box(svg):
    """The SVG scaled down to fit the box that holds it (both ways), never up: for the explorer's panel."""
    size = natural_size(svg)
    if size is None:
        return svg
    return _SVG_SIZE.sub(f'<svg width="100%" height="100%" style="max-width: {size[0]:.0f}px; '
                         f'max-height: {size[1]:.0f}px"', svg, count=1)


# -- boxes, module calls, views -----------------------------------------------------------------

class _V:
    """One box of the picture.

    ``call`` is the module call it is drawn in (the innermost one that made it; for a summary box, the
    call whose cluster holds it); ``time`` its place in the forward pass (the node's sequence number),
    so that "the input side" and "the output side" of a graph can be told apart.
    """

    __slots__ = ("id", "kind", "obj", "title", "lines", "call", "plain", "time")

    def __init__(self, id, kind, obj, title, lines=(), call=None, time=0.0):
        self.id, self.kind, self.obj, self.title = id, kind, obj, title
        self.lines = list(lines)
        self.call, self.time = call, time
        self.plain = " ".join([title, *self.lines])


class _Call:
    """One call of a submodule during ``graph(model, x)``: the seq-nr range of the nodes it made."""

    __slots__ = ("name", "cls", "module", "start", "end", "parent", "children", "level", "ins", "outs",
                 "keys")

    def __init__(self, name, module, start, parent, ins):
        self.name, self.cls, self.module = name, type(module).__name__, module
        self.start, self.end, self.parent, self.ins, self.outs = start, None, parent, ins, ""
        self.level = 0 if parent is None else parent.level + 1
        self.children = []
        self.keys = []          # the boxes this call made itself (not its children)

    def label(self):
        return f"{self.name}: {self.cls}"

    def subtree(self):
        yield self
        for c in self.children:
            yield from c.subtree()


def _parameter_count(modules):
    """The number of parameters of these modules together (a shared parameter counts once)."""
    seen = {}
    for m in modules:
        for p in m.parameters():
            seen[id(p)] = p.numel()
    return sum(seen.values())


class _View:
    """What one picture shows of the walked graph.

    Every way of drawing less is an extra box drawn in place of some walked boxes (its members): a
    folded module, a collapsed run of blocks, the cap's "… N more nodes", the explorer's window edges.
    Arrows to and from the members are drawn to and from the extra box, once per pair of boxes.
    """

    def __init__(self, depth=None):
        self.stand_in = {}       # key of a walked box -> key of the extra box drawn in its place
        self.extra = {}          # key of an extra box -> its _V
        self.members = {}        # key of an extra box -> the walked keys it stands for
        self.folded = set()      # id() of the module calls drawn as (part of) one box: no cluster
        self.depth = depth       # the depth graph() folded to (None: nothing folded)
        self.hidden = 0          # how many walked boxes the cap's "more" box stands for
        self.made = 0            # extra boxes made so far: the number in the next one's id

    def serial(self):
        self.made += 1
        return self.made - 1

    def shown(self, key):
        return self.stand_in.get(key, key)

    def add(self, key, box, members, calls=()):
        """Draw ``box`` in place of the walked boxes ``members`` (taking them from other extra boxes)."""
        for k in members:
            old = self.stand_in.get(k)
            if old is not None and old != key:
                self.members[old].discard(k)
                if not self.members[old]:        # e.g. a folded block inside a run collapsed now
                    del self.members[old], self.extra[old]
            self.stand_in[k] = key
        self.extra[key] = box
        self.members.setdefault(key, set()).update(members)
        self.folded.update(id(c) for c in calls)


class Graph(Picture):
    """The picture :func:`graph` returns (a :class:`~pedatorch.viz.Picture`).

    ``.source`` is the DOT text, ``.ids`` maps each grad_fn node (and leaf
    tensor) to its DOT node id, ``.labels`` maps each id to the box's text,
    ``.edges`` lists ``(from_id, to_id, label)`` in the forward direction and
    ``.clusters`` maps each module cluster to the ids in it: all of the picture
    as drawn.  ``.full`` is the same for the whole graph, nothing folded,
    collapsed or capped; ``.depth`` is the depth the picture was folded to.

    ``.svg()`` takes the notebook's width when the picture is wider than
    that; ``.svg(full_size=True)`` (or ``graph(..., full_size=True)``) keeps
    its own size.
    """

    kind = "Graph"

    def __init__(self, source, summary, ids, labels, edges, clusters, full_size=False, depth=None):
        super().__init__(source, summary)
        self._ids = ids
        self.labels = labels
        self.edges = edges
        self.clusters = clusters
        self.full_size = full_size
        self.depth = depth

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

    @property
    def full(self):
        """The whole graph: every node autograd recorded, nothing folded, collapsed or capped."""
        return self._builder.picture(_View(), full_size=self.full_size)

    def svg(self, full_size=None):
        """The SVG; it takes the notebook's width unless ``full_size`` (default: ``self.full_size``)."""
        svg = super().svg()
        return svg if (self.full_size if full_size is None else full_size) else fit_width(svg)

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


def _repeats(signatures):
    """Runs of a block (or a few blocks in turn) repeated 3+ times: ``[(start, period, times)]``.

    Scanning left to right, at each place the period that covers the most blocks wins (the shorter
    on a tie): ``A B C A B C A B C`` is 3 × (A B C), ``A A A A`` is 4 × (A).
    """
    runs, i, n = [], 0, len(signatures)
    while i < n:
        best = None
        for p in range(1, min(_PERIOD, (n - i) // 3) + 1):
            times = 1
            while i + (times + 1) * p <= n and \
                    signatures[i + times * p:i + (times + 1) * p] == signatures[i:i + p]:
                times += 1
            if times >= 3 and (best is None or p * times > best[0] * best[1]):
                best = (p, times)
        if best is None:
            i += 1
        else:
            runs.append((i, *best))
            i += best[0] * best[1]
    return runs


class _Builder:
    """Walks the graph once; views choose what a picture shows of it; ``dot()`` draws one."""

    def __init__(self, outputs, names, params, show_saved, show_shapes, calls=None, owners=None, title=None):
        from .._tensor import Tensor
        from ..autograd.graph import AccumulateGrad
        self.Tensor, self.AccumulateGrad = Tensor, AccumulateGrad
        self.names = _param_names(params)
        self.show_saved, self.show_shapes = show_saved, show_shapes
        self.title = title
        self.boxes = {}           # key -> _V
        self.order = []           # keys in BFS order from the outputs
        self.edges = []           # (src key, dst key, label), forward direction
        self.saved = []           # (op key, _V of a saved value)
        self.keep = []            # the objects behind the keys stay alive while we draw
        self.calls = calls or []
        self.owners = owners or {}
        self._signatures = {}
        self._walk(outputs, names)
        self._place_in_time()
        self._assign_calls()
        self.view = _View()

    # -- walking
    def _new_id(self):
        return f"n{len(self.boxes)}"

    def _leaf_box(self, key, var):
        name = self.names.get(id(var))
        lines = [_shape_text(var.shape, var._data.dtype)] if self.show_shapes or name is None else []
        lines.append("AccumulateGrad")
        return _V(self._new_id(), "leaf", var, name or "leaf", lines)

    def _walk(self, outputs, names):
        queue = collections.deque()
        for i, (t, name) in enumerate(zip(outputs, names)):
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
            self.boxes[okey] = _V(f"out{i}", "output", t, name, lines)
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

    def _place_in_time(self):
        """Each box's place in the forward pass: an op's sequence number; a leaf just before its first
        use; the outputs last."""
        first_use = {}
        for key in self.order:
            v = self.boxes[key]
            if v.kind == "op":
                v.time = float(v.obj._seq_nr)
        for a, b, _ in self.edges:
            if self.boxes[b].kind == "op":
                first_use[a] = min(first_use.get(a, float("inf")), self.boxes[b].time)
        end = max((v.time for v in self.boxes.values()), default=0.0) + 1
        for i, key in enumerate(self.order):
            v = self.boxes[key]
            if v.kind == "output":
                v.time = end + 1 + i
            elif v.kind == "leaf":
                v.time = first_use.get(key, end + 0.5) - 0.5

    # -- module calls (graph(model, x))
    def _assign_calls(self):
        """Each op goes to the innermost call whose seq-nr range holds it, each parameter to the first
        call of the module that owns it."""
        if not self.calls:
            return
        by_start = sorted(self.calls, key=lambda c: c.start)
        first_call = {}
        for c in by_start:
            first_call.setdefault(c.name, c)
        for key in self.order:
            v = self.boxes[key]
            best = None
            if v.kind == "op":
                seq = v.obj._seq_nr
                for c in by_start:
                    if c.start > seq:
                        break
                    if seq < c.end:
                        best = c            # later starts are deeper: the innermost wins
            elif v.kind == "leaf":
                # the module that owns it, or (never called itself, as MultiheadAttention's out_proj,
                # whose weight the attention uses directly) the nearest one above it that was called
                owner = self.owners.get(id(v.obj))
                while owner is not None and owner not in first_call:
                    owner = owner.rpartition(".")[0] if owner else None
                best = first_call.get(owner)
            if best is not None:
                v.call = best
                best.keys.append(key)

    def _under(self, call):
        """The walked boxes made by ``call`` and the calls inside it."""
        return [k for c in call.subtree() for k in c.keys]

    def _signature(self, call):
        """What makes two calls 'the same block': the class, its parameters' shapes, the nodes it made."""
        sig = self._signatures.get(id(call))
        if sig is None:
            ops = collections.Counter(self.boxes[k].title for k in self._under(call)
                                      if self.boxes[k].kind == "op")
            shapes = tuple(tuple(p.shape) for p in call.module.parameters())
            sig = self._signatures[id(call)] = (call.cls, shapes, tuple(sorted(ops.items())))
        return sig

    def _depths(self):
        """The depths to try, deepest first: None (nothing folded), then each level of modules up to 1."""
        deepest = max((c.level for c in self.calls), default=-1)
        return [None, *range(deepest + 1, 0, -1)]

    # -- views
    def visible(self, view):
        """The keys of the boxes drawn in ``view``, in the walk's order (an extra box where its first
        member was): the order they are written in the DOT text, which Graphviz's layout starts from."""
        place = {k: i for i, k in enumerate(self.order)}

        def first(k):
            return place[k] if k in place else min(place[m] for m in view.members[k])
        return sorted([k for k in self.order if k not in view.stand_in] + list(view.extra), key=first)

    def box(self, key, view):
        return view.extra[key] if key in view.extra else self.boxes[key]

    def arrange(self, depth, max_nodes, collapse):
        """Choose the view of the first picture (``self.view``): fold to ``depth``, collapse runs of
        blocks, cap at ``max_nodes``.  ``depth="auto"`` tries the deepest depth first, and takes the
        first whose picture fits (``_FIRST_WIDTH`` x ``_FIRST_HEIGHT`` px, ``_FIRST_BOXES`` boxes)."""
        limit = max_nodes
        if depth == "auto" and self.calls:
            for d in self._depths():
                view = self._folded(d)
                if collapse:
                    self._collapse(view, self._fits)
                if self._fits(view):
                    break
            else:       # not even depth=1 fits: draw at most _FIRST_BOXES boxes of it
                limit = _FIRST_BOXES if limit is None else min(limit, _FIRST_BOXES)
        else:
            view = self._folded(None if depth == "auto" or not self.calls else depth)
            if collapse and max_nodes is not None:
                self._collapse(view, lambda v: len(self.visible(v)) <= max_nodes)
        if limit is not None and len(self.visible(view)) > limit:
            self._cap(view, limit)
        self.view = view

    def _folded(self, depth):
        """A view in which every module call at ``depth`` (1: the top-level modules) is one box."""
        view = _View(depth)
        if depth is None:
            return view
        for call in self.calls:
            keys = self._under(call) if call.level == depth - 1 else None
            if keys:
                params = _parameter_count([call.module])
                lines = [f"{call.ins or '()'} → {call.outs or '()'}"]
                if params:
                    lines.append(f"{params:,} parameters")
                n = view.serial()
                box = _V(f"m{n}", "module", None, call.label(), lines, call=call.parent,
                         time=min(self.boxes[k].time for k in keys))
                view.add(("module", n), box, keys, calls=call.subtree())
        return view

    def _collapse(self, view, done):
        """Runs of repeated sibling blocks, one box each, level by level from the top until ``done(view)``."""
        level = [c for c in self.calls if c.parent is None]
        while level and not done(view):
            siblings = collections.defaultdict(list)
            for c in level:
                if self._under(c):                 # a call that made no node is not drawn at all
                    siblings[id(c.parent)].append(c)
            for group in siblings.values():
                group.sort(key=lambda c: c.start)
                for i, period, times in _repeats([self._signature(c) for c in group]):
                    self._collapse_run(view, group[i:i + period * times], period, times)
            level = [ch for c in level if id(c) not in view.folded for ch in c.children]

    def _collapse_run(self, view, run, period, times):
        parent = run[0].parent
        keys = [k for c in run for k in self._under(c)]
        # what the parent itself computed between the blocks (an RNN's `h = h * mask`) goes in too
        start, end = run[0].start, run[-1].end

        def between(k):
            v = self.boxes[k]
            return v.kind == "op" and v.call is parent and start <= v.obj._seq_nr < end
        keys += [k for k in (parent.keys if parent is not None else self.order) if between(k)]
        keys = list(dict.fromkeys(keys))
        block = run[:period]
        if period == 1:
            title, names = f"{times} × {run[0].cls}", f"{run[0].name} … {run[-1].name}"
        else:
            title = f"{times} × (" + " → ".join(c.cls for c in block) + ")"
            names = " → ".join(c.name for c in block)
        params = _parameter_count(c.module for c in run)
        lines = [names, f"{len(keys)} nodes" + (f", {params:,} parameters" if params else "")]
        n = view.serial()
        box = _V(f"c{n}", "collapsed", None, title, lines, call=parent, time=min(self.boxes[k].time for k in keys))
        view.add(("collapsed", n), box, keys, calls=[c2 for c in run for c2 in c.subtree()])

    def _cap(self, view, limit):
        """Keep ``limit`` boxes: the input side and the output side; the middle is one "more" box.
        The outputs and the collapsed runs always stay."""
        keys = sorted(self.visible(view), key=lambda k: self.box(k, view).time)     # inputs first
        always = {k for k in keys if self.box(k, view).kind in ("output", "collapsed")}
        others = [k for k in keys if k not in always]
        room = max(limit - len(always), 0)
        head = (room + 1) // 2
        middle = others[head:len(others) - (room - head)]
        if not middle:
            return
        members = set(middle) - set(view.extra)
        for k in middle:
            if k in view.extra:
                members.update(view.members[k])
        view.hidden = len(members)
        box = _V("more", "more", None, f"… {len(members)} more nodes", [f"max_nodes={limit}"],
                 time=self.box(middle[0], view).time)
        view.add(("more",), box, members)

    def window(self, center, hops=2, most=16):
        """A view of the boxes near ``center`` (a walked key): those at most ``hops`` arrows away
        (either way; all of ``center``'s neighbours, and no more than ``most`` beyond them), the rest
        behind two boxes, one for the nodes before ``center`` in the forward pass and one after."""
        around = collections.defaultdict(list)
        for a, b, _ in self.edges:
            around[a].append(b)
            around[b].append(a)
        near, ring = {center}, [center]
        for _ in range(hops):
            ring = list(dict.fromkeys(n for k in ring for n in around[k] if n not in near))
            if len(near) > 1 and len(near) + len(ring) > most:
                break
            near.update(ring)
        view = _View()
        now = self.boxes[center].time
        for side, word, line in (("before", "earlier", "(input side)"), ("after", "later", "(output side)")):
            members = [k for k in self.order if k not in near and (self.boxes[k].time < now) == (side == "before")]
            if members:
                n = len(members)
                box = _V(f"w{side}", "more", None, f"… {n} {word} node{'s' if n > 1 else ''}", [line],
                         time=now - 0.5 if side == "before" else now + 0.5)
                view.add(("window", side), box, members)
        return view

    def _fits(self, view):
        """Whether a view's picture is likely to fit the first picture's size (see ``estimate``)."""
        if len(self.visible(view)) > _FIRST_BOXES:
            return False
        width, height = self.estimate(view)
        return width <= _FIRST_WIDTH and height <= _FIRST_HEIGHT

    def estimate(self, view=None):
        """The size (px) Graphviz will give a view's picture, roughly, without running it: boxes go
        down in ranks along the longest path of arrows, side by side within a rank."""
        view = self.view if view is None else view
        keys = self.visible(view)
        rank = {k: 0 for k in keys}
        edges = [(a, b) for a, b, _ in self.final_edges(view)]
        for _ in range(len(keys)):                   # longest path: at most len(keys) rounds
            changed = False
            for a, b in edges:
                if rank[b] < rank[a] + 1:
                    rank[b] = rank[a] + 1
                    changed = True
            if not changed:
                break
        ranks = collections.defaultdict(float)
        for k in keys:
            v = self.box(k, view)
            chars = max(len(line) for line in [v.title, *v.lines])
            ranks[rank[k]] += 7.5 * chars + 30      # 11 pt Helvetica: ~7.5 px a character, margins
        depth = max((c.level + 1 for c in self.calls if id(c) not in view.folded), default=0)
        width = max(ranks.values(), default=0) + 30 * depth
        height = (max(rank.values(), default=0) + 1) * 105 + 40 * depth
        return width, height

    # -- drawing
    def final_edges(self, view=None):
        """Edges between the boxes drawn.  Every recorded edge is drawn (``x * x`` has two arrows
        from x); edges that an extra box stands for are drawn once per pair of boxes."""
        view = self.view if view is None else view
        out, seen = [], set()
        for a, b, label in self.edges:
            a2, b2 = view.shown(a), view.shown(b)
            if a2 == b2:
                continue
            if (a2, b2) != (a, b):
                if any(k in view.extra and view.extra[k].kind == "more" for k in (a2, b2)):
                    label = ""      # several hidden tensors may stand behind this one arrow
                if (a2, b2) in seen:
                    continue
                seen.add((a2, b2))
            out.append((a2, b2, label))
        return out

    def shown_key(self, obj, view=None):
        """The key of the box that shows ``obj`` (a node, leaf or tensor): its own, or a stand-in's."""
        return (self.view if view is None else view).shown(_key_of(obj))

    def dot(self, view, highlight=(), done=(), hot_edges=None, note=None):
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
        keys = self.visible(view)
        in_cluster = collections.defaultdict(list)
        for k in keys:
            in_cluster[id(self.box(k, view).call)].append(k)
        for k in in_cluster.pop(id(None), []):
            lines.append("  " + self._node_line(k, view, highlight, done))
        counter = [0]
        drawn = self.final_edges(view)

        def beside(own):
            """A parameter and the op that uses it, side by side: above it, the parameter would make
            its cluster reach up into the rank of the block's input, and push the cluster aside (a
            ResNet becomes a staircase of blocks)."""
            own = set(own)
            pairs = {}
            for a, b, _ in drawn:
                if a in own and b in own and self.box(a, view).kind == "leaf" and self.box(b, view).kind == "op":
                    pairs.setdefault(a, b)
            return [(self.box(a, view).id, self.box(b, view).id) for a, b in pairs.items()]

        def emit(call, depth):
            if id(call) in view.folded:
                return []
            body = [line for ch in sorted(call.children, key=lambda c: c.start) for line in emit(ch, depth + 1)]
            own = in_cluster.get(id(call), [])
            if not own and not body:
                return []
            counter[0] += 1
            ind = "  " * (depth + 1)
            out = [f"{ind}subgraph cluster_{counter[0]} {{",
                   f'{ind}  label={quote(call.label())}; style="rounded,filled"; '
                   f'fillcolor="{_CLUSTER_FILLS[depth % len(_CLUSTER_FILLS)]}"; color="#9aa5b8"; '
                   'fontsize=10; fontcolor="#34495e";']
            out.extend(f"{ind}  " + self._node_line(k, view, highlight, done) for k in own)
            out.extend(f"{ind}  {{rank=same; {a}; {b};}}" for a, b in beside(own))
            out.extend(body)
            out.append(f"{ind}}}")
            return out

        for root in sorted(self.calls, key=lambda c: c.start):
            if root.parent is None:
                lines.extend(emit(root, 0))
        for k, v in self.saved:
            if k in view.stand_in:
                continue
            lines.append(f"  {v.id} [label={self._label(v)}, fillcolor=\"{_SAVED_FILL}\", fontsize=9, "
                         'style="filled", shape=box];')
            lines.append(f"  {v.id} -> {self.boxes[k].id} [style=dashed, arrowhead=none, color=\"#c77d2a\"];")
        for a, b, label in self.final_edges(view):
            attrs = []
            hot = hot_edges.get((a, b))
            if hot is not None:
                attrs += [f'color="{_HOT}"', "penwidth=2.2", f'fontcolor="{_HOT}"']
                label = hot
            if label:
                attrs.append(f"label={quote(' ' + label)}")
            lines.append(f"  {self.box(a, view).id} -> {self.box(b, view).id}" +
                         (f" [{', '.join(attrs)}]" if attrs else "") + ";")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _label(self, v):
        bold = v.kind in ("leaf", "output", "collapsed", "module")
        parts = [f"<b>{html(v.title)}</b>"] if bold else [html(v.title)]
        for line in v.lines:
            small = line in ("AccumulateGrad",) or v.kind == "more"
            parts.append(f'<font point-size="9">{html(line)}</font>' if small else html(line))
        return "<" + "<br/>".join(parts) + ">"

    def _node_line(self, k, view, highlight, done):
        v = self.box(k, view)
        fill = {"op": _OP_FILL, "leaf": _LEAF_FILL, "output": _OUT_FILL, "collapsed": _RUN_FILL,
                "module": _MODULE_FILL, "more": _MORE_FILL}[v.kind]
        attrs = [f"label={self._label(v)}"]
        style = {"more": "rounded,dashed", "collapsed": "rounded,filled,dashed"}.get(v.kind, "rounded,filled")
        if v.kind == "module":
            attrs.append('color="#5b7096"')
        if k in done:
            fill = _DONE_FILL
        if k in highlight:
            fill = _HOT_FILL
            attrs += [f'color="{_HOT}"', "penwidth=3"]
        attrs.append(f'fillcolor="{fill}"')
        attrs.append(f'style="{style}"')
        return f"{v.id} [{', '.join(attrs)}];"

    def picture(self, view=None, full_size=False, **kw):
        """The Graph of ``view`` (default: the first picture's); ``kw`` go to :meth:`dot`."""
        view = self.view if view is None else view
        source = self.dot(view, **kw)
        keys = self.visible(view)
        kinds = collections.Counter(v.kind for v in self.boxes.values())
        summary = f"{kinds['op']} grad_fn nodes, {kinds['leaf']} leaves"
        drawn = collections.Counter(self.box(k, view).kind for k in keys)
        if view.depth is not None:
            summary += f", depth={view.depth}: {drawn['module']} module boxes"
        if drawn["collapsed"]:
            summary += f", {drawn['collapsed']} collapsed runs"
        if view.hidden:
            summary += f", {view.hidden} more not drawn"
        first = [self.boxes[a].title for a, b, _ in self.edges if self.boxes[b].kind == "output"]
        if first:
            summary += " (output: " + ", ".join(first) + ")"
        elif kinds["output"]:
            summary += " (no grad_fn)"
        ids = {}
        for key in self.order:
            v = self.boxes[key]
            if v.obj is not None and v.kind != "output":
                ids[key] = (v.obj, self.box(view.shown(key), view).id)   # ops by their node, leaves by their tensor
        labels = {self.box(k, view).id: self.box(k, view).plain for k in keys}
        edges = [(self.box(a, view).id, self.box(b, view).id, label) for a, b, label in self.final_edges(view)]
        clusters = {}
        for k in keys:
            c = self.box(k, view).call
            if c is not None:
                clusters.setdefault(c.label(), []).append(self.box(k, view).id)
        g = Graph(source, summary, ids, labels, edges, clusters, full_size=full_size, depth=view.depth)
        g._builder = self
        return g


def _trace_calls(model, example_input, kwargs):
    """Run ``model`` once with hooks on every submodule; returns (outputs, calls, owners)."""
    from ..autograd import graph as _g
    calls, stack, handles = [], [], []

    def pre(name):
        def hook(module, args):
            c = _Call(name, module, next(_g._seq), stack[-1] if stack else None, _shapes_of(args))
            if c.parent is not None:
                c.parent.children.append(c)
            calls.append(c)
            stack.append(c)
        return hook

    def post(module, args, output):
        c = stack.pop()
        c.end = next(_g._seq)
        c.outs = _shapes_of(output)

    owners = {}
    for name, m in model.named_modules():
        for pname, p in m.named_parameters(recurse=False):
            owners.setdefault(id(p), name)
        if not name:
            continue
        handles.append(m.register_forward_pre_hook(pre(name)))
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
          highlight=None, depth="auto", full_size=False, **model_kwargs):
    """Draw the autograd graph behind ``outputs`` (tensors), back to the leaves.

    * ``params``: names for the leaves: a dict ``{name: tensor}``, a Module (its
      ``named_parameters()``), or a list of tensors;
    * ``show_saved``: also draw what each node saved for backward (with shapes);
    * ``show_shapes``: label edges with the shape (and non-float32 dtype) that flows;
    * ``max_nodes``: past this many boxes, repeated blocks are collapsed (when
      ``collapse``), then the middle is one "… N more nodes" box; ``None`` draws all;
    * ``highlight``: a grad_fn node (or tensor, or list of them) to mark in red;
    * ``depth`` (``graph(model, x)``): ``1`` draws each top-level module as one box,
      ``2`` one level more, ...; ``None`` draws every node; ``"auto"`` (the default)
      takes the deepest depth whose picture fits a notebook, collapsing repeated
      blocks and capping when even ``depth=1`` does not;
    * ``full_size``: the SVG keeps its own size (by default a picture wider than the
      notebook is scaled to its width; ``.svg(full_size=True)`` gives it too).

    ``graph(model, example_input)`` (a Module, then its input: a tensor or a
    tuple of them; further keyword arguments go to ``model``) runs the model once
    and groups each submodule's nodes into a labelled cluster; the leaves are
    then named from ``model.named_parameters()`` unless ``params`` is given.

    Outputs may also be a dict ``{name: tensor}`` (the name labels the output box).
    Returns a :class:`Graph`; ``.full`` on it is the whole graph.
    """
    from ..nn.modules.module import Module
    calls, owners, title = None, None, None
    if not (depth is None or depth == "auto" or (isinstance(depth, int) and not isinstance(depth, bool)
                                                  and depth >= 1)):
        raise ValueError(f"graph(): depth must be an integer of at least 1, None or 'auto', got {depth!r}")
    if max_nodes is not None and max_nodes < 1:
        raise ValueError(f"graph(): max_nodes must be at least 1 (or None), got {max_nodes}")
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
    names = [n for n, _ in items]
    tensors = [t for _, t in items]
    b = _Builder(tensors, names, params, show_saved, show_shapes, calls, owners, title)
    b.arrange(depth, max_nodes, collapse)
    hl = set()
    if highlight is not None:
        for h in (highlight if isinstance(highlight, (list, tuple, set)) else [highlight]):
            k = _key_of(h)
            if k in b.boxes:
                hl.add(b.view.shown(k))
            else:
                raise ValueError(f"graph(): highlight={h!r} is not a node of this graph")
    return b.picture(highlight=hl, full_size=full_size)
