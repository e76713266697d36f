# The nn.Module API as the torch.nn.Module reference page, the "Saving and Loading Models" tutorial, the
# "Parametrizations" tutorial and the torch.nn.init docs use it: walking a model (named_modules /
# named_children / named_parameters with recurse, prefix, remove_duplicate), buffers (persistent=False),
# state_dict keys and load_state_dict(strict=False), the containers (ModuleDict, ModuleList, ParameterDict,
# ParameterList, Sequential with slicing, insertion and an OrderedDict), apply(init_fn), dtype conversion,
# requires_grad_, zero_grad(set_to_none=), train / eval propagation, repr with extra_repr,
# get_submodule / get_parameter, custom parametrizations, weight_norm / spectral_norm, parameters_to_vector,
# hooks with kwargs, deepcopy, and counting parameters.
import copy
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.parametrize as parametrize
from torch.nn.utils import parameters_to_vector, vector_to_parameters

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, c_in, c_out, scale=1.0):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(c_out)
        self.scale = scale
        self.register_buffer("running_calls", torch.zeros((), dtype=torch.long))
        self.register_buffer("cache", torch.zeros(2), persistent=False)

    def extra_repr(self):
        return f"scale={self.scale}"

    def forward(self, x):
        self.running_calls += 1
        return F.relu(self.bn(self.conv(x))) * self.scale


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(Block(3, 4), nn.MaxPool2d(2), Block(4, 8, scale=0.5))
        self.heads = nn.ModuleDict({"cls": nn.Linear(8, 3), "reg": nn.Linear(8, 1)})
        self.extra = nn.ModuleList([nn.Identity(), nn.Dropout(0.25)])
        self.temperature = nn.Parameter(torch.ones(1))
        self.shared = nn.Linear(2, 2)
        self.shared_again = self.shared  # the same module registered twice

    def forward(self, x):
        h = self.features(x).mean((2, 3))
        h = self.extra[1](self.extra[0](h))
        return self.heads["cls"](h) / self.temperature, self.heads["reg"](h)


net = Net()
print(net)
print("named_children", [n for n, _ in net.named_children()])
print("named_modules", [n for n, _ in net.named_modules()])
print("named_modules remove_duplicate=False", len(list(net.named_modules(remove_duplicate=False))))
print("named_modules prefix", [n for n, _ in net.features.named_modules(prefix="features")][:3])
print("named_parameters", [(n, tuple(p.shape)) for n, p in net.named_parameters()])
print("recurse=False", [n for n, _ in net.named_parameters(recurse=False)])
print("prefix", [n for n, _ in net.heads.named_parameters(prefix="heads")])
print("remove_duplicate=False", len(list(net.named_parameters(remove_duplicate=False))), len(list(net.parameters())))
print("buffers", [(n, b.dtype) for n, b in net.named_buffers()])
print("state_dict keys", list(net.state_dict().keys()))
print("cache not persistent", "features.0.cache" in net.state_dict(), net.features[0].cache)
print("n params", sum(p.numel() for p in net.parameters()), "trainable",
      sum(p.numel() for p in net.parameters() if p.requires_grad))
print("get_submodule", net.get_submodule("features.2.conv"), net.get_parameter("heads.cls.bias").shape)
print("get_buffer", net.get_buffer("features.0.running_calls"))
try:
    net.get_submodule("features.5")
except AttributeError as e:
    print("AttributeError:", e)
try:
    net.get_parameter("features.0.running_calls")
except AttributeError as e:
    print("AttributeError:", e)

# ---- train / eval propagation and a forward pass
x = torch.randn(2, 3, 8, 8)
net.eval()
print("training flags", net.training, net.features[0].bn.training, net.extra[1].training)
net.train()
print("training flags", net.training, net.features[0].bn.training, net.extra[1].training)
logits, reg = net(x)
print("forward", logits.shape, reg.shape, net.features[0].running_calls, net.features[0].bn.num_batches_tracked)
net.train(False)
print("train(False)", net.training, net.heads.cls.training)

# ---- zero_grad
(logits.sum() + reg.sum()).backward()
print("grad", net.heads.cls.bias.grad is not None)
net.zero_grad(set_to_none=False)
print("set_to_none=False", net.heads.cls.bias.grad)
net.zero_grad()
print("set_to_none default", net.heads.cls.bias.grad)

