# Model compression in the style of the knowledge-distillation tutorial and the usual "compress your model"
# blog posts: a teacher and a student CNN (initialised by model.apply(init_fn)), Hinton's distillation loss
# (F.kl_div of log_softmax at a temperature against softmax, reduction='batchmean', times T^2), flat
# parameter vectors (torch.nn.utils.parameters_to_vector / vector_to_parameters), global magnitude pruning
# by hand with masks kept as buffers and by torch.nn.utils.prune, fake quantization by hand (round, clamp,
# straight-through estimator) and with torch.fake_quantize_per_tensor_affine / _per_channel_affine,
# quantization-aware fine-tuning, an EMA of the weights with lerp_ and torch._foreach_lerp_, state_dict
# copies with copy.deepcopy, and named_modules filtering.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parameters_to_vector, vector_to_parameters

torch.manual_seed(0)


# ---------------------------------------------------------------- data: two interleaved spirals, 3 classes
def spirals(n_per_class, noise=0.4, generator=None):
    xs, ys = [], []
    for c in range(3):
        t = torch.linspace(0.2, 1.0, n_per_class)
        angle = 6.0 * t + 2.0944 * c + noise * torch.randn(n_per_class, generator=generator)
        xs.append(torch.stack([t * torch.cos(angle), t * torch.sin(angle)], dim=1))
        ys.append(torch.full((n_per_class,), c, dtype=torch.long))
    return torch.cat(xs), torch.cat(ys)


g = torch.Generator().manual_seed(3)
x_train, y_train = spirals(100, generator=g)
x_test, y_test = spirals(40, generator=g)
print(x_train.shape, y_train.bincount().tolist(), x_train.abs().max().item() <= 1.5)


# ---------------------------------------------------------------- models
class MLP(nn.Module):
    def __init__(self, hidden, depth, dropout=0.0):
        super().__init__()
        layers, d = [], 2
        for _ in range(depth):
            # (no bias before BatchNorm: it would cancel it, and Adam would amplify its ~0 gradient)
            layers += [nn.Linear(d, hidden, bias=False), nn.BatchNorm1d(hidden), nn.ReLU()]
            if dropout:
                layers.append(nn.Dropout(dropout))
            d = hidden
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(d, 3)

    def forward(self, x):
        return self.classifier(self.features(x))


def init_fn(m):
    if isinstance(m, nn.Linear):
        nn.init.kaiming_normal_(m.weight, mode="fan_in", nonlinearity="relu")
        if m.bias is not None:
            nn.init.constant_(m.bias, 0.01)
    elif isinstance(m, nn.BatchNorm1d):
        nn.init.ones_(m.weight)
        nn.init.zeros_(m.bias)


teacher = MLP(64, 3, dropout=0.1)
student = MLP(8, 2)
print(teacher.apply(init_fn) is teacher, student.apply(init_fn).classifier)
count = lambda m: sum(p.numel() for p in m.parameters())
print(f"teacher {count(teacher)} params, student {count(student)} params, ratio {count(teacher) / count(student):.2f}")
linears = [name for name, m in teacher.named_modules() if isinstance(m, nn.Linear)]
print(linears, [type(m).__name__ for name, m in student.named_modules() if name.startswith("features.")])
print([n for n, _ in student.named_children()], len(list(teacher.modules())), student.classifier.bias[:3])


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).float().mean().item()
    model.train()
    return acc


