"""The transform classes of torchvision's ``transforms`` (v1 API): each is a callable that takes an image (a PIL
image or a tensor (..., C, H, W)) and returns the transformed image; ``Compose`` chains them.

A random transform draws its parameters in a static ``get_params`` and then applies the function of the same
name in ``functional``.  The draws come from pedatorch's generator with the same calls torchvision makes
(``torch.rand(1) < p``, ``torch.randint(0, n, size=(1,)).item()``, ``torch.empty(1).uniform_(a, b)``,
``torch.randperm(4)``), and pedatorch's generator reproduces PyTorch's streams, so after
``pedatorch.manual_seed(s)`` a pipeline makes the same choices torchvision makes after ``torch.manual_seed(s)``.
The exceptions are RandomOrder and RandomChoice: torchvision draws those from Python's ``random`` module; here
they draw from pedatorch's generator too, so that one ``manual_seed`` makes every transform repeatable.

Transforms that torchvision makes ``nn.Module``s (so that they can sit in an ``nn.Sequential``) are modules here
too; the others (Compose, ToTensor, Lambda, ...) are plain classes, as there.
"""
import bisect
import math
import numbers
import warnings
from collections.abc import Sequence

from ... import _dtype as D
from ..._tensor import Tensor
from ...nn.modules.module import Module
from ...ops.creation import empty, tensor
from ...ops.join import cat
from ...ops.random import rand, randint, randperm
from . import functional as F
from .functional import InterpolationMode, _interpolation_modes_from_int

__all__ = ["Compose", "ToTensor", "PILToTensor", "ConvertImageDtype", "ToPILImage", "Normalize", "Resize",
           "CenterCrop", "Pad", "Lambda", "RandomApply", "RandomChoice", "RandomOrder", "RandomCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "RandomResizedCrop", "FiveCrop", "TenCrop",
           "LinearTransformation", "ColorJitter", "RandomRotation", "RandomAffine", "Grayscale", "RandomGrayscale",
           "RandomPerspective", "RandomErasing", "GaussianBlur", "InterpolationMode", "RandomInvert",
           "RandomPosterize", "RandomSolarize", "RandomAdjustSharpness", "RandomAutocontrast", "RandomEqualize",
           "ElasticTransform"]


def _uniform(low, high):
    """One float drawn uniformly from [low, high), as torchvision draws it: torch.empty(1).uniform_(low, high)."""
    return float(empty(1).uniform_(float(low), float(high)).item())


def _randint(low, high):
    """One int from [low, high), as torchvision draws it: torch.randint(low, high, size=(1,)).item()."""
    return int(randint(low, high, size=(1,)).item())


def _setup_size(size, error_msg):
    """An int or [int] as (size, size); a pair as it is."""
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 1:
        return size[0], size[0]
    if len(size) != 2:
        raise ValueError(error_msg)
    return size


def _check_sequence_input(x, name, req_sizes):
    msg = req_sizes[0] if len(req_sizes) < 2 else " or ".join([str(s) for s in req_sizes])
    if not isinstance(x, Sequence):
        raise TypeError(f"{name} should be a sequence of length {msg}.")
    if len(x) not in req_sizes:
        raise ValueError(f"{name} should be a sequence of length {msg}.")


def _setup_angle(x, name, req_sizes=(2,)):
    """A number d as [-d, d]; a sequence checked for its length; floats either way."""
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        x = [-x, x]
    else:
        _check_sequence_input(x, name, req_sizes)
    return [float(d) for d in x]


def _interpolation_arg(interpolation):
    return _interpolation_modes_from_int(interpolation) if isinstance(interpolation, int) else interpolation


def _fill_arg(fill):
    if fill is None:
        return 0
    if not isinstance(fill, (Sequence, numbers.Number)):
        raise TypeError("Fill should be either a sequence or a number.")
    return fill


def _fill_per_channel(fill, img):
    """For tensors the fill colour goes to the kernel as one float per channel."""
    if not isinstance(img, Tensor):
        return fill
    if isinstance(fill, (int, float)):
        return [float(fill)] * F.get_dimensions(img)[0]
    return [float(f) for f in fill]


