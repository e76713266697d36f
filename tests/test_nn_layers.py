"""Every layer module against PyTorch: same seed -> same initial parameters (names, shapes, values),
same repr, same output and gradients (input and parameters), in train and eval mode."""
import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close

# (constructor source, input shape) — the constructor is evaluated with nn bound to each library
LAYERS = [
    ("nn.Linear(5, 3)", (4, 5)), ("nn.Linear(5, 3, bias=False)", (2, 7, 5)), ("nn.Bilinear(3, 4, 2)", None),
    ("nn.Conv1d(3, 4, 3)", (2, 3, 10)), ("nn.Conv1d(2, 4, 3, padding='same', dilation=2)", (2, 2, 9)),
    ("nn.Conv2d(3, 6, 3)", (2, 3, 8, 8)), ("nn.Conv2d(4, 6, (3, 2), stride=2, padding=1, groups=2)", (2, 4, 9, 7)),
    ("nn.Conv2d(3, 4, 3, padding=1, padding_mode='reflect', bias=False)", (1, 3, 6, 6)),
    ("nn.Conv2d(2, 3, 3, padding='same')", (1, 2, 5, 5)),
    ("nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1)", (2, 3, 4, 4)),
    ("nn.ConvTranspose1d(3, 2, 4, stride=2)", (2, 3, 5)),
    ("nn.MaxPool2d(2)", (2, 3, 8, 8)), ("nn.MaxPool2d(3, 2, 1, ceil_mode=True)", (1, 2, 7, 7)),
    ("nn.MaxPool1d(3, stride=2)", (2, 3, 11)), ("nn.AvgPool2d(2)", (2, 3, 8, 8)),
    ("nn.AvgPool2d(3, 2, 1, count_include_pad=False)", (1, 2, 7, 7)), ("nn.AvgPool1d(3)", (2, 3, 10)),
    ("nn.AdaptiveAvgPool2d((1, 1))", (2, 3, 5, 5)), ("nn.AdaptiveAvgPool2d(3)", (2, 3, 7, 5)),
    ("nn.AdaptiveAvgPool1d(4)", (2, 3, 10)), ("nn.AdaptiveMaxPool2d(2)", (2, 3, 5, 5)),
    ("nn.BatchNorm1d(4)", (8, 4)), ("nn.BatchNorm1d(3)", (4, 3, 5)), ("nn.BatchNorm2d(3)", (4, 3, 5, 5)),
    ("nn.BatchNorm2d(3, momentum=None, affine=False)", (4, 3, 2, 2)), ("nn.LayerNorm(5)", (3, 4, 5)),
    ("nn.LayerNorm((4, 5), elementwise_affine=False)", (3, 4, 5)), ("nn.GroupNorm(2, 4)", (2, 4, 3, 3)),
    ("nn.InstanceNorm2d(3, affine=True)", (2, 3, 4, 4)), ("nn.Embedding(10, 3)", "idx"),
    ("nn.Embedding(10, 3, padding_idx=0)", "idx"), ("nn.Dropout(0.0)", (4, 5)), ("nn.Dropout2d(0.0)", (2, 3, 4, 4)),
    ("nn.ReLU()", (4, 5)), ("nn.LeakyReLU(0.2)", (4, 5)), ("nn.ELU()", (4, 5)), ("nn.GELU()", (4, 5)),
    ("nn.GELU(approximate='tanh')", (4, 5)), ("nn.SiLU()", (4, 5)), ("nn.Sigmoid()", (4, 5)), ("nn.Tanh()", (4, 5)),
    ("nn.Softmax(dim=1)", (4, 5)), ("nn.LogSoftmax(dim=-1)", (4, 5)), ("nn.Softplus(beta=2.0)", (4, 5)),
    ("nn.Hardtanh(-0.5, 0.5)", (4, 5)), ("nn.PReLU()", (4, 5)), ("nn.PReLU(3)", (2, 3, 4)), ("nn.ReLU6()", (4, 5)),
    ("nn.Mish()", (4, 5)), ("nn.Hardswish()", (4, 5)), ("nn.Flatten()", (2, 3, 4)),
    ("nn.Unflatten(1, (2, 2))", (3, 4)), ("nn.Identity()", (2, 3)), ("nn.ZeroPad2d((1, 2, 0, 1))", (1, 2, 3, 3)),
    ("nn.ReflectionPad2d(1)", (1, 2, 3, 3)), ("nn.ReplicationPad1d(2)", (1, 2, 4)),
    ("nn.ConstantPad1d(2, 3.5)", (1, 2, 4)), ("nn.Upsample(scale_factor=2)", (1, 2, 3, 3)),
    ("nn.Upsample(size=(5, 4), mode='bilinear', align_corners=False)", (1, 2, 3, 3)),
    ("nn.PixelShuffle(2)", (1, 8, 2, 2)), ("nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), "
                                          "nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16, 3))", (2, 2, 6, 6)),
]


def _inputs(lib, spec, rng):
    if spec == "idx":
        return (lib.tensor(rng.integers(0, 10, (3, 4))),)
    if spec is None:
        return (lib.tensor(rng.standard_normal((4, 3)).astype(np.float32)),
                lib.tensor(rng.standard_normal((4, 4)).astype(np.float32)))
    return (lib.tensor(rng.standard_normal(spec).astype(np.float32)),)


