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
    """Past max_nodes, a run of identical blocks is one box standing for all of them."""
    pt.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), *[Block(8) for _ in range(30)], nn.Linear(8, 2))
    g = viz.graph(model, pt.randn(2, 4), depth=None, max_nodes=60)
    nodes, edges = parse_dot(g.source)
    collapsed = [i for i in nodes if i.startswith("c")]
    assert len(collapsed) == 1
    text = " ".join(label_text(nodes[collapsed[0]]))
    assert text.startswith("30 × Block 1 … 30 ")
    assert f"{30 * 9} nodes, {30 * (8 * 8 + 8 + 8 + 8):,} parameters" in text   # Linear(8, 8) and LayerNorm(8)
    assert "0: Linear" in g.clusters and "31: Linear" in g.clusters and "5: Block" not in g.clusters
    assert len(nodes) <= 60 and "1 collapsed runs" in repr(g)
    # the chain stays connected through the summary box
    assert any(b == collapsed[0] for a, b, _ in edges) and any(a == collapsed[0] for a, b, _ in edges)
    # not collapsed when it fits
    full = viz.graph(model, pt.randn(2, 4), depth=None, max_nodes=None)
    assert len(full.clusters) == 92 and "collapsed" not in repr(full)
    assert g.full.labels == full.labels and g.full.edges == full.edges and g.full.clusters == full.clusters


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


# ------------------------------------------------------------ big models: folding, alternating runs, the cap

class BasicBlock(nn.Module):
    """ResNet's basic block: two 3x3 convolutions with batch norm, and a shortcut."""

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(out)) + self.shortcut(x))


class ResNet20(nn.Module):
    """CIFAR's ResNet-20: a 3x3 stem, 3 stages of 3 basic blocks (16, 32, 64 channels), pool, linear."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU()
        cin = 16
        for i, cout in enumerate((16, 32, 64)):
            blocks = [BasicBlock(cin if j == 0 else cout, cout, 2 if i and j == 0 else 1) for j in range(3)]
            setattr(self, f"layer{i + 1}", nn.Sequential(*blocks))
            cin = cout
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer3(self.layer2(self.layer1(x)))
        return self.fc(pt.flatten(self.pool(x), 1))


class UnrolledLSTM(nn.Module):
    """A language model's LSTMCell unrolled over 35 steps: Embedding, LSTMCell, Linear, again and again."""

    def __init__(self, steps=35, vocab=50):
        super().__init__()
        self.steps = steps
        self.emb = nn.Embedding(vocab, 16)
        self.cell = nn.LSTMCell(16, 32)
        self.out = nn.Linear(32, vocab)

    def forward(self, tokens):
        h = c = pt.zeros(tokens.shape[1], 32)
        logits = []
        for t in range(self.steps):
            h, c = self.cell(self.emb(tokens[t]), (h, c))
            logits.append(self.out(h))
        return pt.stack(logits).sum()


def big_models():
    """The three models of the notebook-size check: (name, model, example input)."""
    import warnings
    pt.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # enable_nested_tensor without batch_first, as PyTorch warns
        encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64),
                                        num_layers=2)
    return [("resnet20", ResNet20(), pt.randn(2, 3, 32, 32)),
            ("lstm", UnrolledLSTM(), pt.randint(0, 50, (35, 2))),
            ("transformer", encoder, pt.randn(5, 2, 32))]


@pytest.fixture(scope="module")
def big():
    return {name: (model, x, viz.graph(model, x)) for name, model, x in big_models()}


def box_texts(g):
    nodes, _ = parse_dot(g.source)
    return {i: " ".join(label_text(a)) for i, a in nodes.items()}


def test_depth_1_is_one_box_per_top_level_module(big):
    model, x, g = big["resnet20"]
    assert g.depth == 1                                   # what "auto" chose for the first picture
    texts = box_texts(g)
    modules = {t.split(":")[0]: (i, t) for i, t in texts.items() if i.startswith("m")}
    assert set(modules) == {"conv1", "bn1", "relu", "layer1", "layer2", "layer3", "pool", "fc"}
    for name, (i, text) in modules.items():
        n = sum(p.numel() for p in getattr(model, name).parameters())
        assert text.startswith(f"{name}: {type(getattr(model, name)).__name__} ")
        assert (f"{n:,} parameters" in text) == (n > 0)
    assert "(2, 3, 32, 32) → (2, 16, 32, 32) 432 parameters" in modules["conv1"][1]
    assert "layer2: Sequential (2, 16, 32, 32) → (2, 32, 16, 16) 51,648 parameters" == modules["layer2"][1]
    assert "fc: Linear (2, 64) → (2, 10) 650 parameters" == modules["fc"][1]
    assert g.clusters == {}                               # folded modules are boxes, not clusters
    # the folded picture is made of what autograd recorded: the flatten between pool and fc is its node
    ids = {t: i for i, t in texts.items()}
    assert (modules["pool"][0], ids["ViewBackward0"], "(2, 64, 1, 1)") in g.edges
    assert (ids["ViewBackward0"], modules["fc"][0], "(2, 64)") in g.edges
    assert g.id_of(model.layer1[1].conv2.weight) == modules["layer1"][0]
    assert repr(g) == ("<pedatorch.viz.Graph: 74 grad_fn nodes, 65 leaves, depth=1: 8 module boxes "
                       "(output: AddmmBackward0)>")


