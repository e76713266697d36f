"""pedatorch.utils.checkpoint: gradients equal to the un-checkpointed ones (and to PyTorch's), fewer tensors
held by the graph, RNG replay, both variants (use_reentrant=True / False), warnings and errors as PyTorch's."""
import warnings

import numpy as np
import pytest

import pedatorch as pt
import pedatorch.utils.checkpoint as C
from pedatorch.utils.checkpoint import checkpoint, checkpoint_sequential

from conftest import assert_close

VARIANTS = [True, False]


def chain(x, w):
    """Ten ops, each saving something for backward."""
    y = x
    for _ in range(5):
        y = (y * w).sin()
    return y


def same_error(fn_pt, fn_torch):
    with pytest.raises(Exception) as ours:
        fn_pt()
    with pytest.raises(Exception) as theirs:
        fn_torch()
    assert type(ours.value).__name__ == type(theirs.value).__name__
    assert str(ours.value) == str(theirs.value)


def leaves(*arrays):
    return [pt.tensor(a, requires_grad=True) for a in arrays]


def saved_in_graph(out):
    """(number of saved tensors, their bytes) over every node reachable from ``out``."""
    seen, stack, count, nbytes = set(), [out.grad_fn], 0, 0
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        for s in node._saved or ():
            if s is None:
                continue
            value = s[1]
            arr = value._data if isinstance(value, pt.Tensor) else value
            if isinstance(arr, np.ndarray):
                count += 1
                nbytes += arr.nbytes
        stack.extend(fn for fn, _ in node.next_functions)
    return count, nbytes


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_gradients_equal_uncheckpointed_and_torch(torch, reentrant):
    rng = np.random.default_rng(0)
    xa, wa = rng.standard_normal((3, 4)), rng.standard_normal(4)
    x, w = leaves(xa, wa)
    out = checkpoint(chain, x, w, use_reentrant=reentrant)
    out.sum().backward()
    x2, w2 = leaves(xa, wa)
    ref = chain(x2, w2)
    ref.sum().backward()
    assert_close(out, ref)
    assert_close(x.grad, x2.grad)
    assert_close(w.grad, w2.grad)
    tx, tw = (torch.tensor(a, requires_grad=True) for a in (xa, wa))
    tout = torch.utils.checkpoint.checkpoint(chain, tx, tw, use_reentrant=reentrant)
    tout.sum().backward()
    assert_close(out, tout)
    assert_close(x.grad, tx.grad)
    assert_close(w.grad, tw.grad)
    if reentrant:
        assert type(out.grad_fn).__name__ == type(tout.grad_fn).__name__ == "CheckpointFunctionBackward"


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_fewer_tensors_held(reentrant):
    x, w = leaves(np.ones((50, 50)), np.ones(50))
    plain = chain(x, w)
    ck = checkpoint(chain, x, w, use_reentrant=reentrant)
    n_plain, b_plain = saved_in_graph(plain)
    n_ck, b_ck = saved_in_graph(ck)
    assert n_plain >= 10 and b_plain >= 10 * 50 * 50 * 8
    assert n_ck <= 2 and b_ck <= x._data.nbytes + w._data.nbytes   # only the inputs
    if reentrant:   # a long chain: the checkpointed graph is one node over the inputs' leaves
        assert len(ck.grad_fn.next_functions) == 2  # one edge per tensor input, as in PyTorch
    else:           # the graph is the function's own, its nodes keeping empty holders
        assert ck.grad_fn.name() == "SinBackward0"


def dropout_like(x):
    mask = (pt.rand(x.shape, dtype=x.dtype) > 0.5).to(x.dtype)
    return (x * mask * 2).exp()


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_rng_state_replayed(reentrant):
    xa = np.linspace(-1, 1, 40)
    pt.manual_seed(3)
    x, = leaves(xa)
    out = checkpoint(dropout_like, x, use_reentrant=reentrant)
    pt.rand(5)                      # the stream moves on between forward and backward
    out.sum().backward()
    after = pt.rand(3)
    pt.manual_seed(3)
    x2, = leaves(xa)
    ref = dropout_like(x2)
    pt.rand(5)
    ref.sum().backward()
    assert_close(out, ref)
    assert_close(x.grad, x2.grad)
    assert_close(after, pt.rand(3))   # backward's replay did not disturb the outer stream
    # preserve_rng_state=False: the recomputation draws a new mask, so the gradient differs
    pt.manual_seed(3)
    x3, = leaves(xa)
    out = checkpoint(dropout_like, x3, use_reentrant=reentrant, preserve_rng_state=False)
    out.sum().backward()
    assert not np.allclose(x3.grad._data, x2.grad._data)