@pytest.mark.parametrize("src,shape", LAYERS, ids=[s for s, _ in LAYERS])
@pytest.mark.parametrize("mode", ["train", "eval"])
def test_layer_matches_torch(torch, src, shape, mode):
    results = []
    for lib in (pt, torch):
        lib.manual_seed(0)
        m = eval(src, {"nn": lib.nn})
        getattr(m, mode)()
        xs = _inputs(lib, shape, np.random.default_rng(1))
        for x in xs:
            if x.is_floating_point():
                x.requires_grad_()
        y = m(*xs)
        g = np.random.default_rng(2).standard_normal(tuple(y.shape)).astype(np.float32)
        y.backward(lib.tensor(g))
        results.append((m, xs, y))
    (m1, x1, y1), (m2, x2, y2) = results
    assert repr(m1) == repr(m2)
    assert [n for n, _ in m1.named_parameters()] == [n for n, _ in m2.named_parameters()]
    assert list(m1.state_dict()) == list(m2.state_dict())
    for (n, a), (_, b) in zip(m1.named_parameters(), m2.named_parameters()):
        assert_close(a, b, rtol=0, atol=0)  # the default initialisation, drawn from the same stream
    assert_close(y1, y2, rtol=1e-4, atol=1e-5)
    for a, b in zip(x1, x2):
        if b.grad is not None:
            assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-5)
    for (n, a), (_, b) in zip(m1.named_parameters(), m2.named_parameters()):
        if b.grad is not None:
            assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-4)
    for (n, a), (_, b) in zip(m1.named_buffers(), m2.named_buffers()):
        assert_close(a, b, rtol=1e-5, atol=1e-6)  # BatchNorm's running statistics after one step


LOSSES = ["nn.MSELoss()", "nn.L1Loss(reduction='sum')", "nn.SmoothL1Loss(beta=0.5)", "nn.HuberLoss(delta=0.7)",
          "nn.CrossEntropyLoss()", "nn.CrossEntropyLoss(label_smoothing=0.1, reduction='none')",
          "nn.NLLLoss()", "nn.BCELoss()", "nn.BCEWithLogitsLoss(pos_weight=lib.tensor([2.0, 1.0, 0.5]))",
          "nn.KLDivLoss(reduction='batchmean')", "nn.MarginRankingLoss(0.1)", "nn.CosineEmbeddingLoss(0.2)"]


@pytest.mark.parametrize("src", LOSSES)
def test_loss_modules(torch, src):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    out = []
    for lib in (pt, torch):
        crit = eval(src, {"nn": lib.nn, "lib": lib})
        a = lib.tensor(x, requires_grad=True)
        if "CrossEntropy" in src:
            args = (a, lib.tensor([0, 2, 1, 2]))
        elif "NLL" in src:
            args = (a.log_softmax(1), lib.tensor([0, 2, 1, 2]))
        elif "BCELoss()" == src.split(".")[1]:
            args = (a.sigmoid(), lib.tensor((x > 0).astype(np.float32)))
        elif "BCEWithLogits" in src:
            args = (a, lib.tensor((x > 0).astype(np.float32)))
        elif "KLDiv" in src:
            args = (a.log_softmax(1), lib.tensor(np.full((4, 3), 1 / 3, np.float32)))
        elif "MarginRanking" in src:
            args = (a[:, 0], a[:, 1], lib.tensor([1., -1., 1., -1.]))
        elif "CosineEmbedding" in src:
            args = (a[:2], a[2:], lib.tensor([1., -1.]))
        else:
            args = (a, lib.tensor(x[::-1].copy()))
        loss = crit(*args)
        loss.sum().backward()
        out.append((repr(crit), loss, a.grad))
    assert out[0][0] == out[1][0]
    assert_close(out[0][1], out[1][1], rtol=1e-5, atol=1e-6)
    assert_close(out[0][2], out[1][2], rtol=1e-5, atol=1e-6)


def test_course_residual_block_parameter_count(torch):
    """The course's ResidualBlock(64, 128): same parameter count and names as in PyTorch."""
    def block(lib):
        nn = lib.nn

        class ResidualBlock(nn.Module):
            def __init__(self, cin, cout, stride=1):
                super().__init__()
                self.conv1 = nn.Conv2d(cin, cout, kernel_size=3, stride=stride, padding=1)
                self.bn1 = nn.BatchNorm2d(cout)
                self.conv2 = nn.Conv2d(cout, cout, kernel_size=3, padding=1)
                self.bn2 = nn.BatchNorm2d(cout)
                self.shortcut = nn.Sequential()
                if stride != 1 or cin != cout:
                    self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, kernel_size=1, stride=stride),
                                                  nn.BatchNorm2d(cout))
        return ResidualBlock(64, 128)
    a, b = block(pt), block(torch)
    assert sum(p.numel() for p in a.parameters()) == sum(p.numel() for p in b.parameters())
    assert sum(p.numel() for p in a.parameters() if p.requires_grad) == \
        sum(p.numel() for p in b.parameters() if p.requires_grad)
    assert repr(a) == repr(b)
