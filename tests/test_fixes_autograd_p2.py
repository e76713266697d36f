"""Autograd extension points found missing or different by the compat program 41_custom_autograd_tour.py:
each compared with PyTorch."""
import warnings

import numpy as np
import pytest

import pedatorch as torch

pt = pytest.importorskip("torch")

LIBS = [torch, pt]


def _message(fn):
    try:
        fn()
    except Exception as e:   # noqa: BLE001 - the class is compared too
        return type(e).__name__, str(e)
    return None


def _cube_cls(lib):
    class Cube(lib.autograd.Function):
        generate_vmap_rule = True   # (PyTorch's vmap needs it; pedatorch's runs the Function per slice)

        @staticmethod
        def forward(x, p=3):
            return x ** p

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, p = inputs
            ctx.save_for_backward(x)
            ctx.p = p

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * ctx.p * x ** (ctx.p - 1), None
    return Cube


# ------------------------------------------------------------------ 1. setup_context-style Functions

def test_setup_context_function_values_grads_and_double_backward():
    res = []
    for lib in LIBS:
        Cube = _cube_cls(lib)
        x = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        y = Cube.apply(x)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        res.append((repr(Cube.apply(lib.tensor([1.0, -2.0], requires_grad=True))), y.tolist(), g.tolist(),
                    gg.tolist(), type(y.grad_fn).__name__, Cube.apply(x, 2).tolist()))
        assert lib.autograd.gradcheck(Cube.apply, (x,))
        assert lib.autograd.gradgradcheck(Cube.apply, (x,))
    assert res[0] == res[1]
    assert res[0][0] == "tensor([ 1., -8.], grad_fn=<CubeBackward>)"


def test_setup_context_function_under_torch_func():
    outs = []
    for lib in LIBS:
        Cube = _cube_cls(lib)
        x = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64)
        outs.append([lib.func.grad(lambda t: Cube.apply(t).sum())(x).tolist(),
                     lib.func.jacrev(Cube.apply)(x).tolist(),
                     lib.func.vmap(Cube.apply)(x.reshape(3, 1)).tolist()])
    assert outs[0] == outs[1]
    # (PyTorch's jacfwd needs the Function's jvp; pedatorch's is the double-vjp trick, through backward)
    assert torch.func.jacfwd(_cube_cls(torch).apply)(torch.tensor([1.0, -2.0])).tolist() == [[3.0, 0.0], [0.0, 12.0]]


def test_function_vmap_attributes():
    for lib in LIBS:
        assert lib.autograd.Function.generate_vmap_rule is False
        with pytest.raises(NotImplementedError):
            lib.autograd.Function.vmap(None, (0,), 1)


def test_custom_node_base_class_is_backward_c_function():
    names = []
    for lib in LIBS:
        Cube = _cube_cls(lib)
        y = Cube.apply(lib.ones(2, requires_grad=True))
        names.append([c.__name__ for c in type(y.grad_fn).__mro__][:2])
        assert type(y.grad_fn)._forward_cls is Cube
    assert names[0] == names[1] == ["CubeBackward", "BackwardCFunction"]


# ------------------------------------------------------------------ 2. grad_fn._saved_*

