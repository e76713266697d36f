r"""Adam (``torch.optim.Adam``), and with ``decoupled_weight_decay=True`` AdamW.

For each parameter with gradient ``g`` at step ``t``::

    theta = theta * (1 - lr * weight_decay)           (decoupled weight decay)
      or  g = g + weight_decay * theta                (L2 penalty)
    m = lerp(m, g, 1 - beta1)                         (exp_avg)
    v = beta2 * v + (1 - beta2) * g * g               (exp_avg_sq)
    v_max = max(v_max, v)                             (amsgrad: the denominator uses v_max)
    denom = sqrt(v) / sqrt(1 - beta2 ** t) + eps
    theta = theta - lr / (1 - beta1 ** t) * m / denom

``fused=True`` runs PyTorch's fused kernel instead of the for-loop of in-place ops: the same formulas,
element by element in float32 (float64 for float64 parameters), rounding to the parameter's dtype only what
it stores.  For float32 that is the same to the last bit or two; for float16 / bfloat16 parameters the
for-loop rounds after every op (in float16 eps = 1e-8 is even 0, so a zero second moment divides by zero).
"""
import math

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from ..backend import namespace
from ..ops.elementwise import _lerp
from .optimizer import _steps_to_tensors
from .optimizer import (Optimizer, _check_capturable, _device_dtype_check_for_fused, _get_scalar_dtype, _get_value,
                        _scalar_arg, _to_scalar, _use_grad_for_differentiable)

__all__ = ["Adam", "adam"]


class Adam(Optimizer):
    """Implements the Adam algorithm.

    Args: params, lr (default 1e-3), betas ((0.9, 0.999)), eps (1e-8), weight_decay (0), amsgrad (False),
    and keyword-only foreach, maximize, capturable, differentiable, fused, decoupled_weight_decay (False).
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
            if lr.numel() != 1:
                raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        for i in (0, 1):
            if isinstance(betas[i], Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
                if betas[i].numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(map(_to_scalar, betas))

        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            self._step_supports_amp_scaling = True
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            fused = group.setdefault("fused", None)
            _steps_to_tensors(self.state, group, group["capturable"] or group["fused"], is_fused=fused)

    def _init_group(self, group, params_with_grad, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps):
        from ..ops.creation import tensor, zeros, zeros_like
        has_complex = False
        for p in group["params"]:
            if p.grad is not None:
                has_complex |= p.is_complex()
                params_with_grad.append(p)
                if p.grad.is_sparse:
                    raise RuntimeError("Adam does not support sparse gradients, please consider SparseAdam instead")
                grads.append(p.grad)

                state = self.state[p]
                if len(state) == 0:
                    if group["fused"]:
                        _device_dtype_check_for_fused(p)
                    state["step"] = (zeros((), dtype=_get_scalar_dtype(is_fused=group["fused"]), device=p.device)
                                     if group["capturable"] or group["fused"]
                                     else tensor(0.0, dtype=_get_scalar_dtype(), device="cpu"))
                    state["exp_avg"] = zeros_like(p)
                    state["exp_avg_sq"] = zeros_like(p)
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = zeros_like(p)

                exp_avgs.append(state["exp_avg"])
                exp_avg_sqs.append(state["exp_avg_sq"])
                if group["amsgrad"]:
                    max_exp_avg_sqs.append(state["max_exp_avg_sq"])
                if group["differentiable"] and state["step"].requires_grad:
                    raise RuntimeError("`requires_grad` is not supported for `step` in differentiable mode")
                if group["foreach"] and isinstance(group["lr"], Tensor) and not group["capturable"]:
                    raise RuntimeError("lr as a Tensor is not supported for capturable=False and foreach=True")
                state_steps.append(state["step"])
        return has_complex

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        self._accelerator_graph_capture_health_check()
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()

        for group in self.param_groups:
            params_with_grad, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps = [], [], [], [], [], []
            beta1, beta2 = group["betas"]
            has_complex = self._init_group(group, params_with_grad, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                                           state_steps)
            adam(params_with_grad, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
                 amsgrad=group["amsgrad"], has_complex=has_complex, beta1=beta1, beta2=beta2, lr=group["lr"],
                 weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
                 foreach=group["foreach"], capturable=group["capturable"], differentiable=group["differentiable"],
                 fused=group["fused"], grad_scale=getattr(self, "grad_scale", None),
                 found_inf=getattr(self, "found_inf", None), decoupled_weight_decay=group["decoupled_weight_decay"])
        return loss


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach=None, capturable=False,
         differentiable=False, fused=None, grad_scale=None, found_inf=None, has_complex=False,
         decoupled_weight_decay=False, *, amsgrad, beta1, beta2, lr, weight_decay, eps, maximize):
    """Functional API that performs the Adam computation (see :class:`Adam`)."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    if fused:
        if differentiable:
            raise RuntimeError("Adam with fused=True does not support differentiable=True")
        _fused_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, grad_scale, found_inf,
                    amsgrad=amsgrad,
                    beta1=beta1, beta2=beta2, lr=lr, weight_decay=weight_decay, eps=eps, maximize=maximize,
                    decoupled_weight_decay=decoupled_weight_decay)
        return
    _single_tensor_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, grad_scale, found_inf,
                        amsgrad=amsgrad, has_complex=has_complex, beta1=beta1, beta2=beta2, lr=lr,
                        weight_decay=weight_decay, eps=eps, maximize=maximize, capturable=capturable,
                        differentiable=differentiable, decoupled_weight_decay=decoupled_weight_decay)


