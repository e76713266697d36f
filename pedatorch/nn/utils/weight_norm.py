"""Weight normalization, the older hook-based API (``torch.nn.utils.weight_norm``; deprecated in favour of
``nn.utils.parametrizations.weight_norm``, which loads its state dicts).

``weight_norm(module)`` replaces the Parameter ``weight`` by two Parameters, a magnitude ``weight_g`` (the
norm of each output slice, over every dim but ``dim``) and a direction ``weight_v`` (the weight itself), and
registers a ``WeightNorm`` object as a **forward pre-hook** that recomputes the plain attribute
``weight = weight_g * weight_v / ||weight_v||`` before each forward (Salimans & Kingma, 2016).
"""
import warnings

from ..._warnings import user_stacklevel
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter, UninitializedParameter
from ._hook_repr import torch_style_repr
from .parametrizations import _norm_except_dim

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _weight_norm(v, g, dim):
    """``v * (g / ||v||)``, the norms taken over every dim but ``dim`` (``-1``: over the whole tensor)."""
    return v * (g / _norm_except_dim(v, dim))


class WeightNorm:
    """The forward pre-hook of ``weight_norm``: remembers the name and the dim."""

    def __init__(self, name, dim):
        if dim is None:
            dim = -1   # PyTorch's code for "one norm for the whole tensor"
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=user_stacklevel())
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized parameters. "
                             "Make sure to run the dummy forward before applying weight normalization")
        # the Parameter ``name`` goes; g and v (new Parameters) are what the optimizer trains from now on
        del module._parameters[name]
        with no_grad():
            g = _norm_except_dim(weight, dim)
        module.register_parameter(name + "_g", Parameter(g.data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        """Back to a single Parameter ``name`` holding the current ``g * v / ||v||``."""
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))

    __repr__ = torch_style_repr


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as ``<name>_g * <name>_v / ||<name>_v||`` (norms over every dim but
    ``dim``; ``dim=None``: one norm of the whole tensor), recomputed by a forward pre-hook.  Deprecated
    (FutureWarning): ``nn.utils.parametrizations.weight_norm`` is the newer form.  Returns the module."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo ``weight_norm``: ``module.<name>`` is one Parameter again.  Returns the module."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
