"""Indexing / scatter round p3 (compat 54): each fix compared with PyTorch."""
import warnings

import pytest

import pedatorch as torch

pt = pytest.importorskip("torch")


def _run(fn):
    """The result as a list, or the error's class name and message."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn().tolist()
        except Exception as e:  # noqa: BLE001 - the class and message are what is compared
            return type(e).__name__, str(e)


@pytest.mark.parametrize("reduce", ["max", "min"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_takes_legacy_max_min(reduce, include_self):
    """scatter_reduce's kernel takes "max" / "min" as amax / amin; their backward refuses them."""
    def run(lib):
        x = lib.tensor([4.0, 2.0, 1.0], requires_grad=True)
        out = x.scatter_reduce(0, lib.tensor([0, 0, 1]), lib.tensor([1.0, 5.0, 3.0]), reduce,
                               include_self=include_self)
        ints = lib.tensor([4, 2, 1]).scatter_reduce(0, lib.tensor([0, 0, 1]), lib.tensor([1, 5, 3]), reduce,
                                                    include_self=include_self)
        return out.tolist(), ints.tolist(), _run(lambda: out.sum().backward())
    assert run(torch) == run(pt)


@pytest.mark.parametrize("dtype", ["bool", "complex64"])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_dtypes_without_kernel(dtype, reduce):
    """No bool mean, no complex amax / amin (NotImplementedError naming ATen's kernel)."""
    def run(lib):
        dt = getattr(lib, dtype)
        return [_run(lambda: lib.ones(3, 2, dtype=dt).scatter_reduce(0, lib.tensor([[0, 0]]),
                                                                       lib.ones(1, 2, dtype=dt), reduce,
                                                                       include_self=inc)) for inc in (True, False)]
    assert run(torch) == run(pt)


@pytest.mark.parametrize("shape", [(3,), (3, 2)])
@pytest.mark.parametrize("dtype", ["bool", "complex64", "int64"])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_dtypes_without_kernel(shape, dtype, reduce):
    def run(lib):
        dt = getattr(lib, dtype)
        return [_run(lambda: lib.ones(shape, dtype=dt).index_reduce(0, lib.tensor([0, 0]),
                                                                      lib.ones((2,) + shape[1:], dtype=dt), reduce,
                                                                      include_self=inc)) for inc in (True, False)]
    assert run(torch) == run(pt)


@pytest.mark.parametrize("values", [[[0.0, 0.0], [0.0, 0.0]], [[0.0, 1.0], [2.0, 0.0]], [0.0, 0.0, 0.0], 1.0, 0.0])
def test_nonzero_strides_when_empty(values):
    """nonzero is the transpose of an (ndim, count) array: strides (1, count), also with no hits."""
    def run(lib):
        x = lib.tensor(values)
        return lib.nonzero(x).shape, lib.nonzero(x).stride(), lib.argwhere(x).stride()
    assert run(torch) == run(pt)
