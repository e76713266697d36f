r"""Adagrad (``torch.optim.Adagrad``).

For each parameter with gradient ``g`` at step ``t``::

    g = g + weight_decay * theta                     (if weight_decay != 0)
    clr = lr / (1 + (t - 1) * lr_decay)
    s = s + g * g                                    (sum, starting at initial_accumulator_value)
    theta = theta - clr * g / (sqrt(s) + eps)

A sparse gradient (``nn.Embedding(sparse=True)``) updates only its entries: the sum and the parameter change
at the gradient's places, nowhere else (no weight_decay then: it would touch every entry).

Unlike the other optimizers, the state of every parameter is created by the constructor.
"""
from .._tensor import Tensor
from ..autograd import grad_mode
from .optimizer import _steps_to_tensors
from .optimizer import Optimizer, _device_dtype_check_for_fused, _get_scalar_dtype, _get_value, _scalar_arg, \
    _to_scalar, _use_grad_for_differentiable

__all__ = ["Adagrad", "adagrad"]


def _new_state(p, initial_accumulator_value, fused):
    from ..ops.creation import full_like, tensor, zeros
    step = (zeros((), dtype=_get_scalar_dtype(is_fused=fused), device=p.device) if fused
            else tensor(0.0, dtype=_get_scalar_dtype()))
    init_value = (complex(initial_accumulator_value, initial_accumulator_value) if p.is_complex()
                  else initial_accumulator_value)
    return step, full_like(p, init_value)


class Adagrad(Optimizer):
    """Implements the Adagrad algorithm.

    Args: params, lr (default 1e-2), lr_decay (0), weight_decay (0), initial_accumulator_value (0),
    eps (1e-10), foreach (None), and keyword-only maximize (False), differentiable (False), fused (None).
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")

        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)

        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
            self._need_device_dtype_check_for_fused = True
            self._step_supports_amp_scaling = True

        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"], state["sum"] = _new_state(p, initial_accumulator_value, group["fused"])

    def __setstate__(self, state):
        super().__setstate__(state)
        from ..ops.creation import tensor
        fused = None
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            fused = group.setdefault("fused", None)
            _steps_to_tensors(self.state, group, group["fused"], is_fused=fused)

        state_values = list(self.state.values())
        step_is_tensor = len(state_values) != 0 and isinstance(state_values[0]["step"], Tensor)
        if not step_is_tensor:
            for s in state_values:
                s["step"] = tensor(float(s["step"]), dtype=_get_scalar_dtype(is_fused=fused))

    def share_memory(self):
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    def _init_group(self, group, params_with_grad, grads, state_sums, state_steps):
        has_sparse_grad, has_complex = False, False
        for p in group["params"]:
            if p.grad is not None:
                if group["fused"] and getattr(self, "_need_device_dtype_check_for_fused", True):
                    _device_dtype_check_for_fused(p)
                    self._need_device_dtype_check_for_fused = False
                has_sparse_grad |= p.grad.is_sparse
                has_complex |= p.is_complex()
                params_with_grad.append(p)
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:
                    if group["fused"]:
                        _device_dtype_check_for_fused(p)
                    state["step"], state["sum"] = _new_state(p, self.defaults["initial_accumulator_value"],
                                                             group["fused"])
                state_sums.append(state["sum"])
                state_steps.append(state["step"])
        return has_sparse_grad, has_complex

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()

        for group in self.param_groups:
            params_with_grad, grads, state_sums, state_steps = [], [], [], []
            has_sparse_grad, has_complex = self._init_group(group, params_with_grad, grads, state_sums, state_steps)
            adagrad(params_with_grad, grads, state_sums, state_steps, lr=group["lr"],
                    weight_decay=group["weight_decay"], lr_decay=group["lr_decay"], eps=group["eps"],
                    has_sparse_grad=has_sparse_grad, foreach=group["foreach"], maximize=group["maximize"],
                    differentiable=group["differentiable"], has_complex=has_complex, fused=group["fused"],
                    grad_scale=getattr(self, "grad_scale", None), found_inf=getattr(self, "found_inf", None))
        return loss


def adagrad(params, grads, state_sums, state_steps, fused=None, grad_scale=None, found_inf=None,
            has_sparse_grad=False, foreach=None, differentiable=False, has_complex=False, *, lr, weight_decay,
            lr_decay, eps, maximize):
    """Functional API that performs the Adagrad computation (see :class:`Adagrad`)."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    _single_tensor_adagrad(params, grads, state_sums, state_steps, grad_scale, found_inf, lr=lr,
                           weight_decay=weight_decay, lr_decay=lr_decay, eps=eps, has_sparse_grad=has_sparse_grad,
                           maximize=maximize, differentiable=differentiable, has_complex=has_complex)


def _single_tensor_adagrad(params, grads, state_sums, state_steps, grad_scale, found_inf, *, lr, weight_decay,
                           lr_decay, eps, has_sparse_grad, maximize, differentiable, has_complex):
    from ..ops.shape import view_as_real
    if grad_scale is not None or found_inf is not None:
        raise AssertionError("Expected grad_scale and found_inf to be None")
    lr = _to_scalar(lr)

    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps, strict=True):
        step_t += 1
        step = _get_value(step_t)
        grad = grad if not maximize else -grad

        if weight_decay != 0:
            if grad.is_sparse:
                raise RuntimeError("weight_decay option is not compatible with sparse gradients")
            grad = grad.add(param, alpha=weight_decay)

        clr = lr / (1 + (step - 1) * lr_decay)

        if grad.is_sparse:
            _sparse_adagrad_update(param, grad, state_sum, clr, eps)
            continue

        if param.is_complex():
            grad = view_as_real(grad)
            state_sum = view_as_real(state_sum)
            param = view_as_real(param)
        state_sum.addcmul_(grad, grad, value=1)
        if differentiable:
            std = state_sum.sqrt() + eps
        else:
            std = state_sum.sqrt().add_(eps)
        param.addcdiv_(grad, std, value=_scalar_arg(-clr))


def _sparse_adagrad_update(param, grad, state_sum, clr, eps):
    """One Adagrad step with a sparse gradient: s += g^2 and theta -= clr * g / (sqrt(s) + eps), at g's
    places only."""
    from ..sparse import sparse_coo_tensor
    grad = grad.coalesce()      # the update is not linear in g: each place must appear once
    indices, values = grad._indices(), grad._values()
    state_sum.add_(sparse_coo_tensor(indices, values.pow(2), grad.size()))
    std_values = state_sum.sparse_mask(grad)._values().sqrt_().add_(eps)
    param.add_(sparse_coo_tensor(indices, values / std_values, grad.size()), alpha=-clr)
