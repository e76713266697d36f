"""``pedatorch.utils.data`` (PyTorch's ``torch.utils.data``): datasets, samplers, collation, DataLoader.

Reading path: ``dataset.py`` (what a dataset is), ``sampler.py`` (in which
order it is read), ``_utils/collate.py`` (samples -> a batch),
``dataloader.py`` (the loop, and worker processes in ``_utils/worker.py``).
"""
from .dataloader import _DatasetKind, DataLoader, default_collate, default_convert, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, random_split, StackDataset, Subset,
                      TensorDataset)
from .distributed import DistributedSampler
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
           "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "_DatasetKind", "default_collate",
           "default_convert", "get_worker_info", "random_split"]
