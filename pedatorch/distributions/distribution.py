"""``Distribution``: the base class of every distribution (``torch.distributions.Distribution``).

Shapes, the vocabulary of the whole package:

* ``event_shape``: the shape of one draw (``()`` for a Normal, ``(k,)`` for a Dirichlet over k classes);
* ``batch_shape``: how many independent distributions the parameters describe at once;
* ``sample(sample_shape)`` returns ``sample_shape + batch_shape + event_shape``;
* ``log_prob(value)`` returns one number per event: ``value``'s shape without the ``event_shape`` dims.

``Normal(torch.zeros(2, 3), 1.)`` has batch_shape (2, 3) and event_shape (); wrapping it in
``Independent(..., 1)`` moves one dim: batch_shape (2,), event_shape (3,).
"""
import warnings

from .._warnings import user_stacklevel
from .._tensor import Size, Tensor
from ..autograd.grad_mode import no_grad
from ..ops.elementwise import exp
from . import constraints
from .utils import _class_repr, lazy_property

__all__ = ["Distribution"]


class Distribution:
    """Abstract base class for probability distributions.

    Args:
        batch_shape (torch.Size): the shape over which parameters are batched.
        event_shape (torch.Size): the shape of a single sample (without batching).
        validate_args (bool, optional): check the parameters now, and the values given to ``log_prob``
            later.  Default: the class-wide setting (on, unless Python runs with ``-O``).
    """
    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__     # like ``assert``: on by default, off under ``python -O``

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for every distribution created afterwards."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None):
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()
        super().__init__()

    def _check_parameters(self):
        """Raise PyTorch's ValueError if a parameter lies outside its ``arg_constraints`` set."""
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(f"{_class_repr(type(self))} does not define `arg_constraints`. Please set "
                          "`arg_constraints = {}` or initialize the distribution with `validate_args=False` to turn off "
                          "validation.", stacklevel=user_stacklevel())
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue     # cannot be checked
            if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                continue     # given the other way (logits, not probs): don't compute it just to check it
            value = getattr(self, param)
            if not constraint.check(value).all():
                raise ValueError(f"Expected parameter {param} ({type(value).__name__} of shape "
                                 f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                                 f"{constraint!r}, but found invalid values:\n{value}")

    def expand(self, batch_shape, _instance=None):
        """A new distribution with parameters ``expand``-ed to ``batch_shape`` (views: no new memory, and
        no new validation).  Subclasses implement it."""
        raise NotImplementedError

    # ------------------------------------------------------------ shapes and sets
    @property
    def batch_shape(self):
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """``{parameter name: Constraint}`` for the parameters that validation checks."""
        raise NotImplementedError

    @property
    def support(self):
        """The Constraint that every sample satisfies."""
        raise NotImplementedError

    # ------------------------------------------------------------ moments
    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{_class_repr(type(self))} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        """sqrt(variance)"""
        return self.variance.sqrt()

    # ------------------------------------------------------------ sampling
    def sample(self, sample_shape=Size()):
        """A sample of shape ``sample_shape + batch_shape + event_shape``, with no gradient."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()):
        """A reparameterised sample: a differentiable function of the parameters and of parameter-free
        noise (``loc + eps * scale``), so gradients flow back to the parameters."""
        raise NotImplementedError

    def sample_n(self, n):
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning, stacklevel=user_stacklevel())
        return self.sample(Size((n,)))

    # ------------------------------------------------------------ densities
    def log_prob(self, value):
        """log p(value): one number per event."""
        raise NotImplementedError

    def cdf(self, value):
        """P(X <= value)"""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse of ``cdf``: the x with P(X <= x) = value."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """All values of a discrete distribution along dim 0: shape ``(cardinality,) + batch_shape + event_shape``
        (with ``expand=False`` the batch dims are 1)."""
        raise NotImplementedError

    def entropy(self):
        """H = -E[log p(X)], of shape batch_shape."""
        raise NotImplementedError

    def perplexity(self):
        """exp(entropy)"""
        return exp(self.entropy())

    # ------------------------------------------------------------ helpers for subclasses
    def _extended_shape(self, sample_shape=Size()):
        """``sample_shape + batch_shape + event_shape``: the shape of ``sample(sample_shape)``."""
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        return Size(sample_shape + self._batch_shape + self._event_shape)

    def _validate_sample(self, value):
        """Check a value given to ``log_prob``/``cdf``: a Tensor, ending in ``event_shape``, broadcastable with
        ``batch_shape + event_shape``, and inside the ``support``.  Raises PyTorch's ValueErrors."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {value.size()} vs "
                             f"{self._event_shape}.")
        actual_shape = value.size()
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual_shape} vs "
                                 f"{expected_shape}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{_class_repr(type(self))} does not define `support` to enable sample validation. Please "
                          "initialize the distribution with `validate_args=False` to turn off validation.",
                          stacklevel=user_stacklevel())
            return
        if not support.check(value).all():
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({support!r}) of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        """An empty instance for ``expand`` to fill (a subclass with its own __init__ must write its own expand)."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                                      "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        """``Normal(loc: torch.Size([2]), scale: torch.Size([2]))``: each given parameter, as its value when it has
        one element, otherwise as its shape."""
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
                         for p in names)
        return self.__class__.__name__ + "(" + args + ")"