def train(model, epochs, loss_fn, lr=0.005, batch=50):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(epochs):
        perm = torch.randperm(len(x_train))
        total = 0.0
        for i in range(0, len(x_train), batch):
            idx = perm[i:i + batch]
            opt.zero_grad()
            loss = loss_fn(model, x_train[idx], y_train[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
    return total / len(x_train)


ce = lambda m, x, y: F.cross_entropy(m(x), y)
print(f"teacher loss {train(teacher, 12, ce):.4f} acc {accuracy(teacher, x_test, y_test):.3f}")
baseline = copy.deepcopy(student)
print(f"student alone loss {train(baseline, 20, ce):.4f} acc {accuracy(baseline, x_test, y_test):.3f}")


# ---------------------------------------------------------------- distillation
def distillation_loss(student_logits, teacher_logits, labels, T=4.0, alpha=0.7):
    soft = F.kl_div(F.log_softmax(student_logits / T, dim=1), F.softmax(teacher_logits / T, dim=1),
                    reduction="batchmean") * (T * T)
    hard = F.cross_entropy(student_logits, labels)
    return alpha * soft + (1.0 - alpha) * hard


s_logits, t_logits = torch.randn(4, 3), torch.randn(4, 3)
labels = torch.tensor([0, 2, 1, 1])
p_log, q = F.log_softmax(s_logits / 2, 1), F.softmax(t_logits / 2, 1)
print("kl", F.kl_div(p_log, q, reduction="batchmean"), F.kl_div(p_log, q, reduction="sum") / 4,
      (q * (q.log() - p_log)).sum() / 4)
print(F.kl_div(p_log, q.log(), reduction="none", log_target=True), F.kl_div(p_log, q, reduction="mean"))
print(nn.KLDivLoss(reduction="batchmean", log_target=False)(p_log, q), distillation_loss(s_logits, t_logits, labels))

teacher.eval()


def kd_step(model, x, y):
    with torch.no_grad():
        t_out = teacher(x)
    return distillation_loss(model(x), t_out, y)


print(f"student distilled loss {train(student, 12, kd_step):.4f} acc {accuracy(student, x_test, y_test):.3f}")
with torch.no_grad():
    agree = (student(x_test).argmax(1) == teacher(x_test).argmax(1)).float().mean()
print(f"agreement with the teacher {agree.item():.3f}", teacher.training, student.training)


# ---------------------------------------------------------------- flat parameter vectors
vec = parameters_to_vector(student.parameters())
print("vector", vec.shape, vec.dtype, vec.requires_grad, vec.grad_fn is not None)
print(f"{vec.norm().item():.4f}", torch.equal(vec[:16], student.features[0].weight.flatten()))
snapshot = copy.deepcopy(student.state_dict())
vector_to_parameters(torch.zeros_like(vec), student.parameters())
print(student.classifier.bias, student.features[0].weight.abs().sum())
vector_to_parameters(vec.detach(), student.parameters())
print(all(torch.equal(a, b) for a, b in zip(snapshot.values(), student.state_dict().values())))
print(list(snapshot)[:5], snapshot["features.1.num_batches_tracked"])
# deepcopy'd state dicts are independent; a plain state_dict shares memory with the model
shared = student.state_dict()
with torch.no_grad():
    student.classifier.bias.add_(1.0)
print(torch.equal(shared["classifier.bias"], student.classifier.bias),
      torch.equal(snapshot["classifier.bias"], student.classifier.bias))
student.load_state_dict(snapshot)
print(student.classifier.bias)
try:
    vector_to_parameters(vec[:-1], student.parameters())
except RuntimeError as e:
    print("RuntimeError", type(e).__name__)


# ---------------------------------------------------------------- global magnitude pruning by hand
pruned = copy.deepcopy(student)
weights = [(name, m) for name, m in pruned.named_modules() if isinstance(m, nn.Linear)]
all_w = torch.cat([m.weight.detach().abs().flatten() for _, m in weights])
threshold = torch.quantile(all_w, 0.5)
kth = all_w.kthvalue(int(0.5 * all_w.numel())).values
print(f"threshold {threshold.item():.4f} kthvalue {kth.item():.4f}")
for name, m in weights:
    mask = (m.weight.detach().abs() > threshold).float()
    m.register_buffer("weight_mask", mask)
    with torch.no_grad():
        m.weight.mul_(mask)
    print(f"{name}: sparsity {1 - mask.mean().item():.3f}")
print(f"pruned acc {accuracy(pruned, x_test, y_test):.3f}", sorted(pruned.state_dict())[:4])
print(sum((m.weight == 0).sum().item() for _, m in weights), sum(m.weight.numel() for _, m in weights))

# the same with torch.nn.utils.prune
import torch.nn.utils.prune as prune

pruned2 = copy.deepcopy(student)
params_to_prune = [(m, "weight") for m in pruned2.modules() if isinstance(m, nn.Linear)]
prune.global_unstructured(params_to_prune, pruning_method=prune.L1Unstructured, amount=0.5)
print([n for n, _ in pruned2.classifier.named_buffers()], [n for n, _ in pruned2.classifier.named_parameters()])
print(sum(int((m.weight == 0).sum()) for m, _ in params_to_prune), prune.is_pruned(pruned2))
print(all(torch.equal(a.weight, b.weight) for (_, a), (b, _) in zip(weights, params_to_prune)))
for m, _ in params_to_prune:
    prune.remove(m, "weight")
print(prune.is_pruned(pruned2), [n for n, _ in pruned2.classifier.named_parameters()])

# fine-tune the pruned network, keeping pruned weights at zero by masking their gradients
opt = torch.optim.SGD(pruned.parameters(), lr=0.05, momentum=0.9)
for step in range(30):
    idx = torch.randint(0, len(x_train), (64,))
    loss = kd_step(pruned, x_train[idx], y_train[idx])
    opt.zero_grad()
    loss.backward()
    for _, m in weights:
        m.weight.grad.mul_(m.weight_mask)
    opt.step()
print(f"pruned fine-tuned acc {accuracy(pruned, x_test, y_test):.3f}", sum((m.weight == 0).sum().item() for _, m in weights))


# ---------------------------------------------------------------- fake quantization
def quantize_tensor(x, num_bits=8, symmetric=True):
    if symmetric:
        qmax = 2 ** (num_bits - 1) - 1
        scale = x.abs().max() / qmax
        zero_point = 0
        qmin = -qmax - 1
    else:
        qmin, qmax = 0, 2 ** num_bits - 1
        scale = (x.max() - x.min()) / (qmax - qmin)
        zero_point = int(torch.round(qmin - x.min() / scale).clamp(qmin, qmax).item())
    q = torch.clamp(torch.round(x / scale) + zero_point, qmin, qmax)
    return q, scale, zero_point


def dequantize(q, scale, zero_point):
    return (q - zero_point) * scale


w = student.features[0].weight.detach()
for bits, sym in [(8, True), (4, True), (4, False), (2, False)]:
    q, scale, zp = quantize_tensor(w, bits, sym)
    err = (dequantize(q, scale, zp) - w).abs().max()
    print(f"{bits} bits symmetric={sym}: scale {scale.item():.5f} zero_point {zp} "
          f"levels {q.unique().numel()} max error {err.item():.5f}")
q8 = quantize_tensor(w)[0].to(torch.int8)
print(q8.dtype, q8[0], q8.min().item(), q8.max().item())
print(torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5])), torch.round(torch.tensor([1.2345, -2.71828]), decimals=2))

