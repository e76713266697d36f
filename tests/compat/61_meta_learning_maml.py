# Meta-learning and higher-order autograd, as the well-known MAML / "learning to learn" code writes it, on
# sine-wave regression tasks (amplitude and phase drawn with torch.rand): a functional MLP with explicit
# weight lists and F.linear; the MAML inner loop with autograd.grad(create_graph=True) and
# [p - alpha * g ...] over several steps; the meta update with Adam through the second-order graph;
# first-order MAML for comparison; torch.func.functional_call over named_parameters() dicts; the functorch
# MAML example (torch.func.grad inside vmap over tasks); vmap's randomness flags; Reptile; Meta-SGD (learned
# per-parameter inner learning rates in a ParameterList); a hypergradient (a learning rate optimised through
# an unrolled SGD); autograd.functional.hessian / hvp / vhp of the task loss w.r.t. a flat parameter vector
# with parameters_to_vector / vector_to_parameters; retain_graph, allow_unused, materialize_grads,
# is_grads_batched; and the errors met on the way.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap
from torch.nn.utils import parameters_to_vector, vector_to_parameters

torch.manual_seed(0)


# ---- sine-wave tasks (Finn et al. 2017): y = A sin(x + phi), A in [0.1, 5], phi in [0, pi], x in [-5, 5]
def sample_task():
    amplitude = torch.rand(1).item() * 4.9 + 0.1
    phase = torch.rand(1).item() * math.pi
    return amplitude, phase


def sample_points(task, k):
    amplitude, phase = task
    x = torch.rand(k, 1) * 10.0 - 5.0
    return x, amplitude * torch.sin(x + phase)


# ---- a functional MLP: explicit weights, F.linear
def init_weights(sizes=(1, 40, 40, 1)):
    weights = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        w = torch.empty(fan_out, fan_in)
        nn.init.kaiming_uniform_(w, a=math.sqrt(5))
        bound = 1 / math.sqrt(fan_in)
        b = torch.empty(fan_out).uniform_(-bound, bound)
        weights += [w.requires_grad_(), b.requires_grad_()]
    return weights


def mlp(x, weights):
    n = len(weights) // 2
    for i in range(n):
        x = F.linear(x, weights[2 * i], weights[2 * i + 1])
        if i < n - 1:
            x = F.relu(x)
    return x


def inner_loop(weights, x, y, steps, alpha, create_graph=True):
    fast = list(weights)
    for _ in range(steps):
        loss = F.mse_loss(mlp(x, fast), y)
        grads = torch.autograd.grad(loss, fast, create_graph=create_graph)
        fast = [p - alpha * g for p, g in zip(fast, grads)]
    return fast


def norm_of(grads):
    return torch.sqrt(sum((g ** 2).sum() for g in grads)).item()


weights = init_weights()
print("weights", [tuple(w.shape) for w in weights], sum(w.numel() for w in weights))
meta_opt = torch.optim.Adam(weights, lr=1e-3)
K, META_BATCH, INNER_STEPS, ALPHA = 10, 4, 3, 0.01
for it in range(40):
    meta_opt.zero_grad()
    meta_loss = 0.0
    for _ in range(META_BATCH):
        task = sample_task()
        x_s, y_s = sample_points(task, K)
        x_q, y_q = sample_points(task, K)
        fast = inner_loop(weights, x_s, y_s, INNER_STEPS, ALPHA)
        meta_loss = meta_loss + F.mse_loss(mlp(x_q, fast), y_q)
    meta_loss = meta_loss / META_BATCH
    meta_loss.backward()
    if it == 0:
        print("meta grad_fn", type(meta_loss.grad_fn).__name__, "grad norm %.4f" % norm_of([w.grad for w in weights]))
    meta_opt.step()
    if it % 10 == 9:
        print("iter %2d meta-loss %.4f" % (it + 1, meta_loss.item()))

# ---- second-order vs first-order meta-gradient on the same task
task = sample_task()
x_s, y_s = sample_points(task, K)
x_q, y_q = sample_points(task, K)
second = torch.autograd.grad(F.mse_loss(mlp(x_q, inner_loop(weights, x_s, y_s, 2, ALPHA)), y_q), weights)
first = torch.autograd.grad(F.mse_loss(mlp(x_q, inner_loop(weights, x_s, y_s, 2, ALPHA, False)), y_q), weights)
cos = sum((a * b).sum() for a, b in zip(second, first)) / (norm_of(second) * norm_of(first))
print("2nd-order norm %.4f 1st-order norm %.4f cosine %.4f" % (norm_of(second), norm_of(first), cos.item()))
print("meta-grad of the last bias", second[-1], first[-1])

