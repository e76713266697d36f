"""``pedatorch.optim``: optimizers and learning-rate schedulers (``torch.optim``).

    opt = pedatorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = pedatorch.optim.lr_scheduler.StepLR(opt, step_size=30)
    for epoch in range(n):
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
        sched.step()

optimizer.py holds the base class (param groups, state, state_dict, hooks); each algorithm has its
own module with PyTorch's for-loop implementation (Adafactor and Muon in _adafactor.py and
_muon.py, PyTorch's private module names); lr_scheduler.py holds the schedulers.
"""
from . import lr_scheduler
from . import swa_utils  # noqa: F401 (torch.optim.swa_utils: AveragedModel, SWALR, update_bn)
from ._adafactor import Adafactor
from ._muon import Muon
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["Adafactor", "Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS", "lr_scheduler", "Muon",
           "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam"]

Adafactor.__module__ = "pedatorch.optim"  # as PyTorch, which keeps both in private modules (_adafactor, _muon)
Muon.__module__ = "pedatorch.optim"

del adadelta, adagrad, adam, adamax, adamw, asgd, lbfgs, nadam, optimizer, radam, rmsprop, rprop, sgd  # noqa: F821
del sparse_adam  # noqa: F821 (as torch.optim)
