"""``torch.nn.parallel``: DataParallel (one process, several GPUs) and DistributedDataParallel.

pedatorch computes on one device, so these are the forms PyTorch itself takes without several GPUs:
DataParallel just calls the wrapped module, DistributedDataParallel needs a process group that
pedatorch (no ``torch.distributed``) can never have.
"""
from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