def _list_repr(obj, transforms, head_lines=()):
    """Name(\n    line\n    transform\n    ...\n): the multi-line repr of the container transforms."""
    lines = [obj.__class__.__name__ + "("] + [f"    {x}" for x in head_lines] + [f"    {t}" for t in transforms]
    return "\n".join(lines) + "\n)"


# ====================================================================== containers

class Compose:
    """Apply ``transforms`` one after the other: ``Compose([CenterCrop(10), ToTensor()])``."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        return _list_repr(self, self.transforms)


class RandomTransforms:
    """Base of the containers that pick among ``transforms`` at random."""

    def __init__(self, transforms):
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence")
        self.transforms = transforms

    def __call__(self, *args, **kwargs):
        raise NotImplementedError()

    def __repr__(self):
        return _list_repr(self, self.transforms)


class RandomApply(Module):
    """Apply all of ``transforms`` with probability ``p``, or none of them."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, img):
        if self.p < rand(1):
            return img
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        return _list_repr(self, self.transforms, [f"p={self.p}"])


class RandomOrder(RandomTransforms):
    """Apply ``transforms`` in a random order (a randperm from pedatorch's generator)."""

    def __call__(self, img):
        for i in randperm(len(self.transforms)).tolist():
            img = self.transforms[i](img)
        return img


class RandomChoice(RandomTransforms):
    """Apply one of ``transforms``, chosen with the relative weights ``p`` (default: equally likely).  The
    choice is Python's ``random.choices`` algorithm (one uniform number against the cumulative weights), drawn
    from pedatorch's generator."""

    def __init__(self, transforms, p=None):
        super().__init__(transforms)
        if p is not None and not isinstance(p, Sequence):
            raise TypeError("Argument p should be a sequence")
        self.p = p

    def __call__(self, *args):
        u = rand(1, dtype=D.float64).item()
        if self.p is None:
            index = int(u * len(self.transforms))
        else:
            cumulative = [sum(self.p[:i + 1]) for i in range(len(self.p))]
            index = bisect.bisect(cumulative, u * cumulative[-1], 0, len(cumulative) - 1)
        return self.transforms[index](*args)

    def __repr__(self):
        return f"{super().__repr__()}(p={self.p})"


class Lambda:
    """Apply a function of yours as a transform."""

    def __init__(self, lambd):
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {repr(type(lambd).__name__)}")
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


# ====================================================================== conversions

class ToTensor:
    """PIL image or (H, W, C) ndarray -> (C, H, W) float tensor in [0, 1] (8-bit data is divided by 255; other
    types keep their values)."""

    def __call__(self, pic):
        return F.to_tensor(pic)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class PILToTensor:
    """PIL image -> (C, H, W) tensor of the image's own type (uint8 for 8-bit images), values unchanged."""

    def __call__(self, pic):
        return F.pil_to_tensor(pic)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class ConvertImageDtype(Module):
    """Convert an image tensor to ``dtype``, rescaling its values (uint8 255 <-> float 1.0)."""

    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype

    def forward(self, image):
        return F.convert_image_dtype(image, self.dtype)


class ToPILImage:
    """(C, H, W) tensor or (H, W, C) ndarray -> PIL image (``mode`` guessed from the channels when None)."""

    def __init__(self, mode=None):
        self.mode = mode

    def __call__(self, pic):
        return F.to_pil_image(pic, self.mode)

    def __repr__(self):
        return f"{self.__class__.__name__}(" + (f"mode={self.mode}" if self.mode is not None else "") + ")"


class Normalize(Module):
    """output[c] = (input[c] - mean[c]) / std[c] for a float image tensor (out of place unless ``inplace``)."""

    def __init__(self, mean, std, inplace=False):
        super().__init__()
        self.mean = mean
        self.std = std
        self.inplace = inplace

    def forward(self, tensor):
        return F.normalize(tensor, self.mean, self.std, self.inplace)

    def __repr__(self):
        return f"{self.__class__.__name__}(mean={self.mean}, std={self.std})"


