# Physics-informed neural networks and custom gradients, after the PINN tutorials (Raissi et al.'s recipe
# written with torch.autograd.grad) and the "Extending PyTorch" / "Double Backward with Custom Functions"
# docs: u'' + u = 0 and the heat equation solved by an MLP with Tanh, derivatives through
# autograd.grad(create_graph=True, grad_outputs=ones_like), boundary and initial losses, Adam then LBFGS; a
# custom autograd.Function with ctx.save_for_backward / ctx.mark_non_differentiable / once_differentiable,
# checked with gradcheck and gradgradcheck in float64; and torch.func-free Hessian-vector products.
import math

import torch
import torch.nn as nn
from torch.autograd import Function, gradcheck, gradgradcheck
from torch.autograd.function import once_differentiable

torch.manual_seed(0)


def grad(outputs, inputs):
    """d outputs / d inputs, keeping the graph so that it can be differentiated again."""
    return torch.autograd.grad(outputs, inputs, grad_outputs=torch.ones_like(outputs), create_graph=True)[0]


# ---- 1. the harmonic oscillator u'' + u = 0, u(0) = 0, u'(0) = 1  (solution: sin t)
class MLP(nn.Module):
    def __init__(self, n_in=1, width=16, depth=2):
        super().__init__()
        layers, d = [], n_in
        for _ in range(depth):
            layers += [nn.Linear(d, width), nn.Tanh()]
            d = width
        layers.append(nn.Linear(d, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, *coords):
        return self.net(torch.cat(coords, dim=1))


# in float64, as PINN codes often are: the second derivatives and LBFGS's curvature pairs need the digits
net = MLP().double()
t = torch.linspace(0, math.pi, 32, dtype=torch.float64).view(-1, 1).requires_grad_(True)
t0 = torch.zeros(1, 1, dtype=torch.float64, requires_grad=True)
optimizer = torch.optim.Adam(net.parameters(), lr=0.01)


def oscillator_loss():
    u = net(t)
    u_t = grad(u, t)
    u_tt = grad(u_t, t)
    residual = (u_tt + u).pow(2).mean()
    u0 = net(t0)
    initial = u0.pow(2).sum() + (grad(u0, t0) - 1).pow(2).sum()
    return residual, initial


for step in range(301):
    optimizer.zero_grad()
    residual, initial = oscillator_loss()
    loss = residual + initial
    loss.backward()
    optimizer.step()
    if step % 100 == 0:
        print(f"adam step {step:3d} residual {residual.item():.5f} initial {initial.item():.5f}")

lbfgs = torch.optim.LBFGS(net.parameters(), lr=1.0, max_iter=20, history_size=10, line_search_fn="strong_wolfe")


def closure():
    lbfgs.zero_grad()
    residual, initial = oscillator_loss()
    loss = residual + initial
    loss.backward()
    return loss


for i in range(3):
    print(f"lbfgs round {i} loss {lbfgs.step(closure).item():.3e}")
with torch.no_grad():
    probe = torch.tensor([[0.5], [1.5], [2.5]], dtype=torch.float64)
    print("u(t) vs sin(t)", net(probe).view(-1).tolist(), torch.sin(probe).view(-1).tolist())
print("loss.backward() also filled t.grad", t.grad.shape, "u is a leaf?", net(t).is_leaf)

# ---- 2. the heat equation u_t = 0.1 u_xx on [0, 1], u(x, 0) = sin(pi x), u(0, t) = u(1, t) = 0
heat = MLP(n_in=2, width=12)
x_col = torch.rand(48, 1, requires_grad=True)
t_col = (torch.rand(48, 1) * 0.5).requires_grad_()  # a leaf: scaling after requires_grad would not be
x_ic = torch.linspace(0, 1, 12).view(-1, 1)
t_bc = torch.linspace(0, 0.5, 8).view(-1, 1)
optimizer = torch.optim.Adam(heat.parameters(), lr=0.01)
for step in range(201):
    optimizer.zero_grad()
    u = heat(x_col, t_col)
    u_x = grad(u, x_col)
    pde = (grad(u, t_col) - 0.1 * grad(u_x, x_col)).pow(2).mean()
    ic = (heat(x_ic, torch.zeros_like(x_ic)) - torch.sin(math.pi * x_ic)).pow(2).mean()
    bc = heat(torch.zeros_like(t_bc), t_bc).pow(2).mean() + heat(torch.ones_like(t_bc), t_bc).pow(2).mean()
    loss = pde + ic + bc
    loss.backward()
    optimizer.step()
    if step % 50 == 0:
        print(f"heat step {step:3d} pde {pde.item():.5f} ic {ic.item():.5f} bc {bc.item():.5f}")
with torch.no_grad():
    exact = math.exp(-0.1 * math.pi ** 2 * 0.25) * math.sin(math.pi * 0.5)
    print("u(0.5, 0.25)", round(heat(torch.tensor([[0.5]]), torch.tensor([[0.25]])).item(), 3), "exact",
          round(exact, 3))


# ---- 3. custom autograd Functions
class SoftplusExp(Function):
    """y = log(1 + exp(x)) with the derivative sigmoid(x) written out; twice differentiable because the
    backward is made of differentiable ops on saved tensors."""

    @staticmethod
    def forward(ctx, x, beta=1.0):
        ctx.beta = beta
        ctx.save_for_backward(x)
        return torch.nn.functional.softplus(x, beta=beta)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(ctx.beta * x), None


class SortWithIndices(Function):
    """Sorted values (differentiable) and their indices (marked non-differentiable)."""

    @staticmethod
    def forward(ctx, x):
        values, indices = torch.sort(x)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        return torch.zeros_like(grad_values).scatter_(0, indices, grad_values)


x = torch.randn(5, dtype=torch.float64, requires_grad=True)
y = SoftplusExp.apply(x, 2.0)
print("softplus", y.grad_fn.name(), [round(v, 4) for v in y.tolist()])
print("gradcheck", gradcheck(lambda v: SoftplusExp.apply(v, 2.0), (x,), eps=1e-6, atol=1e-4))
print("gradgradcheck", gradgradcheck(lambda v: SoftplusExp.apply(v, 2.0), (x,), eps=1e-6, atol=1e-4))
(g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
(gg,) = torch.autograd.grad(g.sum(), x)
print("second derivative", torch.allclose(gg, 2.0 * torch.sigmoid(2 * x) * (1 - torch.sigmoid(2 * x))))

values, indices = SortWithIndices.apply(x)
print("indices", indices.tolist(), indices.requires_grad, values.requires_grad)
(values * torch.arange(5.0, dtype=torch.float64)).sum().backward()
print("x.grad", x.grad.tolist())
print("gradcheck sort", gradcheck(lambda v: SortWithIndices.apply(v)[0], (x.detach().requires_grad_(),)))
v2, _ = SortWithIndices.apply(x)
(g2,) = torch.autograd.grad(v2.pow(2).sum(), x, create_graph=True)  # grad_values depend on x
try:
    g2.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)

# ---- 4. Hessian-vector products with double backward, checked against autograd.functional.hessian
def energy(p):
    return (p[0] ** 2 * p[1] + torch.sin(p[1] * p[2]) + p[2] ** 3).sum()


p = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
v = torch.tensor([1.0, 0.0, -1.0], dtype=torch.float64)
(g,) = torch.autograd.grad(energy(p), p, create_graph=True)
(hvp,) = torch.autograd.grad(g, p, grad_outputs=v)
H = torch.autograd.functional.hessian(energy, p.detach())
print("hvp", [round(e, 6) for e in hvp.tolist()], torch.allclose(hvp, H @ v))
print("hessian symmetric", torch.allclose(H, H.T), H.shape, H.dtype)
_, hvp2 = torch.autograd.functional.hvp(energy, p.detach(), v)
print("functional.hvp agrees", torch.allclose(hvp2, hvp))
