"""viz.backward_steps and viz.explain.

The order of the steps is checked against hooks that fire inside the engine (not
against a re-computed order), the gradients against PyTorch's and against the
.grad that backward leaves, and the step pictures by parsing their DOT.
"""
import re

import numpy as np
import pytest

import pedatorch as pt
from pedatorch import nn, viz

from test_viz_graph import label_text, parse_dot, renderer, svg_texts  # noqa: F401 (a fixture)


def model_loss(lib, w_np, b_np, x_np):
    w = lib.tensor(w_np, requires_grad=True)
    b = lib.tensor(b_np, requires_grad=True)
    x = lib.tensor(x_np)
    h = lib.tanh(x @ w + b)
    loss = (h * h).sum() + h.mean()
    return loss, w, b


def data():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((3, 2)).astype(np.float32), rng.standard_normal(2).astype(np.float32),
            rng.standard_normal((4, 3)).astype(np.float32))


def hook_order(loss, leaves):
    """The order the engine runs the nodes, as seen by pre-hooks on each node and hooks on the leaves."""
    order, seen, stack = [], set(), [loss.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        if type(fn).__name__ != "AccumulateGrad":
            fn.register_prehook(lambda g, fn=fn: order.append(fn.name()))
        stack.extend(n for n, _ in fn.next_functions)
    for t in leaves:
        t.register_hook(lambda g: order.append("torch::autograd::AccumulateGrad"))
    return order


def test_order_is_the_engines():
    loss, w, b = model_loss(pt, *data())
    order = hook_order(loss, [w, b])
    steps = viz.backward_steps(loss, params={"w": w, "b": b})
    assert steps.names == order
    assert len(steps) == len(order) == 9
    assert [s.index for s in steps] == list(range(9))


def test_order_matches_pytorch(torch):
    loss, w, b = model_loss(pt, *data())
    tloss, tw, tb = model_loss(torch, *data())
    order = hook_order(tloss, [tw, tb])
    tloss.backward()
    steps = viz.backward_steps(loss)
    assert steps.names == order


def test_gradients_in_and_out(torch):
    loss, w, b = model_loss(pt, *data())
    tloss, tw, tb = model_loss(torch, *data())
    steps = viz.backward_steps(loss, params={"w": w, "b": b})
    tloss.backward()
    first = steps[0]
    assert first.name == "AddBackward0" and first.grad_outputs[0].item() == 1.0
    # the leaves' AccumulateGrad steps: what arrived is .grad, equal to PyTorch's
    acc = {s.grad_inputs[0][0]: s for s in steps if s.name.endswith("AccumulateGrad")}
    assert set(acc) == {"w.grad", "b.grad"}
    np.testing.assert_allclose(acc["w.grad"].grad_outputs[0].numpy(), tw.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(acc["b.grad"].grad_outputs[0].numpy(), tb.grad.numpy(), rtol=1e-5)
    np.testing.assert_array_equal(w.grad.numpy(), acc["w.grad"].grad_inputs[0][2].numpy())
    # every gradient sent along an edge arrives (summed with the others) at its target's step
    arrived = {}
    for s in steps:
        for (target, tid, g) in s.grad_inputs:
            if not s.name.endswith("AccumulateGrad"):
                arrived.setdefault(tid, []).append(g.numpy())
    for s in steps:
        if s.id in arrived:
            np.testing.assert_allclose(sum(arrived[s.id]), s.grad_outputs[0].numpy(), rtol=1e-6)


def test_broadcast_input_is_summed_back():
    loss, w, b = model_loss(pt, *data())
    steps = viz.backward_steps(loss, params={"w": w, "b": b})
    add = next(s for s in steps if s.name == "AddBackward0" and any(t == "b" for t, _, _ in s.grad_inputs))
    i = [t for t, _, _ in add.grad_inputs].index("b")
    assert tuple(add.grad_inputs[i][2].shape) == (2,)
    assert add.summed_from == {i: (4, 2)}
    assert "summed from (4, 2)" in repr(add)


def test_step_picture_highlights_step_k():
    loss, w, b = model_loss(pt, *data())
    steps = viz.backward_steps(loss, params={"w": w, "b": b})
    for k in range(len(steps)):
        g = steps.graph(k)
        nodes, edges = parse_dot(g.source)
        hot = [i for i, a in nodes.items() if "penwidth=3" in a]
        assert hot == [steps[k].id]
        assert label_text(nodes[steps[k].id])[0] in (steps[k].name, "w", "b")
        done = {i for i, a in nodes.items() if "#e6f6e0" in a}
        assert done == {s.id for s in steps[:k]} - {steps[k].id}
        red = [(a, b_, attrs) for a, b_, attrs in edges if "#d62728" in attrs]
        sent = [tid for _, tid, g in steps[k].grad_inputs if g is not None]
        if steps[k].name.endswith("AccumulateGrad"):
            assert red == []
        else:
            assert {a for a, _, _ in red} == set(sent)   # h * h sends twice along one edge
            assert all(b_ == steps[k].id for _, b_, _ in red)
            assert all(re.search(r"grad \(", attrs) for _, _, attrs in red)
        assert f"steps[{k}] of {len(steps)}: {steps[k].name}" in g.source
    with pytest.raises(IndexError):
        steps.graph(len(steps))
    assert "steps[2] of 9" in svg_texts(steps.graph(2))


def test_text_repr_and_formulas():
    loss, w, b = model_loss(pt, *data())
    steps = viz.backward_steps(loss, params={"w": w, "b": b})
    text = repr(steps)
    assert text.splitlines()[0] == "<pedatorch.viz.BackwardSteps: 9 steps from AddBackward0>"
    assert "0x" not in text
    tanh = next(s for s in steps if s.name == "TanhBackward0")
    assert "1 - tanh²(x)" in tanh.formula
    mm = next(s for s in steps if s.name == "MmBackward0")
    assert "dB = A^H @ dC" in mm.formula
    assert next(s for s in steps if s.name.endswith("AccumulateGrad")).formula.startswith("var.grad += grad")
    assert "formula:" in repr(tanh) and "grad in: (4, 2)" in repr(tanh)


def test_big_tensors_are_abbreviated():
    x = pt.randn(100, 100, requires_grad=True)
    steps = viz.backward_steps((x * 2).sum())
    line = repr(steps[1])
    assert "..." in line and len(line) < 600


def test_html_without_a_kernel_is_a_table():
    loss, w, b = model_loss(pt, *data())
    bundle = viz.backward_steps(loss)._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    assert bundle["text/html"].count("<tr>") == 10


def test_widget_moves_through_the_steps():
    pytest.importorskip("ipywidgets")
    loss, w, b = model_loss(pt, *data())
    steps = viz.backward_steps(loss, params={"w": w, "b": b})
    box = steps.widget()
    offline, controls, panels = box.children
    play, prev, slider, nxt = controls.children
    picture, details = panels.children
    height = picture.layout.height
    assert slider.max == len(steps) - 1
    assert "steps[0]: AddBackward0" in details.value and "<svg" in picture.value
    nxt.click()
    nxt.click()
    assert slider.value == 2 and f"steps[2]: {steps[2].name}" in details.value
    assert "steps[2] of 9" in picture.value
    prev.click()
    assert slider.value == 1
    slider.value = 8
    nxt.click()
    assert slider.value == 8
    assert picture.layout.height == height                  # the picture area keeps its size


def test_widget_wraps_and_keeps_its_place():
    """At 1024 px with JupyterLab's sidebar open the controls wrap rather than truncate their labels,
    and the details stay where they are from step to step."""
    pytest.importorskip("ipywidgets")
    loss, w, b = model_loss(pt, *data())
    box = viz.backward_steps(loss, params={"w": w, "b": b}).widget()
    offline, controls, panel = box.children
    assert controls.layout.flex_flow == "row wrap" and panel.layout.flex_flow == "row wrap"
    assert panel.layout.align_items == "flex-start"
    play, prev, slider, nxt = controls.children
    assert prev.layout.min_width == "8em" and nxt.layout.min_width == "6.5em"   # "◀ previous", "next ▶"
    picture, details = panel.children
    assert picture.layout.height.endswith("px") and picture.layout.flex.startswith("1 1 ")
    assert details.layout.flex.startswith("0 1 ")
    # scaled down into its area, never up: the SVG's own size is its max-width/max-height
    assert re.search(r'<svg width="100%" height="100%" style="max-width: \d+px; max-height: \d+px"', picture.value)
    # a saved notebook (widgets not live): the controls hide, a line says what to do
    assert "pedatorch-backward-steps" in box._dom_classes and "pedatorch-controls" in controls._dom_classes
    assert ".jupyter-widgets-disconnected .pedatorch-controls {display: none}" in offline.value
    assert "run this cell to step through" in offline.value


def chain_loss(n=60):
    x = pt.randn(3, requires_grad=True)
    y = x
    for _ in range(n):
        y = (y * 1.01).sin()
    return y.sum(), x


def test_big_graph_steps_show_a_window_around_the_node():
    loss, x = chain_loss(120)                  # 244 boxes: past max_nodes=200 the first picture is capped
    steps = viz.backward_steps(loss, params={"x": x})
    assert steps.windowed and len(steps) == 2 * 120 + 2
    for k in (0, 1, 40, 121, 200, len(steps) - 1):
        g = steps.graph(k)
        nodes, edges = parse_dot(g.source)
        hot = [i for i, a in nodes.items() if "penwidth=3" in a]
        assert hot == [steps[k].id], k                       # the red node is in every picture
        assert len(nodes) <= 16 + 2
        near = {a for a, b_, _ in edges if b_ == steps[k].id} | {b_ for a, b_, _ in edges if a == steps[k].id}
        assert near <= set(nodes)
        texts = {i: " ".join(label_text(a)) for i, a in nodes.items()}
        if 10 < k < len(steps) - 10:
            assert re.fullmatch(r"… \d+ earlier nodes \(input side\)", texts["wbefore"])
            assert re.fullmatch(r"… \d+ later nodes \(output side\)", texts["wafter"])
            n_before, n_after = int(texts["wbefore"].split()[1]), int(texts["wafter"].split()[1])
            assert n_before + n_after + len(nodes) - 2 == len(viz.graph(loss, max_nodes=None).labels)
        red = [(a, b_) for a, b_, attrs in edges if "#d62728" in attrs]
        assert all(b_ == steps[k].id for _, b_ in red)
        assert f"steps[{k}] of {len(steps)}: {steps[k].name}" in g.source
    whole = steps.graph(40, window=False)
    assert len(parse_dot(whole.source)[0]) > 100
    small_loss, w, b = model_loss(pt, *data())
    assert not viz.backward_steps(small_loss).windowed


def test_window_picture_is_small(renderer):
    from pedatorch.viz.graphs import natural_size
    loss, x = chain_loss()
    steps = viz.backward_steps(loss, params={"x": x})
    width, height = natural_size(steps.graph(60).svg(full_size=True))
    assert width < 700 and height < 1000


def test_saved_explorer_bundle_shows_the_first_step(monkeypatch):
    """In a kernel: the widget, and beside it step 0's picture (SVG and PNG) saying to run the cell,
    which a front end shows when the widget's state is not live (an untrusted notebook, a viewer)."""
    pytest.importorskip("ipywidgets")
    import base64
    from pedatorch.viz import _render, steps as steps_module
    try:
        _render.renderer()
    except _render.RendererNotFound:
        pytest.skip("no Graphviz renderer")
    monkeypatch.setattr(steps_module, "_in_kernel", lambda: True)
    loss, w, b = model_loss(pt, *data())
    steps = viz.backward_steps(loss, params={"w": w, "b": b})
    bundle = steps._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "application/vnd.jupyter.widget-view+json", "image/svg+xml",
                           "image/png"}
    assert bundle["text/plain"] == repr(steps)
    text = " ".join(svg_texts_of(bundle["image/svg+xml"]).split())
    assert "steps[0] of 9: AddBackward0 (run this cell to step through)" in text
    assert base64.b64decode(bundle["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"


def svg_texts_of(svg):
    import xml.etree.ElementTree as ET
    return " ".join((t.text or "") for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text"))


def test_arguments_go_to_backward():
    x = pt.randn(3, requires_grad=True)
    y = x * 3
    steps = viz.backward_steps(y, gradient=pt.ones(3), retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), [3, 3, 3])
    viz.backward_steps(y, gradient=pt.ones(3))        # the graph was retained
    np.testing.assert_allclose(x.grad.numpy(), [6, 6, 6])
    with pytest.raises(RuntimeError, match="does not require grad"):
        viz.backward_steps(pt.ones(2).sum())
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        viz.backward_steps(x * 2)
    with pytest.raises(TypeError):
        viz.backward_steps(3.0)


def test_model_steps_use_parameter_names():
    pt.manual_seed(0)
    model = nn.Linear(3, 2)
    loss = model(pt.randn(4, 3)).pow(2).mean()
    steps = viz.backward_steps(loss, params=model)
    targets = {t for s in steps for t, _, _ in s.grad_inputs}
    assert {"weight.grad", "bias.grad"} <= targets


# ------------------------------------------------------------------------------------- explain

def test_explain_an_op():
    a = pt.randn(3, requires_grad=True)
    b = pt.randn(3, requires_grad=True)
    y = a * b
    e = viz.explain(y.grad_fn)
    assert e.name == "MulBackward0" and e.op == "Mul"
    assert e.formula == "out = a * b;   da = grad * b,  db = grad * a"
    assert e.function == "pedatorch.ops.elementwise.Mul"
    assert e.inputs == ["torch::autograd::AccumulateGrad", "torch::autograd::AccumulateGrad"]
    assert e.saved == ["input tensor (3,)", "input tensor (3,)"]
    path, line = e.where.split(":")
    assert path == "pedatorch/ops/elementwise.py"
    src = open(pt.__file__.rsplit("pedatorch", 1)[0] + path).read().splitlines()
    assert "def backward" in src[int(line)] or "def backward" in src[int(line) - 1] or \
        "staticmethod" in src[int(line) - 1]
    assert "def backward(ctx, grad" in e.source
    text = repr(e)
    assert "MulBackward0: the backward of Mul" in text and "0x" not in text
    assert "<pre" in e._repr_html_()
    assert viz.explain(y).name == "MulBackward0"           # a tensor: its grad_fn


def test_explain_leaf_and_errors():
    w = pt.randn(2, requires_grad=True)
    e = viz.explain(w)
    assert e.name == "torch::autograd::AccumulateGrad" and "var.grad += grad" in e.formula
    assert e.where.startswith("pedatorch/autograd/graph.py:")
    assert viz.explain((w * 2).grad_fn.next_functions[0][0]).name == "torch::autograd::AccumulateGrad"
    with pytest.raises(ValueError, match="no grad_fn"):
        viz.explain(pt.ones(2))
    with pytest.raises(TypeError, match="grad_fn node or a tensor"):
        viz.explain("MulBackward0")


def test_explain_without_a_docstring_and_custom_function():
    class Square(pt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    x = pt.randn(3, requires_grad=True)
    e = viz.explain(Square.apply(x).grad_fn)
    assert e.name == "SquareBackward"
    assert "vector-Jacobian product" in e.formula
    assert "return 2 * x * g" in e.source
    assert re.fullmatch(r"(tests/)?test_viz_steps.py:\d+", e.where)


def test_long_backward_is_listed_abbreviated():
    x = pt.randn(3, requires_grad=True)
    y = x
    for _ in range(100):
        y = y.sin()
    steps = viz.backward_steps(y.sum())
    assert len(steps) == 102
    lines = repr(steps).splitlines()
    assert len(lines) == 1 + 20 + 1 + 20
    assert lines[21].strip() == "... 62 more steps (all of them: list(steps))"
    assert lines[-1].split()[:2] == ["101", "torch::autograd::AccumulateGrad"]
    assert steps._table_html().count("<tr>") == 1 + 41