def test_depth_2_unfolds_one_level(big):
    model, x, _ = big["resnet20"]
    g = viz.graph(model, x, depth=2)
    texts = box_texts(g)
    blocks = sorted(t.split(":")[0] for i, t in texts.items() if t.split(":")[-1].startswith(" BasicBlock"))
    assert blocks == [f"layer{i}.{j}" for i in (1, 2, 3) for j in range(3)]
    assert set(g.clusters) == {"conv1: Conv2d", "bn1: BatchNorm2d", "relu: ReLU", "layer1: Sequential",
                               "layer2: Sequential", "layer3: Sequential", "pool: AdaptiveAvgPool2d", "fc: Linear"}
    assert len(g.clusters["layer2: Sequential"]) == 3
    assert "layer2.0: BasicBlock (2, 16, 32, 32) → (2, 32, 16, 16) 14,528 parameters" in texts.values()
    assert {texts[i] for i in g.clusters["conv1: Conv2d"]} == {"ConvolutionBackward0",
                                                              "conv1.weight (16, 3, 3, 3) AccumulateGrad"}
    # depth=None: every node, as before folding existed
    every = viz.graph(model, x, depth=None)
    assert every.depth is None and len(every.labels) == len(g.full.labels) == 140
    with pytest.raises(ValueError, match="depth must be an integer of at least 1"):
        viz.graph(model, x, depth=0)
    with pytest.raises(ValueError, match="depth must be"):
        viz.graph(model, x, depth="deep")


def test_full_graph_stays_available(big):
    """Folding only groups: .full has every node autograd recorded (PyTorch's names), every edge."""
    model, x, g = big["resnet20"]
    full = g.full
    assert len(full.labels) < 200 and full.depth is None
    names = sorted(label.split()[0] for i, label in full.labels.items()
                   if i.startswith("n") and not label.endswith("AccumulateGrad"))
    assert names.count("ConvolutionBackward0") == 21 and names.count("NativeBatchNormBackward0") == 21
    assert names.count("AddBackward0") == 9 and "AddmmBackward0" in names
    assert len(full.clusters) > 60 and "layer3.2.conv2: Conv2d" in full.clusters
    # the folded picture's edges are the full graph's, each drawn between the boxes that hold its ends
    folded = {i: g.id_of(obj) for obj, i in full.ids.items()}
    drawn = {(a, b) for a, b, _ in g.edges}
    for a, b, _ in full.edges:
        if b != "out0" and folded[a] != folded[b]:
            assert (folded[a], folded[b]) in drawn


def test_alternating_calls_collapse_to_one_box(big):
    model, x, g = big["lstm"]
    texts = box_texts(g)
    runs = [t for i, t in texts.items() if i.startswith("c")]
    assert len(runs) == 1 and len(texts) == 4
    assert runs[0].startswith("35 × (Embedding → LSTMCell → Linear) emb → cell → out ")
    params = sum(p.numel() for p in model.parameters())
    assert runs[0].endswith(f"nodes, {params:,} parameters")
    assert sorted(texts.values())[1:] == ["StackBackward0", "SumBackward0", "output ()"]
    run = next(i for i in texts if i.startswith("c"))
    assert [(a, b) for a, b, _ in g.edges if a == run] == [(run, next(i for i, t in texts.items()
                                                                    if t == "StackBackward0"))]
    assert "1 collapsed runs" in repr(g)


def test_repeats_finds_runs_and_periods():
    from pedatorch.viz.graphs import _repeats
    assert _repeats(list("ABCABCABCABC")) == [(0, 3, 4)]
    assert _repeats(list("AAAA")) == [(0, 1, 4)]
    assert _repeats(list("XABABABY")) == [(1, 2, 3)]
    assert _repeats(list("AABB")) == [] and _repeats(list("ABAB")) == []
    assert _repeats(list("AAABBBB")) == [(0, 1, 3), (3, 1, 4)]


