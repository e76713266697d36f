# An optimizer zoo in the style of the torch.optim docs and the "optimizer benchmark" notebooks: the
# Rosenbrock function minimised by SGD (momentum, nesterov, dampening), RMSprop (centered, momentum),
# Adagrad (lr_decay), Adadelta, Adam (amsgrad), AdamW, Adamax, NAdam (decoupled_weight_decay), RAdam, ASGD
# and Rprop; then a small regression net trained with each optimizer under gradient clipping
# (clip_grad_norm_ / clip_grad_value_), ReduceLROnPlateau and CosineAnnealingWarmRestarts; param groups
# added with add_param_group, maximize=True, zero_grad(set_to_none), the optimizer's state and
# state_dict round trip, and step/load hooks.
import copy

import torch
import torch.nn as nn

torch.manual_seed(0)


def rosenbrock(xy):
    x, y = xy
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


zoo = {
    "SGD": (torch.optim.SGD, dict(lr=1e-3)),
    "SGD momentum": (torch.optim.SGD, dict(lr=1e-3, momentum=0.9, dampening=0.1)),
    "SGD nesterov": (torch.optim.SGD, dict(lr=1e-3, momentum=0.9, nesterov=True)),
    "RMSprop": (torch.optim.RMSprop, dict(lr=1e-2)),
    "RMSprop centered": (torch.optim.RMSprop, dict(lr=1e-3, centered=True, momentum=0.5)),
    "Adagrad": (torch.optim.Adagrad, dict(lr=0.5, lr_decay=1e-3, initial_accumulator_value=0.1)),
    "Adadelta": (torch.optim.Adadelta, dict(lr=5.0, rho=0.95)),
    "Adam": (torch.optim.Adam, dict(lr=0.05)),
    "Adam amsgrad": (torch.optim.Adam, dict(lr=0.05, amsgrad=True)),
    "AdamW": (torch.optim.AdamW, dict(lr=0.05, weight_decay=0.1)),
    "Adamax": (torch.optim.Adamax, dict(lr=0.1)),
    "NAdam": (torch.optim.NAdam, dict(lr=0.05, momentum_decay=4e-3)),
    "NAdam decoupled": (torch.optim.NAdam, dict(lr=0.05, weight_decay=0.01, decoupled_weight_decay=True)),
    "RAdam": (torch.optim.RAdam, dict(lr=0.01)),
    "ASGD": (torch.optim.ASGD, dict(lr=1e-3, t0=50)),
    "Rprop": (torch.optim.Rprop, dict(lr=0.01, etas=(0.5, 1.2), step_sizes=(1e-6, 1.0))),
}
print(f"{'optimizer':18s} {'f(x, y)':>10s}  x        y")
for name, (cls, kwargs) in zoo.items():
    xy = torch.tensor([-1.5, 2.0], dtype=torch.float64, requires_grad=True)
    opt = cls([xy], **kwargs)
    for _ in range(200):
        opt.zero_grad()
        loss = rosenbrock(xy)
        loss.backward()
        opt.step()
    print(f"{name:18s} {rosenbrock(xy).item():10.5f}  {xy[0].item():.4f}  {xy[1].item():.4f}")

print(torch.optim.NAdam([torch.zeros(1, requires_grad=True)], lr=0.01))

# ---- state after some steps
xy = torch.tensor([-1.5, 2.0], requires_grad=True)
opt = torch.optim.Adam([xy], lr=0.05, amsgrad=True)
for _ in range(3):
    opt.zero_grad()
    rosenbrock(xy).backward()
    opt.step()
state = opt.state[xy]
print("Adam state", sorted(state), state["step"], state["max_exp_avg_sq"].tolist())
sd = opt.state_dict()
print("state_dict", list(sd), sd["param_groups"][0]["params"], sorted(sd["param_groups"][0])[:6])
asgd = torch.optim.ASGD([xy], lr=1e-3, t0=2)
for _ in range(4):
    asgd.zero_grad()
    rosenbrock(xy).backward()
    asgd.step()
