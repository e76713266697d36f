r"""ASGD, averaged stochastic gradient descent (``torch.optim.ASGD``).

Plain SGD with a decaying step size ``eta`` and a decay term ``lambd``, plus a running average ``ax``
of the iterates (Polyak averaging) that starts after ``t0`` steps.  The average is what one would
evaluate at the end; the parameters themselves follow SGD.  For each parameter with gradient ``g`` at
step ``t`` (``eta`` starts at ``lr``, ``mu`` at 1)::

    g = g + weight_decay * theta                       (if weight_decay != 0)
    theta = theta * (1 - lambd * eta)                  (decay term)
    theta = theta - eta * g
    ax = ax + mu * (theta - ax)    if mu != 1,   else  ax = theta
    eta = lr / (1 + lambd * lr * t) ** alpha           (for the next step)
    mu = 1 / max(1, t - t0)                            (averaging weight: 1 until t0, then 1/(t - t0))

``eta`` and ``mu`` are 0-dim tensors in the state (float32, or float64 when that is the default dtype).
"""
from .._tensor import Tensor
from ..autograd import grad_mode
from .optimizer import Optimizer, _get_capturable_supported_devices, _get_scalar_dtype, _get_value, _to_scalar, \
    _use_grad_for_differentiable

__all__ = ["ASGD", "asgd"]


class ASGD(Optimizer):
    """Implements Averaged Stochastic Gradient Descent.

    Args: params, lr (default 1e-2), lambd (decay term, 1e-4), alpha (power for the eta update, 0.75),
    t0 (the step at which averaging starts, 1e6), weight_decay (0), foreach (None), maximize (False),
    differentiable (False), capturable (False).
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")

        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        from ..ops.creation import tensor
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            # old state dicts kept step, eta and mu as Python numbers
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0:
                    for key in ("step", "eta", "mu"):
                        if not isinstance(p_state[key], Tensor):
                            p_state[key] = tensor(float(p_state[key]), dtype=_get_scalar_dtype(), device=p.device)

    def _init_group(self, group, params_with_grad, grads, mus, axs, etas, state_steps):
        from ..ops.creation import ones, tensor, zeros, zeros_like
        has_complex = False
        for p in group["params"]:
            if p.grad is None:
                continue
            has_complex |= p.is_complex()
            params_with_grad.append(p)
            if p.grad.is_sparse:
                raise RuntimeError("ASGD does not support sparse gradients")
            grads.append(p.grad)

            state = self.state[p]
            if len(state) == 0:
                state["step"] = zeros((), device=p.device, dtype=_get_scalar_dtype())
                lr = _to_scalar(group["lr"])
                state["eta"] = (lr.detach().to(dtype=_get_scalar_dtype(), device=p.device).clone()
                                if isinstance(lr, Tensor) else tensor(lr, dtype=_get_scalar_dtype(), device=p.device))
                state["mu"] = ones((), device=p.device, dtype=_get_scalar_dtype())
                state["ax"] = zeros_like(p)
            mus.append(state["mu"])
            axs.append(state["ax"])
            etas.append(state["eta"])
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
            params_with_grad, grads, mus, axs, etas, state_steps = [], [], [], [], [], []
            has_complex = self._init_group(group, params_with_grad, grads, mus, axs, etas, state_steps)
            asgd(params_with_grad, grads, axs, mus, etas, state_steps, lambd=group["lambd"], lr=group["lr"],
                 t0=group["t0"], alpha=group["alpha"], weight_decay=group["weight_decay"], foreach=group["foreach"],
                 maximize=group["maximize"], differentiable=group["differentiable"], capturable=group["capturable"],
                 has_complex=has_complex)
        return loss


def asgd(params, grads, axs, mus, etas, state_steps, foreach=None, maximize=False, differentiable=False,
         capturable=False, has_complex=False, *, lambd, lr, t0, alpha, weight_decay):
    """Functional API that performs the ASGD computation (see :class:`ASGD`)."""
    _single_tensor_asgd(params, grads, axs, mus, etas, state_steps, lambd=lambd, lr=lr, t0=t0, alpha=alpha,
                        weight_decay=weight_decay, maximize=maximize, differentiable=differentiable,
                        capturable=capturable, has_complex=has_complex)


def _single_tensor_asgd(params, grads, axs, mus, etas, state_steps, *, lambd, lr, t0, alpha, weight_decay, maximize,
                        differentiable, capturable, has_complex):
    from ..ops.creation import as_tensor
    from ..ops.shape import view_as_real
    lr = _to_scalar(lr)

    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        mu, ax, eta, step_t = mus[i], axs[i], etas[i], state_steps[i]

        if capturable:
            supported = _get_capturable_supported_devices()
            if not (param.device.type == mu.device.type == eta.device.type == step_t.device.type
                    and param.device.type in supported):
                raise AssertionError("If capturable=True, params, mus, etas, and state_steps must be "
                                     f"on supported devices: {supported}.")

        if param.is_complex():
            grad = view_as_real(grad)
            param = view_as_real(param)
            ax = view_as_real(ax)

        step_t += 1

        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)

        eta_value = _get_value(eta)
        param.mul_(1 - lambd * eta_value)          # decay term
        param.add_(grad, alpha=-eta_value)         # the SGD step

        # averaging: until t0, mu is 1 and the average is just the current iterate
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)

        # eta and mu for the next step, computed in Python floats and stored in the 0-dim state tensors
        step = _get_value(step_t)
        eta.copy_(as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(as_tensor(1 / max(1, step - t0)))
