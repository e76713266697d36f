# torch.utils.data as its API reference page documents it: map-style and iterable datasets, TensorDataset,
# ConcatDataset, ChainDataset, StackDataset, Subset, random_split (counts and fractions, with a Generator),
# every sampler (Sequential, Random with replacement / num_samples / generator, SubsetRandom, WeightedRandom
# with and without replacement, BatchSampler), the DataLoader's arguments (batch_size, shuffle, drop_last,
# sampler, batch_sampler, collate_fn, generator, batch_size=None), default_collate and default_convert on
# every documented element type, len() of loaders, iterating a loader twice, pad_sequence, and the errors
# for bad input.  The index orders are printed so that the random streams are compared.
import collections
import warnings

import numpy as np
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset, IterableDataset,
                              RandomSampler, SequentialSampler, StackDataset, Subset, SubsetRandomSampler,
                              TensorDataset, WeightedRandomSampler, default_collate, default_convert, random_split)

torch.manual_seed(0)


def show_error(label, fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and the message are what is compared
        print(label, "->", type(e).__name__, e)
    else:
        print(label, "-> no error")


def show_warnings(label, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    print(label, [str(w.message) for w in caught])
    return result


# ---------------------------------------------------------------- datasets
class Squares(Dataset):
    """A map-style dataset: sample i is (i, i**2) as tensors."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(f"index {i} out of range")
        return torch.tensor(float(i)), torch.tensor(i * i)


class Countdown(IterableDataset):
    """An iterable dataset: start, start - 1, ..., 1."""

    def __init__(self, start):
        self.start = start

    def __iter__(self):
        return iter(range(self.start, 0, -1))


class SizedCountdown(Countdown):
    def __len__(self):
        return self.start


class NoLen(Dataset):
    def __getitem__(self, i):
        return i


sq = Squares(6)
print("Squares", len(sq), sq[2], sq[5])
print("Countdown", list(Countdown(4)))
show_error("len(NoLen())", lambda: len(NoLen()))
show_error("Dataset()[0]", lambda: Dataset()[0])

x = torch.arange(12.0).reshape(6, 2)
y = torch.tensor([0, 1, 0, 1, 1, 0])
tds = TensorDataset(x, y)
print("TensorDataset", len(tds), tds[1], len(tds.tensors))
print("TensorDataset slice", tds[1:3])
print("TensorDataset one tensor", TensorDataset(y)[4])
show_error("TensorDataset mismatch", lambda: TensorDataset(x, torch.zeros(5)))

cat = ConcatDataset([sq, tds])
print("ConcatDataset", len(cat), cat.cumulative_sizes, cat[5], cat[6], cat[-1], cat[-12])
plus = sq + Squares(2)
print("Dataset + Dataset", type(plus).__name__, len(plus), plus[7])
show_error("ConcatDataset out of range", lambda: cat[12])
show_error("ConcatDataset -13", lambda: cat[-13])
show_error("ConcatDataset []", lambda: ConcatDataset([]))
show_error("ConcatDataset iterable", lambda: ConcatDataset([sq, Countdown(3)]))

chain = ChainDataset([Countdown(3), SizedCountdown(2)])
print("ChainDataset", list(chain))
print("ChainDataset len", len(ChainDataset([SizedCountdown(3), SizedCountdown(2)])))
show_error("ChainDataset len unsized", lambda: len(chain))
added = Countdown(2) + Countdown(1)
print("IterableDataset + IterableDataset", type(added).__name__, list(added))

stack = StackDataset(sq, tds)
print("StackDataset tuple", len(stack), stack[3])
print("StackDataset dict", StackDataset(a=sq, b=y)[2])
show_error("StackDataset mismatch", lambda: StackDataset(sq, Squares(4)))
show_error("StackDataset empty", lambda: StackDataset())

sub = Subset(tds, [5, 0, 3])
print("Subset", len(sub), sub[0], sub.indices)
subsub = Subset(sub, [2, 1])
print("Subset of Subset", len(subsub), subsub[0], subsub[1])
print("Subset of range", Subset(range(10, 20), [3, 1])[0], list(Subset(range(10, 20), [3, 1])))

# ---------------------------------------------------------------- random_split
parts = random_split(range(10), [3, 7], generator=torch.Generator().manual_seed(42))
print("random_split ints", [p.indices for p in parts], [len(p) for p in parts], type(parts[0]).__name__)
parts = random_split(range(10), [0.7, 0.3], generator=torch.Generator().manual_seed(42))
print("random_split fractions", [p.indices for p in parts])
parts = random_split(range(11), [0.25, 0.25, 0.5], generator=torch.Generator().manual_seed(1))
print("random_split remainder", [len(p) for p in parts], [p.indices for p in parts])
parts = random_split(range(10), [1 / 3, 1 / 3, 1 / 3], generator=torch.Generator().manual_seed(1))
print("random_split thirds", [len(p) for p in parts])
torch.manual_seed(3)
print("random_split default generator", [p.indices for p in random_split(tds, [4, 2])])
parts = show_warnings("random_split empty part warns", lambda: random_split(range(3), [0.9, 0.1]))
print("  lengths", [len(p) for p in parts])
show_error("random_split sum", lambda: random_split(range(10), [3, 5]))
show_error("random_split too long", lambda: random_split(range(10), [6, 6]))
show_error("random_split fraction > 1", lambda: random_split(range(10), [1.5, -0.5]))
show_error("random_split fractions < 1", lambda: random_split(range(10), [0.5, 0.4]))

# ---------------------------------------------------------------- samplers
print("SequentialSampler", list(SequentialSampler(range(5))), len(SequentialSampler(sq)))
torch.manual_seed(0)
print("RandomSampler global", list(RandomSampler(range(8))), list(RandomSampler(range(8))))
g = torch.Generator().manual_seed(7)
rs = RandomSampler(range(8), generator=g)
print("RandomSampler generator", list(rs), list(rs), len(rs))
g.manual_seed(7)
print("RandomSampler reseeded", list(rs))
rs = RandomSampler(range(5), num_samples=12, generator=torch.Generator().manual_seed(3))
print("RandomSampler num_samples > n", list(rs), len(rs))
rs = RandomSampler(range(5), replacement=True, generator=torch.Generator().manual_seed(3))
print("RandomSampler replacement", list(rs), len(rs))
rs = RandomSampler(range(10), replacement=True, num_samples=40, generator=torch.Generator().manual_seed(4))
print("RandomSampler 40 with replacement", list(rs))
torch.manual_seed(5)
print("RandomSampler replacement global", list(RandomSampler(range(4), replacement=True, num_samples=6)))
show_error("RandomSampler num_samples=0", lambda: RandomSampler(range(5), num_samples=0))
show_error("RandomSampler replacement=1", lambda: RandomSampler(range(5), replacement=1))
show_error("RandomSampler empty", lambda: RandomSampler([]))

srs = SubsetRandomSampler([10, 20, 30, 40, 50], generator=torch.Generator().manual_seed(2))
print("SubsetRandomSampler", list(srs), list(srs), len(srs))
torch.manual_seed(6)
print("SubsetRandomSampler global", list(SubsetRandomSampler(range(100, 106))))

weights = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
wrs = WeightedRandomSampler(weights, 10, generator=torch.Generator().manual_seed(0))
print("WeightedRandomSampler", list(wrs), len(wrs), wrs.weights.dtype)
wrs = WeightedRandomSampler(torch.tensor(weights), 5, replacement=False, generator=torch.Generator().manual_seed(0))
print("WeightedRandomSampler no replacement", list(wrs))
torch.manual_seed(8)
print("WeightedRandomSampler global", list(WeightedRandomSampler([1, 0, 2, 0, 1], 8)))
show_error("WeightedRandomSampler too many", lambda: list(WeightedRandomSampler([1.0, 0.0, 2.0], 3, replacement=False)))
show_error("WeightedRandomSampler 2d", lambda: WeightedRandomSampler([[1.0, 2.0]], 2))
show_error("WeightedRandomSampler num_samples=0", lambda: WeightedRandomSampler(weights, 0))
show_error("WeightedRandomSampler num_samples=2.0", lambda: WeightedRandomSampler(weights, 2.0))
show_error("WeightedRandomSampler replacement=0", lambda: WeightedRandomSampler(weights, 2, replacement=0))
show_error("WeightedRandomSampler negative", lambda: list(WeightedRandomSampler([1.0, -1.0], 2)))

bs = BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=False)
print("BatchSampler", list(bs), len(bs))
bs = BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=True)
print("BatchSampler drop_last", list(bs), len(bs))
bs = BatchSampler(RandomSampler(range(10), generator=torch.Generator().manual_seed(9)), 4, False)
print("BatchSampler random", list(bs), len(bs))
print("BatchSampler over a list", list(BatchSampler([5, 4, 3, 2, 1], 2, False)))
show_error("BatchSampler batch_size=0", lambda: BatchSampler(range(4), 0, False))
show_error("BatchSampler batch_size=True", lambda: BatchSampler(range(4), True, False))
show_error("BatchSampler drop_last=1", lambda: BatchSampler(range(4), 2, 1))

# ---------------------------------------------------------------- DataLoader
loader = DataLoader(tds, batch_size=4)
print("DataLoader", len(loader), loader.batch_size, loader.drop_last, type(loader.sampler).__name__)
for xb, yb in loader:
    print("  batch", xb.tolist(), yb.tolist(), xb.dtype, yb.dtype)
print("drop_last", len(DataLoader(tds, batch_size=4, drop_last=True)),
      [b[1].tolist() for b in DataLoader(tds, batch_size=4, drop_last=True)])
print("batch_size=1 default", [b[1].tolist() for b in DataLoader(tds)])

torch.manual_seed(0)
loader = DataLoader(range(10), batch_size=4, shuffle=True)
print("shuffle global", type(loader.sampler).__name__, [b.tolist() for b in loader],
      [b.tolist() for b in loader])
g = torch.Generator().manual_seed(11)
loader = DataLoader(range(10), batch_size=4, shuffle=True, generator=g)
first, second = [b.tolist() for b in loader], [b.tolist() for b in loader]
print("shuffle generator", first, second, first == second)
g.manual_seed(11)
print("shuffle reseeded", [b.tolist() for b in loader] == first)
g.manual_seed(11)
it = iter(loader)
print("next of iter", next(it).tolist(), len(it))

loader = DataLoader(sq, batch_size=2, sampler=SubsetRandomSampler([0, 2, 4, 5],
                                                                    generator=torch.Generator().manual_seed(1)))
print("sampler=", len(loader), [b[1].tolist() for b in loader])
loader = DataLoader(sq, sampler=[5, 1, 3], batch_size=2)
print("sampler=list", [b[1].tolist() for b in loader])
bsampler = BatchSampler(RandomSampler(sq, generator=torch.Generator().manual_seed(2)), 4, drop_last=False)
loader = DataLoader(sq, batch_sampler=bsampler)
print("batch_sampler=", len(loader), loader.batch_size, [b[1].tolist() for b in loader])
loader = DataLoader(sq, batch_sampler=[[0, 1, 2], [5], [3, 3]])
print("batch_sampler=list", [b[1].tolist() for b in loader])
loader = DataLoader(sq, batch_size=None)
print("batch_size=None", len(loader), [b for b in loader][:2])
loader = DataLoader(sq, batch_size=None, shuffle=True, generator=torch.Generator().manual_seed(4))
print("batch_size=None shuffle", [int(b[1]) for b in loader])
loader = DataLoader(x, batch_size=None, sampler=BatchSampler(range(6), 4, False))
print("batch_size=None with a batch sampler as sampler", [b.tolist() for b in loader])

wloader = DataLoader(y, batch_size=5, sampler=WeightedRandomSampler([1.0, 2.0, 1.0, 5.0, 1.0, 0.5], 10,
                                                                      generator=torch.Generator().manual_seed(3)))
print("WeightedRandomSampler loader", [b.tolist() for b in wloader], len(wloader))


def my_collate(batch):
    xs, ys = zip(*batch)
    return torch.stack(xs).sum(0), list(ys)


loader = DataLoader(tds, batch_size=3, collate_fn=my_collate)
print("collate_fn", [(a.tolist(), [int(v) for v in b]) for a, b in loader])
print("collate_fn=list", next(iter(DataLoader(range(5), batch_size=3, collate_fn=list))))
print("collate_fn identity batch_size=None", list(DataLoader(range(3), batch_size=None, collate_fn=lambda v: v * 10)))

print("iterable loader", [b.tolist() for b in DataLoader(Countdown(7), batch_size=3)])
print("iterable drop_last", [b.tolist() for b in DataLoader(Countdown(7), batch_size=3, drop_last=True)])
print("iterable batch_size=None", list(DataLoader(Countdown(3), batch_size=None)))
print("iterable len", len(DataLoader(SizedCountdown(7), batch_size=3)),
      len(DataLoader(SizedCountdown(7), batch_size=3, drop_last=True)), len(DataLoader(SizedCountdown(7))))
show_error("iterable len unsized", lambda: len(DataLoader(Countdown(7), batch_size=3)))
print("chain loader", [b.tolist() for b in DataLoader(ChainDataset([Countdown(2), Countdown(3)]), batch_size=2)])

print("numpy dataset", [b for b in DataLoader(np.arange(6, dtype=np.int32).reshape(3, 2), batch_size=2)])
print("list of floats", list(DataLoader([1.5, 2.5, 3.5], batch_size=2)))
print("list of strings", list(DataLoader(["a", "bb", "ccc"], batch_size=2)))

# ---------------------------------------------------------------- errors of the DataLoader
show_error("sampler and shuffle", lambda: DataLoader(sq, sampler=SequentialSampler(sq), shuffle=True))
show_error("batch_sampler and batch_size", lambda: DataLoader(sq, batch_sampler=bsampler, batch_size=2))
show_error("batch_sampler and shuffle", lambda: DataLoader(sq, batch_sampler=bsampler, shuffle=True))
show_error("batch_sampler and drop_last", lambda: DataLoader(sq, batch_sampler=bsampler, drop_last=True))
show_error("batch_sampler and sampler", lambda: DataLoader(sq, batch_sampler=bsampler, sampler=[0]))
show_error("batch_size=None and drop_last", lambda: DataLoader(sq, batch_size=None, drop_last=True))
show_error("iterable and shuffle", lambda: DataLoader(Countdown(3), shuffle=True))
show_error("iterable and sampler", lambda: DataLoader(Countdown(3), sampler=[0, 1]))
show_error("iterable and batch_sampler", lambda: DataLoader(Countdown(3), batch_sampler=[[0, 1]]))
show_error("num_workers=-1", lambda: DataLoader(sq, num_workers=-1))
show_error("timeout=-1", lambda: DataLoader(sq, timeout=-1))
show_error("prefetch_factor without workers", lambda: DataLoader(sq, prefetch_factor=2))
show_error("persistent_workers without workers", lambda: DataLoader(sq, persistent_workers=True))
show_error("batch_size=0", lambda: DataLoader(sq, batch_size=0))
loader = DataLoader(sq, batch_size=2)
show_error("set batch_size", lambda: setattr(loader, "batch_size", 3))
show_error("shuffle an unsized dataset", lambda: list(DataLoader(NoLen(), shuffle=True)))
show_error("index past the end", lambda: list(DataLoader(sq, sampler=[0, 9])))

# ---------------------------------------------------------------- default_collate / default_convert
Point = collections.namedtuple("Point", ["x", "y"])
print("collate tensors", default_collate([torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])]))
print("collate ints", default_collate([1, 2, 3]), default_collate([1, 2, 3]).dtype)
print("collate floats", default_collate([1.0, 2.5]), default_collate([1.0, 2.5]).dtype)
print("collate bools", default_collate([True, False]))
print("collate strings", default_collate(["a", "b"]), default_collate([b"a", b"b"]))
print("collate dicts", default_collate([{"a": 1, "b": torch.zeros(2)}, {"a": 2, "b": torch.ones(2)}]))
print("collate OrderedDict", default_collate([collections.OrderedDict(z=1.0, a=2), collections.OrderedDict(z=3.0, a=4)]))
print("collate tuples", default_collate([(1, "x", 2.0), (3, "y", 4.0)]))
print("collate lists", default_collate([[1, 2], [3, 4], [5, 6]]))
print("collate namedtuples", default_collate([Point(1, 2.0), Point(3, 4.0)]))
print("collate nested", default_collate([{"p": Point(torch.ones(1), [1, 2]), "s": "u"},
                                         {"p": Point(torch.zeros(1), [3, 4]), "s": "v"}]))
print("collate numpy arrays", default_collate([np.array([1, 2], dtype=np.int16), np.array([3, 4], dtype=np.int16)]))
print("collate numpy float arrays", default_collate([np.ones((2, 2)), np.zeros((2, 2))]).dtype)
print("collate numpy scalars", default_collate([np.float32(1.5), np.float32(2.5)]),
      default_collate([np.int64(3), np.int64(4)]), default_collate([np.bool_(True), np.bool_(False)]))
print("collate 0-d arrays", default_collate([np.array(1.5), np.array(2.5)]))
show_error("collate uneven lists", lambda: default_collate([[1, 2], [3]]))
show_error("collate objects", lambda: default_collate([object(), object()]))
show_error("collate numpy strings", lambda: default_collate([np.array(["a"]), np.array(["b"])]))
show_error("collate tensor shapes", lambda: default_collate([torch.zeros(2), torch.zeros(3)]))
show_error("collate empty", lambda: default_collate([]))

print("convert numpy", default_convert(np.array([1.0, 2.0])))
print("convert numpy scalar", default_convert(np.int32(3)), default_convert(np.float64(2.5)))
print("convert dict", default_convert({"a": np.array([1, 2]), "b": 3, "c": "s"}))
print("convert tuple", default_convert((np.array([1]), 2)))
print("convert list", default_convert([np.array([1.5]), "z"]))
print("convert namedtuple", default_convert(Point(np.array([1]), np.array([2.0]))))
print("convert string array", default_convert(np.array(["a", "b"])))
print("convert tensor", default_convert(torch.tensor([7])))
print("loader without batching", list(DataLoader([np.array([1, 2]), np.array([3, 4])], batch_size=None)))

# ---------------------------------------------------------------- pad_sequence
a, b, c = torch.tensor([1, 2, 3]), torch.tensor([4, 5]), torch.tensor([6])
print("pad_sequence", pad_sequence([a, b, c]))
print("pad_sequence batch_first", pad_sequence([a, b, c], batch_first=True))
print("pad_sequence padding_value", pad_sequence([a, b, c], batch_first=True, padding_value=-1))
print("pad_sequence left", pad_sequence([a, b, c], batch_first=True, padding_side="left"))
print("pad_sequence left time-major", pad_sequence([a, b, c], padding_side="left", padding_value=9))
feats = [torch.randn(3, 2), torch.randn(1, 2)]
padded = pad_sequence(feats, batch_first=True, padding_value=0.5)
print("pad_sequence features", padded.shape, padded.dtype, padded)
print("pad_sequence float value on ints", pad_sequence([a, b], padding_value=2.7))
print("pad_sequence tuple", pad_sequence((b, a), batch_first=True))
print("pad_sequence empty seq", pad_sequence([torch.zeros(0), torch.ones(2)], batch_first=True))
show_error("pad_sequence []", lambda: pad_sequence([]))
show_error("pad_sequence side", lambda: pad_sequence([a, b], padding_side="middle"))
show_error("pad_sequence shapes", lambda: pad_sequence([torch.zeros(2, 3), torch.zeros(2, 4)]))
show_error("pad_sequence tensor", lambda: pad_sequence(torch.zeros(2, 3)))

# the usual pairing: a collate_fn that pads
Tokens = collections.namedtuple("Tokens", ["ids", "label"])
sentences = [Tokens(torch.randint(1, 9, (int(n),)), i % 2) for i, n in enumerate(torch.randint(1, 5, (5,)))]


def pad_collate(batch):
    ids = pad_sequence([s.ids for s in batch], batch_first=True)
    return ids, torch.tensor([len(s.ids) for s in batch]), default_collate([s.label for s in batch])


g = torch.Generator().manual_seed(12)
for ids, lengths, labels in DataLoader(sentences, batch_size=2, shuffle=True, collate_fn=pad_collate, generator=g):
    print("padded batch", ids.tolist(), lengths.tolist(), labels.tolist())

# ---------------------------------------------------------------- more corners
print("get_worker_info in the main process", torch.utils.data.get_worker_info())
tsub = Subset(tds, torch.tensor([4, 1]))
print("Subset tensor indices", tsub[0], tsub.indices, len(tsub))
print("Subset list index", sub[[0, 2]])
print("DataLoader over a Subset", [b[1].tolist() for b in DataLoader(Subset(tds, [5, 4, 3, 2]), batch_size=3)])
train, val = random_split(tds, [0.5, 0.5], generator=torch.Generator().manual_seed(0))
print("split then load", [b[0].tolist() for b in DataLoader(train, batch_size=2)], val.indices)
parts = random_split(range(10), [0.1] * 10, generator=torch.Generator().manual_seed(0))
print("random_split ten tenths", [p.indices for p in parts])
parts = random_split(range(5), (2, 3), generator=torch.Generator().manual_seed(0))
print("random_split tuple lengths", [p.indices for p in parts])
parts = show_warnings("random_split empty dataset", lambda: random_split(range(0), [0.5, 0.5]))
print("  lengths", [len(p) for p in parts])
show_error("random_split [0.5, 0.5000001]", lambda: random_split(range(10), [0.5, 0.5000001]))
show_error("random_split just above 1", lambda: random_split(range(10), [0.5, 0.5000000001]))
parts = random_split(range(10), [0.3, 0.6999999999], generator=torch.Generator().manual_seed(0))
print("random_split just below 1", [len(p) for p in parts])

g = torch.Generator().manual_seed(13)
rs = RandomSampler(range(10), replacement=True, num_samples=32, generator=g)
print("RandomSampler 32 then the generator", list(rs)[-3:], torch.randint(0, 100, (3,), generator=g).tolist())
rs = RandomSampler(range(10), num_samples=4, generator=torch.Generator().manual_seed(13))
print("RandomSampler num_samples < n", list(rs), len(rs))
data = list(range(3))
rs = RandomSampler(data, generator=torch.Generator().manual_seed(13))
data.append(3)
print("RandomSampler grows with its data", len(rs), list(rs))
print("RandomSampler of 1", list(RandomSampler([7])))
print("len(DataLoader) with num_samples", len(DataLoader(range(10), batch_size=3,
                                                         sampler=RandomSampler(range(10), num_samples=7))))
print("len(DataLoader) batch_size=None", len(DataLoader(range(10), batch_size=None)))
print("shuffle=False / None", type(DataLoader(sq, shuffle=False).sampler).__name__,
      type(DataLoader(sq, shuffle=None).sampler).__name__)
wrs = WeightedRandomSampler(np.array([1, 2, 3]), 4, generator=torch.Generator().manual_seed(1))
print("WeightedRandomSampler numpy weights", list(wrs), wrs.weights)
show_error("WeightedRandomSampler > n without replacement",
           lambda: list(WeightedRandomSampler([1.0, 2.0], 3, replacement=False)))
show_error("WeightedRandomSampler zeros", lambda: list(WeightedRandomSampler([0.0, 0.0], 2)))
show_error("WeightedRandomSampler inf", lambda: list(WeightedRandomSampler([1.0, float("inf")], 2)))
show_error("WeightedRandomSampler nan", lambda: list(WeightedRandomSampler([1.0, float("nan")], 2)))


class Batched(Dataset):
    """A dataset that answers a whole batch at once."""

    def __len__(self):
        return 5

    def __getitem__(self, i):
        return i

    def __getitems__(self, indices):
        return [100 + i for i in indices]


print("__getitems__", [b.tolist() for b in DataLoader(Batched(), batch_size=2)], list(DataLoader(Batched(), batch_size=None)))

print("collate 0-d tensors", default_collate([torch.tensor(1.0), torch.tensor(2.0)]))
print("collate mixed dtypes", default_collate([torch.tensor([1]), torch.tensor([1.5])]))
print("collate dicts of dicts", default_collate([{"a": {"b": 1}}, {"a": {"b": 2}}]))
show_error("collate missing key", lambda: default_collate([{"a": 1}, {"b": 2}]))
show_error("collate complex", lambda: default_collate([1j, 2j]))
show_error("collate set", lambda: default_collate([{1}, {2}]))
show_error("collate None", lambda: default_collate([None, None]))
print("collate mixed int float", default_collate([1, 2.5]))
show_error("collate float then int", lambda: default_collate([1.5, 2]))
print("collate numpy int32 arrays", default_collate([np.array([1], dtype=np.int32), np.array([2], dtype=np.int32)]).dtype)
print("collate numpy uint8 scalars", default_collate([np.uint8(1), np.uint8(2)]))
print("collate a tuple batch", default_collate(((1, 2), (3, 4))))
print("convert numpy bool", default_convert(np.bool_(True)), default_convert(np.str_("s")))
print("convert nested", default_convert({"a": [np.array([1]), (np.float32(2),)]}))

x1 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x2 = torch.tensor([4.0], requires_grad=True)
out = pad_sequence([x1, x2], batch_first=True, padding_value=-1.0, padding_side="left")
(out * torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
print("pad_sequence grad", out, x1.grad, x2.grad)
print("pad_sequence bool", pad_sequence([torch.tensor([True]), torch.tensor([True, False])], padding_value=True))
print("pad_sequence float64 3d", pad_sequence([torch.ones(2, 2, 1, dtype=torch.float64), torch.zeros(1, 2, 1, dtype=torch.float64)],
                                              batch_first=True, padding_side="left").shape)
print("pad_sequence mixed dtypes", pad_sequence([torch.tensor([1, 2]), torch.tensor([0.5])]))
print("pad_sequence broadcast trailing", pad_sequence([torch.ones(1, 3), torch.zeros(2, 1)]))
show_error("pad_sequence 0-d", lambda: pad_sequence([torch.tensor(1.0), torch.tensor(2.0)]))
show_error("pad_sequence 0-d second", lambda: pad_sequence([torch.tensor([1.0]), torch.tensor(2.0)]))
show_error("pad_sequence a list of lists", lambda: pad_sequence([[1, 2], [3]]))

# the loader draws a base seed from its generator (or the global one) at every iter(), shuffled or not
g = torch.Generator().manual_seed(21)
list(DataLoader(range(3), generator=g))
print("generator after a sequential epoch", torch.randint(0, 1000, (2,), generator=g).tolist())
torch.manual_seed(21)
list(DataLoader(range(3)))
print("global after a sequential epoch", torch.randint(0, 1000, (2,)).tolist())
torch.manual_seed(21)
it = iter(DataLoader(range(3), batch_size=2, shuffle=True))
print("global after iter() only", torch.randint(0, 1000, (2,)).tolist(), [b.tolist() for b in it])


class EveryOther(torch.utils.data.Sampler):
    """A custom sampler: the even indices, then the odd ones."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(list(range(0, self.n, 2)) + list(range(1, self.n, 2)))

    def __len__(self):
        return self.n


print("custom Sampler", [b.tolist() for b in DataLoader(range(10, 17), batch_size=3, sampler=EveryOther(7))])
show_error("Sampler() len", lambda: len(torch.utils.data.Sampler()))
show_error("Sampler() iter", lambda: iter(torch.utils.data.Sampler()))
print("SubsetRandomSampler tensor indices", list(SubsetRandomSampler(torch.tensor([3, 1, 4]),
                                                                    generator=torch.Generator().manual_seed(0))))
print("WeightedRandomSampler float32 weights", WeightedRandomSampler(torch.ones(3), 2).weights.dtype)
show_error("BatchSampler over an unsized sampler", lambda: len(BatchSampler(iter(range(4)), 2, False)))
print("BatchSampler over an unsized sampler", list(BatchSampler(iter(range(5)), 2, True)))
show_error("DataLoader batch_size=2.0", lambda: DataLoader(sq, batch_size=2.0))
show_error("shuffle an empty dataset", lambda: DataLoader([], shuffle=True))
print("empty dataset", list(DataLoader([], batch_size=2)), len(DataLoader([], batch_size=2)))
it = iter(DataLoader(range(7), batch_size=2))
next(it)
print("len of a started iterator", len(it), [b.tolist() for b in it])

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    loader = DataLoader(SizedCountdown(3))
    n = len(loader)
    loader.dataset.start = 5  # the stream grew after len() was taken
    batches = [b.tolist() for b in loader]
print("IterableDataset longer than its len", n, batches, len(caught))
print("  ", caught[0].message if caught else None)

requires = [torch.tensor([1.0], requires_grad=True), torch.tensor([2.0], requires_grad=True)]
print("collate requires_grad", default_collate(requires))
print("collate torch.Size", default_collate([torch.Size([1, 2]), torch.Size([3, 4])]))
print("collate numpy str_", default_collate([np.str_("a"), np.str_("b")]))
print("collate numpy float64 scalars", default_collate([np.float64(0.5), np.float64(1.5)]))
show_error("collate numpy objects", lambda: default_collate([np.array([None]), np.array([None])]))

from torch.utils.data._utils.collate import collate, default_collate_fn_map  # noqa: E402


class Box:
    def __init__(self, v):
        self.v = v


def collate_box(batch, *, collate_fn_map=None):
    return torch.tensor([b.v for b in batch]) * 100


print("custom collate_fn_map", collate([(Box(1), 2), (Box(3), 4)], collate_fn_map={Box: collate_box, **default_collate_fn_map}))
show_error("collate without a map", lambda: collate([1, 2]))
