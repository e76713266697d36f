# A tour of autograd's extension points, in the style of the "Extending PyTorch" notes, the "Double
# Backward with Custom Functions" and "Autograd mechanics" tutorials and the torch.autograd docs:
# torch.autograd.Function with ctx.save_for_backward, ctx.needs_input_grad, mark_non_differentiable,
# mark_dirty, set_materialize_grads, once_differentiable and the setup_context style; torch.autograd.grad
# with retain_graph / create_graph / allow_unused / grad_outputs / materialize_grads; tensor hooks and
# retain_grad; Module full backward hooks; gradcheck / gradgradcheck; checkpoint(use_reentrant=False);
# torch.autograd.functional's jacobian / hessian / vjp / jvp / hvp; detect_anomaly catching a NaN; the grad
# modes as decorators and context managers; the errors for backward twice and for modifying a saved
# tensor in place; torch.autograd.backward(inputs=), graph nodes (next_functions, node hooks, the
# _saved_* attributes), saved_tensors_hooks / save_on_cpu; and forward-mode AD (forward_ad with a custom
# Function's jvp).
import warnings

import torch
import torch.nn as nn
from torch.autograd import Function
from torch.autograd.function import once_differentiable
from torch.autograd.gradcheck import GradcheckError
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)


# ---- the docs' LinearFunction, with needs_input_grad
class LinearFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if VERBOSE:
            print("  needs_input_grad", ctx.needs_input_grad)
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


linear = LinearFunction.apply
VERBOSE = True
inp = torch.randn(4, 3, dtype=torch.double, requires_grad=True)
weight = torch.randn(2, 3, dtype=torch.double, requires_grad=True)
bias = torch.randn(2, dtype=torch.double, requires_grad=True)
out = linear(inp, weight, bias)
print("LinearFunction", out.shape, out.grad_fn.__class__.__name__, out.requires_grad)
out.sum().backward()
print("grads", inp.grad.shape, weight.grad.shape, bias.grad.tolist())
VERBOSE = False
print("gradcheck", torch.autograd.gradcheck(linear, (inp, weight, bias), eps=1e-6, atol=1e-4))
VERBOSE = True
linear(inp.detach(), weight, None).sum().backward()
print("no bias: weight grad", weight.grad[0].tolist())


# ---- once_differentiable: a double backward is refused
class Exp1(Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


x = torch.tensor([0.0, 1.0], requires_grad=True)
(g,) = torch.autograd.grad(Exp1.apply(x).sum(), x, create_graph=True)
print("once_differentiable grad", [round(v, 4) for v in g.tolist()], "requires_grad", g.requires_grad)
try:
    g.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)


# ---- mark_non_differentiable: a sort that returns its indices
class SortWithIdx(Function):
    @staticmethod
    def forward(ctx, x):
        values, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return values, idx

    @staticmethod
    def backward(ctx, g_values, g_idx):
        (idx,) = ctx.saved_tensors
        print("  g_idx", g_idx)
        grad = torch.zeros_like(g_values)
        grad.index_add_(0, idx, g_values)
        return grad


