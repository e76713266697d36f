"""Leftovers of the fuzz fixes, compared with PyTorch 2.13: result layouts (vector_norm, tril/triu, roll,
the random *_like factories), one vector_norm for torch.norm and torch.linalg.vector_norm, and the order in
which two-input backwards compute their gradients (with create_graph it numbers the new nodes, which
orders a double backward's rounded sums)."""
import math

import numpy as np
import pytest

import pedatorch
from pedatorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

LIBS = (torch, pedatorch)

# (shape, permutation) of arange tensors: transposed, size-1 dims with odd strides, empty ones
LAYOUTS = [((3, 4), None), ((3, 4), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((3, 1, 4), (1, 0, 2)), ((4, 1), (1, 0)),
           ((2, 1, 3), (2, 1, 0)), ((2, 1, 3), (2, 0, 1)), ((1, 4, 1), (2, 1, 0)), ((4, 3, 2), (0, 2, 1)),
           ((0, 3), None), ((3, 0), (1, 0)), ((2, 0, 1), (1, 0, 2))]


def _make(lib, shape, perm, dtype="float32"):
    x = lib.arange(float(math.prod(shape)), dtype=getattr(lib, dtype)).reshape(shape)
    return x.permute(perm) if perm else x


def _both(fn):
    """fn(lib) for torch and pedatorch: (result, result) or (exception text, exception text)."""
    out = []
    for lib in LIBS:
        try:
            out.append(fn(lib))
        except Exception as e:   # noqa: BLE001 (the class and message are compared)
            out.append(f"{type(e).__name__}: {e}")
    return out


# ---------------------------------------------------------------------- vector_norm: one op, its layout

def test_one_vector_norm():
    from pedatorch.ops import reduction
    assert pedatorch.linalg.vector_norm.__wrapped__ is reduction.vector_norm   # (wrapped for __torch_function__)


@pytest.mark.parametrize("shape,perm", LAYOUTS[:9])
def test_vector_norm_result_is_contiguous(shape, perm):
    for f in (lambda L, x: L.linalg.vector_norm(x, dim=1, keepdim=True),
              lambda L, x: L.linalg.vector_norm(x, 3, dim=-1),
              lambda L, x: L.norm(x, 2, dim=0, keepdim=True)):
        a, b = _both(lambda L: f(L, _make(L, shape, perm)).stride())
        assert a == b


def test_vector_norm_dtype_casts_inside_the_op():
    for f in (lambda L, x: L.linalg.vector_norm(x, 3, dtype=L.float64), lambda L, x: L.norm(x, 2, dtype=L.float64),
              lambda L, x: x.norm(1, dtype=L.float64)):
        names = []
        for lib in LIBS:
            x = lib.arange(1., 7.).reshape(2, 3).requires_grad_()
            r = f(lib, x)
            r.backward()
            names.append((r.dtype.__repr__(), r.grad_fn.name(), [n.name() for n, _ in r.grad_fn.next_functions],
                          x.grad.dtype.__repr__(), np.round(np.array(x.grad.tolist()), 6).tolist()))
        assert names[0] == names[1]


VN_ERRORS = {
    "complex_dtype": lambda L: L.linalg.vector_norm(L.ones(3), dtype=L.complex64),
    "norm_complex_dtype": lambda L: L.norm(L.ones(3), dtype=L.complex64),
    "real_dtype_for_complex": lambda L: L.linalg.vector_norm(L.ones(3, dtype=L.complex64), dtype=L.float64),
    "int_dtype": lambda L: L.norm(L.ones(3), dtype=L.int64),
    "narrowing": lambda L: L.norm(L.ones(3, dtype=L.float64), dtype=L.float32),
    "int_input": lambda L: L.norm(L.ones(2, 2, dtype=L.int64)),
    "empty_dim_tuple": lambda L: L.norm(L.zeros(0, 3), math.inf, dim=()),
    "empty_dim": lambda L: L.linalg.vector_norm(L.zeros(0, 3), -1, dim=0),
    "empty_neg_dim": lambda L: L.linalg.vector_norm(L.zeros(3, 0), -0.5, dim=-1),
    "empty_float_ord": lambda L: L.linalg.vector_norm(L.zeros(3, 0), -1e8),
    "empty_third": lambda L: L.linalg.vector_norm(L.zeros(3, 0), -1 / 3),
    "empty_int_ord": lambda L: L.linalg.vector_norm(L.zeros(3, 0), -100000000),
    "empty_before_dtype": lambda L: L.linalg.vector_norm(L.zeros(3, 0), -1, dtype=L.int64),
    "dtype_before_dim": lambda L: L.linalg.vector_norm(L.zeros(3, 1), -1, dim=4, dtype=L.int64),
    "0d_dim_1": lambda L: L.linalg.vector_norm(L.tensor(3.), dim=1),
    "0d_dim_0": lambda L: L.linalg.vector_norm(L.tensor(3.), dim=0).item(),
    "tensor_ord": lambda L: round(L.linalg.vector_norm(L.arange(4.), L.tensor(3.)).item(), 5),
    "matrix_norm_order": lambda L: L.linalg.matrix_norm(L.ones(2, 2), 1 / 3),
    "matrix_norm_dtype": lambda L: L.linalg.matrix_norm(L.ones(2, 2), dtype=L.complex64),
}


@pytest.mark.parametrize("name", VN_ERRORS)
def test_vector_norm_checks(name):
    a, b = _both(VN_ERRORS[name])
    assert a == b


def test_vector_norm_dtype_gradcheck():
    x = pedatorch.rand(2, 3, dtype=pedatorch.float32, requires_grad=True)
    r = pedatorch.linalg.vector_norm(x, 3, dim=1, dtype=pedatorch.float64)
    assert r.dtype == pedatorch.float64 and r.grad_fn.next_functions[0][0].name().endswith("AccumulateGrad")
    xd = x.detach().double().requires_grad_()
    assert gradcheck(lambda t: pedatorch.norm(t, 3, dim=1, dtype=pedatorch.float64), (xd,))
    assert gradgradcheck(lambda t: pedatorch.linalg.vector_norm(t, 3, dim=1, dtype=pedatorch.float64), (xd,))


# ---------------------------------------------------------------------- tril/triu, roll

@pytest.mark.parametrize("shape,perm", LAYOUTS)
def test_tril_triu_roll_strides(shape, perm):
    fns = [lambda x: x.roll(1, 0), lambda x: x.roll(2, -1), lambda x: x.roll(1), lambda x: x.roll((1, 1), (0, -1))]
    if len(shape) >= 2:
        fns += [lambda x: x.tril(), lambda x: x.triu(1), lambda x: x.tril(-1).triu(-2)]
    for f in fns:
        a, b = _both(lambda L: (f(_make(L, shape, perm)).stride(), f(_make(L, shape, perm)).tolist()))
        assert a == b


def test_roll_of_empty_keeps_grad_fn():
    a, b = _both(lambda L: L.zeros(3, 0, requires_grad=True).T.roll(1, 0).grad_fn.name())
    assert a == b == "RollBackward0"


# ---------------------------------------------------------------------- rand_like and co

@pytest.mark.parametrize("shape,perm", LAYOUTS[:10])
@pytest.mark.parametrize("fn,dtype", [("rand_like", "float32"), ("rand_like", "float64"),
                                      ("rand_like", "complex64"), ("randn_like", "float32"),
                                      ("randn_like", "complex128"), ("randint_like", "int64"),
                                      ("randint_like", "float32")])
def test_random_like_keeps_layout(shape, perm, fn, dtype):
    def draw(L):
        L.manual_seed(7)
        r = getattr(L, fn)(_make(L, shape, perm).to(getattr(L, dtype)), *((2, 9) if fn == "randint_like" else ()))
        v = r.real if r.is_complex() else r
        w = r.imag if r.is_complex() else r
        return r.stride(), r.dtype.__repr__(), v.tolist(), w.tolist()
    a, b = _both(draw)
    assert a == b


def test_random_like_memory_format_and_flags():
    def f(L):
        x = L.zeros(2, 3, 4, 5)
        return (L.rand_like(x, memory_format=L.channels_last).stride(),
                L.randn_like(x.permute(0, 2, 3, 1), memory_format=L.contiguous_format).stride(),
                L.randn_like(x, dtype=L.float64, requires_grad=True).requires_grad,
                L.randint_like(x, 4, dtype=L.int32).dtype.__repr__(),
                L.rand_like(L.zeros(3), requires_grad=True).grad_fn)
    a, b = _both(f)
    assert a == b
    for f in (lambda L: L.rand_like(L.zeros(3, dtype=L.int64)), lambda L: L.randn_like(L.zeros(3, dtype=L.int64))):
        a, b = _both(f)
        assert a == b and a.startswith("NotImplementedError")


def test_empty_like_of_empty_preserves_strides():
    for f in (lambda L: L.empty_like(L.zeros(3, 0).T).stride(), lambda L: L.zeros_like(L.zeros(3, 0, 2).permute(2, 1, 0)).stride(),
              lambda L: L.full_like(L.zeros(3, 0).T, 2.0).stride()):
        a, b = _both(f)
        assert a == b


# ---------------------------------------------------------------------- node order of two-input backwards

def _new_nodes(g, floor):
    seen, out, stack = set(), [], [g.grad_fn]
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        if floor < n._sequence_nr() < 1 << 62:   # (not AccumulateGrad)
            out.append(n._sequence_nr())
        stack.extend(f for f, _ in n.next_functions)
    return out


TWO_INPUT = {
    "xlog1py": (lambda L, a, b: L.special.xlog1py(a, b), (4,)),
    "cross": (lambda L, a, b: L.cross(a, b, dim=1), (3, 3)),
    "linalg_cross": (lambda L, a, b: L.linalg.cross(a, b), (2, 3)),
    "complex": (lambda L, a, b: L.complex(a, b), (4,)),
    "polar": (lambda L, a, b: L.polar(a, b), (4,)),
}


@pytest.mark.parametrize("name", TWO_INPUT)
def test_gradient_order(name):
    f, shape = TWO_INPUT[name]

    def order(L):
        L.manual_seed(0)
        a = L.rand(shape, dtype=L.float64).requires_grad_()
        b = L.rand(shape, dtype=L.float64).requires_grad_()
        y = f(L, a, b)
        gy = L.ones_like(y).requires_grad_()
        floor = y.grad_fn._sequence_nr()
        ga, gb = L.autograd.grad(y, (a, b), gy, create_graph=True)
        na, nb = _new_nodes(ga, floor), _new_nodes(gb, floor)
        # which gradient's own first node came first (PyTorch's real(grad) is two nodes, pedatorch's one:
        # the counts may differ)
        only_a, only_b = set(na) - set(nb), set(nb) - set(na)
        return y.grad_fn.name(), min(only_a) < min(only_b)
    a, b = _both(order)
    assert a == b


@pytest.mark.parametrize("name", TWO_INPUT)
def test_two_input_gradients(name):
    f, shape = TWO_INPUT[name]
    pedatorch.manual_seed(1)
    a = (pedatorch.rand(shape, dtype=pedatorch.float64) + 0.5).requires_grad_()
    b = (pedatorch.rand(shape, dtype=pedatorch.float64) + 0.5).requires_grad_()
    fn = (lambda x, y: f(pedatorch, x, y))
    if name in ("complex", "polar"):   # real-valued outputs for the checks
        fn = (lambda x, y: (lambda z: pedatorch.stack([z.real, z.imag]))(f(pedatorch, x, y)))
    assert gradcheck(fn, (a, b))
    assert gradgradcheck(fn, (a, b))
    # the values of both gradients, against PyTorch's
    ours = pedatorch.autograd.grad(fn(a, b).sum(), (a, b))
    ta, tb = (torch.tensor(t.detach().numpy(), requires_grad=True) for t in (a, b))
    tfn = f if name not in ("complex", "polar") else (lambda L, x, y: (lambda z: torch.stack([z.real, z.imag]))(f(L, x, y)))
    theirs = torch.autograd.grad(tfn(torch, ta, tb).sum(), (ta, tb))
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-12, atol=1e-12)


