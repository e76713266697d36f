"""The image operations on tensors: images are (..., C, H, W) tensors (a 2-D tensor is one channel).

Everything here is made of ordinary tensor ops (flip, slicing, pad, interpolate, grid_sample, conv2d), in
the same order of operations as torchvision's tensor kernels, so results agree with torchvision's to the
rounding of those ops.  The rules that shape the code:

- the value range follows the dtype: [0, 1] for floats, [0, 255] for uint8, [0, max] for other ints
  (``_max_value``);
- an op that needs floats (resize, rotate, blur) converts an integer image to float32 first and rounds
  back at the end (``_as_batch_of_floats`` / ``_restore``);
- an op that needs a batch (N, C, H, W) flattens the leading dims into one and restores them afterwards.
"""
import warnings

from ... import _dtype as D
from ..._tensor import Tensor
from ...ops.creation import linspace, ones, ones_like, tensor, zeros_like
from ...ops.elementwise import where
from ...ops.join import cat, stack
from ...nn.functional.conv import conv2d
from ...nn.functional.vision import grid_sample, interpolate, pad as torch_pad

__all__ = ["get_dimensions", "get_image_size", "get_image_num_channels", "convert_image_dtype", "vflip", "hflip",
           "crop", "pad", "resize", "affine", "rotate", "perspective", "elastic_transform", "gaussian_blur",
           "rgb_to_grayscale", "adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue",
           "adjust_gamma", "invert", "posterize", "solarize", "adjust_sharpness", "autocontrast", "equalize",
           "normalize", "erase"]

_INTEGER_IMAGE_DTYPES = (D.uint8, D.int8, D.int16, D.int32, D.int64)


# ====================================================================== shapes and value ranges

def _assert_image_tensor(img):
    if not img.ndim >= 2:
        raise TypeError("Tensor is not a torch image.")


def get_dimensions(img):
    """[channels, height, width] of an image tensor."""
    _assert_image_tensor(img)
    channels = 1 if img.ndim == 2 else img.shape[-3]
    height, width = img.shape[-2:]
    return [channels, height, width]


def get_image_size(img):
    """[width, height] (PIL's order)."""
    _assert_image_tensor(img)
    return [img.shape[-1], img.shape[-2]]


def get_image_num_channels(img):
    _assert_image_tensor(img)
    return 1 if img.ndim == 2 else img.shape[-3]


def _max_value(dtype):
    """The value of full intensity: 1 for floating images, the largest value for integer ones."""
    return {D.uint8: 255, D.int8: 127, D.int16: 32767, D.uint16: 65535, D.int32: 2147483647,
            D.int64: 9223372036854775807}.get(dtype, 1)


def _assert_channels(img, permitted):
    c = get_dimensions(img)[0]
    if c not in permitted:
        raise TypeError(f"Input image tensor permitted channel values are {permitted}, but found {c}")


def _assert_ndim_3(img):
    if img.ndim < 3:
        raise TypeError(f"Input image tensor should have at least 3 dimensions, but found {img.ndim}")


