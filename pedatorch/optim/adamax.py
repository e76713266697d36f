r"""Adamax (``torch.optim.Adamax``): Adam with the infinity norm.

For each parameter with gradient ``g`` at step ``t``::

    g = g + weight_decay * theta                      (if weight_decay != 0)
    m = lerp(m, g, 1 - beta1)                         (exp_avg)
    u = max(beta2 * u, |g| + eps)                     (exp_inf)
    theta = theta - lr / (1 - beta1 ** t) * m / u
"""
from .._tensor import Tensor
from ..autograd import grad_mode
from .optimizer import _steps_to_tensors
from .optimizer import Optimizer, _check_capturable, _get_scalar_dtype, _get_value, _scalar_arg, _to_scalar, \
    _use_grad_for_differentiable

__all__ = ["Adamax", "adamax"]


class Adamax(Optimizer):
    """Implements the Adamax algorithm (a variant of Adam based on the infinity norm).

    Args: params, lr (default 2e-3), betas ((0.9, 0.999)), eps (1e-8), weight_decay (0), foreach (None),
    and keyword-only maximize (False), differentiable (False), capturable (False).
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
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

        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            _steps_to_tensors(self.state, group, group["capturable"])

    def _init_group(self, group, params_with_grad, grads, exp_avgs, exp_infs, state_steps):
        from ..ops.creation import tensor, zeros, zeros_like
        has_complex = False
        for p in group["params"]:
            if p.grad is None:
                continue
            has_complex |= p.is_complex()
            params_with_grad.append(p)
            if p.grad.is_sparse:
                raise RuntimeError("Adamax does not support sparse gradients")
            grads.append(p.grad)

            state = self.state[p]
            if len(state) == 0:
                state["step"] = (zeros((), dtype=_get_scalar_dtype(), device=p.device) if group["capturable"]
                                 else tensor(0.0, dtype=_get_scalar_dtype()))
                state["exp_avg"] = zeros_like(p)
                state["exp_inf"] = zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_infs.append(state["exp_inf"])
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
            params_with_grad, grads, exp_avgs, exp_infs, state_steps = [], [], [], [], []
            beta1, beta2 = group["betas"]
            has_complex = self._init_group(group, params_with_grad, grads, exp_avgs, exp_infs, state_steps)
            adamax(params_with_grad, grads, exp_avgs, exp_infs, state_steps, eps=group["eps"], beta1=beta1,
                   beta2=beta2, lr=group["lr"], weight_decay=group["weight_decay"], foreach=group["foreach"],
                   maximize=group["maximize"], differentiable=group["differentiable"],
                   capturable=group["capturable"], has_complex=has_complex)
        return loss


def adamax(params, grads, exp_avgs, exp_infs, state_steps, foreach=None, maximize=False, differentiable=False,
           capturable=False, has_complex=False, *, eps, beta1, beta2, lr, weight_decay):
    """Functional API that performs the Adamax computation (see :class:`Adamax`)."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    _single_tensor_adamax(params, grads, exp_avgs, exp_infs, state_steps, eps=eps, beta1=beta1, beta2=beta2, lr=lr,
                          weight_decay=weight_decay, maximize=maximize, differentiable=differentiable,
                          has_complex=has_complex, capturable=capturable)


def _single_tensor_adamax(params, grads, exp_avgs, exp_infs, state_steps, *, eps, beta1, beta2, lr, weight_decay,
                          maximize, differentiable, capturable, has_complex):
    from ..ops.elementwise import maximum
    from ..ops.join import cat
    from ..ops.reduction import amax
    from ..ops.shape import view_as_real
    lr = _to_scalar(lr)

    for i, param in enumerate(params):
        grad = grads[i]
        grad = grad if not maximize else -grad
        exp_avg = exp_avgs[i]
        exp_inf = exp_infs[i]
        step_t = state_steps[i]

        if capturable:
            _check_capturable(param, step_t)

        step_t += 1

        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)

        if param.is_complex():
            param = view_as_real(param)
            grad = view_as_real(grad)
            exp_avg = view_as_real(exp_avg)
            exp_inf = view_as_real(exp_inf)

        exp_avg.lerp_(grad, 1 - beta1)
        if not differentiable:
            maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
        else:
            norm_buf = cat([exp_inf.mul_(beta2).unsqueeze(0), grad.abs().add_(eps).unsqueeze_(0)], 0)
            exp_inf.copy_(amax(norm_buf, 0, keepdim=False))

        if capturable:
            neg_bias_correction = beta1 ** step_t - 1
            neg_bias_correction.div_(lr)
            denom = exp_inf * neg_bias_correction
            param.addcdiv_(exp_avg, denom)
        else:
            bias_correction = 1 - beta1 ** _get_value(step_t)
            clr = lr / bias_correction
            param.addcdiv_(exp_avg, exp_inf, value=_scalar_arg(-clr))