def _ops(L):
    """(name, fn(x, w)) with x, w float64 (3, 3) tensors in (0.2, 0.8)."""
    F = L.nn.functional
    eye = L.eye(3, dtype=L.float64)
    return [
        ("mul", lambda x, w: x * w), ("mul_scalar", lambda x, w: x * 2.0), ("mul_int", lambda x, w: x * 3),
        ("div", lambda x, w: x / w), ("div_scalar", lambda x, w: x / 2.0), ("pow_scalar", lambda x, w: x ** 2),
        ("pow_tensor", lambda x, w: x ** w), ("rpow", lambda x, w: 2.0 ** x), ("exp", lambda x, w: x.exp()),
        ("log", lambda x, w: x.log()), ("sin", lambda x, w: x.sin()), ("cos", lambda x, w: x.cos()),
        ("tan", lambda x, w: x.tan()), ("tanh", lambda x, w: x.tanh()), ("sigmoid", lambda x, w: x.sigmoid()),
        ("sqrt", lambda x, w: x.sqrt()), ("rsqrt", lambda x, w: x.rsqrt()), ("relu", lambda x, w: x.relu()),
        ("abs", lambda x, w: x.abs()), ("reciprocal", lambda x, w: x.reciprocal()),
        ("exp2", lambda x, w: x.exp2()), ("expm1", lambda x, w: x.expm1()), ("log1p", lambda x, w: x.log1p()),
        ("log2", lambda x, w: x.log2()), ("log10", lambda x, w: x.log10()), ("sinh", lambda x, w: x.sinh()),
        ("cosh", lambda x, w: x.cosh()), ("asin", lambda x, w: x.asin()), ("acos", lambda x, w: x.acos()),
        ("atan", lambda x, w: x.atan()), ("atan2", lambda x, w: L.atan2(x, w)), ("erf", lambda x, w: x.erf()),
        ("erfinv", lambda x, w: x.erfinv()), ("asinh", lambda x, w: x.asinh()), ("atanh", lambda x, w: x.atanh()),
        ("mm", lambda x, w: x.mm(w)), ("matmul", lambda x, w: x @ w), ("square", lambda x, w: x.square()),
        ("softmax", lambda x, w: x.softmax(1)), ("log_softmax", lambda x, w: x.log_softmax(1)),
        ("gelu", lambda x, w: F.gelu(x)), ("silu", lambda x, w: F.silu(x)), ("mish", lambda x, w: F.mish(x)),
        ("leaky_relu", lambda x, w: F.leaky_relu(x)), ("elu", lambda x, w: F.elu(x)),
        ("selu", lambda x, w: F.selu(x)), ("celu", lambda x, w: F.celu(x)), ("softplus", lambda x, w: F.softplus(x)),
        ("hardtanh", lambda x, w: F.hardtanh(x)), ("relu6", lambda x, w: F.relu6(x)),
        ("hardsigmoid", lambda x, w: F.hardsigmoid(x)), ("hardswish", lambda x, w: F.hardswish(x)),
        ("logsigmoid", lambda x, w: F.logsigmoid(x)), ("glu", lambda x, w: F.glu(x[:, :2])),
        ("prelu", lambda x, w: F.prelu(x, w[0, :1])),
        ("maximum", lambda x, w: L.maximum(x, w)), ("minimum", lambda x, w: L.minimum(x, w)),
        ("clamp", lambda x, w: x.clamp(0.3, 0.6)), ("prod", lambda x, w: x.prod()),
        ("logsumexp", lambda x, w: x.logsumexp(1)), ("norm", lambda x, w: x.norm()), ("var", lambda x, w: x.var()),
        ("std", lambda x, w: x.std()), ("dot", lambda x, w: x[0].dot(w[0])), ("mv", lambda x, w: x.mv(w[0])),
        ("bmm", lambda x, w: x[None].bmm(w[None])), ("addmm", lambda x, w: L.addmm(x, x, w)),
        ("baddbmm", lambda x, w: L.baddbmm(x[None], x[None], w[None])), ("linear", lambda x, w: F.linear(x, w)),
        ("hypot", lambda x, w: L.hypot(x, w)), ("max", lambda x, w: x.max()), ("amax", lambda x, w: x.amax(1)),
        ("median", lambda x, w: x.median()), ("where", lambda x, w: L.where(x > 0.5, x, w)),
        ("cumprod", lambda x, w: x.cumprod(0)), ("cummax", lambda x, w: x.cummax(0)[0]),
        ("logcumsumexp", lambda x, w: x.logcumsumexp(0)), ("addcmul", lambda x, w: L.addcmul(x, x, w)),
        ("addcdiv", lambda x, w: L.addcdiv(x, x, w)), ("xlogy", lambda x, w: L.xlogy(x, w)),
        ("sgn", lambda x, w: x.sgn()), ("sinc", lambda x, w: x.sinc()), ("logit", lambda x, w: x.logit()),
        ("digamma", lambda x, w: x.digamma()), ("lgamma", lambda x, w: x.lgamma()),
        ("fmod", lambda x, w: L.fmod(x, w)), ("remainder", lambda x, w: L.remainder(x, w)),
        ("dist", lambda x, w: L.dist(x, w)), ("pdist", lambda x, w: F.pdist(x)), ("cdist", lambda x, w: L.cdist(x, w)),
        ("copysign", lambda x, w: L.copysign(x, w)), ("angle", lambda x, w: x.angle()),
        ("nan_to_num", lambda x, w: x.nan_to_num()), ("polar", lambda x, w: L.polar(x, w)),
        ("inverse", lambda x, w: (x + eye).inverse()), ("det", lambda x, w: (x + eye).det()),
        ("conv2d", lambda x, w: F.conv2d(x[None, None], w[None, None, :2, :2])),
        ("layer_norm", lambda x, w: F.layer_norm(x, (3,), w[0], w[1])),
        ("batch_norm", lambda x, w: F.batch_norm(x, None, None, w[0], w[1], training=True)),
        ("group_norm", lambda x, w: F.group_norm(x[None], 1, w[0], w[1])),
        ("embedding", lambda x, w: F.embedding(L.tensor([0, 2]), w)),
        ("gather", lambda x, w: x.gather(1, L.tensor([[0], [1], [2]]))),
        ("index_select", lambda x, w: x.index_select(0, L.tensor([0, 2]))),
        ("masked_fill", lambda x, w: x.masked_fill(x > 0.5, 0.0)),
        ("max_pool2d", lambda x, w: F.max_pool2d(x[None, None], 2)),
        ("avg_pool2d", lambda x, w: F.avg_pool2d(x[None, None], 2)),
        ("mse", lambda x, w: F.mse_loss(x, w)), ("smooth_l1", lambda x, w: F.smooth_l1_loss(x, w)),
        ("huber", lambda x, w: F.huber_loss(x, w)), ("bce", lambda x, w: F.binary_cross_entropy(x, w)),
        ("bce_logits", lambda x, w: F.binary_cross_entropy_with_logits(x, w)),
        ("nll", lambda x, w: F.nll_loss(x.log_softmax(1), L.tensor([0, 1, 2]))),
    ]


