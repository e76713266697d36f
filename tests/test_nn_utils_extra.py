"""The rest of nn.utils compared with PyTorch after the same manual_seed: the hook-based weight_norm /
spectral_norm (and their remove_ functions, state dicts, hooks, warnings, errors), skip_init, the
Conv/Linear + BatchNorm fusion, stateless.functional_call and convert_conv{2,3}d_weight_memory_format."""
import re
import warnings

import numpy as np
import pytest

import pedatorch as pt
from conftest import to_np

_ADDRESS = re.compile(r"0x[0-9a-f]+")


def both(torch, fn):
    out = []
    for lib in (pt, torch):
        lib.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            out.append(fn(lib))
    return out


def assert_same(a, b, rtol=0.0):
    """Equal nested results: tensors by dtype and values (exactly, or to ``rtol``), the rest by ==."""
    if hasattr(b, "detach"):
        assert hasattr(a, "detach"), (a, b)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(to_np(a), to_np(b), rtol=rtol, atol=rtol)
    elif isinstance(b, (list, tuple)):
        assert isinstance(a, (list, tuple)) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            assert_same(x, y, rtol)
    elif isinstance(b, dict):
        assert list(a) == list(b), (a, b)
        for k in b:
            assert_same(a[k], b[k], rtol)
    else:
        assert a == b, (a, b)


def compare(torch, fn, rtol=0.0):
    got, want = both(torch, fn)
    assert_same(got, want, rtol)


def raises_same(torch, fn):
    errs = []
    for lib in (pt, torch):
        lib.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            with pytest.raises(Exception) as info:
                fn(lib)
        errs.append(info.value)
    assert type(errs[0]).__name__ == type(errs[1]).__name__, errs
    assert _ADDRESS.sub("0x", str(errs[0])) == _ADDRESS.sub("0x", str(errs[1])), errs


def names(m):
    return ([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()], list(m.state_dict()),
            [type(h).__name__ for h in m._forward_pre_hooks.values()])


# ---------------------------------------------------------------- weight_norm (hook-based)
def test_weight_norm_warns_as_pytorch():
    with pytest.warns(FutureWarning, match=re.escape("`torch.nn.utils.weight_norm` is deprecated in favor of "
                                                     "`torch.nn.utils.parametrizations.weight_norm`.")):
        pt.nn.utils.weight_norm(pt.nn.Linear(3, 2))


@pytest.mark.parametrize("dim", [0, 1, None, -1, -2])
def test_weight_norm_linear(torch, dim):
    def fn(lib):
        m = lib.nn.utils.weight_norm(lib.nn.Linear(5, 4), dim=dim)
        x = lib.randn(3, 5)
        y = m(x)
        y.pow(2).sum().backward()
        return names(m), m.weight_g, m.weight_v, m.weight, y, m.weight_g.grad, m.weight_v.grad
    compare(torch, fn, rtol=2e-6)


@pytest.mark.parametrize("dim", [0, 1, 3])
def test_weight_norm_conv_and_remove(torch, dim):
    def fn(lib):
        m = lib.nn.utils.weight_norm(lib.nn.Conv2d(2, 3, 3), name="weight", dim=dim)
        with lib.no_grad():
            m.weight_g.mul_(2.0)
        m(lib.randn(1, 2, 5, 5))
        before = names(m)
        lib.nn.utils.remove_weight_norm(m)
        return before, names(m), m.weight, type(m.weight).__name__, m.weight.requires_grad
    compare(torch, fn, rtol=2e-6)


def test_weight_norm_on_bias_and_state_dict_into_parametrizations(torch):
    def fn(lib):
        m = lib.nn.utils.weight_norm(lib.nn.Linear(4, 3), name="bias", dim=None)
        sd = m.state_dict()
        new = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(4, 3), dim=0)
        old = lib.nn.utils.weight_norm(lib.nn.Linear(4, 3))
        new.load_state_dict(old.state_dict())
        return names(m), list(sd), m.bias_g, new.weight, old.weight
    compare(torch, fn, rtol=2e-6)


def test_weight_norm_errors(torch):
    def twice(lib):
        m = lib.nn.utils.weight_norm(lib.nn.Linear(3, 2))
        lib.nn.utils.weight_norm(m)
    raises_same(torch, twice)
    raises_same(torch, lambda lib: lib.nn.utils.remove_weight_norm(lib.nn.Linear(3, 2)))
    raises_same(torch, lambda lib: lib.nn.utils.remove_weight_norm(lib.nn.utils.weight_norm(lib.nn.Linear(3, 2)),
                                                                   "bias"))
    raises_same(torch, lambda lib: lib.nn.utils.weight_norm(lib.nn.LazyLinear(3)))
    raises_same(torch, lambda lib: lib.nn.utils.weight_norm(lib.nn.Linear(3, 2), name="nope"))