def test_use_reentrant_warning_matches_torch(torch):
    x, = leaves(np.ones(3))
    tx = torch.ones(3, requires_grad=True, dtype=torch.float64)
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        checkpoint(lambda t: t * 2, x)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch.utils.checkpoint.checkpoint(lambda t: t * 2, tx)
    assert [str(m.message) for m in ours] == [str(m.message) for m in theirs]
    assert ours[0].category is theirs[0].category and ours[0].filename == __file__
    funcs = [lambda t: t + 1, lambda t: t * 3]
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        checkpoint_sequential(funcs, 2, x)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch.utils.checkpoint.checkpoint_sequential(funcs, 2, tx)
    assert [str(m.message) for m in ours] == [str(m.message) for m in theirs]
    # with use_reentrant passed: silent
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(lambda t: t * 2, x, use_reentrant=False)


def test_errors_match_torch(torch):
    x, tx = pt.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    TC = torch.utils.checkpoint
    same_error(lambda: checkpoint(lambda t: t, x, use_reentrant=True, foo=1),
               lambda: TC.checkpoint(lambda t: t, tx, use_reentrant=True, foo=1))
    same_error(lambda: checkpoint(lambda t: t, x, use_reentrant=True, context_fn=lambda: None),
               lambda: TC.checkpoint(lambda t: t, tx, use_reentrant=True, context_fn=lambda: None))
    same_error(lambda: checkpoint(lambda t: t, x, use_reentrant=True, debug=True),
               lambda: TC.checkpoint(lambda t: t, tx, use_reentrant=True, debug=True))
    same_error(lambda: checkpoint(lambda t: t, x, use_reentrant=False, determinism_check="strict"),
               lambda: TC.checkpoint(lambda t: t, tx, use_reentrant=False, determinism_check="strict"))
    same_error(lambda: checkpoint_sequential([lambda t: t], 1, x, use_reentrant=True, foo=2),
               lambda: TC.checkpoint_sequential([lambda t: t], 1, tx, use_reentrant=True, foo=2))
    # reentrant: an output that needs no gradient at recomputation
    y = checkpoint(lambda t: t.detach() * 2, x, use_reentrant=True)
    ty = TC.checkpoint(lambda t: t.detach() * 2, tx, use_reentrant=True)
    same_error(lambda: y.sum().backward(), lambda: ty.sum().backward())


def test_reentrant_without_grad_inputs_warns(torch):
    w = pt.ones(3, requires_grad=True)
    tw = torch.ones(3, requires_grad=True)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True. Gradients will be None"):
        out = checkpoint(lambda t: t * w, pt.ones(3), use_reentrant=True)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        tout = torch.utils.checkpoint.checkpoint(lambda t: t * tw, torch.ones(3), use_reentrant=True)
    assert out.requires_grad is tout.requires_grad is False


def test_non_reentrant_closure_parameters_kwargs_tuples(torch):
    rng = np.random.default_rng(1)
    xa, wa, ba = rng.standard_normal((2, 3)), rng.standard_normal((3, 3)), rng.standard_normal(3)
    w, b = leaves(wa, ba)
    x = pt.tensor(xa)                                         # the input needs no gradient

    def f(t, scale=1.0, extra=None):
        h = (t @ w + b).tanh() * scale
        return h, h.sum(), "label", {"k": (h * h).mean()}, pt.arange(3)
    outs = checkpoint(f, x, scale=2.0, use_reentrant=False)
    assert outs[2] == "label" and outs[4].tolist() == [0, 1, 2] and not outs[4].requires_grad
    loss = outs[0].sum() + outs[1] + outs[3]["k"]
    loss.backward()
    w2, b2 = leaves(wa, ba)
    tw, tb = (torch.tensor(a, requires_grad=True) for a in (wa, ba))
    h2 = (pt.tensor(xa) @ w2 + b2).tanh() * 2.0
    (h2.sum() + h2.sum() + (h2 * h2).mean()).backward()
    assert_close(w.grad, w2.grad)
    assert_close(b.grad, b2.grad)

    def tf(t, scale=1.0):
        h = (t @ tw + tb).tanh() * scale
        return h, h.sum(), "label", {"k": (h * h).mean()}
    touts = torch.utils.checkpoint.checkpoint(tf, torch.tensor(xa), scale=2.0, use_reentrant=False)
    (touts[0].sum() + touts[1] + touts[3]["k"]).backward()
    assert_close(w.grad, tw.grad)
    assert_close(b.grad, tb.grad)


