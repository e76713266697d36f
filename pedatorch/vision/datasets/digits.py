"""``Digits``: scikit-learn's bundled 8x8 handwritten digits (1,797 images, classes 0-9), for first lessons
without downloads.

scikit-learn ships the data inside its package (``sklearn.datasets.load_digits``), so nothing is fetched.  The
pixels there are counts 0..16; here each image is a float32 tensor (1, 8, 8) scaled to [0, 1], the shape and
range ``ToTensor`` gives MNIST images, so the same models and tensor transforms apply.  ``train=True`` is the
first 80% (1,437 images), ``train=False`` the last 20% (360), ``train=None`` all of them.
"""
import numpy as np

from ... import _dtype as D
from ...ops.creation import from_numpy
from .vision import VisionDataset

__all__ = ["Digits"]


def _load():
    """(pixels (1797, 8, 8), labels (1797,)) as numpy arrays, read from the CSV file scikit-learn ships. The
    file is read directly: importing ``sklearn.datasets`` (``load_digits``) takes a second, reading it 20 ms."""
    import importlib.util
    import os
    spec = importlib.util.find_spec("sklearn")   # (finds the package without importing it)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("Digits needs scikit-learn, which bundles the data: pip install "
                                  "'pedatorch[lessons]' (or pip install scikit-learn)")
    path = os.path.join(spec.submodule_search_locations[0], "datasets", "data", "digits.csv.gz")
    if not os.path.exists(path):   # another layout: scikit-learn's own loader
        from sklearn.datasets import load_digits
        bunch = load_digits()
        return bunch.images, bunch.target
    table = np.loadtxt(path, delimiter=",", dtype=np.float64)
    return table[:, :-1].reshape(-1, 8, 8), table[:, -1].astype(np.int64)

_TRAIN_SIZE = 1437


class Digits(VisionDataset):
    """(image float32 (1, 8, 8) in [0, 1], int label) from scikit-learn's digits."""

    classes = [str(i) for i in range(10)]

    def __init__(self, train=True, transform=None, target_transform=None):
        super().__init__(None, transform=transform, target_transform=target_transform)
        pixels, labels = _load()
        images = from_numpy(pixels).to(D.float32) / 16.0
        targets = from_numpy(labels).long()
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
