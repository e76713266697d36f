"""``pedatorch.vision.datasets``: torchvision's datasets that read files (MNIST, FashionMNIST, KMNIST, CIFAR10,
CIFAR100, ImageFolder, DatasetFolder) and offline ones for first lessons (Digits from scikit-learn; Moons,
Circles, Spirals made on the spot).  All are ``pedatorch.utils.data.Dataset``s with ``transform`` and
``target_transform``, ready for a DataLoader.
"""
from .cifar import CIFAR10, CIFAR100
from .digits import Digits
from .folder import DatasetFolder, ImageFolder
from .mnist import FashionMNIST, KMNIST, MNIST
from .synthetic import Circles, Moons, Spirals
from .vision import StandardTransform, VisionDataset

__all__ = ["CIFAR10", "CIFAR100", "Circles", "DatasetFolder", "Digits", "FashionMNIST", "ImageFolder", "KMNIST",
           "MNIST", "Moons", "Spirals", "StandardTransform", "VisionDataset"]