def test_weight_norm_hook_prints_as_pytorchs(torch):
    got, want = both(torch, lambda lib: re.sub(r"\d+, ", "N, ", _ADDRESS.sub(
        "0x", repr(lib.nn.utils.weight_norm(lib.nn.Linear(3, 2))._forward_pre_hooks))))
    assert got == want == "OrderedDict([(N, <torch.nn.utils.weight_norm.WeightNorm object at 0x>)])"


# ---------------------------------------------------------------- spectral_norm (hook-based)
def test_spectral_norm_training_and_eval(torch):
    def fn(lib):
        m = lib.nn.utils.spectral_norm(lib.nn.Linear(6, 4), n_power_iterations=2)
        first = (m.weight_u.clone(), m.weight_v.clone(), m.weight.clone(), type(m.weight).__name__)
        outs = []
        for _ in range(3):
            y = m(lib.randn(2, 6))
            y.sum().backward()
            outs.append(y)
        m.eval()
        u = m.weight_u.clone()
        outs.append(m(lib.ones(1, 6)))
        return (names(m), first, outs, m.weight_u, m.weight_v, m.weight, m.weight_orig.grad,
                bool((u == m.weight_u).all()))
    compare(torch, fn, rtol=1e-5)


@pytest.mark.parametrize("make,dim", [(lambda lib: lib.nn.Conv2d(3, 4, 2), None),
                                      (lambda lib: lib.nn.Conv2d(3, 4, 2), 2),
                                      (lambda lib: lib.nn.ConvTranspose2d(3, 5, 2), None),
                                      (lambda lib: lib.nn.ConvTranspose1d(3, 5, 2), None),
                                      (lambda lib: lib.nn.Embedding(7, 3), None)])
def test_spectral_norm_dims(torch, make, dim):
    def fn(lib):
        m = lib.nn.utils.spectral_norm(make(lib), dim=dim, eps=1e-8)
        hook = list(m._forward_pre_hooks.values())[0]
        return hook.dim, hook.eps, m.weight_u, m.weight_v, m.weight
    compare(torch, fn, rtol=1e-5)


def test_spectral_norm_state_dict_metadata_and_round_trip(torch):
    def fn(lib):
        a = lib.nn.utils.spectral_norm(lib.nn.Linear(5, 3))
        a(lib.randn(2, 5))
        sd = a.state_dict()
        b = lib.nn.utils.spectral_norm(lib.nn.Linear(5, 3))
        result = str(b.load_state_dict(sd))
        b.eval()
        return list(sd), dict(sd._metadata), result, b.weight_v, b(lib.ones(1, 5))
    compare(torch, fn, rtol=1e-5)


def test_spectral_norm_loads_an_old_state_dict(torch):
    def fn(lib):   # a tall weight: W^T W is invertible (for a wide one PyTorch's pinverse returns noise)
        a = lib.nn.utils.spectral_norm(lib.nn.Linear(3, 5))
        a.eval()
        a(lib.randn(2, 3))
        sd = a.state_dict()
        sd["weight"] = a.weight.detach().clone()   # version 0 kept weight, not weight_v
        del sd["weight_v"]
        sd._metadata[""]["spectral_norm"]["weight.version"] = 0
        b = lib.nn.utils.spectral_norm(lib.nn.Linear(3, 5))
        b.load_state_dict(sd)
        b.eval()
        return b.weight_v, b(lib.ones(1, 3)), a(lib.ones(1, 3))
    compare(torch, fn, rtol=1e-4)


def test_remove_spectral_norm(torch):
    def fn(lib):
        m = lib.nn.utils.spectral_norm(lib.nn.Linear(5, 3))
        m(lib.randn(2, 5))
        lib.nn.utils.remove_spectral_norm(m)
        sd = m.state_dict()
        return names(m), m.weight, type(m.weight).__name__, dict(sd._metadata), len(m._state_dict_hooks)
    compare(torch, fn, rtol=1e-6)


def test_remove_spectral_norm_leaves_the_load_hook_as_pytorch_does(torch):
    def fn(lib):
        m = lib.nn.utils.remove_spectral_norm(lib.nn.utils.spectral_norm(lib.nn.Linear(5, 3)))
        m.load_state_dict(m.state_dict())
    raises_same(torch, fn)


def test_spectral_norm_errors(torch):
    def twice(lib):
        lib.nn.utils.spectral_norm(lib.nn.utils.spectral_norm(lib.nn.Linear(3, 2)))
    raises_same(torch, twice)
    raises_same(torch, lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(3, 2), n_power_iterations=0))
    raises_same(torch, lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(3, 2, bias=False), name="bias"))
    raises_same(torch, lambda lib: lib.nn.utils.spectral_norm(lib.nn.LazyLinear(2)))
    raises_same(torch, lambda lib: lib.nn.utils.remove_spectral_norm(lib.nn.Linear(3, 2)))