x = torch.tensor([-1.0, -0.26, 0.25, 0.35, 0.75, 2.0], requires_grad=True)
fq = torch.fake_quantize_per_tensor_affine(x, 0.1, 0, -8, 7)
fq.sum().backward()
print("fake_quantize", fq.detach(), x.grad)
print(torch.fake_quantize_per_tensor_affine(x.detach(), torch.tensor(0.1), torch.tensor(3, dtype=torch.int32), 0, 15))
q, scale, zp = quantize_tensor(w, 4, False)
print(torch.allclose(torch.fake_quantize_per_tensor_affine(w, scale.item(), zp, 0, 15), dequantize(q, scale, zp), atol=1e-6))
scales = w.abs().amax(dim=1) / 7
zps = torch.zeros(w.shape[0], dtype=torch.int32)
per_channel = torch.fake_quantize_per_channel_affine(w, scales, zps, 0, -8, 7)
print(per_channel.shape, per_channel[0], (per_channel - w).abs().max(1).values.le(scales / 2 + 1e-6).all())
try:
    torch.fake_quantize_per_tensor_affine(x.detach(), 0.1, 0, 7, -8)
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])


class STERound(torch.autograd.Function):
    """Round in the forward pass, identity in the backward pass (the straight-through estimator)."""

    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