x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
values, idx = SortWithIdx.apply(x)
print("sorted", values.tolist(), idx.tolist(), "idx requires_grad", idx.requires_grad, values.requires_grad)
(values * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print("sort grad", x.grad.tolist())


# ---- set_materialize_grads(False): None arrives for unused outputs
class TwoOutputs(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x)
        return x.clone(), x.clone() * 2

    @staticmethod
    def backward(ctx, g1, g2):
        print("  grads seen", g1 is None, g2 is None)
        (x,) = ctx.saved_tensors
        grad = torch.zeros_like(x)
        if g1 is not None:
            grad = grad + g1
        if g2 is not None:
            grad = grad + 2 * g2
        return grad


x = torch.ones(2, requires_grad=True)
a, b = TwoOutputs.apply(x)
a.sum().backward()
print("materialize False grad", x.grad.tolist())


# ---- mark_dirty: an in-place custom op
class AddOneInplace(Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


leaf = torch.zeros(3, requires_grad=True)
base = leaf * 2
res = AddOneInplace.apply(base)
print("mark_dirty same object", res is base, res.tolist(), res.grad_fn.__class__.__name__)
res.sum().backward()
print("mark_dirty grad", leaf.grad.tolist())
try:
    AddOneInplace.apply(torch.zeros(2, requires_grad=True))
except RuntimeError as e:
    print("RuntimeError:", e)


# ---- a Function that returns a non-tensor and a forward that refuses wrong gradients counts
class Bad(Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * y

    @staticmethod
    def backward(ctx, g):
        return g


try:
    Bad.apply(torch.ones(2, requires_grad=True), torch.ones(2)).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)

# ---- torch.autograd.grad: retain_graph, create_graph, allow_unused, grad_outputs, materialize_grads
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
unused = torch.tensor(1.0, requires_grad=True)
y = (w * x ** 2).sum()
gx, gw = torch.autograd.grad(y, (x, w), retain_graph=True)
print("grad", gx.tolist(), gw.tolist())
try:
    torch.autograd.grad(y, [x, unused], retain_graph=True)
except RuntimeError as e:
    print("RuntimeError:", e)
print("allow_unused", torch.autograd.grad(y, [x, unused], allow_unused=True, retain_graph=True)[1])
print("materialize_grads", torch.autograd.grad(y, [x, unused], materialize_grads=True, retain_graph=True)[1])
vec = w * x ** 2
print("grad_outputs",
      torch.autograd.grad(vec, x, grad_outputs=torch.tensor([1.0, 0.0, -1.0]), retain_graph=True)[0].tolist())
try:
    torch.autograd.grad(vec, x)
except RuntimeError as e:
    print("RuntimeError:", e)
(gx,) = torch.autograd.grad(y, x, create_graph=True)
print("create_graph", gx.grad_fn is not None, gx.requires_grad)
(gxx,) = torch.autograd.grad(gx.sum(), x)
print("second derivative", gxx.tolist())
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0] + ".")
try:
    torch.autograd.grad(torch.ones(2).sum(), x)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.ones(2, requires_grad=True).pow(2).backward()
except RuntimeError as e:
    print("RuntimeError:", e)

# ---- in-place modification of a saved tensor
a = torch.tensor([1.0, 2.0], requires_grad=True)
s = a.sigmoid()
loss = (s * 3).sum() + s.sum() * s.sum()
s.mul_(2)
try:
    loss.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(";")[0])
b = a.clone()
c = b.exp()
b.add_(1)
print("version counter", b._version, c._version)
c.sum().backward()  # exp saves its output, not its input: no error
print("exp saved its result", a.grad.tolist())
d = b.pow(2)
b.mul_(3)
try:
    d.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(";")[0])
try:
    a.add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)

# ---- tensor hooks, retain_grad, leaf/non-leaf .grad
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 3
h.retain_grad()
z = h * h
seen = []
handle = h.register_hook(lambda grad: seen.append(grad.clone()) or grad * 0.5)
x.register_hook(lambda grad: print("  leaf hook sees", grad.tolist()))
z.sum().backward()
print("retain_grad", h.grad.tolist(), "hook saw", seen[0].tolist(), "x.grad", x.grad.tolist())
print("is_leaf", x.is_leaf, h.is_leaf, "retains_grad", h.retains_grad, z.retains_grad)
handle.remove()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("non-leaf .grad", z.grad)
print("warned", len(caught) > 0 and "is not a leaf Tensor" in str(caught[0].message))
acc = []
p = torch.ones(2, requires_grad=True)
p.register_post_accumulate_grad_hook(lambda t: acc.append(t.grad.sum().item()))
(p * 4).sum().backward()
print("post-accumulate hook", acc)


# ---- Module full backward hooks and backward pre hooks
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return torch.tanh(self.fc(x))


