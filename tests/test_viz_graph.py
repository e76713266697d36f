"""viz.graph: the DOT and the SVG of autograd graphs, small and large, with each renderer and none.

The DOT is parsed into nodes (id -> attributes) and edges; the SVG the renderer
makes of it is parsed as XML and its text is checked too.
"""
import os
import re
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import pedatorch as pt
from pedatorch import nn, viz
from pedatorch.viz import _render

SVG = "{http://www.w3.org/2000/svg}"


def parse_dot(src):
    """({id: attr string}, [(a, b, attr string)]) of a DOT text as graph() writes it."""
    nodes, edges = {}, []
    for line in src.splitlines():
        line = line.strip()
        m = re.match(r"^(\w+) -> (\w+)(?: \[(.*)\])?;$", line)
        if m:
            edges.append((m.group(1), m.group(2), m.group(3) or ""))
            continue
        m = re.match(r"^(\w+) \[(.*)\];$", line)
        if m and m.group(1) not in ("graph", "node", "edge"):
            nodes[m.group(1)] = m.group(2)
    return nodes, edges


def label_text(attrs):
    m = re.search(r"label=<(.*)>, ", attrs) or re.search(r"label=<(.*)>$", attrs)
    return re.sub(r"<[^>]+>", " ", m.group(1)).split()


def svg_texts(picture):
    root = ET.fromstring(picture.svg())
    return " ".join((t.text or "") for t in root.iter(SVG + "text"))


@pytest.fixture(params=["graphviz-pure", "dot"])
def renderer(request):
    name = request.param
    import sys
    path = shutil.which(name) or shutil.which(name, path=os.path.dirname(sys.executable))
    if path is None:
        pytest.skip(f"{name} is not installed here")
    viz.set_renderer(path)
    yield name
    viz.set_renderer(None)


def small():
    pt.manual_seed(0)
    a = pt.randn(3, requires_grad=True)
    b = pt.randn(3, requires_grad=True)
    c = pt.randn(3, requires_grad=True)
    loss = (a * b + c).sum()
    return loss, {"a": a, "b": b, "c": c}


def test_small_graph_nodes_edges_and_labels():
    loss, params = small()
    g = viz.graph(loss, params=params)
    nodes, edges = parse_dot(g.source)
    names = {i: label_text(a) for i, a in nodes.items()}
    ops = sorted(n[0] for i, n in names.items() if n[0].endswith("Backward0"))
    assert ops == ["AddBackward0", "MulBackward0", "SumBackward0"]
    by = {n[0]: i for i, n in names.items()}
    for leaf in "abc":
        assert names[by[leaf]] == [leaf, "(3,)", "AccumulateGrad"]
        assert "#cfe3ff" in nodes[by[leaf]]                       # leaves are blue
    assert "#c9f2c0" in nodes["out0"]                            # the output is green
    pairs = {(a, b) for a, b, _ in edges}
    assert pairs == {(by["a"], by["MulBackward0"]), (by["b"], by["MulBackward0"]),
                     (by["MulBackward0"], by["AddBackward0"]), (by["c"], by["AddBackward0"]),
                     (by["AddBackward0"], by["SumBackward0"]), (by["SumBackward0"], "out0")}
    labels = {(a, b): l for a, b, l in edges}
    assert '(3,)' in labels[(by["a"], by["MulBackward0"])]
    assert '()' in labels[(by["SumBackward0"], "out0")]
    assert g.labels[by["a"]] == "a (3,) AccumulateGrad"
    assert (by["SumBackward0"], "out0", "()") in g.edges
    assert repr(g) == "<pedatorch.viz.Graph: 3 grad_fn nodes, 3 leaves (output: SumBackward0)>"
    assert g.id_of(loss) == by["SumBackward0"]
    assert g.id_of(params["a"]) == by["a"]
    assert g.id_of(loss.grad_fn.next_functions[0][0]) == by["AddBackward0"]


