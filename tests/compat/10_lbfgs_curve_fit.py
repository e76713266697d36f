# Curve fitting with torch.optim.LBFGS and a closure, as in the docs' "optimizer.step(closure)" example:
# a damped oscillation fitted in float64 with the strong-Wolfe line search, a logistic growth curve fitted
# in float32 without line search, and a polynomial least-squares fit checked against torch.linalg.lstsq.
import math

import torch
import torch.nn as nn

torch.manual_seed(0)

# ---- damped oscillation y = A exp(-k t) cos(w t + phi) + noise, in float64
torch.set_default_dtype(torch.float64)
t = torch.linspace(0, 6, 120)
true = dict(A=2.0, k=0.4, w=3.0, phi=0.5)
y = true["A"] * torch.exp(-true["k"] * t) * torch.cos(true["w"] * t + true["phi"]) + 0.05 * torch.randn(t.shape)


class Damped(nn.Module):
    def __init__(self):
        super().__init__()
        self.A = nn.Parameter(torch.tensor(1.0))
        self.k = nn.Parameter(torch.tensor(0.1))
        self.w = nn.Parameter(torch.tensor(2.8))
        self.phi = nn.Parameter(torch.tensor(0.0))

    def forward(self, t):
        return self.A * torch.exp(-self.k * t) * torch.cos(self.w * t + self.phi)


model = Damped()
print(model.A.dtype, [n for n, _ in model.named_parameters()])
optimizer = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=20, history_size=10, line_search_fn="strong_wolfe")
print(optimizer)
calls = 0


def closure():
    global calls
    calls += 1
    optimizer.zero_grad()
    loss = ((model(t) - y) ** 2).mean()
    loss.backward()
    return loss


for step in range(6):
    loss = optimizer.step(closure)
    print(f"step {step}: loss {loss.item():.8f}")
print("function evaluations:", calls, "n_iter:", optimizer.state[optimizer._params[0]]["n_iter"])
print({n: round(p.item(), 3) for n, p in model.named_parameters()})
residual = model(t).detach() - y
print(f"rmse {residual.pow(2).mean().sqrt().item():.4f}")
torch.set_default_dtype(torch.float32)

# ---- logistic growth y = K / (1 + exp(-r (t - t0))) in float32, LBFGS without line search
days = torch.arange(0.0, 20.0)
cases = 100.0 / (1 + torch.exp(-0.7 * (days - 9.0))) + torch.randn(20)
params = torch.tensor([80.0, 0.5, 8.0], requires_grad=True)
opt = torch.optim.LBFGS([params], lr=0.5, max_iter=50)


def logistic_closure():
    opt.zero_grad()
    K, r, t0 = params
    loss = ((K / (1 + torch.exp(-r * (days - t0))) - cases) ** 2).mean()
    loss.backward()
    return loss


for step in range(4):
    loss = opt.step(logistic_closure)
    print(f"logistic step {step}: loss {loss.item():.4f}")
print("K, r, t0 =", [f"{v:.3f}" for v in params.tolist()])

# ---- polynomial least squares: LBFGS on the normal equations' loss vs torch.linalg.lstsq
x = torch.linspace(-1, 1, 50, dtype=torch.float64)
target = 0.5 - 1.2 * x + 0.8 * x**3 + 0.05 * torch.randn(50, dtype=torch.float64)
V = torch.stack([x**i for i in range(4)], dim=1)
coef_ls = torch.linalg.lstsq(V, target.unsqueeze(1)).solution.squeeze(1)
coef = torch.zeros(4, dtype=torch.float64, requires_grad=True)
opt = torch.optim.LBFGS([coef], line_search_fn="strong_wolfe", tolerance_grad=1e-12, tolerance_change=1e-14)


def poly_closure():
    opt.zero_grad()
    loss = ((V @ coef - target) ** 2).sum()
    loss.backward()
    return loss


opt.step(poly_closure)
print("lstsq ", [f"{c:.4f}" for c in coef_ls.tolist()])
print("lbfgs ", [f"{c:.4f}" for c in coef.tolist()])
print(torch.allclose(coef, coef_ls, atol=1e-6), f"{math.sqrt(poly_closure().item() / 50):.4f}")
