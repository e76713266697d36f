"""What each op saves for backward, checked against PyTorch's derivatives.yaml through its version counter.

PyTorch's autograd codegen saves exactly the self/other/result/index its formulas read, by this rule: a
result is always saved; an input read by one formula only is saved when that formula will run (its input
requires grad); an input read by two or more formulas, an optional tensor, or an input of an op with
a tensor list is always saved. An in-place write to a saved tensor after the op makes backward raise
"modified by an inplace operation"; to anything else, it does not. So for each op below, each choice of
inputs that require grad, and each input (or the result) written in place after the op: backward raises
in pedatorch exactly when it raises in PyTorch.
"""
import itertools

import numpy as np
import pytest

import pedatorch as pt

torch = pytest.importorskip("torch")

def _pos(*shape):
    """Positive values away from 0 and 1 (valid for log, sqrt, acosh after +1, pow ...)."""
    n = int(np.prod(shape)) if shape else 1
    return (np.linspace(0.3, 0.8, n).reshape(shape) if shape else np.array(0.55))


def _mixed(*shape):
    n = int(np.prod(shape)) if shape else 1
    return np.linspace(-0.9, 0.7, n).reshape(shape)


def _setitem(x, i, v):
    x[i] = v
    return x


# name -> (function(lib, *inputs), input arrays, which inputs may require grad)
# (lib is pedatorch or torch; every input is a float64 tensor)
OPS = {
    # unary: PyTorch saves self or result, never both unless a formula reads both
    "exp": (lambda m, x: m.exp(x), [_mixed(3)]),
    "exp2": (lambda m, x: m.exp2(x), [_mixed(3)]),
    "expm1": (lambda m, x: m.expm1(x), [_mixed(3)]),
    "log": (lambda m, x: m.log(x), [_pos(3)]),
    "log2": (lambda m, x: m.log2(x), [_pos(3)]),
    "log10": (lambda m, x: m.log10(x), [_pos(3)]),
    "log1p": (lambda m, x: m.log1p(x), [_pos(3)]),
    "sqrt": (lambda m, x: m.sqrt(x), [_pos(3)]),
    "rsqrt": (lambda m, x: m.rsqrt(x), [_pos(3)]),
    "reciprocal": (lambda m, x: m.reciprocal(x), [_pos(3)]),
    "sin": (lambda m, x: m.sin(x), [_mixed(3)]),
    "cos": (lambda m, x: m.cos(x), [_mixed(3)]),
    "tan": (lambda m, x: m.tan(x), [_mixed(3)]),
    "tanh": (lambda m, x: m.tanh(x), [_mixed(3)]),
    "sigmoid": (lambda m, x: m.sigmoid(x), [_mixed(3)]),
    "asin": (lambda m, x: m.asin(x), [_mixed(3)]),
    "acos": (lambda m, x: m.acos(x), [_mixed(3)]),
    "atan": (lambda m, x: m.atan(x), [_mixed(3)]),
    "sinh": (lambda m, x: m.sinh(x), [_mixed(3)]),
    "cosh": (lambda m, x: m.cosh(x), [_mixed(3)]),
    "asinh": (lambda m, x: m.asinh(x), [_mixed(3)]),
    "acosh": (lambda m, x: m.acosh(x + 1), [_pos(3)]),
    "atanh": (lambda m, x: m.atanh(x), [_mixed(3)]),
    "abs": (lambda m, x: m.abs(x), [_mixed(3)]),
    "sgn": (lambda m, x: m.sgn(x), [_mixed(3)]),
    "neg": (lambda m, x: m.neg(x), [_mixed(3)]),
    "erf": (lambda m, x: m.erf(x), [_mixed(3)]),
    "erfc": (lambda m, x: m.erfc(x), [_mixed(3)]),
    "erfinv": (lambda m, x: m.erfinv(x), [_mixed(3)]),
    "lgamma": (lambda m, x: m.lgamma(x), [_pos(3)]),
    "digamma": (lambda m, x: m.digamma(x), [_pos(3)]),
    "sinc": (lambda m, x: m.sinc(x), [_mixed(3)]),
    "logit": (lambda m, x: m.logit(x), [_pos(3)]),
    "square": (lambda m, x: m.square(x), [_mixed(3)]),
    "pow_scalar": (lambda m, x: m.pow(x, 2.5), [_pos(3)]),
    "rpow_scalar": (lambda m, x: m.pow(2.5, x), [_mixed(3)]),
    "clamp": (lambda m, x: m.clamp(x, -0.5, 0.5), [_mixed(3)]),
    "frac": (lambda m, x: m.frac(x), [_mixed(3)]),
    "i0": (lambda m, x: m.i0(x), [_mixed(3)]),
    # binary
    "add": (lambda m, a, b: m.add(a, b, alpha=2), [_mixed(3), _pos(3)]),
    "sub": (lambda m, a, b: m.sub(a, b), [_mixed(3), _pos(3)]),
    "mul": (lambda m, a, b: m.mul(a, b), [_mixed(3), _pos(3)]),
    "div": (lambda m, a, b: m.div(a, b), [_mixed(3), _pos(3)]),
    "pow": (lambda m, a, b: m.pow(a, b), [_pos(3), _mixed(3)]),
    "atan2": (lambda m, a, b: m.atan2(a, b), [_mixed(3), _pos(3)]),
    "hypot": (lambda m, a, b: m.hypot(a, b), [_mixed(3), _pos(3)]),
    "maximum": (lambda m, a, b: m.maximum(a, b), [_mixed(3), _pos(3)]),
    "minimum": (lambda m, a, b: m.minimum(a, b), [_mixed(3), _pos(3)]),
    "fmax": (lambda m, a, b: m.fmax(a, b), [_mixed(3), _pos(3)]),
    "fmin": (lambda m, a, b: m.fmin(a, b), [_mixed(3), _pos(3)]),
    "fmod": (lambda m, a, b: m.fmod(a, b), [_mixed(3), _pos(3)]),
    "remainder": (lambda m, a, b: m.remainder(a, b), [_mixed(3), _pos(3)]),
    "copysign": (lambda m, a, b: m.copysign(a, b), [_mixed(3), _mixed(3)]),
    "logaddexp": (lambda m, a, b: m.logaddexp(a, b), [_mixed(3), _pos(3)]),
    "logaddexp2": (lambda m, a, b: m.logaddexp2(a, b), [_mixed(3), _pos(3)]),
    "xlogy": (lambda m, a, b: m.xlogy(a, b), [_mixed(3), _pos(3)]),
    "nextafter": (lambda m, a, b: m.nextafter(a, b), [_mixed(3), _pos(3)]),
    "ldexp": (lambda m, a, b: m.ldexp(a, b), [_mixed(3), _pos(3)]),
    "lerp": (lambda m, a, b, w: m.lerp(a, b, w), [_mixed(3), _pos(3), _pos(3)]),
    "addcmul": (lambda m, a, b, c: m.addcmul(a, b, c, value=0.5), [_mixed(3), _pos(3), _mixed(3)]),
    "addcdiv": (lambda m, a, b, c: m.addcdiv(a, b, c, value=0.5), [_mixed(3), _mixed(3), _pos(3)]),
    "where": (lambda m, a, b: m.where(a > 0, a, b), [_mixed(3), _pos(3)]),
    "dist": (lambda m, a, b: m.dist(a, b), [_mixed(3), _pos(3)]),
    # linear algebra
    "mm": (lambda m, a, b: m.mm(a, b), [_mixed(2, 3), _pos(3, 2)]),
    "matmul": (lambda m, a, b: m.matmul(a, b), [_mixed(2, 3), _pos(3)]),
    "mv": (lambda m, a, b: m.mv(a, b), [_mixed(2, 3), _pos(3)]),
    "dot": (lambda m, a, b: m.dot(a, b), [_mixed(3), _pos(3)]),
    "outer": (lambda m, a, b: m.outer(a, b), [_mixed(3), _pos(2)]),
    "bmm": (lambda m, a, b: m.bmm(a, b), [_mixed(1, 2, 3), _pos(1, 3, 2)]),
    "addmm": (lambda m, c, a, b: m.addmm(c, a, b), [_pos(2, 2), _mixed(2, 3), _pos(3, 2)]),
    "addmv": (lambda m, c, a, b: m.addmv(c, a, b), [_pos(2), _mixed(2, 3), _pos(3)]),
    "addr": (lambda m, c, a, b: m.addr(c, a, b), [_pos(3, 2), _mixed(3), _pos(2)]),
    "baddbmm": (lambda m, c, a, b: m.baddbmm(c, a, b), [_pos(1, 2, 2), _mixed(1, 2, 3), _pos(1, 3, 2)]),
    "cross": (lambda m, a, b: m.linalg.cross(a, b), [_mixed(3), _pos(3)]),
    # reductions
    "sum": (lambda m, x: m.sum(x), [_mixed(2, 3)]),
    "mean": (lambda m, x: m.mean(x, 0), [_mixed(2, 3)]),
    "prod": (lambda m, x: m.prod(x), [_mixed(2, 3)]),
    "prod_dim": (lambda m, x: m.prod(x, 1), [_mixed(2, 3)]),
    "amax": (lambda m, x: m.amax(x, 1), [_mixed(2, 3)]),
    "max": (lambda m, x: m.max(x), [_mixed(2, 3)]),
    "max_dim": (lambda m, x: m.max(x, 1)[0], [_mixed(2, 3)]),
    "var": (lambda m, x: m.var(x, 1), [_mixed(2, 3)]),
    "std": (lambda m, x: m.std(x, 1), [_mixed(2, 3)]),
    "norm": (lambda m, x: m.norm(x), [_mixed(2, 3)]),
    "logsumexp": (lambda m, x: m.logsumexp(x, 1), [_mixed(2, 3)]),
    "cumsum": (lambda m, x: m.cumsum(x, 1), [_mixed(2, 3)]),
    "cumprod": (lambda m, x: m.cumprod(x, 1), [_mixed(2, 3)]),
    "cummax": (lambda m, x: m.cummax(x, 1)[0], [_mixed(2, 3)]),
    "cummin": (lambda m, x: m.cummin(x, 1)[0], [_mixed(2, 3)]),
    "logcumsumexp": (lambda m, x: m.logcumsumexp(x, 1), [_mixed(2, 3)]),
    "sort": (lambda m, x: m.sort(x, 1)[0], [_mixed(2, 3)]),
    "topk": (lambda m, x: m.topk(x, 2)[0], [_mixed(2, 3)]),
    "median": (lambda m, x: m.median(x), [_mixed(2, 3)]),
    "kthvalue": (lambda m, x: m.kthvalue(x, 2)[0], [_mixed(2, 3)]),
    "trace": (lambda m, x: m.trace(x), [_mixed(3, 3)]),
    # activations (nn.functional)
    "F.relu": (lambda m, x: m.nn.functional.relu(x), [_mixed(3)]),
    "F.elu": (lambda m, x: m.nn.functional.elu(x), [_mixed(3)]),
    "F.selu": (lambda m, x: m.nn.functional.selu(x), [_mixed(3)]),
    "F.celu": (lambda m, x: m.nn.functional.celu(x), [_mixed(3)]),
    "F.gelu": (lambda m, x: m.nn.functional.gelu(x), [_mixed(3)]),
    "F.silu": (lambda m, x: m.nn.functional.silu(x), [_mixed(3)]),
    "F.mish": (lambda m, x: m.nn.functional.mish(x), [_mixed(3)]),
    "F.softplus": (lambda m, x: m.nn.functional.softplus(x), [_mixed(3)]),
    "F.leaky_relu": (lambda m, x: m.nn.functional.leaky_relu(x), [_mixed(3)]),
    "F.hardtanh": (lambda m, x: m.nn.functional.hardtanh(x), [_mixed(3)]),
    "F.relu6": (lambda m, x: m.nn.functional.relu6(x), [_mixed(3)]),
    "F.hardsigmoid": (lambda m, x: m.nn.functional.hardsigmoid(x), [_mixed(3)]),
    "F.hardswish": (lambda m, x: m.nn.functional.hardswish(x), [_mixed(3)]),
    "F.logsigmoid": (lambda m, x: m.nn.functional.logsigmoid(x), [_mixed(3)]),
    "F.softshrink": (lambda m, x: m.nn.functional.softshrink(x), [_mixed(3)]),
    "F.hardshrink": (lambda m, x: m.nn.functional.hardshrink(x), [_mixed(3)]),
    "F.threshold": (lambda m, x: m.nn.functional.threshold(x, 0.1, 2.0), [_mixed(3)]),
    "F.softmax": (lambda m, x: m.nn.functional.softmax(x, 1), [_mixed(2, 3)]),
    "F.log_softmax": (lambda m, x: m.nn.functional.log_softmax(x, 1), [_mixed(2, 3)]),
    "F.glu": (lambda m, x: m.nn.functional.glu(x, 1), [_mixed(2, 4)]),
    "F.prelu": (lambda m, x, w: m.nn.functional.prelu(x, w), [_mixed(2, 3), _pos(1)]),
    "F.rrelu_eval": (lambda m, x: m.nn.functional.rrelu(x, training=False), [_mixed(3)]),
    # normalization
    "F.layer_norm": (lambda m, x, w, b: m.nn.functional.layer_norm(x, (3,), w, b),
                     [_mixed(2, 3), _pos(3), _mixed(3)]),
    "F.batch_norm_eval": (lambda m, x, rm, rv, w, b: m.nn.functional.batch_norm(x, rm, rv, w, b, training=False),
                          [_mixed(2, 3), _mixed(3), _pos(3), _pos(3), _mixed(3)], (0, 3, 4)),
    "F.batch_norm_train": (lambda m, x, w, b: m.nn.functional.batch_norm(x, None, None, w, b, training=True),
                           [_mixed(4, 3), _pos(3), _mixed(3)]),
    "F.batch_norm_stats": (lambda m, x, rm, rv, w, b: m.nn.functional.batch_norm(x, rm, rv, w, b, training=True),
                           [_mixed(4, 3), _mixed(3), _pos(3), _pos(3), _mixed(3)], (0, 3, 4)),
    "F.group_norm": (lambda m, x, w, b: m.nn.functional.group_norm(x, 1, w, b),
                     [_mixed(2, 3, 2), _pos(3), _mixed(3)]),
    "F.instance_norm": (lambda m, x, w, b: m.nn.functional.instance_norm(x, weight=w, bias=b),
                        [_mixed(2, 3, 2), _pos(3), _mixed(3)]),
    "F.normalize": (lambda m, x: m.nn.functional.normalize(x), [_mixed(2, 3)]),
    "F.linear": (lambda m, x, w, b: m.nn.functional.linear(x, w, b), [_mixed(2, 3), _pos(2, 3), _mixed(2)]),
    # convolution and pooling
    "F.conv1d": (lambda m, x, w, b: m.nn.functional.conv1d(x, w, b), [_mixed(1, 2, 4), _pos(3, 2, 2), _mixed(3)]),
    "F.conv2d": (lambda m, x, w, b: m.nn.functional.conv2d(x, w, b),
                 [_mixed(1, 2, 3, 3), _pos(2, 2, 2, 2), _mixed(2)]),
    "F.max_pool1d": (lambda m, x: m.nn.functional.max_pool1d(x, 2), [_mixed(1, 2, 4)]),
    "F.max_pool2d": (lambda m, x: m.nn.functional.max_pool2d(x, 2), [_mixed(1, 2, 4, 4)]),
    "F.avg_pool2d": (lambda m, x: m.nn.functional.avg_pool2d(x, 2), [_mixed(1, 2, 4, 4)]),
    "F.adaptive_avg_pool2d": (lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, 2), [_mixed(1, 2, 4, 4)]),
    "F.adaptive_max_pool2d": (lambda m, x: m.nn.functional.adaptive_max_pool2d(x, 2), [_mixed(1, 2, 4, 4)]),
    "F.lp_pool2d": (lambda m, x: m.nn.functional.lp_pool2d(x, 2, 2), [_mixed(1, 2, 4, 4)]),
    # indexing (an integer input never requires grad)
    "gather": (lambda m, x, i: m.gather(x, 1, i), [_mixed(2, 3), np.array([[0, 2], [1, 1]])], (0,)),
    "index_select": (lambda m, x, i: m.index_select(x, 1, i), [_mixed(2, 3), np.array([2, 0])], (0,)),
    "take": (lambda m, x, i: m.take(x, i), [_mixed(2, 3), np.array([4, 0])], (0,)),
    "index_add": (lambda m, x, i, s: m.index_add(x, 0, i, s, alpha=2), [_mixed(3), np.array([2, 0]), _pos(2)], (0, 2)),
    "index_copy": (lambda m, x, i, s: m.index_copy(x, 0, i, s), [_mixed(3), np.array([2, 0]), _pos(2)], (0, 2)),
    "index_fill": (lambda m, x, i, v: m.index_fill(x, 0, i, v), [_mixed(3), np.array([2]), np.array(0.5)], (0, 2)),
    "index_put": (lambda m, x, i, v: m.index_put(x, (i,), v), [_mixed(3), np.array([2, 0]), _pos(2)], (0, 2)),
    "index_put_acc": (lambda m, x, i, v: m.index_put(x, (i,), v, accumulate=True),
                      [_mixed(3), np.array([2, 0]), _pos(2)], (0, 2)),
    "getitem_adv": (lambda m, x, i: x[i], [_mixed(3), np.array([2, 0])], (0,)),
    "scatter": (lambda m, x, i, s: m.scatter(x, 0, i, s), [_mixed(3), np.array([2, 0]), _pos(2)], (0, 2)),
    "scatter_add": (lambda m, x, i, s: m.scatter_add(x, 0, i, s), [_mixed(3), np.array([2, 0]), _pos(2)], (0, 2)),
    "scatter_reduce_sum": (lambda m, x, i, s: m.scatter_reduce(x, 0, i, s, "sum"),
                           [_mixed(3), np.array([2, 0]), _pos(2)], (0, 2)),
    "scatter_reduce_prod": (lambda m, x, i, s: m.scatter_reduce(x, 0, i, s, "prod"),
                            [_mixed(3), np.array([2, 0]), _pos(2)], (0, 2)),
    "scatter_reduce_amax": (lambda m, x, i, s: m.scatter_reduce(x, 0, i, s, "amax"),
                            [_mixed(3), np.array([2, 0]), _pos(2)], (0, 2)),
    "scatter_reduce_mean": (lambda m, x, i, s: m.scatter_reduce(x, 0, i, s, "mean"),
                            [_mixed(3), np.array([2, 0]), _pos(2)], (0, 2)),
    "masked_fill_t": (lambda m, x, v: m.masked_fill(x, x > 0, v), [_mixed(3), np.array(0.5)]),
    "masked_scatter": (lambda m, x, s: m.masked_scatter(x, x > 0, s), [_mixed(3), _pos(3)]),
    "masked_select": (lambda m, x: m.masked_select(x, x > 0), [_mixed(3)]),
    "put": (lambda m, x, i, s: x.put(i, s), [_mixed(3), np.array([2, 0]), _pos(2)], (0, 2)),
    "embedding": (lambda m, i, w: m.nn.functional.embedding(i, w), [np.array([2, 0]), _pos(3, 2)], (1,)),
    "embedding_bag_psw": (lambda m, i, w, p: m.nn.functional.embedding_bag(i, w, m.tensor([0]), mode="sum",
                                                                        per_sample_weights=p),
                          [np.array([2, 0]), _pos(3, 2), _pos(2)], (1, 2)),
    "embedding_bag": (lambda m, i, w: m.nn.functional.embedding_bag(i, w, m.tensor([0]), mode="mean"),
                      [np.array([2, 0]), _pos(3, 2)], (1,)),
    # more elementwise and special functions
    "pow_tensor_base": (lambda m, e: m.pow(2.5, e), [_mixed(3)]),
    "div_floor": (lambda m, a, b: m.div(a, b, rounding_mode="floor"), [_mixed(3), _pos(3)]),
    "rsub": (lambda m, a, b: m.rsub(a, b, alpha=2), [_mixed(3), _pos(3)]),
    "clamp_tensor": (lambda m, x, lo, hi: m.clamp(x, lo, hi), [_mixed(3), _mixed(3) - 0.1, _pos(3)]),
    "round_dec": (lambda m, x: m.round(x, decimals=1), [_mixed(3)]),
    "nan_to_num": (lambda m, x: m.nan_to_num(x), [_mixed(3)]),
    "xlog1py": (lambda m, a, b: m.special.xlog1py(a, b), [_mixed(3), _pos(3)]),
    "zeta": (lambda m, a, b: m.special.zeta(a + 2, b), [_pos(3), _pos(3)], (1,)),
    "igamma": (lambda m, a, b: m.igamma(a, b), [_pos(3), _pos(3)], (1,)),
    "polygamma": (lambda m, x: m.polygamma(1, x), [_pos(3)]),
    "mvlgamma": (lambda m, x: m.mvlgamma(x + 2, 2), [_pos(3)]),
    "entr": (lambda m, x: m.special.entr(x), [_pos(3)]),
    "erfcx": (lambda m, x: m.special.erfcx(x), [_mixed(3)]),
    "ndtri": (lambda m, x: m.special.ndtri(x), [_pos(3)]),
    "log_ndtr": (lambda m, x: m.special.log_ndtr(x), [_mixed(3)]),
    "i0e": (lambda m, x: m.special.i0e(x), [_mixed(3)]),
    "i1": (lambda m, x: m.special.i1(x), [_mixed(3)]),
    "i1e": (lambda m, x: m.special.i1e(x), [_mixed(3)]),
    "angle": (lambda m, x: m.angle(x), [_mixed(3)]),
    "fmod_scalar": (lambda m, x: m.fmod(x, 0.4), [_mixed(3)]),
    # more reductions and shape ops
    "amin": (lambda m, x: m.amin(x, 1), [_mixed(2, 3)]),
    "aminmax": (lambda m, x: m.aminmax(x, dim=1)[0], [_mixed(2, 3)]),
    "min_dim": (lambda m, x: m.min(x, 1)[0], [_mixed(2, 3)]),
    "nansum": (lambda m, x: m.nansum(x), [_mixed(2, 3)]),
    "nanmedian": (lambda m, x: m.nanmedian(x), [_mixed(2, 3)]),
    "median_dim": (lambda m, x: m.median(x, 1)[0], [_mixed(2, 3)]),
    "mode": (lambda m, x: m.mode(x, 1)[0], [_mixed(2, 3)]),
    "var_mean": (lambda m, x: m.var_mean(x, 1)[0], [_mixed(2, 3)]),
    "std_mean": (lambda m, x: m.std_mean(x, 1)[1], [_mixed(2, 3)]),
    "vector_norm": (lambda m, x: m.linalg.vector_norm(x, 3), [_mixed(2, 3)]),
    "vdot": (lambda m, a, b: m.vdot(a, b), [_mixed(3), _pos(3)]),
    "cat": (lambda m, a, b: m.cat([a, b]), [_mixed(3), _pos(3)]),
    "stack": (lambda m, a, b: m.stack([a, b]), [_mixed(3), _pos(3)]),
    "roll": (lambda m, x: m.roll(x, 1), [_mixed(3)]),
    "repeat": (lambda m, x: x.repeat(2), [_mixed(3)]),
    "flip": (lambda m, x: m.flip(x, [0]), [_mixed(3)]),
    "tril": (lambda m, x: m.tril(x), [_mixed(3, 3)]),
    "diag_embed": (lambda m, x: m.diag_embed(x), [_mixed(3)]),
    "block_diag": (lambda m, a, b: m.block_diag(a, b), [_mixed(2, 2), _pos(1, 2)]),
    "pad": (lambda m, x: m.nn.functional.pad(x, (1, 1)), [_mixed(3)]),
    "pad_reflect": (lambda m, x: m.nn.functional.pad(x, (1, 1), mode="reflect"), [_mixed(1, 3)]),
    "unfold": (lambda m, x: x.unfold(0, 2, 1), [_mixed(4)]),
    "kron": (lambda m, a, b: m.kron(a, b), [_mixed(2), _pos(2)]),
    "F.unfold": (lambda m, x: m.nn.functional.unfold(x, 2), [_mixed(1, 1, 3, 3)]),
    "F.fold": (lambda m, x: m.nn.functional.fold(x, (3, 3), 2), [_mixed(1, 4, 4)]),
    "F.bilinear": (lambda m, a, b, w: m.nn.functional.bilinear(a, b, w),
                   [_mixed(2, 2), _pos(2, 3), _mixed(1, 2, 3)]),
    "F.conv_transpose1d": (lambda m, x, w, b: m.nn.functional.conv_transpose1d(x, w, b),
                           [_mixed(1, 2, 4), _pos(2, 3, 2), _mixed(3)]),
    "F.max_unpool1d": (lambda m, x: m.nn.functional.max_unpool1d(*m.nn.functional.max_pool1d(
        x, 2, return_indices=True), 2), [_mixed(1, 2, 4)]),
    "F.elu_alpha": (lambda m, x: m.nn.functional.elu(x, alpha=0.5), [_mixed(3)]),
    "F.softmin": (lambda m, x: m.nn.functional.softmin(x, 1), [_mixed(2, 3)]),
    "F.tanhshrink": (lambda m, x: m.nn.functional.tanhshrink(x), [_mixed(3)]),
    "F.softsign": (lambda m, x: m.nn.functional.softsign(x), [_mixed(3)]),
    "F.local_response_norm": (lambda m, x: m.nn.functional.local_response_norm(x, 2), [_mixed(1, 3, 2)]),
    # in-place variants (written into a copy of input 0: what they save of self is its value before the write)
    "hypot_": (lambda m, a, b: (a * 1).hypot_(b), [_mixed(3), _pos(3)]),
    "lerp_": (lambda m, a, b, w: (a * 1).lerp_(b, w), [_mixed(3), _pos(3), _pos(3)]),
    "addcmul_": (lambda m, a, b, c: (a * 1).addcmul_(b, c), [_mixed(3), _pos(3), _mixed(3)]),
    "copysign_": (lambda m, a, b: (a * 1).copysign_(b), [_mixed(3), _mixed(3)]),
    "ldexp_": (lambda m, a, b: (a * 1).ldexp_(b), [_mixed(3), _pos(3)]),
    "nextafter_": (lambda m, a, b: (a * 1).nextafter_(b), [_mixed(3), _pos(3)]),
    "index_add_": (lambda m, x, i, s: (x * 1).index_add_(0, i, s), [_mixed(3), np.array([2, 0]), _pos(2)], (0, 2)),
    "scatter_": (lambda m, x, i, s: (x * 1).scatter_(0, i, s), [_mixed(3), np.array([2, 0]), _pos(2)], (0, 2)),
    "index_put_": (lambda m, x, i, v: (x * 1).index_put_((i,), v), [_mixed(3), np.array([2, 0]), _pos(2)], (0, 2)),
    "setitem": (lambda m, x, i, v: _setitem(x * 1, i, v), [_mixed(3), np.array([2, 0]), _pos(2)], (0, 2)),
    # random ops (what they save does not depend on the draw)
    "F.dropout": (lambda m, x: m.nn.functional.dropout(x, 0.5), [_mixed(3)]),
    "F.rrelu_train": (lambda m, x: m.nn.functional.rrelu(x, training=True), [_mixed(3)]),
    "normal": (lambda m, mu, sd: m.normal(mu, sd), [_mixed(3), _pos(3)]),
    "F.softplus_beta": (lambda m, x: m.nn.functional.softplus(x, beta=2.0, threshold=1.0), [_mixed(3)]),
    "F.conv2d_stride": (lambda m, x, w: m.nn.functional.conv2d(x, w, stride=2, padding=1),
                        [_mixed(1, 2, 3, 3), _pos(2, 2, 2, 2)]),
    "F.avg_pool1d": (lambda m, x: m.nn.functional.avg_pool1d(x, 2), [_mixed(1, 2, 4)]),
    "F.max_pool3d": (lambda m, x: m.nn.functional.max_pool3d(x, 2), [_mixed(1, 1, 2, 2, 2)]),
    "F.embedding_max_norm": (lambda m, i, w: m.nn.functional.embedding(i, w, max_norm=0.5),
                             [np.array([2, 0]), _pos(3, 2)], (1,)),
    "diag": (lambda m, x: m.diag(x), [_mixed(3)]),
    "sum_to": (lambda m, x: x.sum_to_size(1, 3), [_mixed(2, 3)]),
    "expand_copy": (lambda m, x: x.expand(2, 3).clone(), [_mixed(3)]),
    # linear algebra
    "det": (lambda m, x: m.linalg.det(x), [_mixed(2, 2) + np.eye(2)]),
    "slogdet": (lambda m, x: m.linalg.slogdet(x)[1], [_mixed(2, 2) + np.eye(2)]),
    "inv": (lambda m, x: m.linalg.inv(x), [_mixed(2, 2) + np.eye(2)]),
    "solve": (lambda m, a, b: m.linalg.solve(a, b), [_mixed(2, 2) + np.eye(2), _pos(2)]),
    "cholesky": (lambda m, x: m.linalg.cholesky(x @ x.mT + m.eye(2, dtype=m.float64)), [_mixed(2, 2)]),
    "qr": (lambda m, x: m.linalg.qr(x)[1], [_mixed(3, 2)]),
    "eigh": (lambda m, x: m.linalg.eigh(x + x.mT)[0], [_mixed(2, 2) + np.eye(2)]),
    "svd": (lambda m, x: m.linalg.svdvals(x), [_mixed(2, 3)]),
    "pinv": (lambda m, x: m.linalg.pinv(x), [_mixed(2, 3)]),
    "lstsq": (lambda m, a, b: m.linalg.lstsq(a, b).solution, [_mixed(3, 2), _pos(3, 1)]),
}