# ---- state_dict save / load, strict=False
sd = net.state_dict()
print(type(sd).__name__, sd["features.0.bn.num_batches_tracked"], sd["temperature"].requires_grad)
net2 = Net()
print("load", net2.load_state_dict(sd))
sd_bad = OrderedDict((k, v) for k, v in sd.items() if not k.startswith("heads.reg"))
sd_bad["heads.aux.weight"] = torch.zeros(1)
result = net2.load_state_dict(sd_bad, strict=False)
print(result)
print("missing", result.missing_keys, "unexpected", result.unexpected_keys)
try:
    net2.load_state_dict(sd_bad)
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])
    print(str(e).splitlines()[1:])
sd_shape = dict(sd)
sd_shape["heads.reg.bias"] = torch.zeros(2)
try:
    net2.load_state_dict(sd_shape)
except RuntimeError as e:
    print("RuntimeError:", str(e).strip().splitlines())
buf = __import__("io").BytesIO()
torch.save(net.state_dict(), buf)
buf.seek(0)
net3 = Net()
net3.load_state_dict(torch.load(buf, weights_only=True))
net3.eval()
net.eval()
print("round trip", torch.equal(net(x)[0], net3(x)[0]))

# ---- containers
seq = nn.Sequential(OrderedDict([("fc1", nn.Linear(4, 8)), ("act", nn.ReLU()), ("fc2", nn.Linear(8, 2))]))
print(seq)
print("slice", seq[:2], type(seq[1:]).__name__, seq[-1], seq.fc1.out_features)
seq = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
seq.insert(2, nn.Dropout(0.1))
seq.append(nn.Softmax(dim=-1))
print("after insert/append", [type(m).__name__ for m in seq], len(seq))
del seq[2]
print("after del", list(seq._modules.keys()))
seq2 = nn.Sequential(nn.Linear(2, 2))
seq2.extend([nn.Tanh(), nn.Linear(2, 1)])
print("extend", seq2, seq2.pop(1))
ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(2)])
ml.append(nn.ReLU())
ml.extend([nn.Tanh()])
ml.insert(0, nn.Sigmoid())
print("ModuleList", [type(m).__name__ for m in ml], ml[1:3], len(ml), ml[-1])
md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})
md["c"] = nn.GELU()
md.update([("d", nn.SiLU())])
print("ModuleDict", list(md.keys()), "a" in md, md.pop("b"), len(md))
print([type(v).__name__ for v in md.values()], [k for k, _ in md.items()])
pd = nn.ParameterDict({"alpha": nn.Parameter(torch.ones(2)), "beta": torch.zeros(3)})
pd["gamma"] = nn.Parameter(torch.full((1,), 2.0))
print(pd)
print("ParameterDict", list(pd.keys()), type(pd["beta"]).__name__, pd["beta"].requires_grad)
pl = nn.ParameterList([nn.Parameter(torch.randn(2, 2)), torch.zeros(3)])
pl.append(nn.Parameter(torch.ones(1)))
print(pl)
print("ParameterList", len(pl), [tuple(p.shape) for p in pl], type(pl[1]).__name__)
holder = nn.Module()
holder.pl, holder.pd = pl, pd
print("registered", [n for n, _ in holder.named_parameters()])

# ---- apply(init_fn), nn.init with gains
print("gains", nn.init.calculate_gain("relu"), nn.init.calculate_gain("tanh"), nn.init.calculate_gain("leaky_relu", 0.2),
      nn.init.calculate_gain("selu"), nn.init.calculate_gain("linear"), nn.init.calculate_gain("conv2d"),
      nn.init.calculate_gain("sigmoid"))
try:
    nn.init.calculate_gain("swish")
except ValueError as e:
    print("ValueError:", e)


@torch.no_grad()
def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("relu"))
        m.bias.fill_(0.01)
    elif isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")


