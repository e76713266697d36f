"""``pedatorch.vision``: torchvision's API on pedatorch, for image lessons.

    from pedatorch.vision import datasets, models, transforms

- ``transforms``: Compose, ToTensor, Normalize, Resize, RandomCrop, ColorJitter, ... on PIL images and image
  tensors, drawing their randomness from pedatorch's generator (``transforms.functional`` for fixed ones);
- ``datasets``: MNIST, FashionMNIST, CIFAR10 (from their files), ImageFolder, and offline sets for first lessons
  (Digits, Moons, Circles, Spirals);
- ``models``: LeNet-5, VGG, ResNet with torchvision's state_dict layout;
- ``utils``: make_grid, save_image.

``import pedatorch`` does not load this package.  It needs numpy only; PIL images need Pillow
(``pip install 'pedatorch[deploy]'``), Digits needs scikit-learn.
"""
from . import datasets, models, transforms, utils

__all__ = ["datasets", "models", "transforms", "utils"]
