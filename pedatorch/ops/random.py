"""Random sampling: ``rand``, ``randn``, ``randint``, ``randperm``, ``normal``, ``bernoulli``, ``multinomial``,
``poisson``, the ``*_like`` factories and the in-place ``Tensor.uniform_/normal_/random_/...``.

Each kernel turns the generator's raw 32/64-bit draws into values the way
PyTorch's CPU kernels (ATen) do, so that after the same ``manual_seed`` the
numbers agree bit for bit with PyTorch's on x86-64 Linux.  The recipes:

* ``uniform_(a, b)``: u = 24-bit (float) or 53-bit (double) uniform; value = fma(u, b - a, a);
  a value that rounds to ``b`` becomes ``a``.
* ``normal_`` has two paths (``normal_kernel``):
    - a *contiguous* tensor of >= 16 elements: uniforms, then Box-Muller in blocks of 16 (``u[0:8]``
      give radii, ``u[8:16]`` angles; the first 8 outputs are the cosines, the last 8 the sines).  When
      the size is not a multiple of 16 the last 16 elements are redrawn and recomputed.  float32 draws
      all n uniforms first (so the last n % 16 are drawn, then lost); float16/bfloat16 draw 16 at a time
      into a float buffer and round the results, so they skip those n % 16.  PyTorch computes the blocks
      with the AVX2 routines of ``avx_mathfun.h`` (Cephes polynomials, compiled with fused multiply-adds);
      ``_log256``/``_sincos256`` replay those float32 operations one by one.  float64 uses the same blocks
      (and float32's order of draws) with double uniforms and the C library's ``log/cos/sin``.
    - otherwise (fewer than 16 elements, or not contiguous): the scalar ``normal_distribution<double>``,
      which returns one value of a Box-Muller pair and keeps the other in the generator.
* integers (``random_``, ``randint``): ``(random() % range) + from``, with ``random64()`` when the range
  is >= 2**32 (for 64-bit and floating dtypes).
* float16/bfloat16 results computed in double (the scalar normal path, ``exponential_``, ``cauchy_``,
  ``log_normal_``, ...) or int64 reach the 16-bit type through a float, as C++'s conversions do: two
  roundings (``_c_cast``).
* ``randperm``: Fisher-Yates from the front, ``swap(i, i + random() % (n - i))``.
* ``exponential_``: -log1p(-u) / lambda; ``geometric_``: ceil(log(u) / log1p(-p)); ``cauchy_``:
  fma(sigma, tan(pi (u - 1/2)), median); ``log_normal_``: exp of a scalar-path normal; ``bernoulli``:
  u < p; ``multinomial``: cumulative-sum search (with replacement) or argmax/topk of p / Exp(1)
  (without); ``poisson``: ATen's rejection sampler (Hoermann's PTRS for rate >= 10); ``_standard_gamma``
  and ``_sample_dirichlet``: ATen's Marsaglia-Tsang sampler, one element at a time, its normals from the
  scalar ``normal_distribution<double>`` (which shares the generator's cached Box-Muller spare);
  ``binomial``: ATen's (TensorFlow's) inversion for count * p < 10, BTRS (Hoermann 1993) above.

In-place kernels visit the elements in memory order (as TensorIterator does), so a transposed tensor
gets the same numbers in the same memory cells as in PyTorch.

All of the above is the CPU. On a CUDA device every op draws on the device, from the device's generator
(``pedatorch.cuda._generator``: cupy's ``random.default_rng``, seeded by ``pedatorch.cuda.manual_seed`` and by
``pedatorch.manual_seed``) or from a ``Generator(device='cuda')``, through ``_random.DeviceDraws`` (uniform,
normal, integer, exponential, Poisson and gamma draws); see "on a CUDA device" below. Those numbers are not
PyTorch's (its CUDA kernels use Philox), only their distributions are, and they leave the CPU stream alone.

Known differences from PyTorch: ``bernoulli_(p: float)`` (and so dropout) follows PyTorch's
generic kernel, which PyTorch uses on non-Intel CPUs; on Intel CPUs PyTorch's MKL build draws these from
MKL's own stream instead.  ``multinomial`` without replacement orders tied keys (only zero-weight
categories tie, when more samples than non-zero weights are asked for) by index, PyTorch's ``topk`` in its
own way.
"""
import math
import numbers
import warnings

import numpy as np

from .._warnings import user_stacklevel
from .. import _dtype as D
from .._random import Generator, DeviceDraws, _get_generator, _device_generator, _libm
from .._device import as_device, factory_device
from ..backend import META_BACKEND, device_namespace, namespace, to_host, is_array
from .._tensor import Tensor, preserve_format
from ..autograd.function import ArrayFunction
from ..autograd.grad_mode import _state
from ._util import register, write_out, _type_word, broadcast_shapes_or_raise, shape_str
from .creation import _size_arg, _finish, empty_like
from .._dtype import is_float_np

__all__ = ["rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "poisson", "binomial",
           "rand_like", "randn_like", "randint_like"]

_f32 = np.float32
_f64 = np.float64


# ====================================================================== exact fused multiply-add
# PyTorch's kernels are compiled with FMA contraction: ``a * b + c`` is rounded once.  numpy has no fma,
# so we build one: the product exactly (as two doubles), the sum exactly (TwoSum), and a final addition
# rounded to odd first so that the last rounding to nearest is the only one that counts.

def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _round_to_odd(s, err):
    """Where ``s`` is inexact (err != 0) and its last bit is even, step to the odd neighbour towards err."""
    fix = (err != 0) & ((s.view(np.int64) & 1) == 0)
    if fix.any():
        s = np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return s


