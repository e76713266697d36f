"""PIL images <-> host arrays: the one place where pedatorch.vision touches Pillow's pixel buffers.

Pillow is optional (the ``deploy`` extra), so it is imported only when a PIL image is really needed, and
``is_pil_image`` answers without importing it: an object can only be a PIL image once a program has
imported PIL itself.

Pixels cross the border as bytes.  A PIL image describes its buffer with ``__array_interface__`` (shape,
element type, bytes), which is all it takes to build an array; the other way, ``Image.frombuffer`` reads
an array's bytes "raw" in the image mode asked for (what ``Image.fromarray(arr, mode)`` did before Pillow
11.3 deprecated its ``mode`` argument, and what torchvision still relies on).
"""
import sys

import numpy as np

from ..backend import host_from_bytes

_EXTRA = "pip install 'pedatorch[deploy]'"


def pil():
    """The ``PIL.Image`` module, imported on first use; a clear error naming the extra when Pillow is missing."""
    try:
        from PIL import Image
    except ImportError as e:
        raise ModuleNotFoundError(f"pedatorch.vision needs Pillow for PIL images: {_EXTRA}") from e
    return Image


def is_pil_image(x):
    """Is ``x`` a PIL image?  (Never imports PIL: if the program has not imported it, ``x`` cannot be one.)"""
    image_module = sys.modules.get("PIL.Image")
    return image_module is not None and isinstance(x, image_module.Image)


def pil_to_array(img, dtype=None):
    """The pixels of a PIL image as a new host array, (H, W) or (H, W, bands), optionally cast to ``dtype``."""
    interface = img.__array_interface__
    arr = host_from_bytes(interface["data"], np.dtype(interface["typestr"]), interface["shape"])
    return arr if dtype is None else arr.astype(dtype)


def array_to_pil(arr, mode):
    """A PIL image of ``mode`` whose pixels are the bytes of ``arr`` ((H, W) or (H, W, C)), read raw in that mode."""
    Image = pil()
    height, width = arr.shape[:2]
    return Image.frombuffer(mode, (width, height), arr.tobytes(), "raw", mode, 0, 1)
