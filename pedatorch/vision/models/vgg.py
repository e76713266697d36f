"""VGG (Simonyan & Zisserman, 2014, "Very Deep Convolutional Networks for Large-Scale Image Recognition"), as
torchvision builds it.

Stacks of 3x3 convolutions (padding 1, so they keep the size) and ReLUs, a 2x2 max pool after each stack
(halving the size), then an adaptive average pool to 7x7 and three linear layers with dropout.  The letters of
the paper name the stacks (``cfgs``): "A" is VGG-11, "B" VGG-13, "D" VGG-16, "E" VGG-19; a number is a
convolution's output channels, "M" a max pool.  The ``_bn`` variants put a BatchNorm2d after each convolution.

Module names and shapes are torchvision's (``features.N``, ``classifier.N``), as is the initialisation.
"""
from ... import nn
from ._api import WeightsEnum, _imagenet_weights, _weights_arg

__all__ = ["VGG", "make_layers", "cfgs", "VGG11_Weights", "VGG11_BN_Weights", "VGG13_Weights", "VGG13_BN_Weights",
           "VGG16_Weights", "VGG16_BN_Weights", "VGG19_Weights", "VGG19_BN_Weights", "vgg11", "vgg11_bn", "vgg13",
           "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"]


class VGG(nn.Module):
    """``features`` (the convolutional stacks), avgpool to 7x7, ``classifier`` (4096, 4096, num_classes)."""

    def __init__(self, features, num_classes=1000, init_weights=True, dropout=0.5):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes),
        )
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.constant_(m.bias, 0)

    def forward(self, x):
        x = self.avgpool(self.features(x)).flatten(1)
        return self.classifier(x)


def make_layers(cfg, batch_norm=False):
    """The ``features`` Sequential of a configuration: conv (+ BatchNorm2d) + ReLU per number, MaxPool2d per "M"."""
    layers = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
        else:
            conv2d = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)
            if batch_norm:
                layers += [conv2d, nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            else:
                layers += [conv2d, nn.ReLU(inplace=True)]
            in_channels = v
    return nn.Sequential(*layers)


cfgs = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"],
}

_RECIPE = "https://github.com/pytorch/vision/tree/main/references/classification#alexnet-and-vgg"


def _vgg_weights(name, num_params):
    return _imagenet_weights(f"https://download.pytorch.org/models/{name}.pth", num_params, recipe=_RECIPE)


class VGG11_Weights(WeightsEnum):
    IMAGENET1K_V1 = _vgg_weights("vgg11-8a719046", 132863336)
    DEFAULT = IMAGENET1K_V1


class VGG11_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _vgg_weights("vgg11_bn-6002323d", 132868840)
    DEFAULT = IMAGENET1K_V1


class VGG13_Weights(WeightsEnum):
    IMAGENET1K_V1 = _vgg_weights("vgg13-19584684", 133047848)
    DEFAULT = IMAGENET1K_V1


class VGG13_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _vgg_weights("vgg13_bn-abd245e5", 133053736)
    DEFAULT = IMAGENET1K_V1


class VGG16_Weights(WeightsEnum):
    IMAGENET1K_V1 = _vgg_weights("vgg16-397923af", 138357544)
    DEFAULT = IMAGENET1K_V1


class VGG16_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _vgg_weights("vgg16_bn-6c64b313", 138365992)
    DEFAULT = IMAGENET1K_V1


class VGG19_Weights(WeightsEnum):
    IMAGENET1K_V1 = _vgg_weights("vgg19-dcbb9e9d", 143667240)
    DEFAULT = IMAGENET1K_V1


class VGG19_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _vgg_weights("vgg19_bn-c79401a0", 143678248)
    DEFAULT = IMAGENET1K_V1


def _vgg(cfg, batch_norm, weights_enum, weights, kwargs):
    _weights_arg(weights_enum, weights, kwargs)
    return VGG(make_layers(cfgs[cfg], batch_norm=batch_norm), **kwargs)


def vgg11(*, weights=None, progress=True, **kwargs):
    """VGG-11 (configuration "A"); kwargs go to VGG (num_classes, init_weights, dropout)."""
    return _vgg("A", False, VGG11_Weights, weights, kwargs)


def vgg11_bn(*, weights=None, progress=True, **kwargs):
    """VGG-11 with batch normalization."""
    return _vgg("A", True, VGG11_BN_Weights, weights, kwargs)


def vgg13(*, weights=None, progress=True, **kwargs):
    return _vgg("B", False, VGG13_Weights, weights, kwargs)


def vgg13_bn(*, weights=None, progress=True, **kwargs):
    return _vgg("B", True, VGG13_BN_Weights, weights, kwargs)


def vgg16(*, weights=None, progress=True, **kwargs):
    return _vgg("D", False, VGG16_Weights, weights, kwargs)


def vgg16_bn(*, weights=None, progress=True, **kwargs):
    return _vgg("D", True, VGG16_BN_Weights, weights, kwargs)


def vgg19(*, weights=None, progress=True, **kwargs):
    return _vgg("E", False, VGG19_Weights, weights, kwargs)


def vgg19_bn(*, weights=None, progress=True, **kwargs):
    return _vgg("E", True, VGG19_BN_Weights, weights, kwargs)