# first-order MAML, the detached way: the adapted weights' query gradient is applied to the meta-weights
fo_weights = [w.detach().clone().requires_grad_() for w in weights]
fo_opt = torch.optim.Adam(fo_weights, lr=1e-3)
for it in range(10):
    fo_opt.zero_grad()
    for _ in range(META_BATCH):
        task = sample_task()
        x_s, y_s = sample_points(task, K)
        x_q, y_q = sample_points(task, K)
        fast = [w.detach().requires_grad_() for w in fo_weights]
        for _ in range(INNER_STEPS):
            grads = torch.autograd.grad(F.mse_loss(mlp(x_s, fast), y_s), fast)
            fast = [(p - ALPHA * g).detach().requires_grad_() for p, g in zip(fast, grads)]
        query = F.mse_loss(mlp(x_q, fast), y_q)
        for w, g in zip(fo_weights, torch.autograd.grad(query, fast)):
            w.grad = g / META_BATCH if w.grad is None else w.grad + g / META_BATCH
    fo_opt.step()
print("FOMAML last query loss %.3f" % query.item(), "first bias", fo_weights[1][:3])

# ---- evaluation: loss on a new task after 0, 1, 5, 10 adaptation steps (meta-learned vs a fresh init)
task = sample_task()
x_s, y_s = sample_points(task, K)
x_test = torch.linspace(-5, 5, 50).unsqueeze(1)
y_test = task[0] * torch.sin(x_test + task[1])
fresh = init_weights()
for name, w0 in [("maml", weights), ("fresh", fresh)]:
    losses = []
    for steps in (0, 1, 5, 10):
        with torch.enable_grad():
            adapted = inner_loop(w0, x_s, y_s, steps, ALPHA, create_graph=False)
        with torch.no_grad():
            losses.append("%.3f" % F.mse_loss(mlp(x_test, adapted), y_test).item())
    print(name, "adapted test losses", losses)


# ---- the same with an nn.Module and torch.func.functional_call over named_parameters() dicts
class SineNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, 40), nn.ReLU(), nn.Linear(40, 40), nn.ReLU(), nn.Linear(40, 1))

    def forward(self, x):
        return self.net(x)


model = SineNet()
with torch.no_grad():  # start from the meta-learned functional weights
    for p, w in zip(model.parameters(), weights):
        p.copy_(w)
print(list(dict(model.named_parameters()).keys()))


def adapt(model, params, x, y, steps, alpha):
    for _ in range(steps):
        loss = F.mse_loss(functional_call(model, params, (x,)), y)
        grads = torch.autograd.grad(loss, list(params.values()), create_graph=True)
        params = {name: p - alpha * g for (name, p), g in zip(params.items(), grads)}
    return params


task = sample_task()
x_s, y_s = sample_points(task, K)
x_q, y_q = sample_points(task, K)
params = dict(model.named_parameters())
adapted = adapt(model, params, x_s, y_s, INNER_STEPS, ALPHA)
print("adapted", type(adapted["net.0.weight"].grad_fn).__name__, adapted["net.4.bias"])
query = F.mse_loss(functional_call(model, adapted, (x_q,)), y_q)
query.backward()
print("module meta-grad norm %.4f" % norm_of([p.grad for p in model.parameters()]))
same = torch.autograd.grad(F.mse_loss(mlp(x_q, inner_loop(weights, x_s, y_s, INNER_STEPS, ALPHA)), y_q), weights)
print("matches the functional MLP:", all(torch.allclose(p.grad, g, atol=1e-5) for p, g in zip(model.parameters(), same)))
print("the module's own weights untouched:", torch.equal(model.net[0].weight, weights[0]))
model.zero_grad()

# ---- the functorch MAML example: grad inside vmap over a batch of tasks
tasks = [sample_task() for _ in range(5)]
XS, YS = map(torch.stack, zip(*[sample_points(t, K) for t in tasks]))
XQ, YQ = map(torch.stack, zip(*[sample_points(t, K) for t in tasks]))
print("task batch", XS.shape, YQ.shape)


def task_loss(params, x, y):
    return F.mse_loss(functional_call(model, params, (x,)), y)


def query_loss(params, x_s, y_s, x_q, y_q):
    g = grad(task_loss)(params, x_s, y_s)
    fast = {k: params[k] - ALPHA * g[k] for k in params}
    return task_loss(fast, x_q, y_q)


