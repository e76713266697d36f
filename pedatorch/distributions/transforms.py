"""Transforms: invertible maps y = f(x) with a computable log |det dy/dx| (``torch.distributions.transforms``).

They serve two purposes:

* building new distributions: if X ~ p then Y = f(X) has the density (change of variables)

      log p_Y(y) = log p_X(x) - log |det df/dx (x)|,   x = f^-1(y)

  (``TransformedDistribution``: a LogNormal is ``exp`` of a Normal);
* optimising a constrained parameter through an unconstrained one: ``scale = ExpTransform()(u)`` is
  positive for every real ``u`` (see ``constraint_registry.transform_to``).

Each transform says what it maps from and to (``domain`` and ``codomain``, constraints), whether it is
one-to-one (``bijective``), for monotone ones the ``sign`` of dy/dx, and how many rightmost dims make
up one event (``event_dim``: 0 for elementwise maps, 1 for maps of whole vectors like softmax).
``t.inv`` is the inverse transform; ``ComposeTransform([f, g])`` is x -> g(f(x)).
"""
import math

from .. import linalg
from .._dtype import finfo
from .._tensor import Size
from ..nn.functional import logsigmoid, pad, softplus
from ..ops.creation import eye, full_like, zeros_like
from ..ops.elementwise import atanh, clamp, sigmoid, tanh
from ..ops.join import cat, stack
from ..ops.reduction import cumsum
from ..ops.shape import broadcast_shapes
from . import constraints
from .utils import (_class_repr, _is_number, _sum_rightmost, broadcast_all, lazy_property, tril_matrix_to_vec,
                    vec_to_tril_matrix)

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
           "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftplusTransform", "TanhTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform",
           "Transform", "identity_transform"]


class Transform:
    """Base class: an invertible map with a computable log-abs-det-Jacobian.

    Subclasses implement ``_call`` (x -> y), ``_inverse`` (y -> x) and, when bijective,
    ``log_abs_det_jacobian(x, y)``; they set ``domain``, ``codomain``, ``bijective`` and ``sign``.

    Args:
        cache_size (int): 0: no caching.  1: remember the last (x, y) pair, so that ``t.inv(t(x))`` returns
            the very tensor ``x`` without computing the inverse (useful when the inverse is costly or
            unstable, e.g. atanh near +-1).  Only 0 and 1 are supported.

    Attributes:
        domain, codomain (Constraint): the valid inputs and outputs.
        bijective (bool): ``t.inv(t(x)) == x`` and ``t(t.inv(y)) == y`` everywhere on the domain / codomain.
        sign (int or Tensor): +1 or -1 for monotone increasing / decreasing elementwise bijections.
    """
    bijective = False

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._inv = None
        if cache_size == 1:
            self._cached_x_y = None, None
        super().__init__()

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_inv"] = None    # the inverse refers back to us: rebuild it on demand instead of pickling a cycle
        return state

    @property
    def event_dim(self):
        """Dims per event, when the domain and codomain agree on it (``StickBreakingTransform``: 1)."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform (made once and kept, so that ``t.inv.inv is t``)."""
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    @property
    def sign(self):
        """The sign of dy/dx for a monotone transform."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        """The same transform with another ``cache_size`` (``self`` if it already has it)."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{_class_repr(type(self))}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other    # parameter-free subclasses compare by type instead

    def __ne__(self, other):
        return not self.__eq__(other)

    def __call__(self, x):
        """y = f(x)"""
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:              # identity, not equality: the very same tensor object
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        """x = f^-1(y), through the same one-entry cache."""
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """log |det dy/dx|, given both x and y = f(x) (whichever is cheaper to use)."""
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__ + "()"

    def forward_shape(self, shape):
        """The shape of f(x) for x of this shape (most transforms keep it)."""
        return shape

    def inverse_shape(self, shape):
        """The shape of f^-1(y) for y of this shape."""
        return shape


