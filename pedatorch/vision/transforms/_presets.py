"""The preprocessing pretrained classifiers expect (what ``weights.transforms()`` returns)."""
from ... import _dtype as D
from ..._tensor import Tensor
from ...nn.modules.module import Module
from . import functional as F
from .functional import InterpolationMode

__all__ = ["ImageClassification"]


class ImageClassification(Module):
    """Resize the shorter side to ``resize_size``, crop the centre ``crop_size``, to float in [0, 1], normalise
    with ImageNet's mean and std: a PIL image or uint8 tensor in, a float tensor (..., 3, crop, crop) out."""

    def __init__(self, *, crop_size, resize_size=256, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225),
                 interpolation=InterpolationMode.BILINEAR, antialias=True):
        super().__init__()
        self.crop_size = [crop_size]
        self.resize_size = [resize_size]
        self.mean = list(mean)
        self.std = list(std)
        self.interpolation = interpolation
        self.antialias = antialias

    def forward(self, img):
        img = F.resize(img, self.resize_size, interpolation=self.interpolation, antialias=self.antialias)
        img = F.center_crop(img, self.crop_size)
        if not isinstance(img, Tensor):
            img = F.pil_to_tensor(img)
        img = F.convert_image_dtype(img, D.float32)
        return F.normalize(img, mean=self.mean, std=self.std)

    def __repr__(self):
        lines = [f"crop_size={self.crop_size}", f"resize_size={self.resize_size}", f"mean={self.mean}",
                 f"std={self.std}", f"interpolation={self.interpolation}"]
        return self.__class__.__name__ + "(\n" + "".join(f"    {line}\n" for line in lines) + ")"
