r"""Rprop, resilient backpropagation (``torch.optim.Rprop``).

Rprop looks only at the *sign* of each gradient coordinate; every coordinate keeps its own step size.
For each parameter with gradient ``g`` (``prev`` is the gradient kept from the previous step)::

    s = sign(g * prev)
    eta = etaplus  where s > 0      (same sign twice: speed up)
          etaminus where s < 0      (sign flipped: we jumped over a minimum, slow down)
          1        where s == 0
    step_size = clamp(step_size * eta, step_size_min, step_size_max)
    g = 0 where s < 0               (after a flip, stand still for one step)
    theta = theta - sign(g) * step_size
    prev = g

``step_size`` starts at ``lr``.  ``maximize`` uses ``-g``.  Complex parameters are treated as pairs
of real numbers.
"""
from .._tensor import Tensor
from ..autograd import grad_mode
from .optimizer import Optimizer, _check_capturable, _get_scalar_dtype, _scalar_arg, _steps_to_tensors, \
    _use_grad_for_differentiable

__all__ = ["Rprop", "rprop"]


class Rprop(Optimizer):
    """Implements the resilient backpropagation algorithm.

    Args: params, lr (default 1e-2), etas ((etaminus, etaplus), default (0.5, 1.2)), step_sizes
    ((min, max), default (1e-6, 50)), and keyword-only capturable (False), foreach (None),
    maximize (False), differentiable (False).
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")

        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            _steps_to_tensors(self.state, group, group["capturable"])

    def _init_group(self, group, params, grads, prevs, step_sizes, state_steps):
        from ..ops.creation import full_like, zeros, zeros_like
        has_complex = False
        for p in group["params"]:
            if p.grad is None:
                continue
            has_complex |= p.is_complex()
            params.append(p)
            if p.grad.is_sparse:
                raise RuntimeError("Rprop does not support sparse gradients")
            grads.append(p.grad)

            state = self.state[p]
            if len(state) == 0:
                state["step"] = (zeros((), dtype=_get_scalar_dtype(), device=p.device) if group["capturable"]
                                 else zeros((), dtype=_get_scalar_dtype()))
                state["prev"] = zeros_like(p)
                # a complex number is two independent real numbers: both halves start at lr
                lr = _scalar_arg(group["lr"])
                state["step_size"] = full_like(p.grad, complex(lr, lr) if p.is_complex() else lr)
            prevs.append(state["prev"])
            step_sizes.append(state["step_size"])
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
            params, grads, prevs, step_sizes, state_steps = [], [], [], [], []
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            has_complex = self._init_group(group, params, grads, prevs, step_sizes, state_steps)
            rprop(params, grads, prevs, step_sizes, state_steps, step_size_min=step_size_min,
                  step_size_max=step_size_max, etaminus=etaminus, etaplus=etaplus, foreach=group["foreach"],
                  maximize=group["maximize"], differentiable=group["differentiable"],
                  capturable=group["capturable"], has_complex=has_complex)
        return loss


def rprop(params, grads, prevs, step_sizes, state_steps, foreach=None, capturable=False, maximize=False,
          differentiable=False, has_complex=False, *, step_size_min, step_size_max, etaminus, etaplus):
    """Functional API that performs the Rprop computation (see :class:`Rprop`)."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    _single_tensor_rprop(params, grads, prevs, step_sizes, state_steps, step_size_min=step_size_min,
                         step_size_max=step_size_max, etaminus=etaminus, etaplus=etaplus, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, has_complex=has_complex)


def _single_tensor_rprop(params, grads, prevs, step_sizes, state_steps, *, step_size_min, step_size_max, etaminus,
                         etaplus, maximize, capturable, differentiable, has_complex):
    from ..ops.shape import view_as_real
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        prev = prevs[i]
        step_size = step_sizes[i]
        step = state_steps[i]
        if capturable:
            _check_capturable(param, step)

        step += 1

        if param.is_complex():
            grad = view_as_real(grad)
            prev = view_as_real(prev)
            param = view_as_real(param)
            step_size = view_as_real(step_size)

        # +1 where the gradient kept its sign, -1 where it flipped, 0 where either is zero ...
        sign = grad.mul(prev.clone() if differentiable else prev).sign()
        # ... turned into the factor each step size is multiplied by
        sign[sign.gt(0)] = etaplus
        sign[sign.lt(0)] = etaminus
        sign[sign.eq(0)] = 1

        step_size.mul_(sign).clamp_(step_size_min, step_size_max)

        # where the sign flipped, take no step now (and remember a zero gradient, so that the next step
        # neither speeds up nor slows down)
        grad = grad.clone()
        grad[sign.eq(etaminus)] = 0

        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