def _single_tensor_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, grad_scale, found_inf, *,
                        amsgrad, has_complex, beta1, beta2, lr, weight_decay, eps, maximize, capturable,
                        differentiable, decoupled_weight_decay):
    from ..ops.elementwise import maximum
    from ..ops.shape import view_as_complex, view_as_real
    if grad_scale is not None or found_inf is not None:
        raise AssertionError("Expected grad_scale and found_inf to be None")
    lr = _to_scalar(lr)
    beta1 = _to_scalar(beta1)
    beta2 = _to_scalar(beta2)
    beta1_dict = {(beta1.device, beta1.dtype): beta1} if isinstance(beta1, Tensor) else None

    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg = exp_avgs[i]
        exp_avg_sq = exp_avg_sqs[i]
        step_t = state_steps[i]

        if capturable:
            _check_capturable(param, step_t)

        step_t += 1

        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            elif differentiable and isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
                grad = grad.addcmul_(param.clone(), weight_decay)
            else:
                grad = grad.add(param, alpha=_scalar_arg(weight_decay))

        if param.is_complex():
            grad = view_as_real(grad)
            exp_avg = view_as_real(exp_avg)
            exp_avg_sq = view_as_real(exp_avg_sq)
            if amsgrad:
                max_exp_avg_sqs[i] = view_as_real(max_exp_avg_sqs[i])
            param = view_as_real(param)

        if beta1_dict is not None:
            key = (param.device, param.dtype)
            if key not in beta1_dict:
                beta1_dict[key] = beta1.to(device=param.device, dtype=param.dtype)
            device_beta1 = beta1_dict[key]
        else:
            device_beta1 = beta1

        # decay the first and second moment running averages
        exp_avg.lerp_(grad, 1 - device_beta1)
        if differentiable and isinstance(beta2, Tensor) and beta2.requires_grad:
            exp_avg_sq.lerp_(grad.square(), 1 - beta2)
        else:
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=_scalar_arg(1 - beta2))

        if capturable or differentiable:
            step = step_t
            if differentiable and isinstance(beta1, Tensor) and beta1.requires_grad:
                bias_correction1 = 1 - beta1 ** step.clone()
            else:
                bias_correction1 = 1 - beta1 ** step
            if differentiable and isinstance(beta2, Tensor) and beta2.requires_grad:
                bias_correction2 = 1 - beta2 ** step.clone()
            else:
                bias_correction2 = 1 - beta2 ** step

            step_size = lr / bias_correction1
            step_size_neg = step_size.neg()
            bias_correction2_sqrt = bias_correction2.sqrt()

            if amsgrad:
                max_exp_avg_sq = max_exp_avg_sqs[i].clone() if differentiable else max_exp_avg_sqs[i]
                max_exp_avg_sqs[i].copy_(maximum(max_exp_avg_sq, exp_avg_sq))
                denom = (max_exp_avg_sqs[i].sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)
            else:
                denom = (exp_avg_sq.sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)

            param.addcdiv_(exp_avg.clone() if differentiable else exp_avg, denom)
        else:
            step = _get_value(step_t)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = bias_correction2 ** 0.5

            if amsgrad:
                maximum(max_exp_avg_sqs[i], exp_avg_sq, out=max_exp_avg_sqs[i])
                denom = (max_exp_avg_sqs[i].sqrt() / bias_correction2_sqrt).add_(eps)
            else:
                denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)

            param.addcdiv_(exp_avg, denom, value=_scalar_arg(-step_size))

        if amsgrad and params[i].is_complex():
            max_exp_avg_sqs[i] = view_as_complex(max_exp_avg_sqs[i])


