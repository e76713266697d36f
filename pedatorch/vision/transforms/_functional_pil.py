"""The image operations on PIL images: each is Pillow's own operation (``Image.resize``, ``rotate``,
``transform``, ``ImageEnhance``, ``ImageOps``), called with the arguments torchvision gives it, so results
are Pillow's, exactly as torchvision's are.  Pillow is imported on the first call (``_image.pil``).
"""
import numbers

import numpy as np

from .._image import array_to_pil, is_pil_image, pil, pil_to_array


def _check(img):
    if not is_pil_image(img):
        raise TypeError(f"img should be PIL Image. Got {type(img)}")


def get_dimensions(img):
    """[channels, height, width]."""
    if is_pil_image(img):
        width, height = img.size
        return [len(img.getbands()), height, width]
    raise TypeError(f"Unexpected type {type(img)}")


def get_image_size(img):
    """[width, height]."""
    if is_pil_image(img):
        return list(img.size)
    raise TypeError(f"Unexpected type {type(img)}")


def get_image_num_channels(img):
    if is_pil_image(img):
        return len(img.getbands())
    raise TypeError(f"Unexpected type {type(img)}")


def hflip(img):
    _check(img)
    return img.transpose(pil().Transpose.FLIP_LEFT_RIGHT)


def vflip(img):
    _check(img)
    return img.transpose(pil().Transpose.FLIP_TOP_BOTTOM)


def _enhance(img, enhancer_name, factor):
    """Pillow's ImageEnhance: each enhancer blends the image with a degenerate version of it (black, mean grey,
    greyscale, smoothed) by ``factor``, the same blends the tensor versions compute."""
    _check(img)
    pil()
    from PIL import ImageEnhance
    return getattr(ImageEnhance, enhancer_name)(img).enhance(factor)


def adjust_brightness(img, brightness_factor):
    return _enhance(img, "Brightness", brightness_factor)


def adjust_contrast(img, contrast_factor):
    return _enhance(img, "Contrast", contrast_factor)


def adjust_saturation(img, saturation_factor):
    return _enhance(img, "Color", saturation_factor)


def adjust_sharpness(img, sharpness_factor):
    return _enhance(img, "Sharpness", sharpness_factor)


def adjust_hue(img, hue_factor):
    """Shift the H band of Pillow's HSV by hue_factor * 255, wrapping around as uint8 does."""
    if not (-0.5 <= hue_factor <= 0.5):
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    _check(img)
    Image = pil()
    input_mode = img.mode
    if input_mode in {"L", "1", "I", "F"}:
        return img
    h, s, v = img.convert("HSV").split()
    np_h = pil_to_array(h, np.uint8)
    np_h += np.int32(hue_factor * 255).astype(np.uint8)      # overflows on purpose: the hue is a circle
    h = array_to_pil(np_h, "L")
    return Image.merge("HSV", (h, s, v)).convert(input_mode)


def adjust_gamma(img, gamma, gain=1.0):
    """A look-up table of gain * 255.999 * (v / 255) ** gamma, truncated (PIL's point())."""
    _check(img)
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    input_mode = img.mode
    img = img.convert("RGB")
    gamma_map = [int((255 + 1 - 1e-3) * gain * pow(ele / 255.0, gamma)) for ele in range(256)] * 3
    return img.point(gamma_map).convert(input_mode)


def _parse_fill(fill, img, name="fillcolor"):
    """The ``fill`` colour as Pillow wants it: a number per band (a tuple for multi-band images), ints unless
    the image is floating ("F")."""
    num_channels = get_image_num_channels(img)
    if fill is None:
        fill = 0
    if isinstance(fill, (int, float)) and num_channels > 1:
        fill = tuple([fill] * num_channels)
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = fill * num_channels
        elif len(fill) != num_channels:
            raise ValueError("The number of elements in 'fill' does not match the number of channels of the image "
                             f"({len(fill)} != {num_channels})")
        fill = tuple(fill)
    if img.mode != "F":
        fill = tuple(int(x) for x in fill) if isinstance(fill, (list, tuple)) else int(fill)
    return {name: fill}


