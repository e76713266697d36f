"""``Digits``: scikit-learn's bundled 8x8 handwritten digits (1,797 images, classes 0-9), for first lessons
without downloads.

scikit-learn ships the data inside its package (``sklearn.datasets.load_digits``), so nothing is fetched.  The
pixels there are counts 0..16; here each image is a float32 tensor (1, 8, 8) scaled to [0, 1], the shape and
range ``ToTensor`` gives MNIST images, so the same models and tensor transforms apply.  ``train=True`` is the
first 80% (1,437 images), ``train=False`` the last 20% (360), ``train=None`` all of them.
"""
from ... import _dtype as D
from ...ops.creation import from_numpy
from .vision import VisionDataset

__all__ = ["Digits"]

_TRAIN_SIZE = 1437


class Digits(VisionDataset):
    """(image float32 (1, 8, 8) in [0, 1], int label) from scikit-learn's digits."""

    classes = [str(i) for i in range(10)]

    def __init__(self, train=True, transform=None, target_transform=None):
        super().__init__(None, transform=transform, target_transform=target_transform)
        try:
            from sklearn.datasets import load_digits
        except ImportError as e:
            raise ModuleNotFoundError("Digits needs scikit-learn, which bundles the data: pip install "
                                      "'pedatorch[lessons]' (or pip install scikit-learn)") from e
        bunch = load_digits()
        images = from_numpy(bunch.images).to(D.float32) / 16.0
        targets = from_numpy(bunch.target).long()
        split = slice(None) if train is None else slice(None, _TRAIN_SIZE) if train else slice(_TRAIN_SIZE, None)
        self.train = train
        self.data = images[split].unsqueeze(1).contiguous()
        self.targets = targets[split].contiguous()

    @property
    def class_to_idx(self):
        return {c: i for i, c in enumerate(self.classes)}

    def __getitem__(self, index):
        return self._apply_transforms(self.data[index], int(self.targets[index]))

    def __len__(self):
        return len(self.data)

    def extra_repr(self):
        return f"Split: {'All' if self.train is None else 'Train' if self.train else 'Test'}"
