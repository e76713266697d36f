r"""Adafactor (``torch.optim.Adafactor``): Adam-like steps with a factored second moment.

Adam keeps one running average of ``g * g`` per weight: as much memory as the model again.  Adafactor
(Shazeer & Stern, 2018) keeps, for a matrix of shape ``(n, m)``, only a row factor ``R`` (shape
``(n, 1)``) and a column factor ``C`` (shape ``(1, m)``), and rebuilds the full estimate as the rank-1
outer product ``R @ C / mean(R)``.  Tensors with more than two dims are factored over their last two;
vectors keep a full ``variance``.  At step ``t``, with gradient ``g``::

    beta2_hat = 1 - t ** beta2_decay                  (grows towards 1: averages over longer spans)
    rho = min(lr, 1 / sqrt(t))                        (relative step size)
    alpha = max(eps2, RMS(theta)) * rho               (steps are relative to the weights' size)
    theta = theta * (1 - lr * weight_decay)           (decoupled weight decay)
    R = lerp(R, mean(g * g, dim=-1), 1 - beta2_hat)   (row_var)
    C = lerp(C, mean(g * g, dim=-2), 1 - beta2_hat)   (col_var)
    V = R @ C / max(mean(R, dim=-2), eps1)            (or V = lerp(V, g * g, 1 - beta2_hat) for vectors)
    U = g / sqrt(max(V, eps1 ** 2))
    theta = theta - alpha * U / max(1, RMS(U) / d)    (update clipping at threshold d)

``eps1`` defaults to the machine epsilon of the (first) parameter's dtype.  PyTorch's version of the
paper uses ``lr`` as the cap of ``rho`` and for the weight decay, and puts ``eps1`` after the factors
rather than inside them; this follows PyTorch.
"""
from .. import _dtype
from .._tensor import Tensor
from ..autograd import grad_mode
from .optimizer import Optimizer, _get_scalar_dtype, _scalar_arg, _to_scalar

__all__ = ["Adafactor", "adafactor"]


class Adafactor(Optimizer):
    """Implements the Adafactor algorithm (see the module docstring for the update).

    Args: params, lr (default 1e-2; the cap of the relative step size and the weight-decay factor),
    beta2_decay (-0.8), eps ((None, 1e-3): eps1 for the denominators, None meaning the dtype's machine
    epsilon; eps2 the smallest weight scale), d (1.0, the update-clipping threshold), weight_decay (0.0),
    and keyword-only foreach (None; accepted, the for-loop runs), maximize (False).

    State per parameter: ``step``, and ``row_var`` / ``col_var`` (for 2-D and larger) or ``variance``
    (for 1-D).
    """

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        from ..ops.creation import tensor
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = tensor(float(p_state["step"]), dtype=_get_scalar_dtype())

    def _init_group(self, group, params_with_grad, grads, row_vars, col_vars, variances, state_steps):
        from ..ops.creation import tensor, zeros_like
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
            if p.grad.is_sparse:
                raise RuntimeError("Adafactor does not support sparse gradients")
            params_with_grad.append(p)
            grads.append(p.grad)

            state = self.state[p]
            if len(state) == 0:
                state["step"] = tensor(0.0, dtype=_get_scalar_dtype())
                if p.grad.dim() > 1:
                    # the row factor averages over the last dim, the column factor over the one before
                    row_shape = list(p.grad.shape)
                    row_shape[-1] = 1
                    state["row_var"] = p.grad.new_zeros(row_shape)
                    col_shape = list(p.grad.shape)
                    col_shape[-2] = 1
                    state["col_var"] = p.grad.new_zeros(col_shape)
                else:
                    state["variance"] = zeros_like(p.grad)

            row_vars.append(state.get("row_var", None))
            col_vars.append(state.get("col_var", None))
            variances.append(state.get("variance", None))
            state_steps.append(state["step"])
        return False  # has_complex

    @grad_mode.no_grad()
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        self._accelerator_graph_capture_health_check()
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()

        for group in self.param_groups:
            params_with_grad, grads, row_vars, col_vars, variances, state_steps = [], [], [], [], [], []
            eps1, eps2 = group["eps"]
            has_complex = self._init_group(group, params_with_grad, grads, row_vars, col_vars, variances,
                                           state_steps)
            adafactor(params_with_grad, grads, row_vars, col_vars, variances, state_steps, d=group["d"],
                      lr=group["lr"], beta2_decay=group["beta2_decay"], weight_decay=group["weight_decay"],
                      eps1=eps1, eps2=eps2, foreach=group["foreach"], maximize=group["maximize"],
                      grad_scale=getattr(self, "grad_scale", None), found_inf=getattr(self, "found_inf", None),
                      has_complex=has_complex)
        return loss


def adafactor(params, grads, row_vars, col_vars, variances, state_steps, foreach=None, grad_scale=None,
              found_inf=None, has_complex=False, *, d, lr, beta2_decay, weight_decay, eps1, eps2, maximize):
    """Functional API that performs the Adafactor computation (see :class:`Adafactor`)."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("`state_steps` argument must contain a list of singleton tensors")
    _single_tensor_adafactor(params, grads, row_vars, col_vars, variances, state_steps, grad_scale, found_inf, d=d,
                             lr=lr, beta2_decay=beta2_decay, weight_decay=weight_decay, eps1=eps1, eps2=eps2,
                             maximize=maximize, has_complex=has_complex)


def _single_tensor_adafactor(params, grads, row_vars, col_vars, variances, state_steps, grad_scale, found_inf, *,
                             d, lr, beta2_decay, weight_decay, eps1, eps2, maximize, has_complex):
    from ..ops.reduction import norm
    if grad_scale is not None or found_inf is not None:
        raise AssertionError("Grad scaling should occur outside of optimizer.step()")
    lr = _to_scalar(lr)

    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        step_t = state_steps[i]
        row_var, col_var, variance = row_vars[i], col_vars[i], variances[i]
        if eps1 is None:
            # as in PyTorch, the first parameter's dtype fixes eps1 for the rest of the group
            eps1 = _dtype.finfo(param.dtype).eps

        step_t += 1
        step_float = step_t.item()

        one_minus_beta2_t = step_float ** beta2_decay
        rho_t = min(lr, 1 / (step_float ** 0.5))
        # RMS(theta) = ||theta|| / sqrt(numel): the step is relative to the weights' scale
        alpha = max(eps2, param.norm(2).item() / (param.numel() ** 0.5)) * rho_t

        if weight_decay != 0:
            param.mul_(1 - lr * weight_decay)

        if grad.dim() > 1:
            if row_var is None or col_var is None:
                raise AssertionError("row_var and col_var should be defined when grad is multidimensional")
            # mean(g * g, dim=-1) computed as ||g||^2 / n along that dim (no full-size g * g)
            row_mean = norm(grad, dim=-1, keepdim=True).square_().div_(grad.size(-1))
            row_var.lerp_(row_mean, one_minus_beta2_t)
            col_mean = norm(grad, dim=-2, keepdim=True).square_().div_(grad.size(-2))
            col_var.lerp_(col_mean, one_minus_beta2_t)
            # the rank-1 estimate of E[g * g]: outer product of the factors over the mean row factor
            var_estimate = row_var @ col_var
            var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            if variance is None:
                raise AssertionError("variance should be defined when grad is a vector")
            grad_squared = grad * grad
            variance.lerp_(grad_squared, one_minus_beta2_t)
            var_estimate = variance.clone()  # the update below must not write into the state

        # eps1 squared, since the square root comes after
        update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
        update.mul_(grad)
        denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
        param.add_(update, alpha=_scalar_arg(-alpha / denom))
