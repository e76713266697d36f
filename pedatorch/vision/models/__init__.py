"""``pedatorch.vision.models``: LeNet-5, and torchvision's VGG and ResNet families with torchvision's module
names, parameter shapes and initialisation (a torchvision state_dict loads into them as it is).

``weights=`` (pretrained weights) raises an error that says where the file is and how to load a local copy:
pedatorch does not download weights (``_api.py``).
"""
from ._api import Weights, WeightsEnum
from .lenet import LeNet5, lenet5
from .resnet import (BasicBlock, Bottleneck, ResNet, ResNet18_Weights, ResNet34_Weights, ResNet50_Weights,
                     ResNet101_Weights, ResNet152_Weights, resnet18, resnet34, resnet50, resnet101, resnet152)
from .vgg import (VGG, VGG11_BN_Weights, VGG11_Weights, VGG13_BN_Weights, VGG13_Weights, VGG16_BN_Weights,
                  VGG16_Weights, VGG19_BN_Weights, VGG19_Weights, vgg11, vgg11_bn, vgg13, vgg13_bn, vgg16, vgg16_bn,
                  vgg19, vgg19_bn)

__all__ = ["Weights", "WeightsEnum", "LeNet5", "lenet5", "BasicBlock", "Bottleneck", "ResNet", "ResNet18_Weights",
           "ResNet34_Weights", "ResNet50_Weights", "ResNet101_Weights", "ResNet152_Weights", "resnet18", "resnet34",
           "resnet50", "resnet101", "resnet152", "VGG", "VGG11_Weights", "VGG11_BN_Weights", "VGG13_Weights",
           "VGG13_BN_Weights", "VGG16_Weights", "VGG16_BN_Weights", "VGG19_Weights", "VGG19_BN_Weights", "vgg11",
           "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"]
