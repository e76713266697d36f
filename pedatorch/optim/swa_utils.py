"""Stochastic Weight Averaging and EMA (``torch.optim.swa_utils``).

SWA (Izmailov et al., 2018, https://arxiv.org/abs/1803.05407) keeps, next to the model being trained, a
copy whose weights are the running *average* of the weights visited late in training; the average tends to
sit in a flatter region of the loss and to generalize better.  EMA (an exponential moving average, a form
of Polyak averaging) is the same machinery with a different averaging rule.

    swa_model = AveragedModel(model)                   # a deep copy of model, plus a counter n_averaged
    swa_sched = SWALR(optimizer, swa_lr=0.05)           # anneal the lr to a constant for the SWA phase
    for epoch in range(100):
        train_one_epoch(model, optimizer)
        if epoch >= 75:
            swa_model.update_parameters(model)        # fold the current weights into the average
            swa_sched.step()
    update_bn(loader, swa_model)                        # BatchNorm statistics of the averaged weights

The averaging rules are plain formulas (``n`` = the number of models averaged so far):

    SWA:  avg <- avg + (w - avg) / (n + 1)            (the mean of all the weights seen)
    EMA:  avg <- decay * avg + (1 - decay) * w
"""
import itertools
import math
import warnings
from copy import deepcopy

from .._warnings import user_stacklevel
from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops.creation import tensor as _tensor
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler, _format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def _is_float_or_complex(t):
    return t.is_floating_point() or t.is_complex()


# ---------------------------------------------------------------- averaging functions
# Two flavours: an ``avg_fn`` maps one pair (averaged, current) to the new average and returns it; a
# ``multi_avg_fn`` takes two *lists* of tensors and updates the first list in place (PyTorch does the
# lists with its fused ``_foreach_*`` kernels; here a loop does the same arithmetic).

def get_ema_multi_avg_fn(decay=0.999):
    """In-place EMA over lists of tensors: ``ema <- decay * ema + (1 - decay) * current``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        if _is_float_or_complex(ema_param_list[0]):
            # lerp(a, b, w) = a + w * (b - a) with w = 1 - decay: the EMA formula rearranged
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.lerp_(p_model, 1 - decay)
        else:  # integer buffers (e.g. BatchNorm's num_batches_tracked): lerp_ needs floats
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """In-place running mean over lists of tensors: ``avg <- avg + (current - avg) / (n + 1)``."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if _is_float_or_complex(averaged_param_list[0]):
            weight = 1 / (num_averaged + 1)  # a tensor when num_averaged is AveragedModel's n_averaged
            for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
                p_avg.lerp_(p_model, weight)
        else:
            for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
                diff = p_model - p_avg
                if isinstance(num_averaged, Tensor):
                    p_avg.addcdiv_(diff, num_averaged + 1)
                else:
                    p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """EMA of one tensor: returns ``decay * ema + (1 - decay) * current``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """Running mean of one tensor: returns ``avg + (current - avg) / (n + 1)``."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


# ---------------------------------------------------------------- the averaged model
class AveragedModel(Module):
    """A copy of ``model`` whose parameters are a running average (SWA by default, or ``avg_fn`` /
    ``multi_avg_fn``) of the parameters ``update_parameters(model)`` is given.

    ``use_buffers=True`` averages the buffers too (e.g. BatchNorm's running statistics); otherwise the
    buffers are simply copied from ``model`` at each update.  The number of models averaged so far is the
    buffer ``n_averaged`` (an int64 tensor, so it is saved in the state dict); the averaging functions
    are not saved.
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        # a copy, so that training ``model`` further does not move the average
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _tensor(0, dtype=D.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Fold ``model``'s current weights into the average (the first call just copies them)."""
        if self.use_buffers:
            self_param = itertools.chain(self.module.parameters(), self.module.buffers())
            model_param = itertools.chain(model.parameters(), model.buffers())
        else:
            self_param, model_param = self.parameters(), model.parameters()

        # detached: averaging is bookkeeping and must not be recorded by autograd
        averaged, current = [], []
        first = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(self_param, model_param):
            p_model_ = p_model.detach().to(p_averaged.device)
            averaged.append(p_averaged.detach())
            current.append(p_model_)
            if first:  # the average of one model is that model
                p_averaged.detach().copy_(p_model_)

        if self.n_averaged > 0:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                # a multi_avg_fn sees one call per (device, dtype) group, as PyTorch's fused kernels need
                for (device, _), (avg_group, cur_group) in _group_by_device_and_dtype(averaged, current).items():
                    n_averaged = self.n_averaged.to(device)
                    if self.multi_avg_fn is not None:
                        self.multi_avg_fn(avg_group, cur_group, n_averaged)
                    else:
                        # the default SWA mean; PyTorch uses the fused multi version only on GPUs,
                        # this one-tensor-at-a-time version on the CPU (their roundings differ slightly)
                        avg_fn = get_swa_avg_fn()
                        for p_avg, p_model in zip(avg_group, cur_group, strict=True):
                            p_avg.copy_(avg_fn(p_avg, p_model, n_averaged))
            else:
                for p_avg, p_model in zip(averaged, current, strict=True):
                    n_averaged = self.n_averaged.to(p_avg.device)
                    p_avg.copy_(self.avg_fn(p_avg, p_model, n_averaged))

        if not self.use_buffers:
            # buffers are not averaged: keep them equal to the model's (BatchNorm stats, counters, ...)
            for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1


def _group_by_device_and_dtype(averaged, current):
    """``{(device, dtype): (averaged tensors, current tensors)}``, keeping the order within each group."""
    groups = {}
    for a, c in zip(averaged, current, strict=True):
        avg_group, cur_group = groups.setdefault((a.device, a.dtype), ([], []))
        avg_group.append(a)
        cur_group.append(c)
    return groups


@no_grad()
def update_bn(loader, model, device=None):
    """Recompute the BatchNorm running statistics of ``model`` with one pass over ``loader``.

    The averaged weights were never run forward, so the running mean/var the BatchNorm layers hold belong
    to other weights.  This resets them and, with ``momentum=None`` (a plain cumulative mean over the
    batches), averages the statistics of every batch.  A batch is a tensor or a list/tuple whose first
    element is the input.
    """
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return

    was_training = model.training
    model.train()  # BatchNorm only updates its statistics in training mode
    for module in momenta:
        module.momentum = None

    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)

    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


# ---------------------------------------------------------------- the SWA learning-rate schedule
class SWALR(LRScheduler):
    """Anneal each param group's lr from its current value to ``swa_lr`` over ``anneal_epochs`` steps
    (``anneal_strategy`` "cos" or "linear"), then hold it at ``swa_lr``.

    ``swa_lr`` is one float for all groups or a list with one per group; it is stored in each group as
    ``group["swa_lr"]``.  The schedule is chainable: each step recovers the lr the annealing started from
    out of the group's current lr, so another scheduler may have moved it in between.
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    # alpha(t) for the fraction t in [0, 1] of the annealing done: 0 -> the starting lr, 1 -> swa_lr
    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        """Invert ``lr = swa_lr * alpha + initial * (1 - alpha)`` for ``initial``."""
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=user_stacklevel())
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)  # no annealing: swa_lr from the first step on
        # the lr the annealing started from, recovered from the previous step's alpha
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self):
        """Every attribute but the optimizer and ``anneal_func`` (a function; rebuilt on load)."""
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
