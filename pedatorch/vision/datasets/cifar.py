"""CIFAR-10 and CIFAR-100: 32x32 colour images in 10 (or 100) classes, from the "python version" files.

    root/cifar-10-batches-py/data_batch_1 ... data_batch_5, test_batch, batches.meta
    root/cifar-100-python/train, test, meta

Each file is a Python pickle of a dict: ``data`` a (N, 3072) uint8 array (the red plane, then green, then blue,
each 32x32 row by row), ``labels`` (``fine_labels`` for CIFAR-100) a list of ints; the meta file names the
classes.  A pickle can name any Python function to call while loading, so these files are read with an
unpickler that allows only what such a file contains: numpy's array reconstruction (``_SafeUnpickler``).
"""
import os
import pickle

import numpy as np

from .._image import array_to_pil
from .utils import check_integrity, download_and_extract_archive
from .vision import VisionDataset

__all__ = ["CIFAR10", "CIFAR100"]

# The globals a pickled numpy array refers to (numpy < 2 names its core "numpy.core", numpy >= 2 "numpy._core";
# _frombuffer is what pickle protocol 5 uses).  They rebuild arrays from bytes and call nothing else.
_ALLOWED_GLOBALS = {(core + module, name) for core in ("numpy.core.", "numpy._core.")
                    for module, name in (("multiarray", "_reconstruct"), ("multiarray", "scalar"),
                                         ("numeric", "_frombuffer"))} | {("numpy", "ndarray"), ("numpy", "dtype")}


class _SafeUnpickler(pickle.Unpickler):
    """An unpickler that builds only dicts, lists, strings, numbers and numpy arrays."""

    def find_class(self, module, name):
        if (module, name) in _ALLOWED_GLOBALS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}: a CIFAR batch holds only plain data and "
                                     "numpy arrays")


def _load_pickle(path):
    with open(path, "rb") as f:
        return _SafeUnpickler(f, encoding="latin1").load()


class CIFAR10(VisionDataset):
    """CIFAR-10: 50,000 training and 10,000 test images of 10 classes (airplane, automobile, ...).

    Args: root (the folder holding ``cifar-10-batches-py``), train, transform, target_transform, download.
    Samples are (PIL RGB image, int label).  The files' MD5 checksums are checked after a download only, so
    that smaller files of the same format work too.
    """

    base_folder = "cifar-10-batches-py"
    url = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
    filename = "cifar-10-python.tar.gz"
    tgz_md5 = "c58f30108f718f92721af3b95e74349a"
    train_list = [["data_batch_1", "c99cafc152244af753f735de768cd75f"],
                  ["data_batch_2", "d4bba439e000b95fd0a9bffe97cbabec"],
                  ["data_batch_3", "54ebc095f3ab1f0389bbae665268c751"],
                  ["data_batch_4", "634d18415352ddfa80567beed471001a"],
                  ["data_batch_5", "482c414d41f54cd18b22e5b47cb7c3cb"]]
    test_list = [["test_batch", "40351d587109b95175f43aff81a1287e"]]
    meta = {"filename": "batches.meta", "key": "label_names", "md5": "5ff9c542aee3614f3951f8cda6e48888"}

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to download it")
        self.data = []
        self.targets = []
        for file_name, _ in self.train_list if self.train else self.test_list:
            entry = _load_pickle(os.path.join(self.root, self.base_folder, file_name))
            self.data.append(entry["data"])
            self.targets.extend(entry["labels"] if "labels" in entry else entry["fine_labels"])
        # (N, 3072) planes -> (N, 3, 32, 32) -> (N, 32, 32, 3): height, width, channels, as PIL wants them
        self.data = np.vstack(self.data).reshape(-1, 3, 32, 32).transpose((0, 2, 3, 1))
        self._load_meta()

    def _load_meta(self):
        path = os.path.join(self.root, self.base_folder, self.meta["filename"])
        if not check_integrity(path):
            raise RuntimeError("Dataset metadata file not found or corrupted. You can use download=True to download it")
        self.classes = _load_pickle(path)[self.meta["key"]]
        self.class_to_idx = {_class: i for i, _class in enumerate(self.classes)}

    def __getitem__(self, index):
        """(image, target): a PIL RGB image and the class index."""
        img, target = self.data[index], self.targets[index]
        return self._apply_transforms(array_to_pil(img, "RGB"), target)

    def __len__(self):
        return len(self.data)

    def _check_integrity(self):
        return all(check_integrity(os.path.join(self.root, self.base_folder, filename))
                   for filename, _ in self.train_list + self.test_list)

    def download(self):
        if self._check_integrity():
            return
        download_and_extract_archive(self.url, self.root, filename=self.filename, md5=self.tgz_md5)

    def extra_repr(self):
        return f"Split: {'Train' if self.train is True else 'Test'}"


class CIFAR100(CIFAR10):
    """CIFAR-100: like CIFAR-10 with 100 classes (root/cifar-100-python: train, test, meta)."""

    base_folder = "cifar-100-python"
    url = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
    filename = "cifar-100-python.tar.gz"
    tgz_md5 = "eb9058c3a382ffc7106e4002c42a8d85"
    train_list = [["train", "16019d7e3df5f24257cddd939b257f8d"]]
    test_list = [["test", "f0ef6b0ae62326f3e7ffdfab6717acfc"]]
    meta = {"filename": "meta", "key": "fine_label_names", "md5": "7973b15100ade9c7d40fb424638fde48"}
