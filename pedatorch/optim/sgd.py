r"""Stochastic gradient descent, optionally with momentum (``torch.optim.SGD``).

For each parameter :math:`\theta` with gradient :math:`g` (``-g`` when ``maximize``)::

    g = g + weight_decay * theta                      (if weight_decay != 0)
    b = g  (first step)   or   b = momentum * b + (1 - dampening) * g      (if momentum != 0)
    g = g + momentum * b  (nesterov)   or   g = b
    theta = theta - lr * g
"""
from .._tensor import Tensor
from .optimizer import (Optimizer, _device_dtype_check_for_fused, _scalar_arg, _to_scalar,
                        _use_grad_for_differentiable)
from ..autograd import grad_mode

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    """Implements stochastic gradient descent (optionally with momentum).

    Args: params, lr (default 1e-3), momentum (0), dampening (0), weight_decay (0), nesterov (False),
    and keyword-only maximize (False), foreach (None), differentiable (False), fused (None).
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")

        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

        if fused:
            self._step_supports_amp_scaling = True
            self._need_device_dtype_check_for_fused = True
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def _init_group(self, group, params, grads, momentum_buffer_list):
        has_sparse_grad = False
        for p in group["params"]:
            if p.grad is not None:
                if group["fused"] and getattr(self, "_need_device_dtype_check_for_fused", True):
                    _device_dtype_check_for_fused(p)
                    self._need_device_dtype_check_for_fused = False
                params.append(p)
                grads.append(p.grad)
                if p.grad.is_sparse:
                    has_sparse_grad = True
                if group["momentum"] != 0:
                    state = self.state[p]
                    momentum_buffer_list.append(state.get("momentum_buffer"))
        return has_sparse_grad

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()

        for group in self.param_groups:
            params, grads, momentum_buffer_list = [], [], []
            has_sparse_grad = self._init_group(group, params, grads, momentum_buffer_list)
            sgd(params, grads, momentum_buffer_list, weight_decay=group["weight_decay"],
                momentum=group["momentum"], lr=group["lr"], dampening=group["dampening"],
                nesterov=group["nesterov"], maximize=group["maximize"], has_sparse_grad=has_sparse_grad,
                foreach=group["foreach"], fused=group["fused"], grad_scale=getattr(self, "grad_scale", None),
                found_inf=getattr(self, "found_inf", None))
            if group["momentum"] != 0:
                for p, momentum_buffer in zip(params, momentum_buffer_list, strict=True):
                    self.state[p]["momentum_buffer"] = momentum_buffer
        return loss


def sgd(params, d_p_list, momentum_buffer_list, has_sparse_grad=False, foreach=None, fused=None,
        grad_scale=None, found_inf=None, *, weight_decay, momentum, lr, dampening, nesterov, maximize):
    """Functional API that performs the SGD computation (see :class:`SGD`)."""
    _single_tensor_sgd(params, d_p_list, momentum_buffer_list, grad_scale, found_inf, weight_decay=weight_decay,
                       momentum=momentum, lr=lr, dampening=dampening, nesterov=nesterov,
                       has_sparse_grad=has_sparse_grad, maximize=maximize)


def _single_tensor_sgd(params, grads, momentum_buffer_list, grad_scale, found_inf, *, weight_decay, momentum, lr,
                       dampening, nesterov, maximize, has_sparse_grad):
    if grad_scale is not None or found_inf is not None:
        raise AssertionError("Expected grad_scale and found_inf to be None")
    lr = _to_scalar(lr)

    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]

        if weight_decay != 0:
            if isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
                grad = grad.addcmul_(param.clone(), weight_decay)
            else:
                grad = grad.add(param, alpha=_scalar_arg(weight_decay))

        if momentum != 0:
            buf = momentum_buffer_list[i]
            if buf is None:
                buf = grad.detach().clone()
                momentum_buffer_list[i] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            if nesterov:
                grad = grad.add(buf, alpha=momentum)
            else:
                grad = buf

        if isinstance(lr, Tensor) and lr.requires_grad:
            param.addcmul_(grad, lr, value=-1)
        else:
            param.add_(grad, alpha=_scalar_arg(-lr))
