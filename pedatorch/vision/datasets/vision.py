"""``VisionDataset``: what every dataset of pedatorch.vision shares (torchvision's base class).

A sample is (input, target).  ``transform`` is applied to the input, ``target_transform`` to the target, or
``transforms`` (one callable) to both together.  ``repr`` lists the dataset's size, where it lives, its split
and its transforms.
"""
import os

from ...utils.data.dataset import Dataset


class VisionDataset(Dataset):
    """Base class: keeps ``root``, ``transform``, ``target_transform`` and ``transforms``."""

    _repr_indent = 4

    def __init__(self, root=None, transforms=None, transform=None, target_transform=None):
        if isinstance(root, str):
            root = os.path.expanduser(root)
        self.root = root
        has_transforms = transforms is not None
        has_separate_transform = transform is not None or target_transform is not None
        if has_transforms and has_separate_transform:
            raise ValueError("Only transforms or transform/target_transform can be passed as argument")
        self.transform = transform
        self.target_transform = target_transform
        if has_separate_transform:
            transforms = StandardTransform(transform, target_transform)
        self.transforms = transforms

    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def _apply_transforms(self, sample, target):
        """The one place where a dataset applies its transforms to a sample."""
        if self.transforms is not None:
            sample, target = self.transforms(sample, target)
        return sample, target

    def __repr__(self):
        head = "Dataset " + self.__class__.__name__
        body = [f"Number of datapoints: {self.__len__()}"]
        if self.root is not None:
            body.append(f"Root location: {self.root}")
        body += self.extra_repr().splitlines()
        if self.transforms is not None:
            body += [repr(self.transforms)]
        return "\n".join([head] + [" " * self._repr_indent + line for line in body])

    def extra_repr(self):
        return ""


def _format_transform_repr(transform, head):
    lines = repr(transform).splitlines()
    return [f"{head}{lines[0]}"] + [" " * len(head) + line for line in lines[1:]]


class StandardTransform:
    """(input, target) -> (transform(input), target_transform(target)), either one optional."""

    def __init__(self, transform=None, target_transform=None):
        self.transform = transform
        self.target_transform = target_transform

    def __call__(self, input, target):
        if self.transform is not None:
            input = self.transform(input)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return input, target

    def __repr__(self):
        body = [self.__class__.__name__]
        if self.transform is not None:
            body += _format_transform_repr(self.transform, "Transform: ")
        if self.target_transform is not None:
            body += _format_transform_repr(self.target_transform, "Target transform: ")
        return "\n".join(body)