torch.manual_seed(0)
net.apply(init_weights)
print("after apply", f"{net.heads.cls.weight.std().item():.4f}", net.heads.cls.bias[:2], f"{net.features[0].conv.weight.std().item():.4f}")
w = torch.empty(3, 5)
print("uniform", nn.init.uniform_(w, a=-0.1, b=0.1).abs().max() <= 0.1)
print("normal", f"{nn.init.normal_(w, mean=1.0, std=0.01).mean().item():.2f}")
print("constant", nn.init.constant_(w, 0.3)[0], nn.init.ones_(w)[0, 0], nn.init.zeros_(w).sum())
print("eye", nn.init.eye_(torch.empty(2, 3)))
print("dirac", nn.init.dirac_(torch.empty(2, 2, 3))[:, :, 1])
print("xavier_normal", f"{nn.init.xavier_normal_(torch.empty(200, 300)).std().item():.3f}")
print("kaiming_uniform", f"{nn.init.kaiming_uniform_(torch.empty(200, 300), a=0.1, nonlinearity='leaky_relu').abs().max().item():.3f}")
print("trunc_normal", nn.init.trunc_normal_(torch.empty(1000), std=0.02, a=-0.04, b=0.04).abs().max().item() <= 0.04)
q = nn.init.orthogonal_(torch.empty(3, 5), gain=2.0)
print("orthogonal", torch.allclose(q @ q.T, 4 * torch.eye(3), atol=1e-5))
print("sparse", (nn.init.sparse_(torch.empty(10, 4), sparsity=0.3) == 0).sum(0))
print("fan in/out", nn.init._calculate_fan_in_and_fan_out(torch.empty(8, 4, 3, 3)))

# ---- dtype conversion, requires_grad_
small = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
print(small.double()[0].weight.dtype, small[1].running_mean.dtype, small[1].num_batches_tracked.dtype)
print(small.half()[0].weight.dtype, small.to(torch.float32)[0].bias.dtype, small.to(dtype=torch.bfloat16)[1].weight.dtype)
small.float()
print("to returns self", small.to("cpu") is small, small.type(torch.float64)[0].weight.dtype)
small.float()
small.requires_grad_(False)
print("frozen", [p.requires_grad for p in small.parameters()])
small[0].requires_grad_()
print("unfrozen fc", [p.requires_grad for p in small.parameters()])

# ---- custom parametrizations (the tutorial's Symmetric and a skew-symmetric -> orthogonal via matrix_exp)
class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Orthogonal(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return torch.matrix_exp(A - A.T)


torch.manual_seed(0)
layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric())
print("symmetric", torch.allclose(layer.weight, layer.weight.T), parametrize.is_parametrized(layer),
      parametrize.is_parametrized(layer, "bias"))
print([n for n, _ in layer.named_parameters()])
print(layer)
print(list(layer.state_dict().keys()))
rot = nn.Linear(3, 3, bias=False)
parametrize.register_parametrization(rot, "weight", Orthogonal())
print("orthogonal", torch.allclose(rot.weight @ rot.weight.T, torch.eye(3), atol=1e-5))
opt = torch.optim.SGD(rot.parameters(), lr=0.1)
for _ in range(3):
    loss = (rot(torch.eye(3)) - torch.eye(3).flip(0)).pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("orthogonal after training", torch.allclose(rot.weight @ rot.weight.T, torch.eye(3), atol=1e-5), f"{loss.item():.4f}")
with parametrize.cached():
    w1 = rot.weight
    print("cached", w1 is rot.weight)
parametrize.remove_parametrizations(layer, "weight", leave_parametrized=True)
print("removed", parametrize.is_parametrized(layer), type(layer.weight).__name__, torch.allclose(layer.weight, layer.weight.T))

# ---- weight_norm / spectral_norm (the new parametrizations API)
torch.manual_seed(0)
wn = nn.utils.parametrizations.weight_norm(nn.Linear(4, 3))
print([(n, tuple(p.shape)) for n, p in wn.named_parameters()])
g, v = wn.parametrizations.weight.original0, wn.parametrizations.weight.original1
print("weight_norm", torch.allclose(wn.weight, g * v / v.norm(dim=1, keepdim=True), atol=1e-6), g.flatten())
wn0 = nn.utils.parametrizations.weight_norm(nn.Linear(4, 3), dim=None)
print("dim=None", wn0.parametrizations.weight.original0.shape)
sn = nn.utils.parametrizations.spectral_norm(nn.Linear(5, 4), n_power_iterations=10)
for _ in range(5):
    sn(torch.randn(2, 5))
