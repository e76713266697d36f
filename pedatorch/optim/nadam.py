r"""NAdam (``torch.optim.NAdam``): Adam with Nesterov momentum.

For each parameter with gradient ``g`` at step ``t``::

    theta = theta * (1 - lr * weight_decay)  (decoupled)  or  g = g + weight_decay * theta
    mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay));  mu_product *= mu_t
    m = lerp(m, g, 1 - beta1);   v = beta2 * v + (1 - beta2) * g * g
    denom = sqrt(v / (1 - beta2 ** t)) + eps
    theta = theta - lr * (1 - mu_t) / (1 - mu_product) * g / denom
                  - lr * mu_{t+1} / (1 - mu_product * mu_{t+1}) * m / denom
"""
from .._tensor import Tensor
from ..autograd import grad_mode
from .optimizer import Optimizer, _check_capturable, _get_scalar_dtype, _get_value, _scalar_arg, _to_scalar, \
    _use_grad_for_differentiable

__all__ = ["NAdam", "nadam"]


class NAdam(Optimizer):
    """Implements the NAdam algorithm.

    Args: params, lr (default 2e-3), betas ((0.9, 0.999)), eps (1e-8), weight_decay (0),
    momentum_decay (4e-3), decoupled_weight_decay (False), and keyword-only foreach, maximize, capturable,
    differentiable.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
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
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")

        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        from ..ops.creation import tensor
        for group in self.param_groups:
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0:
                    for key in ("step", "mu_product"):
                        if not isinstance(p_state[key], Tensor):
                            val = float(p_state[key]) if key == "step" else p_state[key]
                            p_state[key] = (tensor(val, dtype=_get_scalar_dtype(), device=p.device)
                                            if group["capturable"] else tensor(val, dtype=_get_scalar_dtype()))

    def _init_group(self, group, params_with_grad, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps):
        from ..ops.creation import ones, tensor, zeros, zeros_like
        has_complex = False
        for p in group["params"]:
            if p.grad is not None:
                has_complex |= p.is_complex()
                params_with_grad.append(p)
                if p.grad.is_sparse:
                    raise RuntimeError("NAdam does not support sparse gradients")
                grads.append(p.grad)

                state = self.state[p]
                if len(state) == 0:
                    if group["capturable"]:
                        state["step"] = zeros((), dtype=_get_scalar_dtype(), device=p.device)
                        state["mu_product"] = ones((), dtype=_get_scalar_dtype(), device=p.device)
                    else:
                        state["step"] = tensor(0.0, dtype=_get_scalar_dtype())
                        state["mu_product"] = tensor(1.0, dtype=_get_scalar_dtype())
                    state["exp_avg"] = zeros_like(p)
                    state["exp_avg_sq"] = zeros_like(p)

                exp_avgs.append(state["exp_avg"])
                exp_avg_sqs.append(state["exp_avg_sq"])
                mu_products.append(state["mu_product"])
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
            params_with_grad, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps = [], [], [], [], [], []
            beta1, beta2 = group["betas"]
            has_complex = self._init_group(group, params_with_grad, grads, exp_avgs, exp_avg_sqs, mu_products,
                                           state_steps)
            nadam(params_with_grad, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, beta1=beta1,
                  beta2=beta2, lr=group["lr"], weight_decay=group["weight_decay"],
                  momentum_decay=group["momentum_decay"], eps=group["eps"], maximize=group["maximize"],
                  decoupled_weight_decay=group["decoupled_weight_decay"], foreach=group["foreach"],
                  capturable=group["capturable"], differentiable=group["differentiable"], has_complex=has_complex)
        return loss


def nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, decoupled_weight_decay=False,
          foreach=None, capturable=False, differentiable=False, has_complex=False, maximize=False, *, beta1, beta2,
          lr, weight_decay, momentum_decay, eps):
    """Functional API that performs the NAdam computation (see :class:`NAdam`)."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    if not all(isinstance(t, Tensor) for t in mu_products):
        raise RuntimeError("API has changed, `mu_products` argument must contain a list of singleton tensors")
    _single_tensor_nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, beta1=beta1, beta2=beta2,
                         lr=lr, weight_decay=weight_decay, momentum_decay=momentum_decay, maximize=maximize,
                         decoupled_weight_decay=decoupled_weight_decay, eps=eps, capturable=capturable,
                         differentiable=differentiable, has_complex=has_complex)


def _single_tensor_nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, *, beta1, beta2, lr,
                         weight_decay, momentum_decay, eps, decoupled_weight_decay, maximize, capturable,
                         differentiable, has_complex):
    from ..ops.shape import view_as_real
    lr = _to_scalar(lr)

    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg = exp_avgs[i]
        exp_avg_sq = exp_avg_sqs[i]
        mu_product = mu_products[i]
        step_t = state_steps[i]

        if param.is_complex():
            param = view_as_real(param)
            grad = view_as_real(grad)
            exp_avg = view_as_real(exp_avg)
            exp_avg_sq = view_as_real(exp_avg_sq)

        if capturable:
            _check_capturable(param, mu_product, step_t, what="params, mu_products and state_steps")

        step_t += 1
        step = step_t if capturable else _get_value(step_t)

        bias_correction2 = 1 - beta2 ** step

        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)

        # the momentum cache mu_t and mu_{t+1}
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))

        mu_product *= mu

        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()

        if differentiable or capturable:
            denom = denom.add(eps)
            mu_product_next = mu_product * mu_next
            grad = grad * (-lr * (1.0 - mu) / (1.0 - mu_product))
            exp_avg = exp_avg * (-lr * mu_next / (1.0 - mu_product_next))
            param.addcdiv_(grad, denom)
            param.addcdiv_(exp_avg, denom)
        else:
            mu_product_next = _get_value(mu_product) * mu_next
            denom.add_(eps)
            param.addcdiv_(grad, denom, value=_scalar_arg(-lr * (1.0 - mu) / (1.0 - _get_value(mu_product))))
            param.addcdiv_(exp_avg, denom, value=_scalar_arg(-lr * mu_next / (1.0 - mu_product_next)))