def _cases():
    for name, spec in OPS.items():
        arrays = spec[1]
        grad_ok = spec[2] if len(spec) > 2 else range(len(arrays))
        for k in range(1, len(grad_ok) + 1):
            for req in itertools.combinations(grad_ok, k):
                for target in list(range(len(arrays))) + ["result"]:
                    yield pytest.param(name, req, target, id=f"{name}-grad{''.join(map(str, req))}-write{target}")


def _outcome(lib, name, req, target):
    """None when backward ran, else the start of the error it raised."""
    fn, arrays = OPS[name][:2]
    xs = [lib.tensor(a) if a.dtype.kind == "i" else lib.tensor(a, dtype=lib.float64, requires_grad=i in req)
          for i, a in enumerate(arrays)]
    out = fn(lib, *xs)
    with lib.no_grad():   # (a leaf that requires grad may be written in place under no_grad; its version moves)
        (out if target == "result" else xs[target]).mul_(1)
    try:
        out.sum().backward()
    except RuntimeError as e:
        return str(e)[:80]
    return None


@pytest.mark.parametrize("name, req, target", list(_cases()))
def test_inplace_write_after_op_raises_exactly_as_torch(name, req, target):
    expected = _outcome(torch, name, req, target)
    got = _outcome(pt, name, req, target)
    assert (got is None) == (expected is None), f"pedatorch: {got!r}; torch: {expected!r}"