COMPLEX_CHECKS = {
    "int": lambda L: L.complex(L.ones(2, dtype=L.int64), L.ones(2, dtype=L.int64)),
    "mixed": lambda L: L.complex(L.ones(2), L.ones(2, dtype=L.float64)),
    "float_int": lambda L: L.complex(L.ones(2), L.ones(2, dtype=L.int64)),
    "bfloat16": lambda L: L.complex(L.ones(2, dtype=L.bfloat16), L.ones(2, dtype=L.bfloat16)),
    "number": lambda L: L.complex(L.ones(2), 1.0),
    "polar_int": lambda L: L.polar(L.ones(2, dtype=L.int64), L.ones(2, dtype=L.int64)),
    "polar_mixed": lambda L: L.polar(L.ones(2), L.ones(2, dtype=L.float64)),
    "polar_half": lambda L: L.polar(L.ones(2, dtype=L.float16), L.ones(2, dtype=L.float16)),
    "polar_number": lambda L: L.polar(L.ones(2), 1.0),
    "layout": lambda L: (L.complex(L.ones(3, 4).T, L.ones(3, 4).T).stride(), L.polar(L.ones(3, 4).T, L.ones(3, 4).T).stride()),
    "broadcast": lambda L: (tuple(L.complex(L.ones(2, 1), L.ones(3)).shape), tuple(L.polar(L.ones(2, 1), L.ones(3)).shape)),
    "dtype": lambda L: (L.complex(L.ones(2, dtype=L.float64), L.ones(2, dtype=L.float64)).dtype.__repr__(),
                        L.polar(L.ones(2), L.ones(2)).dtype.__repr__()),
    "values": lambda L: [round(v, 12) for v in L.view_as_real(L.polar(L.tensor([2.0, -1.0], dtype=L.float64),
                                                                       L.tensor([0.5, 3.0], dtype=L.float64))).flatten().tolist()],
}


