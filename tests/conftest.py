"""Shared test helpers.

``pt`` is pedatorch; ``torch`` is real PyTorch, only where installed (tests that
need it take the ``torch`` fixture and are skipped cleanly without it).
"""
import numpy as np
import pytest

import pedatorch as pt
from pedatorch.backend import to_host, standin, cuda_available


@pytest.fixture(params=["cpu", "cuda"])
def device(request):
    """Each device test runs on the CPU and on CUDA: a real GPU where cupy finds one (``make gpu-check``),
    else the stand-in backend (numpy inside, cupy's manners outside), so that the CUDA path runs in CI."""
    if request.param == "cpu":
        yield "cpu"
        return
    real = cuda_available()
    if not real:
        standin.enable()
    try:
        yield "cuda"
    finally:
        if not real:
            standin.disable()


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def to_np(t):
    """A numpy copy of a pedatorch or torch tensor (or a number)."""
    if hasattr(t, "detach"):
        t = t.detach()
    if hasattr(t, "_data"):
        return np.array(to_host(t._data))
    if hasattr(t, "numpy"):
        return t.cpu().numpy().copy()
    return np.asarray(t)


def assert_close(ours, theirs, rtol=1e-5, atol=1e-6, check_dtype=True):
    """Same shape, (optionally) same dtype name, values close."""
    a, b = to_np(ours), to_np(theirs)
    assert a.shape == b.shape, f"shape {a.shape} != {b.shape}"
    if check_dtype:
        assert str(a.dtype) == str(b.dtype), f"dtype {a.dtype} != {b.dtype}"
    np.testing.assert_allclose(a.astype(np.float64) if a.dtype.kind != "c" else a,
                               b.astype(np.float64) if b.dtype.kind != "c" else b, rtol=rtol, atol=atol,
                               equal_nan=True)


def pair(torch, data, dtype="float64", requires_grad=False):
    """The same data as a pedatorch tensor and a torch tensor."""
    arr = np.array(data, dtype=dtype)
    a = pt.tensor(arr, requires_grad=requires_grad)
    b = torch.tensor(arr, requires_grad=requires_grad)
    return a, b


def gradcheck(fn, *inputs, **kw):
    """pedatorch's gradcheck on float64 copies of ``inputs`` (arrays or tensors)."""
    ts = tuple(pt.tensor(np.asarray(x, dtype=np.float64), requires_grad=True) if not isinstance(x, pt.Tensor)
               else x for x in inputs)
    return pt.autograd.gradcheck(fn, ts, **kw)


def error_of(fn):
    """``(class name, message)`` of what ``fn()`` raises, or None: what a test compares with PyTorch's."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        return type(e).__name__, str(e)
    return None