torch.manual_seed(1)
block = Block()
log = []
h1 = block.register_full_backward_hook(
    lambda m, gin, gout: log.append(("full", type(m).__name__, [None if g is None else tuple(g.shape) for g in gin],
                                     [tuple(g.shape) for g in gout])))
h2 = block.register_full_backward_pre_hook(lambda m, gout: log.append(("pre", round(gout[0].sum().item(), 4))))
h3 = block.fc.register_full_backward_hook(lambda m, gin, gout: (gin[0] * 0,))
inp = torch.randn(4, 3, requires_grad=True)
block(inp).sum().backward()
print("module hooks", log)
print("input grad zeroed by hook", inp.grad.abs().sum().item())
for h in (h1, h2, h3):
    h.remove()
inp.grad = None
block(inp).sum().backward()
print("after remove", round(inp.grad.abs().sum().item(), 4))



# a module with two tensor inputs, only one of which requires grad: grad_input has an entry per input
class Gate(nn.Module):
    def forward(self, a, b):
        return a * b


for a_grad, b_grad in ((True, False), (False, True)):
    gate, seen = Gate(), []
    gate.register_full_backward_hook(lambda m, gin, gout: seen.append([None if g is None else g.tolist() for g in gin]))
    a = torch.ones(2, requires_grad=a_grad)
    b = torch.full((2,), 3.0, requires_grad=b_grad)
    gate(a, b).sum().backward()
    print(f"Gate grad_input (a requires grad {a_grad})", seen)

# the deprecated non-full hook (older Grad-CAM code): it sees the grad_input of the module's last autograd node
legacy = []
lin = nn.Linear(3, 2)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    lin.register_backward_hook(lambda m, gin, gout: legacy.append([None if g is None else tuple(g.shape) for g in gin]))
    lin(torch.ones(4, 3, requires_grad=True)).sum().backward()
print("register_backward_hook grad_input shapes", legacy)

# ---- gradcheck on builtins, and a failing gradcheck
print("gradcheck sin*exp",
      torch.autograd.gradcheck(lambda t: t.sin() * t.exp(), torch.randn(3, dtype=torch.double, requires_grad=True)))


class WrongGrad(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 3


print("gradcheck raise_exception=False",
      torch.autograd.gradcheck(WrongGrad.apply, torch.randn(2, dtype=torch.double, requires_grad=True),
                               raise_exception=False))
try:
    torch.autograd.gradcheck(WrongGrad.apply, torch.randn(2, dtype=torch.double, requires_grad=True))
except GradcheckError as e:
    print("GradcheckError:", str(e).splitlines()[0])
print("gradgradcheck tanh",
      torch.autograd.gradgradcheck(torch.tanh, torch.randn(2, 2, dtype=torch.double, requires_grad=True)))

# ---- activation checkpointing
torch.manual_seed(2)
seg = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4))
calls = []
seg.register_forward_hook(lambda m, i, o: calls.append("fwd"))
xc = torch.randn(2, 4, requires_grad=True)
ref = seg(xc).pow(2).sum()
ref.backward()
ref_grads = [xc.grad.clone()] + [p.grad.clone() for p in seg.parameters()]
xc.grad = None
seg.zero_grad()
calls.clear()
out = checkpoint(seg, xc, use_reentrant=False)
out.pow(2).sum().backward()
print("checkpoint forwards run", len(calls), "grads equal",
      all(torch.allclose(a, b) for a, b in zip(ref_grads, [xc.grad] + [p.grad for p in seg.parameters()])))
out2 = checkpoint(lambda a, b: (a * b).sin(), xc, torch.ones(4), use_reentrant=False)
print("checkpoint fn", out2.shape, out2.requires_grad)
with torch.no_grad():
    print("checkpoint under no_grad", checkpoint(seg, xc, use_reentrant=False).requires_grad)