print("spectral_norm", f"{torch.linalg.matrix_norm(sn.weight, 2).item():.3f}", [n for n, _ in sn.named_buffers()])
sn.eval()
print("eval sigma", f"{torch.linalg.matrix_norm(sn.weight, 2).item():.3f}")

# ---- parameters_to_vector / vector_to_parameters
fc = nn.Linear(3, 2)
vec = parameters_to_vector(fc.parameters())
print("vector", vec.shape, torch.equal(vec[:6], fc.weight.flatten()))
vector_to_parameters(torch.arange(8.0), fc.parameters())
print(fc.weight, fc.bias)

# ---- hooks, including with_kwargs
calls = []


def pre_hook(module, args):
    calls.append(("pre", type(module).__name__, tuple(a.shape for a in args)))
    return (args[0] * 2,)


def pre_hook_kwargs(module, args, kwargs):
    calls.append(("pre_kw", sorted(kwargs)))
    kwargs["scale"] = 10.0
    return args, kwargs


def fwd_hook(module, args, output):
    calls.append(("fwd", tuple(output.shape)))
    return output + 1


def fwd_hook_kwargs(module, args, kwargs, output):
    calls.append(("fwd_kw", kwargs.get("scale")))


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)

    def forward(self, x, scale=1.0):
        return self.fc(x) * scale


torch.manual_seed(0)
sm = Scaled()
x = torch.ones(1, 2)
base = sm(x, scale=1.0)
h1 = sm.register_forward_pre_hook(pre_hook)
h2 = sm.register_forward_pre_hook(pre_hook_kwargs, with_kwargs=True)
h3 = sm.register_forward_hook(fwd_hook)
h4 = sm.register_forward_hook(fwd_hook_kwargs, with_kwargs=True)
out = sm(x, scale=1.0)
print(calls)
print("hooked", out, torch.allclose(out, sm.fc(2 * x) * 10 + 1))
print(type(h1).__name__, len(sm._forward_pre_hooks), len(sm._forward_hooks))
for h in (h1, h2, h3, h4):
    h.remove()
print("removed", torch.equal(sm(x, scale=1.0), base), len(sm._forward_hooks))
h = sm.register_forward_hook(lambda m, i, o: calls.append("prepend"), prepend=True)
sm(x)
print(calls[-1])
h.remove()
grads = []
hb = sm.fc.register_full_backward_hook(lambda m, gin, gout: grads.append((gin[0].shape, gout[0].shape)))
sm(torch.ones(3, 2, requires_grad=True)).sum().backward()
print("backward hook", grads)
hb.remove()
always = []
guarded = nn.Linear(2, 2)


def failing_hook(module, args, output):
    raise ValueError("hook failed")


guarded.register_forward_hook(failing_hook)
guarded.register_forward_hook(lambda m, a, o: always.append("always_call ran"), always_call=True)
try:
    guarded(torch.ones(1, 2))
except ValueError as e:
    print("ValueError:", e, always)

# ---- deepcopy
torch.manual_seed(0)
net = Net()
clone = copy.deepcopy(net)
print("deepcopy", clone is not net, clone.shared is clone.shared_again, clone.heads.cls.weight is not net.heads.cls.weight,
      torch.equal(clone.heads.cls.weight, net.heads.cls.weight))
with torch.no_grad():
    clone.heads.cls.weight.zero_()
print("independent", net.heads.cls.weight.abs().sum().item() > 0, clone.heads.cls.weight.abs().sum().item())
print("buffers copied", clone.features[0].running_calls, clone.features[0].cache)

# ---- misc attribute handling
m = nn.Linear(2, 2)
m.weight = nn.Parameter(torch.zeros(2, 2))
print("reassign parameter", m.weight.sum())
try:
    m.weight = torch.zeros(2, 2)
except TypeError as e:
    print("TypeError:", e)
m.register_parameter("extra", None)
print("None parameter", [n for n, _ in m.named_parameters()], m.extra)
try:
    m.register_buffer("weight", torch.zeros(1))
except KeyError as e:
    print("KeyError:", e)
try:
    m.add_module("a.b", nn.ReLU())
except KeyError as e:
    print("KeyError:", e)
del m.extra
print("hasattr after del", hasattr(m, "extra"))
try:
    m.nonexistent