def convert_image_dtype(image, dtype=D.float32):
    """Change dtype and rescale: int -> float divides by the int's full intensity; float -> int multiplies by
    (max + 1 - 0.001) and truncates, so that [0, 1] spreads evenly over 0..max; int -> int shifts by powers of 2."""
    if image.dtype == dtype:
        return image
    if image.is_floating_point():
        if dtype.is_floating_point:
            return image.to(dtype)
        if (image.dtype == D.float32 and dtype in (D.int32, D.int64)) or \
                (image.dtype == D.float64 and dtype == D.int64):
            raise RuntimeError(f"The cast from {image.dtype} to {dtype} cannot be performed safely.")
        eps = 1e-3
        return image.mul(float(_max_value(dtype)) + 1.0 - eps).to(dtype)
    input_max = float(_max_value(image.dtype))
    if dtype.is_floating_point:
        return image.to(dtype) / input_max
    output_max = float(_max_value(dtype))
    if input_max > output_max:
        factor = int((input_max + 1) // (output_max + 1))
        return image.div(factor, rounding_mode="floor").to(dtype)
    factor = int((output_max + 1) // (input_max + 1))
    return image.to(dtype) * factor


# ====================================================================== batches of floats in, the caller's dtype out

def _as_batch_of_floats(img, float_dtypes):
    """(img as (N, C, H, W) in a dtype of float_dtypes, what _restore needs to undo it)."""
    lead, out_dtype = img.shape[:-3] if img.ndim >= 3 else None, img.dtype
    c, h, w = get_dimensions(img)
    img = img.reshape(-1, c, h, w)
    if out_dtype not in float_dtypes:
        img = img.to(float_dtypes[0])
    return img, (lead, out_dtype)


def _restore(img, how):
    """Undo _as_batch_of_floats: the original leading dims, and the original dtype (integers rounded first)."""
    lead, out_dtype = how
    img = img.reshape(img.shape[-2:]) if lead is None else img.reshape(*lead, *img.shape[-3:])
    if img.dtype != out_dtype:
        if out_dtype in _INTEGER_IMAGE_DTYPES:
            img = img.round()
        img = img.to(out_dtype)
    return img


# ====================================================================== geometry: flips, crops, padding

def vflip(img):
    _assert_image_tensor(img)
    return img.flip(-2)


def hflip(img):
    _assert_image_tensor(img)
    return img.flip(-1)


def crop(img, top, left, height, width):
    """img[..., top:top+height, left:left+width]; the part outside the image is padded with zeros."""
    _assert_image_tensor(img)
    _, h, w = get_dimensions(img)
    right, bottom = left + width, top + height
    if left < 0 or top < 0 or right > w or bottom > h:
        padding_ltrb = [max(-left + min(0, right), 0), max(-top + min(0, bottom), 0),
                        max(right - max(w, left), 0), max(bottom - max(h, top), 0)]
        return pad(img[..., max(top, 0):bottom, max(left, 0):right], padding_ltrb, fill=0)
    return img[..., top:bottom, left:right]


def _parse_pad_padding(padding):
    """torchvision's padding (int, [all], [left/right, top/bottom] or [left, top, right, bottom]) as
    torch's [left, right, top, bottom]."""
    if isinstance(padding, int):
        left = right = top = bottom = padding
    elif len(padding) == 1:
        left = right = top = bottom = padding[0]
    elif len(padding) == 2:
        left = right = padding[0]
        top = bottom = padding[1]
    else:
        left, top, right, bottom = padding
    return [left, right, top, bottom]


def _pad_symmetric(img, padding):
    """Mirror padding that repeats the edge pixel (1 2 3 -> 2 1 | 1 2 3 | 3 2), by indexing; negative
    padding crops."""
    if min(padding) < 0:
        crop_left, crop_right, crop_top, crop_bottom = [-min(x, 0) for x in padding]
        img = img[..., crop_top:img.shape[-2] - crop_bottom, crop_left:img.shape[-1] - crop_right]
        padding = [max(x, 0) for x in padding]
    left, right, top, bottom = padding

    def mirrored(n, before, after):
        return tensor(list(range(before - 1, -1, -1)) + list(range(n)) + [n - 1 - i for i in range(after)],
                      device=img.device)
    rows = mirrored(img.shape[-2], top, bottom)
    cols = mirrored(img.shape[-1], left, right)
    return img.index_select(-2, rows).index_select(-1, cols)


def pad(img, padding, fill=0, padding_mode="constant"):
    """Pad the last two dims; padding_mode constant (with ``fill``), edge, reflect or symmetric."""
    _assert_image_tensor(img)
    if fill is None:
        fill = 0
    if not isinstance(padding, (int, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if not isinstance(fill, (int, float)):
        raise TypeError("Got inappropriate fill arg")
    if not isinstance(padding_mode, str):
        raise TypeError("Got inappropriate padding_mode arg")
    if isinstance(padding, (tuple, list)) and len(padding) not in [1, 2, 4]:
        raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple")
    if padding_mode not in ["constant", "edge", "reflect", "symmetric"]:
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    p = _parse_pad_padding(list(padding) if isinstance(padding, tuple) else padding)
    if padding_mode == "symmetric":
        return _pad_symmetric(img, p)
    if padding_mode == "constant":
        # constant padding works in any dtype and for any number of leading dims
        return torch_pad(img, p, mode="constant", value=float(fill))
    # reflect/replicate: torch's kernels take floats in (N, C, H, W)
    batch, how = _as_batch_of_floats(img, (D.float32, D.float64))
    out = torch_pad(batch, p, mode="replicate" if padding_mode == "edge" else "reflect")
    return _restore(out, how)


# ====================================================================== resampling

def resize(img, size, interpolation="bilinear", antialias=True):
    """Resample to ``size`` = [h, w] with ``nn.functional.interpolate`` (antialias only for bilinear/bicubic)."""
    _assert_image_tensor(img)
    if antialias is None:
        antialias = False
    if antialias and interpolation not in ["bilinear", "bicubic"]:
        antialias = False     # irrelevant for the other modes, as torchvision documents
    batch, how = _as_batch_of_floats(img, (D.float32, D.float64))
    align_corners = False if interpolation in ["bilinear", "bicubic"] else None
    out = interpolate(batch, size=list(size), mode=interpolation, align_corners=align_corners, antialias=antialias)
    if interpolation == "bicubic" and how[1] == D.uint8:
        out = out.clamp(min=0, max=255)     # bicubic overshoots
    return _restore(out, how)


def _assert_grid_transform_inputs(img, matrix, interpolation, fill, supported_interpolation_modes, coeffs=None):
    if not isinstance(img, Tensor):
        raise TypeError("Input img should be Tensor")
    _assert_image_tensor(img)
    if matrix is not None and not isinstance(matrix, list):
        raise TypeError("Argument matrix should be a list")
    if matrix is not None and len(matrix) != 6:
        raise ValueError("Argument matrix should have 6 float values")
    if coeffs is not None and len(coeffs) != 8:
        raise ValueError("Argument coeffs should have 8 float values")
    if fill is not None and not isinstance(fill, (int, float, tuple, list)):
        warnings.warn("Argument fill should be either int, float, tuple or list")
    num_channels = get_dimensions(img)[0]
    if isinstance(fill, (tuple, list)) and len(fill) > 1 and len(fill) != num_channels:
        raise ValueError("The number of elements in 'fill' cannot broadcast to match the number of channels of the "
                         f"image ({len(fill)} != {num_channels})")
    if interpolation not in supported_interpolation_modes:
        raise ValueError(f"Interpolation mode '{interpolation}' is unsupported with Tensor input")


def _apply_grid_transform(img, grid, mode, fill):
    """Sample the image at ``grid`` (1, H', W', 2) with grid_sample.  A constant ``fill`` for the area that
    comes from outside the image: an extra channel of ones is sampled along, and where it comes out below 1
    the output is blended with (bilinear) or replaced by (nearest) the fill colour."""
    batch, how = _as_batch_of_floats(img, (grid.dtype,))
    n, c, h, w = batch.shape
    grid = grid.expand(n, *grid.shape[1:])
    if fill is not None:
        batch = cat((batch, ones((n, 1, h, w), dtype=batch.dtype, device=batch.device)), dim=1)
    out = grid_sample(batch, grid, mode=mode, padding_mode="zeros", align_corners=False)
    if fill is not None:
        out, mask = out[:, :-1], out[:, -1:].expand(-1, c, -1, -1)
        fill_list = list(fill) if isinstance(fill, (tuple, list)) else [float(fill)]
        fill_img = tensor(fill_list, dtype=out.dtype, device=out.device).view(1, len(fill_list), 1, 1).expand_as(out)
        if mode == "nearest":
            out = where(mask < 0.5, fill_img, out)
        else:
            out = out * mask + (1.0 - mask) * fill_img
    return _restore(out, how)


def _homogeneous_grid(x, y, dtype):
    """(len(y), len(x), 3): the points (x, y, 1) of the grid with columns at ``x`` and rows at ``y``."""
    oh, ow = len(y), len(x)
    return stack((x.expand(oh, ow), y.unsqueeze(-1).expand(oh, ow), ones((oh, ow), device=x.device)), dim=-1).to(dtype)


def _gen_affine_grid(theta, w, h, ow, oh):
    """The grid_sample grid of the inverse affine map ``theta`` (1, 2, 3), which works in pixel coordinates
    centred on the image: output pixel centres (x, y, 1) -> theta -> input coordinates, then scaled to
    [-1, 1] by the input's half size (unlike nn.functional.affine_grid, which normalises before theta; this
    way the output may be larger than the input, for rotate(expand=True))."""
    d = 0.5
    x = linspace(-ow * 0.5 + d, ow * 0.5 + d - 1, steps=ow, device=theta.device)
    y = linspace(-oh * 0.5 + d, oh * 0.5 + d - 1, steps=oh, device=theta.device)
    base = _homogeneous_grid(x, y, theta.dtype)
    rescaled_theta = theta.transpose(1, 2) / tensor([0.5 * w, 0.5 * h], dtype=theta.dtype, device=theta.device)
    return base.view(1, oh * ow, 3).bmm(rescaled_theta).view(1, oh, ow, 2)


def affine(img, matrix, interpolation="nearest", fill=None):
    """Apply the inverse affine ``matrix`` (6 numbers, centre-relative pixel coordinates); same size out."""
    _assert_grid_transform_inputs(img, matrix, interpolation, fill, ["nearest", "bilinear"])
    dtype = img.dtype if img.is_floating_point() else D.float32
    theta = tensor(matrix, dtype=dtype, device=img.device).reshape(1, 2, 3)
    h, w = img.shape[-2:]
    return _apply_grid_transform(img, _gen_affine_grid(theta, w=w, h=h, ow=w, oh=h), interpolation, fill)


def _compute_affine_output_size(matrix, w, h):
    """(width, height) of the box holding the image's four corners after ``matrix`` (rotate's expand=True),
    computed in float32 as torchvision does, trimmed to 1e-4 so that 1e-15 of rounding does not add a pixel."""
    pts = tensor([[-0.5 * w, -0.5 * h, 1.0], [-0.5 * w, 0.5 * h, 1.0], [0.5 * w, 0.5 * h, 1.0],
                  [0.5 * w, -0.5 * h, 1.0]])
    theta = tensor(matrix, dtype=D.float32).view(2, 3)
    new_pts = pts.matmul(theta.T)
    min_vals = new_pts.min(dim=0).values + tensor((w * 0.5, h * 0.5))
    max_vals = new_pts.max(dim=0).values + tensor((w * 0.5, h * 0.5))
    tol = 1e-4
    cmax = ((max_vals / tol).trunc() * tol).ceil()
    cmin = ((min_vals / tol).trunc() * tol).floor()
    size = cmax - cmin
    return int(size[0]), int(size[1])


def rotate(img, matrix, interpolation="nearest", expand=False, fill=None):
    """Rotate by the inverse ``matrix``; with expand the output grows to hold the whole rotated image."""
    _assert_grid_transform_inputs(img, matrix, interpolation, fill, ["nearest", "bilinear"])
    w, h = img.shape[-1], img.shape[-2]
    ow, oh = _compute_affine_output_size(matrix, w, h) if expand else (w, h)
    dtype = img.dtype if img.is_floating_point() else D.float32
    theta = tensor(matrix, dtype=dtype, device=img.device).reshape(1, 2, 3)
    return _apply_grid_transform(img, _gen_affine_grid(theta, w=w, h=h, ow=ow, oh=oh), interpolation, fill)


def _perspective_grid(coeffs, ow, oh, dtype, device):
    """grid_sample grid of PIL's perspective map: x_in = (a x + b y + c) / (g x + h y + 1), y_in likewise."""
    theta1 = tensor([[[coeffs[0], coeffs[1], coeffs[2]], [coeffs[3], coeffs[4], coeffs[5]]]], dtype=dtype,
                    device=device)
    theta2 = tensor([[[coeffs[6], coeffs[7], 1.0], [coeffs[6], coeffs[7], 1.0]]], dtype=dtype, device=device)
    d = 0.5
    x = linspace(d, ow * 1.0 + d - 1.0, steps=ow, device=device)
    y = linspace(d, oh * 1.0 + d - 1.0, steps=oh, device=device)
    base = _homogeneous_grid(x, y, dtype).view(1, oh * ow, 3)
    rescaled_theta1 = theta1.transpose(1, 2) / tensor([0.5 * ow, 0.5 * oh], dtype=dtype, device=device)
    grid = base.bmm(rescaled_theta1) / base.bmm(theta2.transpose(1, 2)) - 1.0
    return grid.view(1, oh, ow, 2)


def perspective(img, perspective_coeffs, interpolation="bilinear", fill=None):
    if not isinstance(img, Tensor):
        raise TypeError("Input img should be Tensor.")
    _assert_image_tensor(img)
    _assert_grid_transform_inputs(img, None, interpolation, fill, ["nearest", "bilinear"], coeffs=perspective_coeffs)
    ow, oh = img.shape[-1], img.shape[-2]
    dtype = img.dtype if img.is_floating_point() else D.float32
    grid = _perspective_grid(perspective_coeffs, ow=ow, oh=oh, dtype=dtype, device=img.device)
    return _apply_grid_transform(img, grid, interpolation, fill)


def elastic_transform(img, displacement, interpolation="bilinear", fill=None):
    """Sample at the identity grid plus ``displacement`` (1, H, W, 2, in grid units)."""
    if not isinstance(img, Tensor):
        raise TypeError(f"img should be Tensor. Got {type(img)}")
    h, w = img.shape[-2:]
    ys = linspace((-h + 1) / h, (h - 1) / h, h)
    xs = linspace((-w + 1) / w, (w - 1) / w, w)
    identity = stack((xs.expand(h, w), ys.unsqueeze(-1).expand(h, w)), dim=-1).unsqueeze(0)
    grid = identity.to(img.device) + displacement.to(img.device)
    return _apply_grid_transform(img, grid, interpolation, fill)


# ====================================================================== filters

def _get_gaussian_kernel1d(kernel_size, sigma, dtype, device):
    half = (kernel_size - 1) * 0.5
    x = linspace(-half, half, steps=kernel_size, dtype=dtype, device=device)
    pdf = (-0.5 * (x / sigma).pow(2)).exp()
    return pdf / pdf.sum()


def _depthwise_conv(img, kernel, padding=None):
    """Convolve each channel of the image with the same 2-D ``kernel`` (floats in; reflect padding if given)."""
    batch, how = _as_batch_of_floats(img, (kernel.dtype,))
    c = batch.shape[-3]
    if padding is not None:
        batch = torch_pad(batch, padding, mode="reflect")
    out = conv2d(batch, kernel.expand(c, 1, *kernel.shape), groups=c)
    return _restore(out, how)


def gaussian_blur(img, kernel_size, sigma):
    """Blur with the separable Gaussian (kernel_size = [kx, ky], sigma = [sx, sy]); the border is mirrored."""
    if not isinstance(img, Tensor):
        raise TypeError(f"img should be Tensor. Got {type(img)}")
    _assert_image_tensor(img)
    dtype = img.dtype if img.is_floating_point() else D.float32
    kx = _get_gaussian_kernel1d(kernel_size[0], sigma[0], dtype, img.device)
    ky = _get_gaussian_kernel1d(kernel_size[1], sigma[1], dtype, img.device)
    kernel = ky[:, None].mm(kx[None, :])
    padding = [kernel_size[0] // 2, kernel_size[0] // 2, kernel_size[1] // 2, kernel_size[1] // 2]
    return _depthwise_conv(img, kernel, padding)


def _blurred_degenerate_image(img):
    """PIL's SMOOTH filter (1 1 1 / 1 5 1 / 1 1 1, over 13) inside, the border pixels kept."""
    dtype = img.dtype if img.is_floating_point() else D.float32
    kernel = ones((3, 3), dtype=dtype, device=img.device)
    kernel[1, 1] = 5.0
    kernel = kernel / kernel.sum()
    result = img.clone()
    result[..., 1:-1, 1:-1] = _depthwise_conv(img, kernel)
    return result


# ====================================================================== colour

def rgb_to_grayscale(img, num_output_channels=1):
    """ITU-R 601-2 luma, L = 0.2989 R + 0.587 G + 0.114 B (integers truncated, as torchvision's .to() does)."""
    if img.ndim < 3:
        raise TypeError(f"Input image tensor should have at least 3 dimensions, but found {img.ndim}")
    _assert_channels(img, [1, 3])
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if img.shape[-3] == 3:
        r, g, b = img.unbind(dim=-3)
        l_img = (0.2989 * r + 0.587 * g + 0.114 * b).to(img.dtype).unsqueeze(dim=-3)
    else:
        l_img = img.clone()
    if num_output_channels == 3:
        return l_img.expand(img.shape)
    return l_img


def _blend(img1, img2, ratio):
    """ratio * img1 + (1 - ratio) * img2, clamped to the value range: every colour adjustment is one of these."""
    ratio = float(ratio)
    bound = _max_value(img1.dtype)
    return (ratio * img1 + (1.0 - ratio) * img2).clamp(0, bound).to(img1.dtype)


def adjust_brightness(img, brightness_factor):
    """Blend with black."""
    if brightness_factor < 0:
        raise ValueError(f"brightness_factor ({brightness_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    return _blend(img, zeros_like(img), brightness_factor)


def adjust_contrast(img, contrast_factor):
    """Blend with the mean grey level of the image."""
    if contrast_factor < 0:
        raise ValueError(f"contrast_factor ({contrast_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [3, 1])
    dtype = img.dtype if img.is_floating_point() else D.float32
    grey = rgb_to_grayscale(img) if get_dimensions(img)[0] == 3 else img
    mean = grey.to(dtype).mean(dim=(-3, -2, -1), keepdim=True)
    return _blend(img, mean, contrast_factor)


def adjust_saturation(img, saturation_factor):
    """Blend with the grey version of the image (one channel: nothing to do, as in PIL)."""
    if saturation_factor < 0:
        raise ValueError(f"saturation_factor ({saturation_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    if get_dimensions(img)[0] == 1:
        return img
    return _blend(img, rgb_to_grayscale(img), saturation_factor)


def _rgb2hsv(img):
    """RGB in [0, 1] -> HSV in [0, 1] (Pillow's formulas).  Where max == min (grey) hue and saturation are 0;
    the denominators are replaced by 1 there rather than patched after a division by zero."""
    r, g, b = img.unbind(dim=-3)
    maxc = img.max(dim=-3).values
    minc = img.min(dim=-3).values
    eqc = maxc == minc
    cr = maxc - minc
    one = ones_like(maxc)
    s = cr / where(eqc, one, maxc)
    cr_divisor = where(eqc, one, cr)
    rc = (maxc - r) / cr_divisor
    gc = (maxc - g) / cr_divisor
    bc = (maxc - b) / cr_divisor
    # the hue is measured from the largest channel: red -> b - g, green -> 2 + r - b, blue -> 4 + g - r
    hr = where(maxc == r, bc - gc, 0.0)
    hg = where((maxc == g) & (maxc != r), 2.0 + rc - bc, 0.0)
    hb = where((maxc != g) & (maxc != r), 4.0 + gc - rc, 0.0)
    h = ((hr + hg + hb) / 6.0 + 1.0).fmod(1.0)
    return stack((h, s, maxc), dim=-3)


# For each of the hexcone's six sectors (hue * 6, rounded down), where R, G and B come from, as indices into
# the candidates (v, q, p, t) of _hsv2rgb.
_SECTOR_SOURCES = [[0, 3, 2], [1, 0, 2], [2, 0, 3], [2, 1, 0], [3, 2, 0], [0, 2, 1]]


def _hsv2rgb(img):
    """HSV in [0, 1] -> RGB: each channel is one of v, p = v(1-s), q = v(1-sf), t = v(1-s(1-f)), chosen by
    the sector of the hue."""
    h, s, v = img.unbind(dim=-3)
    i = (h * 6.0).floor()
    f = (h * 6.0) - i
    sector = i.to(D.int32) % 6
    p = (v * (1.0 - s)).clamp(0.0, 1.0)
    q = (v * (1.0 - s * f)).clamp(0.0, 1.0)
    t = (v * (1.0 - s * (1.0 - f))).clamp(0.0, 1.0)
    candidates = stack((v, q, p, t), dim=-3)
    sources = tensor(_SECTOR_SOURCES, device=img.device)[sector.long()]      # (..., H, W, 3)
    return candidates.gather(-3, sources.movedim(-1, -3))


def adjust_hue(img, hue_factor):
    """Turn the hue by ``hue_factor`` of a full turn (in HSV, in float32)."""
    if not (-0.5 <= hue_factor <= 0.5):
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    if not isinstance(img, Tensor):
        raise TypeError("Input img should be Tensor image")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    if get_dimensions(img)[0] == 1:
        return img
    orig_dtype = img.dtype
    h, s, v = _rgb2hsv(convert_image_dtype(img, D.float32)).unbind(dim=-3)
    h = (h + hue_factor) % 1.0
    return convert_image_dtype(_hsv2rgb(stack((h, s, v), dim=-3)), orig_dtype)


def adjust_gamma(img, gamma, gain=1):
    """gain * img ** gamma on [0, 1], clamped."""
    if not isinstance(img, Tensor):
        raise TypeError("Input img should be a Tensor.")
    _assert_channels(img, [1, 3])
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    dtype = img.dtype
    result = img if img.is_floating_point() else convert_image_dtype(img, D.float32)
    result = (gain * result.pow(gamma)).clamp(0, 1)
    return convert_image_dtype(result, dtype)


def invert(img):
    _assert_image_tensor(img)
    _assert_ndim_3(img)
    _assert_channels(img, [1, 3])
    return _max_value(img.dtype) - img


def posterize(img, bits):
    """Keep the top ``bits`` bits of each uint8 value."""
    _assert_image_tensor(img)
    _assert_ndim_3(img)
    if img.dtype != D.uint8:
        raise TypeError(f"Only torch.uint8 image tensors are supported, but found {img.dtype}")
    _assert_channels(img, [1, 3])
    mask = -int(2 ** (8 - bits))       # ~(2 ** (8 - bits) - 1)
    return img & mask


def solarize(img, threshold):
    """Invert the values at or above ``threshold``."""
    _assert_image_tensor(img)
    _assert_ndim_3(img)
    _assert_channels(img, [1, 3])
    if threshold > _max_value(img.dtype):
        raise TypeError("Threshold should be less than bound of img.")
    return where(img >= threshold, invert(img), img)


def adjust_sharpness(img, sharpness_factor):
    """Blend with a smoothed copy (factor > 1 sharpens); images of 2 pixels or less are left alone."""
    if sharpness_factor < 0:
        raise ValueError(f"sharpness_factor ({sharpness_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    if img.size(-1) <= 2 or img.size(-2) <= 2:
        return img
    return _blend(img, _blurred_degenerate_image(img), sharpness_factor)


def autocontrast(img):
    """Stretch each channel so that its darkest value becomes 0 and its brightest full intensity."""
    _assert_image_tensor(img)
    _assert_ndim_3(img)
    _assert_channels(img, [1, 3])
    bound = _max_value(img.dtype)
    dtype = img.dtype if img.is_floating_point() else D.float32
    minimum = img.amin(dim=(-2, -1), keepdim=True).to(dtype)
    maximum = img.amax(dim=(-2, -1), keepdim=True).to(dtype)
    scale = bound / (maximum - minimum)
    flat = scale.isfinite().logical_not()      # a flat channel (max == min) is left as it is
    minimum = where(flat, 0.0, minimum)
    scale = where(flat, 1.0, scale)
    return ((img - minimum) * scale).clamp(0, bound).to(img.dtype)


def _scale_channel(img_chan):
    """PIL's equalize of one uint8 channel: the look-up table from the cumulative histogram."""
    hist = img_chan.reshape(-1).long().bincount(minlength=256)
    nonzero_hist = hist[hist != 0]
    step = nonzero_hist[:-1].sum().div(255, rounding_mode="floor")
    if step == 0:
        return img_chan
    lut = (hist.cumsum(0) + step.div(2, rounding_mode="floor")).div(step, rounding_mode="floor")
    lut = torch_pad(lut, [1, 0])[:-1].clamp(0, 255)
    return lut[img_chan.long()].to(D.uint8)


def equalize(img):
    """Histogram equalisation per channel (uint8 images)."""
    _assert_image_tensor(img)
    if not (3 <= img.ndim <= 4):
        raise TypeError(f"Input image tensor should have 3 or 4 dimensions, but found {img.ndim}")
    if img.dtype != D.uint8:
        raise TypeError(f"Only torch.uint8 image tensors are supported, but found {img.dtype}")
    _assert_channels(img, [1, 3])
    batch = img.reshape(-1, *img.shape[-3:])
    out = stack([stack([_scale_channel(image[c]) for c in range(image.size(0))]) for image in batch])
    return out.reshape(img.shape)


# ====================================================================== normalisation and erasing

def normalize(tensor_, mean, std, inplace=False):
    """(x - mean) / std per channel of a float image (..., C, H, W)."""
    _assert_image_tensor(tensor_)
    if not tensor_.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor_.dtype}.")
    if tensor_.ndim < 3:
        raise ValueError("Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = "
                         f"{tensor_.size()}")
    dtype = tensor_.dtype
    mean = _as_tensor(mean, dtype, tensor_.device)
    std = _as_tensor(std, dtype, tensor_.device)
    if (std == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {dtype}, leading to division by zero.")
    if mean.ndim == 1:
        mean = mean.view(-1, 1, 1)
    if std.ndim == 1:
        std = std.view(-1, 1, 1)
    if inplace:
        return tensor_.sub_(mean).div_(std)
    return (tensor_ - mean).div_(std)   # (torchvision clones, then works in place: the same numbers, one op less)


def _as_tensor(values, dtype, device):
    return values.to(dtype=dtype, device=device) if isinstance(values, Tensor) else \
        tensor(values, dtype=dtype, device=device)


def erase(img, i, j, h, w, v, inplace=False):
    """img[..., i:i+h, j:j+w] = v."""
    _assert_image_tensor(img)
    if not inplace:
        img = img.clone()
    img[..., i:i + h, j:j + w] = v
    return img

