"""Parametrizations (``torch.nn.utils.parametrize``): make ``module.weight`` a *function* of other tensors.

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    m = nn.Linear(3, 3)
    register_parametrization(m, "weight", Symmetric())
    m.weight                                  # computed now: Symmetric()(m.parametrizations.weight.original)

How it works, in three moves:

1. The tensor is taken off the module and stored in ``m.parametrizations.weight``, a
   ``ParametrizationList`` (a ModuleList of the parametrizations, applied in order), as its parameter
   ``original`` -- or ``original0``, ``original1``, ... when the parametrization's ``right_inverse``
   splits it into several tensors (weight norm stores a magnitude and a direction).  The optimizer
   trains these; the state dict holds ``parametrizations.weight.original``.
2. The module's class is swapped for a new subclass, ``ParametrizedLinear``, made just for this object,
   so that the next move does not touch other ``Linear`` modules.
3. That subclass gets a property ``weight``: reading it runs the parametrizations on ``original`` (with
   autograd, so gradients flow back to ``original``); assigning to it runs ``right_inverse`` and stores
   the result into ``original``.

``cached()`` lets a forward pass that reads ``m.weight`` several times compute it once.
"""
import collections.abc
import copyreg
from contextlib import contextmanager
from copy import deepcopy

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations", "transfer_parametrizations_and_params"]

# ---------------------------------------------------------------- caching
_cache_enabled = 0  # a depth counter, so that cached() contexts may nest
_cache = {}         # (id(module), tensor name) -> the tensor computed inside the outermost cached()


@contextmanager
def cached():
    """Inside this context, each parametrized tensor is computed on its first access and reused after.

    Useful when a module reads a parametrized weight many times in one forward (an RNN's weight, at
    every time step).  The cache is emptied when the outermost ``cached()`` exits.
    """
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


# ---------------------------------------------------------------- helpers
def _register_parameter_or_buffer(module, name, X):
    if isinstance(X, Parameter):
        module.register_parameter(name, X)
    else:
        module.register_buffer(name, X)


def _maybe_set(dest, src):
    """Make ``dest`` hold ``src``'s data, keeping ``dest`` the same object (PyTorch's ``dest.set_(src)``):
    an optimizer holding ``dest`` keeps training the right tensor.  The shape may change."""
    dest.data = src


def _is_sequence(x):
    return isinstance(x, collections.abc.Sequence)


# ---------------------------------------------------------------- the list of parametrizations
class ParametrizationList(ModuleList):
    """The parametrizations of one tensor of a module, and the unparametrized tensor(s) they start from.

    ``original`` (or ``original0``, ``original1``, ... when the first parametrization's ``right_inverse``
    returns a sequence) is ``right_inverse`` applied to the tensor the module had, so that right after
    registration ``module.weight`` has (up to rounding) its old value.  Calling the list runs
    ``self[0](original)``, then ``self[1]`` on the result, and so on.

    ``unsafe=True`` skips the check that the parametrized tensor keeps the dtype and shape of the original.
    """

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype

        # what to store: the right inverses, last parametrization first (the inverse of f1(f0(x)) is
        # f0^-1(f1^-1(y))); a parametrization without one (or raising NotImplementedError) is skipped
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass

        if not isinstance(new, Tensor) and not _is_sequence(new):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)

        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            if original.device != new.device:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the device.\n"
                                 f"original.device: {original.device}\n"
                                 f"right_inverse(original).device: {new.device}")
            # keep the very same Parameter object (an optimizer may already hold it), with the new data
            with no_grad():
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                                     "(list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(originali).__name__}.")
                # new tensors: Parameters if the original was one, with its requires_grad
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)

        if not self.unsafe:
            # a parametrization must give back a tensor like the one it replaces
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
            if Z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless "
                                 "`unsafe` flag is enabled.\n"
                                 f"unparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {Z.dtype}")
            if Z.shape != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless "
                                 "`unsafe` flag is enabled.\n"
                                 f"unparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {Z.shape}")

    def right_inverse(self, value):
        """Store into ``original`` the tensor(s) that make the parametrization give ``value``
        (what ``module.weight = value`` runs).  Every parametrization must have a ``right_inverse``."""
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement "
                                       "right_inverse.")
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                                     f"while `original` has dtype {self.original.dtype}")
                _maybe_set(self.original, value)
            else:
                if not _is_sequence(value):
                    raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError("'right_inverse' must return a sequence of tensors of length "
                                     f"{self.ntensors}. Got a sequence of length {len(value)}.")
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if not isinstance(tensor, Tensor):
                        raise ValueError("'right_inverse' must return a sequence of tensors "
                                         f"or reference-type opaques. Got element {i} of type "
                                         f"{type(tensor).__name__}.")
                    if original_i.dtype != tensor.dtype:
                        raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} "
                                         f"while `original{i}` has dtype {original_i.dtype}")
                    _maybe_set(original_i, tensor)

    def forward(self):
        # the first parametrization takes the stored tensor(s); each next one the previous result
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for i in range(1, len(self)):
            x = self[i](x)
        return x