class LinearTransformation(Module):
    """Flatten the image, subtract ``mean_vector`` and multiply by ``transformation_matrix`` (D x D, D = C*H*W),
    e.g. ZCA whitening."""

    def __init__(self, transformation_matrix, mean_vector):
        super().__init__()
        if transformation_matrix.size(0) != transformation_matrix.size(1):
            raise ValueError("transformation_matrix should be square. Got "
                             f"{tuple(transformation_matrix.size())} rectangular matrix.")
        if mean_vector.size(0) != transformation_matrix.size(0):
            raise ValueError(f"mean_vector should have the same length {mean_vector.size(0)} as any one of the "
                             f"dimensions of the transformation_matrix [{tuple(transformation_matrix.size())}]")
        if transformation_matrix.device != mean_vector.device:
            raise ValueError(f"Input tensors should be on the same device. Got {transformation_matrix.device} and "
                             f"{mean_vector.device}")
        if transformation_matrix.dtype != mean_vector.dtype:
            raise ValueError(f"Input tensors should have the same dtype. Got {transformation_matrix.dtype} and "
                             f"{mean_vector.dtype}")
        self.transformation_matrix = transformation_matrix
        self.mean_vector = mean_vector

    def forward(self, tensor):
        shape = tensor.shape
        n = shape[-3] * shape[-2] * shape[-1]
        if n != self.transformation_matrix.shape[0]:
            raise ValueError("Input tensor and transformation matrix have incompatible shape."
                             f"[{shape[-3]} x {shape[-2]} x {shape[-1]}] != {self.transformation_matrix.shape[0]}")
        if tensor.device.type != self.mean_vector.device.type:
            raise ValueError("Input tensor should be on the same device as transformation matrix and mean vector. "
                             f"Got {tensor.device} vs {self.mean_vector.device}")
        flat_tensor = tensor.view(-1, n) - self.mean_vector
        transformation_matrix = self.transformation_matrix.to(flat_tensor.dtype)
        return flat_tensor.mm(transformation_matrix).view(shape)

    def __repr__(self):
        return (f"{self.__class__.__name__}(transformation_matrix={self.transformation_matrix.tolist()}, "
                f"mean_vector={self.mean_vector.tolist()})")


# ====================================================================== geometry, deterministic

class Resize(Module):
    """Resize to ``size``: (h, w), or an int for the shorter side (the other side keeps the aspect ratio), at
    most ``max_size`` on the longer side."""

    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
        super().__init__()
        if not isinstance(size, (int, Sequence)):
            raise TypeError(f"Size should be int or sequence. Got {type(size)}")
        if isinstance(size, Sequence) and len(size) not in (1, 2):
            raise ValueError("If size is a sequence, it should have 1 or 2 values")
        self.size = size
        self.max_size = max_size
        self.interpolation = _interpolation_arg(interpolation)
        self.antialias = antialias

    def forward(self, img):
        return F.resize(img, self.size, self.interpolation, self.max_size, self.antialias)

    def __repr__(self):
        return (f"{self.__class__.__name__}(size={self.size}, interpolation={self.interpolation.value}, "
                f"max_size={self.max_size}, antialias={self.antialias})")


class CenterCrop(Module):
    """Crop the centre to ``size`` (h, w) or size x size (padding with zeros where the image is smaller)."""

    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, error_msg="Please provide only two dimensions (h, w) for size.")

    def forward(self, img):
        return F.center_crop(img, self.size)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size})"


class Pad(Module):
    """Pad the borders by ``padding`` with ``fill`` (constant), or by repeating (edge), mirroring (reflect) or
    mirroring with the edge repeated (symmetric)."""

    def __init__(self, padding, fill=0, padding_mode="constant"):
        super().__init__()
        if not isinstance(padding, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate padding arg")
        if not isinstance(fill, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate fill arg")
        if padding_mode not in ["constant", "edge", "reflect", "symmetric"]:
            raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
        if isinstance(padding, Sequence) and len(padding) not in [1, 2, 4]:
            raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element "
                             "tuple")
        self.padding = padding
        self.fill = fill
        self.padding_mode = padding_mode

    def forward(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)

    def __repr__(self):
        return (f"{self.__class__.__name__}(padding={self.padding}, fill={self.fill}, "
                f"padding_mode={self.padding_mode})")


class FiveCrop(Module):
    """The four corner crops and the centre crop, as a tuple of five images."""

    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, error_msg="Please provide only two dimensions (h, w) for size.")

    def forward(self, img):
        return F.five_crop(img, self.size)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size})"


