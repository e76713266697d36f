"""Activation functions: ``relu``, ``gelu``, ``silu``, ``elu``, ``softplus``, ..., ``softmax``, ``gumbel_softmax``.

Each activation PyTorch records as one node is one ``ArrayFunction`` here (same grad_fn name, one
numpy kernel forward), with its derivative written in Tensor ops, so double backward works.  Masks
such as ``x > 0`` enter the backward as constants (their derivative is zero almost everywhere).

In-place variants (``inplace=True``, ``F.relu_``, ``F.elu_``, ...) are the same ops with
``_inplace_of = 0``.  Like PyTorch, some of them keep the *result* instead of the input for the
backward (their nodes are ``...Backward1``: ``LeakyReluBackward1``, ``EluBackward1``,
``ThresholdBackward1``); the others keep a copy of the original input.

The activations PyTorch writes in Python (``softsign``, ``tanhshrink``, ``softmin``,
``gumbel_softmax``) are written the same way with Tensor ops, so their grad_fn chains match too.
"""
import math
import warnings

import numpy as np

from ..._warnings import user_stacklevel
from ..._layout import in_format, iterator_result
from ..._tensor import Tensor
from ...backend import namespace, CPU_ARRAY, select, maximum as tie_first_maximum, minimum as tie_first_minimum
from ...autograd.function import ArrayFunction, before_checks
from ...autograd.grad_mode import _state
from ...ops._util import _type_word, check_kernel_dtype, checked_int, register as _register
from ...ops.elementwise import Relu, _ip, _erf, masked_grad, where, _not_implemented_name
from ...ops.creation import zero_grad
from ..._dtype import is_inexact_np, to_opmath, opmath_np

__all__ = ["relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "elu", "elu_", "selu", "selu_", "celu", "celu_",
           "gelu", "silu", "mish", "sigmoid", "tanh", "hardtanh", "hardtanh_", "hardsigmoid", "hardswish",
           "softplus", "softsign", "softshrink", "hardshrink", "tanhshrink", "threshold", "threshold_",
           "logsigmoid", "prelu", "rrelu", "rrelu_", "glu", "softmax", "log_softmax", "softmin", "gumbel_softmax"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_SQRT1_2 = 0.70710678118654752440
_INV_SQRT_2PI = 0.39894228040143267794   # 1 / sqrt(2 pi)
_GELU_BETA = math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5   # sqrt(2 / pi)
_GELU_KAPPA = 0.044715


def _const(arr):
    """A constant tensor (a mask, a noise sample) for a backward formula: no graph behind it."""
    return Tensor._make(arr)


def _float_only(x, kernel):
    if not is_inexact_np(x.dtype) and x.dtype.name != "bfloat16":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_word(x.dtype)}'")


def _back(out, like):
    return namespace(like).asarray(out).astype(like.dtype, copy=False)


def _recording(ctx):
    """Is this call recording a node?  (Never store arrays on the shared no-graph ctx.)"""
    return bool(ctx.needs_input_grad)


# ====================================================================== relu family

def _grad_where(name):
    """PyTorch's hardtanh_backward / threshold_backward / softshrink_backward / hardshrink_backward as an op
    of (grad, x): grad where keep, else 0.
    Linear in grad, so its own backward is the same op again; in x PyTorch's derivative is
    zeros_like(grad): a zero gradient, not none, so double backward goes on into x's graph (a zero
    through a node that is NaN at x, logit outside [0, 1] say, gives NaN there, as in PyTorch)."""
    class GradWhere(ArrayFunction):
        node_name = name
        _elementwise = 2

        @staticmethod
        def forward(ctx, grad, x, keep):
            namespace(grad, x, keep)   # (one device)
            ctx.save_for_backward(x)
            ctx.keep = keep
            return select(keep, grad)

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return GradWhere.apply(g, x, ctx.keep), (zero_grad(g) if ctx.needs_input_grad[1] else None), None

    return GradWhere


HardtanhGrad = _grad_where("HardtanhBackwardBackward0")
ThresholdGrad = _grad_where("ThresholdBackwardBackward0")
SoftshrinkGrad = _grad_where("SoftshrinkBackwardBackward0")
HardshrinkGrad = _grad_where("HardshrinkBackwardBackward0")


def relu(input, inplace=False):
    """max(x, 0)."""
    return _ip(Relu).apply(input) if inplace else Relu.apply(input)


def relu_(input):
    return _ip(Relu).apply(input)


