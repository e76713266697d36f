"""MNIST and its drop-in relatives (FashionMNIST, KMNIST): 28x28 greyscale images, 10 classes.

The files are the IDX files of the original distribution, laid out as torchvision lays them out:

    root/MNIST/raw/train-images-idx3-ubyte   (or train-images-idx3-ubyte.gz)
    root/MNIST/raw/train-labels-idx1-ubyte   (.gz)
    root/MNIST/raw/t10k-images-idx3-ubyte    (.gz)
    root/MNIST/raw/t10k-labels-idx1-ubyte    (.gz)

An IDX file is a big-endian header, 0 0 <type code> <number of dims>, one 4-byte size per dim, then the values
in C order (``read_sn3_pascalvincent_tensor``).  A sample is (PIL image of mode "L", int label); with
``transform=ToTensor()`` the image becomes a (1, 28, 28) float tensor in [0, 1].
"""
import gzip
import os

import numpy as np

from ... import _dtype as D
from ...backend import host_from_bytes
from ...ops.creation import from_numpy
from .._image import array_to_pil
from .utils import DownloadError, check_integrity, download_url, extract_archive
from .vision import VisionDataset

__all__ = ["MNIST", "FashionMNIST", "KMNIST", "read_sn3_pascalvincent_tensor", "read_image_file", "read_label_file"]


class MNIST(VisionDataset):
    """MNIST: 60,000 training and 10,000 test images of handwritten digits.

    Args: root (the folder holding ``MNIST/raw``), train (training or test split), transform, target_transform,
    download (fetch the files when they are missing; without network this fails with one line saying where to
    put copies of them).
    """

    mirrors = ["https://ossci-datasets.s3.amazonaws.com/mnist/", "http://yann.lecun.com/exdb/mnist/"]
    resources = [("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
                 ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
                 ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
                 ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c")]
    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six", "7 - seven",
               "8 - eight", "9 - nine"]

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if download:
            self.download()
        if not self._check_exists():
            raise RuntimeError("Dataset not found. You can use download=True to download it")
        self.data, self.targets = self._load_data()

    @property
    def raw_folder(self):
        return os.path.join(self.root, self.__class__.__name__, "raw")

    @property
    def processed_folder(self):
        return os.path.join(self.root, self.__class__.__name__, "processed")

    @property
    def class_to_idx(self):
        return {_class: i for i, _class in enumerate(self.classes)}

    def _raw_file(self, name):
        """The path of raw file ``name`` (without .gz): the unpacked file if there, else the .gz, else None."""
        for candidate in (name, name + ".gz"):
            path = os.path.join(self.raw_folder, candidate)
            if check_integrity(path):
                return path
        return None

    def _check_exists(self):
        return all(self._raw_file(os.path.splitext(filename)[0]) is not None for filename, _ in self.resources)

    def _load_data(self):
        split = "train" if self.train else "t10k"
        data = read_image_file(self._raw_file(f"{split}-images-idx3-ubyte"))
        targets = read_label_file(self._raw_file(f"{split}-labels-idx1-ubyte"))
        return data, targets

    def __getitem__(self, index):
        """(image, target): a PIL image of mode "L" (like every torchvision dataset) and the class index."""
        img, target = self.data[index], int(self.targets[index])
        img = array_to_pil(img.numpy(), "L")
        return self._apply_transforms(img, target)

    def __len__(self):
        return len(self.data)

    def download(self):
        """Fetch and unpack the four files from the first mirror that answers."""
        if self._check_exists():
            return
        os.makedirs(self.raw_folder, exist_ok=True)
        for filename, md5 in self.resources:
            failures = []
            for mirror in self.mirrors:
                try:
                    download_url(f"{mirror}{filename}", self.raw_folder, filename, md5)
                except DownloadError as e:
                    failures.append(f"{e.url}: {e.reason}")
                    continue
                extract_archive(os.path.join(self.raw_folder, filename), self.raw_folder)
                break
            else:
                raise RuntimeError(f"Error downloading {filename} ({'; '.join(failures)}); without network access, "
                                   f"download it elsewhere and put it in {self.raw_folder}")

    def extra_repr(self):
        return f"Split: {'Train' if self.train is True else 'Test'}"


class FashionMNIST(MNIST):
    """Fashion-MNIST: Zalando's article images, MNIST's sizes and file layout (root/FashionMNIST/raw)."""

    mirrors = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]
    resources = [("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
                 ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
                 ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
                 ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310")]
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"]


class KMNIST(MNIST):
    """Kuzushiji-MNIST: cursive Japanese characters, MNIST's sizes and file layout (root/KMNIST/raw)."""

    mirrors = ["http://codh.rois.ac.jp/kmnist/dataset/kmnist/"]
    resources = [("train-images-idx3-ubyte.gz", "bdb82020997e1d708af4cf47b453dcf7"),
                 ("train-labels-idx1-ubyte.gz", "e144d726b3acfaa3e44228e80efcd344"),
                 ("t10k-images-idx3-ubyte.gz", "5c965bf0a639b31b8f53240b1b52f4d7"),
                 ("t10k-labels-idx1-ubyte.gz", "7320c461ea6c1c855c0b718fb2a4b134")]
    classes = ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]


# The IDX type codes and their big-endian element types.
_IDX_TYPES = {8: ">u1", 9: ">i1", 11: ">i2", 12: ">i4", 13: ">f4", 14: ">f8"}


def read_sn3_pascalvincent_tensor(path, strict=True):
    """Read an IDX file (plain or .gz) as a tensor (``strict``: the sizes must account for every value)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] not in _IDX_TYPES or not 1 <= data[3] <= 3:
        raise RuntimeError(f"{path} is not an IDX file: its header should be 0 0 <type code 8-14> <1-3 dims>, "
                           f"got {list(data[:4])}")
    ndim = data[3]
    sizes = [int.from_bytes(data[4 * (i + 1):4 * (i + 2)], "big") for i in range(ndim)]
    dtype = np.dtype(_IDX_TYPES[data[2]])
    body = data[4 * (ndim + 1):]
    count, needed = len(body) // dtype.itemsize, int(np.prod(sizes))
    if count < needed or (strict and count != needed):
        raise RuntimeError(f"{path}: the header announces {sizes} = {needed} values, the file holds {count}")
    values = host_from_bytes(body[:needed * dtype.itemsize], dtype, sizes)
    return from_numpy(values.astype(dtype.newbyteorder("=")))     # big-endian -> this machine's byte order


def read_label_file(path):
    x = read_sn3_pascalvincent_tensor(path, strict=False)
    if x.dtype != D.uint8:
        raise TypeError(f"x should be of dtype torch.uint8 instead of {x.dtype}")
    if x.ndimension() != 1:
        raise ValueError(f"x should have 1 dimension instead of {x.ndimension()}")
    return x.long()


def read_image_file(path):
    x = read_sn3_pascalvincent_tensor(path, strict=False)
    if x.dtype != D.uint8:
        raise TypeError(f"x should be of dtype torch.uint8 instead of {x.dtype}")
    if x.ndimension() != 3:
        raise ValueError(f"x should have 3 dimension instead of {x.ndimension()}")
    return x
