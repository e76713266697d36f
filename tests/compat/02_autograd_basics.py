# Autograd basics, after "A Gentle Introduction to torch.autograd" and "Autograd mechanics":
# backward, .grad accumulation, retain_graph, torch.autograd.grad, tensor and module hooks, no_grad,
# a custom autograd.Function, higher-order gradients and the graph of grad_fn nodes.
import math

import torch
import torch.nn as nn
from torch.autograd import Function

torch.manual_seed(0)

# ---- backward and the graph
x = torch.ones(5)
y = torch.zeros(3)
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(f"Gradient function for z = {z.grad_fn}".split(" object")[0])
print("Gradient function for loss =", type(loss.grad_fn).__name__)
print([type(f).__name__ if f is not None else None for f, _ in z.grad_fn.next_functions])
loss.backward()
print(w.grad)
print(b.grad)
print(z.requires_grad, z.is_leaf, w.is_leaf, z.detach().requires_grad)

# ---- gradients accumulate; retain_graph for a second pass
a = torch.tensor([2.0, 3.0], requires_grad=True)
q = 3 * a**3 - a**2
q.backward(gradient=torch.tensor([1.0, 1.0]), retain_graph=True)
print(a.grad, 9 * a**2 - 2 * a == a.grad)
q.sum().backward()
print(a.grad)
a.grad.zero_()
print(a.grad)
try:
    q.sum().backward()
    q.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])

# ---- torch.autograd.grad and higher-order derivatives
t = torch.tensor(1.5, requires_grad=True)
f = torch.sin(t) * t**2
(df,) = torch.autograd.grad(f, t, create_graph=True)
(d2f,) = torch.autograd.grad(df, t, create_graph=True)
(d3f,) = torch.autograd.grad(d2f, t)
print(f"f={f.item():.6f} f'={df.item():.6f} f''={d2f.item():.6f} f'''={d3f.item():.6f}")
print(df.grad_fn.name(), d2f.requires_grad, d3f.requires_grad)
# gradient penalty (as in WGAN-GP): d/dw of ||d out / d in||^2
inp = torch.randn(4, 3, requires_grad=True)
lin = nn.Linear(3, 1)
out = torch.tanh(lin(inp)).sum()
(g,) = torch.autograd.grad(out, inp, create_graph=True)
penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
penalty.backward()
print(f"penalty={penalty.item():.6f}", lin.weight.grad, lin.bias.grad, sep="\n")

# ---- hooks
h = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
handle = h.register_hook(lambda grad: grad * 10)
mid = h * 2
mid.retain_grad()
mid.register_hook(lambda grad: print("grad at mid:", grad))
(mid**2).sum().backward()
print(h.grad, mid.grad)
handle.remove()
h.grad = None
(h * 2).sum().backward()
print(h.grad)

seen = []
net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
net[0].register_forward_hook(lambda m, i, o: seen.append(("fwd", type(m).__name__, tuple(o.shape))))
net[2].register_full_backward_hook(lambda m, gi, go: seen.append(("bwd", tuple(gi[0].shape), tuple(go[0].shape))))
net[1].register_forward_pre_hook(lambda m, args: seen.append(("pre", type(m).__name__)))
net(torch.randn(5, 3)).pow(2).mean().backward()
print(seen)
print(net[0].weight.grad)

# ---- no_grad, detach, set_grad_enabled, inference_mode
with torch.no_grad():
    nz = w * 2
print(nz.requires_grad, nz.grad_fn, torch.is_grad_enabled())
with torch.set_grad_enabled(False):
    print((w + 1).requires_grad)
with torch.inference_mode():
    it = w * 3
print(it.requires_grad, it.is_inference())


@torch.no_grad()
def evaluate(v):
    return (v * v).sum()


print(evaluate(w).requires_grad)


# ---- a custom autograd.Function
class Exp(Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


class LegendrePolynomial3(Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input**3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input**2 - 1)


class ClampGrad(Function):
    """Identity forward, gradient clipped to [-lo, lo] (straight-through style)."""

    @staticmethod
    def forward(ctx, x, lo):
        ctx.lo = lo
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return g.clamp(-ctx.lo, ctx.lo), None


e_in = torch.tensor([0.0, 1.0, -1.0], requires_grad=True)
e_out = Exp.apply(e_in)
print(e_out, type(e_out.grad_fn).__name__)
e_out.sum().backward()
print(e_in.grad)
print(torch.autograd.gradcheck(Exp.apply, (torch.randn(3, dtype=torch.double, requires_grad=True),)))

# fitting y = sin(x) with a + b * P3(c + d * x), as in the "Learning PyTorch with Examples" tutorial
dtype = torch.float
xs = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
ys = torch.sin(xs)
a_, b_, c_, d_ = (torch.full((), v, dtype=dtype, requires_grad=True) for v in (0.0, -1.0, 0.0, 0.3))
learning_rate = 5e-6
for step in range(400):
    P3 = LegendrePolynomial3.apply
    y_pred = a_ + b_ * P3(c_ + d_ * xs)
    l2 = (y_pred - ys).pow(2).sum()
    if step % 100 == 99:
        print(step, f"{l2.item():.3f}")
    l2.backward()
    with torch.no_grad():
        for p in (a_, b_, c_, d_):
            p -= learning_rate * p.grad
            p.grad = None
print(f"Result: y = a + {b_.item():.4f} * P3(c + {d_.item():.4f} x), |a|, |c| < 1e-4: {abs(a_.item()) < 1e-4 and abs(c_.item()) < 1e-4}")

s = torch.tensor([3.0, -0.2, 0.7], requires_grad=True)
(ClampGrad.apply(s, 0.5) * torch.tensor([2.0, 0.1, -4.0])).sum().backward()
print(s.grad)

# ---- Jacobians and Hessians
from torch.autograd.functional import hessian, jacobian


def rosen(p):
    return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2


p0 = torch.tensor([0.5, -0.5])
print(jacobian(lambda v: torch.stack([v[0] * v[1], v[0] ** 2]), p0))
print(hessian(rosen, p0))

# ---- in-place on a saved tensor is caught
u = torch.randn(3, requires_grad=True)
s2 = u.sigmoid()
s2.mul_(2)
try:
    s2.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(";")[0][:90])
