"""The 3-D pooling and transposed-convolution modules, MaxUnpool's sizes, SyncBatchNorm and NLLLoss2d,
against PyTorch (reprs, values, gradients)."""
import numpy as np
import pytest

import pedatorch as torch
import pedatorch.nn as nn

pt = pytest.importorskip("torch")

MODULES = [
    ("MaxPool3d", (2,), {}), ("MaxPool3d", (3,), {"stride": 1, "padding": 1, "return_indices": True}),
    ("AvgPool3d", (2,), {}), ("AvgPool3d", (3,), {"stride": 2, "padding": 1, "count_include_pad": False}),
    ("AdaptiveAvgPool3d", ((1, 2, 3),), {}), ("AdaptiveMaxPool3d", (2,), {}),
    ("LPPool3d", (2, 2), {}), ("ConvTranspose3d", (2, 3, 2), {"stride": 2}),
    ("ConvTranspose3d", (2, 4, 3), {"padding": 1, "groups": 2, "bias": False}),
]


@pytest.mark.parametrize("name, args, kwargs", MODULES)
def test_3d_modules(name, args, kwargs):
    torch.manual_seed(0)
    pt.manual_seed(0)
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(pt.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    x = np.random.default_rng(1).standard_normal((2, 2, 5, 6, 4)).astype(np.float32)
    a, b = torch.tensor(x, requires_grad=True), pt.tensor(x, requires_grad=True)
    out, ref = ours(a), theirs(b)
    if isinstance(ref, tuple):
        np.testing.assert_array_equal(out[1].numpy(), ref[1].numpy())
        out, ref = out[0], ref[0]
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-5)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_lazy_conv_transpose_3d_and_unpool_repr():
    lazy = nn.LazyConvTranspose3d(3, 2)
    assert repr(lazy) == repr(pt.nn.LazyConvTranspose3d(3, 2))
    lazy(torch.ones(1, 4, 2, 2, 2))
    assert type(lazy) is nn.ConvTranspose3d and lazy.weight.shape == (4, 3, 2, 2, 2)
    for n in (1, 2, 3):
        name = f"MaxUnpool{n}d"
        assert repr(getattr(nn, name)(2)) == repr(getattr(pt.nn, name)(2))
        assert repr(getattr(nn, name)(2, stride=1, padding=(1,) * n)) == \
            repr(getattr(pt.nn, name)(2, stride=1, padding=(1,) * n))
    x = torch.randn(1, 1, 4, 4, 4)
    pooled, idx = nn.MaxPool3d(2, return_indices=True)(x)
    back = nn.MaxUnpool3d(2)(pooled, idx)
    ref = pt.nn.MaxUnpool3d(2)(*pt.nn.MaxPool3d(2, return_indices=True)(pt.from_numpy(x.numpy())))
    np.testing.assert_array_equal(back.numpy(), ref.numpy())


def test_sync_batch_norm_is_batch_norm_in_one_process():
    x = np.random.default_rng(2).standard_normal((4, 3, 5)).astype(np.float32)
    ours, theirs = nn.SyncBatchNorm(3), pt.nn.SyncBatchNorm(3)
    assert repr(ours) == repr(theirs)
    np.testing.assert_allclose(ours(torch.tensor(x)).detach().numpy(), theirs(pt.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours.running_var.numpy(), theirs.running_var.numpy(), rtol=1e-6)
    for bad in (torch.ones(3), torch.ones(2, 0, 3)):
        with pytest.raises(ValueError) as e1:
            ours(bad)
        with pytest.raises(ValueError) as e2:
            theirs(pt.from_numpy(bad.numpy()))
        assert str(e1.value) == str(e2.value)
    model = nn.Sequential(nn.Conv2d(1, 2, 1), nn.BatchNorm2d(2), nn.Sequential(nn.BatchNorm1d(2)))
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert [type(m).__name__ for m in converted.modules()] == ["Sequential", "Conv2d", "SyncBatchNorm", "Sequential",
                                                              "SyncBatchNorm"]
    assert converted[1].weight is model[1].weight


def test_nll_loss_2d_is_deprecated_nll_loss():
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
        loss = nn.NLLLoss2d()
    x = torch.randn(2, 3, 4, 4).log_softmax(1)
    y = torch.randint(0, 3, (2, 4, 4))
    assert loss(x, y).item() == nn.NLLLoss()(x, y).item()