# ---- torch.autograd.functional
def f(x):
    return torch.stack([x[0] * x[1], x[1].sin(), x.pow(2).sum()])


x0 = torch.tensor([1.0, 2.0])
print("jacobian\n", torch.autograd.functional.jacobian(f, x0))
print("hessian\n", torch.autograd.functional.hessian(lambda x: (x[0] ** 2) * x[1] + x[1] ** 3, x0))
out, vjp = torch.autograd.functional.vjp(f, x0, torch.tensor([1.0, 0.0, 1.0]))
print("vjp", out.tolist(), vjp.tolist())
out, jvp = torch.autograd.functional.jvp(f, x0, torch.tensor([0.0, 1.0]))
print("jvp", [round(v, 4) for v in jvp.tolist()])
_, hvp = torch.autograd.functional.hvp(lambda x: x.pow(3).sum(), x0, torch.ones(2))
print("hvp", hvp.tolist())
jac = torch.autograd.functional.jacobian(lambda a, b: a * b, (torch.ones(2), torch.arange(2.)))
print("jacobian of two inputs", type(jac).__name__, [tuple(j.shape) for j in jac], jac[1].tolist())
print("vectorize", torch.autograd.functional.jacobian(torch.exp, torch.zeros(2), vectorize=True).tolist())


# ---- torch.autograd.backward with inputs=, grad_fn graph inspection, node hooks, saved tensor hooks
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
y = (x * w).sum()
torch.autograd.backward([y], inputs=[w])
print("backward(inputs=[w])", x.grad, w.grad.tolist())
z = (x * w).exp().sum()
z.backward(inputs=[x])
print("tensor.backward(inputs=[x])", [round(v, 2) for v in x.grad.tolist()])
torch.autograd.backward([x * 2, w * 3], grad_tensors=[torch.ones(2), torch.full((2,), 0.5)])
print("grad_tensors", [round(v, 2) for v in x.grad.tolist()], w.grad.tolist())
y = (x * w).relu().sum()
print("grad_fn", y.grad_fn.name(), [type(n).__name__ if n is not None else None for n, _ in y.grad_fn.next_functions])
mul = y.grad_fn.next_functions[0][0].next_functions[0][0]
print("mul node", mul.name(), len(mul.next_functions))
print("accumulate grad variable", mul.next_functions[0][0].variable is x)
order = []
y.grad_fn.register_prehook(lambda gout: order.append("sum pre"))
y.grad_fn.register_hook(lambda gin, gout: order.append("sum post"))
mul.register_hook(lambda gin, gout: order.append(f"mul post {len(gin)} {len(gout)}"))
y.backward()
print("node hooks", order)
packed = []


def pack(t):
    packed.append(tuple(t.shape))
    return t.clone()


def unpack(t):
    packed.append("unpack")
    return t


with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    a = torch.randn(3, requires_grad=True)
    b = (a * a).sum()
b.backward()
print("saved tensor hooks", packed)
with torch.autograd.graph.save_on_cpu():
    q = torch.ones(2, requires_grad=True)
    (q.sin() * 2).sum().backward()
print("save_on_cpu grad", [round(v, 4) for v in q.grad.tolist()])
try:
    torch.autograd.grad((a * 2).sum(), torch.ones(2))
except RuntimeError as e:
    print("RuntimeError:", e)


# ---- detect_anomaly catching the op that produced a NaN
x = torch.tensor([-1.0, 4.0], requires_grad=True)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    with torch.autograd.detect_anomaly():
        y = x.sqrt()
        try:
            y.sum().backward()
            print("no nan gradient error; grad", x.grad.tolist())
        except RuntimeError as e:
            print("RuntimeError:", e)
    with torch.autograd.detect_anomaly():
        x.grad = None
        try:
            (x * 0).div(torch.zeros(2)).sum().backward()
        except RuntimeError as e:
            print("RuntimeError:", e)
