"""``torch.functional``: the module where PyTorch keeps some of its Python-level functions (``norm``,
``einsum``, ``stft``...); here each is the same function as ``torch.<name>``."""
from .nn.functional.distance import cdist
from .ops.linalg import chain_matmul, einsum, pca_lowrank, svd_lowrank, tensordot
from .ops.linalg_legacy import lu, norm
from .ops.manip import block_diag, cartesian_prod, meshgrid
from .ops.shape import atleast_1d, atleast_2d, atleast_3d, broadcast_shapes, broadcast_tensors, split
from .ops.sorting import unique, unique_consecutive
from .ops.special import unravel_index
from .ops.spectral import istft, stft

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "cartesian_prod",
           "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm", "meshgrid", "pca_lowrank", "split",
           "stft", "svd_lowrank", "tensordot", "unique", "unique_consecutive", "unravel_index"]
