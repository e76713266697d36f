"""viz.broadcast: the aligned-shapes picture, its error text, the gradient view and the widget.

The DOT is parsed (the HTML-like table label is XML) and so is the SVG the
renderer makes of it; the error text is compared with PyTorch's, and the
gradient reductions with what autograd really gives.
"""
import importlib
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import pedatorch as pt
from pedatorch import viz
# the module (``viz.broadcast`` is the function; reach the module through it)
B = importlib.import_module(viz.broadcast.__module__)

SVG = "{http://www.w3.org/2000/svg}"


def html_label(dot, node):
    """The HTML-like label of ``node`` in DOT text, parsed as XML."""
    start = dot.index(f"  {node} [label=<") + len(f"  {node} [label=<")
    depth, i = 1, start
    while depth:
        if dot[i] == "<":
            depth += 1
        elif dot[i] == ">":
            depth -= 1
        i += 1
    return ET.fromstring(dot[start:i - 1])


def cells(dot, node="table"):
    """{port: (bgcolor, style, text)} for the table's cells that have a PORT."""
    out = {}
    for td in html_label(dot, node).iter("TD"):
        if "PORT" in td.attrib:
            out[td.get("PORT")] = (td.get("BGCOLOR"), td.get("STYLE"), " ".join(" ".join(td.itertext()).split()))
    return out


def svg_root(picture):
    return ET.fromstring(picture.svg())


def svg_texts(root):
    return [t.text or "" for t in root.iter(SVG + "text")]


# --------------------------------------------------------------------- the forward picture
def test_aligned_shapes_roles_and_cells():
    d = viz.broadcast((2, 1, 3), (4, 3))
    assert repr(d) == "<pedatorch.viz.BroadcastDiagram: (2, 1, 3) + (4, 3) -> (2, 4, 3)>"
    assert d.kind == "BroadcastDiagram" and isinstance(d, viz.Picture)
    assert d.result_shape == (2, 4, 3) and d.error is None
    assert d.shapes == ((2, 1, 3), (4, 3))
    assert [(x.index, x.neg_index) for x in d.dims] == [(0, -3), (1, -2), (2, -1)]
    assert [x.roles for x in d.dims] == [("kept", "prepended"), ("stretched", "kept"), ("kept", "kept")]
    assert [x.sizes for x in d.dims] == [(2, None), (1, 4), (3, 3)]
    assert [x.stretched for x in d.dims] == [(1,), (0,), ()]     # b's implicit 1 grows to 2, a's 1 to 4
    assert [x.prepended for x in d.dims] == [(1,), (), ()]

    c = cells(d.source)
    assert c["o0d1"] == (B.COLORS["stretched"], None, "1 1→4")
    assert c["o1d0"] == (B.COLORS["prepended"], "dashed", "1 new, 1→2")   # the ghost implicit 1
    assert c["o0d0"] == (B.COLORS["kept"], None, "2 kept")
    assert c["o1d1"][0] == B.COLORS["kept"] and c["o1d1"][2] == "4 kept"
    assert [c[f"r{j}"] for j in range(3)] == [(B.COLORS["result"], None, s) for s in ("2", "4", "3")]
    # the dimension indices, both ways
    texts = ["".join(td.itertext()) for td in html_label(d.source, "table").iter("TD")]
    for label in ("-3", "-2", "-1", "0", "1", "2", "dim (from the right)", "dim of the result"):
        assert label in texts
    assert "error" not in d.source


def test_svg_of_the_picture():
    d = viz.broadcast((2, 1, 3), (4, 3))
    root = svg_root(d)
    titles = [g.find(SVG + "title").text for g in root.iter(SVG + "g") if g.get("class") == "node"]
    assert titles == ["table", "legend"]
    texts = svg_texts(root)
    assert "1→4" in texts and "new, 1→2" in texts and "result" in texts
    assert any("(2, 1, 3) + (4, 3) → (2, 4, 3)" in t for t in texts)   # the title
    # the stretched cell is filled orange in the SVG too
    assert any(p.get("fill") == B.COLORS["stretched"] for p in root.iter(SVG + "polygon"))


def test_str_is_the_alignment_as_text():
    assert str(viz.broadcast((2, 1, 3), (4, 3))) == "\n".join([
        "a + b: (2, 1, 3) + (4, 3) -> (2, 4, 3)",
        "dim                   -3    -2  -1",
        "                       0     1   2",
        "a (2, 1, 3)            2  1->4   3",
        "b (4, 3)          [1->2]     4   3",
        "result (2, 4, 3)       2     4   3",
        "[1] = implicit 1 prepended on the left; 1->n = a size-1 dim stretched to n"])


