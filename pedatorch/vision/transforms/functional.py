"""``pedatorch.vision.transforms.functional``: torchvision's ``transforms.functional``.

Every function takes a PIL image or an image tensor (..., C, H, W) and dispatches: PIL images to Pillow's own
operations (``_functional_pil``), tensors to tensor ops (``_functional_tensor``).  What is common to both (the
arguments' checks, output sizes, the affine matrices) is computed here, once.

The transform classes (``transforms.py``) draw random parameters and call these functions; call them directly
to apply a fixed transformation, e.g. the same crop to an image and its mask.
"""
import math
import numbers
import sys
import warnings
from enum import Enum

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor
from ...backend import is_array
from ...linalg import lstsq
from ...ops.creation import from_numpy, tensor, zeros
from .. import _image
from . import _functional_pil as F_pil, _functional_tensor as F_t

__all__ = ["InterpolationMode", "get_dimensions", "get_image_size", "get_image_num_channels", "to_tensor",
           "pil_to_tensor", "convert_image_dtype", "to_pil_image", "normalize", "resize", "pad", "crop",
           "center_crop", "resized_crop", "hflip", "vflip", "perspective", "five_crop", "ten_crop",
           "adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue", "adjust_gamma", "rotate",
           "affine", "to_grayscale", "rgb_to_grayscale", "erase", "gaussian_blur", "invert", "posterize",
           "solarize", "adjust_sharpness", "autocontrast", "equalize", "elastic_transform"]


class InterpolationMode(Enum):
    """How pixels are resampled.  Tensors support NEAREST, NEAREST_EXACT, BILINEAR and BICUBIC; PIL images
    all but NEAREST_EXACT (BOX, HAMMING, LANCZOS are Pillow's filters)."""
    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


# Pillow's resampling number (PIL.Image.Resampling) of each mode.
pil_modes_mapping = {InterpolationMode.NEAREST: 0, InterpolationMode.BILINEAR: 2, InterpolationMode.BICUBIC: 3,
                     InterpolationMode.NEAREST_EXACT: 0, InterpolationMode.BOX: 4, InterpolationMode.HAMMING: 5,
                     InterpolationMode.LANCZOS: 1}


def _interpolation_modes_from_int(i):
    """A Pillow resampling number (PIL.Image.BILINEAR == 2 ...) as an InterpolationMode."""
    return {0: InterpolationMode.NEAREST, 2: InterpolationMode.BILINEAR, 3: InterpolationMode.BICUBIC,
            4: InterpolationMode.BOX, 5: InterpolationMode.HAMMING, 1: InterpolationMode.LANCZOS}[i]


def _interpolation(interpolation):
    if isinstance(interpolation, int):
        return _interpolation_modes_from_int(interpolation)
    if not isinstance(interpolation, InterpolationMode):
        raise TypeError("Argument interpolation should be a InterpolationMode or a corresponding Pillow integer "
                        "constant")
    return interpolation


_is_pil_image = _image.is_pil_image


# ====================================================================== sizes

def get_dimensions(img):
    """[channels, height, width] of a PIL image or an image tensor."""
    return F_t.get_dimensions(img) if isinstance(img, Tensor) else F_pil.get_dimensions(img)


def get_image_size(img):
    """[width, height]."""
    return F_t.get_image_size(img) if isinstance(img, Tensor) else F_pil.get_image_size(img)


def get_image_num_channels(img):
    return F_t.get_image_num_channels(img) if isinstance(img, Tensor) else F_pil.get_image_num_channels(img)


# ====================================================================== conversions

# The element type a PIL mode's pixels are read as (others: uint8); "I;16" is read as int16, as torchvision does.
_PIL_MODE_DTYPE = {"I": np.int32, "I;16" if sys.byteorder == "little" else "I;16B": np.int16, "F": np.float32}