def test_non_reentrant_autograd_grad_and_double_backward():
    xa, wa = np.array([0.3, -0.7, 1.1]), np.array([0.5, 1.5, -2.0])
    x, w = leaves(xa, wa)
    out = checkpoint(chain, x, w, use_reentrant=False).sum()
    gx, gw = pt.autograd.grad(out, (x, w), create_graph=True)
    x2, w2 = leaves(xa, wa)
    ref = chain(x2, w2).sum()
    rx, rw = pt.autograd.grad(ref, (x2, w2), create_graph=True)
    assert_close(gx, rx)
    assert_close(gw, rw)
    # second order through the recomputation
    hx, = pt.autograd.grad(gx.sum(), x)
    hrx, = pt.autograd.grad(rx.sum(), x2)
    assert_close(hx, hrx)


def test_non_reentrant_tied_weights_no_double_count():
    # the input is itself made from w, and the checkpointed function also reads w
    wa = np.array([0.4, -1.2, 0.9])
    w, = leaves(wa)
    x = w * 2
    out = checkpoint(lambda t: (t * w).sin(), x, use_reentrant=False)
    out.sum().backward()
    w2, = leaves(wa)
    ((w2 * 2) * w2).sin().sum().backward()
    assert_close(w.grad, w2.grad)
    # a non-leaf read from outside (closure), and returning a tensor from outside unchanged
    w3, = leaves(wa)
    z = w3.exp()
    a, b = checkpoint(lambda t: ((t * z).cos(), z), pt.ones(3), use_reentrant=False)
    (a.sum() + (b * 3).sum()).backward()
    w4, = leaves(wa)
    z4 = w4.exp()
    ((pt.ones(3) * z4).cos().sum() + (z4 * 3).sum()).backward()
    assert_close(w3.grad, w4.grad)


def test_non_reentrant_determinism_check(torch):
    def make(mod):
        calls = []

        def changing(t):
            calls.append(1)
            k = 3 if len(calls) == 1 else 2
            return (t[:k] * t[:k]).sum()
        return changing
    x, tx = pt.ones(4, dtype=pt.float64, requires_grad=True), torch.ones(4, dtype=torch.float64, requires_grad=True)
    out = checkpoint(make(pt), x, use_reentrant=False)
    tout = torch.utils.checkpoint.checkpoint(make(torch), tx, use_reentrant=False)
    same_error(out.backward, tout.backward)
    with pytest.raises(C.CheckpointError, match="Recomputed values for the following tensors have different "
                                                "metadata than during the forward pass"):
        checkpoint(make(pt), x, use_reentrant=False).backward()
    # no check: the forward's MulBackward0 gets the rerun's shorter tensors, and fails as PyTorch's does
    x, tx = pt.ones(4, requires_grad=True), torch.ones(4, requires_grad=True)
    out = checkpoint(make(pt), x, use_reentrant=False, determinism_check="none")
    tout = torch.utils.checkpoint.checkpoint(make(torch), tx, use_reentrant=False, determinism_check="none")
    with pytest.raises(RuntimeError, match="The size of tensor a"):
        tout.backward()
    with pytest.raises(RuntimeError, match="The size of tensor a"):
        out.backward()
    assert issubclass(C.CheckpointError, RuntimeError)


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_gradcheck(reentrant):
    x, w = leaves(np.array([0.2, -0.4, 0.9]), np.array([1.1, 0.3, -0.6]))
    assert pt.autograd.gradcheck(lambda a, b: checkpoint(chain, a, b, use_reentrant=reentrant), (x, w))