def test_operands_tensors_sizes_lists_scalars_and_many(torch):
    d = viz.broadcast(pt.zeros(3, 1), torch.zeros(4), pt.Size([2, 1, 1]), [1], op="*")
    assert d.shapes == ((3, 1), (4,), (2, 1, 1), (1,))
    assert d.result_shape == tuple(torch.broadcast_shapes((3, 1), (4,), (2, 1, 1), (1,)))
    assert d.names == ("a", "b", "c", "d") and d.expression() == "a * b * c * d"
    assert repr(d) == "<pedatorch.viz.BroadcastDiagram: (3, 1) * (4,) * (2, 1, 1) * (1,) -> (2, 3, 4)>"
    s = viz.broadcast((), (2, 3))
    assert s.result_shape == (2, 3) and [x.roles for x in s.dims] == [("prepended", "kept")] * 2
    assert cells(s.source)["o0d1"][1] == "dashed"
    one = viz.broadcast((5,))
    assert one.result_shape == (5,) and one.dims[0].roles == ("kept",)
    assert viz.broadcast(3, 1).result_shape == (3,)        # an int n is the shape (n,)
    assert viz.broadcast((0,), (1,)).result_shape == (0,)
    assert viz.broadcast((2, 3), (1, 3), names=["x", "w"]).expression() == "x + w"
    with pytest.raises(TypeError, match="operand b"):
        viz.broadcast((2,), "3")
    with pytest.raises(TypeError, match="float"):
        viz.broadcast((2.0, 3), (3,))
    with pytest.raises(ValueError, match="negative size -1"):
        viz.broadcast((2, -1), (3,))
    with pytest.raises(ValueError, match="2 operands but 1 names"):
        viz.broadcast((2,), (2,), names=["x"])


# --------------------------------------------------------------------- clashes
CLASHES = [((2, 3), (4,)), ((2, 3), (4, 5)), ((5, 2, 3), (7, 1, 4)), ((0,), (2,)), ((2, 1), (3, 4, 5)),
           ((3, 2), (2, 3))]


def torch_error(torch, *shapes, op=lambda a, b: a + b):
    ts = [torch.empty(s) for s in shapes]
    try:
        out = ts[0]
        for t in ts[1:]:
            out = op(out, t)
    except RuntimeError as e:
        return f"RuntimeError: {e}"
    raise AssertionError("torch did not raise")


@pytest.mark.parametrize("sa,sb", CLASHES)
def test_clash_error_is_pytorchs_and_highlighted(torch, sa, sb):
    d = viz.broadcast(sa, sb)
    assert d.error == torch_error(torch, sa, sb)
    assert d.result_shape is None and d.reductions is None
    assert repr(d) == f"<pedatorch.viz.BroadcastDiagram: {sa} + {sb} -> error: {d.error}>"
    clash = [x for x in d.dims if x.clash]
    assert clash, "some dimension is marked as the clash"
    c = cells(d.source)
    for x in d.dims:
        red = c[f"r{x.index}"][0] == B.COLORS["clash"]
        assert red == x.clash
        for k in range(2):
            if x.clash and x.sizes[k] not in (None, 1):
                assert c[f"o{k}d{x.index}"][0] == B.COLORS["clash"] and x.roles[k] == "clash"
    # the dimension named in the message is a highlighted one, and an edge points from it to the note
    named = int(re.search(r"dimension (\d+)", d.error).group(1))
    assert named in [x.index for x in clash]
    assert f"table:r{named}:s -> error" in d.source
    # the full message is in the picture (wrapped over lines)
    label = re.search(r'error \[.*label="(.*)"\];', d.source).group(1)
    assert label.replace("\\n", " ") == d.error
    svg = " ".join(svg_texts(svg_root(d)))
    assert "RuntimeError: The size of tensor a" in svg and "clash" in svg
    assert d.error in str(d)