detached = {k: v.detach() for k, v in model.named_parameters()}
per_task = vmap(query_loss, in_dims=(None, 0, 0, 0, 0))(detached, XS, YS, XQ, YQ)
print("per-task query losses", per_task)
meta_grads = grad(lambda p: vmap(query_loss, in_dims=(None, 0, 0, 0, 0))(p, XS, YS, XQ, YQ).mean())(detached)
print({k: tuple(v.shape) for k, v in meta_grads.items()}, "norm %.4f" % norm_of(meta_grads.values()))
loop = sum(F.mse_loss(mlp(xq, inner_loop(weights, xs, ys, 1, ALPHA)), yq) for xs, ys, xq, yq in zip(XS, YS, XQ, YQ)) / 5
loop_grads = torch.autograd.grad(loop, weights)
print("vmap == loop:", all(torch.allclose(a, b, atol=1e-5) for a, b in zip(meta_grads.values(), loop_grads)),
      "%.4f %.4f" % (loop.item(), per_task.mean().item()))
per_task_grads = vmap(grad(task_loss), in_dims=(None, 0, 0))(detached, XS, YS)
# torch.func.grad on parameters that require grad composes with ordinary autograd: backward reaches them
outer = query_loss(dict(model.named_parameters()), XS[0], YS[0], XQ[0], YQ[0])
outer.backward()
print("func.grad inner step, backward outer: %.4f" % outer.item(), "%.4f" % model.net[4].bias.grad.item(),
      torch.allclose(model.net[4].bias.grad, torch.autograd.grad(
          F.mse_loss(mlp(XQ[0], inner_loop(weights, XS[0], YS[0], 1, ALPHA)), YQ[0]), weights[-1])[0], atol=1e-5))
model.zero_grad()
print("per-task grads", per_task_grads["net.4.bias"].squeeze(1))

# vmap's randomness: 'same' draws once for all tasks; 'different' draws per task like one batched draw
noise_same = vmap(lambda x: x + torch.rand_like(x), randomness="same")(torch.zeros(3, 4))
print("same", noise_same.shape, torch.equal(noise_same[0], noise_same[2]))
torch.manual_seed(5)
noise_diff = vmap(lambda x: x + torch.rand_like(x), randomness="different")(torch.zeros(3, 4))
torch.manual_seed(5)
print("different", torch.equal(noise_diff[0], noise_diff[1]), torch.allclose(noise_diff, torch.rand(3, 4)))
try:
    vmap(lambda x: F.dropout(x, 0.5))(torch.ones(2, 3))
except RuntimeError as e:
    print(type(e).__name__, e)

# ---- the Omniglot-style MAML network: conv, batch norm with batch statistics only, relu, max-pool, written
# functionally; 3-way 1-shot classification of noisy prototypes
def conv_net(x, w):
    for i in range(2):
        x = F.conv2d(x, w[4 * i], w[4 * i + 1], padding=1)
        x = F.batch_norm(x, None, None, w[4 * i + 2], w[4 * i + 3], training=True)
        x = F.max_pool2d(F.relu(x), 2)
    return F.linear(x.flatten(1), w[8], w[9])


torch.manual_seed(6)
conv_w = []
for c_in, c_out in [(1, 8), (8, 8)]:
    conv_w += [torch.randn(c_out, c_in, 3, 3) * math.sqrt(2 / (9 * c_in)), torch.zeros(c_out), torch.ones(c_out),
               torch.zeros(c_out)]
conv_w += [torch.randn(3, 32) * 0.1, torch.zeros(3)]
conv_w = [w.requires_grad_() for w in conv_w]
conv_opt = torch.optim.Adam(conv_w, lr=1e-3)
labels = torch.arange(3)
for it in range(5):
    conv_opt.zero_grad()
    protos = torch.randn(3, 1, 8, 8)
    support = protos + 0.3 * torch.randn(3, 1, 8, 8)
    query_x = protos + 0.3 * torch.randn(3, 1, 8, 8)
    fast = conv_w
    for _ in range(2):
        g = torch.autograd.grad(F.cross_entropy(conv_net(support, fast), labels), fast, create_graph=True)
        fast = [p - 0.4 * gi for p, gi in zip(fast, g)]
    logits = conv_net(query_x, fast)
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    conv_opt.step()
    print("conv maml %d loss %.4f acc %.2f grad %.4f" % (it, loss.item(), (logits.argmax(1) == labels).float().mean().item(),
                                                    norm_of([w.grad for w in conv_w])))