class TenCrop(Module):
    """FiveCrop of the image and of its mirror image (left-right, or top-bottom with ``vertical_flip``)."""

    def __init__(self, size, vertical_flip=False):
        super().__init__()
        self.size = _setup_size(size, error_msg="Please provide only two dimensions (h, w) for size.")
        self.vertical_flip = vertical_flip

    def forward(self, img):
        return F.ten_crop(img, self.size, self.vertical_flip)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size}, vertical_flip={self.vertical_flip})"


class Grayscale(Module):
    """To greyscale, with 1 or 3 (equal) channels."""

    def __init__(self, num_output_channels=1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def forward(self, img):
        return F.rgb_to_grayscale(img, num_output_channels=self.num_output_channels)

    def __repr__(self):
        return f"{self.__class__.__name__}(num_output_channels={self.num_output_channels})"


# ====================================================================== geometry, random

class RandomCrop(Module):
    """Crop a random ``size`` box, after padding by ``padding`` (and, with ``pad_if_needed``, up to the size)."""

    @staticmethod
    def get_params(img, output_size):
        """(top, left, height, width) of a random crop of ``output_size``."""
        _, h, w = F.get_dimensions(img)
        th, tw = output_size
        if h < th or w < tw:
            raise ValueError(f"Required crop size {(th, tw)} is larger than input image size {(h, w)}")
        if w == tw and h == th:
            return 0, 0, h, w
        i = _randint(0, h - th + 1)
        j = _randint(0, w - tw + 1)
        return i, j, th, tw

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        super().__init__()
        self.size = tuple(_setup_size(size, error_msg="Please provide only two dimensions (h, w) for size."))
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def forward(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        _, height, width = F.get_dimensions(img)
        if self.pad_if_needed and width < self.size[1]:
            img = F.pad(img, [self.size[1] - width, 0], self.fill, self.padding_mode)
        if self.pad_if_needed and height < self.size[0]:
            img = F.pad(img, [0, self.size[0] - height], self.fill, self.padding_mode)
        i, j, h, w = self.get_params(img, self.size)
        return F.crop(img, i, j, h, w)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size}, padding={self.padding})"


class RandomHorizontalFlip(Module):
    """Mirror left-right with probability ``p``."""

    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        if rand(1) < self.p:
            return F.hflip(img)
        return img

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


class RandomVerticalFlip(Module):
    """Mirror top-bottom with probability ``p``."""

    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        if rand(1) < self.p:
            return F.vflip(img)
        return img

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


class RandomResizedCrop(Module):
    """Crop a random part (an area fraction drawn from ``scale``, an aspect ratio log-uniform in ``ratio``) and
    resize it to ``size``: the standard ImageNet training augmentation."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=InterpolationMode.BILINEAR,
                 antialias=True):
        super().__init__()
        self.size = _setup_size(size, error_msg="Please provide only two dimensions (h, w) for size.")
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        if (scale[0] > scale[1]) or (ratio[0] > ratio[1]):
            warnings.warn("Scale and ratio should be of kind (min, max)")
        self.interpolation = _interpolation_arg(interpolation)
        self.antialias = antialias
        self.scale = scale
        self.ratio = ratio

    @staticmethod
    def get_params(img, scale, ratio):
        """(top, left, height, width): up to 10 tries for a box that fits, else the centre crop of the ratio
        closest to the image's."""
        _, height, width = F.get_dimensions(img)
        area = height * width
        log_ratio = tensor(ratio).log()
        for _ in range(10):
            target_area = area * _uniform(scale[0], scale[1])
            aspect_ratio = empty(1).uniform_(float(log_ratio[0]), float(log_ratio[1])).exp().item()
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                i = _randint(0, height - h + 1)
                j = _randint(0, width - w + 1)
                return i, j, h, w
        in_ratio = float(width) / float(height)
        if in_ratio < min(ratio):
            w = width
            h = int(round(w / min(ratio)))
        elif in_ratio > max(ratio):
            h = height
            w = int(round(h * max(ratio)))
        else:
            w = width
            h = height
        return (height - h) // 2, (width - w) // 2, h, w

    def forward(self, img):
        i, j, h, w = self.get_params(img, self.scale, self.ratio)
        return F.resized_crop(img, i, j, h, w, self.size, self.interpolation, antialias=self.antialias)

    def __repr__(self):
        return (f"{self.__class__.__name__}(size={self.size}, scale={tuple(round(s, 4) for s in self.scale)}, "
                f"ratio={tuple(round(r, 4) for r in self.ratio)}, interpolation={self.interpolation.value}, "
                f"antialias={self.antialias})")