def test_clash_in_a_chain_and_with_other_ops(torch):
    d = viz.broadcast((2, 3), (2, 3), (4,))
    assert d.error == torch_error(torch, (2, 3), (2, 3), (4,))
    assert [x.roles for x in d.dims][1] == ("clash", "clash", "clash")
    m = viz.broadcast((2, 3), (5,), op="*")
    assert m.error == torch_error(torch, (2, 3), (5,), op=lambda a, b: a * b)
    b = viz.broadcast((2, 3), (5,), op="&")       # runs the op on bool dummies
    assert b.error == torch_error(torch, (2, 3), (5,))


# --------------------------------------------------------------------- gradients
GRAD_PAIRS = [((2, 1, 3), (4, 3)), ((3,), ()), ((), (2, 3)), ((1,), (2, 1, 4)), ((5, 1, 1), (3,)),
              ((2, 3), (2, 3)), ((1, 1), (4, 1, 3)), ((1, 3), (2, 4, 1))]


@pytest.mark.parametrize("sa,sb", GRAD_PAIRS)
def test_grad_reduction_is_what_autograd_does(torch, sa, sb):
    d = viz.broadcast(sa, sb, grad=True)
    rng = np.random.default_rng(0)
    av, bv = rng.standard_normal(sa), rng.standard_normal(sb)
    gv = rng.standard_normal(d.result_shape)
    for op, local in ((lambda x, y: x * y, (gv * bv, gv * av)),    # d(a*b)/da = grad * b, summed back
                      (lambda x, y: x + y, (gv, gv))):
        a, b = pt.tensor(av, requires_grad=True), pt.tensor(bv, requires_grad=True)
        op(a, b).backward(pt.tensor(gv))
        ta, tb = torch.tensor(av, requires_grad=True), torch.tensor(bv, requires_grad=True)
        op(ta, tb).backward(torch.tensor(gv))
        for red, leaf, tleaf, lg in zip(d.reductions, (a, b), (ta, tb), local):
            ours = red.apply(pt.tensor(lg))
            assert tuple(ours.shape) == tuple(leaf.shape)
            np.testing.assert_allclose(ours.numpy(), leaf.grad.numpy(), rtol=1e-12)
            np.testing.assert_allclose(red.apply(torch.tensor(lg)).numpy(), tleaf.grad.numpy(), rtol=1e-12)
            # the code the picture states computes the same, in pedatorch and in torch
            for code in (red.call, red.sum_to_size):
                np.testing.assert_allclose(eval(code, {"grad": pt.tensor(lg)}).numpy(), leaf.grad.numpy(),
                                           rtol=1e-12)
                np.testing.assert_allclose(eval(code, {"grad": torch.tensor(lg)}).numpy(), tleaf.grad.numpy(),
                                           rtol=1e-12)
            assert red.call in d.source


def test_grad_calls_and_view():
    d = viz.broadcast((1, 3), (2, 4, 3))
    g = d.grad_view()
    assert g.grad and not d.grad and g.source == viz.broadcast((1, 3), (2, 4, 3), grad=True).source
    assert g.forward_view().source == d.source
    a, b = g.reductions
    assert a.call == "grad.sum(dim=0).sum(dim=0, keepdim=True)" and a.sum_to_size == "grad.sum_to_size(1, 3)"
    assert a.summed_away == (0,) and a.summed_keepdim == (0,)
    assert b.call == "grad" and b.identity
    assert repr(g) == ("<pedatorch.viz.BroadcastDiagram: grad of (1, 3) + (2, 4, 3) -> (2, 4, 3): "
                       "a: grad.sum(dim=0).sum(dim=0, keepdim=True); b: grad>")
    c = cells(g.source)
    assert c["o0d0"] == (B.COLORS["prepended"], "dashed", "Σ summed away")
    assert c["o0d1"] == (B.COLORS["stretched"], None, "1 Σ dim 0, keepdim")
    assert c["o0d2"][2] == "3 kept" and c["o1d1"][2] == "4 kept"
    assert c["call0"][2] == "grad.sum(dim=0).sum(dim=0, keepdim=True) = grad.sum_to_size(1, 3)"
    assert c["call1"][2] == "grad nothing to sum"
    assert viz.broadcast((3,), (), grad=True).reductions[1].call == "grad.sum()"
    assert viz.broadcast((2, 1, 5), (3, 1), grad=True).reductions[0].call == "grad.sum(dim=1, keepdim=True)"
    assert viz.broadcast((4, 3), (2, 5, 4, 3), grad=True).reductions[0].call == "grad.sum(dim=(0, 1))"
    texts = svg_texts(svg_root(g))
    assert "summed away" in texts and "grad.sum(dim=0).sum(dim=0, keepdim=True)" in texts
    assert "grad.sum(dim=0).sum(dim=0, keepdim=True)  ==  grad.sum_to_size(1, 3)" in str(g)
    # the gradient view of a clash is the clash
    e = viz.broadcast((2, 3), (4,), grad=True)
    assert e.error and e.reductions is None and "error [" in e.source
    with pytest.raises(ValueError, match=r"expected the result's shape \(2, 4, 3\)"):
        a.apply(pt.zeros(4, 3))


