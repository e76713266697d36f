"""``Optimizer``: the base class of every optimizer (``torch.optim.Optimizer``).

An optimizer holds

- ``param_groups``: a list of dicts, each with its ``"params"`` (a list of Tensors) and every
  hyper-parameter (``lr``, ``momentum`` ...; a group that does not set one takes ``defaults``');
- ``state``: a ``defaultdict(dict)`` keyed by the parameter Tensor itself, holding what the algorithm
  keeps between steps (``step``, ``exp_avg``, ``momentum_buffer`` ...);
- ``defaults``: the constructor's hyper-parameters.

``step()`` updates the parameters in place under ``no_grad`` (or under grad mode when the optimizer
was built with ``differentiable=True``), reading ``p.grad``; parameters whose ``grad`` is None are
skipped.  ``state_dict()`` replaces parameters by their index (counted across groups), so the dict
holds no parameter and can be loaded into a fresh optimizer over other tensors of the same shapes.

Every subclass implements the for-loop ("single tensor") algorithm of PyTorch with the same in-place
Tensor ops in the same order, so a trajectory matches PyTorch's to floating-point precision.
``foreach`` and ``fused`` are accepted and stored but always run that for-loop form.
"""
import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain

from .._warnings import user_stacklevel
from .. import _dtype
from .._tensor import Tensor
from ..autograd import grad_mode
from ..utils import hooks

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _use_grad_for_differentiable(func):
    """Run ``step`` with grad mode set to the optimizer's ``differentiable`` flag (off by default)."""
    @functools.wraps(func)
    def _use_grad(self, *args, **kwargs):
        prev_grad = grad_mode.is_grad_enabled()
        try:
            grad_mode.set_grad_enabled(self.defaults["differentiable"])
            ret = func(self, *args, **kwargs)
        finally:
            grad_mode.set_grad_enabled(prev_grad)
        return ret

    return _use_grad


def _get_value(x):
    """A Python number from a 0-dim tensor (``step``), or the number itself."""
    return x.item() if isinstance(x, Tensor) else x


def _to_scalar(x):
    """A 1-element tensor hyper-parameter as a 0-dim tensor; anything else unchanged."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _scalar_arg(x):
    """What PyTorch does when a 0-dim tensor is passed where a Scalar (``alpha=``, ``value=``) goes."""
    return x.item() if isinstance(x, Tensor) else x


def _get_scalar_dtype(is_fused=None):
    """The dtype of ``state['step']``: float32 (float64 when that is the default dtype, unless fused)."""
    if is_fused:
        return _dtype.float32
    return _dtype.float64 if _dtype.get_default_dtype() == _dtype.float64 else _dtype.float32


def _steps_to_tensors(state, group, on_device, is_fused=None):
    """Old state dicts kept ``step`` as a number: make it PyTorch 2.x's 0-dim tensor (on the parameter's
    device when ``on_device``: capturable or fused optimizers)."""
    from ..ops.creation import tensor
    for p in group["params"]:
        p_state = state.get(p, [])
        if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
            step_val = float(p_state["step"])
            p_state["step"] = (tensor(step_val, dtype=_get_scalar_dtype(is_fused=is_fused), device=p.device)
                               if on_device else tensor(step_val, dtype=_get_scalar_dtype()))


def _get_capturable_supported_devices(supports_xla=True):
    devices = ["cuda", "xpu", "hpu", "privateuseone"]
    if supports_xla:
        devices.append("xla")
    return devices


def _get_fused_kernels_supported_devices():
    return ["mps", "cuda", "xpu", "hpu", "cpu", "privateuseone"]


def _default_to_fused_or_foreach(params, differentiable, use_fused=False):
    """PyTorch picks foreach on CUDA when neither flag is given; pedatorch always runs the for-loop."""
    return False, False


def _device_dtype_check_for_fused(p, cuda_unsupported=False):
    supported = _get_fused_kernels_supported_devices()
    if cuda_unsupported:
        supported.remove("cuda")
    if not (p.device.type in supported and p.is_floating_point()):
        raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of "
                           f"supported devices: {supported} but {p.dtype} and {p.device.type}")


def _check_capturable(param, *steps, supports_xla=True, what="params and state_steps"):
    supported = _get_capturable_supported_devices(supports_xla)
    if not (all(param.device.type == s.device.type for s in steps) and param.device.type in supported):
        raise AssertionError(f"If capturable=True, {what} must be on supported devices: {supported}.")


def _view_as_real(params, *state_and_grads):
    from ..ops.shape import view_as_real
    for i, p in enumerate(params):
        if p.is_complex():
            params[i] = view_as_real(params[i])
            for s in state_and_grads:
                s[i] = view_as_real(s[i])


def register_optimizer_step_pre_hook(hook):
    """Register ``hook(optimizer, args, kwargs) -> None or (args, kwargs)``, run before every optimizer's step."""
    handle = hooks.RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """Register ``hook(optimizer, args, kwargs)``, run after every optimizer's step."""
    handle = hooks.RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _typename(obj):
    return obj.type() if isinstance(obj, Tensor) else type(obj).__name__