# The ops whose formulas now run only for the inputs that require grad: their gradients, for every choice of
# those inputs, are still right (first and second order).
GRADCHECKED = ["hypot", "lerp", "addcmul", "copysign", "ldexp", "nextafter", "addmv", "addr", "baddbmm", "cross",
               "vdot", "F.bilinear", "F.layer_norm", "F.batch_norm_eval", "F.group_norm", "index_add", "index_copy",
               "put", "scatter_add", "gather", "take", "embedding_bag_psw", "pad_reflect"]


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradients_for_each_choice_of_inputs(name):
    from pedatorch.autograd import gradcheck, gradgradcheck
    fn, arrays = OPS[name][:2]
    grad_ok = OPS[name][2] if len(OPS[name]) > 2 else range(len(arrays))
    for k in range(1, len(grad_ok) + 1):
        for req in itertools.combinations(grad_ok, k):
            xs = [pt.tensor(a) if a.dtype.kind == "i" else pt.tensor(a, dtype=pt.float64, requires_grad=i in req)
                  for i, a in enumerate(arrays)]
            assert gradcheck(lambda *xs: fn(pt, *xs), xs)
            if name not in ("nextafter",):   # (nextafter's gradient is a step function: no second derivative)
                assert gradgradcheck(lambda *xs: fn(pt, *xs), xs)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["layer_norm", "group_norm", "batch_norm"])