def test_three_operand_grads_match_autograd():
    d = viz.broadcast((3, 1), (4,), (2, 1, 1), grad=True)
    xs = [pt.randn(*s, dtype=pt.float64, requires_grad=True) for s in d.shapes]
    g = pt.randn(*d.result_shape, dtype=pt.float64)
    (xs[0] + xs[1] + xs[2]).backward(g)
    for red, x in zip(d.reductions, xs):
        np.testing.assert_allclose(red.apply(g).numpy(), x.grad.numpy(), rtol=1e-12)


# --------------------------------------------------------------------- the widget
def test_parse_shape():
    assert B.parse_shape("2,1,3") == (2, 1, 3)
    assert B.parse_shape(" (2, 1, 3) ") == (2, 1, 3)
    assert B.parse_shape("[4]") == (4,) and B.parse_shape("5,") == (5,) and B.parse_shape("5") == (5,)
    assert B.parse_shape("()") == () and B.parse_shape("") == ()
    assert B.parse_shape("torch.Size([2, 3])") == (2, 3)
    with pytest.raises(ValueError, match="'x' is not a whole number"):
        B.parse_shape("2,x")
    with pytest.raises(ValueError, match="cannot be negative"):
        B.parse_shape("2,-1")
    with pytest.raises(ValueError, match="empty size"):
        B.parse_shape("2,,3")


def test_widget_updates_on_edits():
    pytest.importorskip("ipywidgets")
    w = viz.broadcast_widget(shape_a="2,1,3", shape_b="4,3")
    assert w.diagram.result_shape == (2, 4, 3) and w.message is None
    first = w.picture.value
    assert first.startswith("<svg") and "1→4" in first
    ET.fromstring(first)   # the widget holds a well-formed SVG
    w.text_b.value = "4,1"
    assert w.diagram.shapes[1] == (4, 1) and w.diagram.result_shape == (2, 4, 3)
    assert w.picture.value != first and "1→3" in w.picture.value
    w.grad_toggle.value = True
    assert w.diagram.grad and "grad.sum(dim=1, keepdim=True)" in w.picture.value
    w.text_a.value = "2,x"
    assert w.diagram is None and "could not read shape a '2,x'" in w.message
    assert "is not a whole number" in w.picture.value and "<svg" not in w.picture.value
    w.text_a.value = "-2"
    assert "cannot be negative" in w.message
    w.text_a.value = "()"
    assert w.diagram.shapes[0] == () and w.diagram.result_shape == (4, 1)
    w.grad_toggle.value = False
    w.text_a.value = "3"
    w.text_b.value = "4,2"
    assert w.diagram.error.startswith("RuntimeError: The size of tensor a (3)") and "RuntimeError" in w.picture.value
    assert w.update() is w.diagram or w.update().source == w.diagram.source


def test_a_broadcast_clash_keeps_pytorchs_message_and_points_to_the_picture():
    import sys
    import traceback
    a, b = pt.ones(2, 3), pt.ones(4)
    with pytest.raises(RuntimeError) as info:
        a + b
    assert str(info.value) == "The size of tensor a (3) must match the size of tensor b (4) at non-singleton " \
                              "dimension 1"
    if sys.version_info >= (3, 11):
        assert info.value.__notes__ == ["shapes [2, 3] and [4] line up from the right; to see it: "
                                        "pedatorch.viz.broadcast((2, 3), (4,))"]
    frames = traceback.extract_tb(info.value.__traceback__)
    # (once a Tensor subclass is defined in the process, methods pass through overrides.py's wrapper too)
    inside = [f for f in frames if "pedatorch" in f.filename.replace("\\", "/").split("/tests/")[0]
              and "/tests/" not in f.filename and not f.filename.endswith("overrides.py")]
    assert len(inside) <= 2, [f"{f.filename}:{f.name}" for f in inside]   # the op and apply, no more
