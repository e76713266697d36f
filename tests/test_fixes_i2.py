"""Fuzz round 3 (helper I2): layer_norm's dtype checks, one_hot's size overflow, rsub's layout,
view_as_real/view_as_complex as recorded views, complex() from its parts, and complex gradients
(gradcheck's Wirtinger check, and the conjugates it found missing). Each compared with PyTorch."""
import math

import numpy as np
import pytest

import pedatorch
from pedatorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")


def _outcome(mod, fn):
    """What fn(mod) gives: its value (as numpy), or the class and message of what it raised."""
    try:
        r = fn(mod)
    except Exception as e:   # noqa: BLE001 (the comparison is the point)
        return type(e).__name__, str(e)
    return "ok", np.asarray(r.detach().double().tolist())


def _same(fn):
    a, b = _outcome(pedatorch, fn), _outcome(torch, fn)
    assert a[0] == b[0], (a, b)
    if a[0] == "ok":
        np.testing.assert_allclose(a[1], b[1], rtol=1e-6, atol=1e-6)
    else:
        assert a[1] == b[1]


# ---------------------------------------------------------------------------------------- layer_norm

_LN_CASES = [
    # seed 1104844: a shape error comes before the integer kernel's
    lambda t: t.nn.functional.layer_norm(t.ones(2, 1, 1, dtype=t.int64), (2, 2)),
    lambda t: t.nn.functional.layer_norm(t.ones(2, 1, 1, dtype=t.int64), (1, 1)),
    lambda t: t.nn.functional.layer_norm(t.ones(0, 2, dtype=t.int64), (2,)),
    lambda t: t.nn.functional.layer_norm(t.ones(2, 1, 1, dtype=t.int64), (2, 2), t.ones(2, dtype=t.int64)),
    # the mixed-dtype check (parameters first, then the input) comes before everything
    lambda t: t.nn.functional.layer_norm(t.ones(2, 1, 1, dtype=t.int64), (2, 2), t.ones(2)),
    lambda t: t.nn.functional.layer_norm(t.ones(2, 3), (3,), t.ones(3, dtype=t.float64)),
    lambda t: t.nn.functional.layer_norm(t.ones(2, 3), (3,), None, t.ones(3, dtype=t.int64)),
    lambda t: t.nn.functional.layer_norm(t.ones(2, 3, dtype=t.float64), (3,), None, t.ones(3)),
    lambda t: t.nn.functional.layer_norm(t.ones(2, 3).half(), (3,), t.ones(3), t.ones(3).half()),
    lambda t: t.nn.functional.layer_norm(t.tensor([[1., 2., 4.]]).bfloat16(), (3,), t.ones(3), t.zeros(3)),
    # not mixed (the first parameter has the input's dtype): the kernel reads the others as its dtype
    lambda t: t.nn.functional.layer_norm(t.ones(2, 3), (3,), t.ones(3), t.ones(3, dtype=t.float64)),
    lambda t: t.nn.functional.layer_norm(t.ones(2, 3).half(), (3,), t.ones(3).half(), t.ones(3)),
    lambda t: t.nn.functional.layer_norm(t.ones(2, 3, dtype=t.int64), (3,), t.ones(3, dtype=t.int64),
                                         t.ones(3)),
]


@pytest.mark.parametrize("case", range(len(_LN_CASES)))
def test_layer_norm_dtype_checks_match_torch(case):
    _same(_LN_CASES[case])


# ---------------------------------------------------------------------------------------- one_hot

@pytest.mark.parametrize("values, num_classes", [
    ([[2 ** 63 - 1]], -1),     # seed 1109510: max + 1 wraps around in int64
    ([2 ** 63 - 2], -1),       # a size too large to address
    ([1], 2 ** 63 - 1),
    ([2], 3), ([2], 2), ([], 3),
])
def test_one_hot_sizes_match_torch(values, num_classes):
    _same(lambda t: t.nn.functional.one_hot(t.tensor(values, dtype=t.int64), num_classes))


# ---------------------------------------------------------------------------------------- rsub layout

def test_rsub_layout_follows_other_first():
    # seed 1104596: ATen's rsub is sub(other, self), so other's layout wins a tie
    for mod in (pedatorch, torch):
        a, b = mod.zeros(3, 4).t(), mod.zeros(4, 3)
        got = [mod.rsub(a, b).stride(), mod.rsub(b, a).stride(), mod.rsub(a, b, alpha=2).stride(),
               mod.rsub(a.long(), b).stride(), mod.rsub(a, b.long()).stride(), mod.rsub(a, 2).stride()]
        if mod is pedatorch:
            mine = got
    assert mine == got