except AttributeError as e:
    print("AttributeError:", e)
print("modules", len(list(net.modules())), "children", len(list(net.children())))
print("dir has weight", "weight" in dir(m))

# ---- a typed ParameterDict / ParameterList, nn.Buffer, and what cannot be a Parameter
pd64 = nn.ParameterDict({"scale": nn.Parameter(torch.ones(2, dtype=torch.float64)), "name": "cfg",
                         "mask": torch.ones(2, dtype=torch.float16)})
print(pd64)
order = nn.ParameterDict({"b": nn.Parameter(torch.ones(1)), "a": nn.Parameter(torch.ones(1))})
order.update({"d": nn.Parameter(torch.ones(1)), "c": nn.Parameter(torch.ones(1))})
print("ParameterDict from a dict: sorted keys", list(order.keys()), [n for n, _ in order.named_parameters()])
print(nn.ParameterList([nn.Parameter(torch.ones(2, dtype=torch.float64)), "hello", 3]))
print(torch.typename(torch.ones(2)), torch.typename(nn.Parameter(torch.ones(2, dtype=torch.float64))), torch.typename(3))
try:
    nn.Parameter(torch.ones(2, dtype=torch.long))
except RuntimeError as e:
    print("RuntimeError:", e)
print(nn.Parameter(torch.ones(2), requires_grad=False))


class WithBuffer(nn.Module):
    def __init__(self):
        super().__init__()
        self.mean = nn.Buffer(torch.zeros(2))
        self.tmp = nn.Buffer(torch.ones(2), persistent=False)


wb = WithBuffer()
print("nn.Buffer", [n for n, _ in wb.named_buffers()], list(wb.state_dict()), type(wb.mean).__name__)
print(nn.Buffer(torch.ones(2)), type(nn.Buffer(torch.ones(2))).__name__, isinstance(wb.mean, nn.Buffer))
print("Buffer keeps requires_grad", nn.Buffer(torch.ones(2, requires_grad=True)).requires_grad)

# ---- state_dict options and the old-style weight_norm / spectral_norm hooks
lin = nn.Linear(2, 2)
print(list(lin.state_dict(prefix="model.").keys()), lin.state_dict(keep_vars=True)["weight"].requires_grad,
      lin.state_dict()["weight"].requires_grad)
print(lin.load_state_dict({"weight": torch.zeros(2, 2), "bias": torch.zeros(2)}, assign=True), type(lin.weight).__name__)
post = []
lin.register_load_state_dict_post_hook(lambda mod, keys: post.append(list(keys.missing_keys)))
lin.load_state_dict({"weight": torch.zeros(2, 2)}, strict=False)
print("load post hook", post)
old_sn = nn.utils.spectral_norm(nn.Linear(4, 3))
print("old spectral_norm", [n for n, _ in old_sn.named_parameters()], [n for n, _ in old_sn.named_buffers()])
orth = nn.utils.parametrizations.orthogonal(nn.Linear(4, 4))
print(orth, type(orth).__name__, torch.allclose(orth.weight @ orth.weight.T, torch.eye(4), atol=1e-5))
print(nn.Sequential(nn.Linear(1, 1), nn.ReLU()) + nn.Sequential(nn.Tanh()))
print(nn.ModuleList([nn.ReLU()]) + nn.ModuleList([nn.Tanh()]))
try:
    nn.Linear(2, 2).to(torch.int64)
except TypeError as e:
    print("TypeError:", e)


# ---- extra state in the state_dict (get_extra_state / set_extra_state)
class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(1, 1)
        self.steps = 0

    def get_extra_state(self):
        return {"steps": self.steps}

    def set_extra_state(self, state):
        self.steps = state["steps"]


c1 = Counter()
c1.steps = 7
sd = c1.state_dict()
print("extra state", list(sd.keys()), sd.get("_extra_state"))
c2 = Counter()
c2.load_state_dict(sd)
print("restored steps", c2.steps)

# ---- building on the meta device, then materialising with to_empty
big = nn.Linear(4, 3, device="meta")
print("meta", big.weight.device, big.weight.shape, big.weight.is_meta)
big.to_empty(device="cpu")
print("to_empty", big.weight.device, big.weight.shape)
