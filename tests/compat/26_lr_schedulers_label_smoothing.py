# Learning-rate schedules and label smoothing as training scripts use them (after the
# torch.optim.lr_scheduler docs and the "How to adjust learning rate" recipes): OneCycleLR stepped per batch
# with its momentum cycling, CosineAnnealingWarmRestarts stepped with a fractional epoch, LinearLR warmup
# chained into CosineAnnealingLR with SequentialLR, ChainedScheduler, LambdaLR / MultiplicativeLR,
# MultiStepLR, ExponentialLR, PolynomialLR, CyclicLR, ReduceLROnPlateau, per-group learning rates,
# get_last_lr() and the scheduler's state_dict; then CrossEntropyLoss(label_smoothing=0.1) with class
# weights, ignore_index and probability targets in a small training run.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import SGD, AdamW
from torch.optim.lr_scheduler import (ChainedScheduler, CosineAnnealingLR, CosineAnnealingWarmRestarts, CyclicLR,
                                      ExponentialLR, LambdaLR, LinearLR, MultiplicativeLR, MultiStepLR, OneCycleLR,
                                      PolynomialLR, ReduceLROnPlateau, SequentialLR, StepLR)

torch.manual_seed(0)


def fresh(lr=0.1, **kw):
    model = nn.Linear(2, 2)
    return model, SGD(model.parameters(), lr=lr, **kw)


def trace(scheduler, optimizer, steps, every=1):
    lrs = []
    for step in range(steps):
        optimizer.step()
        scheduler.step()
        if step % every == 0:
            lrs.append(round(scheduler.get_last_lr()[0], 6))
    return lrs


# ---- OneCycleLR, stepped after every batch
model, optimizer = fresh(momentum=0.9)
steps_per_epoch, epochs = 5, 4
scheduler = OneCycleLR(optimizer, max_lr=0.1, steps_per_epoch=steps_per_epoch, epochs=epochs)
print(optimizer.param_groups[0]["lr"], optimizer.param_groups[0]["momentum"], optimizer.param_groups[0]["initial_lr"])
for epoch in range(epochs):
    for batch in range(steps_per_epoch):
        optimizer.step()
        scheduler.step()
    print(epoch, scheduler.get_last_lr(), round(optimizer.param_groups[0]["momentum"], 6))
model, optimizer = fresh()
scheduler = OneCycleLR(optimizer, max_lr=[0.5], total_steps=10, pct_start=0.4, anneal_strategy="linear",
                       div_factor=10, final_div_factor=100, three_phase=True, cycle_momentum=False)
print(trace(scheduler, optimizer, 9))
try:
    trace(scheduler, optimizer, 3)
except ValueError as e:
    print("ValueError:", e)

# ---- CosineAnnealingWarmRestarts with fractional epochs, as in its docstring
model, optimizer = fresh()
scheduler = CosineAnnealingWarmRestarts(optimizer, T_0=3, T_mult=2, eta_min=0.001)
iters = 4
lrs = []
for epoch in range(6):
    for i in range(iters):
        optimizer.step()
        scheduler.step(epoch + i / iters)
    lrs.append(round(scheduler.get_last_lr()[0], 6))
print(lrs, scheduler.T_cur, scheduler.T_i)
model, optimizer = fresh()
print(trace(CosineAnnealingWarmRestarts(optimizer, T_0=4), optimizer, 10))

# ---- warmup then cosine: SequentialLR, and ChainedScheduler
model, optimizer = fresh()
warmup = LinearLR(optimizer, start_factor=0.1, total_iters=3)
cosine = CosineAnnealingLR(optimizer, T_max=6, eta_min=0.01)
scheduler = SequentialLR(optimizer, schedulers=[warmup, cosine], milestones=[3])
print(trace(scheduler, optimizer, 10))
model, optimizer = fresh()
scheduler = ChainedScheduler([ExponentialLR(optimizer, gamma=0.9), StepLR(optimizer, step_size=3, gamma=0.5)])
print(trace(scheduler, optimizer, 8))