class Hardtanh(ArrayFunction):
    """out = clamp(x, min_val, max_val);   dx = grad where min_val < x < max_val"""
    node_name = "HardtanhBackward0"
    _result_format = "preserve_format"   # ATen's hardtanh writes into empty_like(self)

    @staticmethod
    def forward(ctx, x, lo, hi):
        xp = namespace(x)
        if x.dtype == np.bool_:
            raise RuntimeError("Bool inputs not supported for hardtanh")
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        out = tie_first_minimum(tie_first_maximum(x, lo), hi)   # (x on a tie, as PyTorch)
        return _back(out, x) if is_inexact_np(x.dtype) else out.astype(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        a = x._data
        # PyTorch's test: 0 where x <= min or x >= max (a NaN passes the gradient on)
        return HardtanhGrad.apply(grad, x, ~((a <= ctx.lo) | (a >= ctx.hi))), None, None


class Hardtanh_(Hardtanh):
    """hardtanh in place: backward reads the original self (a copy kept of it), as PyTorch's"""
    node_name = "HardtanhBackward0"
    _inplace_of = 0

    @staticmethod
    def forward(ctx, x, lo, hi):
        xp = namespace(x)
        if x.dtype == np.bool_:
            raise RuntimeError("Bool inputs not supported for hardtanh")
        out = tie_first_minimum(tie_first_maximum(x, lo), hi).astype(x.dtype, copy=False)   # (x on a tie)
        ctx.save_for_backward(x)   # the original self (kept as a copy), as PyTorch: writes to the result are fine
        ctx.lo, ctx.hi = lo, hi
        return out


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """clamp(x, min_val, max_val)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    _check_hardtanh_limits(input, min_val, max_val)
    return (Hardtanh_ if inplace else Hardtanh).apply(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    _check_hardtanh_limits(input, min_val, max_val)
    return Hardtanh_.apply(input, min_val, max_val)


def _check_hardtanh_limits(input, min_val, max_val):
    # PyTorch truncates the limits to integers for an integer input, and refuses negative ones for uint8
    if input._data.dtype == np.uint8 and (int(min_val) < 0 or int(max_val) < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")


def relu6(input, inplace=False):
    """min(max(x, 0), 6): hardtanh(x, 0, 6), as in PyTorch (HardtanhBackward0)."""
    return hardtanh(input, 0.0, 6.0, inplace)


class LeakyRelu(ArrayFunction):
    """out = x if x > 0 else slope * x;   dx = grad * (1 if x > 0 else slope)"""
    node_name = "LeakyReluBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x, slope):
        xp = namespace(x)
        _float_only(x, "leaky_relu_cpu")
        ctx.save_for_backward(x)
        ctx.slope = slope
        xw = to_opmath(x)
        return _back(xp.where(xw > 0, xw, xw * slope), x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return LeakyReluBackward.apply(grad, x, ctx.slope), None


def _leaky_relu_grad(grad, x, slope):
    """The leaky_relu_backward kernel on arrays: grad where x > 0, grad * slope elsewhere (NaN x too)."""
    xp = namespace(grad, x)
    g = to_opmath(grad)
    with np.errstate(invalid="ignore", over="ignore"):
        return _back(xp.where(to_opmath(x) > 0, g, g * g.dtype.type(slope)), grad)


class LeakyReluBackward(ArrayFunction):
    """PyTorch's leaky_relu_backward kernel: grad where x > 0, grad * slope elsewhere (NaN x too).
    One node, as PyTorch's, so that double backward is PyTorch's: this again for grad, and an explicit
    zero for x (0 * inf is NaN there, where the gradient reaching x is inf)."""
    node_name = "LeakyReluBackwardBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, grad, x, slope):
        ctx.save_for_backward(x)
        ctx.slope = slope
        return _leaky_relu_grad(grad, x, slope)

    @staticmethod
    def backward(ctx, gg):
        x, = ctx.saved_tensors
        return (LeakyReluBackward.apply(gg, x, ctx.slope) if ctx.needs_input_grad[0] else None,
                zero_grad(gg) if ctx.needs_input_grad[1] else None, None)


class LeakyRelu_(ArrayFunction):
    """leaky_relu in place: the backward reads the sign from the result (so slope must be >= 0)"""
    node_name = "LeakyReluBackward1"
    _inplace_of = 0

    @staticmethod
    def forward(ctx, x, slope):
        xp = namespace(x)
        _float_only(x, "leaky_relu_cpu")
        xw = to_opmath(x)
        out = _back(xp.where(xw > 0, xw, xw * slope), x)
        ctx.save_for_backward(out)
        ctx.slope = slope
        return out

    @staticmethod
    def backward(ctx, grad):
        out, = ctx.saved_tensors
        if ctx.slope < 0:
            _inplace_leaky_error()
        return LeakyReluBackward.apply(grad, out, ctx.slope), None


def _inplace_leaky_error():
    raise RuntimeError("In-place leakyReLu backward calculation is triggered with a negative slope which is not "
                       "supported. This is caused by calling in-place forward function with a negative slope, "
                       "please call out-of-place version instead. File an issue at "
                       "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu backward "
                       "calculation with negative slope")


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x if x > 0 else negative_slope * x."""
    return (LeakyRelu_ if inplace else LeakyRelu).apply(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return LeakyRelu_.apply(input, negative_slope)


# ====================================================================== elu family (elu, selu, celu)

class Elu(ArrayFunction):
    """out = scale * x if x > 0 else alpha * scale * (exp(x * input_scale) - 1);
    dx = grad * (scale if x > 0 else alpha * scale * input_scale * exp(x * input_scale))"""
    node_name = "EluBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x, alpha, scale, input_scale):
        _float_only(x, "elu_cpu")
        ctx.save_for_backward(x)
        ctx.params = (alpha, scale, input_scale)
        return _elu_kernel(x, alpha * scale, scale, input_scale)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        alpha, scale, input_scale = ctx.params
        return EluBackward.apply(grad, x, alpha, scale, input_scale, False), None, None, None


class EluBackward(ArrayFunction):
    """PyTorch's elu_backward kernel, the gradient of elu, selu and celu, from the input x (or, after an
    in-place elu, from the result):
        grad * scale                                               where x > 0 (a NaN x too)
        grad * input_scale * alpha * scale * exp(x * input_scale)  where x <= 0
        grad * input_scale * (out + alpha * scale)                 where out <= 0 (from the result)
    in one pass in the op-math dtype, rounded once.  One node, as PyTorch's, so that double backward is
    PyTorch's elu_double_backward (whose mask is x < 0, not x <= 0; nothing flows through exp where x > 0)."""
    node_name = "EluBackwardBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, grad, s, alpha, scale, input_scale, is_result):
        xp = namespace(grad, s)
        ctx.save_for_backward(grad, s)
        ctx.params = (alpha, scale, input_scale, is_result)
        g, v = to_opmath(grad), to_opmath(s)
        c = g.dtype.type  # the kernel's coefficients are in that dtype too
        neg, pos, ins = c(alpha) * c(scale), c(scale), c(input_scale)
        with np.errstate(over="ignore", invalid="ignore"):
            if is_result:
                out = xp.where(v <= 0, g * ins * (v + neg), g * pos)
            else:
                out = xp.where(v <= 0, g * ins * neg * xp.exp(v * ins), g * pos)
        return _back(out, grad)

    @staticmethod
    def backward(ctx, gg):
        grad, s = ctx.saved_tensors
        alpha, scale, input_scale, is_result = ctx.params
        need = ctx.needs_input_grad
        d_grad = EluBackward.apply(gg, s, alpha, scale, input_scale, is_result) if need[0] else None
        d_s = None
        if need[1]:  # elu_double_backward
            negative = (s < 0).to(gg.dtype)
            if is_result:
                d_s = gg * grad * input_scale * negative
            else:
                d_s = EluBackward.apply(gg * grad * input_scale, s, alpha, scale, input_scale, False) * negative
        return d_grad, d_s, None, None, None, None


def _elu_kernel(x, neg, pos, ins):
    xp = namespace(x)
    xw = to_opmath(x)
    with np.errstate(over="ignore", invalid="ignore"):
        return _back(xp.where(xw <= 0, xp.expm1(xw * ins) * neg, xw * pos), x)


def _where_const(mask, a, b):
    """where(mask, a, b) with a constant mask (both branches are tensors of the same shape)."""
    from ...ops.elementwise import where
    return where(_const(mask), a, b)


class Elu_(ArrayFunction):
    """elu in place: dx = grad * (scale if out > 0 else input_scale * (out + alpha * scale)), from the result"""
    node_name = "EluBackward1"
    _inplace_of = 0

    @staticmethod
    def forward(ctx, x, alpha, scale, input_scale):
        _float_only(x, "elu_cpu")
        out = _elu_kernel(x, alpha * scale, scale, input_scale)
        ctx.save_for_backward(out)
        ctx.params = (alpha, scale, input_scale)
        return out

    @staticmethod
    def backward(ctx, grad):
        out, = ctx.saved_tensors
        alpha, scale, input_scale = ctx.params
        if alpha < 0:
            raise RuntimeError("In-place elu backward calculation is triggered with a negative slope which is not "
                               "supported. This is caused by calling in-place forward function with a negative slope, "
                               "please call out-of-place version instead.")
        return EluBackward.apply(grad, out, alpha, scale, input_scale, True), None, None, None


class Celu(Elu):
    """celu(x) = max(0, x) + min(0, alpha * (exp(x / alpha) - 1)): elu with input_scale = 1 / alpha"""
    node_name = "CeluBackward0"

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        alpha = ctx.params[0]
        return EluBackward.apply(grad, x, alpha, 1.0, _celu_backward_scale(alpha), False), None, None, None


class Celu_(Elu_):
    node_name = "CeluBackward1"

    @staticmethod
    def backward(ctx, grad):
        alpha = ctx.params[0]
        ctx.params = (alpha, 1.0, _celu_backward_scale(alpha))
        return Elu_.backward(ctx, grad)


def _celu_backward_scale(alpha):
    """PyTorch's celu backward takes input_scale = 1 / alpha with alpha rounded to float32 first."""
    return 1.0 / float(np.float32(alpha))


def elu(input, alpha=1.0, inplace=False):
    """x if x > 0 else alpha * (exp(x) - 1)."""
    return (Elu_ if inplace else Elu).apply(input, alpha, 1.0, 1.0)


def elu_(input, alpha=1.0):
    return Elu_.apply(input, alpha, 1.0, 1.0)


def selu(input, inplace=False):
    """scale * elu(x, alpha) with PyTorch's fixed alpha and scale."""
    return (Elu_ if inplace else Elu).apply(input, _SELU_ALPHA, _SELU_SCALE, 1.0)


def selu_(input):
    return Elu_.apply(input, _SELU_ALPHA, _SELU_SCALE, 1.0)


def _celu_scale(alpha):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return 1.0 / alpha


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    return (Celu_ if inplace else Celu).apply(input, alpha, 1.0, _celu_scale(alpha))


def celu_(input, alpha=1.0):
    return Celu_.apply(input, alpha, 1.0, _celu_scale(alpha))


# ====================================================================== smooth activations

class Gelu(ArrayFunction):
    """out = x * Phi(x), Phi the normal cdf (erf; or the tanh approximation);   dx = grad * (Phi(x) + x * phi(x))"""
    node_name = "GeluBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x, approximate):
        xp = namespace(x)
        _float_only(x, "GeluKernelImpl")
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        xw = to_opmath(x)
        if approximate == "tanh":
            inner = _GELU_BETA * (xw + _GELU_KAPPA * xw * xw * xw)
            with np.errstate(invalid="ignore"):
                return _back(0.5 * xw * (1 + xp.tanh(inner)), x)
        with np.errstate(invalid="ignore"):
            out = xw * 0.5 * (1 + _erf(xw * _SQRT1_2))
        # (PyTorch's AVX512 float kernel takes erf from a polynomial that makes gelu(+inf) NaN; its AVX2 and
        # scalar kernels give inf, the true limit, as here: see docs/architecture.md's differences)
        return _back(out, x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return GeluGrad.apply(grad, x, ctx.approximate), None


class GeluGrad(ArrayFunction):
    """PyTorch's gelu_backward as an op of (grad, x): grad * gelu'(x), in float32 for the half types.
    One node, as PyTorch's: its backward is this again for grad, and PyTorch's gelu_double_backward for x,
    gg * grad * gelu''(x) (inf where gg is inf; the chain rule through a composite formula gives 0 * inf)."""
    node_name = "GeluBackwardBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, grad, x, approximate):
        xp = namespace(grad, x)
        ctx.save_for_backward(grad, x)
        ctx.approximate = approximate
        g, xw = to_opmath(grad), to_opmath(x)
        c = xw.dtype.type   # the constants in the compute type, as ATen's kernel has them
        with np.errstate(invalid="ignore", over="ignore"):
            x_sq = xw * xw
            if approximate == "tanh":
                t = xp.tanh((xw + x_sq * xw * c(_GELU_KAPPA)) * c(_GELU_BETA))
                left = (t + 1) * c(0.5)
                right = xw * c(0.5) * (1 - t * t) * ((x_sq * c(3 * _GELU_KAPPA) + 1) * c(_GELU_BETA))
                return _back(g * (left + right), grad)
            cdf = (_erf(xw * c(_SQRT1_2)).astype(xw.dtype) + 1) * c(0.5)
            pdf = xp.exp(x_sq * c(-0.5)) * c(_INV_SQRT_2PI)
            return _back(g * (cdf + xw * pdf), grad)

    @staticmethod
    def backward(ctx, gg):
        grad, x = ctx.saved_tensors
        d_grad = GeluGrad.apply(gg, x, ctx.approximate) if ctx.needs_input_grad[0] else None
        d_x = _gelu_double_backward(gg, grad, x, ctx.approximate) if ctx.needs_input_grad[1] else None
        return d_grad, d_x, None


def _gelu_double_backward(gg, grad, x, approximate):
    """PyTorch's gelu_double_backward: gg * grad * gelu''(x), its formulas in its order."""
    if approximate == "tanh":
        inner = (x + x ** 3 * _GELU_KAPPA) * _GELU_BETA
        t = inner.tanh()
        sech = 1 / inner.cosh()
        f = x * 0.5
        g = 1 - t * t
        h = (x * (3 * _GELU_KAPPA) * x + 1) * _GELU_BETA
        f_prime_gh = g * 0.5 * h
        g_prime_fh = f * h * (sech * 2 * (-sech * t) * h)
        h_prime_fg = f * g * (x * (6 * _GELU_KAPPA) * _GELU_BETA)
        return gg * grad * (f_prime_gh * 2 + g_prime_fh + h_prime_fg)
    x_sq = x * x
    pdf = (x_sq * -0.5).exp() * _INV_SQRT_2PI
    return gg * grad * (pdf * 2 - x_sq * pdf)


def gelu(input, *, approximate="none"):
    """x * Phi(x) (exact, with erf), or 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) for 'tanh'."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return Gelu.apply(input, approximate)


def _sigmoid(xw):
    xp = namespace(xw)
    e = xp.exp(-xp.abs(xw))
    return xp.where(xw >= 0, 1 / (1 + e), e / (1 + e))


class Silu(ArrayFunction):
    """out = x * sigmoid(x);   dx = grad * s * (1 + x * (1 - s)),  s = sigmoid(x)"""
    node_name = "SiluBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        _float_only(x, "silu_cpu")
        ctx.save_for_backward(x)
        xw = to_opmath(x)
        return _back(xw * _sigmoid(xw), x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        if not _state.enabled:   # PyTorch's silu_backward kernel: in float32 for float16/bfloat16, rounded once
            xw, gw = to_opmath(x._data), to_opmath(grad._data)
            s = _sigmoid(xw)
            return Tensor._make(_back(gw * s * (1 + xw * (1 - s)), grad._data))
        s = x.sigmoid()          # with create_graph: its infinitely differentiable composite, op for op
        return grad * s * (1 + x * (1 - s))


def silu(input, inplace=False):
    """x * sigmoid(x) (swish)."""
    return (_ip(Silu) if inplace else Silu).apply(input)


class Mish(ArrayFunction):
    """out = x * tanh(softplus(x));   dx = grad * (t + x * sigmoid(x) * (1 - t^2)),  t = tanh(softplus(x))"""
    node_name = "MishBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        xp = namespace(x)
        _float_only(x, "mish_cpu")
        ctx.save_for_backward(x)
        xw = to_opmath(x)
        with np.errstate(over="ignore"):
            return _back(xw * xp.tanh(xp.log1p(xp.exp(xw))), x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        if not _state.enabled:   # PyTorch's mish_backward kernel: in float32 for float16/bfloat16, rounded once
            xp = namespace(x._data)
            xw, gw = to_opmath(x._data), to_opmath(grad._data)
            with np.errstate(over="ignore"):
                t = xp.tanh(xp.log1p(xp.exp(xw)))
            return Tensor._make(_back(gw * (t + xw * _sigmoid(xw) * (1 - t * t)), grad._data))
        t = x.exp().log1p().tanh()   # with create_graph: its infinitely differentiable composite, op for op
        return grad * (t + x * x.sigmoid() * (1 - t * t))


def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    return (_ip(Mish) if inplace else Mish).apply(input)


def sigmoid(input):
    """1 / (1 + exp(-x))."""
    return input.sigmoid()


def tanh(input):
    return input.tanh()


class Softplus(ArrayFunction):
    """out = log(1 + exp(beta x)) / beta (x where beta x > threshold);   dx = grad * sigmoid(beta x) (or grad)"""
    node_name = "SoftplusBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x, beta, threshold):
        xp = namespace(x)
        _float_only(x, "softplus_cpu")
        ctx.save_for_backward(x)
        ctx.beta, ctx.threshold = beta, threshold
        xw = to_opmath(x)
        bx = xw * beta
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            return _back(xp.where(bx > threshold, xw, xp.log1p(xp.exp(bx)) / beta), x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return SoftplusGrad.apply(grad, x, ctx.beta, ctx.threshold), None, None


class SoftplusGrad(ArrayFunction):
    """PyTorch's softplus_backward: grad where beta x > threshold, else grad * z / (z + 1), z = exp(beta x).
    Its own derivative (softplus_double_backward) multiplies by beta x < threshold: at beta x == threshold
    the first derivative is the smooth one, the second 0, as in PyTorch."""
    node_name = "SoftplusBackwardBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, grad, x, beta, threshold):
        xp = namespace(grad, x)
        ctx.save_for_backward(grad, x)
        ctx.beta, ctx.threshold = beta, threshold
        g, bx = to_opmath(grad), to_opmath(x) * beta
        with np.errstate(over="ignore", invalid="ignore"):
            z = xp.exp(bx)
            return _back(xp.where(bx > threshold, g, g * z / (z + 1)), grad)

    @staticmethod
    def backward(ctx, gg):
        grad, x = ctx.saved_tensors
        beta, threshold = ctx.beta, ctx.threshold
        need = ctx.needs_input_grad
        ggrad = SoftplusGrad.apply(gg, x, beta, threshold) if need[0] else None
        gx = None
        if need[1]:
            bx = x * beta
            s = bx.sigmoid()
            # sigmoid_backward(gg * grad, s) * (bx < threshold) * beta: a mask multiplied, as PyTorch's
            gx = (gg * grad) * (1 - s) * s * (bx < threshold).type_as(grad) * beta
        return ggrad, gx, None, None


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta x)) / beta, linear where beta x > threshold."""
    return Softplus.apply(input, beta, threshold)


def softsign(input):
    """x / (1 + |x|) (PyTorch writes it in Tensor ops: DivBackward0)."""
    return input / (input.abs() + 1)


def tanhshrink(input):
    """x - tanh(x)."""
    return input - input.tanh()


class LogSigmoid(ArrayFunction):
    """out = log(sigmoid(x)) = min(x, 0) - log(1 + exp(-|x|));   dx = grad * sigmoid(-x)"""
    node_name = "LogSigmoidBackward0"

    @staticmethod
    def forward(ctx, x):
        xp = namespace(x)
        _float_only(x, "log_sigmoid_cpu")
        ctx.save_for_backward(x)
        xw = to_opmath(x)
        out = _back(xp.minimum(xw, 0) - xp.log1p(xp.exp(-xp.abs(xw))), x)
        return in_format(out, "contiguous_format")  # PyTorch's CPU kernel allocates a contiguous result

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return LogSigmoidGrad.apply(grad, x)


class LogSigmoidGrad(ArrayFunction):
    """PyTorch's log_sigmoid_backward(grad, x, buffer): with z = exp(-|x|) (the forward's buffer, stored in
    x's dtype), dx = grad * (z / (1 + z)) for x >= 0 and grad * (1 - z / (1 + z)) for x < 0, in float32 for
    float16/bfloat16;  d/dgrad = the same,  d/dx = grad * gg * (s - 1) * s with s = sigmoid(x)"""
    node_name = "LogSigmoidBackwardBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, g, x):
        ctx.save_for_backward(g, x)
        xp = namespace(x)
        z = to_opmath(_back(xp.exp(-xp.abs(to_opmath(x))), x))
        xw, gw = to_opmath(x), to_opmath(g)
        with np.errstate(invalid="ignore"):
            q = z / (1 + z)
            return _back(xp.where(xw < 0, 1 - q, q) * gw, g)

    @staticmethod
    def backward(ctx, gg):
        g, x = ctx.saved_tensors
        need = ctx.needs_input_grad
        s = x.sigmoid() if need[1] else None
        return (LogSigmoidGrad.apply(gg, x) if need[0] else None,
                g * gg * (s - 1) * s if need[1] else None)


def logsigmoid(input):
    """log(sigmoid(x)), computed without overflow."""
    return LogSigmoid.apply(input)


# ====================================================================== hard / piecewise activations

class Hardsigmoid(ArrayFunction):
    """out = clamp(x + 3, 0, 6) / 6;   dx = grad / 6 where -3 < x < 3"""
    node_name = "HardsigmoidBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        xp = namespace(x)
        _float_only(x, "hardsigmoid_cpu")
        ctx.save_for_backward(x)
        xw = to_opmath(x)
        return _back(xp.minimum(xp.maximum(xw + 3, 0), 6) / 6, x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return HardsigmoidGrad.apply(grad, x)


class HardsigmoidGrad(ArrayFunction):
    """PyTorch's hardsigmoid_backward: grad / 6 where -3 < x < 3, else 0.  PyTorch gives it no derivative
    (node "NotImplemented"): a double backward through hardsigmoid raises."""
    node_name = "NotImplemented"
    _elementwise = 2

    @staticmethod
    def forward(ctx, grad, x):
        xp = namespace(grad, x)
        g = to_opmath(grad)
        # PyTorch's kernel multiplies by the float constant 1/6 (also for doubles)
        sixth = g.dtype.type(np.float32(1 / 6))
        return _back(xp.where((x > -3) & (x < 3), g * sixth, g.dtype.type(0)), grad)

    @staticmethod
    def backward(ctx, gg):
        raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")


HardsigmoidGrad._backward_cls.name = _not_implemented_name


def hardsigmoid(input, inplace=False):
    """clamp(x / 6 + 1 / 2, 0, 1)."""
    return (_ip(Hardsigmoid) if inplace else Hardsigmoid).apply(input)


class Hardswish(ArrayFunction):
    """out = x * clamp(x + 3, 0, 6) / 6;   dx = 0 (x <= -3), grad * (x / 3 + 1/2) (x < 3), grad (x >= 3)"""
    node_name = "HardswishBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        xp = namespace(x)
        _float_only(x, "hardswish_cpu")
        ctx.save_for_backward(x)
        xw = to_opmath(x)
        return _back(xw * xp.minimum(xp.maximum(xw + 3, 0), 6) / 6, x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return HardswishGrad.apply(grad, x)


class HardswishGrad(ArrayFunction):
    """PyTorch's hardswish_backward(grad, x), in its order of tests: 0 for x <= -3, grad * (x / 3 + 1/2) for
    x < 3, else grad (NaN too); float16/bfloat16 in float32, rounded once.  d/dgrad = hardswish_backward(gg, x),
    d/dx = where(-3 < x < 3, gg * grad / 3, 0)"""
    node_name = "HardswishBackwardBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, grad, x):
        ctx.save_for_backward(grad, x)
        xp = namespace(grad, x)
        g, xw = to_opmath(grad), to_opmath(x)
        with np.errstate(invalid="ignore", over="ignore"):
            slope = g * (xw / 3 + xw.dtype.type(0.5))
        return _back(xp.where(xw <= -3, g.dtype.type(0), xp.where(xw < 3, slope, g)), grad)

    @staticmethod
    def backward(ctx, gg):
        grad, x = ctx.saved_tensors
        need = ctx.needs_input_grad
        a = x._data
        return (HardswishGrad.apply(gg, x) if need[0] else None,
                masked_grad(gg * grad / 3, _const((a > -3) & (a < 3))) if need[1] else None)


def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6."""
    return (_ip(Hardswish) if inplace else Hardswish).apply(input)


def _check_lambda(x, lambd):
    big = {"float64": 1.79769e+308, "float32": 3.40282e+38, "float16": 65504.0, "bfloat16": 3.38953e+38}
    top = big.get(x.dtype.name)
    if top is not None and not 0 <= lambd <= np.finfo(x.dtype).max:
        shown = f"{top:g}" if top != 65504.0 else "65504"
        raise RuntimeError(f"lambda must be in range [0, {shown}] for input dtype {_type_word(x.dtype)}, but found "
                           f"{lambd:g}")


class Softshrink(ArrayFunction):
    """out = x - lambd (x > lambd), x + lambd (x < -lambd), 0 otherwise;   dx = grad where |x| > lambd"""
    node_name = "SoftshrinkBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x, lambd):
        xp = namespace(x)
        _float_only(x, "softshrink_check")
        _check_lambda(x, lambd)
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        xw = to_opmath(x)
        inside = (xw >= -lambd) & (xw <= lambd)  # false for NaN: NaN stays NaN, as in PyTorch
        # inside the band PyTorch returns x * 0, which keeps the sign: -0.5 -> -0.0
        with np.errstate(invalid="ignore"):  # (inf * 0 is computed, then not chosen)
            return _back(xp.where(inside, xw * 0, xp.where(xw > lambd, xw - lambd, xw + lambd)), x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        a = x._data
        return SoftshrinkGrad.apply(grad, x, ~((a >= -ctx.lambd) & (a <= ctx.lambd))), None


def softshrink(input, lambd=0.5):
    """x moved lambd towards 0 (0 inside [-lambd, lambd])."""
    return Softshrink.apply(input, lambd)


class Hardshrink(ArrayFunction):
    """out = 0 inside [-lambd, lambd], x outside;   dx = grad outside"""
    node_name = "HardshrinkBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x, lambd):
        xp = namespace(x)
        _float_only(x, "hardshrink_cpu")
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        inside = (to_opmath(x) >= -lambd) & (to_opmath(x) <= lambd)  # false for NaN: NaN stays NaN, as in PyTorch
        return xp.where(inside, 0, x).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        a = x._data
        return HardshrinkGrad.apply(grad, x, ~((a >= -ctx.lambd) & (a <= ctx.lambd))), None


def hardshrink(input, lambd=0.5):
    """0 inside [-lambd, lambd], x outside."""
    return Hardshrink.apply(input, lambd)


class Threshold(ArrayFunction):
    """out = value where x <= threshold, else x;   dx = grad where x > threshold"""
    node_name = "ThresholdBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x, threshold, value):
        ctx.save_for_backward(x)
        ctx.threshold = threshold
        return _threshold_kernel(x, threshold, value)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return ThresholdGrad.apply(grad, x, ~(to_opmath(x._data) <= ctx.threshold)), None, None  # (NaN: passed on)


def _threshold_kernel(x, threshold, value):
    # half precision compares in float32, against the threshold unrounded (PyTorch's opmath)
    xp = namespace(x)
    out = xp.where(to_opmath(x) <= threshold, xp.asarray(value).astype(x.dtype) if x.dtype != np.bool_ else bool(value),
                   x)
    return out.astype(x.dtype, copy=False)


class Threshold_(Threshold):
    """threshold in place (the backward reads a copy of the original input, as PyTorch's)"""
    node_name = "ThresholdBackward1"
    _inplace_of = 0


def threshold(input, threshold, value, inplace=False):
    """value where x <= threshold, x elsewhere."""
    _check_threshold_args(input, threshold, value)
    return (Threshold_ if inplace else Threshold).apply(input, threshold, value)


def threshold_(input, threshold, value):
    _check_threshold_args(input, threshold, value)
    return Threshold_.apply(input, threshold, value)


def _check_threshold_args(input, threshold, value):
    """PyTorch's kernel has no bool loop, and converts its numbers with the overflow check: value to the
    input's dtype, threshold to the dtype it compares in (float32 for float16/bfloat16)."""
    dt = input._data.dtype
    check_kernel_dtype("threshold_cpu", dt, "if")
    checked_int(threshold, opmath_np(dt))
    checked_int(value, dt)


# ====================================================================== parametric / random

class PreluKernel(ArrayFunction):
    """out = x if x > 0 else w * x (w broadcast per channel);   dx = grad * (1 or w),  dw = grad * x where x <= 0"""
    node_name = "PreluKernelBackward0"
    _elementwise = 2
    _result_format = "preserve_format"   # ATen's _prelu_kernel writes into empty_like(self), then iterates

    @staticmethod
    def forward(ctx, x, w):
        xp = namespace(x, w)
        _float_only(x, "prelu_cpu")
        ctx.save_for_backward(x, w)
        return xp.where(x > 0, x, w * x).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        gx = PreluGradInput.apply(grad, x, w) if need[0] else None
        gw = PreluGradWeight.apply(grad, x) if need[1] else None
        return gx, gw


# PyTorch's _prelu_kernel_backward, one op per output (its double backward is linear in the two incoming
# gradients, so two ops add up to its one node).  The first derivative tests x > 0, the double backward
# x >= 0: at x == 0 the double backward is not the derivative of the first one, and this copies that.

class PreluGradInput(ArrayFunction):
    """dx = grad where x > 0, else grad * w"""
    node_name = "PreluKernelBackwardBackward0"
    _elementwise = 3

    @staticmethod
    def forward(ctx, grad, x, w):
        xp = namespace(grad, x, w)
        ctx.save_for_backward(grad, x, w)
        return xp.where(x > 0, grad, grad * w).astype(grad.dtype, copy=False)

    @staticmethod
    def backward(ctx, gg):
        grad, x, w = ctx.saved_tensors
        keep = x >= 0
        need = ctx.needs_input_grad
        ggrad = where(keep, gg, gg * w) if need[0] else None
        gx = zero_grad(x) if need[1] else None
        gw = where(keep, 0.0, grad * gg) if need[2] else None
        return ggrad, gx, gw


class PreluGradWeight(ArrayFunction):
    """dw = grad * x where x <= 0, else 0 (summed to w's shape by the engine)"""
    node_name = "PreluKernelBackwardBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, grad, x):
        xp = namespace(grad, x)
        ctx.save_for_backward(grad, x)
        return xp.where(x > 0, xp.zeros((), grad.dtype), grad * x).astype(grad.dtype, copy=False)

    @staticmethod
    def backward(ctx, gg):
        grad, x = ctx.saved_tensors
        keep = x >= 0
        need = ctx.needs_input_grad
        ggrad = where(keep, 0.0, gg * x) if need[0] else None
        gx = where(keep, 0.0, grad * gg) if need[1] else None
        return ggrad, gx


def prelu(input, weight):
    """x if x > 0 else a * x, with one learnt slope a per channel (dim 1) or a single one."""
    input, weight = before_checks(PreluKernel, input, weight)   # (autocast casts first)
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {_type_word(input._data.dtype)} and "
                           f"{_type_word(weight._data.dtype)}")
    nd = input.ndim
    if weight.numel() != 1:
        if nd == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if nd > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    w = weight
    if nd != weight.ndim:
        shape = [1] * nd
        if nd > 1:
            shape[1] = weight.numel()
        w = weight.reshape(shape)
    return PreluKernel.apply(input, w)


class RreluWithNoise(ArrayFunction):
    """training: out = x * r for x <= 0, r ~ U(lower, upper) per element (the noise), x elsewhere;
    dx = grad * noise.   eval: leaky_relu with slope (lower + upper) / 2"""
    node_name = "RreluWithNoiseBackward0"
    _result_format = "contiguous_format"   # ATen's rrelu_with_noise allocates its result contiguous (no TensorIterator layout)

    @staticmethod
    def forward(ctx, x, lower, upper, training, generator):
        out, noise = _rrelu_kernel(x, lower, upper, training, generator)
        ctx.save_for_backward(x)
        if _recording(ctx):
            ctx.noise, ctx.slope = noise, (lower + upper) / 2
        return out

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return RreluGrad.apply(grad, x, ctx.noise, ctx.slope), None, None, None, None


class RreluWithNoise_(ArrayFunction):
    """rrelu in place (eval mode: the sign is read from the result)"""
    node_name = "RreluWithNoiseBackward1"
    _inplace_of = 0

    @staticmethod
    def forward(ctx, x, lower, upper, training, generator):
        out, noise = _rrelu_kernel(x, lower, upper, training, generator)
        ctx.save_for_backward(out)
        if _recording(ctx):
            ctx.noise, ctx.slope = noise, (lower + upper) / 2
        return out

    @staticmethod
    def backward(ctx, grad):
        out, = ctx.saved_tensors
        if ctx.noise is None and ctx.slope < 0:
            _inplace_leaky_error()
        return RreluGrad.apply(grad, out, ctx.noise, ctx.slope), None, None, None, None


class RreluGrad(ArrayFunction):
    """PyTorch's rrelu_with_noise_backward as an op of (grad, x): grad * noise while training, else
    leaky_relu's gradient with the mean slope. One node, as PyTorch's: its backward is this again for grad
    and an explicit zero for x (see LeakyReluBackward)."""
    node_name = "RreluWithNoiseBackwardBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, grad, x, noise, slope):
        ctx.save_for_backward(x)
        if _recording(ctx):
            ctx.noise, ctx.slope = noise, slope
        if noise is not None:   # training: the slopes drawn by the forward
            return grad * noise
        return _leaky_relu_grad(grad, x, slope)   # eval: leaky_relu's with the mean slope

    @staticmethod
    def backward(ctx, gg):
        x, = ctx.saved_tensors
        return (RreluGrad.apply(gg, x, ctx.noise, ctx.slope) if ctx.needs_input_grad[0] else None,
                zero_grad(gg) if ctx.needs_input_grad[1] else None, None, None)


def _rrelu_kernel(x, lower, upper, training, generator):
    """ATen's loop: each element x <= 0 (in memory order) draws r = lower + u (upper - lower), u a double."""
    xp = namespace(x)
    _float_only(x, "leaky_relu_cpu")
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    xw = to_opmath(x)
    if not training:
        return _back(xp.where(xw > 0, xw, xw * ((lower + upper) / 2)), x), None
    if x.dtype == np.float16 and type(x) is CPU_ARRAY:   # ATen's CPU kernel has no Half version
        raise NotImplementedError("\"rrelu_with_noise_out_cpu\" not implemented for 'Half'")
    neg = (x <= 0).ravel()
    lo, hi = float(xw.dtype.type(lower)), float(xw.dtype.type(upper))   # the bounds in the compute type
    if type(x) is CPU_ARRAY:
        from ..._random import _get_generator
        r = _get_generator(generator)._uniform_double(int(neg.sum())) * (hi - lo) + lo
    else:   # on a device: the device's generator, drawing there (other numbers than the CPU's, as in PyTorch)
        from ..._random import _device_generator
        from ..._device import device_of
        r = _device_generator(generator, device_of(x)).uniform(int(neg.sum())) * (hi - lo) + lo
    noise = xp.ones(x.size, dtype=xw.dtype)
    noise[neg] = r.astype(xw.dtype)
    noise = noise.reshape(x.shape)
    return _back(xw * noise, x), noise.astype(x.dtype, copy=False)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky relu: slopes ~ U(lower, upper) while training, their mean otherwise."""
    return (RreluWithNoise_ if inplace else RreluWithNoise).apply(input, lower, upper, bool(training), None)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return RreluWithNoise_.apply(input, lower, upper, bool(training), generator)


class Glu(ArrayFunction):
    """out = a * sigmoid(b), (a, b) the halves of x along dim;   da = grad * sigmoid(b),  db = grad * a * s (1 - s)"""
    node_name = "GluBackward0"

    @staticmethod
    def forward(ctx, x, dim):
        xp = namespace(x)
        _float_only(x, "glu_cpu")
        ctx.save_for_backward(x)
        ctx.dim = dim
        a, b = xp.split(to_opmath(x), 2, axis=dim)
        # ATen's TensorIterator over the two halves lays the result out
        return iterator_result(_back(a * _sigmoid(b), x), xp.split(x, 2, axis=dim), 2)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return GluGrad.apply(grad, x, ctx.dim), None


class GluGrad(ArrayFunction):
    """PyTorch's glu_backward as one op of (grad, x): [grad s, grad a s (1 - s)] along dim, s = sigmoid(b),
    each half computed in float32 for the half types and rounded once.  One node, as PyTorch's
    (GluBackwardBackward0): its backward is PyTorch's glu_double_backward, in its formulas and order."""
    node_name = "GluBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, x, dim):
        xp = namespace(grad, x)
        ctx.save_for_backward(grad, x)
        ctx.dim = dim
        g = to_opmath(grad)
        a, b = xp.split(to_opmath(x), 2, axis=dim)
        with np.errstate(over="ignore", invalid="ignore"):
            s = 1 / (1 + xp.exp(-b))   # (ATen's kernel: this formula, not a stable one)
            halves = (g * s, (1 - s) * s * a * g)
        return xp.concatenate([_back(h, x) for h in halves], axis=dim)

    @staticmethod
    def backward(ctx, gg):
        grad, x = ctx.saved_tensors
        from ...ops.join import cat
        dim = ctx.dim
        a, b = x.chunk(2, dim)
        gg_a, gg_b = gg.chunk(2, dim)
        s = b.sigmoid()
        one_sub_s = 1 - s
        s_one_sub_s = s * one_sub_s
        d_grad = d_x = None
        if ctx.needs_input_grad[0]:   # glu_double_backward_grad_output
            t = gg * GluGrad.apply(grad.new_ones(grad.shape), x, dim)
            t_a, t_b = t.chunk(2, dim)
            d_grad = t_a + t_b
        if ctx.needs_input_grad[1]:   # glu_double_backward
            d_a = gg_b * grad * s_one_sub_s
            second_order = s_one_sub_s * one_sub_s - s * s_one_sub_s
            d_b = gg_b * a * grad * second_order + gg_a * grad * s_one_sub_s
            d_x = cat([d_a, d_b], dim)
        return d_grad, d_x, None


def glu(input, dim=-1):
    """a * sigmoid(b), where a and b are the two halves of the input along ``dim``."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    from ...ops._util import wrap_dim
    d = wrap_dim(dim, input.ndim)
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}")
    return Glu.apply(input, d)


# ====================================================================== softmax family

def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an "
                  f"argument.", stacklevel=user_stacklevel())
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=user_stacklevel(), dtype=None):
    """exp(x) / sum(exp(x)) along ``dim`` (``dtype`` casts the input first)."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.ndim, _stacklevel)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=user_stacklevel(), dtype=None):
    """softmax(-x)."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.ndim, _stacklevel)
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=user_stacklevel(), dtype=None):
    """x - logsumexp(x) along ``dim``."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.ndim, _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + g) / tau), g ~ Gumbel(0, 1); ``hard``: one-hot forward, soft gradient."""
    from ...ops.creation import empty_like, zeros_like
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=user_stacklevel())
    gumbels = -empty_like(logits).exponential_().log()   # ~Gumbel(0, 1)
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
        return y_hard - y_soft.detach() + y_soft
    return y_soft


# the functional activations PyTorch also offers as Tensor methods (``t.hardshrink(0.5)``, ``t.prelu(w)``)
_register({"hardshrink": hardshrink, "prelu": prelu})