def _fma64(a, b, c):
    """Correctly rounded a * b + c in float64 (arrays or scalars)."""
    xp = namespace(a, b, c)
    a, b, c = xp.broadcast_arrays(xp.asarray(a, _f64), xp.asarray(b, _f64), xp.asarray(c, _f64))
    p = a * b
    t = 134217729.0 * a                       # Veltkamp split: a = ah + al, 26 bits each
    ah = t - (t - a)
    al = a - ah
    t = 134217729.0 * b
    bh = t - (t - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl     # a * b = p + e exactly
    th, tl = _two_sum(c, p)
    v, verr = _two_sum(tl, e)
    out = th + _round_to_odd(xp.asarray(v), verr)
    bad = ~np.isfinite(out) | ~np.isfinite(p)
    if bad.any():
        out = np.where(bad, p + c, out)
    return out


def _fma32_exact(a, b, c):
    """Correctly rounded a * b + c for float32 operands (the product is exact in float64)."""
    xp = namespace(a, b, c)
    p = xp.asarray(a, _f64) * xp.asarray(b, _f64)
    s, err = _two_sum(p, xp.asarray(c, _f64))
    return _round_to_odd(xp.asarray(s, _f64), err).astype(_f32)


def _to64(x):
    """float32 arrays to float64 (numpy mixes dtypes in an operation much more slowly); others as they are."""
    return x.astype(_f64) if is_array(x) and x.dtype != _f64 else x


_HALFWAY = np.int64(-1 << 63)          # 1 << 28 in the low 29 bits, shifted to the top: int64's minimum
_TINY32 = _f32(2.0 ** -126)            # below this float32 is subnormal (a coarser grid)


def _fma32(a, b, c):
    """Correctly rounded a * b + c for float32 arrays: what one FMA instruction computes.

    The fast way: a * b is exact in float64 (24 + 24 bits fit in 53), so a * b + c in float64 rounds
    only once before the rounding to float32.  Rounding twice goes wrong only where the float64 sum
    lands exactly halfway between two float32 numbers (its low 29 bits are 1 << 28), or where float32
    is subnormal; the few such elements (zeros included, harmlessly) are redone by ``_fma32_exact``.
    """
    s = _to64(a) * _to64(b)
    s += _to64(c)
    r = s.astype(_f32)
    if isinstance(r, np.generic):   # (0-dim operands give a numpy scalar, which takes no r[redo] = ...)
        r = namespace(r).asarray(r)
    # (an empty result has nothing to redo, and min() of nothing raises)
    bits = s.view(np.int64)
    if r.size and ((bits << 35).min() == _HALFWAY or np.abs(r).min() <= _TINY32):
        redo = ((bits << 35) == _HALFWAY) | (np.abs(r) <= _TINY32)
        a, b, c = np.broadcast_arrays(a, b, c)
        r[redo] = _fma32_exact(a[redo], b[redo], c[redo])
    return r


# ====================================================================== avx_mathfun.h, replayed in float32

_LOG_P = [_f32(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                            1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                            3.3333331174E-1)]
_MIN_NORM = _f32(np.finfo(_f32).tiny)         # 0x00800000: the smallest normal float32


def _log256(x):
    """log256_ps: split x = m * 2**e, m in [sqrt(1/2), sqrt(2)), and a degree-9 polynomial in m - 1."""
    x = np.maximum(x, _MIN_NORM)
    bits = x.view(np.int32)
    e = ((bits >> 23) - 127).astype(_f32) + _f32(1)
    x = ((bits & ~0x7f800000) | 0x3f000000).view(_f32)    # mantissa in [0.5, 1)
    small = (x < _f32(0.707106781186547524)).astype(_f32)    # 1.0 where m < sqrt(1/2), else 0.0
    tmp = x * small
    x = x - _f32(1)
    e = e - small
    x = x + tmp
    z = x * x
    # The polynomial's fused multiply-adds need no care: x is a multiple of 2**-24 with |x| < 0.42 and
    # every partial sum y has |y| > 2**-5, so y * x + p takes at most 52 bits and is exact in float64;
    # its one rounding, to float32, is the fma's.
    x64 = x.astype(_f64)
    y = np.full_like(x64, _LOG_P[0])
    for p in _LOG_P[1:]:
        y = (y * x64 + p).astype(_f32).astype(_f64)
    y = y.astype(_f32) * x
    y = _fma32(y, z, e * _f32(-2.12194440e-4))
    # The last two fused multiply-adds take z * 0.5 and e * 0.693359375 (e a small integer, the
    # constant 9 bits long): exact products, so each is a plain float32 addition.
    y = y - z * _f32(0.5)
    x = x + y
    return x + e * _f32(0.693359375)


def _sincos256(x):
    """sincos256_ps for 0 <= x < 2 pi: reduce by multiples of pi/4 (in three parts), then two polynomials."""
    j = (x * _f32(1.27323954473516)).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(_f32)
    # x - j pi/4 with pi/4 split in three (Cody-Waite).  j <= 8, and the first two parts are 8 and 11
    # bits long, so their products are exact and those fused multiply-adds plain additions.
    x = x + y * _f32(-0.78515625)
    x = x + y * _f32(-2.4187564849853515625e-4)
    x = _fma32(y, _f32(-3.77489497744594108e-8), x)
    z = x * x
    z64 = z.astype(_f64)
    yc = _fma32(z64, _f32(2.443315711809948E-005), _f32(-1.388731625493765E-003))
    yc = _fma32(yc, z64, _f32(4.166664568298827E-002))
    yc = yc * z
    yc = _fma32(yc, z64, -(z * _f32(0.5)))
    yc = yc + _f32(1)
    ys = _fma32(z64, _f32(-1.9515295891E-4), _f32(8.3321608736E-3))
    ys = _fma32(ys, z64, _f32(-1.6666654611E-1))
    ys = ys * z
    ys = _fma32(ys, x, x)
    # pick the polynomials (arithmetic rather than np.where, which is slow on random masks) ...
    first = ((j & 2) == 0).astype(_f32)            # 1.0 where ys is the sine, else 0.0
    s = ys * first + yc * (1 - first)
    c = yc * first + ys * (1 - first)
    # ... and flip the sign bits as avx_mathfun does: bit 2 of j (of j - 2, negated, for the cosine)
    sin_sign = (j & 4) << 29
    cos_sign = (~(j - 2) & 4) << 29
    return (s.view(np.int32) ^ sin_sign).view(_f32), (c.view(np.int32) ^ cos_sign).view(_f32)


def _box_muller16_f32(u, mean, std):
    """normal_fill_16_AVX2 on rows of 16 float32 uniforms: u[0:8] give the radii, u[8:16] the angles;
    the first 8 outputs are the cosines, the last 8 the sines, each then fma(n, std, mean)."""
    u = u.reshape(-1, 16)
    radius = np.sqrt(_f32(-2) * _log256(_f32(1) - u[:, :8]))
    s, c = _sincos256(_f32(2 * math.pi) * u[:, 8:])
    out = np.concatenate([radius * c, radius * s], axis=1).reshape(-1)
    if std == 1:        # n * 1 is exact, so the fma is one addition (turning -0.0 into +0.0, as PyTorch's)
        return out + mean
    return _fma32(out, std, mean)


def _box_muller16_f64(u, mean, std):
    """normal_fill_16<double> on rows of 16 float64 uniforms."""
    u = u.reshape(-1, 16)
    radius = np.sqrt(-2.0 * _libm(math.log, 1.0 - u[:, :8]))
    theta = (2.0 * math.pi) * u[:, 8:]
    c = radius * _libm(math.cos, theta)
    s = radius * _libm(math.sin, theta)
    out = np.concatenate([c, s], axis=1).reshape(-1)
    return out if (std == 1 and mean == 0) else _fma64(out, std, mean)


def _normal_fill(gen, out, mean, std):
    """PyTorch's vectorised path (contiguous, >= 16 elements), into the flat array ``out``.

    PyTorch turns each whole block of 16 uniforms into normals, and when n is not a multiple of 16 draws
    16 uniforms more for the last 16 elements (overwriting the end of the last whole block).  float32 and
    float64 first fill all n elements with uniforms, so the last n % 16 of them are drawn and then lost;
    float16 and bfloat16 draw 16 float uniforms at a time into a float buffer (rounding only the results),
    so they draw just the whole blocks and then the last 16."""
    if out.dtype == _f64:
        uniforms = gen._uniform_double
        block = lambda m: _box_muller16_f64(uniforms(m), mean, std)      # noqa: E731
    else:                                      # float32; float16 and bfloat16 round its results
        uniforms = gen._uniform_float
        block = lambda m: _box_muller16_f32(uniforms(m), _f32(mean), _f32(std))  # noqa: E731
    n = out.size
    full = n - n % 16
    _in_pieces(out[:full], block)
    if n % 16:
        if out.dtype in (_f32, _f64):
            uniforms(n % 16)                   # the last elements' first uniforms, overwritten below
        out[n - 16:] = block(16)
    return out


# ====================================================================== working in pieces
# A big tensor is made piece by piece.  Each piece takes its words from the generator in turn, so the
# stream is the same as in one go; but a kernel here is dozens of numpy passes, and on a piece they run
# in the CPU cache instead of streaming a whole 100-million-element array through memory each time.

_PIECE = 1 << 15                               # elements; a multiple of 16 (normal_'s blocks)


def _in_pieces(out, make):
    """Fill the flat array ``out`` with ``make(m)`` for consecutive pieces of m <= _PIECE elements."""
    for i in range(0, out.size, _PIECE):
        out[i:i + _PIECE] = make(min(_PIECE, out.size - i))
    return out


# ====================================================================== value makers
# Each writes values into a flat array ``out`` (its dtype says which kind) in the order PyTorch
# generates them, and returns it.

def _c_cast(v, np_dt):
    """The double or int64 values ``v`` as ``np_dt``, converted as ATen's ``static_cast<scalar_t>`` does.

    c10::Half and c10::BFloat16 are built from a float only, so a double becomes a float first and is
    then rounded to 16 bits: two roundings, which now and then differ from numpy's one (a double just
    past a float16 tie rounds to the tie in float32, and the tie then goes to even)."""
    if np_dt.itemsize == 2 and _is_float(np_dt):
        v = v.astype(_f32)
    return v.astype(np_dt, copy=False)


def _uniform_values(gen, out, lo, hi):
    return _in_pieces(out, lambda m: _uniform_piece(gen, m, lo, hi, out.dtype))


def _uniform_piece(gen, n, lo, hi, np_dt):
    unit = lo == 0 and hi == 1                   # u * 1 + 0 is u: skip the fma
    if np_dt == _f64:
        u = gen._uniform_double(n)
        if unit:
            return u
        r = _fma64(u, hi - lo, lo)
    else:
        u = gen._uniform_float(n)
        if unit and np_dt == _f32:
            return u
        flo, fhi = _f32(lo), _f32(hi)
        r = (u if unit else _fma32(u, fhi - flo, flo)).astype(np_dt, copy=False)
        lo, hi = np_dt.type(lo), np_dt.type(hi)
    r[r == hi] = lo                              # a value rounded up to 'to' becomes 'from'
    return r


def _normal_values(gen, out, mean, std, contiguous=True):
    if out.size >= 16 and contiguous:
        return _normal_fill(gen, out, mean, std)
    v = gen._normal_doubles(out.size)
    if not (std == 1 and mean == 0):
        v = _fma64(v, std, mean)
    out[...] = _c_cast(v, out.dtype)
    return out


_U64 = np.uint64


def _int_from_to(gen, out, rng, base):
    """(random() % range) + base, with random64() for ranges >= 2**28 (found by experiment on PyTorch 2.13)."""
    wide = rng >= (1 << 28)

    def piece(m):
        raw = gen._random64(m) if wide else gen._random(m)
        v = (raw % _U64(rng) + _U64(base % (1 << 64))).view(np.int64)   # uint64 arithmetic wraps, as in C
        return v != 0 if out.dtype.kind == "b" else _c_cast(v, out.dtype)
    return _in_pieces(out, piece)


def _random_default_values(gen, out):
    """``random_()``: [0, 2**mantissa] for floats, [0, max] for integers."""
    np_dt = out.dtype
    name = np_dt.name
    if name == "bool":
        piece = lambda m: (gen._random(m) & 1) != 0                           # noqa: E731
    elif name in ("int64", "float64"):
        top = 1 << 63 if name == "int64" else (1 << 53) + 1
        piece = lambda m: gen._random64(m) % _U64(top)                        # noqa: E731
    else:
        top = (int(np.iinfo(np_dt).max) + 1 if np_dt.kind in "iu"
               else (1 << {"float32": 24, "float16": 11, "bfloat16": 8}[name]) + 1)
        piece = lambda m: gen._random(m) % _U64(top)                          # noqa: E731
    return _in_pieces(out, piece)


# ====================================================================== placing values into tensors

def _memory_order_fill(shape, strides, flat):
    """A C-ordered array of ``shape`` whose elements, visited in the memory order that ``strides`` give,
    are ``flat`` (TensorIterator visits an output in memory order)."""
    nd = len(shape)
    perm = sorted(range(nd), key=lambda d: -abs(strides[d]))
    if perm == list(range(nd)):
        return flat.reshape(shape)
    out = namespace(flat).empty(shape, dtype=flat.dtype)
    out.transpose(perm)[...] = flat.reshape([shape[d] for d in perm])
    return out


def _real_view_info(arr):
    """(shape, strides, real dtype) of view_as_real(arr) for complex ``arr``; arr's own otherwise."""
    if arr.dtype.kind == "c":
        half = arr.itemsize // 2
        return arr.shape + (2,), arr.strides + (half,), np.dtype("float32" if half == 4 else "float64")
    return arr.shape, arr.strides, arr.dtype


def _write(self, full):
    """Write the computed array into the tensor, as an in-place op (CPU tensors: CUDA ones are filled on
    their device, by ``_device_fill``)."""
    arr = self._data
    if arr.dtype.kind == "c" and full.dtype.kind != "c":
        full = full[..., 0] + 1j * full[..., 1]
    arr[...] = full
    self._bump_version()
    return self


def _check_inplace(self):
    if _state.enabled and self._requires_grad:
        if self.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        base = self._base
        if base is not None and base.grad_fn is None and base._requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                               "operation.")


