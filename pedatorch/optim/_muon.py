r"""Muon (``torch.optim.Muon``): momentum whose update is orthogonalized, for 2-D weight matrices.

SGD with momentum steps along the momentum ``B``; for a weight matrix that direction is usually
dominated by a few singular directions.  Muon (Keller Jordan, 2024) replaces ``B = U S V^T`` by
(roughly) ``U V^T``: every singular value is pushed towards 1, so all directions move by the same
amount.  The SVD is too slow, so a few Newton-Schulz iterations of an odd polynomial do it, in
bfloat16.  At each step, with gradient ``g``::

    B = lerp(B, g, 1 - momentum)                      (momentum_buffer)
    M = lerp(g, B, momentum)  (nesterov)   or   M = B
    X = M / max(||M||_F, eps)                         (singular values now <= 1)
    repeat ns_steps times:                            (transposed first when M is tall)
        A = X @ X^T
        X = a * X + (b * A + c * A @ A) @ X           (each singular value s goes to a s + b s^3 + c s^5)
    theta = theta * (1 - lr * weight_decay)           (decoupled weight decay)
    theta = theta - adjusted_lr * X

with ``(a, b, c) = (3.4445, -4.7750, 2.0315)``.  ``adjust_lr_fn`` rescales ``lr`` for a matrix of shape
``(A, B)``: ``"original"`` (the default, None) by ``sqrt(max(1, A / B))``, ``"match_rms_adamw"`` by
``0.2 * sqrt(max(A, B))`` (so AdamW's lr and weight decay carry over).  Only 2-D parameters are
allowed: optimize biases and embeddings with another optimizer (AdamW).
"""
import math

from .._tensor import Tensor
from ..autograd import grad_mode
from .optimizer import Optimizer, _scalar_arg, _to_scalar

__all__ = ["Muon"]

# Keller Jordan's constants (https://kellerjordan.github.io/posts/muon/), as in PyTorch
EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """Approximately orthogonalize the 2-D ``grad`` (its "zeroth power" ``U V^T``) in bfloat16.

    The quintic's coefficients maximize its slope at zero, so small singular values grow fast; the
    iteration does not converge to exactly 1 but leaves them roughly in (0.5, 1.5), which is enough.
    """
    from ..ops.linalg import addmm
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    ortho_grad = grad.bfloat16()
    if grad.size(0) > grad.size(1):  # work on the wide orientation: X @ X^T is the smaller matrix
        ortho_grad = ortho_grad.T
    ortho_grad.div_(ortho_grad.norm().clamp(min=eps))  # Frobenius norm >= spectral norm: all s <= 1
    for _ in range(ns_steps):
        gram_matrix = ortho_grad @ ortho_grad.T
        gram_update = addmm(gram_matrix, gram_matrix, gram_matrix, beta=b, alpha=c)  # b A + c A^2
        ortho_grad = addmm(ortho_grad, gram_update, ortho_grad, beta=a)               # a X + (...) X
    if grad.size(0) > grad.size(1):
        ortho_grad = ortho_grad.T
    return ortho_grad


def _adjust_lr(lr, adjust_lr_fn, param_shape):
    """The learning rate scaled for a parameter of shape ``(A, B)`` (see the module docstring)."""
    A, B = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        adjusted_ratio = math.sqrt(max(1, A / B))
    elif adjust_lr_fn == "match_rms_adamw":
        adjusted_ratio = 0.2 * math.sqrt(max(A, B))
    else:
        adjusted_ratio = 1.0
    return lr * adjusted_ratio


class Muon(Optimizer):
    """Implements the Muon algorithm (see the module docstring for the update).

    Args: params (2-D tensors only), lr (default 1e-3), weight_decay (0.1), momentum (0.95),
    nesterov (True), ns_coefficients ((3.4445, -4.7750, 2.0315)), eps (1e-7), ns_steps (5),
    adjust_lr_fn (None: "original"; or "match_rms_adamw").

    State per parameter: ``momentum_buffer``.
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS, ns_steps=DEFAULT_NS_STEPS,
                 adjust_lr_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")

        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum, "nesterov": nesterov,
                    "ns_coefficients": ns_coefficients, "eps": eps, "ns_steps": ns_steps,
                    "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)

        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        f"Muon only supports 2D parameters whereas we found a parameter with size: {p.size()}")

    def _init_group(self, group, params_with_grad, grads, muon_momentum_bufs):
        from ..ops.creation import zeros_like
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.is_complex():
                raise RuntimeError("Muon does not support complex parameters")
            if p.grad.is_sparse:
                raise RuntimeError("Muon does not support sparse gradients")
            params_with_grad.append(p)
            grads.append(p.grad)

            state = self.state[p]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = zeros_like(p.grad)
            muon_momentum_bufs.append(state["momentum_buffer"])
        return False  # has_complex

    @grad_mode.no_grad()
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()

        for group in self.param_groups:
            params_with_grad, grads, muon_momentum_bufs = [], [], []
            has_complex = self._init_group(group, params_with_grad, grads, muon_momentum_bufs)
            muon(params_with_grad, grads, muon_momentum_bufs, lr=group["lr"], weight_decay=group["weight_decay"],
                 momentum=group["momentum"], nesterov=group["nesterov"], ns_coefficients=group["ns_coefficients"],
                 eps=group["eps"], ns_steps=group["ns_steps"], adjust_lr_fn=group["adjust_lr_fn"],
                 has_complex=has_complex)
        return loss


def muon(params, grads, muon_momentum_bufs, *, foreach=None, lr, weight_decay, momentum, nesterov, ns_coefficients,
         ns_steps, eps, adjust_lr_fn, has_complex):
    """Functional API that performs the Muon computation (see :class:`Muon`)."""
    if foreach is not None and foreach:
        raise RuntimeError("Foreach is not supported for Muon yet")
    _single_tensor_muon(params, grads, muon_momentum_bufs, lr=lr, weight_decay=weight_decay, momentum=momentum,
                        nesterov=nesterov, ns_coefficients=ns_coefficients, ns_steps=ns_steps, eps=eps,
                        adjust_lr_fn=adjust_lr_fn, has_complex=has_complex)


def _single_tensor_muon(params, grads, muon_momentum_bufs, *, lr, weight_decay, momentum, nesterov,
                        ns_coefficients, ns_steps, eps, adjust_lr_fn, has_complex):
    lr = _to_scalar(lr)
    if has_complex:
        raise ValueError("Complex parameters are not supported")

    for i, param in enumerate(params):
        grad = grads[i]
        if grad.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")

        buf = muon_momentum_bufs[i]
        buf.lerp_(grad, 1 - momentum)
        update = grad.lerp(buf, momentum) if nesterov else buf

        update = _zeropower_via_newtonschulz(update, ns_coefficients, ns_steps, eps)
        adjusted_lr = _adjust_lr(lr, adjust_lr_fn, param.shape)

        param.mul_(1 - lr * weight_decay)
        param.add_(update, alpha=_scalar_arg(-adjusted_lr))