class RandomRotation(Module):
    """Rotate by an angle drawn uniformly from ``degrees`` ((min, max), or d for (-d, d))."""

    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=0):
        super().__init__()
        interpolation = _interpolation_arg(interpolation)
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center = center
        self.interpolation = interpolation
        self.expand = expand
        self.fill = _fill_arg(fill)

    @staticmethod
    def get_params(degrees):
        return _uniform(degrees[0], degrees[1])

    def forward(self, img):
        fill = _fill_per_channel(self.fill, img)
        angle = self.get_params(self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, fill)

    def __repr__(self):
        s = f"{self.__class__.__name__}(degrees={self.degrees}, interpolation={self.interpolation.value}, " \
            f"expand={self.expand}"
        if self.center is not None:
            s += f", center={self.center}"
        if self.fill is not None:
            s += f", fill={self.fill}"
        return s + ")"


class RandomAffine(Module):
    """A random affine map: an angle from ``degrees``, a shift up to ``translate`` = (fraction of width, of
    height), a scale from ``scale`` = (min, max), a shear from ``shear`` (x range, or x and y ranges)."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation=InterpolationMode.NEAREST, fill=0,
                 center=None):
        super().__init__()
        interpolation = _interpolation_arg(interpolation)
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        if translate is not None:
            _check_sequence_input(translate, "translate", req_sizes=(2,))
            for t in translate:
                if not (0.0 <= t <= 1.0):
                    raise ValueError("translation values should be between 0 and 1")
        self.translate = translate
        if scale is not None:
            _check_sequence_input(scale, "scale", req_sizes=(2,))
            for s in scale:
                if s <= 0:
                    raise ValueError("scale values should be positive")
        self.scale = scale
        self.shear = _setup_angle(shear, name="shear", req_sizes=(2, 4)) if shear is not None else shear
        self.interpolation = interpolation
        self.fill = _fill_arg(fill)
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center = center

    @staticmethod
    def get_params(degrees, translate, scale_ranges, shears, img_size):
        """(angle, (tx, ty), scale, (shear_x, shear_y)), drawn in that order; img_size is [width, height]."""
        angle = _uniform(degrees[0], degrees[1])
        if translate is not None:
            max_dx = float(translate[0] * img_size[0])
            max_dy = float(translate[1] * img_size[1])
            tx = int(round(_uniform(-max_dx, max_dx)))
            ty = int(round(_uniform(-max_dy, max_dy)))
            translations = (tx, ty)
        else:
            translations = (0, 0)
        scale = _uniform(scale_ranges[0], scale_ranges[1]) if scale_ranges is not None else 1.0
        shear_x = shear_y = 0.0
        if shears is not None:
            shear_x = _uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = _uniform(shears[2], shears[3])
        return angle, translations, scale, (shear_x, shear_y)

    def forward(self, img):
        fill = _fill_per_channel(self.fill, img)
        _, height, width = F.get_dimensions(img)
        ret = self.get_params(self.degrees, self.translate, self.scale, self.shear, [width, height])
        return F.affine(img, *ret, interpolation=self.interpolation, fill=fill, center=self.center)

    def __repr__(self):
        s = f"{self.__class__.__name__}(degrees={self.degrees}"
        s += f", translate={self.translate}" if self.translate is not None else ""
        s += f", scale={self.scale}" if self.scale is not None else ""
        s += f", shear={self.shear}" if self.shear is not None else ""
        s += f", interpolation={self.interpolation.value}" if self.interpolation != InterpolationMode.NEAREST else ""
        s += f", fill={self.fill}" if self.fill != 0 else ""
        s += f", center={self.center}" if self.center is not None else ""
        return s + ")"


class RandomPerspective(Module):
    """With probability ``p``, move each corner inwards by up to ``distortion_scale`` of half the image size
    and warp the image accordingly."""

    def __init__(self, distortion_scale=0.5, p=0.5, interpolation=InterpolationMode.BILINEAR, fill=0):
        super().__init__()
        self.p = p
        self.interpolation = _interpolation_arg(interpolation)
        self.distortion_scale = distortion_scale
        self.fill = _fill_arg(fill)

    def forward(self, img):
        fill = _fill_per_channel(self.fill, img)
        _, height, width = F.get_dimensions(img)
        if rand(1) < self.p:
            startpoints, endpoints = self.get_params(width, height, self.distortion_scale)
            return F.perspective(img, startpoints, endpoints, self.interpolation, fill)
        return img

    @staticmethod
    def get_params(width, height, distortion_scale):
        """(start points, end points): the corners, clockwise from the top left, and where they go."""
        half_height, half_width = height // 2, width // 2
        dx, dy = int(distortion_scale * half_width), int(distortion_scale * half_height)
        topleft = [_randint(0, dx + 1), _randint(0, dy + 1)]
        topright = [_randint(width - dx - 1, width), _randint(0, dy + 1)]
        botright = [_randint(width - dx - 1, width), _randint(height - dy - 1, height)]
        botleft = [_randint(0, dx + 1), _randint(height - dy - 1, height)]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, [topleft, topright, botright, botleft]

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


class ElasticTransform(Module):
    """Displace every pixel by smoothed random noise: uniform noise blurred with a Gaussian of ``sigma``,
    scaled by ``alpha`` pixels."""

    def __init__(self, alpha=50.0, sigma=5.0, interpolation=InterpolationMode.BILINEAR, fill=0):
        super().__init__()
        self.alpha = self._pair_of_floats(alpha, "alpha")
        self.sigma = self._pair_of_floats(sigma, "sigma")
        self.interpolation = _interpolation_arg(interpolation)
        if isinstance(fill, (int, float)):
            fill = [float(fill)]
        elif isinstance(fill, (list, tuple)):
            fill = [float(f) for f in fill]
        else:
            raise TypeError(f"fill should be int or float or a list or tuple of them. Got {type(fill)}")
        self.fill = fill

    @staticmethod
    def _pair_of_floats(value, name):
        if not isinstance(value, (float, Sequence)):
            raise TypeError(f"{name} should be float or a sequence of floats. Got {type(value)}")
        if isinstance(value, Sequence) and len(value) != 2:
            raise ValueError(f"If {name} is a sequence its length should be 2. Got {len(value)}")
        if isinstance(value, Sequence):
            for element in value:
                if not isinstance(element, float):
                    raise TypeError(f"{name} should be a sequence of floats. Got {type(element)}")
        return [float(value), float(value)] if isinstance(value, float) else value

    @staticmethod
    def get_params(alpha, sigma, size):
        """The displacement (1, H, W, 2) in grid units: dx drawn first, then dy."""
        def component(a, s, extent):
            d = rand([1, 1] + size) * 2 - 1
            if s > 0.0:
                k = int(8 * s + 1)
                k += 1 - k % 2        # an odd kernel size
                d = F.gaussian_blur(d, [k, k], sigma)
            return d * a / extent
        dx = component(alpha[0], sigma[0], size[1])
        dy = component(alpha[1], sigma[1], size[0])
        return cat([dx, dy], 1).permute([0, 2, 3, 1])

    def forward(self, tensor):
        _, height, width = F.get_dimensions(tensor)
        displacement = self.get_params(self.alpha, self.sigma, [height, width])
        return F.elastic_transform(tensor, displacement, self.interpolation, self.fill)

    def __repr__(self):
        return (f"{self.__class__.__name__}(alpha={self.alpha}, sigma={self.sigma}, "
                f"interpolation={self.interpolation}, fill={self.fill})")


# ====================================================================== colour, random

class ColorJitter(Module):
    """Change brightness, contrast, saturation and hue by random factors, in a random order.  Each argument is
    a number x (factor drawn from [max(0, 1 - x), 1 + x]; hue: [-x, x]) or a (min, max) range."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self.brightness = self._check_input(brightness, "brightness")
        self.contrast = self._check_input(contrast, "contrast")
        self.saturation = self._check_input(saturation, "saturation")
        self.hue = self._check_input(hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    def _check_input(self, value, name, center=1, bound=(0, float("inf")), clip_first_on_zero=True):
        if isinstance(value, numbers.Number):
            if value < 0:
                raise ValueError(f"If {name} is a single number, it must be non negative.")
            value = [center - float(value), center + float(value)]
            if clip_first_on_zero:
                value[0] = max(value[0], 0.0)
        elif isinstance(value, (tuple, list)) and len(value) == 2:
            value = [float(value[0]), float(value[1])]
        else:
            raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}, but got {value}.")
        if value[0] == value[1] == center:     # the identity: nothing to draw
            return None
        return tuple(value)

    @staticmethod
    def get_params(brightness, contrast, saturation, hue):
        """(order of the four adjustments, and the four factors or None), drawn in that order."""
        fn_idx = randperm(4)
        b = None if brightness is None else _uniform(brightness[0], brightness[1])
        c = None if contrast is None else _uniform(contrast[0], contrast[1])
        s = None if saturation is None else _uniform(saturation[0], saturation[1])
        h = None if hue is None else _uniform(hue[0], hue[1])
        return fn_idx, b, c, s, h

    def forward(self, img):
        fn_idx, brightness_factor, contrast_factor, saturation_factor, hue_factor = self.get_params(
            self.brightness, self.contrast, self.saturation, self.hue)
        adjustments = [(F.adjust_brightness, brightness_factor), (F.adjust_contrast, contrast_factor),
                       (F.adjust_saturation, saturation_factor), (F.adjust_hue, hue_factor)]
        for fn_id in fn_idx.tolist():
            adjust, factor = adjustments[fn_id]
            if factor is not None:
                img = adjust(img, factor)
        return img

    def __repr__(self):
        return (f"{self.__class__.__name__}(brightness={self.brightness}, contrast={self.contrast}, "
                f"saturation={self.saturation}, hue={self.hue})")


