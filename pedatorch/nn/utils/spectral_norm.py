"""Spectral normalization, the older hook-based API (``torch.nn.utils.spectral_norm``; the newer form is
``nn.utils.parametrizations.spectral_norm``).

``spectral_norm(module)`` divides ``weight`` by its largest singular value sigma (of the weight as a matrix,
``dim`` first), which makes the layer 1-Lipschitz (Miyato et al., 2018): it keeps a GAN's discriminator
smooth.  sigma is estimated by power iteration: the buffers ``weight_u`` and ``weight_v`` hold the leading
singular vectors, refined by ``n_power_iterations`` steps at each forward in training mode, and
``sigma = u . (W v)``.  The Parameter moves to ``weight_orig``; a ``SpectralNorm`` object, registered as a
**forward pre-hook**, recomputes the plain attribute ``weight = weight_orig / sigma`` before each forward.
State-dict hooks record a version number, so that older state dicts (with ``weight`` and no ``weight_v``)
can be loaded.
"""
from ...autograd.grad_mode import no_grad
from ...ops.linalg import dot, mv
from ...linalg import multi_dot
from .. import functional as F
from ..modules.conv import _ConvTransposeNd
from ..parameter import Parameter, UninitializedParameter
from ._hook_repr import torch_style_repr

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook", "spectral_norm",
           "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook of ``spectral_norm``."""

    # version 1: the state dict holds weight_orig, weight_u and weight_v (version None or 0: weight_orig,
    # weight and weight_u; v is then solved for on loading)
    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """``dim`` first, the other dims flattened: a (size of dim) x (the rest) matrix."""
        weight_mat = weight
        if self.dim != 0:
            weight_mat = weight_mat.permute(self.dim, *[d for d in range(weight_mat.dim()) if d != self.dim])
        height = weight_mat.size(0)
        return weight_mat.reshape(height, -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                # v <- W^T u / |W^T u|,  u <- W v / |W v|, written into the buffers (out=)
                for _ in range(self.n_power_iterations):
                    v = F.normalize(mv(weight_mat.t(), u), dim=0, eps=self.eps, out=v)
                    u = F.normalize(mv(weight_mat, v), dim=0, eps=self.eps, out=u)
                # copies: the next forward's power step writes into the buffers, which the backward
                # of this forward still needs
                u = u.clone()
                v = v.clone()
        sigma = dot(u, mv(weight_mat, v))   # the gradient flows through W here, not through u and v
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        # the v with u = W v / |W v| (least squares: (W^T W)^+ W^T u), scaled so that u . (W v) = sigma
        v = multi_dot([weight_mat.t().mm(weight_mat).pinverse(), weight_mat.t(), u.unsqueeze(1)]).squeeze(1)
        return v.mul_(target_sigma / dot(u, mv(weight_mat, v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized parameters. "
                             "Make sure to run the dummy forward before applying spectral normalization")
        with no_grad():
            # random unit starting vectors (drawn as PyTorch draws them: u first, then v)
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # until the first forward, module.<name> is the raw weight (a plain tensor, not a Parameter)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn

    __repr__ = torch_style_repr


class SpectralNormLoadStateDictPreHook:
    """Loads state dicts of version None/0 (``weight_orig``, ``weight``, ``weight_u``): sigma is
    ``weight_orig / weight``, and ``weight_v`` is solved for."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is None or version < 1:
            weight_key = prefix + fn.name
            if version is None and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v")) and \
                    weight_key not in state_dict:
                # a state dict without metadata but with the current keys: nothing to convert
                return
            has_missing_keys = False
            for suffix in ("_orig", "", "_u"):
                key = weight_key + suffix
                if key not in state_dict:
                    has_missing_keys = True
                    if strict:
                        missing_keys.append(key)
            if has_missing_keys:
                return
            with no_grad():
                weight_orig = state_dict[weight_key + "_orig"]
                weight = state_dict.pop(weight_key)
                sigma = (weight_orig / weight).mean()
                weight_mat = fn.reshape_weight_to_matrix(weight_orig)
                u = state_dict[weight_key + "_u"]
                v = fn._solve_v_and_rescale(weight_mat, u, sigma)
                state_dict[weight_key + "_v"] = v

    __repr__ = torch_style_repr


class SpectralNormStateDictHook:
    """Writes ``spectral_norm: {"<name>.version": 1}`` into the module's state-dict metadata."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        if "spectral_norm" not in local_metadata:
            local_metadata["spectral_norm"] = {}
        key = self.fn.name + ".version"
        if key in local_metadata["spectral_norm"]:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        local_metadata["spectral_norm"][key] = self.fn._version

    __repr__ = torch_style_repr


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm (largest singular value, of the weight as a matrix with
    ``dim`` first; ``dim=None``: 1 for ConvTranspose1d/2d/3d, whose output channels are dim 1, else 0),
    estimated by power iteration in a forward pre-hook.  Returns the module."""
    if dim is None:
        dim = 1 if isinstance(module, _ConvTransposeNd) else 0   # ConvTranspose1d, 2d (and their lazy forms)
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo ``spectral_norm``: ``module.<name>`` is one Parameter again, holding ``weight_orig / sigma``.
    Returns the module."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for k, hook in module._state_dict_hooks.items():
        if isinstance(hook, SpectralNormStateDictHook) and hook.fn.name == name:
            del module._state_dict_hooks[k]
            break
    # The load-state-dict pre-hook stays, as in PyTorch (whose Module keeps that hook wrapped, so the
    # search by type it does here never finds it): loading a state dict without ``<name>_orig`` and
    # ``<name>_u`` into this module afterwards reports them as missing keys, as PyTorch does.
    return module