@pytest.mark.parametrize("name", COMPLEX_CHECKS)
def test_complex_and_polar_match(name):
    a, b = _both(COMPLEX_CHECKS[name])
    assert a == b


# ---------------------------------------------------------------------- the same on a (stand-in) CUDA device

def test_touched_ops_on_device(device):
    P = pedatorch
    layouts = [
        lambda L, x: L.linalg.vector_norm(x, 3, dim=1, keepdim=True, dtype=L.float64), lambda L, x: L.norm(x, 2, dim=0, keepdim=True),
        lambda L, x: x.tril(), lambda L, x: x.roll(1, 0), lambda L, x: L.zeros(3, 0, device=x.device).T.roll(1, 0),
        lambda L, x: L.rand_like(x), lambda L, x: L.randn_like(x), lambda L, x: L.randint_like(x, 5),
        lambda L, x: L.complex(x, x), lambda L, x: L.polar(x, x),
    ]
    for f in layouts:
        ours = f(P, P.arange(24.).reshape(2, 3, 4).permute(2, 0, 1).to(device))
        theirs = f(torch, torch.arange(24.).reshape(2, 3, 4).permute(2, 0, 1))
        assert ours.device.type == device and ours.stride() == theirs.stride()
    x = P.arange(24.).reshape(2, 3, 4).permute(2, 0, 1).to(device).requires_grad_()
    a = P.rand(2, 3, device=device, requires_grad=True)
    outs = [P.linalg.vector_norm(x, dtype=P.float64), P.special.xlog1py(a, a).sum(), P.linalg.cross(a, a.flip(0)).sum(),
            P.complex(a, a).abs().sum(), P.polar(a, a).real.sum()]
    for out in outs:
        out.backward()
    assert x.grad.device.type == device and a.grad.device.type == device


def test_random_like_result_is_a_fresh_tensor():
    def f(L):
        x = L.zeros(3, 4).T
        return [L.rand_like(x)._version, L.randn_like(x)._version, L.randint_like(x, 3)._version,
                L.rand_like(x.requires_grad_()).requires_grad, L.rand_like(x, requires_grad=True).is_leaf]
    a, b = _both(f)
    assert a == b


@pytest.mark.parametrize("make", [
    lambda L: L.randint_like(L.zeros(3, dtype=L.int64), 5, requires_grad=True),
    lambda L: L.zeros(3, dtype=L.int64, requires_grad=True), lambda L: L.tensor([1], requires_grad=True),
    lambda L: L.ones_like(L.zeros(2, dtype=L.int64), requires_grad=True), lambda L: L.arange(3, requires_grad=True),
])
def test_factory_refuses_grad_for_integers(make):
    a, b = _both(make)
    assert a == b