def _fill_inplace(self, fill):
    """Run ``fill(flat, contiguous)``, which writes the values in generation order into the flat real
    array ``flat``, for ``self``.  A contiguous numpy tensor is filled in its own memory; otherwise the
    values go through a buffer and are placed in memory order."""
    _check_inplace(self)
    arr = self._data
    shape, strides, np_dt = _real_view_info(arr)
    contiguous = bool(arr.flags.c_contiguous)
    if contiguous:
        fill(arr.reshape(-1).view(np_dt), True)
        self._bump_version()
        return self
    flat = namespace(arr).empty(math.prod(shape), np_dt)
    fill(flat, contiguous)
    return _write(self, _memory_order_fill(shape, strides, flat))


def _new(size, np_dt, fill):
    """A new C-contiguous array of ``size`` filled by ``fill(flat, contiguous=True)`` (real parts and
    imaginary parts alternate for a complex dtype). The CPU generator's kernels fill host arrays: the CPU
    device's namespace allocates (CUDA tensors are made on their device by ``_d_values``)."""
    arr = device_namespace(None).empty(tuple(size), np_dt)
    fill(arr.reshape(-1).view(_real_view_info(arr)[2]), True)
    return arr


def _fmt(x):
    """A number as C++'s ostream writes a double (PyTorch's error messages)."""
    if isinstance(x, numbers.Integral):
        return str(int(x))
    return "%g" % x


def _is_float(np_dt):
    return is_float_np(np_dt) or np_dt.name == "bfloat16"


def _float_dtype_or_raise(np_dt, kernel, complex_ok=True):
    if not (_is_float(np_dt) or (complex_ok and np_dt.kind == "c")):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_word(np_dt)}'")


_FLOAT_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e+38, "float32": 3.4028234663852886e+38,
              "float64": 1.7976931348623157e+308}


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


# ====================================================================== on a CUDA device
# A CUDA tensor's numbers are drawn on its device (``DeviceDraws``: the device generator's uniform, normal,
# integer, exponential draws), then shaped with the device's array functions: nothing is made on the host and
# copied over. PyTorch's CUDA kernels use Philox, not mt19937, so no CPU stream is reproduced here: only the
# distributions are the same (as between PyTorch's CPU and CUDA numbers).

def _generator_for(generator, device):
    """What a random op on ``device`` (a ``pedatorch.device``, or None for the CPU) draws from: the CPU's
    ``Generator``, or the ``DeviceDraws`` of a CUDA device."""
    if device is not None and device.type == "cuda":
        return _device_generator(generator, device)
    if device is not None and device.type == "meta":   # draws nothing, moves no generator
        return DeviceDraws(META_BACKEND.rng, META_BACKEND.xp)
    return _get_generator(generator)


def _on_device(gen):
    return type(gen) is DeviceDraws


def _target_device(device, out=None):
    """The device a factory makes its tensor on: ``device``, else ``out``'s, else the default device (None: the
    CPU)."""
    if device is not None:
        return as_device(device)
    if out is not None and not out.is_cpu:
        return out.device
    return factory_device(None)


def _draw_dtype(real):
    """The dtype the device generator draws in for values of dtype ``real`` (float16/bfloat16 round float32)."""
    return _f64 if real == _f64 else _f32


def _d_uniform(dr, n, real, lo, hi):
    u = dr.uniform(n, _draw_dtype(real))
    if not (lo == 0 and hi == 1):
        u = u * (hi - lo) + lo
    r = u.astype(real, copy=False)
    if not (lo == 0 and hi == 1) or real.itemsize < 4:
        r = dr.xp.where(r >= hi, r.dtype.type(lo), r)     # a value rounded up to 'to' becomes 'from', as on the CPU
    return r


def _d_normal(dr, n, real, mean, std):
    v = dr.normal(n, _draw_dtype(real))
    if not (std == 1 and mean == 0):
        v = v * std + mean
    return v.astype(real, copy=False)


def _d_cast_int(v, real):
    """int64 draws ``v`` as values of dtype ``real`` (bool: non-zero)."""
    return v != 0 if real.kind == "b" else v.astype(real, copy=False)


def _d_from_to(dr, n, real, rng, base):
    """Integers uniform in [base, base + rng) (rng <= 2**64), uint64 arithmetic wrapping as in C."""
    v = (dr.integers(n, rng) + _U64(base % (1 << 64))).view(np.int64)
    return _d_cast_int(v, real)


def _d_random_default(dr, n, real):
    """``random_()`` on a device: [0, 2**mantissa] for floats, [0, max] for integers."""
    name = real.name
    if name == "bool":
        top = 2
    elif name == "int64":
        top = 1 << 63
    elif real.kind in "iu":
        top = int(np.iinfo(real).max) + 1
    else:
        top = (1 << _digits(real)) + 1
    return _d_cast_int(dr.integers(n, top).view(np.int64), real)


def _d_values(dr, shape, real, make):
    """``make(dr, n, real)`` values for an array of ``shape``, complex dtypes taking (real, imag) pairs."""
    complex_ = real.kind == "c"
    rdt = np.dtype(_f32 if real.itemsize == 8 else _f64) if complex_ else real
    full = tuple(shape) + ((2,) if complex_ else ())
    vals = make(dr, math.prod(full), rdt).reshape(full)
    if complex_:
        vals = (vals[..., 0] + 1j * vals[..., 1]).astype(real, copy=False)
    return vals


def _device_fill(self, dr, make):
    """Fill the CUDA tensor ``self`` in place with ``make(dr, n, real dtype)``, drawn on its device."""
    _check_inplace(self)
    arr = self._data
    arr[...] = _d_values(dr, arr.shape, arr.dtype, make)
    self._bump_version()
    return self


def _d_bernoulli_tensor(dr, shape, p_arr):
    """u < p on the device, p (a device array) broadcast to ``shape``."""
    if not _is_float(p_arr.dtype):
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{_type_word(p_arr.dtype)}'")
    if p_arr.size and not bool(((p_arr >= 0) & (p_arr <= 1)).all()):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    try:
        p = dr.xp.broadcast_to(p_arr, tuple(shape))
    except ValueError:
        raise RuntimeError(_expand_error(tuple(shape), p_arr.shape)) from None
    calc = _draw_dtype(p_arr.dtype)
    return dr.uniform(p.size, calc).reshape(p.shape) < p.astype(calc, copy=False)


def _bad_multinomial_entry(p):
    """PyTorch's error for the first entry (in order) that is not a finite number >= 0: it tests ``p >= 0``
    first, which a NaN fails too."""
    flat = p.reshape(-1)
    first = int(((flat >= 0) & (flat < np.inf)).argmin())
    if not flat[first] >= 0:
        raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
    raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")


