"""The discrete Fourier transform's three kernels, and the short-time Fourier transform built on them.

Every function of ``torch.fft`` (``pedatorch/fft.py``) is composed, as in ATen, of three primitive ops:

    _fft_c2c(x, dims, normalization, forward)   complex -> complex, same shape        FftC2CBackward0
    _fft_r2c(x, dims, normalization, onesided)  real -> complex (onesided: the last   FftR2CBackward0
                                                dim keeps n // 2 + 1 frequencies)
    _fft_c2r(x, dims, normalization, n)         onesided complex -> real, the last    FftC2RBackward0
                                                dim becomes n long

plus the small ops around them (a cast to complex, zero-padding or slicing to the requested length, a
conjugate), so that ``y.grad_fn`` chains show what PyTorch shows.

The transform (forward direction) of a length-n signal is X[k] = sum_j x[j] exp(-2 pi i jk / n); the inverse
uses exp(+2 pi i jk / n).  ``normalization`` says by what the kernel divides: 0 nothing, 1 sqrt(n), 2 n
(n: the number of points transformed, the product over all dims).  The ``norm=`` strings of the public
functions map onto it per direction ("backward": the inverse divides by n; "forward": the forward does;
"ortho": both divide by sqrt(n)).

Gradients (PyTorch's conjugate Wirtinger convention: the gradient of a linear map A is A^H applied to the
output's gradient).  The DFT matrix is symmetric, so its conjugate transpose is the unnormalized inverse:

- c2c: dx = c2c(grad, dims, same normalization, the other direction);
- r2c: x is real, so dx = real(inverse c2c(grad)); a onesided grad is first padded with zeros to the full
  length (the frequencies the op dropped got no gradient);
- c2r: the kernel reads each frequency k in 1 .. n - n//2 - 1 twice (once as itself, once mirrored as its
  conjugate), so dx = r2c(grad) with those entries doubled.

Each backward is written with these same ops, so double backward needs nothing more.

numpy (cupy on a GPU) does the arithmetic: ``xp.fft.fftn`` and friends, whose own ``norm=`` names say which
direction divides; ``_numpy_norm`` translates.  The result's memory layout follows ATen's CPU kernel (batch
dims first, ordered by the input's strides, then the transformed dims), so ``stride()`` agrees with PyTorch.
"""
import warnings

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.function import ArrayFunction, before_checks
from ..backend import namespace
from ._util import register, wrap_dim, _type_word
from .creation import ones, zeros
from .elementwise import real
from .manip import constant_pad_nd, pad as _pad
from .shape import narrow, as_strided, UnfoldGrad, view_as_real, view_as_complex

__all__ = ["stft", "istft"]

NORM_NONE, NORM_BY_ROOT_N, NORM_BY_N = 0, 1, 2


def _numpy_norm(normalization, forward):
    """numpy's ``norm=`` for a transform in ``forward`` direction that divides as ``normalization`` says.
    numpy names the direction that divides by n: "backward" (the inverse does) or "forward" (the forward
    does)."""
    if normalization == NORM_BY_ROOT_N:
        return "ortho"
    divides = normalization == NORM_BY_N
    if forward:
        return "forward" if divides else "backward"
    return "backward" if divides else "forward"


# ====================================================================== kernels (arrays in, arrays out)

def _sort_dims(x, dims, exclude_last=False):
    """ATen's order for the transformed dims: largest input stride first (the last dim of a onesided
    transform stays last: it is the one that is halved)."""
    body = sorted(dims[:-1] if exclude_last else dims, key=lambda d: -x.strides[d])
    return tuple(body) + (tuple(dims[-1:]) if exclude_last else ())


