#!/usr/bin/env python3
"""Render every picture of docs/gallery.md into docs/img/ (run by `make gallery`).

    python docs/make_gallery.py              # all of them
    python docs/make_gallery.py graph_big    # only those whose names start with graph_big

Each picture is drawn from the code shown next to it in gallery.md, saved as PNG (what the
gallery shows) and SVG (what JupyterLab shows).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # the working tree, installed or not

import pedatorch as torch  # noqa: E402
from pedatorch import nn, viz  # noqa: E402

IMG = os.path.join(HERE, "img")
ONLY = tuple(sys.argv[1:])     # name prefixes given on the command line: draw only those pictures


def wanted(name):
    return not ONLY or name.startswith(ONLY)


def save(picture, name, svg=True):
    if not wanted(name):
        return
    picture.save(os.path.join(IMG, name + ".png"))
    if svg:
        picture.save(os.path.join(IMG, name + ".svg"))
    print("wrote", f"docs/img/{name}.png")


class ResidualBlock(nn.Module):
    """The course's block: two 3x3 convolutions with batch norm, and a shortcut."""

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + self.shortcut(x))


class Block(nn.Module):
    """A small residual block, repeated to make a deep model."""

    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(n, n)
        self.norm = nn.LayerNorm(n)

    def forward(self, x):
        return x + torch.relu(self.norm(self.lin(x)))


class BasicBlock(nn.Module):
    """ResNet's basic block (as ResidualBlock, with its ReLU a module)."""

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(out)) + self.shortcut(x))


class ResNet20(nn.Module):
    """CIFAR's ResNet-20: a 3x3 stem, 3 stages of 3 basic blocks (16, 32, 64 channels), pool, linear."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU()
        self.layer1 = nn.Sequential(BasicBlock(16, 16), BasicBlock(16, 16), BasicBlock(16, 16))
        self.layer2 = nn.Sequential(BasicBlock(16, 32, 2), BasicBlock(32, 32), BasicBlock(32, 32))
        self.layer3 = nn.Sequential(BasicBlock(32, 64, 2), BasicBlock(64, 64), BasicBlock(64, 64))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer3(self.layer2(self.layer1(x)))
        return self.fc(torch.flatten(self.pool(x), 1))


class UnrolledLSTM(nn.Module):
    """A language model's LSTMCell unrolled over 35 steps."""

    def __init__(self, steps=35, vocab=50):
        super().__init__()
        self.steps = steps
        self.emb = nn.Embedding(vocab, 16)
        self.cell = nn.LSTMCell(16, 32)
        self.out = nn.Linear(32, vocab)

    def forward(self, tokens):
        h = c = torch.zeros(tokens.shape[1], 32)
        logits = []
        for t in range(self.steps):
            h, c = self.cell(self.emb(tokens[t]), (h, c))
            logits.append(self.out(h))
        return torch.stack(logits)


def main():
    os.makedirs(IMG, exist_ok=True)
    torch.manual_seed(0)

    # -- autograd graphs
    a = torch.randn(3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    c = torch.randn(3, requires_grad=True)
    loss = (a * b + c).sum()
    save(viz.graph(loss, params={"a": a, "b": b, "c": c}), "graph_abc")
    save(viz.graph(loss, params={"a": a, "b": b, "c": c}, show_saved=True), "graph_abc_saved")

    model = nn.Sequential(ResidualBlock(1, 4), ResidualBlock(4, 8, stride=2), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(8, 10))
    save(viz.graph(model, torch.randn(2, 1, 8, 8), depth=None), "graph_resnet")

    deep = nn.Sequential(nn.Linear(4, 8), *[Block(8) for _ in range(12)], nn.Linear(8, 2))
    save(viz.graph(deep, torch.randn(2, 4), max_nodes=60), "graph_collapsed")

    # -- backward, step by step
    w = torch.randn(3, 2, requires_grad=True)
    x = torch.randn(4, 3)
    out = torch.relu(x @ w).mean()
    steps = viz.backward_steps(out, params={"w": w})
    save(steps.graph(1), "backward_step1")

    # -- broadcasting
    save(viz.broadcast((2, 1, 3), (4, 3)), "broadcast")
    save(viz.broadcast((2, 3), (4,)), "broadcast_clash")
    save(viz.broadcast((2, 1, 3), (4, 3)).grad_view(), "broadcast_grad")

    # -- memory layout
    x = torch.arange(12.).reshape(3, 4)
    save(viz.memory(x, x.t(), x[1:], x[:, ::2], names=["x", "x.t()", "x[1:]", "x[:, ::2]"]), "memory_views")
    v = torch.arange(4.)
    save(viz.memory(v, v[:3].expand(2, 3), names=["v", "v[:3].expand(2, 3)"]), "memory_expand")

    # -- training curves
    import math
    curves = viz.TrainingCurves(metrics=("loss", "accuracy"))
    for epoch in range(20):
        lr = 0.1 * 0.5 * (1 + math.cos(math.pi * epoch / 20))
        for i in range(10):
            step = epoch * 10 + i
            curves.log(step=step, loss=2.3 * math.exp(-step / 60) + 0.05 * math.sin(step), lr=lr)
        curves.log(epoch=epoch + 1, split="val", loss=2.3 * math.exp(-(epoch + 1) * 10 / 60) + 0.1,
                   accuracy=1 - 0.9 * math.exp(-(epoch + 1) / 4))
    if wanted("training_curves"):
        curves.save(os.path.join(IMG, "training_curves.png"))
        print("wrote docs/img/training_curves.png")

    # -- big models: the first picture fits a notebook
    if wanted("graph_big"):
        torch.manual_seed(0)
        resnet, images = ResNet20(), torch.randn(2, 3, 32, 32)
        save(viz.graph(resnet, images), "graph_big_resnet20")
        save(viz.graph(resnet, images, depth=2), "graph_big_resnet20_depth2")
        save(viz.graph(UnrolledLSTM(), torch.randint(0, 50, (35, 2))), "graph_big_lstm")
        steps = viz.backward_steps(resnet(images).pow(2).mean(), params=resnet)
        save(steps.graph(30), "graph_big_resnet20_step30")


if __name__ == "__main__":
    main()