def _d_multinomial(dr, p2, n_sample, replacement):
    """``multinomial`` on the device, rows of ``p2`` (rows, n_cat) the weights: (rows, n_sample) int64."""
    xp = dr.xp
    rows, n_cat = p2.shape
    if p2.size and not bool(((p2 >= 0) & (p2 < np.inf)).all()):       # the CPU's messages, one device sync
        if not replacement or n_sample == 1:
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        _bad_multinomial_entry(p2)
    w = p2.astype(_f64)
    total = w.sum(axis=1)
    if bool((total <= 0).any()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement or n_sample == 1:
        # the Gumbel-max trick, as PyTorch: the largest p / q, q ~ Exp(1)
        q = dr.exponential(w.size).reshape(w.shape)
        r = w / q
        if n_sample == 1:
            return xp.argmax(r, axis=1).reshape(rows, 1).astype(np.int64)
        return xp.argsort(-r, axis=1)[:, :n_sample].astype(np.int64)
    # with replacement: invert each row's CDF. Row i's CDF is shifted by i, so that one searchsorted over the
    # flattened, increasing rows answers them all.
    cum = xp.cumsum(w, axis=1) / total[:, None]
    cum[:, -1] = 1
    shift = xp.arange(rows, dtype=_f64)[:, None]
    u = dr.uniform(rows * n_sample).reshape(rows, n_sample)
    idx = xp.searchsorted((cum + shift).reshape(-1), (u + shift).reshape(-1), side="left").reshape(rows, n_sample)
    idx = idx - (xp.arange(rows, dtype=np.int64) * n_cat)[:, None]
    return xp.clip(idx, 0, n_cat - 1).astype(np.int64)


# ====================================================================== in-place Tensor methods

def uniform_(self, from_=0, to=1, *, generator=None, **kwargs):
    """Fill with samples from U[from, to)."""
    from_ = _num(kwargs.pop("from", from_))
    to = _num(to)
    if kwargs:
        raise TypeError(f"uniform_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    gen = _generator_for(generator, self.device)
    _float_dtype_or_raise(self._data.dtype, "check_uniform_bounds")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_fmt(from_)} > "
                           f"to={_fmt(to)}")
    real = _real_view_info(self._data)[2]
    if to - from_ > _FLOAT_MAX[real.name]:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{_type_word(real)}>::max(), but "
                           f"found to={_fmt(to)} and from={_fmt(from_)} which result in to-from to exceed the "
                           f"limit")
    if _on_device(gen):
        return _device_fill(self, gen, lambda dr, n, rt: _d_uniform(dr, n, rt, from_, to))
    return _fill_inplace(self, lambda out, c: _uniform_values(gen, out, from_, to))


def normal_(self, mean=0, std=1, *, generator=None):
    """Fill with samples from N(mean, std**2)."""
    mean, std = _num(mean), _num(std)
    gen = _generator_for(generator, self.device)
    _float_dtype_or_raise(self._data.dtype, "normal_kernel_cpu")
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    if self._data.dtype.kind == "c":
        std = std / math.sqrt(2)   # each of the real and imaginary parts gets half the variance
    if _on_device(gen):
        return _device_fill(self, gen, lambda dr, n, rt: _d_normal(dr, n, rt, mean, std))
    return _fill_inplace(self, lambda out, c: _normal_values(gen, out, mean, std, c))


_C_NAMES = {"int8": "signed char", "uint8": "unsigned char", "int16": "short int", "int32": "int",
            "int64": "long int",
            "bool": "bool", "float32": "float", "float64": "double", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16"}


def _digits(np_dt):
    return {"float32": 24, "float64": 53, "float16": 11, "bfloat16": 8}[np_dt.name]


def _round_trip(v, np_dt):
    """``static_cast<int64_t>(static_cast<scalar_t>(v))`` for an int64 ``v``: rounded to the floating dtype
    (through a float for the half types), then truncated; x86-64 gives INT64_MIN for what int64 cannot
    hold (a float16 infinity, 2**63)."""
    if v == 1 << 63:        # from + 1 for from = 2**63 - 1 (where PyTorch's own loop never ends): left alone
        return v
    x = float(_c_cast(np.int64(v), np_dt))
    return int(x) if -2.0 ** 63 <= x < 2.0 ** 63 else -(1 << 63)


def _update_from(frm, np_dt):
    """Round ``from`` up to a value the floating dtype holds exactly (ATen's update_from)."""
    plus1 = _round_trip(frm + 1, np_dt)
    if plus1 < frm:
        n = abs(frm + 1).bit_length() - 1
        frm = plus1 + (1 << (n - _digits(np_dt) + 1))
    return frm


def _update_to(to, np_dt):
    minus1 = _round_trip(to - 1, np_dt)
    if minus1 >= to:
        n = abs(to - 1).bit_length() - 1
        to = minus1 - (1 << (n - _digits(np_dt) + 1))
    return to


def _check_in_range(frm, to_inc, np_dt):
    """ATen's check_from_to_in_range: an error outside the dtype's range, a warning where floats lose integers."""
    name = _C_NAMES.get(np_dt.name, np_dt.name)
    if np_dt.kind in "iub":
        lo, hi = (0, 1) if np_dt.kind == "b" else (int(np.iinfo(np_dt).min), int(np.iinfo(np_dt).max))
    else:
        hi = _FLOAT_MAX[np_dt.name]
        lo = -hi
    for what, v in (("from", frm), ("to - 1", to_inc)):
        if not lo <= v <= hi:
            raise RuntimeError(f"{what} is out of bounds for {name}")
    if _is_float(np_dt):
        d = _digits(np_dt)
        for what, v in (("from", frm), ("to - 1", to_inc)):
            if not -(1 << d) <= v <= (1 << d):
                warnings.warn(f"{what} is out of bounds [-(2^{d}), 2^{d}]. Due to precision limitations {name} can "
                              f"support discrete uniform distribution only within this range. This warning will "
                              f"become an error in version 1.7 release, please fix the code in advance",
                              UserWarning, stacklevel=user_stacklevel())


def _int64_arg(v):
    v = int(_num(v))
    if not -(1 << 63) <= v < (1 << 63):
        raise ValueError("Overflow when unpacking long long")
    return v


def random_(self, from_=None, to=None, *, generator=None, **kwargs):
    """Fill with integers: ``random_()`` [0, 2**mantissa or max], ``random_(to)`` [0, to),
    ``random_(from, to)`` [from, to), ``random_(from, None)`` [from, max]."""
    if "from" in kwargs:
        from_ = kwargs.pop("from")
    if kwargs:
        raise TypeError(f"random_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if isinstance(from_, Generator) and generator is None:
        from_, generator = None, from_
    gen = _generator_for(generator, self.device)
    np_dt = self._data.dtype
    if np_dt.name in ("uint16", "uint32", "uint64"):
        raise NotImplementedError(f"\"random_kernel_cpu\" not implemented for '{_type_word(np_dt)}'"
                                  if from_ is None else
                                  f"\"random_from_to_kernel_cpu\" not implemented for '{_type_word(np_dt)}'")
    if np_dt.kind == "c" and self._data.size and from_ is None and to is None:
        raise NotImplementedError(f"\"random_kernel_cpu\" not implemented for '{_type_word(np_dt)}'")
    if from_ is None and to is None:
        if _on_device(gen):
            return _device_fill(self, gen, _d_random_default)
        return _fill_inplace(self, lambda out, c: _random_default_values(gen, out))
    frm = 0 if from_ is None else _int64_arg(from_)
    if to is not None:
        to = _int64_arg(to)
        if not frm < to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={frm} >= to={to}")
        if _is_float(np_dt):
            frm, to = _update_from(frm, np_dt), _update_to(to, np_dt)
            if not frm < to:
                raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                                   f"but got from={frm} >= to={to}")
        if np_dt.kind == "c":
            raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
        _check_in_range(frm, to - 1, np_dt)
        rng, base = to - frm, frm
    elif frm == -(1 << 63):
        # ATen returns before its kernel for an empty tensor; the kernel is compiled for the real types and
        # bfloat16 (not float16, bool or complex), and then refuses all but four of them
        if not self._data.size:
            return self
        if np_dt.name == "float16" or np_dt.kind in "bc":
            raise NotImplementedError(f"\"random_full_64_bits_range_kernel_cpu\" not implemented for "
                                      f"'{_type_word(np_dt)}'")
        if np_dt.name not in ("int64", "float64", "float32", "bfloat16"):
            raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, float and "
                               "bfloat16")
        if _on_device(gen):
            return _device_fill(self, gen, lambda dr, n, rt: _d_from_to(dr, n, rt, 1 << 64, 0))
        return _fill_inplace(self, lambda out, c: _in_pieces(
            out, lambda m: _c_cast(gen._random64(m).view(np.int64), out.dtype)))
    else:
        if _is_float(np_dt):
            to_inc = min(1 << _digits(np_dt), (1 << 63) - 1)
            frm = _update_from(frm, np_dt)
            if not frm < to_inc:
                raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                                   f"casted to dtype, but got from={frm} > to_inc={to_inc}")
        elif np_dt.kind == "c":
            raise RuntimeError("random_from_to_impl handles only integral, floating-point and boolean types")
        else:
            to_inc = 1 if np_dt.kind == "b" else int(np.iinfo(np_dt).max)
        _check_in_range(frm, to_inc, np_dt)
        rng, base = to_inc - frm + 1, frm
    if _on_device(gen):
        return _device_fill(self, gen, lambda dr, n, rt: _d_from_to(dr, n, rt, rng, base))
    return _fill_inplace(self, lambda out, c: _int_from_to(gen, out, rng, base))