def _inputs(L):
    x = (L.arange(9, dtype=L.float64).reshape(3, 3) / 15 + 0.2).requires_grad_()
    w = (L.arange(9, dtype=L.float64).reshape(3, 3).flip(0) / 15 + 0.2).requires_grad_()
    return x, w


@pytest.mark.parametrize("i", range(len(_ops(torch))))
def test_saved_tensor_attributes_match_pytorch(i):
    name, ours = _ops(torch)[i]
    _, theirs = _ops(pt)[i]
    x, w = _inputs(torch)
    px, pw = _inputs(pt)
    y, py = ours(x, w), theirs(px, pw)
    node, pnode = y.grad_fn, py.grad_fn
    assert node.name() == pnode.name()
    names = [a for a in dir(type(node)) if a.startswith("_saved_")]
    assert names, f"{name}: no _saved_ attribute"
    for a in names:
        mine, theirs_v = getattr(node, a), getattr(pnode, a)
        assert (mine is None) == (theirs_v is None), (name, a)
        if mine is None:
            continue
        assert str(mine.dtype) == str(theirs_v.dtype), (name, a)
        assert tuple(mine.shape) == tuple(theirs_v.shape), (name, a)
        np.testing.assert_allclose(mine.detach().numpy(), theirs_v.detach().numpy(), rtol=1e-6, atol=1e-12,
                                   err_msg=f"{name}.{a}")
        assert (mine is x, mine is w) == (theirs_v is px, theirs_v is pw), (name, a)
        assert (mine.grad_fn is node) == (theirs_v.grad_fn is pnode), (name, a)