def test_half_precision_norm_saves_the_weight_given(name, dtype):
    """A float16/bfloat16 weight is widened to float32 for the kernel; what is saved (and version-checked) is
    the weight itself, as in PyTorch."""
    def outcome(m):
        x = m.tensor(_mixed(2, 3, 2), dtype=getattr(m, dtype), requires_grad=True)
        w = m.tensor(_pos(3), dtype=getattr(m, dtype))
        F = m.nn.functional
        y = {"layer_norm": lambda: F.layer_norm(x, (2,), w[:2]),
             "group_norm": lambda: F.group_norm(x, 1, w),
             "batch_norm": lambda: F.batch_norm(x, None, None, w, training=True)}[name]()
        with m.no_grad():
            w.mul_(1)
        try:
            y.sum().backward()
        except RuntimeError as e:
            return str(e)[:40]
        return None
    assert (outcome(pt) is None) == (outcome(torch) is None)


def test_hypot_bfloat16_inplace_write_to_the_input_not_saved():
    """(fuzz seed 719692) hypot(a, b) with only b requiring grad saves b and the result, not a."""
    for m in (pt, torch):
        a = m.tensor([-0.5], dtype=m.bfloat16)
        b = m.tensor([-1.578125], dtype=m.float64, requires_grad=True)
        y = m.hypot(a, b)
        a.sub_(0.25)
        (g,) = m.autograd.grad(y.sum(), [b], create_graph=True)
        assert g.dtype == m.float64


def test_inplace_op_saving_a_base_of_its_target_raises():
    """(fuzz seed 712642) y1 = y0.squeeze(-1); y1.div_(y0): div saved y0, and the write moves y0's version."""
    def outcome(m):
        x0 = m.tensor([[-3.0]], requires_grad=True)
        y0 = x0.repeat((1, 1, 2))
        y1 = y0.squeeze(-1)
        y1.div_(y0)
        try:
            y1.sum().backward()
        except RuntimeError as e:
            return str(e)[:40]
        return None
    assert (outcome(pt) is None) == (outcome(torch) is None)