def _random_overloads(self, *args, generator=None, **kwargs):
    """random_(), random_(to), random_(from, to): PyTorch's three overloads."""
    if "to" in kwargs or "from" in kwargs or len(args) >= 2:
        frm = kwargs.pop("from", args[0] if args else 0)
        to = kwargs.pop("to", args[1] if len(args) > 1 else None)
        return random_(self, frm, to, generator=generator, **kwargs)
    if len(args) == 1:
        if isinstance(args[0], Generator):
            return random_(self, generator=args[0])
        return random_(self, 0, args[0], generator=generator)
    return random_(self, generator=generator, **kwargs)


def _bernoulli_tensor_values(gen, shape, strides, p_arr, n, np_dt):
    """u < p elementwise, p broadcast to ``shape``, in the memory order that ``strides`` give."""
    if not _is_float(p_arr.dtype):
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{_type_word(p_arr.dtype)}'")
    if p_arr.size and not ((p_arr >= 0) & (p_arr <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    try:
        p = np.broadcast_to(p_arr, shape)
    except ValueError:
        raise RuntimeError(_expand_error(shape, p_arr.shape)) from None
    perm = sorted(range(len(shape)), key=lambda d: -abs(strides[d]))
    p_flat = p.transpose(perm).reshape(-1)
    if p_arr.dtype == _f64:
        return gen._uniform_double(n) < p_flat
    return gen._uniform_float(n) < p_flat.astype(_f32)


def _expand_error(target, shape):
    nd = len(target)
    for i in range(1, len(shape) + 1):
        s, t = shape[-i], target[-i] if i <= nd else None
        if t is None or (s != t and s != 1):
            return (f"The expanded size of the tensor ({t if t is not None else -1}) must match the existing size "
                    f"({s}) at non-singleton dimension {nd - i}.  Target sizes: {shape_str(target)}.  Tensor "
                    f"sizes: {shape_str(shape)}")
    return "expand failed"


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1 draws: 1 with probability ``p`` (a float, or a tensor broadcast to self)."""
    gen = _generator_for(generator, self.device)
    if isinstance(p, Tensor):
        _check_inplace(self)
        if _on_device(gen):
            return _device_fill(self, gen, lambda dr, n, rt: _d_bernoulli_tensor(dr, self._data.shape, p._data))
        p_arr = _host(p)
        flat = _bernoulli_tensor_values(gen, self._data.shape, self._data.strides, p_arr, self._data.size,
                                        self._data.dtype)
        shape, strides = self._data.shape, self._data.strides
        return _write(self, _memory_order_fill(shape, strides, flat.astype(self._data.dtype)))
    p = float(p)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")
    if self._data.dtype.kind == "c":
        raise NotImplementedError(f"\"bernoulli_scalar_cpu_\" not implemented for '{_type_word(self._data.dtype)}'")
    if _on_device(gen):
        # float32 uniforms for all but float64 tensors (dropout's masks: half the device memory traffic)
        return _device_fill(self, gen, lambda dr, n, rt: dr.uniform(n, _draw_dtype(rt)) < p)
    return _fill_inplace(self, lambda out, c: _in_pieces(out, lambda m: gen._uniform_double(m) < p))


def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with samples from Exp(lambd): -log(1 - u) / lambd."""
    gen = _generator_for(generator, self.device)
    np_dt = self._data.dtype
    if not _is_float(np_dt):
        raise RuntimeError(f"Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {_type_word(np_dt)}")
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    if _on_device(gen):
        return _device_fill(self, gen, lambda dr, n, rt: (dr.exponential(n) * (1.0 / lambd)).astype(rt))

    def fill(out, c):
        out[...] = _exponential_values(gen, out.size, lambd, out.dtype)
    return _fill_inplace(self, fill)


def _exponential_values(gen, n, lambd, np_dt):
    u = gen._uniform_double(n)
    return _c_cast((-1.0 / lambd) * _libm(math.log1p, -u), np_dt)


def geometric_(self, p, *, generator=None):
    """Fill with the number of Bernoulli(p) trials up to the first success: ceil(log(u) / log(1 - p))."""
    gen = _generator_for(generator, self.device)
    np_dt = self._data.dtype
    if np_dt.kind in "bc":
        raise NotImplementedError(f"\"geometric_cpu\" not implemented for '{_type_word(np_dt)}'")
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(p)}")
    denom = math.log1p(-p)
    if _on_device(gen):
        def make(dr, n, rt):
            with np.errstate(divide="ignore"):
                return dr.xp.ceil(dr.xp.log(dr.uniform(n)) / denom).astype(rt)
        return _device_fill(self, gen, make)

    def fill(out, c):
        out[...] = _c_cast(np.ceil(_libm(math.log, gen._uniform_double(out.size)) / denom), out.dtype)
    return _fill_inplace(self, fill)


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with exp(N(mean, std**2))."""
    gen = _generator_for(generator, self.device)
    _float_dtype_or_raise(self._data.dtype, "log_normal_cpu", complex_ok=False)
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(std)}")
    if _on_device(gen):
        return _device_fill(self, gen, lambda dr, n, rt: dr.xp.exp(dr.normal(n) * std + mean).astype(rt))

    def fill(out, c):
        out[...] = _c_cast(_libm(math.exp, _fma64(gen._normal_doubles(out.size), std, mean)), out.dtype)
    return _fill_inplace(self, fill)


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill with samples from the Cauchy distribution: median + sigma * tan(pi (u - 1/2))."""
    gen = _generator_for(generator, self.device)
    np_dt = self._data.dtype
    if not _is_float(np_dt):
        raise RuntimeError(f"Cauchy distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {_C_NAMES.get(np_dt.name, np_dt.name)}")
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_fmt(sigma)}")
    if _on_device(gen):
        return _device_fill(self, gen, lambda dr, n, rt: (median + sigma * dr.xp.tan(math.pi * (dr.uniform(n) - 0.5)))
                            .astype(rt))

    def fill(out, c):
        t = _libm(math.tan, math.pi * (gen._uniform_double(out.size) - 0.5))
        out[...] = _c_cast(_fma64(sigma, t, median), out.dtype)
    return _fill_inplace(self, fill)


# ====================================================================== factories

def _dtype_np(dtype):
    return (dtype or D.get_default_dtype()).np


def rand(*sizes, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, size=None):
    """Uniform samples in [0, 1): float uniforms keep 24 random bits, doubles 53."""
    size = _size_arg(sizes if size is None else (size,))
    gen = _generator_for(generator, _target_device(device, out))
    np_dt = _dtype_np(dtype if dtype is not None else (out.dtype if out is not None else None))
    _float_dtype_or_raise(np_dt, "check_uniform_bounds")
    if _on_device(gen):
        arr = _d_values(gen, size, np_dt, lambda dr, n, rt: _d_uniform(dr, n, rt, 0.0, 1.0))
    else:
        arr = _new(size, np_dt, lambda out, c: _uniform_values(gen, out, 0.0, 1.0))
    return _finish(arr, device, requires_grad, out)


def randn(*sizes, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, size=None):
    """Standard normal samples (Box-Muller; see the module notes for PyTorch's two paths)."""
    size = _size_arg(sizes if size is None else (size,))
    gen = _generator_for(generator, _target_device(device, out))
    np_dt = _dtype_np(dtype if dtype is not None else (out.dtype if out is not None else None))
    _float_dtype_or_raise(np_dt, "normal_kernel_cpu")
    std = 1.0 / math.sqrt(2) if np_dt.kind == "c" else 1.0
    if _on_device(gen):
        arr = _d_values(gen, size, np_dt, lambda dr, n, rt: _d_normal(dr, n, rt, 0.0, std))
    else:
        arr = _new(size, np_dt, lambda out, c: _normal_values(gen, out, 0.0, std))
    return _finish(arr, device, requires_grad, out)