def test_saved_attributes_freed_after_backward_and_with_hooks():
    msgs = []
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 4.0], requires_grad=True)
        prod = x * w
        assert prod.grad_fn._saved_self is x and prod.grad_fn._saved_other is w
        half = x * lib.ones(2)
        assert half.grad_fn._saved_self is None
        c = x.exp()
        assert c.grad_fn._saved_result.equal(c) and c.grad_fn._saved_result is not c
        c.sum().backward()
        msgs.append(_message(lambda: c.grad_fn._saved_result))
        msgs.append(_message(lambda: prod.grad_fn._saved_foo)[0])
        # saved_tensors_hooks see what is saved, and the attribute gives the unpacked tensor
        seen = []
        with lib.autograd.graph.saved_tensors_hooks(lambda t: seen.append("pack") or t * 1,
                                                    lambda t: seen.append("unpack") or t):
            s = x.sin()
        msgs.append((s.grad_fn._saved_self.tolist(), seen))
    assert msgs[:3] == msgs[3:]
    assert msgs[0][0] == "RuntimeError" and "access saved tensors after calling backward" in msgs[0][1]


# ------------------------------------------------------------------ 4. register_multi_grad_hook

def _multi_hook_run(lib):
    out = []
    xa, xb = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
    fired = []
    h = lib.autograd.graph.register_multi_grad_hook((xa, xb), lambda grads: fired.append([g is None for g in grads]))
    (xa * 2).sum().backward()
    (xa * xb).sum().backward()
    h.remove()
    (xa * xb).sum().backward()
    out.append(fired)
    a, b = lib.rand(2, 3, requires_grad=True), lib.rand(2, 3, requires_grad=True)
    c, d = a * b, a * b
    got = []
    lib.autograd.graph.register_multi_grad_hook((a, b, c, d), lambda grads: got.append([g is not None for g in grads]))
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    out.append(got)
    first = []
    lib.autograd.graph.register_multi_grad_hook((a, b), lambda g: first.append(tuple(g.shape)), mode="any")
    (a * b).sum().backward()
    (b * 2).sum().backward()
    out.append(first)
    out.append(_message(lambda: lib.autograd.graph.register_multi_grad_hook((a,), print, mode="x")))
    return out


def test_register_multi_grad_hook():
    ours, theirs = _multi_hook_run(torch), _multi_hook_run(pt)
    assert ours == theirs
    assert ours[0] == [[False, True], [False, False]]


# ------------------------------------------------------------------ 5. 6. 7. messages

