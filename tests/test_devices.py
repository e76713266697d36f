"""Tensors on devices: the device API (pedatorch.cuda), moving between devices, factories that allocate on
the target device, PyTorch's errors when devices mix, and core ops giving the same values on every device.
"cuda" is a real GPU where there is one, else the stand-in backend (see conftest's ``device`` fixture)."""
import numpy as np
import pytest

import pedatorch as pt
from pedatorch.backend import cuda_available, standin, to_host


def test_no_gpu_means_no_error_and_no_warning(recwarn):
    assert isinstance(pt.cuda.is_available(), bool)
    if not pt.cuda.is_available():
        assert pt.cuda.device_count() == 0
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            pt.zeros(2, device="cuda")
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            pt.ones(2).cuda()
    assert not [w for w in recwarn.list if "cuda" in str(w.message).lower()]


def test_import_does_not_import_cupy():
    import subprocess
    import sys
    code = "import sys, pedatorch; pedatorch.cuda.is_available(); print('cupy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    # is_available() may import cupy where it is installed; import pedatorch alone never does
    code = "import sys, pedatorch; print('cupy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"
    assert out.strip() in ("True", "False")


def test_device_api(device):
    if device == "cpu":
        return
    assert pt.cuda.is_available() and pt.cuda.device_count() >= 1
    assert pt.cuda.current_device() == 0
    assert isinstance(pt.cuda.get_device_name(), str)
    props = pt.cuda.get_device_properties(0)
    assert props.name == pt.cuda.get_device_name(0)
    with pt.cuda.device(0):
        assert pt.cuda.current_device() == 0
    pt.cuda.synchronize()
    start, end = pt.cuda.Event(enable_timing=True), pt.cuda.Event(enable_timing=True)
    start.record()
    pt.ones(10, device="cuda").sum()
    end.record()
    end.synchronize()
    assert start.elapsed_time(end) >= 0
    with pytest.raises(RuntimeError, match="enable_timing"):
        pt.cuda.Event().elapsed_time(end)
    s = pt.cuda.Stream()
    with pt.cuda.stream(s):
        assert pt.cuda.current_stream() is s
    s.synchronize()
    assert pt.cuda.memory_allocated() >= 0 and pt.cuda.max_memory_allocated() >= pt.cuda.memory_allocated()
    pt.cuda.reset_peak_memory_stats()
    pt.cuda.empty_cache()
    assert pt.accelerator.is_available() or standin  # (the stand-in counts as an accelerator in tests)


def test_moving_between_devices(device):
    x = pt.arange(6.).reshape(2, 3)
    y = x.to(device)
    assert y.device.type == device and y.is_cuda == (device == "cuda")
    assert y.to(device) is y
    np.testing.assert_array_equal(y.cpu().numpy(), x.numpy())
    z = y.t()                              # a view keeps its device and its strides
    assert z.device.type == device and z.stride() == x.t().stride()
    if device == "cuda":
        assert y.cuda() is y and y.get_device() == 0 and str(y.device) == "cuda:0"
        with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
            y.numpy()


@pytest.mark.parametrize("factory", ["zeros", "ones", "empty", "full", "arange", "eye", "randn", "rand",
                                     "tensor", "linspace", "zeros_like", "randint"])
def test_factories_allocate_on_the_device(device, factory):
    make = {"zeros": lambda: pt.zeros(2, 3, device=device), "ones": lambda: pt.ones(2, device=device),
            "empty": lambda: pt.empty(2, device=device), "full": lambda: pt.full((2,), 7., device=device),
            "arange": lambda: pt.arange(5, device=device), "eye": lambda: pt.eye(3, device=device),
            "randn": lambda: pt.randn(4, device=device), "rand": lambda: pt.rand(4, device=device),
            "tensor": lambda: pt.tensor([1., 2.], device=device),
            "linspace": lambda: pt.linspace(0, 1, 5, device=device),
            "zeros_like": lambda: pt.zeros_like(pt.ones(2, device=device)),
            "randint": lambda: pt.randint(0, 5, (3,), device=device)}
    t = make[factory]()
    assert t.device.type == device
    assert type(t._data).__name__ == ("ndarray" if device == "cpu" else type(t._data).__name__)