class _InverseTransform(Transform):
    """``t.inv``: swaps domain/codomain, call/inverse; log |det| of the inverse is minus that of ``t``."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    def __repr__(self):
        return f"{self.__class__.__name__}({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)    # uses (and fills) the forward transform's cache

    def log_abs_det_jacobian(self, x, y):
        # dx/dy = (dy/dx)^-1, so log |det dx/dy| = -log |det dy/dx| at the matching points
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """``ComposeTransform([f1, f2, f3])``: x -> f3(f2(f1(x))).

    log |det| of the chain is the sum of the parts' (chain rule: the Jacobian is the product of the parts'
    Jacobians), each first summed over the dims that are event dims of the whole chain but batch dims of
    that part (an elementwise ``exp`` inside a chain that ends in a vector transform).
    The parts do the caching (``cache_size`` is passed on to them).

    Args:
        parts (list of Transform): the transforms, applied first to last.
        cache_size (int): 0 or 1, see ``Transform``.
    """

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        # walk back from the end: how many input dims does one output event of the whole chain span?
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @lazy_property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign     # decreasing after decreasing is increasing
        return sign

    @property
    def inv(self):
        if self._inv is None:
            # (f3 o f2 o f1)^-1 = f1^-1 o f2^-1 o f3^-1
            self._inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv._inv = self
        return self._inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return zeros_like(x)
        # the intermediate values (free when the parts cache them)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        total = 0
        event_dim = self.domain.event_dim
        for part, x_in, y_out in zip(self.parts, xs[:-1], xs[1:]):
            term = part.log_abs_det_jacobian(x_in, y_out)
            total = total + _sum_rightmost(term, event_dim - part.domain.event_dim)
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return self.__class__.__name__ + "(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"


identity_transform = ComposeTransform([])   # the empty chain: y = x, log |det| = 0


class IndependentTransform(Transform):
    """Treats ``reinterpreted_batch_ndims`` more rightmost dims as event dims of ``base_transform``.

    The map itself is unchanged; only ``log_abs_det_jacobian`` sums over those dims (the transform of
    independent coordinates has a diagonal Jacobian: its log-determinant is the sum of the entries').

    Args:
        base_transform (Transform): the transform to wrap.
        reinterpreted_batch_ndims (int): how many extra rightmost dims to treat as event dims.
        cache_size (int): 0 or 1.
    """

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{self.__class__.__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshapes the rightmost ``in_shape`` dims to ``out_shape`` (same number of elements).

    A reshape only renames the entries, so log |det| = 0 (one zero per batch entry).

    Args:
        in_shape (torch.Size): the input event shape.
        out_shape (torch.Size): the output event shape.
        cache_size (int): 0 or 1.
    """
    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = Size(in_shape)
        self.out_shape = Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch_shape = x.shape[:x.dim() - len(self.in_shape)]
        return x.reshape(batch_shape + self.out_shape)

    def _inverse(self, y):
        batch_shape = y.shape[:y.dim() - len(self.out_shape)]
        return y.reshape(batch_shape + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        batch_shape = x.shape[:x.dim() - len(self.in_shape)]
        return x.new_zeros(batch_shape)

    def forward_shape(self, shape):
        return self._swap_event_shape(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._swap_event_shape(shape, self.out_shape, self.in_shape)

    @staticmethod
    def _swap_event_shape(shape, old, new):
        if len(shape) < len(old):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(old)
        if shape[cut:] != old:
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {old}")
        return shape[:cut] + new


# ---------------------------------------------------------------- elementwise bijections

class ExpTransform(Transform):
    r"""y = exp(x).  dy/dx = exp(x), so log |dy/dx| = x."""
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    r"""y = x^exponent on the positive reals.  dy/dx = exponent x^(exponent - 1) = exponent y / x.

    Args:
        exponent (Tensor or float): the power (broadcast with the input).
    """
    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @lazy_property
    def sign(self):
        return self.exponent.sign()     # increasing for positive powers, decreasing for negative ones

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and self.exponent.eq(other.exponent).all().item()

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return broadcast_shapes(shape, self.exponent.shape)

    def inverse_shape(self, shape):
        return broadcast_shapes(shape, self.exponent.shape)


def _clipped_sigmoid(x):
    """sigmoid(x) kept inside [tiny, 1 - eps], so that its logit and log stay finite."""
    limits = finfo(x.dtype)
    return clamp(sigmoid(x), min=limits.tiny, max=1.0 - limits.eps)


class SigmoidTransform(Transform):
    r"""y = sigmoid(x) = 1 / (1 + exp(-x)), x = logit(y) = log y - log(1 - y).

    dy/dx = y (1 - y), and log sigmoid(x) = -softplus(-x), log(1 - sigmoid(x)) = -softplus(x), so
    log |dy/dx| = -softplus(-x) - softplus(x), computed from x (stable even where y rounds to 0 or 1).
    """
    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        limits = finfo(y.dtype)
        y = y.clamp(min=limits.tiny, max=1.0 - limits.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -softplus(-x) - softplus(x)


class SoftplusTransform(Transform):
    r"""y = softplus(x) = log(1 + exp(x)), x = log(exp(y) - 1) = y + log(1 - exp(-y)).

    dy/dx = sigmoid(x), so log |dy/dx| = -softplus(-x).
    """
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    def _call(self, x):
        return softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -softplus(-x)


class TanhTransform(Transform):
    r"""y = tanh(x), x = atanh(y).

    dy/dx = 1 - tanh(x)^2 = 4 / (e^x + e^-x)^2, whose log is written stably as
    2 (log 2 - x - softplus(-2x)) (no cancellation in 1 - y^2 for large |x|).
    The inverse is not clamped: atanh(+-1) is infinite; use ``cache_size=1`` to get x back exactly.
    """
    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return atanh(y)

    def log_abs_det_jacobian(self, x, y):
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class AbsTransform(Transform):
    r"""y = |x|.  Not bijective (x and -x meet); its ``inv`` returns the nonnegative preimage y."""
    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    r"""y = loc + scale * x (entrywise).  log |dy/dx| = log |scale|.

    With ``event_dim`` > 0 the log |det| is summed over the rightmost ``event_dim`` dims (one number per
    event: the Jacobian is diagonal).  Here ``scale`` is first broadcast to the input's shape, so a scalar
    ``scale`` on an event of n entries gives n log|scale|; PyTorch does that only for a Python-number
    scale (a 0-dim tensor scale counts once there).

    Args:
        loc (Tensor or float): location.
        scale (Tensor or float): scale.
        event_dim (int): the size of the event shape: 0 for scalars, 1 for vectors, 2 for matrices...
        cache_size (int): 0 or 1.
    """
    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        return _equal(self.loc, other.loc) and _equal(self.scale, other.scale)

    @property
    def sign(self):
        if _is_number(self.scale):
            return 1 if self.scale > 0 else -1 if self.scale < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        if _is_number(self.scale):
            result = full_like(x, math.log(abs(self.scale)))
        else:
            result = self.scale.abs().log()
            result = result.expand(broadcast_shapes(result.shape, x.shape))
        return _sum_rightmost(result, self.event_dim)

    def forward_shape(self, shape):
        return broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))

    def inverse_shape(self, shape):
        return self.forward_shape(shape)


def _equal(a, b):
    """Numbers compare as numbers; otherwise entrywise, all equal."""
    if _is_number(a) and _is_number(b):
        return a == b
    return bool((a == b).all().item())


# ---------------------------------------------------------------- vectors and matrices

class SoftmaxTransform(Transform):
    r"""Real vectors -> the simplex: y = exp(x) / sum(exp(x)).

    Not bijective (adding a constant to x does not change y; the inverse returns log y, one preimage),
    so it has no log |det|.  Being nearly coordinate-wise, it suits optimisation; for densities use
    ``StickBreakingTransform``.
    """
    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()    # subtract the max first: exp cannot overflow
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape


class StickBreakingTransform(Transform):
    r"""Real vectors of length K -> the simplex of K + 1 entries, one-to-one, by breaking a stick:

        z_i = sigmoid(x_i - log(K - i))               (i = 0 .. K-1; the shift makes x = 0 the centre)
        y_i = z_i * prod_{j<i} (1 - z_j)              (a fraction z_i of what is left of the stick)
        y_K = prod_{j<K} (1 - z_j)                    (the rest)

    The Jacobian of the first K outputs is triangular with diagonal y_i (1 - z_i), so
    log |det| = sum_i [log y_i + log(1 - z_i)], with log(1 - sigmoid(t)) = logsigmoid(t) - t.
    """
    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    @staticmethod
    def _offset_log(x, k):
        """log(K - i) for i = 0..K-1: log K, log(K - 1), ..., log 1."""
        return (k + 1 - x.new_ones(k).cumsum(-1)).log()

    def _call(self, x):
        z = _clipped_sigmoid(x - self._offset_log(x, x.shape[-1]))
        z_cumprod = (1 - z).cumprod(-1)                           # what is left after each break
        return pad(z, [0, 1], value=1) * pad(z_cumprod, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        # z_i = y_i / (1 - sum_{j<i} y_j), so logit(z_i) = log y_i - log(1 - sum_{j<=i} y_j)
        remaining = 1 - y_crop.cumsum(-1)
        remaining = clamp(remaining, min=finfo(y.dtype).tiny)   # rounding can make it <= 0
        return y_crop.log() - remaining.log() + self._offset_log(y, y_crop.shape[-1])

    def log_abs_det_jacobian(self, x, y):
        t = x - self._offset_log(x, x.shape[-1])
        return (-t + logsigmoid(t) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """Unconstrained square matrices -> lower-triangular ones with a positive diagonal:
    keep the strict lower triangle, exponentiate the diagonal, drop the rest (so not bijective).
    Useful to parameterise a covariance through its Cholesky factor."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Unconstrained square matrices -> positive-definite ones: L L^T with L = LowerCholeskyTransform()(x)."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    def _call(self, x):
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(linalg.cholesky(y))


class CorrCholeskyTransform(Transform):
    r"""Real vectors of length D(D-1)/2 -> Cholesky factors of D x D correlation matrices (lower triangular,
    positive diagonal, rows of unit length).

    The vector fills the strict lower triangle (row by row) after ``tanh`` (entries r in (-1, 1)); each row
    then becomes a unit vector by signed stick breaking: y_ij = r_ij sqrt(1 - sum_{k<j} y_ik^2), and the
    diagonal takes what is left, y_ii = sqrt(1 - sum_{k<i} y_ik^2).

    ``log_abs_det_jacobian`` is taken with respect to the strict lower triangle of y (the diagonal is
    determined by it): sum over entries of log(1 - r^2) (tanh) + 1/2 log(1 - sum_{k<j} y_ik^2) (the breaks).
    """
    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        eps = finfo(x.dtype).eps
        r = vec_to_tril_matrix(tanh(x).clamp(min=-1 + eps, max=1 - eps), diag=-1)
        # y_ij = r_ij * prod_{k<j} sqrt(1 - r_ik^2): the stick left before break j, in squared length
        left = (1 - r ** 2).sqrt().cumprod(-1)
        r = r + eye(r.shape[-1], dtype=r.dtype, device=r.device)    # the diagonal takes all that is left
        return r * pad(left[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        left = pad((1 - cumsum(y * y, dim=-1))[..., :-1], [1, 0], value=1)   # 1 - sum_{k<j} y_ik^2
        r = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        return (r.log1p() - r.neg().log1p()) / 2     # atanh

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        # with diag=-2 the cumulative sums line up with the entries they scale, no shift needed
        left = tril_matrix_to_vec(1 - (y * y).cumsum(dim=-1), diag=-2)
        stick_breaking_logdet = 0.5 * left.log().sum(-1)
        tanh_logdet = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)      # solves d (d - 1) / 2 = n
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (d, d)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return shape[:-2] + (d * (d - 1) // 2,)


# ---------------------------------------------------------------- transforms of pieces

def _check_dim_and_size(t, dim, size, what, var, place):
    """PyTorch's AssertionErrors for a ``dim`` outside ``t`` (called ``place``) or a wrong size along it."""
    if not (-t.dim() <= dim < t.dim()):
        raise AssertionError(f"dim {dim} out of range for {place} with {t.dim()} dimensions")
    if t.size(dim) != size:
        raise AssertionError(f"{var}.size({dim}) = {t.size(dim)} must equal {what} {size}")


class CatTransform(Transform):
    """Applies ``tseq[i]`` to the i-th block of ``lengths[i]`` slices along ``dim`` (blocks as ``torch.cat``
    joins them).  ``CatTransform([ExpTransform(), identity_transform], 0, [10, 10])``: exp on the first ten
    entries, the rest unchanged."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.transforms)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})")
        self.dim = dim

    @lazy_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _blocks(self, t):
        start = 0
        for length in self.lengths:
            yield t.narrow(self.dim, start, length)
            start += length

    def _call(self, x):
        _check_dim_and_size(x, self.dim, self.length, "length", "x", "tensor")
        return cat([f(b) for f, b in zip(self.transforms, self._blocks(x))], dim=self.dim)

    def _inverse(self, y):
        _check_dim_and_size(y, self.dim, self.length, "length", "y", "tensor")
        return cat([f.inv(b) for f, b in zip(self.transforms, self._blocks(y))], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        _check_dim_and_size(x, self.dim, self.length, "length", "x", "x")
        _check_dim_and_size(y, self.dim, self.length, "length", "y", "y")
        terms = []
        for f, xb, yb in zip(self.transforms, self._blocks(x), self._blocks(y)):
            terms.append(_sum_rightmost(f.log_abs_det_jacobian(xb, yb), self.event_dim - f.event_dim))
        # is ``dim`` a batch dim of the result (then the blocks' terms are joined) or inside an event (added)?
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim += self.event_dim
        return cat(terms, dim=dim) if dim < 0 else sum(terms)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Applies ``tseq[i]`` to ``x.select(dim, i)`` and stacks the results back along ``dim``."""

    def __init__(self, tseq, dim=0, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, t):
        return [t.select(self.dim, i) for i in range(t.size(self.dim))]

    def _call(self, x):
        _check_dim_and_size(x, self.dim, len(self.transforms), "len(transforms)", "x", "tensor")
        return stack([f(s) for f, s in zip(self.transforms, self._slices(x))], dim=self.dim)

    def _inverse(self, y):
        _check_dim_and_size(y, self.dim, len(self.transforms), "len(transforms)", "y", "tensor")
        return stack([f.inv(s) for f, s in zip(self.transforms, self._slices(y))], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        _check_dim_and_size(x, self.dim, len(self.transforms), "len(transforms)", "x", "x")
        _check_dim_and_size(y, self.dim, len(self.transforms), "len(transforms)", "y", "y")
        terms = [f.log_abs_det_jacobian(xs, ys)
                 for f, xs, ys in zip(self.transforms, self._slices(x), self._slices(y))]
        return stack(terms, dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """y = F(x), the cdf of ``distribution``: maps its support onto [0, 1].  dy/dx is the density, so
    log |dy/dx| = ``distribution.log_prob(x)``.  (A Gaussian copula: a MultivariateNormal pushed through
    ``CumulativeDistributionTransform(Normal(0, 1))``.)

    Args:
        distribution (Distribution): the distribution whose cdf (and icdf, for the inverse) to use.
    """
    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
