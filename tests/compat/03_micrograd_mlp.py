# micrograd's demo, written with torch: a 2-16-16-1 MLP on the two-moons data set, a max-margin (SVM)
# loss with L2 regularisation, full-batch gradient descent with a decaying learning rate and the
# parameters updated by hand through .data.
import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import make_moons

np.random.seed(1337)
torch.manual_seed(1337)

X, y = make_moons(n_samples=100, noise=0.1)
y = y * 2 - 1  # make y be -1 or 1
print(X.shape, y.shape, X.dtype, y[:10])

Xt = torch.tensor(X, dtype=torch.float32)
yt = torch.tensor(y, dtype=torch.float32)


class Neuron(nn.Module):
    def __init__(self, nin, nonlin=True):
        super().__init__()
        self.w = nn.Parameter(torch.empty(nin).uniform_(-1, 1))
        self.b = nn.Parameter(torch.zeros(()))
        self.nonlin = nonlin

    def forward(self, x):
        act = x @ self.w + self.b
        return act.relu() if self.nonlin else act

    def extra_repr(self):
        return f"{'ReLU' if self.nonlin else 'Linear'}Neuron({self.w.numel()})"


class Layer(nn.Module):
    def __init__(self, nin, nout, **kwargs):
        super().__init__()
        self.neurons = nn.ModuleList([Neuron(nin, **kwargs) for _ in range(nout)])

    def forward(self, x):
        return torch.stack([n(x) for n in self.neurons], dim=-1)


class MLP(nn.Module):
    def __init__(self, nin, nouts):
        super().__init__()
        sz = [nin] + nouts
        self.layers = nn.ModuleList([Layer(sz[i], sz[i + 1], nonlin=i != len(nouts) - 1) for i in range(len(nouts))])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x.squeeze(-1)


model = MLP(2, [16, 16, 1])
print(model.layers[2])
print("number of parameters", sum(p.numel() for p in model.parameters()))
print(model.layers[0].neurons[0].w)


def loss_fn(batch_size=None):
    if batch_size is None:
        Xb, yb = Xt, yt
    else:
        ri = torch.randperm(Xt.shape[0])[:batch_size]
        Xb, yb = Xt[ri], yt[ri]
    scores = model(Xb)
    losses = (1 + -yb * scores).relu()  # svm "max-margin" loss
    data_loss = losses.sum() * (1.0 / losses.numel())
    alpha = 1e-4
    reg_loss = alpha * sum((p * p).sum() for p in model.parameters())
    total_loss = data_loss + reg_loss
    accuracy = ((yb > 0) == (scores > 0)).float().mean()
    return total_loss, accuracy


total_loss, acc = loss_fn()
print(total_loss, acc, total_loss.grad_fn.name())

for k in range(60):
    total_loss, acc = loss_fn()
    model.zero_grad()
    total_loss.backward()
    learning_rate = 1.0 - 0.9 * k / 100
    for p in model.parameters():
        p.data -= learning_rate * p.grad
    if k % 6 == 0:
        print(f"step {k} loss {total_loss.item():.5f}, accuracy {acc.item() * 100:.0f}%")

# mini-batches drawn with randperm, as micrograd's loss(batch_size=...) does
for k in range(20):
    total_loss, acc = loss_fn(batch_size=32)
    model.zero_grad()
    total_loss.backward()
    for p in model.parameters():
        p.data -= 0.1 * p.grad
print(f"minibatch loss {total_loss.item():.4f}")

# the decision boundary on a coarse grid
h = 0.5
xx, yy = np.meshgrid(np.arange(-2, 3, h), np.arange(-1.5, 2, h))
Xmesh = torch.tensor(np.c_[xx.ravel(), yy.ravel()], dtype=torch.float32)
with torch.no_grad():
    Z = (model(Xmesh) > 0).int().reshape(xx.shape)
print(Z)
