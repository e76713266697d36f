"""DLPack: tensors cross to and from other libraries without a copy (issue 10)."""
import numpy as np
import pytest

import pedatorch as pt
from pedatorch.utils.dlpack import from_dlpack, to_dlpack

torch = pytest.importorskip("torch")


def test_from_torch_shares_memory_and_strides():
    t = torch.arange(6.).reshape(2, 3)[:, ::2]
    p = pt.from_dlpack(t)
    assert p.shape == (2, 2) and p.stride() == t.stride() and p.dtype == pt.float32
    t[0, 0] = 100
    assert p[0, 0].item() == 100


def test_to_torch_shares_memory():
    q = pt.arange(6.).reshape(2, 3)
    t = torch.from_dlpack(q)
    q[1, 1] = -5
    assert t[1, 1].item() == -5


@pytest.mark.parametrize("name", ["float16", "float64", "bool", "complex64", "int8", "uint8", "int64"])
def test_dtypes_both_ways(name):
    t = torch.ones(3, dtype=getattr(torch, name))
    assert pt.from_dlpack(t).dtype == getattr(pt, name)
    assert torch.from_dlpack(pt.ones(3, dtype=getattr(pt, name))).dtype == getattr(torch, name)


def test_legacy_capsules():
    t = torch.arange(4.)
    p = from_dlpack(torch.utils.dlpack.to_dlpack(t))
    t[2] = 9
    assert p.tolist() == [0., 1., 9., 3.]
    back = torch.utils.dlpack.from_dlpack(to_dlpack(pt.arange(3.)))
    assert back.tolist() == [0., 1., 2.]
    cap = torch.utils.dlpack.to_dlpack(torch.ones(2))
    pt.from_dlpack(cap)
    with pytest.raises(RuntimeError, match="consumed only once"):
        pt.from_dlpack(cap)


def test_numpy_and_errors():
    a = np.arange(3.)
    p = pt.from_dlpack(a)
    a[0] = 7
    assert p[0].item() == 7
    with pytest.raises(BufferError, match="require gradient"):
        pt.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(RuntimeError, match="bfloat16"):
        pt.from_dlpack(torch.ones(2, dtype=torch.bfloat16))
