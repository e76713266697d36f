r"""SparseAdam (``torch.optim.SparseAdam``): Adam for sparse gradients, e.g. ``nn.Embedding(sparse=True)``.

SparseAdam is Adam restricted to the entries that appear in a sparse gradient: the moments and the
parameter change only there, everywhere else they stay as they are (plain Adam would decay the moments
of every entry, and move entries whose gradient is zero).  For the entries ``i`` present in the
gradient ``g`` at step ``t``::

    m[i] = m[i] + (1 - beta1) * (g[i] - m[i])          (= beta1 * m[i] + (1 - beta1) * g[i])
    v[i] = v[i] + (1 - beta2) * (g[i]^2 - v[i])
    step_size = lr * sqrt(1 - beta2^t) / (1 - beta1^t)
    theta[i] = theta[i] - step_size * m[i] / (sqrt(v[i]) + eps)

``state['step']`` is a Python int here (not a tensor as in the other optimizers), as in PyTorch.

The gradients come from ``nn.Embedding(sparse=True)`` / ``nn.EmbeddingBag(sparse=True)``, as sparse COO
tensors; a dense gradient is refused with PyTorch's ``RuntimeError("SparseAdam does not support dense
gradients, please consider Adam instead")``.  The update is written out in ``_sparse_adam_update`` on the
(indices, values) form of the coalesced gradient.
"""
import math

from .._tensor import Tensor
from ..autograd import grad_mode
from .optimizer import Optimizer, _to_scalar

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Implements the masked ("lazy") Adam algorithm for sparse gradients.

    Args: params, lr (default 1e-3), betas (coefficients of the running averages of the gradient and
    of its square, (0.9, 0.999)), eps (1e-8), maximize (False).  Parameters must be dense and real.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")

        defaults = {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize}
        super().__init__(params, defaults)

        # positions [group index, index in group] of the parameters SparseAdam cannot handle
        sparse_params = [[gi, pi] for gi, group in enumerate(self.param_groups)
                         for pi, p in enumerate(group["params"]) if p.is_sparse]
        complex_params = [[gi, pi] for gi, group in enumerate(self.param_groups)
                          for pi, p in enumerate(group["params"]) if p.is_complex()]
        if sparse_params:
            raise ValueError(f"Sparse params at indices {sparse_params}: SparseAdam requires dense parameter tensors")
        if complex_params:
            raise ValueError(
                f"Complex params at indices {complex_params}: SparseAdam does not support complex parameters")

    @grad_mode.no_grad()
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        from ..ops.creation import zeros_like
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()

        for group in self.param_groups:
            params_with_grad, grads, exp_avgs, exp_avg_sqs, state_steps = [], [], [], [], []
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                params_with_grad.append(p)
                if not p.grad.is_sparse:
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
                grads.append(p.grad)

                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = zeros_like(p)
                    state["exp_avg_sq"] = zeros_like(p)
                exp_avgs.append(state["exp_avg"])
                exp_avg_sqs.append(state["exp_avg_sq"])
                state["step"] += 1
                state_steps.append(state["step"])

            sparse_adam(params_with_grad, grads, exp_avgs, exp_avg_sqs, state_steps, eps=group["eps"], beta1=beta1,
                        beta2=beta2, lr=_to_scalar(group["lr"]), maximize=group.get("maximize", False))
        return loss


def sparse_adam(params, grads, exp_avgs, exp_avg_sqs, state_steps, *, eps, beta1, beta2, lr, maximize):
    """Functional API that performs the SparseAdam computation (see :class:`SparseAdam`); ``grads`` are
    sparse COO tensors (``coalesce()``, ``_indices()``, ``_values()``)."""
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        grad = grad.coalesce()          # the update is not linear in g: each index must appear once
        _sparse_adam_update(param, exp_avgs[i], exp_avg_sqs[i], grad._indices(), grad._values(), state_steps[i],
                            eps=eps, beta1=beta1, beta2=beta2, lr=lr)


def _sparse_adam_update(param, exp_avg, exp_avg_sq, indices, values, step, *, eps, beta1, beta2, lr):
    """One SparseAdam step for one parameter whose gradient is ``values`` at ``indices``.

    ``indices`` is a (sparse_dim, nnz) integer tensor of distinct positions, ``values`` has shape
    (nnz, *dense_dims): the gradient of a COO tensor after ``coalesce()`` (already negated for
    ``maximize``).  Only those positions of ``param``, ``exp_avg`` and ``exp_avg_sq`` change.
    """
    if values.numel() == 0:             # nothing to update
        return
    where = tuple(indices)              # one index tensor per sparse dim: advanced indexing picks the rows

    # the moments, written as "old += (1 - b) * (new - old)" on the selected rows only
    old_exp_avg = exp_avg[where]
    exp_avg_update = values.sub(old_exp_avg).mul_(1 - beta1)
    exp_avg[where] = old_exp_avg + exp_avg_update
    old_exp_avg_sq = exp_avg_sq[where]
    exp_avg_sq_update = values.pow(2).sub_(old_exp_avg_sq).mul_(1 - beta2)
    exp_avg_sq[where] = old_exp_avg_sq + exp_avg_sq_update

    # the new moments of those rows again, from the pieces at hand (no second gather)
    numer = exp_avg_update.add_(old_exp_avg)
    denom = exp_avg_sq_update.add_(old_exp_avg_sq).sqrt_().add_(eps)

    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = lr * math.sqrt(bias_correction2) / bias_correction1
    param[where] = param[where] + (-step_size * numer.div_(denom))
