"""Random number generators: PyTorch's CPU generator, bit for bit.

PyTorch's CPU ``Generator`` is a 32-bit Mersenne Twister (mt19937).  Seeding
uses the reference ``init_genrand`` on the low 32 bits of the seed; the 64-bit
seed itself is only remembered (``initial_seed()``).  The twister here is
numpy's ``MT19937`` bit generator, handed the 624-word state we compute, so a
million draws cost one call into C.  numpy's ``Generator.integers`` over the
full 32-bit (64-bit) range returns the twister's raw outputs unchanged, one
word (two words, the first one high) per value: exactly ``random()`` and
``random64()`` below.

Every distribution is built from two kinds of raw draws, exactly as ATen does:

* ``random()``   one 32-bit output of the twister;
* ``random64()`` two outputs, the first one the high half: ``(a << 32) | b``.

``float`` uniforms keep the low 24 bits of ``random()`` (times 2**-24);
``double`` uniforms keep the low 53 bits of ``random64()`` (times 2**-53).

The generator also holds the spare normal of its Box-Muller pair (PyTorch's
``next_double_normal_sample``): scalar-path normals come in pairs (cos, sin),
and the sin half waits here for the next call.  ``get_state()`` returns the
same 5056-byte layout as PyTorch's (``CPUGeneratorImplState``), so states can be
moved between the two libraries.

CUDA tensors never touch this stream: their ops draw on the device (``DeviceDraws``, at the end),
from the device's generator (``pedatorch.cuda``) or from a ``Generator(device='cuda')``.
"""
import contextlib
import math
import os

import numpy as np

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state"]

_DEFAULT_SEED = 67280421310721      # PyTorch's default_rng_seed_val
_N = 624                            # mt19937 state words
_STATE_BYTES = 5056                 # sizeof(CPUGeneratorImplState)
_MASK24 = np.uint32(0xFFFFFF)
_MASK53 = np.uint64((1 << 53) - 1)

_init_cache = {}


def _init_genrand(seed32):
    """The reference mt19937 seeding: state[0] = seed, state[j] = 1812433253 * (s ^ (s >> 30)) + j."""
    key = _init_cache.get(seed32)
    if key is None:
        words = [0] * _N
        x = words[0] = seed32
        for j in range(1, _N):
            x = (1812433253 * (x ^ (x >> 30)) + j) & 0xFFFFFFFF
            words[j] = x
        key = np.array(words, dtype=np.uint32)
        if len(_init_cache) > 256:
            _init_cache.clear()
        _init_cache[seed32] = key
    return key.copy()


