# torch.utils.data beyond TensorDataset, as in the "Datasets & DataLoaders" tutorial and the data-loading
# docs: map-style datasets returning dicts, a padding collate_fn, ConcatDataset / Subset, the samplers
# (SubsetRandomSampler, WeightedRandomSampler for class imbalance, BatchSampler), an IterableDataset split
# across worker processes with get_worker_info, seeded shuffling with a Generator, and default_collate.
import random

import numpy as np
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, IterableDataset, RandomSampler,
                              SequentialSampler, Subset, SubsetRandomSampler, WeightedRandomSampler,
                              default_collate, get_worker_info, random_split)

torch.manual_seed(0)


class Sentences(Dataset):
    def __init__(self, n, offset=0):
        self.lengths = torch.randint(2, 7, (n,))
        self.offset = offset

    def __len__(self):
        return len(self.lengths)

    def __getitem__(self, i):
        L = int(self.lengths[i])
        return {"tokens": torch.arange(L) + self.offset + i, "label": i % 3, "id": f"s{self.offset + i}"}


def pad_collate(batch):
    tokens = [b["tokens"] for b in batch]
    return {
        "tokens": pad_sequence(tokens, batch_first=True, padding_value=-1),
        "lengths": torch.tensor([len(t) for t in tokens]),
        "label": torch.tensor([b["label"] for b in batch]),
        "id": [b["id"] for b in batch],
    }


ds = Sentences(10)
print(len(ds), ds[3])
batch = next(iter(DataLoader(ds, batch_size=4, collate_fn=pad_collate)))
print(batch["tokens"], batch["lengths"], batch["label"], batch["id"], sep="\n")
fixed = Subset(ds, [0, 1, 2])
print([default_collate([fixed[i]["label"] for i in range(3)])], default_collate([{"a": 1.5, "b": torch.ones(2)}] * 2))
print(default_collate([(torch.zeros(2), 3), (torch.ones(2), 4)]))

both = ConcatDataset([ds, Sentences(5, offset=100)])
print(len(both), both.cumulative_sizes, both[12]["id"])
train, val = random_split(both, [12, 3], generator=torch.Generator().manual_seed(42))
print(train.indices, val.indices)

g = torch.Generator()
g.manual_seed(0)
print(list(RandomSampler(range(8), generator=g)), list(SequentialSampler(range(4))))
print(list(SubsetRandomSampler([10, 20, 30, 40])))
print(list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False)))
print(list(BatchSampler(RandomSampler(range(7)), batch_size=3, drop_last=True)))

# class imbalance: 90% label 0, 10% label 1; weights 1 / class frequency
labels = torch.cat([torch.zeros(90, dtype=torch.long), torch.ones(10, dtype=torch.long)])
class_count = torch.bincount(labels)
weights = 1.0 / class_count[labels].float()
sampler = WeightedRandomSampler(weights, num_samples=200, replacement=True)
drawn = labels[torch.tensor(list(sampler))]
print(class_count, drawn.bincount(), list(sampler)[:10])
loader = DataLoader(labels, batch_size=50, sampler=WeightedRandomSampler(weights, 100))
print([b.float().mean().item() for b in loader])


# an iterable dataset that splits its range between workers
class RangeStream(IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            lo, hi = self.start, self.end
        else:
            per = -(-(self.end - self.start) // info.num_workers)
            lo = self.start + info.id * per
            hi = min(lo + per, self.end)
        return iter(range(lo, hi))


stream = RangeStream(3, 10)
print(list(DataLoader(stream, batch_size=None)))
print([b.tolist() for b in DataLoader(stream, batch_size=2)])
print(sorted(x.item() for x in DataLoader(stream, num_workers=2)))


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


class Augmented(Dataset):
    """Random augmentation inside the workers: torch, numpy and random draws per item."""

    def __len__(self):
        return 6

    def __getitem__(self, i):
        return torch.tensor([i + torch.rand(()).item(), np.random.rand(), random.random()]).round(decimals=4)


g = torch.Generator()
g.manual_seed(0)
loader = DataLoader(torch.arange(12.0), batch_size=4, shuffle=True, num_workers=2, worker_init_fn=seed_worker,
                    generator=g)
print([b.tolist() for b in loader], len(loader))
g.manual_seed(0)
print([b.tolist() for b in DataLoader(torch.arange(12.0), batch_size=4, shuffle=True, generator=g)])
print([b.shape for b in DataLoader(torch.randn(10, 3), batch_size=4, drop_last=True)])
g.manual_seed(1)
for b in DataLoader(Augmented(), batch_size=3, num_workers=2, worker_init_fn=seed_worker, generator=g):
    print(b)
