# Lazy modules whose input sizes are inferred at the first call (LazyLinear, LazyConv2d, LazyBatchNorm),
# then a hand-written Keras-style model summary: output shapes from forward hooks, a parameter table
# walked from named_parameters / named_modules, frozen layers, buffers and the state_dict.
import torch
import torch.nn as nn
from torch.nn.parameter import UninitializedParameter
from torch.nn.utils import parameters_to_vector, vector_to_parameters

torch.manual_seed(0)

model = nn.Sequential(
    nn.LazyConv2d(6, kernel_size=3, padding=1),
    nn.LazyBatchNorm2d(),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Flatten(),
    nn.LazyLinear(10),
    nn.ReLU(),
    nn.LazyLinear(3),
)
print(model)
w = model[0].weight
print(isinstance(w, UninitializedParameter), type(w).__name__, model[5].has_uninitialized_params())
try:
    w.shape
except RuntimeError as e:
    print("RuntimeError:", str(e)[:80])
try:
    print("parameters:", sum(p.numel() for p in model.parameters()))
except ValueError as e:
    print("ValueError:", str(e).split(" in <")[0])

x = torch.randn(2, 3, 8, 8)
y = model(x)  # dry run: materialises every lazy parameter
print(y.shape)
print(model)
print(type(model[0]).__name__, type(model[1]).__name__, type(model[5]).__name__, model[0].weight.shape)
print(model[5].in_features, model[7].in_features, model[1].num_features, model[0].in_channels)
print(model[7].weight[0, :4], model[1].running_var, model[1].num_batches_tracked)


def summary(model, input_size):
    rows, hooks = [], []

    def hook(module, inputs, output, name):
        n_params = sum(p.numel() for p in module.parameters(recurse=False))
        rows.append((f"{name} ({type(module).__name__})", list(output.shape), n_params))

    for name, module in model.named_modules():
        if name and not list(module.children()):
            hooks.append(module.register_forward_hook(lambda m, i, o, name=name: hook(m, i, o, name)))
    model.eval()
    with torch.no_grad():
        model(torch.zeros(*input_size))
    for h in hooks:
        h.remove()
    line = "-" * 64
    print(line)
    print(f"{'Layer (type)':<28}{'Output Shape':<24}{'Param #':>12}")
    print("=" * 64)
    for name, shape, n in rows:
        print(f"{name:<28}{str(shape):<24}{n:>12,}")
    print("=" * 64)
    total = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"Total params: {total:,}")
    print(f"Trainable params: {trainable:,}")
    print(f"Non-trainable params: {total - trainable:,}")
    size_mb = sum(p.numel() * p.element_size() for p in model.parameters()) / 1024**2
    buf_mb = sum(b.numel() * b.element_size() for b in model.buffers()) / 1024**2
    print(f"Params size (MB): {size_mb:.4f}   Buffers size (MB): {buf_mb:.6f}")
    print(line)


summary(model, (1, 3, 8, 8))

# freeze the convolutional trunk, as in transfer learning
for p in model[:2].parameters():
    p.requires_grad_(False)
print(f"{'name':<12}{'shape':<18}{'trainable':>10}{'mean':>10}")
for name, p in model.named_parameters():
    print(f"{name:<12}{str(tuple(p.shape)):<18}{str(p.requires_grad):>10}{p.mean().item():>10.4f}")
summary(model, (1, 3, 8, 8))
print([n for n, _ in model.named_buffers()])
print({k: tuple(v.shape) for k, v in model.state_dict().items()})

vec = parameters_to_vector(model.parameters())
print(vec.shape, f"{vec.norm().item():.4f}")
vector_to_parameters(torch.zeros_like(vec), model.parameters())
print(model[7].bias, model(x).abs().sum())

# a lazy layer in a custom module, initialised by a dry run, then trained one step
class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.LazyLinear(4)
        self.out = nn.Linear(4, 1)

    def forward(self, z):
        return self.out(torch.tanh(self.fc(z)))


head = Head()
head(torch.randn(1, 5))
opt = torch.optim.SGD(head.parameters(), lr=0.1)
z = torch.randn(6, 5)
loss = head(z).pow(2).mean()
loss.backward()
opt.step()
print(head, f"{loss.item():.5f}", head.fc.weight.grad.shape, head.fc.weight[0])
