# Feature extraction and fine-tuning, after the "Transfer Learning" and "Saving and Loading Models" tutorials
# and the forward / backward hook docs, on a small CNN: intermediate features through register_forward_hook
# (and a pre-hook with kwargs that rewrites the input), Grad-CAM from register_full_backward_hook plus a
# tensor hook, register_full_backward_pre_hook scaling gradients, freezing a backbone with requires_grad_,
# replacing the classifier head, an optimizer over the trainable parameters only, state_dict saved to an
# io.BytesIO with torch.save and read back with torch.load(weights_only=True), load_state_dict(strict=False)
# and its missing / unexpected keys, non-persistent buffers, get_submodule / named_modules, and
# register_module_forward_hook-free global counting via Module.apply.
import io
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SmallNet(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.features = nn.Sequential(OrderedDict([
            ("conv1", nn.Conv2d(1, 4, 3, padding=1)),
            ("relu1", nn.ReLU()),
            ("pool1", nn.MaxPool2d(2)),
            ("conv2", nn.Conv2d(4, 8, 3, padding=1)),
            ("relu2", nn.ReLU()),
        ]))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(8, num_classes)
        self.register_buffer("input_mean", torch.tensor(0.5))
        self.register_buffer("calls", torch.zeros((), dtype=torch.long), persistent=False)

    def forward(self, x):
        self.calls += 1
        x = self.features(x - self.input_mean)
        return self.classifier(torch.flatten(self.pool(x), 1))


def make_batch(n):
    """8x8 images: class 0 a horizontal bar, 1 a vertical bar, 2 a diagonal."""
    y = torch.randint(0, 3, (n,))
    x = torch.rand(n, 1, 8, 8) * 0.3
    for i, c in enumerate(y.tolist()):
        if c == 0:
            x[i, 0, 3:5, :] += 0.7
        elif c == 1:
            x[i, 0, :, 3:5] += 0.7
        else:
            x[i, 0].diagonal().add_(0.7)
    return x, y


# ---- pretrain on the 3 classes
model = SmallNet()
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for step in range(40):
    x, y = make_batch(16)
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"pretrain step {step:2d} loss {loss.item():.4f}")
print("calls buffer", model.calls.item(), "in state_dict?", "calls" in model.state_dict(), list(model.state_dict())[-3:])

# ---- features through forward hooks
features = {}


def save_output(name):
    def hook(module, args, output):
        features[name] = output.detach()
    return hook


handles = [model.features.get_submodule(name).register_forward_hook(save_output(name))
           for name in ("conv1", "pool1", "relu2")]
x, y = make_batch(4)
model.eval()
with torch.no_grad():
    logits = model(x)
for name, f in features.items():
    print(f"  {name:6s} {tuple(f.shape)} mean {f.mean().item():.4f}")
for h in handles:
    h.remove()
print("hooks left", len(model.features.conv1._forward_hooks))


# a forward pre-hook with kwargs: it can replace the positional input
def clamp_input(module, args, kwargs):
    (inp,) = args
    return (inp.clamp(0, 1),), kwargs


h = model.register_forward_pre_hook(clamp_input, with_kwargs=True)
with torch.no_grad():
    hooked = model(x * 5)
    h.remove()
    print("pre-hook clamps", torch.allclose(hooked, model((x * 5).clamp(0, 1))),
          "removed", torch.allclose(hooked, model(x * 5)))

# ---- Grad-CAM: activations from a forward hook, gradients from a full backward hook
acts, grads = {}, {}
fh = model.features.relu2.register_forward_hook(lambda m, i, o: acts.update(a=o))
bh = model.features.relu2.register_full_backward_hook(lambda m, gi, go: grads.update(g=go[0]))
out = model(x)
out[range(4), out.argmax(1)].sum().backward()
weights = grads["g"].mean(dim=(2, 3), keepdim=True)
cam = F.relu((weights * acts["a"]).sum(1))
cam = cam / cam.flatten(1).max(1).values.clamp(min=1e-8)[:, None, None]
print("grad-cam", cam.shape, "peak rows", cam.flatten(1).argmax(1).div(4, rounding_mode="floor").tolist(),
      "labels", y.tolist())
fh.remove()
bh.remove()

# a tensor hook on an intermediate and a backward pre-hook that halves the incoming gradient
model.zero_grad()
seen = []
pre = model.classifier.register_full_backward_pre_hook(lambda m, grad_output: (grad_output[0] * 0.5,))
h_in = model.features(x - model.input_mean)
h_in.register_hook(lambda g: seen.append(g.abs().sum().item()))
F.cross_entropy(model.classifier(model.pool(h_in).flatten(1)), y).backward()
half = model.features.conv1.weight.grad.clone()
pre.remove()
model.zero_grad()
F.cross_entropy(model(x), y).backward()
print("backward pre-hook halves", torch.allclose(half * 2, model.features.conv1.weight.grad, atol=1e-6),
      "tensor hook saw", len(seen))

# ---- save the pretrained weights to memory, fine-tune a new head on a 2-class task
buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
size = buffer.tell()
buffer.seek(0)
state = torch.load(buffer, weights_only=True)
print("saved bytes > 0", size > 0, "keys", len(state), type(state).__name__, state["input_mean"])

finetune = SmallNet(num_classes=3)
finetune.load_state_dict(state)
finetune.classifier = nn.Linear(8, 2)
for p in finetune.features.parameters():
    p.requires_grad_(False)
trainable = [n for n, p in finetune.named_parameters() if p.requires_grad]
print("trainable", trainable, sum(p.numel() for p in finetune.parameters() if p.requires_grad))
opt = torch.optim.Adam((p for p in finetune.parameters() if p.requires_grad), lr=0.05)
frozen_before = finetune.features.conv1.weight.clone()
for step in range(30):
    x, y = make_batch(16)
    keep = y < 2  # horizontal vs vertical only
    loss = F.cross_entropy(finetune(x[keep]), y[keep])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"finetune step {step:2d} loss {loss.item():.4f}")
print("backbone unchanged", torch.equal(frozen_before, finetune.features.conv1.weight),
      "conv grad", finetune.features.conv1.weight.grad)

# ---- strict=False reports what did not fit
result = finetune.load_state_dict({k: v for k, v in state.items() if not k.startswith("classifier")} |
                                  {"extra.weight": torch.zeros(1)}, strict=False)
print("missing", result.missing_keys, "unexpected", result.unexpected_keys)
try:
    finetune.load_state_dict(state)
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])
    print(str(e).splitlines()[1].strip())

# ---- walking the modules
print([name for name, _ in finetune.named_modules()])
counts = {}
finetune.apply(lambda m: counts.__setitem__(type(m).__name__, counts.get(type(m).__name__, 0) + 1))
print(counts)
try:
    finetune.get_submodule("features.conv3")
except AttributeError as e:
    print("AttributeError:", e)