# ---------------------------------------------------------------------------------------- view_as_real/complex

def _layout(mod, f):
    try:
        r = f(mod)
    except Exception as e:   # noqa: BLE001
        return type(e).__name__, str(e)
    return (tuple(r.shape), r.stride(), r.storage_offset(), str(r.dtype).split(".")[-1],
            type(r.grad_fn).__name__ if r.grad_fn else None, r._base is not None)


_ZS = lambda t: t.complex(t.arange(12.).reshape(3, 4), t.ones(3, 4))   # noqa: E731
_RS = lambda t: t.arange(24.).reshape(3, 4, 2)                          # noqa: E731
_VIEW_CASES = [
    lambda t: t.view_as_real(_ZS(t)),
    lambda t: t.view_as_real(_ZS(t).t()),
    lambda t: t.view_as_real(_ZS(t)[:, 1::2]),
    lambda t: t.view_as_real(_ZS(t)[1, 2]),
    lambda t: t.view_as_real(_ZS(t).requires_grad_() * 1),
    lambda t: t.view_as_real(t.ones(3)),
    lambda t: t.view_as_complex(_RS(t)),
    lambda t: t.view_as_complex(_RS(t)[:, ::2]),
    lambda t: t.view_as_complex(_RS(t).transpose(0, 1)),
    lambda t: t.view_as_complex(_RS(t).reshape(12, 2)[1::3]),
    lambda t: t.view_as_complex(_RS(t).reshape(-1)[1:23].reshape(11, 2)),
    lambda t: t.view_as_complex(_RS(t).reshape(4, 3, 2).transpose(0, 2)),
    lambda t: t.view_as_complex(_RS(t)[..., :1]),
    lambda t: t.view_as_complex(_RS(t).reshape(-1)[:21].reshape(3, 7)[:, :2]),
    lambda t: t.view_as_complex(_RS(t).long()),
    lambda t: t.view_as_complex(t.tensor(1.)),
    lambda t: t.view_as_complex(_RS(t).requires_grad_() * 1),
    lambda t: t.view_as_complex(t.zeros(3, 0, 2)),
]


@pytest.mark.parametrize("case", range(len(_VIEW_CASES)))
def test_view_as_real_complex_match_torch(case):
    assert _layout(pedatorch, _VIEW_CASES[case]) == _layout(torch, _VIEW_CASES[case])


def test_view_as_real_complex_share_memory_and_gradients():
    z0 = np.array([[1 + 2j, -0.5 + 0.3j], [2 - 1j, 0.7 + 0.1j]])
    z = pedatorch.tensor(z0)
    v = pedatorch.view_as_real(z)
    v[0, 0, 1] = 5.
    pedatorch.view_as_complex(v)[1, 1] = 2 + 3j
    assert z[0, 0].item() == 1 + 5j and z[1, 1].item() == 2 + 3j
    zz = pedatorch.tensor(z0, requires_grad=True)
    assert gradcheck(pedatorch.view_as_real, (zz,))
    assert gradgradcheck(lambda a: pedatorch.view_as_real(a) ** 3, (zz,))
    x = pedatorch.tensor(np.array([[1., 2.], [0.5, -1.], [3., 0.2]]), requires_grad=True)
    assert gradcheck(pedatorch.view_as_complex, (x,))
    assert gradgradcheck(lambda a: pedatorch.view_as_complex(a * a) ** 2, (x,))


def test_view_as_real_on_device(device):
    z = pedatorch.tensor(np.array([[1 + 2j, 3 - 1j], [0.5j, 2.]]), device=device)
    v = pedatorch.view_as_real(z.t())
    assert v.stride() == (2, 4, 1) and v.device.type == device.split(":")[0]
    assert pedatorch.view_as_complex(pedatorch.view_as_real(z)).cpu().tolist() == z.cpu().tolist()


# ---------------------------------------------------------------------------------------- complex() / polar()