# ---------------------------------------------------------------- skip_init
def test_skip_init_leaves_the_random_stream_alone(torch):
    def fn(lib):
        m = lib.nn.utils.skip_init(lib.nn.Linear, 5, 3, bias=True)
        b = lib.nn.utils.skip_init(lib.nn.BatchNorm1d, num_features=4, dtype=lib.float64)
        return ([(n, tuple(p.shape), str(p.dtype), type(p).__name__, p.requires_grad)
                 for n, p in list(m.named_parameters()) + list(b.named_parameters()) + list(b.named_buffers())],
                m.training, lib.rand(4))
    compare(torch, fn)


def test_skip_init_errors(torch):
    raises_same(torch, lambda lib: lib.nn.utils.skip_init(lib.nn.ReLU))
    raises_same(torch, lambda lib: lib.nn.utils.skip_init(int))


# ---------------------------------------------------------------- fusion
def bn_eval(lib, n, affine=True, dims=2):
    bn = (lib.nn.BatchNorm2d if dims == 2 else lib.nn.BatchNorm1d)(n, affine=affine)
    bn.train()
    for _ in range(3):   # running statistics away from 0 / 1
        bn(lib.randn(4, n, 3, 3) * 2 + 1 if dims == 2 else lib.randn(8, n) * 3 - 1)
    if affine:
        with lib.no_grad():
            bn.weight.uniform_(0.5, 2.0)
            bn.bias.uniform_(-1, 1)
    return bn.eval()


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_fuse_conv_bn_eval(torch, bias, affine):
    def fn(lib):
        conv = lib.nn.Conv2d(3, 4, 3, bias=bias).eval()
        bn = bn_eval(lib, 4, affine)
        fused = lib.nn.utils.fuse_conv_bn_eval(conv, bn)
        x = lib.randn(2, 3, 6, 6)
        return (fused.weight, fused.bias, fused(x), bn(conv(x)), type(fused.bias).__name__, fused is conv,
                conv.bias is None, fused.bias.requires_grad)
    got, want = both(torch, fn)
    assert_same(got, want, rtol=1e-5)
    np.testing.assert_allclose(to_np(got[2]), to_np(got[3]), rtol=1e-4, atol=1e-5)


def test_fuse_conv_transpose_bn_and_weights(torch):
    def fn(lib):
        conv = lib.nn.ConvTranspose2d(3, 4, 2).eval()
        bn = bn_eval(lib, 4)
        fused = lib.nn.utils.fuse_conv_bn_eval(conv, bn, transpose=True)
        w, b = lib.nn.utils.fuse_conv_bn_weights(conv.weight, None, bn.running_mean, bn.running_var, bn.eps,
                                                 None, None, True)
        x = lib.randn(1, 3, 4, 4)
        return fused.weight, fused.bias, fused(x), w, b, type(w).__name__, b.requires_grad
    compare(torch, fn, rtol=1e-5)


def test_fuse_linear_bn_eval(torch):
    def fn(lib):
        lin = lib.nn.Linear(5, 4).eval()
        bn = bn_eval(lib, 4, dims=1)
        one = bn_eval(lib, 1, dims=1)
        fused = lib.nn.utils.fuse_linear_bn_eval(lin, bn)
        fused1 = lib.nn.utils.fuse_linear_bn_eval(lin, one)
        w, b = lib.nn.utils.fuse_linear_bn_weights(lin.weight.double(), None, bn.running_mean, bn.running_var,
                                                   bn.eps, bn.weight, bn.bias)
        x = lib.randn(3, 5)
        return fused.weight, fused.bias, fused(x), fused1.weight, w, b, bn(lin(x))
    got, want = both(torch, fn)
    assert_same(got, want, rtol=1e-5)
    np.testing.assert_allclose(to_np(got[2]), to_np(got[6]), rtol=1e-4, atol=1e-5)


def test_fusion_errors(torch):
    raises_same(torch, lambda lib: lib.nn.utils.fuse_conv_bn_eval(lib.nn.Conv2d(1, 2, 1), lib.nn.BatchNorm2d(2)))
    raises_same(torch, lambda lib: lib.nn.utils.fuse_linear_bn_eval(lib.nn.Linear(1, 2).eval(),
                                                                    lib.nn.BatchNorm1d(2)))
    raises_same(torch, lambda lib: lib.nn.utils.fuse_linear_bn_eval(lib.nn.Linear(1, 2).eval(),
                                                                    lib.nn.BatchNorm1d(3).eval()))
    raises_same(torch, lambda lib: lib.nn.utils.fuse_conv_bn_eval(
        lib.nn.Conv2d(1, 2, 1).eval(), lib.nn.BatchNorm2d(2, track_running_stats=False).eval()))