def _batched(x, dims, transform):
    """``transform(xt, axes)`` on x with the batch dims moved first (ordered by stride, largest first) and
    ``dims`` last, as ATen's ``_exec_fft`` lays out its work; the result is made contiguous in that order
    and permuted back, which gives PyTorch's output strides."""
    xp = namespace(x)
    batch = sorted((d for d in range(x.ndim) if d not in dims), key=lambda d: -x.strides[d])
    perm = batch + list(dims)
    axes = tuple(range(len(batch), x.ndim))
    out = xp.ascontiguousarray(transform(x.transpose(perm), axes))
    return out.transpose(tuple(sorted(range(x.ndim), key=perm.__getitem__)))   # (the inverse permutation)


def c2c_kernel(x, dims, normalization, forward):
    xp = namespace(x)
    if not dims:
        return x.copy(order="K")   # (ATen: a clone)
    if x.dtype.kind != "c":
        x = x.astype(np.result_type(x.dtype, np.complex64))
    fn = xp.fft.fftn if forward else xp.fft.ifftn
    norm = _numpy_norm(normalization, forward)
    return _batched(x, _sort_dims(x, dims), lambda a, axes: fn(a, axes=axes, norm=norm))


def r2c_kernel(x, dims, normalization, onesided):
    xp = namespace(x)
    norm = _numpy_norm(normalization, True)
    fn = xp.fft.rfftn if onesided else xp.fft.fftn   # fftn of a real array: the full (Hermitian) spectrum
    return _batched(x, _sort_dims(x, dims, exclude_last=True), lambda a, axes: fn(a, axes=axes, norm=norm))


def c2r_kernel(x, dims, normalization, last_dim_size):
    xp = namespace(x)
    if len(dims) > 1:
        # as ATen: a c2c inverse over the leading dims, then a 1-D c2r over the last one
        x = c2c_kernel(x, dims[:-1], normalization, False)
        dims = dims[-1:]
    norm = _numpy_norm(normalization, False)
    return _batched(x, dims, lambda a, axes: xp.fft.irfft(a, n=last_dim_size, axis=-1, norm=norm))


# ====================================================================== the primitive ops

class FftC2C(ArrayFunction):
    """out = DFT of x over dims (``forward``: exp(-2 pi i jk/n), else exp(+...)), divided per normalization;
    dx = the same transform in the other direction (the DFT matrix's conjugate transpose)"""
    node_name = "FftC2CBackward0"

    @staticmethod
    def forward(ctx, x, dims, normalization, forward):
        ctx.args = (dims, normalization, forward)
        return c2c_kernel(x, dims, normalization, forward)

    @staticmethod
    def backward(ctx, grad):
        dims, normalization, forward = ctx.args
        return FftC2C.apply(grad, dims, normalization, not forward), None, None, None


class FftR2C(ArrayFunction):
    """out = DFT of the real x over dims (onesided: the last dim keeps n // 2 + 1 frequencies);
    dx = real(inverse DFT of grad, zero-padded back to the full length)"""
    node_name = "FftR2CBackward0"

    @staticmethod
    def forward(ctx, x, dims, normalization, onesided):
        ctx.args = (dims, normalization, onesided, x.shape[dims[-1]])
        return r2c_kernel(x, dims, normalization, onesided)

    @staticmethod
    def backward(ctx, grad):
        dims, normalization, onesided, last_size = ctx.args
        last = dims[-1]
        missing = last_size - grad.shape[last]
        if onesided and missing > 0:   # the dropped half of the spectrum: zeros
            grad = constant_pad_nd(grad, (0, 0) * (grad.dim() - 1 - last) + (0, missing))
        return real(FftC2C.apply(grad, dims, normalization, False)), None, None, None


class FftC2R(ArrayFunction):
    """out = the real inverse DFT of a onesided (Hermitian) spectrum, last dim n = ``last_dim_size`` long;
    dx = r2c(grad), the frequencies the kernel mirrors (1 .. n - n//2 - 1) doubled"""
    node_name = "FftC2RBackward0"

    @staticmethod
    def forward(ctx, x, dims, normalization, last_dim_size):
        ctx.args = (dims, normalization)
        return c2r_kernel(x, dims, normalization, last_dim_size)

    @staticmethod
    def backward(ctx, grad):
        dims, normalization = ctx.args
        g = FftR2C.apply(grad, dims, normalization, True)
        last = dims[-1]
        doubled = grad.shape[last] - g.shape[last]
        if doubled > 0:
            xp = namespace(g._data)
            w = xp.ones(g.shape[last], dtype=g._data.real.dtype)
            w[1:1 + doubled] = 2
            g = g * Tensor._make(w.reshape((-1,) + (1,) * (g.dim() - 1 - last)))
        return g, None, None, None


