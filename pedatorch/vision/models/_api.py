"""Pretrained weights: the ``*_Weights`` enums of torchvision's model builders, without the download.

torchvision's ``resnet18(weights=ResNet18_Weights.IMAGENET1K_V1)`` fetches a .pth file from download.pytorch.org.
pedatorch does not fetch model weights (it runs where there may be no network), so a builder given weights
raises an error that names the file and shows how to load a copy of it made elsewhere::

    model = resnet18()
    model.load_state_dict(pedatorch.load("resnet18-f37072fd.pth"))   # PyTorch's .pth format

The enums are still here, so that code naming them runs up to that point, and ``weights.transforms()`` gives
the preprocessing the weights were trained with.
"""
import os
from enum import Enum
from functools import partial

from ..transforms._presets import ImageClassification

__all__ = ["Weights", "WeightsEnum"]


class Weights:
    """Where a set of weights lives (``url``), how its inputs are prepared (``transforms``) and facts (``meta``)."""

    def __init__(self, url, transforms, meta):
        self.url = url
        self.transforms = transforms
        self.meta = meta


class WeightsEnum(Enum):
    """The weights available for one architecture (``IMAGENET1K_V1``, ``DEFAULT``...)."""

    @classmethod
    def verify(cls, obj):
        """None, a member, or a member's name ("DEFAULT", "ResNet18_Weights.DEFAULT") -> None or the member."""
        if obj is not None:
            if isinstance(obj, str):
                obj = cls[obj.replace(cls.__name__ + ".", "")]
            elif not isinstance(obj, cls):
                raise TypeError(f"Invalid Weight class provided; expected {cls.__name__} but received "
                                f"{obj.__class__.__name__}.")
        return obj

    def get_state_dict(self, *args, **kwargs):
        """Not available offline: the error says where the file is and how to load a local copy."""
        filename = os.path.basename(self.url)
        raise RuntimeError(f"pretrained weights {self} need a download of {self.url}, and pedatorch does not download "
                           f"model weights. Download the file where you have network access, then build the model "
                           f"without weights and load them: model.load_state_dict(pedatorch.load('{filename}'))")

    def __repr__(self):
        return f"{self.__class__.__name__}.{self._name_}"

    @property
    def url(self):
        return self.value.url

    @property
    def transforms(self):
        return self.value.transforms

    @property
    def meta(self):
        return self.value.meta


def _imagenet_weights(url, num_params, resize_size=256, **meta):
    """A Weights record of an ImageNet classifier (224 crops of images resized to ``resize_size``, ImageNet's
    mean and std)."""
    return Weights(url=url, transforms=partial(ImageClassification, crop_size=224, resize_size=resize_size),
                   meta={"num_params": num_params, "num_classes": 1000, **meta})


def _weights_arg(weights_enum, weights, kwargs):
    """The builders' ``weights=`` (and torchvision's old ``pretrained=True``): verify it, then refuse it with
    the error of get_state_dict, before building anything."""
    if kwargs.pop("pretrained", False):
        weights = weights_enum.DEFAULT
    weights = weights_enum.verify(weights)
    if weights is not None:
        weights.get_state_dict()
    return weights