def _seed_value(seed, who="manual_seed"):
    """A seed as PyTorch reads it: an int in [-2**63, 2**64), negatives taken modulo 2**64."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        if hasattr(seed, "item") and not isinstance(seed, float):  # a 0-dim tensor
            return _seed_value(seed.item(), who)
        raise RuntimeError(f"{who} expected a long, but got {type(seed).__name__}")
    seed = int(seed)
    if not -(1 << 63) <= seed < (1 << 64):
        raise ValueError("Overflow when unpacking long long")
    return seed % (1 << 64)


_LIBM_NUMPY = {math.log: np.log, math.log1p: np.log1p, math.exp: np.exp, math.tan: np.tan, math.sin: np.sin,
               math.cos: np.cos}


def _libm(fn, x):
    """``fn`` (a ``math`` function, i.e. the C library's) on every element of ``x``.

    numpy's own float64 log/exp/log1p/tan are SIMD versions that differ from
    glibc in the last bit for a few inputs per thousand; PyTorch calls glibc,
    so to reproduce its numbers we call it too (one C call per element).
    """
    x = np.asarray(x, dtype=np.float64)
    flat = x.ravel().tolist()
    try:
        out = np.fromiter(map(fn, flat), np.float64, count=len(flat))
    except (ValueError, OverflowError):  # log(0) = -inf, exp(1000) = inf: numpy's answers
        npfn = _LIBM_NUMPY[fn]
        out = np.empty(len(flat))
        for i, v in enumerate(flat):
            try:
                out[i] = fn(v)
            except (ValueError, OverflowError):
                with np.errstate(all="ignore"):
                    out[i] = npfn(v)
    return out.reshape(x.shape)


class Generator:
    """A source of random numbers: ``Generator(device='cpu')``, PyTorch's mt19937 CPU generator."""

    def __init__(self, device="cpu"):
        from ._device import device as _device_cls
        self.device = _device_cls(device) if not isinstance(device, _device_cls) else device
        if self.device.type == "cuda":           # a device generator: the backend's (cupy's), made on first draw
            from . import cuda                  # lazy: pedatorch.cuda is imported after this module
            if self.device.index is None:
                self.device = _device_cls("cuda", cuda.current_device())
            self._seed, self._rng = _DEFAULT_SEED, None
            return
        self._bg = np.random.MT19937(0)
        self._words = np.random.Generator(self._bg)   # reads raw words from _bg (see _random)
        self._set_seed(_DEFAULT_SEED)

    # ------------------------------------------------------------ seeding
    def _set_seed(self, seed):
        self._seed = seed
        if self.device.type != "cpu":
            self._rng = None                    # the device generator is made again, from this seed, on first use
            return
        self._bg.state = {"bit_generator": "MT19937", "state": {"key": _init_genrand(seed & 0xFFFFFFFF),
                                                                 "pos": _N}}
        self._fresh = True            # seeded, nothing drawn yet (PyTorch: left=1, next=0)
        self._next_double = None      # the spare normal of the last Box-Muller pair
        self._next_float = None

    def manual_seed(self, seed):
        """Seed the generator (an int in [-2**63, 2**64)); returns the generator."""
        self._set_seed(_seed_value(seed))
        return self

    def seed(self):
        """Seed from the operating system's entropy; returns the 64-bit seed used."""
        s = int.from_bytes(os.urandom(8), "little")
        self._set_seed(s)
        return s

    def initial_seed(self):
        """The seed last set (by ``manual_seed`` or ``seed``)."""
        return self._seed

    # ------------------------------------------------------------ state
    def _device_rng(self):
        """The backend generator of a CUDA ``Generator`` (made from its seed on first use)."""
        if self._rng is None:
            from . import cuda
            self._rng = cuda._new_generator(self.device.index, self._seed)
        return self._rng

    def get_state(self):
        """The whole state as a uint8 tensor of 5056 bytes (PyTorch's layout); for a CUDA generator, a uint8
        CPU tensor with the backend generator's state (cupy's, not PyTorch's Philox seed and offset)."""
        from ._tensor import Tensor
        if self.device.type != "cpu":
            from .backend import cuda_backend
            return Tensor._make(cuda_backend().generator_state(self._device_rng()))
        st = self._bg.state["state"]
        pos = int(st["pos"])
        if pos == _N and self._fresh:
            left, nxt = 1, 0
        else:
            left, nxt = _N + 1 - pos, pos
        buf = np.zeros(_STATE_BYTES, dtype=np.uint8)
        buf[0:8] = np.frombuffer(np.uint64(self._seed).tobytes(), np.uint8)
        buf[8:16] = np.frombuffer(np.array([left, 1], np.int32).tobytes(), np.uint8)
        buf[16:24] = np.frombuffer(np.uint64(nxt).tobytes(), np.uint8)
        buf[24:24 + 8 * _N] = np.frombuffer(st["key"].astype(np.uint64).tobytes(), np.uint8)
        o = 24 + 8 * _N                       # normal_x, normal_y, normal_rho, normal_is_valid
        if self._next_double is not None:
            buf[o + 8:o + 16] = np.frombuffer(np.float64(self._next_double).tobytes(), np.uint8)
            buf[o + 24:o + 28] = np.frombuffer(np.int32(1).tobytes(), np.uint8)
        o += 32                               # next_float_normal_sample, is_..._valid
        if self._next_float is not None:
            buf[o:o + 4] = np.frombuffer(np.float32(self._next_float).tobytes(), np.uint8)
            buf[o + 4] = 1
        return Tensor._make(buf)

    def set_state(self, new_state):
        """Restore a state from ``get_state()`` (ours or PyTorch's); returns the generator."""
        from ._tensor import Tensor
        if not isinstance(new_state, Tensor) or new_state._data.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if self.device.type != "cpu":
            from .backend import cuda_backend
            cuda_backend().set_generator_state(self._device_rng(), new_state.cpu()._data.reshape(-1))
            return self
        buf = np.ascontiguousarray(new_state._data if new_state.is_cpu else new_state.cpu()._data).reshape(-1)
        if buf.size != _STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but found the input RNG "
                               f"state size to be {buf.size}")
        seed = int(buf[0:8].view(np.uint64)[0])
        left, seeded = (int(v) for v in buf[8:16].view(np.int32))
        nxt = int(buf[16:24].view(np.uint64)[0])
        if not (seeded == 1 and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        key = buf[24:24 + 8 * _N].view(np.uint64).astype(np.uint32)
        o = 24 + 8 * _N
        self._seed = seed
        self._bg.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": _N if left == 1 else nxt}}
        self._fresh = left == 1 and nxt == 0
        self._next_double = float(buf[o + 8:o + 16].view(np.float64)[0]) if buf[o + 24:o + 28].view(
            np.int32)[0] else None
        o += 32
        self._next_float = float(buf[o:o + 4].view(np.float32)[0]) if buf[o + 4] else None
        return self

    def __getstate__(self):
        return {"device": str(self.device), "seed": self._seed, "state": self.get_state()._data.copy()}

    def __setstate__(self, d):
        from ._tensor import Tensor
        self.__init__(d["device"])
        if self.device.type != "cpu":
            self._set_seed(d["seed"])
        self.set_state(Tensor._make(d["state"]))

    # ------------------------------------------------------------ raw draws (the kernels' building blocks)
    def _random(self, n):
        """``n`` outputs of ``random()``: 32-bit values (a uint32 array)."""
        if n:
            self._fresh = False
        # over the whole uint32 range numpy returns each raw word as it comes (no rejection, no masking)
        return self._words.integers(0, 1 << 32, size=int(n), dtype=np.uint32)

    def _random64(self, n):
        """``n`` outputs of ``random64()``: (first draw << 32) | second draw (a uint64 array)."""
        if n:
            self._fresh = False
        # numpy's MT19937 makes a 64-bit value the same way: first word high, second low
        return self._words.integers(0, 1 << 64, size=int(n), dtype=np.uint64)

    def _uniform_float(self, n):
        """``n`` float32 uniforms in [0, 1): 24 random bits each."""
        return (self._random(n) & _MASK24).astype(np.float32) * np.float32(2.0 ** -24)

    def _uniform_double(self, n):
        """``n`` float64 uniforms in [0, 1): 53 random bits each."""
        return (self._random64(n) & _MASK53).astype(np.float64) * (2.0 ** -53)

    def _normal_doubles(self, n):
        """``n`` standard normals from ATen's scalar ``normal_distribution<double>``.

        Box-Muller on two double uniforms u1, u2: r = sqrt(-2 log1p(-u2)),
        theta = 2 pi u1; the call returns r cos(theta) and keeps r sin(theta)
        for the next call.  So the stream is: [spare], cos0, sin0, cos1, ...
        """
        out = np.empty(n, dtype=np.float64)
        if n == 0:
            return out
        i = 0
        if self._next_double is not None:
            out[0] = self._next_double
            self._next_double = None
            i = 1
        m = n - i
        if m:
            pairs = (m + 1) // 2
            u = self._uniform_double(2 * pairs).reshape(pairs, 2)
            r = np.sqrt(-2.0 * _libm(math.log1p, -u[:, 1]))
            theta = (2.0 * math.pi) * u[:, 0]
            c = r * _libm(math.cos, theta)
            s = r * _libm(math.sin, theta)
            out[i:] = np.stack([c, s], axis=1).reshape(-1)[:m]
            if m % 2:
                self._next_double = float(s[-1])
        return out

    def _double_stream(self):
        return _DoubleStream(self)


class _DoubleStream:
    """Double uniforms one at a time (rejection samplers), drawn in blocks but consumed exactly.

    ``close()`` rewinds the generator so that it has advanced by exactly the
    draws used, as if they had been made one by one.
    """

    def __init__(self, gen):
        self.gen = gen
        self.saved = (gen._bg.state, gen._fresh)
        self.buf = []
        self.i = 0
        self.used = 0

    def next(self):
        if self.i == len(self.buf):
            self.buf = self.gen._uniform_double(max(64, 2 * len(self.buf))).tolist()
            self.i = 0
        self.i += 1
        self.used += 1
        return self.buf[self.i - 1]

    def close(self):
        state, fresh = self.saved
        self.gen._bg.state = state
        self.gen._fresh = fresh
        self.gen._random(2 * self.used)


default_generator = Generator()


_refusal = None  # while set (by ``refusing``), every random op raises RuntimeError with this message


@contextlib.contextmanager
def refusing(message):
    """Within the block, random ops raise ``RuntimeError(message)`` (``vmap(randomness="error")``);
    ``None`` refuses nothing."""
    global _refusal
    before, _refusal = _refusal, message
    try:
        yield
    finally:
        _refusal = before


def _get_generator(generator):
    """The generator a random op on the CPU draws from: every CPU random op asks here first."""
    if _refusal is not None:
        raise RuntimeError(_refusal)
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a torch.Generator, but got {type(generator).__name__}")
    if generator.device.type != "cpu":
        raise RuntimeError(f"Expected a 'cpu' device type for generator but found '{generator.device.type}'")
    return generator


# ---------------------------------------------------------------- random numbers on a CUDA device
# A CUDA op draws on its device from the device's own generator (``pedatorch.cuda._generator``: cupy's
# ``random.default_rng``, seeded by ``pedatorch.cuda.manual_seed`` / ``pedatorch.manual_seed``), or from a
# ``Generator(device='cuda')``: never on the host. The numbers differ from the CPU stream's, as in PyTorch.

class DeviceDraws:
    """Raw draws on a device, from a backend generator (cupy's ``random.Generator``, or the stand-in's numpy
    one): only the methods both offer. Every method returns a flat device array of ``n`` values."""

    def __init__(self, rng, xp, context=None):
        self.rng, self.xp, self._context = rng, xp, context

    def _draw(self, method, *args, **kwargs):
        """``rng.method(...)``, on the generator's device (cupy draws only where its state lives)."""
        if self._context is None:
            return getattr(self.rng, method)(*args, **kwargs)
        with self._context():
            return getattr(self.rng, method)(*args, **kwargs)

    def uniform(self, n, dtype=np.float64):
        """U[0, 1) in float32 or float64."""
        return self._draw("random", int(n), dtype=np.float64 if dtype == np.float64 else np.float32)

    def normal(self, n, dtype=np.float64):
        """N(0, 1) in float32 or float64."""
        return self._draw("standard_normal", int(n), dtype=np.float64 if dtype == np.float64 else np.float32)

    def integers(self, n, high):
        """Integers uniform in [0, high) as uint64 (high <= 2**64)."""
        high, n = int(high), int(n)
        if high <= 1 << 63:     # cupy's kernels take the range as an int64
            return self._draw("integers", 0, high, size=n, dtype=np.uint64)
        bits = self._bits64(n)
        if high < 1 << 64:      # rejection: redraw the values >= high (fewer than half, each round)
            limit = np.uint64(high)
            bad = bits >= limit
            while bool(bad.any()):
                bits = self.xp.where(bad, self._bits64(n), bits)
                bad = bits >= limit
        return bits

    def _bits64(self, n):
        """``n`` uniform 64-bit words (two 32-bit draws each)."""
        hi = self._draw("integers", 0, 1 << 32, size=n, dtype=np.uint64)
        lo = self._draw("integers", 0, 1 << 32, size=n, dtype=np.uint64)
        return (hi << np.uint64(32)) | lo

    def exponential(self, n):
        """Exp(1) in float64."""
        return self._draw("standard_exponential", int(n))

    def poisson(self, lam):
        """Poisson(lam) for the float64 device array ``lam`` (int64, lam's shape)."""
        return self._draw("poisson", lam)

    def standard_gamma(self, alpha):
        """Gamma(alpha, 1) for the float64 device array ``alpha`` (float64, alpha's shape)."""
        return self._draw("standard_gamma", alpha)

    def binomial(self, n, p):
        """Binomial(n, p) for the int64 device array ``n`` and float64 ``p`` (int64, their shape)."""
        return self._draw("binomial", n, p)


def _device_generator(generator, device):
    """What a random op on CUDA device ``device`` (a ``pedatorch.device``) draws from: ``DeviceDraws`` over
    the device's default generator, or over ``generator``'s (a ``Generator(device='cuda')``)."""
    if _refusal is not None:
        raise RuntimeError(_refusal)
    from . import cuda                              # lazy: pedatorch.cuda is imported after this module
    from .backend import device_namespace, cuda_backend
    xp = device_namespace(device)                   # PyTorch's error where there is no CUDA
    if generator is None:
        index = cuda.current_device() if device.index is None else device.index
        rng = cuda._generator(index)
    else:
        if not isinstance(generator, Generator):
            raise TypeError(f"expected a torch.Generator, but got {type(generator).__name__}")
        if generator.device.type != device.type:
            raise RuntimeError(f"Expected a '{device.type}' device type for generator but found "
                               f"'{generator.device.type}'")
        index, rng = generator.device.index, generator._device_rng()
    if index == cuda.current_device():
        return DeviceDraws(rng, xp)
    backend = cuda_backend()
    return DeviceDraws(rng, xp, lambda: backend.device_context(index))


def manual_seed(seed):
    """Seed the default generator and every CUDA device's (lazily: no cupy import here); returns the CPU one."""
    if not isinstance(seed, (int, np.integer)):
        seed = int(seed)
    gen = default_generator.manual_seed(seed)
    from . import cuda                              # lazy: pedatorch.cuda is imported after this module
    cuda.manual_seed_all(gen.initial_seed())
    return gen


def seed():
    """Seed the default generator (and the CUDA devices') non-deterministically; returns the seed."""
    s = default_generator.seed()
    from . import cuda
    cuda.manual_seed_all(s)
    return s


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)
