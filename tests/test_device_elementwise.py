"""Elementwise, special-function and activation ops on every device (issue 10): on "cuda" (a GPU, or the
stand-in backend without one) each op gives the CPU's values, and its result and its input gradients stay
on the device. Forward and backward, compared with the same op run on the CPU."""
import numpy as np
import pytest

import pedatorch as pt
import pedatorch.nn.functional as F
from pedatorch.backend import to_host, is_array, backend_of, cuda_backend

RNG = np.random.default_rng(0)
X = RNG.uniform(-2, 2, (3, 4))            # any real number
POS = RNG.uniform(0.2, 2.0, (3, 4))       # logs, square roots, gamma functions
UNIT = RNG.uniform(-0.9, 0.9, (3, 4))     # asin, atanh, erfinv
PROB = RNG.uniform(0.05, 0.95, (3, 4))    # logit, ndtri
BIG = RNG.uniform(1.1, 3.0, (3, 4))       # acosh, mvlgamma
X2 = RNG.uniform(-2, 2, (3, 4))
POS2 = RNG.uniform(0.2, 2.0, (3, 4))
ROW = RNG.uniform(-2, 2, (4,))            # a broadcast operand

_unary = {
    "exp": (pt.exp, X), "exp2": (pt.exp2, X), "expm1": (pt.expm1, X), "log": (pt.log, POS),
    "log2": (pt.log2, POS), "log10": (pt.log10, POS), "log1p": (pt.log1p, POS), "sqrt": (pt.sqrt, POS),
    "rsqrt": (pt.rsqrt, POS), "sin": (pt.sin, X), "cos": (pt.cos, X), "tan": (pt.tan, UNIT),
    "asin": (pt.asin, UNIT), "acos": (pt.acos, UNIT), "atan": (pt.atan, X), "sinh": (pt.sinh, X),
    "cosh": (pt.cosh, X), "tanh": (pt.tanh, X), "asinh": (pt.asinh, X), "acosh": (pt.acosh, BIG),
    "atanh": (pt.atanh, UNIT), "sigmoid": (pt.sigmoid, X), "erf": (pt.erf, X), "erfc": (pt.erfc, X),
    "erfinv": (pt.erfinv, UNIT), "reciprocal": (pt.reciprocal, POS), "sinc": (pt.sinc, X),
    "deg2rad": (pt.deg2rad, X), "rad2deg": (pt.rad2deg, X), "floor": (pt.floor, X), "ceil": (pt.ceil, X),
    "trunc": (pt.trunc, X), "frac": (pt.frac, X), "sign": (pt.sign, X), "abs": (pt.abs, X),
    "neg": (pt.neg, X), "positive": (pt.positive, X), "square": (pt.square, X), "relu": (pt.relu, X),
    "sgn": (pt.sgn, X), "round": (pt.round, X), "round2": (lambda t: pt.round(t, decimals=2), X),
    "logit": (pt.logit, PROB), "logit_eps": (lambda t: pt.logit(t, eps=0.1), PROB),
    "nan_to_num": (pt.nan_to_num, X), "clamp": (lambda t: pt.clamp(t, -1, 1), X),
    "clamp_min": (lambda t: pt.clamp_min(t, 0.5), X), "clamp_max": (lambda t: pt.clamp_max(t, 0.5), X),
    "pow2": (lambda t: t ** 2, X), "pow3": (lambda t: pt.pow(t, 3), X), "powhalf": (lambda t: t ** 0.5, POS),
    "rpow": (lambda t: 2.0 ** t, X), "float_power": (lambda t: pt.float_power(t, 2), X),
    "add_s": (lambda t: t + 1.5, X), "rsub": (lambda t: 2 - t, X), "mul_s": (lambda t: t * 3, X),
    "div_s": (lambda t: t / 3, X), "rdiv": (lambda t: 3 / t, POS), "alpha": (lambda t: pt.add(t, 2.0, alpha=3), X),
    "lgamma": (pt.lgamma, POS), "digamma": (pt.digamma, POS), "polygamma": (lambda t: pt.polygamma(1, t), POS),
    "mvlgamma": (lambda t: pt.mvlgamma(t, 2), BIG), "i0": (pt.i0, X), "angle": (pt.angle, X),
    "threshold": (lambda t: F.threshold(t, 0.5, -1.0), X),
    "remainder_s": (lambda t: pt.remainder(t, 0.7), X), "fmod_s": (lambda t: pt.fmod(t, 0.7), X),
    # torch.special
    "s_entr": (pt.special.entr, POS), "s_erfcx": (pt.special.erfcx, X), "s_expit": (pt.special.expit, X),
    "s_gammaln": (pt.special.gammaln, POS), "s_i0e": (pt.special.i0e, X), "s_i1": (pt.special.i1, X),
    "s_i1e": (pt.special.i1e, X), "s_log_ndtr": (pt.special.log_ndtr, X), "s_ndtr": (pt.special.ndtr, X),
    "s_ndtri": (pt.special.ndtri, PROB), "s_sinc": (pt.special.sinc, X), "s_psi": (pt.special.psi, POS),
    "s_multigammaln": (lambda t: pt.special.multigammaln(t, 2), BIG), "s_bessel_j0": (pt.special.bessel_j0, X),
    "s_bessel_j1": (pt.special.bessel_j1, X), "s_sph_j0": (pt.special.spherical_bessel_j0, X),
    "s_xlog1py": (lambda t: pt.special.xlog1py(t, 0.5), X), "s_zeta": (lambda t: pt.special.zeta(t.detach() + 2.5, 1.5) * t, POS),
    "s_logsumexp": (lambda t: pt.special.logsumexp(t, 1), X), "s_softmax": (lambda t: pt.special.softmax(t, 1), X),
    "s_log_softmax": (lambda t: pt.special.log_softmax(t, 1), X), "s_polygamma": (lambda t: pt.special.polygamma(2, t), POS),
    # activations
    "F_relu": (F.relu, X), "F_relu6": (F.relu6, X), "F_leaky_relu": (lambda t: F.leaky_relu(t, 0.1), X),
    "F_elu": (F.elu, X), "F_selu": (F.selu, X), "F_celu": (F.celu, X), "F_gelu": (F.gelu, X),
    "F_gelu_tanh": (lambda t: F.gelu(t, approximate="tanh"), X), "F_silu": (F.silu, X), "F_mish": (F.mish, X),
    "F_sigmoid": (F.sigmoid, X), "F_tanh": (F.tanh, X), "F_hardtanh": (F.hardtanh, X),
    "F_hardsigmoid": (F.hardsigmoid, X), "F_hardswish": (F.hardswish, X), "F_softplus": (F.softplus, X),
    "F_softplus_b": (lambda t: F.softplus(t, beta=2, threshold=1), X), "F_softsign": (F.softsign, X),
    "F_softshrink": (F.softshrink, X), "F_hardshrink": (F.hardshrink, X), "F_tanhshrink": (F.tanhshrink, X),
    "F_logsigmoid": (F.logsigmoid, X), "F_glu": (F.glu, X), "F_softmax": (lambda t: F.softmax(t, 1), X),
    "F_log_softmax": (lambda t: F.log_softmax(t, 0), X), "F_softmin": (lambda t: F.softmin(t, 1), X),
    "F_rrelu_eval": (lambda t: F.rrelu(t, training=False), X), "F_threshold": (lambda t: F.threshold(t, 0.1, 20.0), X),
}

