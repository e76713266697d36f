"""Pruning (``torch.nn.utils.prune``): zero out part of a parameter, and keep it zero while training.

Pruning ``module.weight`` re-expresses it as the product of two tensors:

* ``weight_orig``: the original values, now the trained Parameter (``weight`` stops being one);
* ``weight_mask``: a buffer of 0s and 1s (same shape and dtype), 0 where an entry is pruned;

and ``module.weight`` becomes a plain attribute holding ``weight_mask * weight_orig``.  The pruning method
object itself is registered as a **forward pre-hook**: before every forward it recomputes ``weight`` from
``weight_orig`` and ``weight_mask``, so the optimizer's updates of ``weight_orig`` flow into the layer while
the pruned entries stay zero (their gradient is zero too, since the product carries the mask).

Pruning the same tensor again combines the masks through a ``PruningContainer`` (the history of methods):
the new method only looks at what is still unpruned (entries for "unstructured" methods, whole channels for
"structured" ones).  ``remove(module, name)`` makes the pruning permanent: ``weight`` is a Parameter again,
holding the masked values, and ``weight_orig``, ``weight_mask`` and the hook are gone.

The methods (``RandomUnstructured``, ``L1Unstructured``, ``RandomStructured``, ``LnStructured``,
``CustomFromMask``, ``Identity``) each compute a mask in ``compute_mask(t, default_mask)``; a new method is a
subclass of ``BasePruningMethod`` with ``PRUNING_TYPE`` and ``compute_mask``.  The random ones draw from the
global generator exactly as PyTorch does (one ``rand`` call per mask), so the same seed prunes the same
entries.
"""
import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ..._tensor import contiguous_format
from ...ops.creation import ones_like, zeros_like
from ...ops.random import rand, rand_like
from ...ops.reduction import norm
from ...ops.sorting import kthvalue, topk
from ._hook_repr import torch_style_repr
from .convert_parameters import parameters_to_vector

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
           "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured",
           "l1_unstructured", "random_structured", "ln_structured", "global_unstructured", "custom_from_mask",
           "remove", "is_pruned"]


class BasePruningMethod(ABC):
    """Base class of the pruning methods: subclass it with ``PRUNING_TYPE`` ("unstructured", "structured"
    or "global") and ``compute_mask(t, default_mask)``.  An instance remembers the name of the tensor it
    prunes (``_tensor_name``) and is the module's forward pre-hook (``__call__``)."""

    _tensor_name: str

    def __call__(self, module, inputs):
        """The forward pre-hook: ``module.<name> = <name>_mask * <name>_orig`` before each forward."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The mask (same shape as ``t``) for the importance scores ``t``, respecting ``default_mask``
        (the mask of earlier pruning: its zeros stay zero)."""

    def apply_mask(self, module):
        """``<name>_mask * <name>_orig``: the pruned tensor (the mask cast to the parameter's dtype)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with a new ``cls(*args, **kwargs)``: on the first pruning move the
        parameter to ``<name>_orig``; register (or update) ``<name>_mask``; set ``module.<name>`` to the
        masked tensor; and register the method as a forward pre-hook.  A tensor already pruned gets a
        ``PruningContainer`` holding the old method(s) and the new one.  ``importance_scores`` (same shape
        as the parameter) decide what to prune instead of the parameter's own values."""

        def _get_composite_method(cls, module, name, *args, **kwargs):
            # an earlier pruning of this tensor is a hook on the module: take it off (it comes back
            # combined with the new method below)
            old_method = None
            found = 0
            hooks_to_remove = []
            for k, hook in module._forward_pre_hooks.items():
                if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                    old_method = hook
                    hooks_to_remove.append(k)
                    found += 1
            if found > 1:
                raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of "
                                     f"module {module}. Use a PruningContainer.")
            for k in hooks_to_remove:
                del module._forward_pre_hooks[k]

            method = cls(*args, **kwargs)
            method._tensor_name = name
            if old_method is not None:
                if isinstance(old_method, PruningContainer):
                    old_method.add_pruning_method(method)   # one more step in the history
                    method = old_method
                elif isinstance(old_method, BasePruningMethod):
                    container = PruningContainer(old_method)
                    container.add_pruning_method(method)
                    method = container
            return method

        method = _get_composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(f"importance_scores should have the same shape as parameter {name} of "
                                     f"{module}, got {importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig

        if not isinstance(method, PruningContainer):
            # first pruning of this tensor: the Parameter moves to <name>_orig, and <name> is freed
            # (it becomes a plain attribute computed from orig and mask)
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            # pruned before: start from the current mask (a copy: compute_mask may write into it)
            default_mask = getattr(module, name + "_mask").detach().clone(memory_format=contiguous_format)

        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception as e:
            # undo the move to <name>_orig, so the module is as it was
            if not isinstance(method, PruningContainer):
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise e
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times the mask this method computes for it (nothing is registered on any module)."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError("importance_scores should have the same shape as tensor t, "
                                     f"got {importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning permanent: ``<name>`` is a Parameter again holding the masked values (the
        ``<name>_orig`` Parameter object itself, so an optimizer holding it keeps working); ``<name>_orig``
        and ``<name>_mask`` are deleted.  The zeros stay."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)

    # Python's default repr, with the name PyTorch's classes have (torch.nn.utils.prune.X) for ours
    __repr__ = torch_style_repr