class Affine(pt.nn.Module):
    def __init__(self, w, b):
        super().__init__()
        self.w = pt.nn.Parameter(pt.tensor(w))
        self.b = pt.nn.Parameter(pt.tensor(b))

    def forward(self, x):
        return (x @ self.w + self.b).tanh()


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_checkpoint_sequential(torch, reentrant):
    rng = np.random.default_rng(2)
    ws = [(rng.standard_normal((3, 3)), rng.standard_normal(3)) for _ in range(4)]
    xa = rng.standard_normal((2, 3))
    model = pt.nn.Sequential(*[Affine(w, b) for w, b in ws])
    ref_model = pt.nn.Sequential(*[Affine(w, b) for w, b in ws])
    x, = leaves(xa)
    x2, = leaves(xa)
    out = checkpoint_sequential(model, 2, x, use_reentrant=reentrant)
    ref = ref_model(x2)
    assert_close(out, ref)
    out.sum().backward()
    ref.sum().backward()
    assert_close(x.grad, x2.grad)
    for p, q in zip(model.parameters(), ref_model.parameters()):
        assert_close(p.grad, q.grad)
    # a list of functions, and more segments than a chain divides evenly
    funcs = [lambda t: t.sin(), lambda t: t * 3, lambda t: t.exp(), lambda t: t - 1, lambda t: t.cos()]
    x, = leaves(xa)
    tx = torch.tensor(xa, requires_grad=True)
    out = checkpoint_sequential(funcs, 3, x, use_reentrant=reentrant)
    tout = torch.utils.checkpoint.checkpoint_sequential(funcs, 3, tx, use_reentrant=reentrant)
    out.sum().backward()
    tout.sum().backward()
    assert_close(out, tout)
    assert_close(x.grad, tx.grad)


def test_no_grad_and_helpers():
    x, = leaves(np.ones(2))
    with pt.no_grad():
        for reentrant in VARIANTS:
            y = checkpoint(lambda t: t * 2, x, use_reentrant=reentrant)
            assert not y.requires_grad and y.tolist() == [2.0, 2.0]
    d = C.detach_variable((x, 3))
    assert d[1] == 3 and d[0].requires_grad and d[0].grad_fn is None and d[0] is not x
    with pytest.raises(RuntimeError, match="Only tuple of tensors is supported"):
        C.detach_variable([x])
    with C.set_checkpoint_debug_enabled(True):
        with pytest.raises(ValueError, match="debug=True is incompatible with non-default context_fn"):
            checkpoint(lambda t: t, x, use_reentrant=False, context_fn=C.noop_context_fn.__call__)
    entered = []

    class Ctx:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            entered.append(self.name)

        def __exit__(self, *a):
            return False
    out = checkpoint(lambda t: (t * 3).sum(), x, use_reentrant=False, context_fn=lambda: (Ctx("fwd"), Ctx("re")))
    out.backward()   # t * 3 saves no tensor: nothing to recompute
    assert entered == ["fwd"] and x.grad.tolist() == [3.0, 3.0]
    out = checkpoint(lambda t: (t * t).sum(), x, use_reentrant=False, context_fn=lambda: (Ctx("fwd"), Ctx("re")))
    out.backward()
    assert entered == ["fwd", "fwd", "re"] and x.grad.tolist() == [5.0, 5.0]