_binary = {
    "add": (pt.add, X, X2), "add_bcast": (pt.add, X, ROW), "sub": (pt.sub, X, X2),
    "sub_alpha": (lambda a, b: pt.sub(a, b, alpha=2), X, X2), "rsub": (pt.rsub, X, X2),
    "mul": (pt.mul, X, X2), "div": (pt.div, X, POS2), "div_trunc": (lambda a, b: pt.div(a, b, rounding_mode="trunc"), X, POS2),
    "div_floor": (lambda a, b: pt.div(a, b, rounding_mode="floor"), X, POS2),
    "pow": (pt.pow, POS, X2), "float_power": (pt.float_power, POS, X2), "remainder": (pt.remainder, X, POS2),
    "fmod": (pt.fmod, X, POS2), "atan2": (pt.atan2, X, X2), "maximum": (pt.maximum, X, X2),
    "minimum": (pt.minimum, X, X2), "fmax": (pt.fmax, X, X2), "fmin": (pt.fmin, X, X2), "hypot": (pt.hypot, X, X2),
    "logaddexp": (pt.logaddexp, X, X2), "logaddexp2": (pt.logaddexp2, X, X2), "xlogy": (pt.xlogy, X, POS2),
    "lerp": (lambda a, b: pt.lerp(a, b, 0.3), X, X2), "lerp_t": (lambda a, b: pt.lerp(a, b, b.sigmoid()), X, X2),
    "addcmul": (lambda a, b: pt.addcmul(a, b, a, value=0.5), X, X2),
    "addcdiv": (lambda a, b: pt.addcdiv(a, a, b, value=0.5), X, POS2),
    "where": (lambda a, b: pt.where(a > 0, a, b), X, X2), "where_s": (lambda a, b: pt.where(a > 0, a, 0.5) * b, X, X2),
    "clamp_t": (lambda a, b: pt.clamp(a, min=b), X, X2), "copysign": (pt.copysign, X, X2),
    "igamma": (lambda a, b: pt.igamma(a.detach(), b), POS, POS2),
    "igammac": (lambda a, b: pt.igammac(a.detach(), b), POS, POS2), "dist": (pt.dist, X, X2),
    "s_xlogy": (pt.special.xlogy, X, POS2), "s_gammainc": (lambda a, b: pt.special.gammainc(a.detach(), b), POS, POS2),
    "s_gammaincc": (lambda a, b: pt.special.gammaincc(a.detach(), b), POS, POS2),
    "F_prelu": (lambda a, b: F.prelu(a, b[0, :1]), X, X2), "ldexp": (lambda a, b: pt.ldexp(a, b.round()), X, X2),
    "nextafter": (pt.nextafter, X, X2),
}