def to_tensor(pic):
    """A PIL image or an (H, W[, C]) ndarray as a (C, H, W) tensor; uint8 data (and PIL's 8-bit modes) are
    scaled to floats in [0, 1] of the default dtype, other types keep their values."""
    if not (_is_pil_image(pic) or is_array(pic)):
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    if is_array(pic) and pic.ndim not in {2, 3}:
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
    default_float_dtype = D.get_default_dtype()
    if is_array(pic):
        if pic.ndim == 2:
            pic = pic[:, :, None]
        img = from_numpy(pic.transpose((2, 0, 1))).contiguous()
    else:
        arr = _image.pil_to_array(pic, _PIL_MODE_DTYPE.get(pic.mode, np.uint8))
        img = from_numpy(arr)
        if pic.mode == "1":
            img = 255 * img
        img = img.view(pic.size[1], pic.size[0], F_pil.get_image_num_channels(pic)).permute((2, 0, 1)).contiguous()
    if img.dtype == D.uint8:
        return img.to(dtype=default_float_dtype).div(255)
    return img


def pil_to_tensor(pic):
    """A PIL image as a (C, H, W) tensor of its own element type (uint8 for 8-bit modes), not rescaled."""
    if not _is_pil_image(pic):
        raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
    img = from_numpy(_image.pil_to_array(pic))
    return img.view(pic.size[1], pic.size[0], F_pil.get_image_num_channels(pic)).permute((2, 0, 1))


def convert_image_dtype(image, dtype=D.float32):
    """Convert an image tensor to ``dtype``, rescaling the values to the new type's range."""
    if not isinstance(image, Tensor):
        raise TypeError("Input img should be Tensor Image")
    return F_t.convert_image_dtype(image, dtype)


def to_pil_image(pic, mode=None):
    """A (C, H, W) tensor or (H, W, C) ndarray as a PIL image.  Floats are scaled by 255 (except for mode "F");
    the mode defaults from the channels: 1 -> L/I;16/I/F by dtype, 2 -> LA, 3 -> RGB, 4 -> RGBA."""
    if isinstance(pic, Tensor):
        if pic.ndim == 3:
            pic = pic.permute((1, 2, 0))
        pic = pic.numpy(force=True)
    elif not is_array(pic):
        raise TypeError(f"pic should be Tensor or ndarray. Got {type(pic)}.")
    if pic.ndim == 2:
        pic = np.expand_dims(pic, 2)
    if pic.ndim != 3:
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
    if pic.shape[-1] > 4:
        raise ValueError(f"pic should not have > 4 channels. Got {pic.shape[-1]} channels.")
    npimg = pic
    if np.issubdtype(npimg.dtype, np.floating) and mode != "F":
        npimg = (npimg * 255).astype(np.uint8)
    if npimg.shape[2] == 1:
        npimg = npimg[:, :, 0]
        expected_mode = {np.dtype(np.uint8): "L", np.dtype(np.int16): "I;16" if sys.byteorder == "little" else "I;16B",
                         np.dtype(np.int32): "I", np.dtype(np.float32): "F"}.get(npimg.dtype)
        if mode is not None and mode != expected_mode:
            raise ValueError(f"Incorrect mode ({mode}) supplied for input type {npimg.dtype}. "
                             f"Should be {expected_mode}")
        mode = expected_mode
    else:
        permitted, default = {2: (["LA"], "LA"), 4: (["RGBA", "CMYK", "RGBX"], "RGBA"),
                              3: (["RGB", "YCbCr", "HSV"], "RGB")}[npimg.shape[2]]
        if mode is not None and mode not in permitted:
            raise ValueError(f"Only modes {permitted} are supported for {npimg.shape[2]}D inputs")
        if mode is None and npimg.dtype == np.uint8:
            mode = default
    if mode is None:
        raise TypeError(f"Input type {npimg.dtype} is not supported")
    return _image.array_to_pil(npimg, mode)