# ---------------------------------------------------------------- the class swap and the property
def _inject_new_class(module):
    """Give ``module`` a class of its own, ``Parametrized<Class>``, a subclass of its class.

    Properties live on classes; a fresh subclass per module keeps ``weight``'s property off every other
    module of the same class.  Pickling such a module is refused (its class exists only in memory: save
    its state_dict instead); ``copy.deepcopy`` gets a plain attribute-by-attribute copy."""
    cls = module.__class__

    def default_deepcopy(self, memo):
        obj = memo.get(id(self))
        if obj is not None:
            return obj
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        replica.__dict__ = deepcopy(self.__dict__, memo)
        for slot in copyreg._slotnames(self.__class__):  # attributes that live in __slots__, not __dict__
            if hasattr(self, slot):
                setattr(replica, slot, deepcopy(getattr(self, slot), memo))
        return replica

    def getstate(self):
        raise RuntimeError(
            "Serialization of parametrized modules is only "
            "supported through state_dict(). See:\n"
            "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
            "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")

    dct = {"__getstate__": getstate}
    # without this, deepcopy would fall back on pickling's protocol and hit getstate
    if not hasattr(cls, "__deepcopy__"):
        dct["__deepcopy__"] = default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), dct)


def _inject_property(module, tensor_name):
    """Add to ``module``'s own class a property ``tensor_name``: get computes, set calls right_inverse."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(module), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = _cache[key] = parametrization()
        return tensor

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


# ---------------------------------------------------------------- the public functions
def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Parametrize ``module.<tensor_name>`` (a parameter or a buffer) by the module ``parametrization``.

    From now on ``module.<tensor_name>`` returns ``parametrization(original)``.  If the parametrization
    has a method ``right_inverse(X)``, ``original`` starts as ``right_inverse(<the tensor>)`` (so the value
    is unchanged when the tensor already satisfies the constraint), and assigning to
    ``module.<tensor_name>`` goes through it.  Registering a second parametrization on the same tensor
    appends it to the list (it is applied after the first).

    ``unsafe=True`` allows the parametrization to change the shape or dtype.  Returns ``module``.
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            # the new parametrization acts on the current parametrized value: check it on that value
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            if not isinstance(X, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
            if X.dtype != Y.dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless "
                                 "the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.dtype: {Y.dtype}\n"
                                 f"parametrization(module.{tensor_name}).dtype: {X.dtype}")
            if X.shape != Y.shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless "
                                 "the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.shape: {Y.shape}\n"
                                 f"parametrization(module.{tensor_name}).shape: {X.shape}")
            if hasattr(parametrization, "right_inverse"):
                try:
                    Z = parametrization.right_inverse(X)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(Z, Tensor):
                        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: "
                                         f"{type(Z).__name__}")
                    if Z.dtype != Y.dtype:
                        raise ValueError("The tensor returned by parametrization.right_inverse must have the same "
                                         f"dtype as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                                         f"module.{tensor_name}.dtype: {Y.dtype}\n"
                                         f"returned dtype: {Z.dtype}")
                    if Z.shape != Y.shape:
                        raise ValueError("The tensor returned by parametrization.right_inverse must have the same "
                                         f"shape as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                                         f"module.{tensor_name}.shape: {Y.shape}\n"
                                         f"returned shape: {Z.shape}")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe  # once unsafe, the whole list is
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        # built before anything changes on the module, so that a failing check leaves it as it was
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)  # the property will answer for this name from now on
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has any parametrization (``tensor_name=None``) or one on ``tensor_name``."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo the parametrizations on ``module.<tensor_name>``: it becomes a plain parameter (or buffer)
    again, holding the current parametrized value (``leave_parametrized=True``) or ``original``.

    The parameter object is ``original`` itself, so an optimizer that holds it keeps working.  When the
    last parametrization of the module goes, the module gets its own class back.
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _maybe_set(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        # several originals: no one of them can hold the value, so make a new tensor
        t = getattr(module, tensor_name)
        original = Parameter(t.detach()) if t.requires_grad else t

    delattr(module.__class__, tensor_name)  # the property
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]  # the class it had before the swap
    return module


def type_before_parametrizations(module):
    """The module's class, seeing through the ``Parametrized...`` class the swap made."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Register on ``to_module`` the parametrizations of ``from_module`` (all, or those of ``tensor_name``)
    and make it share ``from_module``'s ``original`` tensors.  Returns ``to_module``."""
    if is_parametrized(from_module):
        names = from_module.parametrizations if tensor_name is None else [tensor_name]
        for name in names:
            if not hasattr(to_module, name):
                setattr(to_module, name, Parameter(getattr(from_module, name)))
            for param_func in from_module.parametrizations[name]:
                register_parametrization(to_module, name, param_func)
            source = from_module.parametrizations[name]
            target = to_module.parametrizations[name]
            if hasattr(source, "original"):
                target.original = source.original
            else:
                i = 0
                while hasattr(source, f"original{i}"):
                    setattr(target, f"original{i}", getattr(source, f"original{i}"))
                    i += 1
    return to_module