# ---- Reptile (Nichol et al. 2018): adapt a copy with SGD, then move the weights toward it
torch.manual_seed(1)
reptile = SineNet()
inner_model = SineNet()
EPSILON = 0.1
for it in range(20):
    task = sample_task()
    inner_model.load_state_dict(reptile.state_dict())
    inner_opt = torch.optim.SGD(inner_model.parameters(), lr=0.02)
    for _ in range(5):
        x, y = sample_points(task, K)
        inner_opt.zero_grad()
        loss = F.mse_loss(inner_model(x), y)
        loss.backward()
        inner_opt.step()
    for p, new in zip(reptile.parameters(), inner_model.parameters()):
        p.data.add_(EPSILON * (new.data - p.data))
print("reptile last inner loss %.3f" % loss.item(), reptile.net[4].bias.data, reptile.net[0].weight.requires_grad)


# ---- Meta-SGD (Li et al. 2017): a learned inner learning rate per parameter
class MetaSGD(nn.Module):
    def __init__(self, model, init_lr=0.01):
        super().__init__()
        self.model = model
        self.lrs = nn.ParameterList([nn.Parameter(torch.full_like(p, init_lr)) for p in model.parameters()])

    def adapt(self, x, y):
        params = dict(self.model.named_parameters())
        loss = F.mse_loss(functional_call(self.model, params, (x,)), y)
        grads = torch.autograd.grad(loss, list(params.values()), create_graph=True)
        return {name: p - lr * g for (name, p), lr, g in zip(params.items(), self.lrs, grads)}


torch.manual_seed(2)
meta_sgd = MetaSGD(SineNet())
print(meta_sgd.lrs)
opt = torch.optim.Adam(meta_sgd.parameters(), lr=1e-3)
for it in range(10):
    opt.zero_grad()
    task = sample_task()
    x_s, y_s = sample_points(task, K)
    x_q, y_q = sample_points(task, K)
    loss = F.mse_loss(functional_call(meta_sgd.model, meta_sgd.adapt(x_s, y_s), (x_q,)), y_q)
    loss.backward()
    if it == 0:
        print("lr grads", meta_sgd.lrs[5].grad, "%.4f" % meta_sgd.lrs[0].grad.norm().item())
    opt.step()
print("meta-sgd loss %.3f" % loss.item(), "lr of the last bias %.5f" % meta_sgd.lrs[5].item(),
      "lr range %.4f %.4f" % (meta_sgd.lrs[2].min().item(), meta_sgd.lrs[2].max().item()))

# ---- a hypergradient: learn SGD's learning rate by differentiating through the unrolled optimisation
torch.manual_seed(3)
x_tr = torch.randn(32, 3)
w_true = torch.tensor([[1.5], [-2.0], [0.5]])
y_tr = x_tr @ w_true + 0.1 * torch.randn(32, 1)
x_val = torch.randn(16, 3)
y_val = x_val @ w_true
log_lr = torch.tensor(math.log(0.01), requires_grad=True)
hyper_opt = torch.optim.Adam([log_lr], lr=0.1)
for outer in range(15):
    w = torch.zeros(3, 1, requires_grad=True)
    for _ in range(10):
        g, = torch.autograd.grad(((x_tr @ w - y_tr) ** 2).mean(), w, create_graph=True)
        w = w - log_lr.exp() * g
    val_loss = ((x_val @ w - y_val) ** 2).mean()
    hyper_opt.zero_grad()
    val_loss.backward()
    if outer in (0, 14):
        print("outer %d lr %.4f val %.4f dval/dloglr %.4f" % (outer, log_lr.exp().item(), val_loss.item(),
                                                              log_lr.grad.item()))
    hyper_opt.step()

# ---- curvature of the task loss w.r.t. a flat parameter vector
torch.manual_seed(4)
small = nn.Sequential(nn.Linear(1, 6), nn.Tanh(), nn.Linear(6, 1))
flat = parameters_to_vector(small.parameters())
print("flat", flat.shape, flat.grad_fn is not None, flat[:3])
shapes = [p.shape for p in small.parameters()]
names = [n for n, _ in small.named_parameters()]
task = sample_task()
x, y = sample_points(task, 8)


def unflatten(vec):
    out, i = {}, 0
    for name, shape in zip(names, shapes):
        n = shape.numel()
        out[name] = vec[i:i + n].view(shape)
        i += n
    return out


def flat_loss(vec):
    return F.mse_loss(functional_call(small, unflatten(vec), (x,)), y)


