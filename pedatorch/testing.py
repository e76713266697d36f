"""``pedatorch.testing``: ``assert_close`` as ``torch.testing`` has it (what tutorials and tests call).

    pedatorch.testing.assert_close(actual, expected)          # default tolerances by dtype
    pedatorch.testing.assert_close(actual, expected, rtol=0, atol=0)

Close means ``|actual - expected| <= atol + rtol * |expected|`` elementwise (NaN equal only with
``equal_nan=True``); shapes and dtypes must match first. Sequences and mappings are compared item by
item, and the message says which item failed, in PyTorch's words.
"""
import collections.abc
import math
import numbers
import warnings

import numpy as np

from ._warnings import user_stacklevel
from ._dtype import bool as _bool, finfo, iinfo, int64, get_default_dtype, promote_types
from ._tensor import Tensor
from .ops.creation import empty
from .ops.random import randint
from .ops.shape import view_as_real
from .autograd.gradcheck import use_make_tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]

# PyTorch's default (rtol, atol) per dtype; integers and bool compare exactly
_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raise AssertionError unless ``actual`` and ``expected`` are close (tensors, numbers, or nested
    sequences/mappings of them)."""
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    _compare(actual, expected, "", dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device,
                                        check_dtype=check_dtype, check_stride=check_stride, msg=msg))


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """The deprecated form (NaN equal by default)."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead.", FutureWarning, stacklevel=user_stacklevel())
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)


