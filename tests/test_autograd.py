"""The autograd engine: graphs, backward/grad, hooks, modes, in-place safety, custom Functions.

Most tests run the same code on pedatorch and on PyTorch (``both``) and compare
what comes out: values, gradients, grad_fn names, exception classes.
"""
import math
import warnings

import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close, to_np


def both(torch, fn):
    """Run ``fn(lib)`` with pedatorch and with torch."""
    return fn(pt), fn(torch)


def raises_same(torch, fn):
    """``fn(lib)`` raises the same exception class on both, with the same message start."""
    errs = []
    for lib in (pt, torch):
        with pytest.raises(Exception) as info:
            fn(lib)
        errs.append(info.value)
    assert type(errs[0]).__name__ == type(errs[1]).__name__, (errs[0], errs[1])
    return errs


# ---------------------------------------------------------------- the course example

def test_course_example_sin(torch):
    def run(lib):
        x = lib.tensor(2.0, requires_grad=True)
        y = lib.tensor(3.0, requires_grad=True)
        z = x ** 2 + y ** 3
        w = lib.sin(z)
        w.backward()
        return z.item(), w.item(), x.grad.item(), y.grad.item(), w.grad_fn.name(), z.grad_fn.name()
    ours, theirs = both(torch, run)
    assert ours[4:] == theirs[4:] == ("SinBackward0", "AddBackward0")
    np.testing.assert_allclose(ours[:4], theirs[:4], rtol=1e-6)
    assert ours[0] == 31.0
    assert math.isclose(ours[2], 3.659, rel_tol=1e-3) and math.isclose(ours[3], 24.70, rel_tol=1e-3)


def test_course_example_without_torch():
    x = pt.tensor(2.0, requires_grad=True)
    y = pt.tensor(3.0, requires_grad=True)
    w = pt.sin(x ** 2 + y ** 3)
    w.backward()
    assert math.isclose(x.grad.item(), 2 * 2 * math.cos(31), rel_tol=1e-5)
    assert math.isclose(y.grad.item(), 3 * 9 * math.cos(31), rel_tol=1e-5)


# ---------------------------------------------------------------- graph structure

def test_graph_names_and_next_functions(torch):
    def run(lib):
        a = lib.ones(3, requires_grad=True)
        b = lib.ones(3, requires_grad=True)
        y = (a * b + 2).relu().sum()
        names = []
        node = y.grad_fn
        while node is not None:
            names.append(node.name())
            nxt = [n for n, _ in node.next_functions if n is not None]
            node = nxt[0] if nxt else None
        mul = y.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
        return names, len(mul.next_functions), [n.name() for n, _ in mul.next_functions], a.is_leaf, y.is_leaf
    ours, theirs = both(torch, run)
    assert ours == theirs


def test_accumulate_grad_is_shared_per_leaf(torch):
    def run(lib):
        a = lib.ones(2, requires_grad=True)
        y1, y2 = a * 2, a * 3
        return y1.grad_fn.next_functions[0][0] is y2.grad_fn.next_functions[0][0]
    assert both(torch, run) == (True, True)


def test_requires_grad_propagation(torch):
    def run(lib):
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2)
        return [(a + b).requires_grad, (b * 2).requires_grad, (b + b).is_leaf, (a + b).is_leaf,
                a.detach().requires_grad, (a > 0).requires_grad, a.argmax().requires_grad if hasattr(a, "argmax")
                else False]
    ours, theirs = both(torch, run)
    assert ours == theirs


def test_integer_tensors_cannot_require_grad(torch):
    raises_same(torch, lambda lib: lib.tensor([1, 2], requires_grad=True))
    raises_same(torch, lambda lib: lib.tensor([1, 2]).requires_grad_())


def test_non_leaf_requires_grad_false_raises(torch):
    def run(lib):
        a = lib.ones(2, requires_grad=True)
        b = a * 2
        b.requires_grad = False
    raises_same(torch, run)


# ---------------------------------------------------------------- backward and grad

def test_broadcast_gradients_have_input_shapes(torch):
    def run(lib):
        a = lib.ones(3, 1, 4, requires_grad=True)
        b = lib.tensor([[1., 2., 3., 4.], [5., 6., 7., 8.]], requires_grad=True)
        c = a + b
        (c * b).sum().backward()
        return c.shape, a.grad, b.grad
    ours, theirs = both(torch, run)
    assert tuple(ours[0]) == tuple(theirs[0]) == (3, 2, 4)
    assert_close(ours[1], theirs[1])
    assert_close(ours[2], theirs[2])