def _randint_args(args, kwargs):
    low, high, size = kwargs.pop("low", None), kwargs.pop("high", None), kwargs.pop("size", None)
    args = list(args)
    if size is None and args and not isinstance(args[-1], (numbers.Number, Tensor)):
        size = args.pop()
    if len(args) == 2:
        low, high = args
    elif len(args) == 1:
        if high is None:
            high = args[0]
        else:
            low = args[0]
    elif len(args) > 2:
        raise TypeError("randint() received an invalid combination of arguments")
    if low is None:
        low = 0
    if high is None or size is None:
        raise TypeError("randint() received an invalid combination of arguments - expected (int high, tuple of "
                        "ints size) or (int low, int high, tuple of ints size)")
    for name, v, pos in (("low", low, 0), ("high", high, 1)):
        v = _num(v)
        if isinstance(v, float) and not v.is_integer():
            raise TypeError(f"randint(): argument '{name}' (position {pos}) must be int, not float")
    return int(_num(low)), int(_num(high)), size


def randint(*args, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
            pin_memory=False, **kwargs):
    """Integers uniform in [low, high): ``randint(high, size)`` or ``randint(low, high, size)`` (int64)."""
    low, high, size = _randint_args(args, kwargs)
    if kwargs:
        raise TypeError(f"randint() got an unexpected keyword argument '{next(iter(kwargs))}'")
    size = _size_arg((size,))
    np_dt = dtype.np if dtype is not None else np.dtype(np.int64)
    t = Tensor._make(device_namespace(_target_device(device, out)).zeros(size, np_dt))   # filled on its device
    random_(t, low, high, generator=generator)
    return _finish(t._data, device, requires_grad, out)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    """A random permutation of 0..n-1: Fisher-Yates from the front with ``random() % (n - i)``."""
    n = int(_num(n))
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    gen = _generator_for(generator, _target_device(device, out))
    np_dt = dtype.np if dtype is not None else np.dtype(np.int64)
    if _is_float(np_dt) and n > (1 << _digits(np_dt)) + 1:
        raise RuntimeError(f"n must be less than or equal to {(1 << _digits(np_dt)) + 1} for {_type_word(np_dt)}")
    if np_dt.kind in "iu" and n - 1 > np.iinfo(np_dt).max:
        raise RuntimeError(f"n must be less than or equal to {int(np.iinfo(np_dt).max) + 1} for "
                           f"{_type_word(np_dt)}")
    if _on_device(gen):     # on a device: the order of n uniform keys (not PyTorch's CPU Fisher-Yates stream)
        return _finish(gen.xp.argsort(gen.uniform(n)).astype(np_dt), device, requires_grad, out)
    perm = list(range(n))
    if n > 1:
        # z = random() % (n - i), drawn for i = 0 .. n-2; the swaps themselves are sequential
        raw = gen._random(n - 1)
        zs = (raw % namespace(raw).arange(n, 1, -1, dtype=np.uint64)).tolist()
        for i, z in enumerate(zs):
            j = i + z
            perm[i], perm[j] = perm[j], perm[i]
    return _finish(device_namespace(None).asarray(perm, dtype=np_dt).reshape(n), device, requires_grad, out)


def _like_dtype(input, dtype):
    return dtype.np if dtype is not None else input._data.dtype


def _like_device(input, device):
    return device if device is not None else (None if input.is_cpu else input.device)


def _empty_like(input, dtype, device, memory_format):
    """ATen's first step of every ``*_like`` factory: ``empty_like(input, memory_format)``, whose layout (by
    default the input's, preserve_format) the in-place sampler then fills in memory order."""
    return empty_like(input, dtype=D.from_numpy_dtype(_like_dtype(input, dtype)), device=_like_device(input, device),
                      memory_format=memory_format)


def _like_result(filled, requires_grad):
    """The filled tensor as the factory's result: a fresh Tensor (ATen's fill inside the factory counts no
    write: version 0), requiring grad if asked."""
    return _finish(filled._data, None, requires_grad)


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=preserve_format):
    return _like_result(uniform_(_empty_like(input, dtype, device, memory_format), 0, 1), requires_grad)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=preserve_format):
    return _like_result(normal_(_empty_like(input, dtype, device, memory_format), 0, 1), requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None, requires_grad=False,
                 memory_format=preserve_format, generator=None):
    """``randint_like(input, high)`` or ``randint_like(input, low, high)``."""
    if high is None:
        low, high = 0, low
    return _like_result(random_(_empty_like(input, dtype, device, memory_format), low, high, generator=generator), requires_grad)


# ====================================================================== normal (four overloads)

class _NormalTT(ArrayFunction):
    """normal(mean, std) is not differentiable in PyTorch's sense: both gradients are zero."""
    node_name = "NormalBackward3"

    @staticmethod
    def forward(ctx, mean, std, sample):
        return sample

    @staticmethod
    def backward(ctx, grad):
        from .creation import zeros_like
        return zeros_like(grad), zeros_like(grad), None


class _NormalT1(ArrayFunction):
    node_name = "NormalBackward1"

    @staticmethod
    def forward(ctx, mean, sample):
        return sample

    @staticmethod
    def backward(ctx, grad):
        from .creation import zeros_like
        return zeros_like(grad), None


class _NormalT2(_NormalT1):
    node_name = "NormalBackward2"


class _BernoulliT(_NormalT1):
    node_name = "BernoulliBackward0"