def _low_high(low, high, dtype, lowest, highest, default_low, default_high):
    """make_tensor's bounds: the defaults filled in, checked, and clamped to what ``dtype`` holds."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and (dtype.is_floating_point or dtype.is_complex):
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is deprecated "
                      "since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.", FutureWarning, stacklevel=user_stacklevel())
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
                         f"supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if not (dtype.is_floating_point or dtype.is_complex):
        return math.ceil(low), math.ceil(high)
    return low, high


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of ``shape`` filled with random values in [low, high) (by default [-9, 9), for integers
    [-9, 10)), drawn as PyTorch draws them (``uniform_`` of an empty tensor, ``randint``), so that a seeded
    program gets PyTorch's values. ``noncontiguous``: every second element of a tensor twice as wide."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = tuple(shape[0])
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    floating = dtype.is_floating_point or dtype.is_complex
    if requires_grad and not floating:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is _bool:
        low, high = _low_high(low, high, dtype, 0, 2, 0, 2)
        result = randint(low, high, shape, device=device, dtype=dtype)
    elif not floating:
        info = iinfo(dtype)
        low, high = _low_high(low, high, dtype, info.min, info.max + (1 if dtype is not int64 else 0), -9, 10)
        result = randint(low, high, shape, device=device, dtype=dtype)
    else:
        big = finfo(dtype).max
        low, high = _low_high(low, high, dtype, -big, big, -9, 9)
        result = empty(shape, device=device, dtype=dtype)
        target = view_as_real(result) if dtype.is_complex else result
        if high - low >= big:   # (uniform_ needs to - from to be finite: drawn at half the range, then doubled)
            target.uniform_(low / 2, high / 2).mul_(2)
        else:
            target.uniform_(low, high)
    if noncontiguous:
        result = result[..., 1::2]   # (offset by one, to catch offset bugs too)
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if not floating else finfo(dtype).tiny
    if floating:
        result.requires_grad = requires_grad
    return result


def _compare(actual, expected, where, opts):
    if isinstance(actual, Tensor) or isinstance(expected, Tensor):
        return _compare_tensors(actual, expected, where, opts)
    if isinstance(actual, numbers.Number) and isinstance(expected, numbers.Number):
        return _compare_numbers(actual, expected, where, opts)
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        if set(actual) != set(expected):
            _fail(f"The keys of the mappings do not match:\n{sorted(actual)} != {sorted(expected)}", where, opts)
        for key in expected:
            _compare(actual[key], expected[key], f"{where}[{key!r}]", opts)
        return
    if isinstance(actual, collections.abc.Sequence) and isinstance(expected, collections.abc.Sequence) \
            and not isinstance(actual, str):
        if len(actual) != len(expected):
            _fail(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", where, opts)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, f"{where}[{i}]", opts)
        return
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")


def _compare_tensors(actual, expected, where, opts):
    for value in (actual, expected):
        if not isinstance(value, Tensor):
            raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and "
                            f"{type(expected)}.")
    for attr, on in (("shape", True), ("device", opts["check_device"]), ("dtype", opts["check_dtype"])):
        a, e = getattr(actual, attr), getattr(expected, attr)
        if on and a != e:
            _fail(f"The values for attribute '{attr}' do not match: {a} != {e}.", where, opts)
    if opts["check_stride"] and actual.stride() != expected.stride():
        _fail(f"The values for attribute 'stride()' do not match: {actual.stride()} != {expected.stride()}.",
              where, opts)
    a, e = actual.detach().cpu(), expected.detach().cpu()
    if a.dtype != e.dtype:
        common = promote_types(a.dtype, e.dtype)
        a, e = a.to(common), e.to(common)
    rtol, atol = opts["rtol"], opts["atol"]
    if rtol is None:
        rtol, atol = _TOLERANCES.get(a.dtype.name, (0.0, 0.0))
    exact = not (a.is_floating_point() or a.is_complex())
    if exact:  # integers and bools: differences in the default float dtype, as PyTorch reports them
        a, e = a.to(get_default_dtype()), e.to(get_default_dtype())
    x, y = a._data, e._data
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        diff = np.abs(x - y)
        close = diff <= atol + rtol * np.abs(y)
        close |= x == y                      # (inf == inf)
        if opts["equal_nan"]:
            close |= np.isnan(x) & np.isnan(y)
        if close.all():
            return
        rel = diff / np.abs(y)
    if x.ndim == 0:  # a 0-dim tensor is reported as a scalar
        return _scalar_failure(x.item(), y.item(), diff.item(), rel.item(), rtol, atol, exact, where, opts)
    bad = ~close
    n_bad, n = int(bad.sum()), bad.size
    worst_abs = _worst(np.where(bad, diff, 0), bad)
    worst_rel = _worst(np.where(bad, rel, 0), bad)
    allowed = (lambda tol: "") if exact else (lambda tol: f" (up to {tol} allowed)")
    lines = [f"Tensor-likes are not {'equal' if exact else 'close'}!", "",
             f"Mismatched elements: {n_bad} / {n} ({100 * n_bad / n:.1f}%)",
             f"Greatest absolute difference: {_num(diff, worst_abs, exact)} at index {worst_abs}{allowed(atol)}",
             f"Greatest relative difference: {_num(rel, worst_rel, False)} at index {worst_rel}{allowed(rtol)}"]
    _fail("\n".join(lines), where, opts)


def _worst(values, bad):
    """The index of the largest value among the mismatches (a NaN counts as the largest)."""
    nan = np.isnan(values) & bad
    flat = int(np.argmax(nan)) if nan.any() else int(np.argmax(np.where(bad, values, -np.inf)))
    return tuple(int(i) for i in np.unravel_index(flat, values.shape)) if values.ndim else ()


def _num(values, index, exact):
    v = values[index].item()
    return int(v) if exact and float(v).is_integer() else v


def _compare_numbers(actual, expected, where, opts):
    rtol, atol = opts["rtol"], opts["atol"]
    if rtol is None:
        rtol, atol = (1e-7, 1e-7) if isinstance(actual, float) or isinstance(expected, float) else (0, 0)
    if actual == expected or (opts["equal_nan"] and actual != actual and expected != expected):
        return
    diff = abs(actual - expected)
    if diff <= atol + rtol * abs(expected):
        return
    rel = diff / abs(expected) if expected else float("inf")
    exact = not (isinstance(actual, float) or isinstance(expected, float))
    _scalar_failure(actual, expected, diff, rel, rtol, atol, exact, where, opts)


def _scalar_failure(actual, expected, diff, rel, rtol, atol, exact, where, opts):
    if exact:
        _fail(f"Scalars are not equal!\n\nExpected {expected} but got {actual}.\nAbsolute difference: {diff}\n"
              f"Relative difference: {rel}", where, opts)
    _fail(f"Scalars are not close!\n\nExpected {expected} but got {actual}.\nAbsolute difference: {diff} (up to "
          f"{atol} allowed)\nRelative difference: {rel} (up to {rtol} allowed)", where, opts)


def _fail(message, where, opts):
    if opts["msg"] is not None:
        raise AssertionError(opts["msg"] if isinstance(opts["msg"], str) else opts["msg"](message))
    if where:
        message += f"\n\nThe failure occurred for item {where}"
    raise AssertionError(message)


use_make_tensor(make_tensor)   # (gradgradcheck's random grad_outputs; autograd sits below this module)