def _fused_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, grad_scale, found_inf, *,
                amsgrad, beta1, beta2, lr, weight_decay, eps, maximize, decoupled_weight_decay):
    """PyTorch's fused Adam kernel (see the module docstring): per element, in the kernel's compute type
    ``f``, with the scalars computed in double first and then cast to ``f``.  From a GradScaler it takes the
    scale (dividing the gradients by it, in place) and ``found_inf`` (skipping the step, which is not counted)."""
    lr, beta1, beta2 = _get_value(lr), _get_value(beta1), _get_value(beta2)
    skip = found_inf is not None and found_inf.item() == 1.0
    for i, param in enumerate(params):
        if skip:   # (an inf in the scaled gradients: no step, and it is not counted)
            continue
        state_steps[i] += 1
        step = _get_value(state_steps[i])
        step_size = lr / (1 - beta1 ** step)
        bias_correction2_sqrt = math.sqrt(1 - beta2 ** step)
        xp = namespace(param._data)
        f = np.float64 if param._data.dtype == np.float64 else np.float32
        p, g = param._data.astype(f), grads[i]._data.astype(f)
        if grad_scale is not None:
            g = g / f(grad_scale.item())
            grads[i].copy_(Tensor._make(g))
        if maximize:
            g = -g
        if weight_decay != 0:
            if decoupled_weight_decay:
                p = p * f(1 - lr * weight_decay)
            else:
                g = g + p * f(weight_decay)
        m, v = exp_avgs[i]._data.astype(f), exp_avg_sqs[i]._data.astype(f)
        m = _lerp(m, g, 1 - beta1)   # (the kernel's exp_avg.lerp_(grad, 1 - beta1): one fused multiply-add)
        v = v * f(beta2) + f(1 - beta2) * g * g
        if amsgrad:
            v_max = xp.maximum(max_exp_avg_sqs[i]._data.astype(f), v)
            max_exp_avg_sqs[i].copy_(Tensor._make(v_max))
            denom = xp.sqrt(v_max) / f(bias_correction2_sqrt) + f(eps)
        else:
            denom = xp.sqrt(v) / f(bias_correction2_sqrt) + f(eps)
        p = p - f(step_size) * m / denom
        # what the kernel stores, rounded to the parameter's dtype (the next step starts from these)
        exp_avgs[i].copy_(Tensor._make(m))
        exp_avg_sqs[i].copy_(Tensor._make(v))
        param.copy_(Tensor._make(p))