class ConjPhysical(ArrayFunction):
    """out = conj(x) (a new tensor: PyTorch's conj_physical);  dx = conj(grad)"""
    node_name = "ConjPhysicalBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        return namespace(x).conj(x)

    @staticmethod
    def backward(ctx, grad):
        return grad.conj()


def conj_physical(x):
    return ConjPhysical.apply(x) if x.is_complex() else x


# ====================================================================== argument handling shared with torch.fft

def wrap_fft_dim(dim, ndim):
    """A dim of a transform: negative counts from the end; a 0-dim tensor has none (IndexError)."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, ndim)


def norm_mode(norm, forward):
    """``norm=`` ("backward" (None), "forward", "ortho") -> the kernel's normalization for one direction."""
    if norm is None or norm == "backward":
        return NORM_NONE if forward else NORM_BY_N
    if norm == "forward":
        return NORM_BY_N if forward else NORM_NONE
    if norm == "ortho":
        return NORM_BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def promote_fft(x, require_complex=False):
    """PyTorch's ``promote_tensor_fft``: integers and bool compute in the default float dtype; the CPU
    kernels have float32/float64 (and their complex types) only; ``require_complex`` casts real to complex.
    The cast is a ``.to()``: a ToCopyBackward0 node in the graph."""
    dt = x.dtype
    if dt.is_complex:
        return x
    if not dt.is_floating_point:
        dt = D.get_default_dtype()
    if dt not in (D.float32, D.float64):
        raise RuntimeError(f"Unsupported dtype {_type_word(dt.np)}")
    if require_complex:
        dt = D.complex64 if dt is D.float32 else D.complex128
    return x if dt is x.dtype else x.to(dt)


def resize_fft_input(x, dims, sizes):
    """x with x.size(dims[i]) == sizes[i]: sliced (a view) where longer, zero-padded at the end where
    shorter (one ``constant_pad_nd`` for all dims, as ATen does)."""
    shape = x.shape
    pad_amount = [0] * (2 * len(shape))
    must_pad = False
    for d, n in zip(dims, sizes):
        if n == -1:
            continue
        if shape[d] < n:
            must_pad = True
            pad_amount[len(pad_amount) - 2 * d - 1] = n - shape[d]   # (pads are listed last dim first)
        if shape[d] > n:
            x = narrow(x, d, 0, n)
    return constant_pad_nd(x, tuple(pad_amount)) if must_pad else x


# ====================================================================== stft / istft

def _opt(v):
    return "None" if v is None else str(int(v)) if isinstance(v, bool) else str(v)


_LEGACY = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
           "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _type_string(t):
    """ATen's ``toString()`` of a tensor's type, as its error messages print it: the legacy class name
    (torch.FloatTensor, torch.cuda.DoubleTensor) where there is one, else CPUComplexFloatType, ..."""
    name = t._data.dtype.name
    if name in _LEGACY:
        return ("torch.cuda." if t.is_cuda else "torch.") + _LEGACY[name] + "Tensor"
    word = {"complex64": "ComplexFloat", "complex128": "ComplexDouble"}.get(name, _type_word(t._data.dtype))
    return ("CUDA" if t.is_cuda else "CPU") + word + "Type"