print("anomaly enabled", torch.is_anomaly_enabled())
torch.autograd.set_detect_anomaly(True)
print("after set_detect_anomaly", torch.is_anomaly_enabled())
torch.autograd.set_detect_anomaly(False)


# ---- grad modes as context managers and decorators
@torch.no_grad()
def evaluate(t):
    return t * 2


@torch.enable_grad()
def inner(t):
    return t * 2


@torch.inference_mode()
def infer(t):
    return t * 2


x = torch.ones(2, requires_grad=True)
print("no_grad decorator", evaluate(x).requires_grad)
with torch.no_grad():
    print("enable_grad inside no_grad", inner(x).requires_grad, "grad enabled", torch.is_grad_enabled())
r = infer(x)
print("inference_mode", r.requires_grad, r.is_inference(), torch.is_inference_mode_enabled())
with torch.inference_mode(mode=False):
    print("inference_mode(False)", (x * 2).requires_grad)
with torch.set_grad_enabled(False):
    print("set_grad_enabled(False)", (x * 2).requires_grad)
torch.set_grad_enabled(False)
print("set_grad_enabled as a function", torch.is_grad_enabled(), (x * 2).requires_grad)
torch.set_grad_enabled(True)


@torch.set_grad_enabled(False)
def frozen(t):
    return t * 2


print("set_grad_enabled decorator", frozen(x).requires_grad, torch.is_grad_enabled())
try:
    r.requires_grad_()
    (r * x).sum().backward()
    print("inference tensor used in autograd", x.grad)
except RuntimeError as e:
    print("RuntimeError:", e)
with torch.no_grad():
    leaf = torch.ones(2, requires_grad=True)
    print("leaf created under no_grad", leaf.requires_grad, (leaf * 2).grad_fn)


# ---- the setup_context style (forward without ctx), and a double backward
class Cube(Function):
    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x ** 2


x = torch.tensor([1.0, -2.0, 0.5], dtype=torch.double, requires_grad=True)
y = Cube.apply(x)
(g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
(gg,) = torch.autograd.grad(g.sum(), x)
print("Cube", y.tolist(), "d/dx", g.tolist(), "d2/dx2", gg.tolist())
print("gradcheck Cube", torch.autograd.gradcheck(Cube.apply, (x,)),
      "gradgradcheck", torch.autograd.gradgradcheck(Cube.apply, (x,)))


# ---- the tensors a graph node saved: node._saved_self / _saved_other / _saved_result
xs = torch.tensor([1.0, 2.0], requires_grad=True)
ws = torch.tensor([3.0, 4.0], requires_grad=True)
prod = xs * ws
print("saved by mul", prod.grad_fn._saved_self.tolist(), prod.grad_fn._saved_other.tolist())
c = xs.exp()
print("saved by exp", c.grad_fn._saved_result.equal(c))
c.sum().backward()
try:
    c.grad_fn._saved_result
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0] + ".")


# ---- forward-mode AD with a custom jvp
class Square(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return 2 * x * x_t


import torch.autograd.forward_ad as fwAD  # noqa: E402

primal = torch.tensor([1.0, 2.0, 3.0])
tangent = torch.tensor([1.0, 0.0, 0.5])
with fwAD.dual_level():
    dual = fwAD.make_dual(primal, tangent)
    out = Square.apply(dual)
    p, t = fwAD.unpack_dual(out)
    print("custom jvp", p.tolist(), t.tolist())
    p2, t2 = fwAD.unpack_dual(dual.sin() * dual)
    print("builtin jvp", [round(v, 4) for v in t2.tolist()])

# ---- a hook that fires once all of several tensors have their gradients (torch.autograd.graph)
xa = torch.ones(2, requires_grad=True)
xb = torch.ones(2, requires_grad=True)
fired = []
torch.autograd.graph.register_multi_grad_hook((xa, xb), lambda grads: fired.append([g is None for g in grads]))
(xa * 2).sum().backward()
print("multi grad hook", fired)
