"""pedatorch.testing: assert_close passes and fails as torch.testing.assert_close does, with its words."""
import pytest

import pedatorch as pt

CASES = {
    "close_fails": lambda lib: lib.testing.assert_close(lib.tensor([1., 2., 3.]), lib.tensor([1., 2.1, 3.])),
    "dtype": lambda lib: lib.testing.assert_close(lib.tensor([1., 2.]), lib.tensor([1., 2.]).double()),
    "shape": lambda lib: lib.testing.assert_close(lib.ones(3), lib.ones(2)),
    "ints": lambda lib: lib.testing.assert_close(lib.tensor([1, 2]), lib.tensor([1, 3])),
    "numbers": lambda lib: lib.testing.assert_close(1.0, 1.1),
    "int_numbers": lambda lib: lib.testing.assert_close(2, 3),
    "nan": lambda lib: lib.testing.assert_close(lib.tensor([float("nan")]), lib.tensor([float("nan")])),
    "nan_equal": lambda lib: lib.testing.assert_close(lib.tensor([float("nan")]), lib.tensor([float("nan")]),
                                                      equal_nan=True),
    "msg": lambda lib: lib.testing.assert_close(lib.ones(2), lib.zeros(2), msg="custom"),
    "sequence": lambda lib: lib.testing.assert_close([lib.ones(2), lib.ones(2)], [lib.ones(2), lib.zeros(2)]),
    "mapping": lambda lib: lib.testing.assert_close({"w": lib.ones(2)}, {"w": lib.zeros(2)}),
    "within_default": lambda lib: lib.testing.assert_close(lib.ones(3), lib.ones(3) + 1e-6),
    "explicit_tolerances": lambda lib: lib.testing.assert_close(lib.ones(2), lib.ones(2) * 1.05, rtol=0.1, atol=0),
    "one_tolerance": lambda lib: lib.testing.assert_close(lib.ones(2), lib.ones(2), rtol=0.1),
    "matrix": lambda lib: lib.testing.assert_close(lib.tensor([[1., 2.], [3., 4.]]), lib.tensor([[1., 2.5], [3., 5.]])),
    "zero_dim": lambda lib: lib.testing.assert_close(lib.tensor(1.), lib.tensor(2.)),
    "half": lambda lib: lib.testing.assert_close(lib.tensor([1., 2.]).half(), lib.tensor([1., 2.1]).half()),
    "bool": lambda lib: lib.testing.assert_close(lib.tensor([True]), lib.tensor([False])),
}


@pytest.mark.parametrize("name", list(CASES))
def test_assert_close_as_torch(torch, name):
    outcome = []
    for lib in (pt, torch):
        try:
            CASES[name](lib)
            outcome.append("ok")
        except Exception as e:  # noqa: BLE001 - the class and the words are what is compared
            outcome.append((type(e).__name__, str(e)))
    assert outcome[0] == outcome[1]


def test_make_tensor():
    t = pt.testing.make_tensor(3, 4, dtype=pt.float32, low=-1, high=1)
    assert t.shape == (3, 4) and t.dtype is pt.float32 and bool(((t >= -1) & (t < 1)).all())
    i = pt.testing.make_tensor((5,), dtype=pt.int64, low=0, high=3, exclude_zero=True)
    assert i.dtype is pt.int64 and bool(((i >= 1) & (i < 3)).all())
    n = pt.testing.make_tensor(2, 3, dtype=pt.float64, noncontiguous=True, requires_grad=True)
    assert not n.is_contiguous() and n.requires_grad
