"""torch.utils.dlpack: exchange tensors with other libraries without copying (the DLPack protocol).
The functions live with the other ops (``from_dlpack`` in ops/creation.py, ``to_dlpack`` in ops/special.py)."""
from ..ops.creation import from_dlpack  # noqa: F401
from ..ops.special import to_dlpack  # noqa: F401

__all__ = ["from_dlpack", "to_dlpack"]