class Widths(nn.Module):
    """A stem, 10 identical blocks, then 30 linear layers of different widths (nothing repeats)."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(4, 8)
        self.blocks = nn.Sequential(*[Block(8) for _ in range(10)])
        self.head = nn.Sequential(*[nn.Linear(8 + i, 9 + i) for i in range(30)])

    def forward(self, x):
        return self.head(self.blocks(pt.relu(self.stem(x))))


def test_cap_keeps_the_collapsed_run_and_the_input_side():
    pt.manual_seed(0)
    model = Widths()
    g = viz.graph(model, pt.randn(2, 4), depth=None, max_nodes=40)
    texts = box_texts(g)
    assert len(texts) == 41
    more = texts["more"]
    assert more.startswith("… ") and "max_nodes=40" in more
    assert any(t.startswith("10 × Block blocks.0 … blocks.9") for t in texts.values())
    assert {"stem.weight (8, 4) AccumulateGrad", "stem.bias (8,) AccumulateGrad", "ReluBackward0"} <= \
        set(texts.values())                                        # the input side
    assert "head.29.weight (38, 37) AccumulateGrad" in texts.values()   # the output side
    assert "output (2, 38)" in texts.values()
    hidden = int(more.split()[1])
    assert hidden + len(texts) - 1 - 1 + 10 * 9 == len(g.full.labels)    # "more" and the run stand for the rest
    assert f"{hidden} more not drawn" in repr(g)
    # the middle box sits between the two sides
    ids = {t: i for i, t in texts.items()}
    assert any(b == "more" for a, b, _ in g.edges) and any(a == "more" for a, b, _ in g.edges)
    assert ids["output (2, 38)"] in {b for a, b, _ in g.edges}


def test_fit_width_scales_wide_pictures_only():
    from pedatorch.viz.graphs import fit_box, fit_width, natural_size
    wide = '<svg width="1500pt" height="300pt"\n viewBox="0.00 0.00 1500.00 300.00" xmlns="x"></svg>'
    narrow = '<svg width="300pt" height="300pt"\n viewBox="0.00 0.00 300.00 300.00" xmlns="x"></svg>'
    assert natural_size(wide) == (2000.0, 400.0)
    assert fit_width(wide) == ('<svg width="100%" style="max-width: 2000px; height: auto"\n '
                               'viewBox="0.00 0.00 1500.00 300.00" xmlns="x"></svg>')
    assert fit_width(narrow) == narrow
    assert fit_box(narrow).startswith('<svg width="100%" height="100%" style="max-width: 400px; max-height: 400px"')


def test_big_models_first_pictures_fit_a_notebook(big, renderer):
    """Each first picture: at most ~1600 x 1600 px at its natural size (its text stays legible scaled
    to a notebook's ~1000 px), and every label still there."""
    from pedatorch.viz.graphs import _FIT_WIDTH, natural_size
    wanted = {"resnet20": ["conv1: Conv2d", "layer3: Sequential", "fc: Linear", "ViewBackward0"],
              "lstm": ["35 × (Embedding → LSTMCell → Linear)", "StackBackward0", "SumBackward0"],
              "transformer": ["layers.0: TransformerEncoderLayer", "layers.1: TransformerEncoderLayer"]}
    for name, (model, x, g) in big.items():
        g = viz.graph(model, x)
        svg = g.svg(full_size=True)
        width, height = natural_size(svg)
        assert width <= 1600 and height <= 1600, (name, width, height)
        text = svg_texts(g)
        for label in wanted[name]:
            assert label in text, (name, label)
        for t in ET.fromstring(svg).iter(SVG + "text"):        # no text smaller than the 9 pt edge labels
            assert float(t.get("font-size")) >= 9.0
        shown = g.svg()
        assert ('width="100%"' in shown) == (width > _FIT_WIDTH)
        assert viz.graph(model, x, full_size=True).svg() == svg
    # the whole ResNet, on demand, is still the picture of every node
    model, x, _ = big["resnet20"]
    every = viz.graph(model, x, depth=None)
    assert max(natural_size(every.svg(full_size=True))) > 1600
    assert every.svg().split(">")[0].startswith('<?xml')
    assert re.search(r'<svg width="100%" style="max-width: \d+px; height: auto"', every.svg())


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


def test_the_png_of_a_huge_picture_is_drawn_smaller():
    """The PNG beside the SVG is a fallback (untrusted notebooks): past ~2 megapixels it is drawn at a lower dpi."""
    import base64
    import io
    Image = pytest.importorskip("PIL.Image")
    m = pt.nn.Sequential(*[pt.nn.Sequential(pt.nn.Linear(4, 4), pt.nn.ReLU()) for _ in range(30)])
    g = viz.graph(m, pt.randn(2, 4), depth=None, collapse=False)
    dpi = g._png_dpi()
    assert dpi is not None and dpi < 96
    w, h = Image.open(io.BytesIO(base64.b64decode(g._repr_mimebundle_()["image/png"]))).size
    assert w * h <= 2_000_000 * 1.1 or dpi == 12
    small = viz.graph(pt.ones(2, requires_grad=True).exp().sum())
    assert small._png_dpi() is None