class PruningContainer(BasePruningMethod):
    """The pruning history of one tensor: the methods applied to it, in order.  Its mask is the last
    method's mask, computed on what the earlier ones left unpruned."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if not isinstance(args, Iterable):  # kept from PyTorch: *args is always a tuple
            self._tensor_name = args._tensor_name
            self.add_pruning_method(args)
        elif len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:  # several methods (or none: the name is set by whoever builds it)
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        """Append ``method`` (a ``BasePruningMethod`` acting on the same tensor) to the history."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        elif method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on "
                             f"the parameter named '{self._tensor_name}' to PruningContainer {self}."
                             f" Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """The latest method's mask, computed only on the part of ``t`` still unpruned and written into
        (a copy of) ``default_mask``:

        * "unstructured": the entries where the mask is 1 (as a flat list);
        * "structured": the channels along the method's ``dim`` not yet entirely zero;
        * "global": all of ``t``."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            slc = default_mask == 1
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the '
                                     "attribute `dim` defined.")
            n_dims = t.dim()
            dim = method.dim
            if dim < 0:
                dim = n_dims + dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            # a channel whose mask sums to 0 is pruned entirely already: leave it out
            keep_channel = default_mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            slc = [slice(None)] * n_dims
            slc[dim] = keep_channel
        elif method.PRUNING_TYPE == "global":
            slc = [slice(None)] * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        if isinstance(slc, list):
            slc = tuple(slc)
        partial_mask = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial_mask.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: sets up ``<name>_orig``, ``<name>_mask`` (all ones) and the hook."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        """Add the pruning reparametrization of ``module.<name>`` with a mask of ones."""
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prune ``amount`` (a count if int, a fraction if float) of the unpruned entries, chosen at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        tensor_size = t.nelement()
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        # a contiguous copy: mask.view(-1) below must see every entry once
        mask = default_mask.clone(memory_format=contiguous_format)
        if nparams_toprune != 0:  # nothing to prune: no random numbers drawn (the stream stays as PyTorch's)
            # one uniform number per entry; the k largest are pruned
            prob = rand_like(t)
            chosen = topk(prob.view(-1), k=nparams_toprune)
            mask.view(-1)[chosen.indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        """Prune ``amount`` random entries of ``module.<name>``."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prune ``amount`` (a count if int, a fraction if float) of the unpruned entries with the smallest
    absolute values."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        tensor_size = t.nelement()
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        mask = default_mask.clone(memory_format=contiguous_format)
        if nparams_toprune != 0:
            smallest = topk(t.abs().view(-1), k=nparams_toprune, largest=False)
            mask.view(-1)[smallest.indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        """Prune the ``amount`` entries of ``module.<name>`` (or of ``importance_scores``) smallest in
        absolute value."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prune ``amount`` whole channels (slices along ``dim``) at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        if nparams_toprune == 0:
            return default_mask
        # one uniform number per channel: the channels with the k smallest are pruned
        prob = rand(tensor_size)
        threshold = kthvalue(prob, k=nparams_toprune).values
        channel_mask = prob > threshold
        mask = zeros_like(t)
        slc = [slice(None)] * len(t.shape)
        slc[self.dim] = channel_mask
        mask[tuple(slc)] = 1
        mask *= default_mask.to(dtype=mask.dtype)   # earlier zeros stay
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        """Prune ``amount`` random channels of ``module.<name>`` along ``dim``."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prune the ``amount`` channels (slices along ``dim``) with the smallest L``n``-norm (``n`` as
    ``p`` of ``torch.norm``: a number, inf, -inf, 'fro' or 'nuc')."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        nparams_tokeep = tensor_size - nparams_toprune
        _validate_pruning_amount(nparams_toprune, tensor_size)
        # the norm of each channel; the largest ones are kept
        channel_norms = _compute_norm(t, self.n, self.dim)
        kept = topk(channel_norms, k=nparams_tokeep, largest=True)
        if nparams_toprune == 0:
            return default_mask
        mask = zeros_like(t)
        slc = [slice(None)] * len(t.shape)
        slc[self.dim] = kept.indices
        mask[tuple(slc)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        """Prune the ``amount`` channels of ``module.<name>`` along ``dim`` with the smallest
        L``n``-norm (of ``importance_scores`` if given)."""
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prune with a given mask (combined with any earlier one)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match "
                                 f"self.mask shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        """Prune ``module.<name>`` where ``mask`` is 0."""
        return super().apply(module, name, mask=mask)


# ---------------------------------------------------------------- functions
def identity(module, name):
    """Add the pruning reparametrization of ``module.<name>`` without pruning anything (a mask of
    ones).  Returns the module."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` (int: a count, float: a fraction) of the unpruned entries of ``module.<name>``, at
    random.  Adds the buffer ``<name>_mask``, moves the parameter to ``<name>_orig``.  Returns the module."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune ``amount`` (int: a count, float: a fraction) of the unpruned entries of ``module.<name>``,
    those smallest in absolute value (of ``importance_scores`` if given).  Returns the module."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` channels of ``module.<name>`` along ``dim``, at random.  Returns the module."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune ``amount`` channels of ``module.<name>`` along ``dim``, those with the smallest
    L``n``-norm.  Returns the module."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune several tensors together: ``parameters`` is an iterable of ``(module, name)``; their values
    (or ``importance_scores[(module, name)]``) are flattened into one vector, ``pruning_method(**kwargs)``
    (an "unstructured" method, e.g. ``L1Unstructured`` with ``amount=0.2``) picks what to prune across all
    of them, and each tensor gets its slice of that mask (through ``custom_from_mask``)."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")

    # every tensor's scores, and its current mask (ones if not pruned yet), as one long vector each
    relevant_importance_scores = parameters_to_vector(
        [importance_scores.get((module, name), getattr(module, name)) for (module, name) in parameters])
    default_mask = parameters_to_vector(
        [getattr(module, name + "_mask", ones_like(getattr(module, name))) for (module, name) in parameters])

    # a container makes the new method act only on what is still unpruned
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(relevant_importance_scores, default_mask)

    # cut the long mask back into one mask per tensor
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num_param = param.numel()
        param_mask = final_mask[pointer:pointer + num_param].view_as(param)
        custom_from_mask(module, name, mask=param_mask)
        pointer += num_param


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` where ``mask`` is 0.  Returns the module."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent: ``<name>`` is a Parameter again (with the pruned
    entries zero); ``<name>_orig``, ``<name>_mask`` and the forward pre-hook go.  Returns the module."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module):
    """Whether ``module`` or any submodule has a pruning forward pre-hook."""
    for _, submodule in module.named_modules():
        for hook in submodule._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False


# ---------------------------------------------------------------- checks and helpers
def _validate_pruning_amount_init(amount):
    """An amount is an int >= 0 (a count) or a float in [0, 1] (a fraction)."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _validate_pruning_amount(amount, tensor_size):
    """A count can't exceed the number of units (known only when the tensor is seen)."""
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={tensor_size}")


def _validate_structured_pruning(t):
    """Channels need at least two dims."""
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. Found tensor "
                         f"of shape {shape} with {len(shape)} dims")


def _compute_nparams_toprune(amount, tensor_size):
    """The count to prune: ``amount`` itself if an int, else ``round(amount * tensor_size)`` (Python's
    round: halves go to the even number)."""
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * tensor_size)


def _validate_pruning_dim(t, dim):
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t, n, dim):
    """The L``n``-norm of each channel along ``dim`` (over every other dim): shape ``(t.shape[dim],)``."""
    dims = list(range(t.dim()))
    if dim < 0:
        dim = dims[dim]
    dims.remove(dim)
    return norm(t, p=n, dim=dims)