theta = flat.detach()
H = torch.autograd.functional.hessian(flat_loss, theta)
print("hessian", H.shape, torch.allclose(H, H.T, atol=1e-5), "trace %.4f" % H.trace().item())
print(H[:3, :3])
v = torch.randn(theta.numel())
loss_val, Hv = torch.autograd.functional.hvp(flat_loss, theta, v)
_, vH = torch.autograd.functional.vhp(flat_loss, theta, v)
print("hvp", "%.4f" % loss_val.item(), torch.allclose(Hv, H @ v, atol=1e-4), torch.allclose(vH, v @ H, atol=1e-4), Hv[:4])
# the same hvp by double backward, with create_graph and a reused graph
theta_r = theta.clone().requires_grad_()
g, = torch.autograd.grad(flat_loss(theta_r), theta_r, create_graph=True)
Hv2, = torch.autograd.grad(g, theta_r, grad_outputs=v, retain_graph=True)
Hv3, = torch.autograd.grad(g @ v, theta_r)
print("double backward", torch.allclose(Hv2, Hv, atol=1e-5), torch.allclose(Hv3, Hv2, atol=1e-6))
eigs = torch.linalg.eigvalsh(H)
print("largest curvature %.4f" % eigs[-1].item())
# one Newton-like step with a damped Hessian, written back into the module
step = torch.linalg.solve(H + 1.0 * torch.eye(theta.numel()), torch.autograd.grad(flat_loss(theta_r), theta_r)[0])
vector_to_parameters(theta - step, small.parameters())
print("after the damped step %.4f -> %.4f" % (flat_loss(theta).item(), F.mse_loss(small(x), y).item()),
      small[2].bias.is_leaf, small[2].bias.requires_grad)
print(torch.equal(parameters_to_vector(small.parameters()), theta - step))

# ---- retain_graph, allow_unused, materialize_grads, is_grads_batched
a = torch.randn(3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
unused = torch.randn(2, requires_grad=True)
out = (a.sin() * b).sum()
ga, = torch.autograd.grad(out, a, retain_graph=True)
gb, = torch.autograd.grad(out, b, retain_graph=True)
print("retain_graph", torch.allclose(ga, a.cos() * b), torch.allclose(gb, a.sin()))
print("allow_unused", torch.autograd.grad(out, [a, unused], allow_unused=True, retain_graph=True)[1])
print("materialize_grads", torch.autograd.grad(out, [b, unused], materialize_grads=True, retain_graph=True)[1])
gb, gu = torch.autograd.grad(out, [b, unused], materialize_grads=True, create_graph=True)
print("materialized under create_graph", gb.requires_grad, gu.requires_grad, gu)
named = torch.autograd.grad(out, {"a": a, "unused": unused}, allow_unused=True, retain_graph=True)
print("a dict of inputs", {k: None if v is None else tuple(v.shape) for k, v in named.items()})
out.backward()
print("after backward", a.grad.shape, unused.grad)
f = torch.tanh(a.unsqueeze(1) * b) @ torch.ones(3)
jac, = torch.autograd.grad(f, a, grad_outputs=torch.eye(3), is_grads_batched=True)
ref = torch.autograd.functional.jacobian(lambda t: torch.tanh(t.unsqueeze(1) * b) @ torch.ones(3), a)
print("batched vjp jacobian", jac.shape, torch.allclose(jac, ref, atol=1e-6))
print(jac)
jac_w, = torch.autograd.grad(mlp(x_test[:4], weights), weights[-1], grad_outputs=torch.eye(4).unsqueeze(-1),
                             is_grads_batched=True)
print("output bias jacobian", jac_w.shape, jac_w.squeeze().tolist())

# ---- the errors met on the way
y3 = a * 2
try:
    torch.autograd.grad(y3, a)
except RuntimeError as e:
    print(type(e).__name__, e)
z = (a ** 2).sum()
z.backward()
try:
    z.backward()
except RuntimeError as e:
    print(type(e).__name__, str(e)[:130])
try:
    torch.autograd.grad((a * 2).sum(), unused)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad((a * 2).sum(), torch.ones(2))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad((a * 2).sum(), [a, unused], allow_unused=False, materialize_grads=True)
except ValueError as e:
    print(type(e).__name__, e)
try:
    inner_loop([w.detach() for w in weights], x_s, y_s, 1, ALPHA)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad(mlp(x_test[:4], weights).sum(), weights[-1], grad_outputs=torch.ones(2, 4, 1),
                        is_grads_batched=True)
except RuntimeError as e:
    print(type(e).__name__, str(e)[:100])
