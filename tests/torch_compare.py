"""Running one snippet under both libraries and comparing what came out (tests import this)."""
import warnings

import numpy as np


def outcome(fn, lib):
    """fn(lib)'s result as (values as float64 numpy, dtype name, strides), or the (class, message) it raised."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # (PyTorch warns about a list index, ...)
            r = fn(lib)
    except Exception as e:   # noqa: BLE001 (any class: it is compared)
        return type(e).__name__, str(e)
    return r.detach().double().numpy(), str(r.dtype).split(".")[-1], r.stride()   # (double: bfloat16 too)


def same(fn, pedatorch, torch, strides=False, signed_zeros=False):
    """fn gives the same values and dtype under both (or raises the same class and message); optionally the
    same strides and the same signs of zeros."""
    got, want = outcome(fn, pedatorch), outcome(fn, torch)
    if isinstance(want[0], str):
        assert got == want
        return
    assert not isinstance(got[0], str), got
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] == want[1]
    if strides:
        assert got[2] == want[2]
    if signed_zeros:
        real = ~np.isnan(want[0])   # (a NaN's sign bit is no value)
        assert np.array_equal(np.signbit(got[0])[real], np.signbit(want[0])[real])