def _dirty_cls(lib):
    class AddOne(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g
    return AddOne


def test_mark_dirty_of_a_leaf_message():
    res = []
    for lib in LIBS:
        AddOne = _dirty_cls(lib)
        res.append([_message(lambda: AddOne.apply(lib.zeros(2, requires_grad=True))),
                    _message(lambda: AddOne.apply(lib.zeros(4, requires_grad=True)[:2])),
                    _message(lambda: AddOne.apply(lib.zeros(4).detach()[:2].requires_grad_())),
                    _message(lambda: lib.zeros(2, requires_grad=True).add_(1))])
    assert res[0] == res[1]
    assert res[0][0][1] == "a leaf Variable that requires grad has been used in an in-place operation."


def test_allow_unused_message_names_the_index():
    res = []
    for lib in LIBS:
        x, u, z = (lib.ones(2, requires_grad=True) for _ in range(3))
        y = (x * 2).sum()
        res.append([_message(lambda: lib.autograd.grad(y, [x, u], retain_graph=True)),
                    _message(lambda: lib.autograd.grad(y, [u, x, z], retain_graph=True))])
    assert res[0] == res[1]
    assert "The differentiated Tensor at index 1 appears" in res[0][0][1]


def test_instantiating_a_function_warns_and_calling_it_raises():
    res = []
    for lib in LIBS:
        class Id(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            inst = Id()
        res.append((caught[0].category, str(caught[0].message).split("> ")[1], _message(lambda: inst(lib.ones(2)))))
    assert res[0] == res[1]


# ------------------------------------------------------------------ 8. names

def test_autograd_names():
    for lib in LIBS:
        ag = lib.autograd
        import importlib
        prof = importlib.import_module(lib.__name__ + ".autograd.profiler")
        assert prof is ag.profiler
        with prof.profile() as p, prof.record_function("block"):
            lib.ones(2) * 2
        assert p.key_averages() is not None

        @prof.record_function("deco")
        def f():
            return 1
        assert f() == 1
        assert _message(lambda: prof.emit_nvtx().__enter__()) == ("AssertionError",
                                                                  "Torch not compiled with CUDA enabled")
        with prof.emit_itt():
            pass
        with ag.set_multithreading_enabled(False):
            pass
        assert _message(lambda: ag.variable(1)) == (
            "RuntimeError", "torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")
        assert isinstance(ag.kineto_available(), bool)
        fn = ag.function
        assert issubclass(fn.InplaceFunction, ag.Function) and issubclass(fn.NestedIOFunction, ag.Function)
        assert fn.BackwardCFunction.__name__ == "BackwardCFunction"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert fn.InplaceFunction(inplace=True).inplace is True


def _edges_and_versions(lib):
    g = lib.autograd.graph
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    e = g.get_gradient_edge(x)
    out = [type(e).__name__, e._fields, e.output_nr, e.node.name(), g.get_gradient_edge(y).node.name()]
    out.append(lib.autograd.grad((y * y).sum(), g.get_gradient_edge(y), retain_graph=True)[0].tolist())
    out.append([t.tolist() for t in lib.autograd.grad((y * y).sum(), [x, g.get_gradient_edge(y)])])
    out.append(_message(lambda: g.get_gradient_edge(lib.ones(2))))
    b = x * 1
    s = (b * b).sum()
    g.increment_version(b)
    g.increment_version([b])
    out.append(b._version)
    out.append(_message(lambda: s.backward())[1].split(";")[0])
    return out


def test_gradient_edge_and_increment_version():
    assert _edges_and_versions(torch) == _edges_and_versions(pt)


def _mutation_run(lib):
    g = lib.autograd.graph
    out = []
    with g.allow_mutation_on_saved_tensors():
        a = lib.ones(2, 3, requires_grad=True)
        b = a.clone()
        loss = (b ** 2).sum()
        b.sin_()
        loss.backward()
        out.append(a.grad.tolist())
        e = a.exp()
        e.mul_(2)
        e.sum().backward()
        out.append(np.round(a.grad.numpy(), 4).tolist())
    out.append(_message(lambda: g.allow_mutation_on_saved_tensors().__enter__() and None))
    with g.allow_mutation_on_saved_tensors():
        a = lib.ones(2, requires_grad=True)
        loss = (a * a).sum()
    out.append(_message(loss.backward))
    return out


def test_allow_mutation_on_saved_tensors():
    ours = _mutation_run(torch)
    theirs = _mutation_run(pt)
    assert ours[:2] == theirs[:2] and ours[3] == theirs[3]
    assert ours[0] == [[2.0] * 3] * 2


# ------------------------------------------------------------------ 3. forward-mode AD

def _forward_ad_run(lib):
    import importlib
    fwAD = importlib.import_module(lib.__name__ + ".autograd.forward_ad")

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            return x * x * w

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g, None

        @staticmethod
        def jvp(ctx, x_t, w_t):
            (x,) = ctx.saved_tensors
            return 2 * x * x_t + w_t

    class NoJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    def r(t):
        return None if t is None else np.round(t.detach().numpy(), 5).tolist()

    out = [_message(lambda: fwAD.make_dual(lib.ones(2), lib.ones(2)))]
    primal = lib.tensor([1.0, 0.0, -1.0], dtype=lib.float64)
    tangent = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    w = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, 1.0]], dtype=lib.float64)
    with fwAD.dual_level() as level:
        out.append(level)
        d = fwAD.make_dual(primal, tangent)
        out.append((d._base is primal, d.requires_grad, fwAD.unpack_dual(d).tangent is tangent))
        y = d.sin() * d
        p, t = fwAD.unpack_dual(y)
        out.append((type(fwAD.unpack_dual(y)).__name__, r(p), r(t), r(fwAD.unpack_dual(y).tangent)))
        out.append(r(fwAD.unpack_dual(Square.apply(d, lib.ones(3, dtype=lib.float64))).tangent))
        out.append(_message(lambda: NoJvp.apply(d)))
        for f in (lambda v: v.exp() / (1 + v ** 2), lambda v: w @ v, lambda v: (w * v).sum(1),
                  lambda v: v[1:], lambda v: v.softmax(0), lambda v: lib.tanh(v).cumsum(0),
                  lambda v: lib.stack([v, v * 2]).max(0).values, lambda v: v.reshape(3, 1) * v,
                  lambda v: lib.nn.functional.mse_loss(v, lib.zeros(3, dtype=lib.float64)),
                  lambda v: v > 0, lambda v: lib.zeros_like(v), lambda v: v.detach()):
            out.append(r(fwAD.unpack_dual(f(d)).tangent))
        z = lib.ones(3, dtype=lib.float64, requires_grad=True) * 1
        z.mul_(d)
        out.append(r(fwAD.unpack_dual(z).tangent))
        xr = lib.ones(2, requires_grad=True)
        dr = fwAD.make_dual(xr, lib.ones(2))
        out.append((type(dr.grad_fn).__name__, dr.requires_grad))
        out.append(_message(lambda: fwAD.make_dual(primal, lib.ones(2))))
        out.append(_message(lambda: fwAD.make_dual(lib.ones(2, dtype=lib.long), lib.ones(2))))
        out.append(_message(lambda: fwAD.enter_dual_level()))
    out.append(r(fwAD.unpack_dual(y).tangent))
    out.append((fwAD.enter_dual_level(), fwAD.exit_dual_level()))
    return out