def fake_quant(x, num_bits=4):
    qmax = 2 ** (num_bits - 1) - 1
    scale = x.detach().abs().max().clamp(min=1e-8) / qmax
    return torch.clamp(STERound.apply(x / scale), -qmax - 1, qmax) * scale


class QuantLinear(nn.Linear):
    def forward(self, x):
        return F.linear(x, fake_quant(self.weight), self.bias)


xr = torch.tensor([0.3, -1.7, 2.2], requires_grad=True)
STERound.apply(xr).sum().backward()
print("STE", xr.grad, torch.round(xr).grad_fn is not None)
# (x + (round(x) - x).detach()): the same estimator without a Function
xr2 = xr.detach().clone().requires_grad_()
(xr2 + (torch.round(xr2) - xr2).detach()).pow(2).sum().backward()
print(xr2.grad)


def swap_linears(module):
    """Replace every nn.Linear by a QuantLinear with the same weights (recursively, by named_children)."""
    for name, child in module.named_children():
        if type(child) is nn.Linear:
            q = QuantLinear(child.in_features, child.out_features, bias=child.bias is not None)
            q.load_state_dict(child.state_dict())
            setattr(module, name, q)
        else:
            swap_linears(child)
    return module


qat = swap_linears(copy.deepcopy(student))
print([name for name, m in qat.named_modules() if isinstance(m, QuantLinear)], isinstance(qat.classifier, nn.Linear))
print(f"4-bit before QAT acc {accuracy(qat, x_test, y_test):.3f}")
print(f"QAT loss {train(qat, 10, kd_step, lr=0.003):.4f} acc {accuracy(qat, x_test, y_test):.3f}")
print(fake_quant(qat.classifier.weight).detach().unique().numel() <= 16)


# ---------------------------------------------------------------- EMA of the weights
ema = copy.deepcopy(student)
for p in ema.parameters():
    p.requires_grad_(False)
decay = 0.9
opt = torch.optim.SGD(student.parameters(), lr=0.02)
for step in range(20):
    idx = torch.randint(0, len(x_train), (32,))
    loss = kd_step(student, x_train[idx], y_train[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        if step % 2 == 0:
            for pe, ps in zip(ema.parameters(), student.parameters()):
                pe.lerp_(ps, 1.0 - decay)
        else:
            torch._foreach_lerp_(list(ema.parameters()), list(student.parameters()), 1.0 - decay)
        for be, bs in zip(ema.buffers(), student.buffers()):
            be.copy_(bs)
print(f"ema acc {accuracy(ema, x_test, y_test):.3f} student acc {accuracy(student, x_test, y_test):.3f}")
print(ema.classifier.bias, student.classifier.bias)
a, b = torch.zeros(3), torch.tensor([1.0, 2.0, 4.0])
print(torch.lerp(a, b, 0.25), torch.lerp(a, b, torch.tensor([0.0, 0.5, 1.0])), a.lerp(b, 0.75))
t1, t2 = [torch.zeros(2), torch.ones(3)], [torch.ones(2), torch.full((3,), 3.0)]
torch._foreach_lerp_(t1, t2, 0.5)
print(t1, torch._foreach_lerp(t1, t2, 0.5))
# the same average as torch.optim.swa_utils does it
avg = torch.optim.swa_utils.AveragedModel(student, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(0.9))
for _ in range(3):
    with torch.no_grad():
        for p in student.parameters():
            p.mul_(0.99)
    avg.update_parameters(student)
print(avg.n_averaged, avg.module.classifier.bias)