# ---- the others
for make in (lambda o: LambdaLR(o, lr_lambda=lambda epoch: 0.95 ** epoch),
             lambda o: LambdaLR(o, lr_lambda=lambda step: min(1.0, (step + 1) / 4)),
             lambda o: MultiplicativeLR(o, lr_lambda=lambda epoch: 0.9),
             lambda o: MultiStepLR(o, milestones=[2, 5], gamma=0.1),
             lambda o: ExponentialLR(o, gamma=0.5),
             lambda o: PolynomialLR(o, total_iters=5, power=2.0),
             lambda o: CosineAnnealingLR(o, T_max=4),
             lambda o: CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="triangular2")):
    model, optimizer = fresh(momentum=0.9)
    scheduler = make(optimizer)
    print(type(scheduler).__name__, trace(scheduler, optimizer, 8))
model, optimizer = fresh()
scheduler = CyclicLR(optimizer, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="exp_range", gamma=0.9,
                     cycle_momentum=False)
print(trace(scheduler, optimizer, 8))

# ---- per-group learning rates and the state_dict
model = nn.Sequential(nn.Linear(2, 4), nn.Linear(4, 2))
optimizer = AdamW([{"params": model[0].parameters()}, {"params": model[1].parameters(), "lr": 0.01}],
                  lr=0.001, weight_decay=0.01)
scheduler = LinearLR(optimizer, start_factor=0.5, end_factor=1.0, total_iters=4)
for _ in range(3):
    optimizer.step()
    scheduler.step()
print(scheduler.get_last_lr(), [g["initial_lr"] for g in optimizer.param_groups])
state = scheduler.state_dict()
print(sorted(state), state["last_epoch"], state["_last_lr"])
plateau = ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=1, threshold=0.01, cooldown=1)
for val_loss in [1.0, 0.9, 0.95, 0.91, 0.92, 0.93, 0.5, 0.6, 0.7, 0.8]:
    plateau.step(val_loss)
    print(val_loss, plateau.get_last_lr(), plateau.num_bad_epochs)

# ---- label smoothing
logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0], [1.0, 1.0, 1.0]])
target = torch.tensor([0, 2, 1])
for smoothing in (0.0, 0.1, 0.5):
    loss = nn.CrossEntropyLoss(label_smoothing=smoothing)
    print(smoothing, loss(logits, target), F.cross_entropy(logits, target, label_smoothing=smoothing, reduction="none"))
weights = torch.tensor([1.0, 2.0, 0.5])
print(F.cross_entropy(logits, target, weight=weights, label_smoothing=0.2))
print(F.cross_entropy(logits, torch.tensor([0, -100, 1]), label_smoothing=0.2))
print(F.cross_entropy(logits, torch.tensor([0, 2, 1]), weight=weights, ignore_index=2, label_smoothing=0.2,
                      reduction="sum"))
probs = F.softmax(torch.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 2.0], [0.5, 0.5, 0.0]]), dim=1)
print(F.cross_entropy(logits, probs, label_smoothing=0.1), F.cross_entropy(logits, probs, weight=weights))


def smooth_one_hot(targets, n_classes, smoothing=0.0):
    """The hand-written version older codebases carry around."""
    with torch.no_grad():
        dist = torch.full((targets.size(0), n_classes), smoothing / (n_classes - 1))
        dist.scatter_(1, targets.unsqueeze(1), 1.0 - smoothing)
    return dist


hand = torch.sum(-smooth_one_hot(target, 3, 0.1) * F.log_softmax(logits, dim=-1), dim=-1).mean()
print(hand)
try:
    nn.CrossEntropyLoss(label_smoothing=1.5)(logits, target)
except (RuntimeError, ValueError) as e:
    print(type(e).__name__, e)

# a short training run with smoothing and OneCycleLR: three noisy clusters
centres = torch.tensor([[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]])
labels = torch.randint(0, 3, (240,))
points = centres[labels] + 0.8 * torch.randn(240, 2)
model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 3))
optimizer = SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(points, labels), batch_size=30, shuffle=True)
scheduler = OneCycleLR(optimizer, max_lr=0.2, epochs=5, steps_per_epoch=len(loader))
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
for epoch in range(5):
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        total += loss.item() * len(x)
    with torch.no_grad():
        acc = (model(points).argmax(1) == labels).float().mean()
    print(epoch, round(total / len(points), 4), acc.item(), [round(lr, 5) for lr in scheduler.get_last_lr()])
with torch.no_grad():
    p = model(points[:3]).softmax(1)
print(p, p.max(1).values)  # smoothing keeps the top probability away from 1