def grad_fns(fn, seen=None):
    """Every node reachable from ``fn`` along next_functions (PyTorch's or ours), each once."""
    seen = [] if seen is None else seen
    if fn is not None and fn not in seen:
        seen.append(fn)
        for nxt, _ in fn.next_functions:
            grad_fns(nxt, seen)
    return seen


def test_graph_walks_next_functions_exactly(torch):
    """The same expression in PyTorch: the same node names along next_functions."""
    x = pt.randn(2, 3, requires_grad=True)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    ours = grad_fns(((x.exp() * x).t() @ x).tanh().mean().grad_fn)
    theirs = grad_fns(((tx.exp() * tx).t() @ tx).tanh().mean().grad_fn)
    g = viz.graph(((x.exp() * x).t() @ x).tanh().mean())
    drawn = sorted(v.split()[0] for v in g.labels.values() if v != "output ()")
    names = sorted(f.name() for f in theirs)
    assert sorted(f.name() for f in ours) == names
    assert drawn == sorted(n if not n.endswith("AccumulateGrad") else "leaf" for n in names)


def test_dtype_on_edges_multi_output_index_and_no_grad_output():
    x = pt.randn(4, 3, dtype=pt.float64, requires_grad=True)
    vals, idx = x.max(dim=1)
    u, s = x.split(1, dim=0)[:2]
    out = vals.sum() + (u * s).sum()
    g = viz.graph(out, params={"x": x})
    nodes, edges = parse_dot(g.source)
    texts = [l for _, _, l in edges]
    assert any("float64" in t for t in texts)
    assert any(re.search(r'\[1\]', t) for t in texts)          # the second output of SplitBackward0
    assert any(re.search(r"\[0\]", t) for t in texts)          # both outputs, each its own arrow
    y = pt.randn(2, requires_grad=True)
    square = viz.graph((y * y).sum(), params={"y": y})
    assert sum(1 for a, b, _ in square.edges if a == square.id_of(y)) == 2   # y * y: y arrives twice
    plain = viz.graph(pt.ones(2))
    assert "no grad_fn" in plain.source and repr(plain).endswith("(no grad_fn)>")


def test_show_saved_and_freed():
    loss, params = small()
    g = viz.graph(loss, params=params, show_saved=True)
    nodes, edges = parse_dot(g.source)
    saved = [i for i in nodes if i.startswith("s")]
    assert saved, "MulBackward0 saves a and b"
    texts = [" ".join(label_text(nodes[i])) for i in saved]
    assert any("saved 0: b" in t or "saved 1: b" in t for t in texts)
    assert all("(3,)" in t for t in texts)
    assert all(a in saved and "dashed" in attrs for a, b, attrs in edges if a in saved)
    loss.backward()
    after = viz.graph(loss, params=params, show_saved=True)
    assert "saved tensors freed" in after.source


def test_highlight_and_bad_arguments():
    loss, params = small()
    g = viz.graph(loss, params=params, highlight=loss.grad_fn)
    nodes, _ = parse_dot(g.source)
    hot = [i for i, a in nodes.items() if "#d62728" in a]
    assert hot == [g.id_of(loss)]
    with pytest.raises(ValueError, match="not a node of this graph"):
        viz.graph(loss, highlight=pt.ones(1, requires_grad=True))
    with pytest.raises(TypeError, match="expects one or more tensors"):
        viz.graph(3)
    with pytest.raises(ValueError, match="max_nodes"):
        viz.graph(loss, max_nodes=0)
    with pytest.raises(TypeError, match="unexpected keyword"):
        viz.graph(loss, colour="red")