def _scenarios(torch):
    """Non-reentrant checkpoint as programs use it, printed: gradients, second order, nesting, hooks and
    early stop, in-place changes, errors (the same text expected from both libraries)."""
    import importlib
    C = importlib.import_module(torch.__name__ + ".utils.checkpoint")
    nn = torch.nn
    lines = []
    def show(tag, fn):
        try:
            r = fn()
            lines.append(f"{tag} {r}")
        except Exception as e:
            lines.append(f"{tag} {type(e).__name__} {str(e).strip().splitlines()[0][:150]}")

    torch.manual_seed(0)
    lin = nn.Linear(3, 3).double()
    x0 = torch.randn(2, 3, dtype=torch.float64)
    # 1 closure params, no input requires grad
    def f1():
        out = C.checkpoint(lambda t: lin(t).tanh().sum(), x0, use_reentrant=False)
        out.backward(); g = lin.weight.grad.clone(); lin.zero_grad(); return g
    show("closure", f1)
    # 2 create_graph double backward
    def f2():
        x = x0.clone().requires_grad_()
        y = C.checkpoint(lambda t: (t.sin() * t).exp().sum(), x, use_reentrant=False)
        g, = torch.autograd.grad(y, x, create_graph=True)
        h, = torch.autograd.grad(g.sum(), x)
        return h
    show("double", f2)
    # 3 retain_graph twice
    def f3():
        x = x0.clone().requires_grad_()
        y = C.checkpoint(lambda t: t.sigmoid().pow(3).sum(), x, use_reentrant=False)
        y.backward(retain_graph=True); a = x.grad.clone(); y.backward(); return x.grad - 2 * a
    show("retain", f3)
    # 4 nested
    def inner(t): return (t * t).sin()
    def outer(t): return C.checkpoint(inner, t.cos(), use_reentrant=False).exp().sum()
    def f4():
        x = x0.clone().requires_grad_()
        C.checkpoint(outer, x, use_reentrant=False).backward(); return x.grad
    show("nested", f4)
    def f4b():
        x = x0.clone().requires_grad_()
        g, = torch.autograd.grad(C.checkpoint(outer, x, use_reentrant=False), x, create_graph=True)
        h, = torch.autograd.grad(g.sum(), x); return h
    show("nested2", f4b)
    # 5 hooks log and early stop
    log = []
    seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2), nn.Tanh())
    for i, m in enumerate(seq): m.register_forward_hook(lambda m, a, o, i=i: log.append(i))
    def f5():
        log.clear(); x = x0.float().requires_grad_()
        C.checkpoint(seq, x, use_reentrant=False).sum().backward()
        a = list(log); log.clear()
        with C.set_checkpoint_early_stop(False):
            C.checkpoint(seq, x, use_reentrant=False).sum().backward()
        b = list(log); log.clear()
        C.checkpoint(seq, x, use_reentrant=False, early_stop=False).sum().backward()
        return a, b, list(log)
    show("hooks", f5)
    # 6 input modified in place
    def f6():
        x = x0.clone().requires_grad_(); z = x * 1
        y = C.checkpoint(lambda t: t.exp().sum(), z, use_reentrant=False)
        z.add_(1); y.backward(); return x.grad
    show("inplace", f6)
    # 7 custom Function reading saved_tensors twice
    class Sq(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a): ctx.save_for_backward(a); return a * a
        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors; a2, = ctx.saved_tensors; return 2 * a * g
    def f7():
        x = x0.clone().requires_grad_()
        C.checkpoint(lambda t: Sq.apply(t.sin()).sum(), x, use_reentrant=False).backward(); return x.grad
    show("twice", f7)
    # 8 dropout
    def f8():
        torch.manual_seed(1)
        d = nn.Dropout(0.5); x = x0.clone().requires_grad_()
        y = C.checkpoint(lambda t: d(t.exp()).sum(), x, use_reentrant=False); torch.rand(3)
        y.backward(); return x.grad
    show("dropout", f8)
    # 9 more tensors during recomputation
    def f9():
        n = []
        def g(t):
            n.append(1); r = t.exp()
            if len(n) > 1: r = r.sin()
            return r.sum()
        x = x0.clone().requires_grad_()
        with C.set_checkpoint_early_stop(False):
            y = C.checkpoint(g, x, use_reentrant=False)
        y.backward(); return x.grad
    show("more", f9)
    # 10 output is input; kwargs; tuple/dict out
    def f10():
        x = x0.clone().requires_grad_()
        a, d = C.checkpoint(lambda t, s=1: (t, {"k": (t * s).sin()}), x, s=2.0, use_reentrant=False)
        (a.sum() + d["k"].sum()).backward(); return x.grad
    show("kw", f10)
    # 11 saved tensor access through grad_fn outside backward
    def f11():
        x = x0.clone().requires_grad_()
        y = C.checkpoint(lambda t: t.exp(), x, use_reentrant=False)
        return y.grad_fn._saved_result, y.grad_fn._saved_result.requires_grad
    show("saved_attr", f11)
    # 12 grad inside the checkpointed function
    def f12():
        x = x0.clone().requires_grad_()
        def g(t):
            u = (t * t).sum()
            gg, = torch.autograd.grad(u, t, create_graph=True)
            return (gg * t).sum()
        y = C.checkpoint(g, x, use_reentrant=False); y.backward(); return x.grad
    show("gradinside", f12)
    # 13 debug
    def f13():
        n = []
        def g(t):
            n.append(1); k = 3 if len(n) == 1 else 2
            return (t[:k] * t[:k]).sum()
        x = torch.ones(4, requires_grad=True)
        C.checkpoint(g, x, use_reentrant=False, debug=True).backward()
    show("debug", f13)
    # 14 checkpoint_sequential
    def f14():
        x = x0.float().requires_grad_()
        y = C.checkpoint_sequential(seq, 2, x, use_reentrant=False); log.clear(); y.sum().backward(); return x.grad, list(log)
    show("seqck", f14)
    # 15 save_on_cpu + double backward
    def f15():
        x = x0.clone().requires_grad_()
        with torch.autograd.graph.save_on_cpu():
            y = (x.sin() * x).sum()
        g, = torch.autograd.grad(y, x, create_graph=True)
        h, = torch.autograd.grad(g.sum(), x); return h
    show("save_on_cpu", f15)
    return lines


def test_non_reentrant_scenarios_match_torch(torch):
    ours, theirs = _scenarios(pt), _scenarios(torch)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a == b