def test_forward_ad_matches_pytorch():
    ours, theirs = _forward_ad_run(torch), _forward_ad_run(pt)
    for a, b in zip(ours, theirs):
        assert a == b
    assert len(ours) == len(theirs)


def test_forward_ad_agrees_with_jvp_of_torch_func():
    import pedatorch.autograd.forward_ad as fwAD
    x = torch.randn(4, dtype=torch.float64)
    v = torch.randn(4, dtype=torch.float64)

    def f(t):
        return (t.sin() * t.exp()).cumsum(0) / (1 + t ** 2)
    with fwAD.dual_level():
        tangent = fwAD.unpack_dual(f(fwAD.make_dual(x, v))).tangent
    _, expected = torch.func.jvp(f, (x,), (v,))
    assert torch.allclose(tangent, expected)


def test_dual_tensor_repr_shows_its_tangent():
    """PyTorch prints a dual tensor with ``tangent=...`` after its grad_fn, and without it once the level
    has been left."""
    def run(lib):
        import importlib
        fw = importlib.import_module(lib.__name__ + ".autograd.forward_ad")
        out = []
        with fw.dual_level():
            d = fw.make_dual(lib.tensor([1., 2.]), lib.tensor([1., 0.5]))
            x = lib.tensor([1., 2.], requires_grad=True)
            out += [repr(d), repr(d * 2), repr(d.sin()), repr(fw.make_dual(x * 1, lib.ones(2)))]
        out.append(repr(d))
        return out
    assert run(torch) == run(pt)