def test_several_outputs_and_a_dict():
    x = pt.randn(3, requires_grad=True)
    g = viz.graph({"loss": (x * 2).sum(), "aux": x.exp().mean()}, params={"x": x})
    nodes, edges = parse_dot(g.source)
    assert {label_text(nodes["out0"])[0], label_text(nodes["out1"])[0]} == {"loss", "aux"}
    leaf = g.id_of(x)
    assert sum(1 for a, b, _ in edges if a == leaf) == 2      # one leaf box feeds both branches


# ------------------------------------------------------------------------- models: clusters, size

class Block(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(n, n)
        self.norm = nn.LayerNorm(n)

    def forward(self, x):
        return x + pt.relu(self.norm(self.lin(x)))


def test_model_clusters_from_hooks():
    pt.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), Block(8), nn.Linear(8, 2))
    g = viz.graph(model, pt.randn(5, 4))
    assert set(g.clusters) == {"0: Linear", "1: Block", "1.lin: Linear", "1.norm: LayerNorm", "2: Linear"}
    named = {g.labels[i].split()[0] for i in g.clusters["0: Linear"]}
    assert named == {"AddmmBackward0", "TBackward0", "0.weight", "0.bias"}
    assert {g.labels[i].split()[0] for i in g.clusters["1.norm: LayerNorm"]} == \
        {"NativeLayerNormBackward0", "1.norm.weight", "1.norm.bias"}
    # the residual add and the relu belong to the block itself, not to a child
    assert {g.labels[i].split()[0] for i in g.clusters["1: Block"]} == {"AddBackward0", "ReluBackward0"}
    assert g.source.count("subgraph cluster_") == 5
    assert 'label="1.lin: Linear"' in g.source
    assert repr(g).startswith("<pedatorch.viz.Graph: ")


def test_model_errors():
    model = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="expected the model and one example input"):
        viz.graph(model, pt.randn(1, 2), pt.randn(1, 2))
    with pytest.raises(TypeError, match="holds no tensor"):
        viz.graph(_NoTensor(), pt.randn(1))


class _NoTensor(nn.Module):
    def forward(self, x):
        return "nothing"


def test_large_model_collapses_repeated_blocks():
    pt.manual_seed(0)
    model = nn.Sequential(*[Block(4) for _ in range(30)])
    g = viz.graph(model, pt.randn(2, 4), max_nodes=60)
    nodes, edges = parse_dot(g.source)
    collapsed = [i for i in nodes if i.startswith("c")]
    assert len(collapsed) == 1
    text = " ".join(label_text(nodes[collapsed[0]]))
    assert text.startswith("28 × Block 1 … 28")
    assert "nodes each, not drawn" in text
    assert "0: Block" in g.clusters and "29: Block" in g.clusters and "5: Block" not in g.clusters
    assert len(nodes) <= 60 and "collapsed runs" in repr(g)
    # the chain stays connected through the summary box
    assert any(b == collapsed[0] for a, b, _ in edges) and any(a == collapsed[0] for a, b, _ in edges)
    # not collapsed when it fits
    full = viz.graph(model, pt.randn(2, 4), max_nodes=None)
    assert len(full.clusters) == 90 and "collapsed" not in repr(full)


def test_cap_shows_a_more_marker():
    x = pt.randn(3, requires_grad=True)
    y = x
    for _ in range(100):
        y = (y * 1.01).sin()
    g = viz.graph(y.sum(), max_nodes=20)
    nodes, edges = parse_dot(g.source)
    assert "more" in nodes
    text = " ".join(label_text(nodes["more"]))
    n_hidden = int(re.search(r"… (\d+) more nodes", text).group(1))
    full = viz.graph(y.sum(), max_nodes=None)
    assert n_hidden == len(full.labels) - 20      # everything past the first 20 boxes
    assert "max_nodes=20" in text
    assert len(nodes) == 21
    assert f"{n_hidden} more not drawn" in repr(g)


# --------------------------------------------------------------------------------- rendering