class Optimizer:
    r"""Base class for all optimizers.

    Args:
        params (iterable): an iterable of Tensors, of ``(name, Tensor)`` pairs, or of dicts (parameter
            groups).  Specifies what Tensors should be optimized.
        defaults (dict): default values of the optimization options (used when a parameter group
            doesn't specify them).
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()

        self._patch_step_function()

        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be "
                            "an iterable of Tensors or dicts, but got " + _typename(params))

        self.state = defaultdict(dict)
        self.param_groups = []

        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]

        for param_group in param_groups:
            self.add_param_group(param_group)

        self._warned_capturable_if_run_uncaptured = True

    # ---------------------------------------------------------------- pickling, printing

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self):
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    def _accelerator_graph_capture_health_check(self):
        """PyTorch checks CUDA-graph capture here; pedatorch has no graph capture, so nothing to check."""

    _cuda_graph_capture_health_check = _accelerator_graph_capture_health_check

    def _optimizer_step_code(self):
        """Entry point for profilers (does nothing)."""

    # ---------------------------------------------------------------- step hooks

    @staticmethod
    def profile_hook_step(func):
        """Wrap a subclass's ``step`` so that it runs the global and per-optimizer step hooks."""
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self, *_ = args
            for pre_hook in chain(_global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(
                            f"{func} must return None or a tuple of (new_args, new_kwargs), but got {result}.")
            out = func(*args, **kwargs)
            self._optimizer_step_code()
            for post_hook in chain(self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()):
                post_hook(self, args, kwargs)
            return out

        return wrapper

    def _patch_step_function(self):
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{self.__class__.__name__}.zero_grad"
        hooked = getattr(self.__class__.step, "hooked", None)
        if not hooked:
            self.__class__.step = self.profile_hook_step(self.__class__.step)
            self.__class__.step.hooked = True

    def register_step_pre_hook(self, hook):
        """Register ``hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)``, run before step."""
        handle = hooks.RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        """Register ``hook(optimizer, args, kwargs)``, run after step."""
        handle = hooks.RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def _register(self, hooks_dict, hook, prepend):
        handle = hooks.RemovableHandle(hooks_dict)
        hooks_dict[handle.id] = hook
        if prepend:
            hooks_dict.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """Register ``hook(optimizer)``, run before ``state_dict()``."""
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """Register ``hook(optimizer, state_dict) -> state_dict or None``, run after ``state_dict()``."""
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """Register ``hook(optimizer, state_dict) -> state_dict or None``, run before ``load_state_dict``."""
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """Register ``hook(optimizer)``, run after ``load_state_dict``."""
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ---------------------------------------------------------------- state dicts

    def state_dict(self):
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}``.

        Parameters are numbered in order across all groups; the state's tensors are the optimizer's own
        (not copies), as in PyTorch.
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)

        param_mappings = {}
        start_index = 0

        def pack_group(group):
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update({id(p): i for i, p in enumerate(group["params"], start_index)
                                   if id(p) not in param_mappings})
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(param_mappings[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": packed_state, "param_groups": param_groups}

        for post_hook in self._optimizer_state_dict_post_hooks.values():
            hook_result = post_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups, key=None):
        """Floating state follows the parameter's dtype and device; ``step`` keeps its own dtype
        (float32 on the parameter's device when the group is fused or capturable)."""
        fused = False
        capturable = False
        if param_groups is None:
            raise AssertionError("Expected param_groups to be set")
        for pg in param_groups:
            if param_id in pg["params"]:
                fused = pg.get("fused", False)
                capturable = pg.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                return value.to(dtype=_dtype.float32, device=param.device)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict):
        """Load a ``state_dict()``: the groups must match in number and sizes; state tensors are cast
        to their parameter's dtype (floating parameters) and device."""
        state_dict = state_dict.copy()

        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            hook_result = pre_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result

        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])

        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        param_lens = (len(g["params"]) for g in groups)
        saved_lens = (len(g["params"]) for g in saved_groups)
        if any(p_len != s_len for p_len, s_len in zip(param_lens, saved_lens, strict=True)):
            raise ValueError("loaded state dict contains a parameter group "
                             "that doesn't match the size of optimizer's group")

        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups), strict=True))

        def _cast(param, value, param_id=None, param_groups=None, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(param, value, param_id, param_groups, key)
            elif isinstance(value, dict):
                return {k: _cast(param, v, param_id=param_id, param_groups=param_groups, key=k)
                        for k, v in value.items()}
            elif isinstance(value, Iterable):
                return type(value)(_cast(param, v, param_id=param_id, param_groups=param_groups) for v in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v, param_id=k, param_groups=state_dict["param_groups"])
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups, strict=True)]
        self.__setstate__({"state": state, "param_groups": param_groups})

        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # ---------------------------------------------------------------- gradients, groups, step

    def zero_grad(self, set_to_none=True):
        """Set every parameter's ``grad`` to None (default), or detach it and fill it with zeros."""
        if not hasattr(self, "_zero_grad_profile_name"):
            self._patch_step_function()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        if p.grad.grad_fn is not None:
                            p.grad.detach_()
                        else:
                            p.grad.requires_grad_(False)
                        p.grad.zero_()

    def step(self, closure=None):
        """Perform a single optimization step (subclasses implement it)."""
        raise NotImplementedError

    def add_param_group(self, param_group):
        """Add a group (a dict with ``"params"``); options it does not set come from ``defaults``."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")

        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but "
                            "the ordering of tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)

        extracted_param_tensors = []
        extracted_param_names = []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                extracted_param_names.append(param[0])
                extracted_param_tensors.append(param[1])
            else:
                extracted_param_tensors.append(param)

        param_group["params"] = extracted_param_tensors
        if len(extracted_param_names) != 0:
            if len(extracted_param_names) == len(extracted_param_tensors):
                param_group["param_names"] = extracted_param_names
            else:
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")

        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; "
                          "see github.com/pytorch/pytorch/issues/40967 for more information", stacklevel=user_stacklevel())

        param_set = set()
        for group in self.param_groups:
            param_set.update(set(group["params"]))
            if ("param_names" in param_group) != ("param_names" in group):
                current_group_txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {current_group_txt} to the optimizer")

        if not param_set.isdisjoint(set(param_group["params"])):
            raise ValueError("some parameters appear in more than one parameter group")

        self.param_groups.append(param_group)