# ---------------------------------------------------------------- stateless.functional_call
def test_stateless_functional_call(torch):
    def fn(lib):
        m = lib.nn.Linear(3, 2)
        params = {"weight": lib.ones(2, 3), "bias": lib.zeros(2)}
        x = lib.randn(4, 3)
        a = lib.nn.utils.stateless.functional_call(m, params, x)
        b = lib.nn.utils.stateless.functional_call(m, {"bias": lib.ones(2)}, (x,), {})
        return a, b, m.weight
    compare(torch, fn, rtol=1e-6)


def test_stateless_functional_call_warns(torch):
    msgs = []
    for lib in (pt, torch):
        with pytest.warns(FutureWarning) as record:
            lib.nn.utils.stateless.functional_call(lib.nn.Linear(1, 1), {}, lib.ones(1, 1))
        msgs.append(str(record[0].message))
    assert msgs[0] == msgs[1]


# ---------------------------------------------------------------- memory format of conv weights
@pytest.mark.parametrize("fmt", ["channels_last", "contiguous_format"])
def test_convert_conv2d_weight_memory_format(torch, fmt):
    def fn(lib):
        m = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 2), lib.nn.Sequential(lib.nn.ConvTranspose2d(4, 2, 3)),
                              lib.nn.Conv1d(2, 2, 2), lib.nn.Conv3d(1, 2, 2))
        w = m[0].weight
        out = lib.nn.utils.convert_conv2d_weight_memory_format(m, getattr(lib, fmt))
        return [p.stride() for p in m.parameters()], out is m, m[0].weight is w, m[0].weight
    compare(torch, fn)


def test_convert_conv3d_weight_memory_format(torch):
    def fn(lib):
        m = lib.nn.Sequential(lib.nn.Conv3d(1, 2, 2), lib.nn.Conv2d(3, 4, 2))
        lib.nn.utils.convert_conv3d_weight_memory_format(m, lib.channels_last_3d)
        return [p.stride() for p in m.parameters()], m[0].weight
    compare(torch, fn)


def test_convert_memory_format_errors(torch):
    raises_same(torch, lambda lib: lib.nn.utils.convert_conv2d_weight_memory_format(lib.nn.Conv2d(1, 2, 2),
                                                                                    lib.preserve_format))
    raises_same(torch, lambda lib: lib.nn.utils.convert_conv2d_weight_memory_format(lib.nn.Conv2d(1, 2, 2),
                                                                                    lib.channels_last_3d))
    raises_same(torch, lambda lib: lib.nn.utils.convert_conv3d_weight_memory_format(lib.nn.Conv3d(1, 2, 2),
                                                                                    lib.channels_last))


def test_public_names(torch):
    assert sorted(pt.nn.utils.__all__) == sorted(torch.nn.utils.__all__)


# ---------------------------------------------------------------- on each device (CUDA: a GPU or the stand-in)
def test_on_each_device(device):
    pt.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        wn = pt.nn.utils.weight_norm(pt.nn.Linear(4, 3).to(device))
    sn = pt.nn.utils.spectral_norm(pt.nn.Conv2d(2, 3, 2).to(device))
    x = pt.randn(2, 4, device=device)
    (wn(x).sum() + sn(pt.randn(1, 2, 4, 4, device=device)).sum()).backward()
    assert wn.weight_g.grad.device.type == sn.weight_orig.grad.device.type == sn.weight_u.device.type == device
    with pt.no_grad():   # the old API starts from random vectors: let the power iteration converge
        for _ in range(30):
            sn(pt.zeros(1, 2, 4, 4, device=device))
    sigma = np.linalg.svd(to_np(sn.weight_orig).reshape(3, -1), compute_uv=False)[0]
    np.testing.assert_allclose(to_np(sn.weight), to_np(sn.weight_orig) / sigma, rtol=1e-3)
    conv, bn = pt.nn.Conv2d(2, 3, 2).to(device).eval(), pt.nn.BatchNorm2d(3).to(device).eval()
    fused = pt.nn.utils.fuse_conv_bn_eval(conv, bn)
    z = pt.randn(1, 2, 4, 4, device=device)
    np.testing.assert_allclose(to_np(fused(z)), to_np(bn(conv(z))), rtol=1e-5, atol=1e-6)
    skipped = pt.nn.utils.skip_init(pt.nn.Linear, 3, 2, device=device)
    assert skipped.weight.device.type == device
