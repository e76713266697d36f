"""``pedatorch.vision.transforms``: torchvision's ``transforms`` (the v1 API).

``transforms.py`` holds the transform classes (Compose, ToTensor, Normalize, RandomCrop, ColorJitter, ...),
``functional.py`` the functions they call (``transforms.functional.resize(img, 32)``), which dispatch to
``_functional_pil.py`` (Pillow's operations) or ``_functional_tensor.py`` (tensor ops).
"""
from . import functional
from .transforms import *  # noqa: F401,F403
from .transforms import __all__