def normalize(tensor, mean, std, inplace=False):
    """(tensor - mean) / std per channel of a float image tensor."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
    return F_t.normalize(tensor, mean=mean, std=std, inplace=inplace)


# ====================================================================== geometry

def _compute_resized_output_size(image_size, size, max_size=None):
    """[h, w] after a resize: ``size`` [h, w] as given, or [s] for the shorter side (the longer one scaled in
    proportion and truncated), at most ``max_size`` on the longer side."""
    h, w = image_size
    short, long = (w, h) if w <= h else (h, w)
    if len(size) == 1:
        requested_new_short = size if isinstance(size, int) else size[0]
        new_short, new_long = requested_new_short, int(requested_new_short * long / short)
        if max_size is not None:
            if max_size <= requested_new_short:
                raise ValueError(f"max_size = {max_size} must be strictly greater than the requested size for the "
                                 f"smaller edge size = {size}")
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
        new_w, new_h = (new_short, new_long) if w <= h else (new_long, new_short)
    else:
        new_w, new_h = size[1], size[0]
    return [new_h, new_w]


def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    """Resize to ``size``: (h, w), or an int (or [int]) for the shorter side keeping the aspect ratio.
    PIL images use Pillow's filters (always antialiased); tensors ``nn.functional.interpolate``."""
    interpolation = _interpolation(interpolation)
    if isinstance(size, (list, tuple)):
        if len(size) not in [1, 2]:
            raise ValueError(f"Size must be an int or a 1 or 2 element tuple/list, not a {len(size)} element "
                             "tuple/list")
        if max_size is not None and len(size) != 1:
            raise ValueError("max_size should only be passed if size specifies the length of the smaller edge, i.e. "
                             "size should be an int or a sequence of length 1 in torchscript mode.")
    _, image_height, image_width = get_dimensions(img)
    if isinstance(size, int):
        size = [size]
    output_size = _compute_resized_output_size((image_height, image_width), size, max_size)
    if [image_height, image_width] == output_size:
        return img
    if not isinstance(img, Tensor):
        if antialias is False:
            warnings.warn("Anti-alias option is always applied for PIL Image input. Argument antialias is ignored.")
        return F_pil.resize(img, size=output_size, interpolation=pil_modes_mapping[interpolation])
    return F_t.resize(img, size=output_size, interpolation=interpolation.value, antialias=antialias)


def pad(img, padding, fill=0, padding_mode="constant"):
    """Pad the borders: ``padding`` int (all sides), (left/right, top/bottom) or (left, top, right, bottom);
    padding_mode constant (``fill``), edge, reflect or symmetric."""
    if not isinstance(img, Tensor):
        return F_pil.pad(img, padding=padding, fill=fill, padding_mode=padding_mode)
    return F_t.pad(img, padding=padding, fill=fill, padding_mode=padding_mode)


def crop(img, top, left, height, width):
    """The box of ``height`` x ``width`` whose top-left corner is (top, left); outside the image: zeros."""
    if not isinstance(img, Tensor):
        return F_pil.crop(img, top, left, height, width)
    return F_t.crop(img, top, left, height, width)


def _pair(size):
    if isinstance(size, numbers.Number):
        return (int(size), int(size))
    if isinstance(size, (tuple, list)) and len(size) == 1:
        return (size[0], size[0])
    return size


