"""``torch.types``: the type aliases PyTorch's annotations use (``Number``, ``Device``, ``FileLike``)."""
import os
from typing import IO, Any, Sequence, Union  # noqa: F401

from ._device import device as _device
from ._tensor import Size, Tensor  # noqa: F401
from .storage import TypedStorage, UntypedStorage

__all__ = ["Number", "Device", "FileLike", "Storage", "IntLikeType", "FloatLikeType", "BoolLikeType", "Tensor", "Size"]

Number = Union[int, float, bool]
IntLikeType = int
FloatLikeType = float
BoolLikeType = bool
Device = Union[_device, str, int, None]
FileLike = Union[str, os.PathLike, IO[bytes]]
Storage = Union[TypedStorage, UntypedStorage]