def pad(img, padding, fill=0, padding_mode="constant"):
    """Constant padding with ImageOps.expand; edge/reflect/symmetric with numpy's pad of the pixel array."""
    _check(img)
    if not isinstance(padding, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if fill is not None and not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate fill arg")
    if not isinstance(padding_mode, str):
        raise TypeError("Got inappropriate padding_mode arg")
    if isinstance(padding, list):
        padding = tuple(padding)
    if isinstance(padding, tuple) and len(padding) not in [1, 2, 4]:
        raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple")
    if isinstance(padding, tuple) and len(padding) == 1:
        padding = padding[0]
    if padding_mode not in ["constant", "edge", "reflect", "symmetric"]:
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    if padding_mode == "constant":
        from PIL import ImageOps
        opts = _parse_fill(fill, img, name="fill")
        if img.mode == "P":           # expand() forgets the palette
            palette = img.getpalette()
            image = ImageOps.expand(img, border=padding, **opts)
            image.putpalette(palette)
            return image
        return ImageOps.expand(img, border=padding, **opts)

    if isinstance(padding, int):
        left = top = right = bottom = padding
    elif len(padding) == 2:
        left = right = padding[0]
        top = bottom = padding[1]
    else:
        left, top, right, bottom = padding
    crop_left, crop_top, crop_right, crop_bottom = [-min(p, 0) for p in (left, top, right, bottom)]
    if crop_left or crop_top or crop_right or crop_bottom:      # negative padding crops
        img = img.crop((crop_left, crop_top, img.width - crop_right, img.height - crop_bottom))
    left, top, right, bottom = [max(p, 0) for p in (left, top, right, bottom)]
    palette = img.getpalette() if img.mode == "P" else None
    arr = pil_to_array(img)
    widths = ((top, bottom), (left, right)) + (((0, 0),) if arr.ndim == 3 else ())
    arr = np.pad(arr, widths, mode=padding_mode)
    out = pil().fromarray(arr)
    if palette is not None:
        out.putpalette(palette)
    return out


def crop(img, top, left, height, width):
    """PIL's crop; the part outside the image comes out black."""
    _check(img)
    return img.crop((left, top, left + width, top + height))


def resize(img, size, interpolation=2):
    """PIL's resize to ``size`` = [h, w] with the filter ``interpolation`` (PIL's resampling number)."""
    _check(img)
    if not (isinstance(size, list) and len(size) == 2):
        raise TypeError(f"Got inappropriate size arg: {size}")
    return img.resize(tuple(size[::-1]), interpolation)


def affine(img, matrix, interpolation=0, fill=None):
    """PIL's affine transform with the inverse ``matrix`` (output pixel -> input pixel)."""
    _check(img)
    return img.transform(img.size, pil().Transform.AFFINE, matrix, interpolation, **_parse_fill(fill, img))


def rotate(img, angle, interpolation=0, expand=False, center=None, fill=None):
    """PIL's rotate, counter-clockwise in degrees."""
    _check(img)
    return img.rotate(angle, interpolation, expand, center, **_parse_fill(fill, img))


def perspective(img, perspective_coeffs, interpolation=3, fill=None):
    _check(img)
    return img.transform(img.size, pil().Transform.PERSPECTIVE, perspective_coeffs, interpolation,
                         **_parse_fill(fill, img))


def to_grayscale(img, num_output_channels):
    """PIL's "L" conversion (ITU-R 601-2 luma); three equal channels for num_output_channels=3."""
    _check(img)
    if num_output_channels == 1:
        return img.convert("L")
    if num_output_channels == 3:
        grey = pil_to_array(img.convert("L"), np.uint8)
        return array_to_pil(np.dstack([grey, grey, grey]), "RGB")
    raise ValueError("num_output_channels should be either 1 or 3")


def _image_ops(name, img, *args):
    _check(img)
    pil()
    from PIL import ImageOps
    return getattr(ImageOps, name)(img, *args)


def invert(img):
    return _image_ops("invert", img)


def posterize(img, bits):
    return _image_ops("posterize", img, bits)


def solarize(img, threshold):
    return _image_ops("solarize", img, threshold)


def autocontrast(img):
    return _image_ops("autocontrast", img)


def equalize(img):
    return _image_ops("equalize", img)