_nograd = {   # comparisons, logic, integer ops: values only
    "eq": lambda a, b: a == b.round(), "ne": lambda a, b: a != b, "lt": pt.lt, "le": pt.le, "gt": pt.gt, "ge": pt.ge,
    "logical_and": pt.logical_and, "logical_or": pt.logical_or, "logical_xor": pt.logical_xor,
    "logical_not": lambda a, b: pt.logical_not(a > 0), "isnan": lambda a, b: pt.isnan(a.log()),
    "isinf": lambda a, b: pt.isinf(a / 0), "isfinite": lambda a, b: pt.isfinite(a.log()),
    "isposinf": lambda a, b: pt.isposinf(a / 0), "isneginf": lambda a, b: pt.isneginf(a / 0),
    "isreal": lambda a, b: pt.isreal(a), "signbit": lambda a, b: pt.signbit(a),
    "isclose": lambda a, b: pt.isclose(a, a + b * 1e-9), "bitwise": lambda a, b: (a > 0) & (b > 0) | ~(a > b) ^ (b < 1),
    "int_ops": lambda a, b: ((a * 10).long() & 7) | ((b * 10).long() ^ 3) << 1 >> 1,
    "int_div": lambda a, b: (a * 10).long() // 3 + (b * 10).long() % 4 + pt.remainder((a * 10).long(), 3),
    "int_pow": lambda a, b: (a * 3).long() ** 2 + pt.pow((a * 3).long(), (b.abs() * 2).long()),
    "int_trunc": lambda a, b: pt.div((a * 10).long(), 3, rounding_mode="trunc"),
    "bitwise_not": lambda a, b: pt.bitwise_not((a * 10).long()), "gcd": lambda a, b: pt.gcd((a * 10).long(), (b * 10).long()),
    "lcm": lambda a, b: pt.lcm((a * 10).long(), (b * 10).long()), "frexp": lambda a, b: pt.frexp(a)[0] + pt.frexp(a)[1],
    "sign_int": lambda a, b: pt.sign((a * 10).long()) + pt.abs((a * 10).long()),
    "nan_to_num": lambda a, b: pt.nan_to_num(a.log(), nan=0.5) + pt.nan_to_num(a / 0, posinf=1.0),
    "half": lambda a, b: (a.half() * b.half() + 1.5 * a.half()).float(),
    "bf16": lambda a, b: (a.bfloat16() * 3.1 - b.bfloat16()).float(), "half_div": lambda a, b: (a.half() / b.half()).float(),
    "half_alpha": lambda a, b: pt.add(a.half(), b.half(), alpha=2).float(),
    "uint8": lambda a, b: (a * 10).to(pt.uint8) * -1 + pt.add((b * 10).to(pt.uint8), -1, alpha=2),
    "bool_pow": lambda a, b: ((a > 0) ** True).long() + ((a > 0).long() ** 0),
    "clamp_int": lambda a, b: pt.clamp((a * 10).long(), -3, 3), "to_int": lambda a, b: (a / b).int(),
    "complex": lambda a, b: pt.view_as_real(pt.complex(a, b) * pt.complex(b, a)).sum(-1),
    "complex_ops": lambda a, b: pt.angle(pt.complex(a, b)) + pt.abs(pt.complex(a, b)) + pt.real(pt.complex(a, b).sgn()),
    "isin": lambda a, b: pt.isin((a * 3).long(), (b * 3).long()), "heaviside0": lambda a, b: pt.heaviside(a.round(), b),
    "floor_divide": lambda a, b: pt.floor_divide(a, b.abs() + 0.1) + pt.floor_divide(a, 0.7),
    "heaviside": pt.heaviside, "zeta2": lambda a, b: pt.special.zeta(a.abs() + 1.5, b.abs() + 0.2),
}