print("ASGD state", sorted(asgd.state[xy]), asgd.state[xy]["ax"].tolist(), asgd.state[xy]["eta"].item(),
      asgd.state[xy]["mu"].item())

# ---- maximize=True climbs: maximise -f
xy = torch.tensor([0.0, 0.0], requires_grad=True)
opt = torch.optim.SGD([xy], lr=1e-3, maximize=True)
for _ in range(100):
    opt.zero_grad()
    (-rosenbrock(xy)).backward()
    opt.step()
print("maximize", [round(v, 4) for v in xy.tolist()])

# ---- a regression net under each of a few optimizers, with clipping and schedulers
x = torch.linspace(-2, 2, 64).unsqueeze(1)
y = torch.sin(2 * x) + 0.1 * torch.randn_like(x)
base = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
loss_fn = nn.MSELoss()
for name, make in [("SGD+plateau", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=1e-4)),
                   ("RMSprop+warm", lambda p: torch.optim.RMSprop(p, lr=0.01, alpha=0.9)),
                   ("Adagrad", lambda p: torch.optim.Adagrad(p, lr=0.1)),
                   ("RAdam", lambda p: torch.optim.RAdam(p, lr=0.02, weight_decay=1e-3, decoupled_weight_decay=True)),
                   ("NAdam", lambda p: torch.optim.NAdam(p, lr=0.01))]:
    model = copy.deepcopy(base)
    opt = make(model.parameters())
    if name == "SGD+plateau":
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=3, threshold=1e-3)
    elif name == "RMSprop+warm":
        sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=10, T_mult=2, eta_min=1e-4)
    else:
        sched = None
    norms = []
    for epoch in range(60):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        if name.startswith("SGD"):
            norms.append(nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0).item())
        else:
            nn.utils.clip_grad_value_(model.parameters(), clip_value=0.5)
        opt.step()
        if isinstance(sched, torch.optim.lr_scheduler.ReduceLROnPlateau):
            sched.step(loss.item())
        elif sched is not None:
            sched.step()
    lr = opt.param_groups[0]["lr"]
    extra = f" max clipped norm {max(norms):.3f}" if norms else ""
    print(f"{name:13s} final loss {loss.item():.5f} lr {lr:.6f}{extra}")

# ---- add_param_group, per-group options, hooks and a state_dict round trip
model = copy.deepcopy(base)
opt = torch.optim.AdamW(model[0].parameters(), lr=0.01)
opt.add_param_group({"params": model[2].parameters(), "lr": 0.001, "weight_decay": 0.0})
print("groups", len(opt.param_groups), [g["lr"] for g in opt.param_groups],
      [g["weight_decay"] for g in opt.param_groups], opt.param_groups[1]["betas"])
try:
    opt.add_param_group({"params": model[0].weight})
except ValueError as e:
    print("ValueError:", e)
calls = []
h1 = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append("pre"))
h2 = opt.register_step_post_hook(lambda o, args, kwargs: calls.append("post"))
for _ in range(5):
    opt.zero_grad()
    loss_fn(model(x), y).backward()
    opt.step()
h1.remove()
h2.remove()
opt.step()
print("hooks", calls.count("pre"), calls.count("post"))
saved = copy.deepcopy(opt.state_dict())
fresh_model = copy.deepcopy(model)
fresh = torch.optim.AdamW(fresh_model[0].parameters(), lr=0.5)
fresh.add_param_group({"params": fresh_model[2].parameters()})
fresh.load_state_dict(saved)
print("loaded lrs", [g["lr"] for g in fresh.param_groups], "steps",
      [fresh.state[p]["step"].item() for p in fresh_model.parameters()])
for o, m in ((opt, model), (fresh, fresh_model)):
    o.zero_grad()
    loss_fn(m(x), y).backward()
    o.step()
print("same next step", all(torch.equal(a, b) for a, b in zip(model.parameters(), fresh_model.parameters())))
opt.zero_grad(set_to_none=False)
print("zero_grad(set_to_none=False)", model[0].bias.grad.abs().sum().item(), model[0].bias.grad is not None)
opt.zero_grad()
print("zero_grad()", model[0].bias.grad)