def test_mixed_dtype_gradients_have_input_dtypes(torch):
    def run(lib):
        a = lib.ones(3, dtype=lib.float32, requires_grad=True)
        b = lib.ones(3, dtype=lib.float64, requires_grad=True)
        y = (a * b).sum()
        y.backward()
        return y.dtype, a.grad.dtype, b.grad.dtype
    ours, theirs = both(torch, run)
    assert [str(x) for x in ours] == [str(x) for x in theirs]


def test_gradients_accumulate(torch):
    def run(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        for _ in range(3):
            (x * x).sum().backward()
        return x.grad
    ours, theirs = both(torch, run)
    assert_close(ours, theirs)


def test_backward_with_gradient_argument(torch):
    def run(lib):
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        y = x * x
        y.backward(lib.tensor([1., 0.5, 0.25]))
        return x.grad
    assert_close(*both(torch, run))


def test_backward_errors(torch):
    raises_same(torch, lambda lib: (lib.ones(3, requires_grad=True) * 2).backward())  # non-scalar
    raises_same(torch, lambda lib: lib.ones(3).sum().backward())  # no grad_fn
    raises_same(torch, lambda lib: (lib.ones(3, requires_grad=True) * 2).backward(lib.ones(2)))


def test_second_backward_needs_retain_graph(torch):
    def run(lib, retain):
        x = lib.tensor([1., 2.], requires_grad=True)
        y = (x * x).sum()
        y.backward(retain_graph=retain)
        y.backward()
        return x.grad
    assert_close(run(pt, True), run(torch, True))
    errs = raises_same(torch, lambda lib: run(lib, False))
    assert "second time" in str(errs[0])


def test_second_backward_without_saved_tensors_is_fine(torch):
    def run(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        y = (x + 1).sum()
        y.backward()
        y.backward()
        return x.grad
    assert_close(*both(torch, run))


def test_saved_tensors_are_freed(torch):
    x = pt.tensor([1., 2.], requires_grad=True)
    y = x * x
    y.sum().backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.grad_fn.saved_tensors


def test_backward_inputs_argument(torch):
    def run(lib):
        a = lib.tensor([1., 2.], requires_grad=True)
        b = lib.tensor([3., 4.], requires_grad=True)
        (a * b).sum().backward(inputs=[a])
        return a.grad, b.grad
    ours, theirs = both(torch, run)
    assert_close(ours[0], theirs[0])
    assert ours[1] is None and theirs[1] is None


def test_autograd_grad_basic_and_unused(torch):
    def run(lib):
        a = lib.tensor([1., 2.], requires_grad=True)
        b = lib.tensor([3., 4.], requires_grad=True)
        c = lib.tensor([5., 6.], requires_grad=True)
        y = (a * b).sum()
        ga, gc = lib.autograd.grad(y, [a, c], allow_unused=True)
        return ga, gc, a.grad
    ours, theirs = both(torch, run)
    assert_close(ours[0], theirs[0])
    assert ours[1] is None and theirs[1] is None and ours[2] is None
    raises_same(torch, lambda lib: lib.autograd.grad((lib.ones(2, requires_grad=True) * 2).sum(),
                                                     [lib.ones(2, requires_grad=True)]))


def test_autograd_grad_materialize(torch):
    def run(lib):
        a = lib.tensor([1., 2.], requires_grad=True)
        c = lib.tensor([5., 6.], requires_grad=True)
        return lib.autograd.grad((a * 2).sum(), [a, c], materialize_grads=True)
    ours, theirs = both(torch, run)
    for o, t in zip(ours, theirs):
        assert_close(o, t)


def test_grad_wrt_non_leaf(torch):
    def run(lib):
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        h = x * 2
        y = (h ** 2).sum()
        return lib.autograd.grad(y, h)[0]
    assert_close(*both(torch, run))


def test_higher_order_derivatives(torch):
    def run(lib):
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        y = (x ** 3 * x.sin()).sum()
        g, = lib.autograd.grad(y, x, create_graph=True)
        h, = lib.autograd.grad(g.sum(), x, create_graph=True)
        t, = lib.autograd.grad(h.sum(), x)
        return g, h, t, g.grad_fn is not None
    ours, theirs = both(torch, run)
    for o, t in zip(ours[:3], theirs[:3]):
        assert_close(o, t, rtol=1e-5)
    assert ours[3] and theirs[3]


def test_hessian_vector_product(torch):
    def run(lib):
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        f = (x[0] * x[1] ** 2 + x[2] ** 3 * x[0]) if hasattr(lib.Tensor, "__getitem__") and lib is torch else \
            (x.select(0, 0) * x.select(0, 1) ** 2 + x.select(0, 2) ** 3 * x.select(0, 0))
        g, = lib.autograd.grad(f, x, create_graph=True)
        v = lib.tensor([1., -1., 0.5])
        hv, = lib.autograd.grad((g * v).sum(), x)
        return hv
    assert_close(*both(torch, run))


def test_gradient_penalty(torch):
    def run(lib):
        w = lib.tensor([[0.5, -1.0], [2.0, 0.3]], requires_grad=True)
        x = lib.tensor([[1.0, 2.0]], requires_grad=True)
        out = (x @ w).tanh().sum() if hasattr(x, "__matmul__") and lib is torch else \
            ((x.t() * w).sum(0, keepdim=True)).tanh().sum()
        gx, = lib.autograd.grad(out, x, create_graph=True)
        penalty = ((gx.norm() - 1) ** 2) if lib is torch else ((((gx * gx).sum()).sqrt() - 1) ** 2)
        penalty.backward()
        return w.grad
    assert_close(*both(torch, run), rtol=1e-5)


def test_create_graph_accumulates_graph_into_grad(torch):
    def run(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        (x ** 3).sum().backward(create_graph=True)
        g = x.grad
        return g.requires_grad, g.grad_fn is not None
    ours, theirs = both(torch, run)
    assert ours == theirs


# ---------------------------------------------------------------- hooks

def test_tensor_hooks_leaf_and_non_leaf(torch):
    def run(lib):
        seen = []
        x = lib.tensor([1., 2.], requires_grad=True)
        h1 = x.register_hook(lambda g: seen.append(("x", g.tolist())) or g * 10)
        y = x * 3
        y.register_hook(lambda g: seen.append(("y", g.tolist())))
        y.sum().backward()
        h1.remove()
        x.grad = None
        (x * 3).sum().backward()
        return seen, x.grad.tolist()
    assert both(torch, run)[0] == both(torch, run)[1]


def test_hook_on_tensor_not_requiring_grad_raises(torch):
    raises_same(torch, lambda lib: lib.ones(2).register_hook(lambda g: g))


def test_retain_grad(torch):
    def run(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        y = x * 2
        y.retain_grad()
        (y * y).sum().backward()
        return y.grad, y.retains_grad, x.retains_grad
    ours, theirs = both(torch, run)
    assert_close(ours[0], theirs[0])
    assert ours[1:] == theirs[1:]


def test_non_leaf_grad_access_warns():
    x = pt.ones(2, requires_grad=True)
    y = x * 2
    with pytest.warns(UserWarning, match="not a leaf"):
        assert y.grad is None


def test_node_hooks(torch):
    def run(lib):
        log = []
        x = lib.tensor([1., 2.], requires_grad=True)
        y = x * 2
        y.grad_fn.register_prehook(lambda go: log.append(("pre", [g.tolist() for g in go])))
        y.grad_fn.register_hook(lambda gi, go: log.append(("post", [g.tolist() if g is not None else None
                                                                    for g in gi])))
        y.sum().backward()
        return log
    ours, theirs = both(torch, run)
    assert ours == theirs


def test_post_accumulate_grad_hook(torch):
    def run(lib):
        log = []
        x = lib.tensor([1., 2.], requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda t: log.append(t.grad.tolist()))
        (x * x).sum().backward()
        return log
    assert both(torch, run)[0] == both(torch, run)[1]


# ---------------------------------------------------------------- grad modes

def test_no_grad_enable_grad_set_grad_enabled(torch):
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        out = []
        with lib.no_grad():
            out.append((x * 2).requires_grad)
            with lib.enable_grad():
                out.append((x * 2).requires_grad)
            out.append(lib.is_grad_enabled())
        with lib.set_grad_enabled(False):
            out.append((x * 2).requires_grad)
        out.append(lib.is_grad_enabled())
        lib.set_grad_enabled(False)
        out.append(lib.is_grad_enabled())
        lib.set_grad_enabled(True)

        @lib.no_grad()
        def f():
            return (x * 2).requires_grad

        @lib.enable_grad()
        def g():
            return (x * 2).requires_grad
        out.append(f())
        with lib.no_grad():
            out.append(g())
        with lib.inference_mode():
            out.append((x * 2).requires_grad)
            out.append(lib.is_inference_mode_enabled())

        @lib.inference_mode()
        def h():
            return (x * 2).requires_grad
        out.append(h())
        return out
    ours, theirs = both(torch, run)
    assert ours == theirs


def test_no_grad_bare_decorator_and_generator():
    x = pt.ones(2, requires_grad=True)

    @pt.no_grad
    def f():
        return (x * 2).requires_grad

    @pt.no_grad()
    def gen():
        yield (x * 2).requires_grad
        yield (x * 3).requires_grad
    assert f() is False
    assert list(gen()) == [False, False]
    assert pt.is_grad_enabled()


# ---------------------------------------------------------------- in-place safety

def test_inplace_on_leaf_requiring_grad_raises(torch):
    errs = raises_same(torch, lambda lib: lib.ones(2, requires_grad=True).add_(1))
    assert str(errs[0]) == str(errs[1])


def test_inplace_on_leaf_under_no_grad_is_allowed(torch):
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        with lib.no_grad():
            x.mul_(3)
        return x.requires_grad, x.is_leaf, x._version
    assert both(torch, run)[0] == both(torch, run)[1]


def test_modified_saved_tensor_raises(torch):
    def run(lib):
        a = lib.tensor([1., 2.], requires_grad=True)
        b = a * 1
        c = b.sin()
        b.add_(1)
        c.sum().backward()
    errs = raises_same(torch, run)
    assert str(errs[0]) == str(errs[1])

    def square_inplace(lib):  # mul_(self) saves self by reference: the write invalidates it
        y = lib.tensor([1., 2.], requires_grad=True) * 2
        y.mul_(y)
        y.sum().backward()
    errs = raises_same(torch, square_inplace)
    assert str(errs[0]) == str(errs[1])


def test_version_counter_shared_with_views(torch):
    def run(lib):
        x = lib.zeros(4)
        v = x.view(2, 2)
        d = x.detach()
        before = (x._version, v._version)
        v.add_(1)
        d.mul_(2)
        return before, x._version, v._version, d._version, x.tolist()
    assert both(torch, run)[0] == both(torch, run)[1]


def test_inplace_on_non_leaf_records(torch):
    def run(lib):
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        y = x * 2
        y.mul_(lib.tensor([1., 2., 3.], requires_grad=True))  # keeps y's original values
        y.exp_()
        y.sum().backward()
        return y.grad_fn.name(), x.grad
    ours, theirs = both(torch, run)
    assert ours[0] == theirs[0]
    assert_close(ours[1], theirs[1], rtol=1e-5)


def test_inplace_on_view_of_non_leaf(torch):
    def run(lib):
        x = lib.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
        w = lib.tensor([10., 20., 30.], requires_grad=True)
        y = x * 2
        v = y.select(0, 1)
        v.mul_(w)
        (y * y).sum().backward()
        return y.grad_fn.name(), x.grad, w.grad
    ours, theirs = both(torch, run)
    assert ours[0] == theirs[0]
    assert_close(ours[1], theirs[1])
    assert_close(ours[2], theirs[2])


def test_inplace_on_view_of_leaf_raises(torch):
    raises_same(torch, lambda lib: lib.ones(2, 2, requires_grad=True).select(0, 0).mul_(2))


def test_inplace_dtype_and_shape_errors_change_nothing(torch):
    for fn in (lambda lib, x: x.add_(1.5),
               lambda lib, x: x.add_(lib.ones(2, 3, dtype=lib.int64))):
        for lib in (pt, torch):
            x = lib.tensor([1, 2, 3])
            with pytest.raises(RuntimeError):
                fn(lib, x)
            assert x.tolist() == [1, 2, 3] and x._version == 0


def test_write_into_expanded_tensor_raises(torch):
    raises_same(torch, lambda lib: lib.ones(1, 3).expand(2, 3).add_(1))


# ---------------------------------------------------------------- custom Functions

class Cube(pt.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * 3 * x ** 2


def test_custom_function():
    x = pt.tensor([1., 2.], requires_grad=True)
    y = Cube.apply(x)
    assert y.grad_fn.name() == "CubeBackward"
    assert type(y.grad_fn).__name__ == "CubeBackward"
    y.sum().backward()
    assert x.grad.tolist() == [3., 12.]
    assert pt.autograd.gradcheck(Cube.apply, (pt.tensor([0.3, -1.2], dtype=pt.float64, requires_grad=True),))
    assert pt.autograd.gradgradcheck(Cube.apply, (pt.tensor([0.3, -1.2], dtype=pt.float64, requires_grad=True),))


def test_custom_function_ctx_features(torch):
    def make(lib):
        class Split2(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                ctx.k = k
                ctx.mark_non_differentiable  # exists
                idx = (x > 0)
                ctx.mark_non_differentiable(idx)
                ctx.save_for_backward(x)
                return x * k, idx

            @staticmethod
            def backward(ctx, g, g_idx):
                assert ctx.needs_input_grad[0] and not ctx.needs_input_grad[1]
                return g * ctx.k, None
        return Split2

    def run(lib):
        Fn = make(lib)
        x = lib.tensor([-1., 2.], requires_grad=True)
        y, idx = Fn.apply(x, 3.0)
        y.sum().backward()
        return x.grad.tolist(), idx.requires_grad, y.grad_fn.name()
    ours, theirs = both(torch, run)
    assert ours == theirs


def test_custom_function_mark_dirty(torch):
    def make(lib):
        class Double_(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2
        return Double_

    def run(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        y = x * 1
        z = make(lib).apply(y)
        z.sum().backward()
        return z is y, x.grad.tolist(), y._version
    assert both(torch, run)[0] == both(torch, run)[1]


def test_custom_function_wrong_number_of_grads(torch):
    def make(lib):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, g):
                return g
        return Bad

    def run(lib):
        x = lib.ones(2, requires_grad=True)
        make(lib).apply(x, x).sum().backward()
    raises_same(torch, run)


# ---------------------------------------------------------------- gradcheck and anomaly

def test_gradcheck_detects_wrong_gradient():
    class Wrong(pt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g * 3
    x = pt.tensor([0.5, 1.0], dtype=pt.float64, requires_grad=True)
    assert pt.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False) is False
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        pt.autograd.gradcheck(Wrong.apply, (x,))


def test_detect_anomaly_names_forward_op():
    class NanBackward(pt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")
    x = pt.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with pt.autograd.detect_anomaly():
            y = NanBackward.apply(x).sum()
            with pytest.raises(RuntimeError, match="NanBackwardBackward' returned nan values in its 0th output"):
                y.backward()
    assert any("Traceback of forward call" in str(m.message) for m in w)
    assert not pt.autograd.is_anomaly_enabled()


def test_anomaly_message_matches_torch(torch):
    def run(lib):
        x = lib.tensor([0.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly():
                (x.sqrt() * 0).sum().backward()  # 0 * inf = nan in SqrtBackward0
    errs = raises_same(torch, run)
    assert str(errs[0]) == str(errs[1])


# ---------------------------------------------------------------- numpy / detach

def test_numpy_shares_memory_and_refuses_grad(torch):
    x = pt.zeros(3)
    a = x.numpy()
    a[0] = 5
    assert x[0].item() == 5 if hasattr(pt.Tensor, "__getitem__") else True
    assert x.tolist()[0] == 5
    raises_same(torch, lambda lib: lib.ones(2, requires_grad=True).numpy())


def test_detach_shares_memory():
    x = pt.ones(3, requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.data_ptr() == x.data_ptr()
    with pt.no_grad():
        d.mul_(4)
    assert x.tolist() == [4., 4., 4.]


def test_inference_tensors(torch):
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        with lib.inference_mode():
            y = x * 2
            z = lib.zeros(2)
        out = [y.is_inference(), z.is_inference(), x.is_inference(), y.requires_grad]
        with lib.no_grad():
            out.append((x * 2).is_inference())
        return out
    assert run(pt) == run(torch)
    raises_same(torch, lambda lib: _inference(lib).add_(1))
    raises_same(torch, lambda lib: (lib.ones(2, requires_grad=True) * _inference(lib)).sum().backward())


def _inference(lib):
    with lib.inference_mode():
        return lib.ones(2) * 2


def test_leaf_grads_never_alias():
    """A gradient becomes .grad without a copy only when nothing else holds it."""
    a, b = pt.ones(3, requires_grad=True), pt.ones(3, requires_grad=True)
    (a + b).sum().backward()          # AddBackward0 sends one tensor to both leaves
    assert a.grad.data_ptr() != b.grad.data_ptr()
    kept = []
    c = pt.ones(3, requires_grad=True)
    c.register_hook(lambda g: kept.append(g))
    (c * 3).sum().backward()
    assert kept[0].data_ptr() != c.grad.data_ptr()
    seed = pt.ones(3)
    d = pt.ones(3, requires_grad=True)
    d.backward(seed)
    assert d.grad.data_ptr() != seed.data_ptr()
    with pt.no_grad():
        a.grad.zero_()
    assert b.grad.tolist() == [1.0, 1.0, 1.0]
    w = pt.ones(3, 4, requires_grad=True)
    (pt.ones(2, 3) @ w).sum().backward()
    assert w.grad.tolist() == [[2.0] * 4] * 3


def test_legacy_variable():
    from pedatorch.autograd import Variable
    x = Variable(pt.ones(2), requires_grad=True)
    assert x.requires_grad and x.is_leaf and isinstance(x, Variable) and isinstance(pt.ones(1), Variable)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