class RandomGrayscale(Module):
    """To greyscale (keeping the number of channels) with probability ``p``."""

    def __init__(self, p=0.1):
        super().__init__()
        self.p = p

    def forward(self, img):
        num_output_channels, _, _ = F.get_dimensions(img)
        if rand(1) < self.p:
            return F.rgb_to_grayscale(img, num_output_channels=num_output_channels)
        return img

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


class GaussianBlur(Module):
    """Blur with a Gaussian of ``kernel_size`` and a sigma drawn uniformly from ``sigma`` = (min, max)."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        super().__init__()
        self.kernel_size = _setup_size(kernel_size, "Kernel size should be a tuple/list of two integers")
        for ks in self.kernel_size:
            if ks <= 0 or ks % 2 == 0:
                raise ValueError("Kernel size value should be an odd and positive number.")
        if isinstance(sigma, numbers.Number):
            if sigma <= 0:
                raise ValueError("If sigma is a single number, it must be positive.")
            sigma = (sigma, sigma)
        elif isinstance(sigma, Sequence) and len(sigma) == 2:
            if not 0.0 < sigma[0] <= sigma[1]:
                raise ValueError("sigma values should be positive and of the form (min, max).")
        else:
            raise ValueError("sigma should be a single number or a list/tuple with length 2.")
        self.sigma = sigma

    @staticmethod
    def get_params(sigma_min, sigma_max):
        return empty(1).uniform_(sigma_min, sigma_max).item()

    def forward(self, img):
        sigma = self.get_params(self.sigma[0], self.sigma[1])
        return F.gaussian_blur(img, self.kernel_size, [sigma, sigma])

    def __repr__(self):
        return f"{self.__class__.__name__}(kernel_size={self.kernel_size}, sigma={self.sigma})"


class RandomErasing(Module):
    """With probability ``p``, erase a random box (area fraction from ``scale``, aspect ratio log-uniform in
    ``ratio``) of a tensor image: set it to ``value`` (a number, one per channel, or "random" for normal noise)."""

    def __init__(self, p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False):
        super().__init__()
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        if (scale[0] > scale[1]) or (ratio[0] > ratio[1]):
            warnings.warn("Scale and ratio should be of kind (min, max)")
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        if p < 0 or p > 1:
            raise ValueError("Random erasing probability should be between 0 and 1")
        self.p = p
        self.scale = scale
        self.ratio = ratio
        self.value = value
        self.inplace = inplace

    @staticmethod
    def get_params(img, scale, ratio, value=None):
        """(top, left, h, w, values): up to 10 tries for a box smaller than the image; else the whole image and
        the image itself (nothing changes)."""
        img_c, img_h, img_w = img.shape[-3], img.shape[-2], img.shape[-1]
        area = img_h * img_w
        log_ratio = tensor(ratio).log()
        for _ in range(10):
            erase_area = area * _uniform(scale[0], scale[1])
            aspect_ratio = empty(1).uniform_(float(log_ratio[0]), float(log_ratio[1])).exp().item()
            h = int(round(math.sqrt(erase_area * aspect_ratio)))
            w = int(round(math.sqrt(erase_area / aspect_ratio)))
            if not (h < img_h and w < img_w):
                continue
            if value is None:
                v = empty([img_c, h, w], dtype=D.float32).normal_()
            else:
                v = tensor(value)[:, None, None]
            i = _randint(0, img_h - h + 1)
            j = _randint(0, img_w - w + 1)
            return i, j, h, w, v
        return 0, 0, img_h, img_w, img

    def forward(self, img):
        if rand(1) < self.p:
            if isinstance(self.value, (int, float)):
                value = [float(self.value)]
            elif isinstance(self.value, str):
                value = None
            elif isinstance(self.value, (list, tuple)):
                value = [float(v) for v in self.value]
            else:
                value = self.value
            if value is not None and len(value) not in (1, img.shape[-3]):
                raise ValueError("If value is a sequence, it should have either a single value or "
                                 f"{img.shape[-3]} (number of input channels)")
            x, y, h, w, v = self.get_params(img, scale=self.scale, ratio=self.ratio, value=value)
            return F.erase(img, x, y, h, w, v, self.inplace)
        return img

    def __repr__(self):
        return (f"{self.__class__.__name__}(p={self.p}, scale={self.scale}, ratio={self.ratio}, value={self.value}, "
                f"inplace={self.inplace})")


class _RandomlyApplied(Module):
    """Apply one fixed function with probability ``p`` (drawn as torch.rand(1).item() < p)."""

    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def _apply_to(self, img):
        raise NotImplementedError

    def forward(self, img):
        if rand(1).item() < self.p:
            return self._apply_to(img)
        return img

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


class RandomInvert(_RandomlyApplied):
    """Invert the colours with probability ``p``."""

    def _apply_to(self, img):
        return F.invert(img)


class RandomAutocontrast(_RandomlyApplied):
    """Stretch the contrast to the full range with probability ``p``."""

    def _apply_to(self, img):
        return F.autocontrast(img)


class RandomEqualize(_RandomlyApplied):
    """Equalise the histogram with probability ``p``."""

    def _apply_to(self, img):
        return F.equalize(img)


class RandomPosterize(_RandomlyApplied):
    """Keep ``bits`` bits per channel with probability ``p``."""

    def __init__(self, bits, p=0.5):
        super().__init__(p)
        self.bits = bits

    def _apply_to(self, img):
        return F.posterize(img, self.bits)

    def __repr__(self):
        return f"{self.__class__.__name__}(bits={self.bits},p={self.p})"


class RandomSolarize(_RandomlyApplied):
    """Invert the values above ``threshold`` with probability ``p``."""

    def __init__(self, threshold, p=0.5):
        super().__init__(p)
        self.threshold = threshold

    def _apply_to(self, img):
        return F.solarize(img, self.threshold)

    def __repr__(self):
        return f"{self.__class__.__name__}(threshold={self.threshold},p={self.p})"


class RandomAdjustSharpness(_RandomlyApplied):
    """Sharpen by ``sharpness_factor`` with probability ``p``."""

    def __init__(self, sharpness_factor, p=0.5):
        super().__init__(p)
        self.sharpness_factor = sharpness_factor

    def _apply_to(self, img):
        return F.adjust_sharpness(img, self.sharpness_factor)

    def __repr__(self):
        return f"{self.__class__.__name__}(sharpness_factor={self.sharpness_factor},p={self.p})"