def test_mixing_devices_raises_pytorchs_error(device):
    if device == "cpu":
        return
    a, b = pt.ones(2, device="cuda"), pt.ones(2)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device, but found at least "
                                           "two devices, cuda:0 and cpu!"):
        a + b


OPS = {
    "arith": lambda x, y: (x * y + 1) / (y.abs() + 1) - x ** 2,
    "unary": lambda x, y: x.exp() + x.sin() + x.tanh() + x.sigmoid() + x.relu(),
    "reduce": lambda x, y: x.sum() + x.mean(0).sum() + x.max() + x.var() + x.norm(),
    "matmul": lambda x, y: x @ y.t(),
    "shape": lambda x, y: x.t().reshape(-1)[::2].unsqueeze(0).expand(2, -1).contiguous(),
    "index": lambda x, y: x[x > 0] .sum() + x[:, [0, 2]].sum() + x.gather(1, (y > 0).long()).sum(),
    "softmax": lambda x, y: pt.nn.functional.log_softmax(x, -1) + x.softmax(0),
    "where": lambda x, y: pt.where(x > y, x, y).clamp(-0.5, 0.5),
    "cat": lambda x, y: pt.cat([x, y], 0).sum(1),
}


@pytest.mark.parametrize("op", sorted(OPS))
def test_ops_agree_across_devices(device, op):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    want = OPS[op](pt.tensor(a), pt.tensor(b))
    x = pt.tensor(a, device=device, requires_grad=True)
    y = pt.tensor(b, device=device)
    got = OPS[op](x, y)
    assert got.device.type == device
    np.testing.assert_allclose(to_host(got.detach()._data), want.numpy(), rtol=1e-12, atol=1e-12)
    if got.requires_grad:
        got.sum().backward()
        assert x.grad.device.type == device


def test_dlpack_with_cupy_and_torch_cuda_shares_memory():
    """On a real GPU: cupy arrays and PyTorch CUDA tensors come in and go out through DLPack without a copy
    (writes show on both sides). Skipped without one (the stand-in has no DLPack device of its own)."""
    from pedatorch.backend import cuda_backend
    if not cuda_available() or cuda_backend().name != "cupy":
        pytest.skip("needs a real GPU (make gpu-check)")
    import cupy
    c = cupy.arange(6, dtype=cupy.float32)
    t = pt.from_dlpack(c)
    assert t.device.type == "cuda" and t.data_ptr() == c.data.ptr
    t[0] = 42.0
    assert float(c[0]) == 42.0
    back = cupy.from_dlpack(t)
    assert back.data.ptr == c.data.ptr
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    tt = torch.arange(4.0, device="cuda")
    p = pt.from_dlpack(tt)
    assert p.device.type == "cuda" and p.data_ptr() == tt.data_ptr()
    p.add_(1)
    assert tt.tolist() == [1.0, 2.0, 3.0, 4.0]
    t2 = torch.from_dlpack(p)
    assert t2.is_cuda and t2.data_ptr() == p.data_ptr()


def test_cuda_memory_stats_follow_allocations(device):
    if device == "cpu":
        return
    from pedatorch.backend import cuda_backend
    if cuda_backend().name != "cupy":
        return   # the stand-in counts nothing
    pt.cuda.empty_cache()
    pt.cuda.reset_peak_memory_stats()
    base = pt.cuda.memory_allocated()
    x = pt.empty(1 << 20, device="cuda")          # 4 MiB
    assert pt.cuda.memory_allocated() >= base + 4 * 2**20
    peak = pt.cuda.max_memory_allocated()
    assert peak >= base + 4 * 2**20
    del x
    assert pt.cuda.memory_allocated() <= base + 1024
    assert pt.cuda.max_memory_allocated() == peak
    reserved = pt.cuda.memory_reserved()
    pt.cuda.empty_cache()
    assert pt.cuda.memory_reserved() <= reserved and pt.cuda.max_memory_reserved() >= reserved