def test_svg_has_the_text(renderer):
    loss, params = small()
    g = viz.graph(loss, params=params)
    text = svg_texts(g)
    for word in ("MulBackward0", "AddBackward0", "SumBackward0", "AccumulateGrad", "a", "(3,)"):
        assert word in text
    bundle = g._repr_mimebundle_()
    assert bundle["text/plain"] == repr(g) and bundle["image/svg+xml"].lstrip().startswith("<?xml")


def test_model_svg_has_cluster_labels(renderer):
    pt.manual_seed(0)
    g = viz.graph(nn.Sequential(nn.Linear(4, 8), Block(8)), pt.randn(5, 4))
    text = svg_texts(g)
    assert "0: Linear" in text and "1.norm: LayerNorm" in text


def test_save_formats(tmp_path, renderer):
    loss, params = small()
    g = viz.graph(loss, params=params)
    assert open(g.save(tmp_path / "g.svg"), "rb").read().lstrip().startswith(b"<?xml")
    assert open(g.save(tmp_path / "g.png"), "rb").read()[:8] == b"\x89PNG\r\n\x1a\n"
    assert open(g.save(tmp_path / "g.dot")).read() == g.source
    if renderer == "graphviz-pure":
        with pytest.raises(ValueError, match="cannot write PDF"):
            g.save(tmp_path / "g.pdf")
    else:
        assert open(g.save(tmp_path / "g.pdf"), "rb").read()[:4] == b"%PDF"


def test_without_any_renderer(monkeypatch):
    monkeypatch.setattr(_render, "_candidates", lambda: iter(()))
    monkeypatch.delenv("PEDATORCH_DOT", raising=False)
    monkeypatch.setattr(_render, "_chosen", None)
    monkeypatch.setattr(_render, "_found", None)
    loss, params = small()
    g = viz.graph(loss, params=params)
    assert "MulBackward0" in g.source           # DOT needs no renderer
    assert g._repr_mimebundle_() == {"text/plain": repr(g) + "\n(no picture: no Graphviz renderer is installed; "
                                                         "pip install 'pedatorch[viz]' brings one)"}
    with pytest.raises(viz.RendererNotFound, match="pedatorch\\[viz\\]"):
        g.svg()


def test_model_graph_has_pytorchs_nodes(torch):
    """A residual conv block: the drawn grad_fn nodes are the ones PyTorch records for the same model."""
    def build(lib):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Conv2d(1, 4, 3, padding=1, bias=False), lib.nn.BatchNorm2d(4), lib.nn.ReLU(),
                              lib.nn.MaxPool2d(2), lib.nn.Flatten(), lib.nn.Linear(16, 3), lib.nn.LogSoftmax(dim=1))
        return m

    x = np.random.default_rng(0).standard_normal((2, 1, 4, 4)).astype(np.float32)
    theirs = grad_fns(build(torch)(torch.tensor(x)).grad_fn)
    g = viz.graph(build(pt), pt.tensor(x))
    drawn = sorted(label.split()[0] for i, label in g.labels.items() if i.startswith("n")
                   and not label.endswith("AccumulateGrad"))
    assert drawn == sorted(f.name() for f in theirs if not f.name().endswith("AccumulateGrad"))
    assert sum(1 for label in g.labels.values() if label.endswith("AccumulateGrad")) == \
        sum(1 for f in theirs if f.name().endswith("AccumulateGrad"))


def test_bundle_has_a_png_for_untrusted_notebooks():
    """JupyterLab hides SVG from an untrusted notebook; the PNG beside it is what shows there."""
    import base64
    loss, params = small()
    bundle = viz.graph(loss, params=params)._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "image/svg+xml", "image/png"}
    assert base64.b64decode(bundle["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_pinned_renderer_comes_first(monkeypatch):
    """graphviz-pure (pinned in pyproject) before a system dot: re-running a lesson stores the same SVG."""
    names = [os.path.basename(p) for p in _render._candidates()]
    if "graphviz-pure" in names:
        assert names[0] == "graphviz-pure"
