"""``pedatorch.optim``: optimizers and learning-rate schedulers (``torch.optim``).

    opt = pedatorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = pedatorch.optim.lr_scheduler.StepLR(opt, step_size=30)
    for epoch in range(n):
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
        sched.step()

optimizer.py holds the base class (param groups, state, state_dict, hooks); each algorithm has its
own module with PyTorch's for-loop implementation; lr_scheduler.py holds the schedulers.
"""
from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "lr_scheduler", "NAdam", "Optimizer", "RAdam",
           "RMSprop", "SGD"]

del adadelta, adagrad, adam, adamax, adamw, nadam, optimizer, radam, rmsprop, sgd  # noqa: F821 (as torch.optim)