def _sizes(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


_WARNED = {"window": False, "real": False, "length": False}


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """Short-time Fourier transform: the DFT of ``n_fft``-long frames of ``input`` taken every ``hop_length``
    samples, each multiplied by ``window``; result (batch?, n_fft // 2 + 1 or n_fft, n_frames)."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:   # (torch/functional.py: reflect-pad n_fft // 2 on both sides, as a 3-D input for F.pad)
        signal_dim = input.dim()
        pad = n_fft // 2
        input = _pad(input.view([1] * (3 - signal_dim) + list(input.shape)), [pad, pad], pad_mode)
        input = input.view(input.shape[-signal_dim:])
    hop_length = n_fft >> 2 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if window is None and not _WARNED["window"]:   # (PyTorch warns once per process)
        _WARNED["window"] = True
        warnings.warn("A window was not provided. A rectangular window will be applied,which is known to cause "
                      "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
                      "recommended to reduce spectral leakage.To suppress this warning and use a rectangular "
                      "window, explicitly set `window=torch.ones(n_fft, device=<device>)`.", UserWarning)

    def repr_():
        w = "None" if window is None else f"{_type_string(window)}{{{_sizes(window.shape)}}}"
        return (f"stft({_type_string(input)}{_sizes(input.shape)}, n_fft={n_fft}, hop_length={hop_length}, "
                f"win_length={win_length}, window={w}, normalized={int(normalized)}, onesided={_opt(onesided)}, "
                f"return_complex={_opt(return_complex)}, align_to_window={_opt(align_to_window)}) ")

    input, window = before_checks("stft", input, window)   # (autocast on the CPU: float32)
    complex_result = input.is_complex() or (window is not None and window.is_complex())
    if return_complex is None and not complex_result:
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will "
                           "further require that return_complex=True in a future PyTorch release.")
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(repr_() + ": expected a tensor of floating point or complex values")
    if not 1 <= input.dim() <= 2:
        raise RuntimeError(repr_() + ": expected a 1D or 2D tensor")
    x = input.unsqueeze(0) if input.dim() == 1 else input
    batch, length = x.shape
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(repr_() + f": expected 0 < n_fft < {length}, but got n_fft={win_length}")
    if hop_length <= 0:
        raise RuntimeError(repr_() + f": expected hop_length > 0, but got hop_length={hop_length}")
    if win_length <= 0 or win_length > n_fft:
        raise RuntimeError(repr_() + f": expected 0 < win_length <= n_fft, but got win_length={win_length}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win_length):
        raise RuntimeError(repr_() + f": expected a 1D window tensor of size equal to win_length={win_length}, "
                           f"but got window with size {_sizes(window.shape)}")
    if return_complex is False and not complex_result and not _WARNED["real"]:
        _WARNED["real"] = True
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch release, stft will "
                      "return complex tensors for all inputs, and return_complex=False will raise an error.\n"
                      "Note: you can still call torch.view_as_real on the complex output to recover the old "
                      "return format.", UserWarning)
    if return_complex is None:
        return_complex = complex_result
    if win_length < n_fft:   # a shorter window sits in the middle of the frame, zeros around it
        left = (n_fft - win_length) // 2
        padded = zeros(n_fft, dtype=(x if window is None else window).dtype, device=x.device)
        if window is None:
            padded.narrow(0, left, win_length).fill_(1)
        else:
            padded.narrow(0, left, win_length).copy_(window)
        window = padded
    if align_to_window:   # frames start where the (centred) window starts: pad so that frame 0 begins at t = 0
        n_frames = 1 + (length - win_length) // hop_length
        x = _pad(x, [(n_fft - win_length) // 2] * 2, "constant")
    else:
        n_frames = 1 + (length - n_fft) // hop_length
    # the frames as a strided view (time to columns): frame m starts at sample m * hop_length
    st = x.stride()
    frames = as_strided(x, (batch, n_frames, n_fft), (st[0], hop_length * st[1], st[1]))
    if window is not None:
        frames = frames * window
    normalization = NORM_BY_ROOT_N if normalized else NORM_NONE
    if frames.is_complex():
        onesided = False if onesided is None else onesided
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = FftC2C.apply(frames, (2,), normalization, True)
    else:
        onesided = True if onesided is None else onesided
        out = FftR2C.apply(frames, (2,), normalization, onesided)
    out.transpose_(1, 2)
    if input.dim() == 1:
        out.squeeze_(0)
    return out if return_complex else view_as_real(out)


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """Inverse of ``stft``: each frame's inverse DFT times the window, overlap-added, divided by the sum of
    the squared windows that overlap there (the window envelope)."""
    hop_length = n_fft >> 2 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    onesided_opt = onesided

    def repr_():
        w = "None" if window is None else f"{_type_string(window)}{{{_sizes(window.shape)}}}"
        return (f"istft({_type_string(input)}{_sizes(input.shape)}, n_fft={n_fft}, hop_length={hop_length}, "
                f"win_length={win_length}, window={w}, center={int(center)}, normalized={int(normalized)}, "
                f"onesided={_opt(onesided_opt)}, length={_opt(length)}, return_complex={int(return_complex)}) ")

    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    x = view_as_real(input)
    input_dim = x.dim()
    n_frames, fft_size = x.size(-2), x.size(-3)
    if x.numel() == 0:
        raise RuntimeError(repr_() + ": input tensor cannot be empty.")
    if input_dim not in (3, 4):
        raise RuntimeError(repr_() + f": expected a tensor with 3 or 4 dimensions, but got {input_dim}")
    expected_len = n_fft + hop_length * (n_frames - 1)
    onesided = fft_size != n_fft if onesided is None else onesided
    if onesided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(repr_() + ": expected the frequency dimension (3rd to the last) of the input tensor to "
                           f"match n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not onesided and n_fft != fft_size:
        raise RuntimeError(repr_() + ": expected the frequency dimension (3rd to the last) of the input tensor to "
                           f"match n_fft when onesided=False, but got {fft_size}")
    if not 0 < hop_length <= win_length:
        raise RuntimeError(repr_() + ": expected 0 < hop_length <= win_length")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(repr_() + ": expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win_length):
        raise RuntimeError(repr_() + ": Invalid window shape. window has to be 1D and length of `win_length`")
    if window is None:
        window = ones(win_length, dtype=x.dtype, device=x.device)
    if win_length != n_fft:
        left = (n_fft - win_length) // 2
        window = constant_pad_nd(window, (left, n_fft - win_length - left))
    if input_dim == 3:
        x = x.unsqueeze(0)
    x = view_as_complex(x.transpose(1, 2))       # (channel, n_frames, fft_size)
    normalization = NORM_BY_ROOT_N if normalized else NORM_BY_N
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        x = FftC2C.apply(x, (2,), normalization, False)
    else:
        if window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not onesided:
            x = narrow(x, -1, 0, n_fft // 2 + 1)
        x = FftC2R.apply(x, (2,), normalization, n_fft)
    y = x * window.view(1, 1, n_fft)
    # overlap-add: unfold's backward adds each frame back at its place
    y = UnfoldGrad.apply(y, (y.shape[0], expected_len), 1, n_fft, hop_length)
    envelope = UnfoldGrad.apply(window.pow(2).expand(1, n_frames, n_fft), (1, expected_len), 1, n_fft,
                                hop_length)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else -(n_fft // 2) if center else expected_len
    y = y[:, start:end]
    envelope = envelope[:, start:end]
    if bool((envelope.abs().min() < 1e-11).item()):   # (PyTorch prints the bool tensor of this test)
        raise RuntimeError(repr_() + "window overlap add min: 1\n[ CPUBoolType{} ]")
    y = y / envelope
    if input_dim == 3:
        y = y.squeeze(0)
    if end > expected_len:
        if not _WARNED["length"]:
            _WARNED["length"] = True
            warnings.warn("The length of signal is shorter than the length parameter. Result is being padded with "
                          "zeros in the tail. Please check your center and hop_length settings.", UserWarning)
        y = constant_pad_nd(y, (0, end - expected_len))
    return y


register({"stft": stft, "istft": istft})
