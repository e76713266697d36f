"""Gaps found by the compat programs 19..27 (tutorial code run unchanged), each checked against PyTorch.

- grid_sample's result and its input gradient are new contiguous tensors in PyTorch, with c10's strides even
  on a size-1 channel dim.  Built from permuted rows they kept stride 1 there, which reads as channels_last:
  the STN tutorial's conv after grid_sample then came out channels_last and its ``x.view(-1, 320)`` failed."""
import math

import numpy as np
import pytest

import pedatorch as pt

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("channels", [1, 3])
def test_grid_sample_result_and_grad_are_contiguous(mode, channels):
    rng = np.random.default_rng(0)
    x_np = rng.random((2, channels, 4, 5), dtype=np.float32)
    theta_np = np.array([[[0.9, 0.1, 0.05], [-0.1, 1.0, 0.1]]] * 2, dtype=np.float32)

    def run(lib):
        F = lib.nn.functional
        x = lib.tensor(x_np, requires_grad=True)
        grid = F.affine_grid(lib.tensor(theta_np), (2, channels, 3, 6), align_corners=False)
        y = F.grid_sample(x, grid, mode=mode, align_corners=False)
        conv = lib.nn.Conv2d(channels, 2, 3)
        conv_out = conv(y)
        y.sum().backward()
        return y.stride(), x.grad.stride(), conv_out.stride(), conv_out.view(2, -1).shape

    assert run(pt) == run(torch)


def test_grid_sample_3d_result_is_contiguous():
    rng = np.random.default_rng(1)
    x_np = rng.random((1, 1, 3, 4, 5), dtype=np.float32)
    theta_np = np.eye(3, 4, dtype=np.float32)[None] * 0.9

    def run(lib):
        F = lib.nn.functional
        grid = F.affine_grid(lib.tensor(theta_np), (1, 1, 2, 3, 4), align_corners=True)
        return F.grid_sample(lib.tensor(x_np), grid, align_corners=True).stride()

    assert run(pt) == run(torch)


def test_stn_forward_then_view():
    """The tutorial's shape: grid_sample on a 1-channel batch, conv, pool, then view(-1, 320)."""
    def run(lib):
        lib.manual_seed(0)
        F, nn = lib.nn.functional, lib.nn
        x = lib.randn(3, 1, 28, 28)
        theta = lib.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]).expand(3, 2, 3)
        x = F.grid_sample(x, F.affine_grid(theta, x.size(), align_corners=False), align_corners=False)
        x = F.relu(F.max_pool2d(nn.Conv2d(1, 10, kernel_size=5)(x), 2))
        x = F.relu(F.max_pool2d(nn.Conv2d(10, 20, kernel_size=5)(x), 2))
        return x.view(-1, 320).detach().numpy()

    np.testing.assert_allclose(run(pt), run(torch), rtol=1e-5, atol=1e-6)


# ---- channel_shuffle (found while probing strides of the vision ops after grid_sample): F.channel_shuffle
# and torch.channel_shuffle were missing; nn.ChannelShuffle had no checks and no layout rule.

def _shuffle_case(lib, shape, groups, channels_last=False, module=False):
    x = lib.arange(float(math.prod(shape))).reshape(shape)
    if channels_last:
        x = x.contiguous(memory_format=lib.channels_last)
    x.requires_grad_()
    y = lib.nn.ChannelShuffle(groups)(x) if module else lib.nn.functional.channel_shuffle(x, groups)
    (y * lib.arange(float(y.numel())).reshape(y.shape)).sum().backward()
    return y.detach().numpy(), y.stride(), type(y.grad_fn).__name__, x.grad.numpy(), x.grad.stride()


@pytest.mark.parametrize("shape,groups,cl,module", [((1, 6, 3), 3, False, False), ((2, 6, 2, 2), 2, False, True),
                                                    ((2, 4, 2, 3), 2, True, False), ((1, 8, 1, 1, 2), 4, False, False),
                                                    ((0, 4, 3), 2, False, False), ((2, 4, 1), 4, False, True)])
def test_channel_shuffle_matches_pytorch(shape, groups, cl, module):
    got, want = _shuffle_case(pt, shape, groups, cl, module), _shuffle_case(torch, shape, groups, cl, module)
    for g, w in zip(got, want):
        if isinstance(w, np.ndarray):
            np.testing.assert_array_equal(g, w)
        else:
            assert g == w
    assert pt.channel_shuffle is pt.nn.functional.channel_shuffle
    np.testing.assert_array_equal(pt.native_channel_shuffle(pt.arange(8).view(1, 4, 2), 2).numpy(),
                                  torch.native_channel_shuffle(torch.arange(8).view(1, 4, 2), 2).numpy())


@pytest.mark.parametrize("shape,groups", [((6,), 2), ((2, 6), 3), ((1, 6, 2), 4), ((1, 6, 2), 0), ((1, 6, 2), -2)])
def test_channel_shuffle_errors_match_pytorch(shape, groups):
    with pytest.raises(RuntimeError) as want:
        torch.nn.functional.channel_shuffle(torch.ones(shape), groups)
    with pytest.raises(RuntimeError) as got:
        pt.nn.functional.channel_shuffle(pt.ones(shape), groups)
    assert str(got.value) == str(want.value)
    with pytest.raises(RuntimeError) as got:
        pt.nn.ChannelShuffle(groups)(pt.ones(shape))
    assert str(got.value) == str(want.value)