def _host(t):
    """A CPU op's view of a tensor argument (a host copy of a CUDA one)."""
    return to_host(t._data)


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return tuple(reversed(strides))


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False):
    """Samples from N(mean, std**2).  Overloads: (Tensor, Tensor), (Tensor, float), (float, Tensor), and
    (float, float, size) which makes a new tensor of ``size``."""
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    like = mean if mt else std if st else None
    dev = _target_device(device, out) if like is None else (None if like.is_cpu else like.device)
    _generator_for(generator, dev)   # (a generator of another device type fails here, as in PyTorch)
    if not mt and not st:
        if size is None:
            raise TypeError(f"normal() received an invalid combination of arguments - got ({type(mean).__name__}, "
                            f"{type(std).__name__}), but expected one of:\n"
                            " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
                            " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
                            " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
                            " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, "
                            "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
                            "torch.device device = None, bool pin_memory = False, bool requires_grad = False)")
        np_dt = _dtype_np(dtype if dtype is not None else (out.dtype if out is not None else None))
        t = Tensor._make(device_namespace(dev).zeros(_size_arg((size,)), np_dt))   # filled on its device
        normal_(t, mean, std, generator=generator)
        return _finish(t._data, device, requires_grad, out)
    # the tensor overloads: one code path for every device (the samples come from normal_ on mean/std's device)
    if mt and st:
        m, s = mean._data, std._data
        xp = namespace(m, s)
        _float_dtype_or_raise(m.dtype, "normal_kernel_cpu")
        if s.dtype.kind == "c":
            raise RuntimeError("normal expects standard deviation to be non-complex")
        if s.size and not bool((s >= 0).all()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        shape = broadcast_shapes_or_raise(m.shape, s.shape)
        o = Tensor._make(xp.zeros(shape, m.dtype))
        normal_(o, 0, 1, generator=generator)
        v = o._data
        ct = np.result_type(v.dtype, s.dtype)
        v = (v.astype(ct) * s).astype(v.dtype)        # output.mul_(std).add_(mean)
        v = (v.astype(np.result_type(v.dtype, m.dtype)) + m).astype(v.dtype)
        res = _finish_like(v, mean)
        if _state.enabled and (mean._requires_grad or std._requires_grad):
            res = _NormalTT.apply(mean, std, v)
        return write_out(out, res)
    if mt:
        m = mean._data
        _float_dtype_or_raise(m.dtype, "normal_kernel_cpu")
        std = _num(std)
        if not std >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
        o = Tensor._make(namespace(m).empty(m.shape, m.dtype))   # (contiguous: ATen fills it in order)
        normal_(o, 0, std, generator=generator)
        v = (o._data + m).astype(m.dtype)
        res = _finish_like(v, mean)
        if _state.enabled and mean._requires_grad:
            res = _NormalT1.apply(mean, v)
        return write_out(out, res)
    s = std._data
    _float_dtype_or_raise(s.dtype, "normal_kernel_cpu")
    if s.size and not bool((s >= 0).all()):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    mean = _num(mean)
    o = Tensor._make(namespace(s).empty(s.shape, s.dtype))   # (contiguous, as above)
    normal_(o, 0, 1, generator=generator)
    v = (o._data * s).astype(s.dtype)
    v = (v + v.dtype.type(mean)).astype(s.dtype)
    res = _finish_like(v, std)
    if _state.enabled and std._requires_grad:
        res = _NormalT2.apply(std, v)
    return write_out(out, res)


def _finish_like(arr, like):
    return _finish(arr, None if like.is_cpu else like.device, False)


# ====================================================================== bernoulli, multinomial, poisson

def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples: 1 with probability ``input`` (elementwise), or with probability ``p`` if given."""
    gen = _generator_for(generator, None if input.is_cpu else input.device)
    arr = input._data
    if p is not None:
        t = Tensor._make(namespace(arr).zeros(arr.shape, arr.dtype))
        bernoulli_(t, p, generator=generator)
        return write_out(out, _finish_like(t._data, input))
    if not _is_float(arr.dtype):
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{_type_word(arr.dtype)}'")
    if _on_device(gen):
        res_arr = _d_bernoulli_tensor(gen, arr.shape, arr).astype(arr.dtype)
    else:
        # the values come in the memory order of a new C-contiguous result
        flat = _bernoulli_tensor_values(gen, arr.shape, _c_strides(arr.shape, arr.itemsize), arr, arr.size,
                                        arr.dtype)
        res_arr = flat.astype(arr.dtype).reshape(arr.shape)
    res = _finish_like(res_arr, input)
    if _state.enabled and input._requires_grad:
        res = _BernoulliT.apply(input, res._data if res.is_cpu else res._data)
    return write_out(out, res)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Indices drawn from the categorical distribution(s) given by the rows of ``input`` (weights)."""
    gen = _generator_for(generator, None if input.is_cpu else input.device)
    p = input._data
    n_sample = int(num_samples)
    if p.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not _is_float(p.dtype):
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {_type_word(p.dtype)}")
    if n_sample <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_cat = p.shape[-1]
    if not replacement and n_sample > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if n_cat > (1 << 24):
        raise RuntimeError("number of categories cannot exceed 2^24")
    p2 = p.reshape(-1, n_cat)
    if _on_device(gen):
        res = _d_multinomial(gen, p2, n_sample, replacement).reshape(p.shape[:-1] + (n_sample,))
        return write_out(out, _finish_like(res, input))
    if not replacement or n_sample == 1:
        # Gumbel-max trick as PyTorch writes it: argmax / topk of p / q with q ~ Exp(1)
        if p.size and not ((p2.max() < np.inf) & (p2.min() >= 0)):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (p2.sum(axis=1) == 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        calc_dt = p.dtype
        q_flat = _exponential_values(gen, p.size, 1.0, calc_dt)
        q = _memory_order_fill(p.shape, p.strides, q_flat)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = (p / q).astype(calc_dt).reshape(-1, n_cat)
        if n_sample == 1:
            idx = np.argmax(r, axis=1)[:, None]
        else:
            idx = np.argsort(-r.astype(_f64), axis=1, kind="stable")[:, :n_sample]
    else:
        idx = namespace(p2).empty((p2.shape[0], n_sample), np.int64)
        acc = p2.astype(_f32) if p.dtype.itemsize < 4 else p2
        for i, row in enumerate(acc):
            if not ((row >= 0) & (row < np.inf)).all():
                _bad_multinomial_entry(row)
            cum = np.cumsum(row, dtype=row.dtype)           # sequential, in the input's precision
            total = cum[-1]
            if not total > 0:
                raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
            cum = (cum / total).astype(row.dtype)
            cum[-1] = 1
            u = gen._uniform_double(n_sample)
            idx[i] = np.searchsorted(cum.astype(_f64), u, side="left")   # first slot with cum >= u
    res = idx.astype(np.int64).reshape(p.shape[:-1] + (n_sample,))
    return write_out(out, _finish_like(res, input))


def _poisson_one(stream, lam):
    """ATen's sample_poisson: PTRS (Hoermann 1993) for lam >= 10, multiplication of uniforms below."""
    if lam >= 10:
        slam = math.sqrt(lam)
        loglam = math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            U = stream.next() - 0.5
            V = stream.next()
            us = 0.5 - abs(U)
            t = (2 * a / us + b) * U + lam + 0.43
            # static_cast<int64_t>(floor(t)): x86-64 gives INT64_MIN where t is out of range or not a number
            k = math.floor(t) if -2.0 ** 63 <= t < 2.0 ** 63 else -(1 << 63)
            if us >= 0.07 and V <= vr:
                return k
            if k < 0 or (us < 0.013 and V > us):
                continue
            lv = math.log(V) if V > 0 else -math.inf
            if lv + math.log(invalpha) - math.log(a / (us * us) + b) <= -lam + k * loglam - math.lgamma(k + 1):
                return k
    if lam == 0:
        return 0
    enlam = math.exp(-lam)
    x, prod = 0, 1.0
    while True:
        prod *= stream.next()
        if prod > enlam:
            x += 1
        else:
            return x


def poisson(input, generator=None):
    """Samples from Poisson(rate) for each rate in ``input`` (same shape and dtype)."""
    gen = _generator_for(generator, None if input.is_cpu else input.device)
    lam = input._data
    if not _is_float(lam.dtype):
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{_type_word(lam.dtype)}'")
    if _on_device(gen):
        if lam.size and not bool((lam >= 0).all()):
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        return _finish_like(gen.poisson(lam.astype(_f64)).astype(lam.dtype), input)
    rates = lam.astype(_f64).reshape(-1).tolist()
    if any(not r >= 0 for r in rates):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    stream = gen._double_stream()
    try:
        vals = [_poisson_one(stream, r) for r in rates]
    finally:
        stream.close()
    # (sample_poisson returns an int64, which reaches float16/bfloat16 through a float)
    vals = _c_cast(namespace(lam).asarray(vals, dtype=_f64), lam.dtype)
    return _finish_like(vals.reshape(lam.shape), input)


_THIRD_F = float(_f32(1.0) / _f32(3.0))   # ``1.0f / 3.0f``: the float constant, widened to double
_C0331_F = float(_f32(0.0331))              # ``0.0331f``


class _ScalarDraws:
    """ATen's per-element samplers' two sources, over one ``_DoubleStream``: ``uniform()`` is
    ``uniform_real_distribution<double>(0, 1)``, ``normal()`` is ``normal_distribution<double>(0, 1)``:
    the generator's cached spare if it has one, else Box-Muller on two uniforms (cos returned, sin kept)."""

    def __init__(self, gen):
        self.gen = gen
        self.stream = gen._double_stream()

    def uniform(self):
        return self.stream.next()

    def normal(self):
        gen = self.gen
        if gen._next_double is not None:
            v, gen._next_double = gen._next_double, None
            return v
        u1 = self.stream.next()
        u2 = self.stream.next()
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        gen._next_double = r * math.sin(theta)
        return r * math.cos(theta)

    def close(self):
        self.stream.close()


def _gamma_one(draws, alpha, single):
    """ATen's ``sample_gamma<scalar_t, double>`` (Marsaglia & Tsang 2000, boosted below alpha = 1).
    ``single``: scalar_t is float, so the steps C writes in float are rounded to float32 here too."""
    if not alpha > 0:                 # PyTorch loops forever on NaN or negative alpha; we answer NaN
        return 0.0 if alpha == 0 else math.nan
    scale = 1.0
    if alpha < 1.0:
        u = draws.uniform()
        inv = float(_f32(1.0) / _f32(alpha)) if single else 1.0 / alpha
        scale *= (1 - u) ** inv
        alpha = float(_f32(alpha) + _f32(1.0)) if single else alpha + 1.0
    d = float(_f32(alpha) - _f32(_THIRD_F)) if single else alpha - _THIRD_F
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = draws.normal()
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1 - draws.uniform()
        xx = x * x
        if u < 1.0 - _C0331_F * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def _standard_gamma_values(alpha, out_dtype, generator=None):
    """Gamma(alpha, 1) draws for every entry of the host array ``alpha`` in C order, as ATen's
    ``_s_gamma_cpu`` (``out_dtype`` float32: scalar_t float) or ``_s_dirichlet_cpu`` (float64 throughout)
    draws them; a float64 array of the same shape, before the final cast and clamp."""
    gen = _get_generator(generator)
    single = np.dtype(out_dtype) != _f64
    vals = alpha.astype(_f32 if single else _f64).reshape(-1).tolist()
    draws = _ScalarDraws(gen)
    try:
        out = [_gamma_one(draws, a, single) for a in vals]
    finally:
        draws.close()
    return namespace(alpha).asarray(out, dtype=_f64).reshape(alpha.shape)


def _kernel_dtype_or_raise(np_dt, kernel, gen):
    """ATen's CPU gamma/dirichlet/binomial kernels are written for float and double only (the CUDA ones for
    the half types too)."""
    if _on_device(gen):
        _float_dtype_or_raise(np_dt, kernel.replace("cpu", "cuda"), complex_ok=False)
    elif np_dt not in (_f32, _f64):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_word(np_dt)}'")


def _standard_gamma(input, generator=None):
    """``torch._standard_gamma``: x ~ Gamma(input, 1) elementwise (no gradient recorded here; the
    distributions wrap it in an autograd Function).  On CUDA tensors: the device generator's draws."""
    gen = _generator_for(generator, None if input.is_cpu else input.device)
    a = input._data
    _kernel_dtype_or_raise(a.dtype, "gamma_cpu", gen)
    if _on_device(gen):
        xp = namespace(a)
        valid = a > 0
        x = gen.standard_gamma(xp.where(valid, a, 1.0).astype(_f64))
        x = xp.where(valid, x, xp.where(a == 0, 0.0, np.nan))
    else:
        x = _standard_gamma_values(a, a.dtype, generator)
    tiny = np.finfo(a.dtype).tiny
    with np.errstate(invalid="ignore"):
        x = namespace(x).maximum(x.astype(a.dtype), tiny)   # std::max(min, sample): never exactly 0
    return _finish_like(x, input)


def _aten_row_sums(x):
    """The sums of the rows of the 2-D float64 host array ``x``, added in the order of ATen's vectorised CPU
    sum over a contiguous last dim (AVX2: vectors of 4 doubles), so that the result is PyTorch's to the bit.

    Per row: the vectors v_m = x[4m : 4m + 4] are split among 4 accumulators (v_0, v_4, ... into the first,
    v_1, v_5, ... into the second, ...), cascading every 2^max(4, ceil(log2 n) // 4) steps into 3 higher
    levels; leftover vectors go to the first; the 4 accumulators are added up; then the tail elements past
    the last full vector are summed from 0, and the 4 lanes of the vector total added to that one by one."""
    rows, k = x.shape
    lanes, ilp, levels = 4, 4, 4
    n_vec = k // lanes
    vec = lambda m: x[:, m * lanes:(m + 1) * lanes]
    n_ilp = n_vec // ilp
    zero = namespace(x).zeros((rows, lanes))
    acc = [[zero] * ilp for _ in range(levels)]
    if n_ilp:
        power = max(4, (n_ilp - 1).bit_length() // levels)
        step, mask = 1 << power, (1 << power) - 1
        i = 0
        while i + step <= n_ilp:
            for _ in range(step):
                acc[0] = [acc[0][r] + vec(ilp * i + r) for r in range(ilp)]
                i += 1
            for j in range(1, levels):
                acc[j] = [acc[j][r] + acc[j - 1][r] for r in range(ilp)]
                acc[j - 1] = [zero] * ilp
                if i & (mask << (j * power)):
                    break
        for i in range(i, n_ilp):
            acc[0] = [acc[0][r] + vec(ilp * i + r) for r in range(ilp)]
        for j in range(1, levels):
            acc[0] = [acc[0][r] + acc[j][r] for r in range(ilp)]
    total = acc[0][0]
    for m in range(n_ilp * ilp, n_vec):
        total = total + vec(m)
    for r in range(1, ilp):
        total = total + acc[0][r]
    out = namespace(x).zeros(rows)
    for c in range(n_vec * lanes, k):
        out = out + x[:, c]
    for lane in range(lanes):
        out = out + total[:, lane]
    return out


def _sample_dirichlet(input, generator=None):
    """``torch._sample_dirichlet``: gammas drawn in double (the alphas widened), normalised over the last
    dim, cast back and kept inside [tiny, nextafter(1, 0)], as ATen's ``_s_dirichlet_cpu``."""
    gen = _generator_for(generator, None if input.is_cpu else input.device)
    a = input._data
    _kernel_dtype_or_raise(a.dtype, "dirichlet", gen)
    xp = namespace(a)
    if _on_device(gen):
        g = gen.standard_gamma(xp.where(a > 0, a, 1.0).astype(_f64))
    else:
        g = _standard_gamma_values(a, _f64, generator)
    g = xp.maximum(g, np.finfo(_f64).tiny)
    if _on_device(gen) or g.ndim == 0:
        total = g.sum(-1, keepdims=True)
    else:
        total = _aten_row_sums(g.reshape(-1, g.shape[-1])).reshape(g.shape[:-1] + (1,))
    r = (g / total).astype(a.dtype)
    top = np.nextafter(a.dtype.type(1), a.dtype.type(0))
    return _finish_like(xp.minimum(top, xp.maximum(np.finfo(a.dtype).tiny, r)).astype(a.dtype), input)


def _stirling_tail(k):
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


_STIRLING_TAIL = [0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287]


def _binomial_inversion(draws, count, prob, S):
    """Count geometric waiting times (ceil(log U / log(1 - p))) until they pass ``count``."""
    logprob = float(S(math.log1p(-prob))) if prob < 1 else -math.inf
    geom_sum, num_geom = 0.0, 0.0
    while True:
        u = draws.uniform()
        g = math.log(u) / logprob if u > 0 else math.inf
        geom = math.ceil(g) if g < math.inf else g         # (ceil of inf would raise)
        geom_sum += geom
        if geom_sum > count:
            return num_geom
        num_geom += 1


def _btrs(draws, count, prob, S):
    """Hoermann's BTRS (transformed rejection with squeeze), as ATen writes it.  ``S`` rounds what C computes
    in scalar_t (float32 for float tensors): the products of count and prob."""
    stddev = math.sqrt(float(S(S(count) * S(prob) * S(1 - S(prob)))))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = float(S(S(count) * S(prob))) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(S(S(prob) / S(1 - S(prob))))
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor(float(S(S(count + 1) * S(prob))))
    while True:
        U = draws.uniform() - 0.5
        V = draws.uniform()
        us = 0.5 - abs(U)
        k = float(S(math.floor((2 * a / us + b) * U + c)))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and V <= v_r:
            return k
        V = math.log(V * alpha / (a / (us * us) + b)) if V > 0 else -math.inf
        upperbound = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                      + (count + 1) * math.log((count - m + 1) / (count - k + 1))
                      + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
                      + _stirling_tail(m) + _stirling_tail(count - m) - _stirling_tail(k) - _stirling_tail(count - k))
        if V <= upperbound:
            return k


def _binomial_one(draws, count, prob, S):
    """ATen's sample_binomial: 0 / count at the edges, BTRS when count * min(p, 1-p) >= 10, else inversion."""
    if not math.isfinite(count):      # (PyTorch loops forever on a NaN or infinite count)
        return math.nan
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if float(S(S(count) * S(prob))) >= 10.0:
            return _btrs(draws, count, prob, S)
        return _binomial_inversion(draws, count, prob, S)
    if prob > 0.5:
        q = float(S(1.0 - prob))
        if float(S(S(count) * S(q))) >= 10.0:
            return count - _btrs(draws, count, q, S)
        return count - _binomial_inversion(draws, count, q, S)
    return math.nan


def binomial(count, prob, generator=None):
    """Samples from Binomial(count, prob) elementwise (``count`` and ``prob`` broadcast; float tensors)."""
    gen = _generator_for(generator, None if count.is_cpu else count.device)
    c_arr, p_arr = count._data, prob._data
    if not _is_float(c_arr.dtype):
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: {_type_word(c_arr.dtype)}")
    shape = broadcast_shapes_or_raise(c_arr.shape, p_arr.shape)
    if p_arr.dtype != c_arr.dtype:
        raise RuntimeError(f"Found dtype {_type_word(p_arr.dtype)} but expected {_type_word(c_arr.dtype)}")
    _kernel_dtype_or_raise(c_arr.dtype, "binomial_cpu", gen)
    xp = namespace(c_arr, p_arr)
    if _on_device(gen):
        cc = xp.broadcast_to(c_arr, shape).astype(_f64)
        pp = xp.broadcast_to(p_arr, shape).astype(_f64)
        ok = (cc > 0) & (pp > 0) & (pp < 1)
        v = gen.binomial(xp.where(ok, cc, 0).astype(np.int64), xp.where(ok, pp, 0.5)).astype(_f64)
        v = xp.where(ok, v, xp.where(pp >= 1, cc, 0.0))
        return _finish_like(v.astype(c_arr.dtype), count)
    S = _f32 if c_arr.dtype != _f64 else float
    cs = np.broadcast_to(to_host(c_arr), shape).astype(_f64).reshape(-1).tolist()
    ps = np.broadcast_to(to_host(p_arr).astype(c_arr.dtype), shape).astype(_f64).reshape(-1).tolist()
    draws = _ScalarDraws(gen)
    try:
        vals = [_binomial_one(draws, c, p, S) for c, p in zip(cs, ps)]
    finally:
        draws.close()
    return _finish_like(xp.asarray(vals, dtype=_f64).astype(c_arr.dtype).reshape(shape), count)


# ====================================================================== Tensor methods

def _bernoulli_method(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)


def _multinomial_method(self, num_samples, replacement=False, *, generator=None):
    return multinomial(self, num_samples, replacement, generator=generator)


register({"uniform_": uniform_, "normal_": normal_, "random_": _random_overloads, "bernoulli_": bernoulli_,
          "exponential_": exponential_, "geometric_": geometric_, "log_normal_": log_normal_, "cauchy_": cauchy_,
          "bernoulli": _bernoulli_method, "multinomial": _multinomial_method})