def center_crop(img, output_size):
    """Crop the centre (padding with zeros first where the image is smaller than the crop)."""
    output_size = _pair(output_size)
    _, image_height, image_width = get_dimensions(img)
    crop_height, crop_width = output_size
    if crop_width > image_width or crop_height > image_height:
        padding_ltrb = [(crop_width - image_width) // 2 if crop_width > image_width else 0,
                        (crop_height - image_height) // 2 if crop_height > image_height else 0,
                        (crop_width - image_width + 1) // 2 if crop_width > image_width else 0,
                        (crop_height - image_height + 1) // 2 if crop_height > image_height else 0]
        img = pad(img, padding_ltrb, fill=0)
        _, image_height, image_width = get_dimensions(img)
        if crop_width == image_width and crop_height == image_height:
            return img
    crop_top = int(round((image_height - crop_height) / 2.0))
    crop_left = int(round((image_width - crop_width) / 2.0))
    return crop(img, crop_top, crop_left, crop_height, crop_width)


def resized_crop(img, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=True):
    """crop, then resize to ``size``."""
    img = crop(img, top, left, height, width)
    return resize(img, size, interpolation, antialias=antialias)


def hflip(img):
    """Mirror left-right."""
    return F_pil.hflip(img) if not isinstance(img, Tensor) else F_t.hflip(img)


def vflip(img):
    """Mirror top-bottom."""
    return F_pil.vflip(img) if not isinstance(img, Tensor) else F_t.vflip(img)


def five_crop(img, size):
    """The four corner crops and the centre crop: (top-left, top-right, bottom-left, bottom-right, centre)."""
    size = _pair(size)
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    _, image_height, image_width = get_dimensions(img)
    crop_height, crop_width = size
    if crop_width > image_width or crop_height > image_height:
        raise ValueError(f"Requested crop size {size} is bigger than input size {(image_height, image_width)}")
    tl = crop(img, 0, 0, crop_height, crop_width)
    tr = crop(img, 0, image_width - crop_width, crop_height, crop_width)
    bl = crop(img, image_height - crop_height, 0, crop_height, crop_width)
    br = crop(img, image_height - crop_height, image_width - crop_width, crop_height, crop_width)
    center = center_crop(img, [crop_height, crop_width])
    return tl, tr, bl, br, center


def ten_crop(img, size, vertical_flip=False):
    """five_crop of the image and of its mirror image (flipped left-right, or top-bottom)."""
    size = _pair(size)
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    first_five = five_crop(img, size)
    return first_five + five_crop(vflip(img) if vertical_flip else hflip(img), size)


def _get_perspective_coeffs(startpoints, endpoints):
    """The 8 coefficients of the perspective map from each end point to its start point (PIL's convention:
    output -> input), the least-squares solution of two equations per point, in float64."""
    if len(startpoints) != 4 or len(endpoints) != 4:
        raise ValueError(f"Please provide exactly four corners, got {len(startpoints)} startpoints and "
                         f"{len(endpoints)} endpoints.")
    a_matrix = zeros(2 * len(startpoints), 8, dtype=D.float64)
    for i, (p1, p2) in enumerate(zip(endpoints, startpoints)):
        a_matrix[2 * i, :] = tensor([p1[0], p1[1], 1, 0, 0, 0, -p2[0] * p1[0], -p2[0] * p1[1]], dtype=D.float64)
        a_matrix[2 * i + 1, :] = tensor([0, 0, 0, p1[0], p1[1], 1, -p2[1] * p1[0], -p2[1] * p1[1]], dtype=D.float64)
    b_matrix = tensor(startpoints, dtype=D.float64).view(8)
    return lstsq(a_matrix, b_matrix, driver="gels").solution.to(D.float32).tolist()


def perspective(img, startpoints, endpoints, interpolation=InterpolationMode.BILINEAR, fill=None):
    """Warp so that the four ``startpoints`` [x, y] land on the ``endpoints``."""
    coeffs = _get_perspective_coeffs(startpoints, endpoints)
    interpolation = _interpolation(interpolation)
    if not isinstance(img, Tensor):
        return F_pil.perspective(img, coeffs, interpolation=pil_modes_mapping[interpolation], fill=fill)
    return F_t.perspective(img, coeffs, interpolation=interpolation.value, fill=fill)


def _get_inverse_affine_matrix(center, angle, translate, scale, shear, inverted=True):
    """The affine map M = T C RSS C^-1 as 6 numbers, inverted by default (PIL and grid_sample both need the map
    from output pixels back to input pixels).  T translates, C moves the centre to the origin and back, and
    RSS = R(angle) S(scale) SHy(shear_y) SHx(shear_x) rotates, scales and shears:

        RSS = s [ cos(a - sy)/cos(sy),  -cos(a - sy) tan(sx)/cos(sy) - sin(a) ]
                [ sin(a - sy)/cos(sy),  -sin(a - sy) tan(sx)/cos(sy) + cos(a) ]

    whose determinant is s^2, so its inverse is the adjugate divided by s."""
    rot = math.radians(angle)
    sx = math.radians(shear[0])
    sy = math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    if inverted:
        matrix = [x / scale for x in [d, -b, 0.0, -c, a, 0.0]]          # RSS^-1
        matrix[2] += matrix[0] * (-cx - tx) + matrix[1] * (-cy - ty)     # RSS^-1 C^-1 T^-1
        matrix[5] += matrix[3] * (-cx - tx) + matrix[4] * (-cy - ty)
        matrix[2] += cx                                                  # C RSS^-1 C^-1 T^-1
        matrix[5] += cy
    else:
        matrix = [x * scale for x in [a, b, 0.0, c, d, 0.0]]             # RSS
        matrix[2] += matrix[0] * (-cx) + matrix[1] * (-cy)               # RSS C^-1
        matrix[5] += matrix[3] * (-cx) + matrix[4] * (-cy)
        matrix[2] += cx + tx                                             # T C RSS C^-1
        matrix[5] += cy + ty
    return matrix


def rotate(img, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None):
    """Rotate counter-clockwise by ``angle`` degrees about ``center`` (default: the image centre); ``expand``
    enlarges the output to hold the whole rotated image."""
    interpolation = _interpolation(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    if not isinstance(img, Tensor):
        return F_pil.rotate(img, angle=angle, interpolation=pil_modes_mapping[interpolation], expand=expand,
                            center=center, fill=fill)
    center_f = [0.0, 0.0]      # the tensor kernel's coordinates have their origin at the image centre
    if center is not None:
        _, height, width = get_dimensions(img)
        center_f = [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    # the tensor kernel's y axis points down, so a counter-clockwise rotation is a negative angle there
    matrix = _get_inverse_affine_matrix(center_f, -angle, [0.0, 0.0], 1.0, [0.0, 0.0])
    return F_t.rotate(img, matrix=matrix, interpolation=interpolation.value, expand=expand, fill=fill)


def affine(img, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST, fill=None, center=None):
    """Rotate by ``angle`` (degrees, clockwise), translate by (tx, ty) pixels, scale, shear by (sx, sy)
    degrees, about ``center`` (default: the image centre); the output keeps the input's size."""
    interpolation = _interpolation(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)):
        raise TypeError("Argument translate should be a sequence")
    if len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if not isinstance(shear, (numbers.Number, (list, tuple))):
        raise TypeError("Shear should be either a single value or a sequence of two values")
    angle = float(angle)
    translate = list(translate)
    if isinstance(shear, numbers.Number):
        shear = [shear, 0.0]
    shear = list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    _, height, width = get_dimensions(img)
    if not isinstance(img, Tensor):
        if center is None:      # no half-pixel offset: a 90 degree turn then matches rot90
            center = [width * 0.5, height * 0.5]
        matrix = _get_inverse_affine_matrix(center, angle, translate, scale, shear)
        return F_pil.affine(img, matrix=matrix, interpolation=pil_modes_mapping[interpolation], fill=fill)
    center_f = [0.0, 0.0]
    if center is not None:
        center_f = [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    translate_f = [1.0 * t for t in translate]
    matrix = _get_inverse_affine_matrix(center_f, angle, translate_f, scale, shear)
    return F_t.affine(img, matrix=matrix, interpolation=interpolation.value, fill=fill)


# ====================================================================== colour

def to_grayscale(img, num_output_channels=1):
    """A PIL image in greyscale (for tensors use rgb_to_grayscale)."""
    if _is_pil_image(img):
        return F_pil.to_grayscale(img, num_output_channels)
    raise TypeError("Input should be PIL Image")


def rgb_to_grayscale(img, num_output_channels=1):
    """Greyscale by ITU-R 601-2 luma, with 1 or 3 (equal) output channels."""
    if not isinstance(img, Tensor):
        return F_pil.to_grayscale(img, num_output_channels)
    return F_t.rgb_to_grayscale(img, num_output_channels)


def adjust_brightness(img, brightness_factor):
    """0 gives black, 1 the image, 2 twice as bright."""
    if not isinstance(img, Tensor):
        return F_pil.adjust_brightness(img, brightness_factor)
    return F_t.adjust_brightness(img, brightness_factor)


def adjust_contrast(img, contrast_factor):
    """0 gives uniform grey, 1 the image, 2 twice the contrast."""
    if not isinstance(img, Tensor):
        return F_pil.adjust_contrast(img, contrast_factor)
    return F_t.adjust_contrast(img, contrast_factor)


def adjust_saturation(img, saturation_factor):
    """0 gives greyscale, 1 the image, 2 twice the saturation."""
    if not isinstance(img, Tensor):
        return F_pil.adjust_saturation(img, saturation_factor)
    return F_t.adjust_saturation(img, saturation_factor)


def adjust_hue(img, hue_factor):
    """Turn the hue by ``hue_factor`` in [-0.5, 0.5] of a full turn."""
    if not isinstance(img, Tensor):
        return F_pil.adjust_hue(img, hue_factor)
    return F_t.adjust_hue(img, hue_factor)


def adjust_gamma(img, gamma, gain=1):
    """gain * I ** gamma with intensities I in [0, 1]."""
    if not isinstance(img, Tensor):
        return F_pil.adjust_gamma(img, gamma, gain)
    return F_t.adjust_gamma(img, gamma, gain)


def adjust_sharpness(img, sharpness_factor):
    """0 gives a blurred image, 1 the image, 2 a sharpened one."""
    if not isinstance(img, Tensor):
        return F_pil.adjust_sharpness(img, sharpness_factor)
    return F_t.adjust_sharpness(img, sharpness_factor)


def invert(img):
    return F_pil.invert(img) if not isinstance(img, Tensor) else F_t.invert(img)


def posterize(img, bits):
    """Keep ``bits`` bits per channel."""
    if not (0 <= bits <= 8):
        raise ValueError(f"The number if bits should be between 0 and 8. Got {bits}")
    return F_pil.posterize(img, bits) if not isinstance(img, Tensor) else F_t.posterize(img, bits)


def solarize(img, threshold):
    """Invert every value at or above ``threshold``."""
    return F_pil.solarize(img, threshold) if not isinstance(img, Tensor) else F_t.solarize(img, threshold)


def autocontrast(img):
    return F_pil.autocontrast(img) if not isinstance(img, Tensor) else F_t.autocontrast(img)


def equalize(img):
    return F_pil.equalize(img) if not isinstance(img, Tensor) else F_t.equalize(img)


# ====================================================================== tensor-only operations

def erase(img, i, j, h, w, v, inplace=False):
    """Set the box at (i, j) of size h x w to ``v`` (a tensor image only)."""
    if not isinstance(img, Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(img)}")
    return F_t.erase(img, i, j, h, w, v, inplace=inplace)


def _tensor_op_on_pil(op, img, *args):
    """Run a tensor operation on a PIL image too: to a uint8 tensor and back, in the image's mode."""
    if isinstance(img, Tensor):
        return op(img, *args)
    if not _is_pil_image(img):
        raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")
    return to_pil_image(op(pil_to_tensor(img), *args), mode=img.mode)


def gaussian_blur(img, kernel_size, sigma=None):
    """Blur with a Gaussian kernel ``kernel_size`` = [kx, ky] (odd), ``sigma`` = [sx, sy] (default from the
    kernel size: 0.3 * ((k - 1) * 0.5 - 1) + 0.8, as OpenCV)."""
    if not isinstance(kernel_size, (int, list, tuple)):
        raise TypeError(f"kernel_size should be int or a sequence of integers. Got {type(kernel_size)}")
    if isinstance(kernel_size, int):
        kernel_size = [kernel_size, kernel_size]
    if len(kernel_size) != 2:
        raise ValueError(f"If kernel_size is a sequence its length should be 2. Got {len(kernel_size)}")
    for ksize in kernel_size:
        if ksize % 2 == 0 or ksize < 0:
            raise ValueError(f"kernel_size should have odd and positive integers. Got {kernel_size}")
    if sigma is None:
        sigma = [ksize * 0.15 + 0.35 for ksize in kernel_size]
    if not isinstance(sigma, (int, float, list, tuple)):
        raise TypeError(f"sigma should be either float or sequence of floats. Got {type(sigma)}")
    if isinstance(sigma, (int, float)):
        sigma = [float(sigma), float(sigma)]
    if isinstance(sigma, (list, tuple)) and len(sigma) == 1:
        sigma = [sigma[0], sigma[0]]
    if len(sigma) != 2:
        raise ValueError(f"If sigma is a sequence, its length should be 2. Got {len(sigma)}")
    for s in sigma:
        if s <= 0.0:
            raise ValueError(f"sigma should have positive values. Got {sigma}")
    return _tensor_op_on_pil(F_t.gaussian_blur, img, kernel_size, sigma)


def elastic_transform(img, displacement, interpolation=InterpolationMode.BILINEAR, fill=None):
    """Move every pixel by ``displacement`` (1, H, W, 2), in grid_sample's [-1, 1] units."""
    if isinstance(interpolation, int):
        warnings.warn("Argument interpolation should be of type InterpolationMode instead of int. Please, use "
                      "InterpolationMode enum.")
        interpolation = _interpolation_modes_from_int(interpolation)
    if not isinstance(displacement, Tensor):
        raise TypeError("Argument displacement should be a Tensor")
    _, height, width = get_dimensions(img)
    shape = (1, height, width, 2)
    if shape != tuple(displacement.shape):
        raise ValueError(f"Argument displacement shape should be {shape}, but given {displacement.shape}")
    return _tensor_op_on_pil(F_t.elastic_transform, img, displacement, interpolation.value, fill)