def _on(device, data, grad=True):
    return pt.tensor(data, device=device, requires_grad=grad)


def _check_on_device(t, device):
    assert t.device.type == device, t.device
    assert is_array(t._data) and backend_of(t._data).device_type == device


def _run(fn, device, *datas, grad=True):
    ts = [_on(device, d, grad) for d in datas]
    out = fn(*ts)
    outs = out if isinstance(out, tuple) else (out,)
    grads = []
    if grad:
        for o in outs:
            _check_on_device(o, device)
        loss = sum((o.float() * (i + 1.5)).sum() for i, o in enumerate(outs) if o.requires_grad)
        if isinstance(loss, pt.Tensor):   # (the Bessel functions' results have no graph, as in PyTorch)
            loss.backward()
        for t in ts:
            if t.grad is not None:
                _check_on_device(t.grad, device)
                grads.append(to_host(t.grad._data))
            else:
                grads.append(None)
    return [to_host(o._data) for o in outs], grads


def _same(got, ref, device):
    """The stand-in computes with numpy: the same bits. A GPU's libm differs in the last bits (and
    float16/bfloat16 steps round there)."""
    if device == "cpu" or cuda_backend().name == "stand-in":
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64), rtol=1e-5, atol=1e-6)


def _compare(fn, datas, device, grad=True):
    ref, ref_g = _run(fn, "cpu", *datas, grad=grad)
    got, got_g = _run(fn, device, *datas, grad=grad)
    for r, g in zip(ref, got):
        assert r.dtype == g.dtype and r.shape == g.shape
        _same(g, r, device)
    for r, g in zip(ref_g, got_g):
        assert (r is None) == (g is None)
        if r is not None:
            _same(g, r, device)


@pytest.mark.parametrize("name", sorted(_unary))
def test_unary_ops_on_device(device, name):
    fn, data = _unary[name]
    _compare(fn, [data], device)


@pytest.mark.parametrize("name", sorted(_binary))
def test_binary_ops_on_device(device, name):
    fn, a, b = _binary[name]
    _compare(fn, [a, b], device)


@pytest.mark.parametrize("name", sorted(_nograd))
def test_value_ops_on_device(device, name):
    _compare(_nograd[name], [X, X2], device, grad=False)


def test_unrecorded_inplace_updates_on_device(device):
    """The optimizers' in-place updates (no graph: written straight into the tensor's memory) on the device."""
    def run(dev):
        p = pt.tensor(X, device=dev)
        g = pt.tensor(X2, device=dev)
        with pt.no_grad():
            p.add_(g, alpha=-0.1).mul_(0.9).sub_(g).div_(1.5).addcmul_(g, g, value=0.5).addcdiv_(g, p.abs() + 1, value=0.2)
            p.add_(1.0).clamp_(-1, 1)
        _check_on_device(p, dev)
        return to_host(p._data)
    _same(run(device), run("cpu"), device)


def test_out_and_numbers_on_device(device):
    a, b = pt.tensor(X, device=device), pt.tensor(X2, device=device)
    out = pt.empty(0, dtype=pt.float64, device=device)
    pt.add(a, b, out=out)
    _check_on_device(out, device)
    _same(to_host(out._data), X + X2, device)
    c = a * pt.tensor(2.0) + pt.tensor(1.0)                 # 0-dim CPU tensors join a device op
    _check_on_device(c, device)
    _same(to_host(c._data), X * 2.0 + 1.0, device)
    assert pt.equal(a, a.clone()) and pt.allclose(a, a + 1e-12)
    assert bool(pt.isclose(a, b).any()) is False
    w = pt.hann_window(8, device=device)
    _check_on_device(w, device)
    _same(to_host(w._data), pt.hann_window(8).numpy(), device)


def test_rrelu_training_draws_on_device(device):
    x = pt.tensor(X, device=device, requires_grad=True)
    y = F.rrelu(x, training=True)
    _check_on_device(y, device)
    y.sum().backward()
    _check_on_device(x.grad, device)
    slope = to_host(y._data)[X < 0] / X[X < 0]
    assert ((slope >= 1 / 8 - 1e-12) & (slope <= 1 / 3 + 1e-12)).all()
    np.testing.assert_array_equal(to_host(y._data)[X > 0], X[X > 0])
