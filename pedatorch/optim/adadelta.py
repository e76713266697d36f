r"""Adadelta (``torch.optim.Adadelta``).

For each parameter with gradient ``g``::

    g = g + weight_decay * theta                      (if weight_decay != 0)
    v = rho * v + (1 - rho) * g * g                   (square_avg)
    delta = sqrt(u + eps) / sqrt(v + eps) * g         (u: acc_delta)
    u = rho * u + (1 - rho) * delta * delta
    theta = theta - lr * delta
"""
from .._tensor import Tensor
from ..autograd import grad_mode
from .optimizer import _steps_to_tensors
from .optimizer import Optimizer, _check_capturable, _get_scalar_dtype, _scalar_arg, _to_scalar, \
    _use_grad_for_differentiable

__all__ = ["Adadelta", "adadelta"]


class Adadelta(Optimizer):
    """Implements the Adadelta algorithm.

    Args: params, lr (default 1.0), rho (0.9), eps (1e-6), weight_decay (0), foreach (None), and
    keyword-only capturable (False), maximize (False), differentiable (False).
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")

        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            _steps_to_tensors(self.state, group, group["capturable"])

    def _init_group(self, group, params_with_grad, grads, square_avgs, acc_deltas, state_steps):
        from ..ops.creation import zeros, zeros_like
        has_complex = False
        for p in group["params"]:
            if p.grad is None:
                continue
            has_complex |= p.is_complex()
            params_with_grad.append(p)
            if p.grad.is_sparse:
                raise RuntimeError("Adadelta does not support sparse gradients")
            grads.append(p.grad)

            state = self.state[p]
            if len(state) == 0:
                state["step"] = (zeros((), dtype=_get_scalar_dtype(), device=p.device) if group["capturable"]
                                 else zeros((), dtype=_get_scalar_dtype()))
                state["square_avg"] = zeros_like(p)
                state["acc_delta"] = zeros_like(p)
            square_avgs.append(state["square_avg"])
            acc_deltas.append(state["acc_delta"])
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
            params_with_grad, grads, square_avgs, acc_deltas, state_steps = [], [], [], [], []
            has_complex = self._init_group(group, params_with_grad, grads, square_avgs, acc_deltas, state_steps)
            adadelta(params_with_grad, grads, square_avgs, acc_deltas, state_steps, lr=group["lr"],
                     rho=group["rho"], eps=group["eps"], weight_decay=group["weight_decay"],
                     foreach=group["foreach"], maximize=group["maximize"], differentiable=group["differentiable"],
                     capturable=group["capturable"], has_complex=has_complex)
        return loss


def adadelta(params, grads, square_avgs, acc_deltas, state_steps, capturable=False, foreach=None,
             differentiable=False, has_complex=False, *, lr, rho, eps, weight_decay, maximize):
    """Functional API that performs the Adadelta computation (see :class:`Adadelta`)."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    _single_tensor_adadelta(params, grads, square_avgs, acc_deltas, state_steps, lr=lr, rho=rho, eps=eps,
                            weight_decay=weight_decay, maximize=maximize, differentiable=differentiable,
                            capturable=capturable, has_complex=has_complex)


def _single_tensor_adadelta(params, grads, square_avgs, acc_deltas, state_steps, *, lr, rho, eps, weight_decay,
                            maximize, differentiable, capturable, has_complex):
    from ..ops.shape import view_as_complex, view_as_real
    if capturable:
        for p, step in zip(params, state_steps, strict=True):
            _check_capturable(p, step, supports_xla=False)
    lr = _to_scalar(lr)

    for param, grad, square_avg, acc_delta, step in zip(params, grads, square_avgs, acc_deltas, state_steps,
                                                        strict=True):
        step += 1
        grad = grad if not maximize else -grad

        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)

        if param.is_complex():
            square_avg = view_as_real(square_avg)
            acc_delta = view_as_real(acc_delta)
            grad = view_as_real(grad)

        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        if differentiable:
            delta = delta.clone()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)

        if param.is_complex():
            delta = view_as_complex(delta)
        param.add_(delta, alpha=_scalar_arg(-lr))