def test_complex_and_polar_build_from_parts():
    inf, nan = math.inf, math.nan
    re, im = [1., inf, -inf, nan, 0., 2.], [inf, 1., -inf, 0., nan, -0.]
    for fn in (lambda t: t.complex(t.tensor(re), t.tensor(im)),
               lambda t: t.complex(t.tensor(re, dtype=t.float64)[:, None], t.tensor(im, dtype=t.float64)[:3]),
               lambda t: t.polar(t.tensor([inf, inf, 1., inf]), t.tensor([0., math.pi / 2, inf, -0.]))):
        mine, theirs = fn(pedatorch), fn(torch)
        assert mine.dtype.__repr__().split(".")[-1] == str(theirs.dtype).split(".")[-1]
        np.testing.assert_array_equal(mine.numpy(), theirs.numpy())   # (NaN in the same places; -0. too)
        np.testing.assert_array_equal(np.signbit(mine.numpy().imag), np.signbit(theirs.numpy().imag))


def test_complex_on_device(device):
    r = pedatorch.complex(pedatorch.tensor([1., math.inf], device=device), pedatorch.tensor([math.inf, 2.],
                                                                                            device=device))
    assert r.cpu().tolist() == [complex(1, math.inf), complex(math.inf, 2)]


# ---------------------------------------------------------------------------------------- complex gradients

_Z = np.array([0.4 + 0.2j, -0.5 + 0.3j, 0.2 - 0.6j])
_W = np.array([1 + 0.5j, -0.3 + 1j, 0.7 - 0.2j])
_UNARY = "exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos atan sinh cosh tanh asinh " \
         "acosh atanh sigmoid reciprocal sinc abs sgn angle square".split()


@pytest.mark.parametrize("name", _UNARY)
def test_complex_unary_gradients_match_torch(name):
    """Autograd's gradient of a real function of complex z is grad * conj(f'(z)) (PyTorch's convention)."""
    def grads(mod):
        z = mod.tensor(_Z, requires_grad=True)
        y = getattr(mod, name)(z)
        g, = mod.autograd.grad((y * mod.tensor(_W)).real.sum(), z, create_graph=True)
        gg, = mod.autograd.grad((g * g.conj()).real.sum(), z)
        return g.detach().resolve_conj().numpy(), gg.resolve_conj().numpy()
    for a, b in zip(grads(pedatorch), grads(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    z = pedatorch.tensor(_Z, requires_grad=True)
    assert gradcheck(getattr(pedatorch, name), (z,))
    assert gradgradcheck(getattr(pedatorch, name), (z,))


_A = np.array([[1 + 2j, -0.5 + 0.3j], [2 - 1j, 0.7 + 0.1j]])
_B = np.array([[0.3 - 1j, 2 + 0.5j], [-1 + 1j, 0.4 - 0.2j]])
_FUNCS = {
    "conj_product": lambda t, a, b: a * a.conj(), "mul": lambda t, a, b: a * b, "div": lambda t, a, b: a / b,
    "pow3": lambda t, a, b: a ** 3, "pow2": lambda t, a, b: a ** 2, "pow_tensor": lambda t, a, b: a ** b,
    "rpow": lambda t, a, b: 2 ** a, "prod": lambda t, a, b: a.prod(), "prod_dim": lambda t, a, b: a.prod(1),
    "prod_zero": lambda t, a, b: (a * t.tensor([[1., 0.], [1., 1.]])).prod(0),
    "cumprod": lambda t, a, b: a.cumprod(0), "addcmul": lambda t, a, b: t.addcmul(a, b, a, value=2),
    "addcdiv": lambda t, a, b: t.addcdiv(a, a, b, value=0.5), "matmul": lambda t, a, b: a @ b,
    "sum": lambda t, a, b: a.sum(), "complex_parts": lambda t, a, b: t.complex(a.real, b.imag * 2),
}


@pytest.mark.parametrize("name", sorted(_FUNCS))
def test_complex_gradcheck_passes_where_torch_does(name):
    f = _FUNCS[name]
    for mod in (pedatorch, torch):
        a, b = mod.tensor(_A, requires_grad=True), mod.tensor(_B, requires_grad=True)
        assert mod.autograd.gradcheck(lambda x, y: f(mod, x, y), (a, b))
        assert mod.autograd.gradgradcheck(lambda x, y: f(mod, x, y), (a, b))


def test_gradcheck_catches_a_missing_conjugate():
    """The check is a real one: a backward without the conjugate (the old exp's) fails it."""
    class BadExp(pedatorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            y, = ctx.saved_tensors
            return grad * y
    z = pedatorch.tensor(_Z, requires_grad=True)
    assert gradcheck(pedatorch.exp, (z,))
    assert not gradcheck(BadExp.apply, (z,), raise_exception=False)
    from pedatorch.autograd.gradcheck import GradcheckError
    with pytest.raises(GradcheckError, match="imag parts"):
        gradcheck(BadExp.apply, (z,))
