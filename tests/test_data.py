"""pedatorch.utils.data against torch.utils.data: datasets, random_split, samplers, collation, DataLoader
(single-process and with worker processes).  Random orders are compared with PyTorch's for the same seeds."""
import collections
import os
import signal
import time
import warnings
from functools import wraps

import numpy as np
import pytest

import pedatorch as pt
from pedatorch.utils import data as D
from pedatorch.utils.data import (DataLoader, Dataset, IterableDataset, TensorDataset, ConcatDataset, Subset,
                                  ChainDataset, StackDataset, random_split, get_worker_info, default_collate,
                                  default_convert)


def deadline(seconds):
    """Fail (instead of hanging) when a test runs longer than ``seconds``."""
    def deco(fn):
        @wraps(fn)
        def wrapper(*a, **kw):
            def on_alarm(signum, frame):
                raise TimeoutError(f"{fn.__name__} took longer than {seconds} s")
            old = signal.signal(signal.SIGALRM, on_alarm)
            signal.alarm(seconds)
            try:
                return fn(*a, **kw)
            finally:
                signal.alarm(0)
                signal.signal(signal.SIGALRM, old)
        return wrapper
    return deco


def lists(batches):
    """Batches (tensors, or lists/tuples/dicts of them) as nested Python lists, for comparing."""
    def conv(b):
        if hasattr(b, "tolist"):
            return b.tolist()
        if isinstance(b, dict):
            return {k: conv(v) for k, v in b.items()}
        if isinstance(b, (list, tuple)):
            return [conv(v) for v in b]
        return b
    return [conv(b) for b in batches]


def same_error(fn_pt, fn_torch):
    """Both calls raise: the same exception class name and message."""
    with pytest.raises(Exception) as ours:
        fn_pt()
    with pytest.raises(Exception) as theirs:
        fn_torch()
    assert type(ours.value).__name__ == type(theirs.value).__name__
    assert str(ours.value) == str(theirs.value)
    return ours.value


# ====================================================================== datasets

def test_tensor_dataset(torch):
    x, y = pt.arange(12.).reshape(6, 2), pt.arange(6)
    ds = TensorDataset(x, y)
    assert len(ds) == 6
    a, b = ds[4]
    assert a.tolist() == [8.0, 9.0] and b.item() == 4
    assert [t.tolist() for t in ds[1:3]] == [[[2.0, 3.0], [4.0, 5.0]], [1, 2]]
    assert isinstance(ds, Dataset)
    same_error(lambda: TensorDataset(pt.zeros(3), pt.zeros(4)),
               lambda: torch.utils.data.TensorDataset(torch.zeros(3), torch.zeros(4)))


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return i * i

    def __len__(self):
        return self.n


class Stream(IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        return iter(range(self.start, self.end))

    def __len__(self):
        return self.end - self.start


def torch_stream(torch):
    """The same stream as a torch IterableDataset (torch's DataLoader checks its own base class)."""
    return type("TStream", (torch.utils.data.IterableDataset,), dict(Stream.__dict__))


def test_concat_dataset(torch):
    a, b = Squares(3), Squares(4)
    c = ConcatDataset([a, b])
    assert c.cumulative_sizes == [3, 7] and len(c) == 7
    assert [c[i] for i in range(7)] == [0, 1, 4, 0, 1, 4, 9]
    assert c[-1] == 9 and c[-7] == 0
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        c[-8]
    with pytest.raises(IndexError):
        c[7]
    s = a + b
    assert isinstance(s, ConcatDataset) and len(s) == 7
    same_error(lambda: ConcatDataset([]), lambda: torch.utils.data.ConcatDataset([]))
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        ConcatDataset([Stream(0, 2)])
    with pytest.warns(FutureWarning, match="renamed"):
        assert c.cummulative_sizes == [3, 7]
    tc = torch.utils.data.ConcatDataset([list(range(3)), list(range(4))])
    assert ConcatDataset([list(range(3)), list(range(4))]).cumulative_sizes == tc.cumulative_sizes


def test_subset_stack_chain():
    sub = Subset(Squares(10), [9, 2, 5])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == [81, 4, 25]
    assert sub.__getitems__([0, 2]) == [81, 25]
    assert Subset(list(range(10)), [1, 3]).__getitems__([1]) == [3]

    class BadSubset(Subset):
        def __getitem__(self, i):
            return 0
    with pytest.raises(NotImplementedError, match="overrides __getitem__ but not __getitems__"):
        BadSubset(Squares(3), [0])

    st = StackDataset(Squares(3), [10, 11, 12])
    assert st[1] == (1, 11) and len(st) == 3
    assert st.__getitems__([0, 2]) == [(0, 10), (4, 12)]
    sd = StackDataset(a=Squares(3), b=[10, 11, 12])
    assert sd[2] == {"a": 4, "b": 12}
    assert sd.__getitems__([1]) == [{"a": 1, "b": 11}]
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(Squares(3), [1])
    with pytest.raises(ValueError, match="At least one dataset should be passed"):
        StackDataset()
    with pytest.raises(ValueError, match="but both types are given"):
        StackDataset(Squares(1), b=[1])

    ch = Stream(0, 3) + Stream(10, 12)
    assert isinstance(ch, ChainDataset)
    assert list(ch) == [0, 1, 2, 10, 11] and len(ch) == 5
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(ChainDataset([Squares(2)]))
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement __getitem__"):
        Dataset()[0]
    with pytest.raises(TypeError):
        len(Dataset())


# ====================================================================== random_split

@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.3, 0.4], [0.5, 0.5], [0.25, 0.25, 0.25, 0.25], [10]])
def test_random_split_matches_torch(torch, lengths):
    n = 10 if isinstance(lengths[0], int) else 11
    for seed in (0, 42):
        ours = random_split(range(n), lengths, generator=pt.Generator().manual_seed(seed))
        theirs = torch.utils.data.random_split(range(n), lengths, generator=torch.Generator().manual_seed(seed))
        assert [len(s) for s in ours] == [len(s) for s in theirs]
        assert [list(s) for s in ours] == [list(s) for s in theirs]
        assert [s.indices for s in ours] == [s.indices for s in theirs]
    # the default generator
    pt.manual_seed(5)
    torch.manual_seed(5)
    assert [s.indices for s in random_split(range(n), lengths)] == \
        [s.indices for s in torch.utils.data.random_split(range(n), lengths)]


def test_random_split_remainder_and_errors(torch):
    # floor(0.2*3)=0 for each, the 3 leftovers go round robin to the first three splits
    with pytest.warns(UserWarning, match="Length of split at index 3 is 0. This might result in an empty dataset."):
        parts = random_split(range(3), [0.2, 0.2, 0.2, 0.2, 0.2], generator=pt.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [1, 1, 1, 0, 0]
    same_error(lambda: random_split(range(5), [2, 2]), lambda: torch.utils.data.random_split(range(5), [2, 2]))
    same_error(lambda: random_split(range(5), [1.5, -0.5]),
               lambda: torch.utils.data.random_split(range(5), [1.5, -0.5]))


# ====================================================================== samplers

def test_sequential_and_batch_sampler(torch):
    assert list(D.SequentialSampler(range(4))) == [0, 1, 2, 3] and len(D.SequentialSampler(range(4))) == 4
    for drop_last in (False, True):
        b = D.BatchSampler(D.SequentialSampler(range(10)), 3, drop_last)
        tb = torch.utils.data.BatchSampler(torch.utils.data.SequentialSampler(range(10)), 3, drop_last)
        assert list(b) == list(tb) and len(b) == len(tb)
    same_error(lambda: D.BatchSampler(range(3), 0, False), lambda: torch.utils.data.BatchSampler(range(3), 0, False))
    same_error(lambda: D.BatchSampler(range(3), True, False),
               lambda: torch.utils.data.BatchSampler(range(3), True, False))
    same_error(lambda: D.BatchSampler(range(3), 2, 1), lambda: torch.utils.data.BatchSampler(range(3), 2, 1))


@pytest.mark.parametrize("kw", [{}, {"replacement": True}, {"replacement": True, "num_samples": 70},
                                {"num_samples": 25}, {"num_samples": 4}])
def test_random_sampler_matches_torch(torch, kw):
    data = range(10)
    # without a generator: a seed drawn from the default generator, then a fresh Generator
    pt.manual_seed(3)
    torch.manual_seed(3)
    s, ts = D.RandomSampler(data, **kw), torch.utils.data.RandomSampler(data, **kw)
    assert list(s) == list(ts) and list(s) == list(ts)   # the second pass draws a new seed: still equal
    assert len(s) == len(ts)
    assert pt.rand(3).tolist() == pytest.approx(torch.rand(3).tolist())  # the default stream advanced alike
    # with a generator
    g, tg = pt.Generator().manual_seed(11), torch.Generator().manual_seed(11)
    s, ts = D.RandomSampler(data, generator=g, **kw), torch.utils.data.RandomSampler(data, generator=tg, **kw)
    assert list(s) == list(ts) and list(s) == list(ts)


def test_random_sampler_errors(torch):
    same_error(lambda: D.RandomSampler(range(3), replacement=1),
               lambda: torch.utils.data.RandomSampler(range(3), replacement=1))
    same_error(lambda: D.RandomSampler(range(3), num_samples=0),
               lambda: torch.utils.data.RandomSampler(range(3), num_samples=0))
    same_error(lambda: D.RandomSampler([]), lambda: torch.utils.data.RandomSampler([]))


def test_subset_and_weighted_samplers(torch):
    idx = [5, 7, 9, 11, 13]
    g, tg = pt.Generator().manual_seed(2), torch.Generator().manual_seed(2)
    s, ts = D.SubsetRandomSampler(idx, generator=g), torch.utils.data.SubsetRandomSampler(idx, generator=tg)
    assert list(s) == list(ts) and len(s) == 5 and sorted(s) == idx
    pt.manual_seed(8)
    torch.manual_seed(8)
    assert list(D.SubsetRandomSampler(idx)) == list(torch.utils.data.SubsetRandomSampler(idx))

    w = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
    for replacement, n in ((True, 20), (False, 5)):
        g, tg = pt.Generator().manual_seed(4), torch.Generator().manual_seed(4)
        s = D.WeightedRandomSampler(w, n, replacement=replacement, generator=g)
        ts = torch.utils.data.WeightedRandomSampler(w, n, replacement=replacement, generator=tg)
        assert list(s) == list(ts) and len(s) == n
        assert s.weights.dtype == pt.float64
    for args in (([1.0], 0), ([1.0], True), ([1.0], 1, 1), ([[1.0, 2.0]], 1)):
        same_error(lambda: D.WeightedRandomSampler(*args), lambda: torch.utils.data.WeightedRandomSampler(*args))


def test_distributed_sampler(torch):
    for shuffle in (True, False):
        for drop_last in (True, False):
            for rank in range(3):
                s = D.DistributedSampler(range(10), num_replicas=3, rank=rank, shuffle=shuffle, drop_last=drop_last)
                ts = torch.utils.data.DistributedSampler(range(10), num_replicas=3, rank=rank, shuffle=shuffle,
                                                         drop_last=drop_last)
                s.set_epoch(2)
                ts.set_epoch(2)
                assert list(s) == list(ts) and len(s) == len(ts)
    with pytest.raises(ValueError, match="Invalid rank 3"):
        D.DistributedSampler(range(4), num_replicas=3, rank=3)


# ====================================================================== collation

Point = collections.namedtuple("Point", ["x", "y"])


def check_collate(torch, batch_pt, batch_torch=None):
    ours = default_collate(batch_pt)
    theirs = torch.utils.data.default_collate(batch_torch if batch_torch is not None else batch_pt)
    assert type(ours).__name__ == type(theirs).__name__
    if hasattr(theirs, "dtype"):
        assert str(ours.dtype) == str(theirs.dtype) and ours.tolist() == theirs.tolist()
    else:
        assert lists([ours]) == lists([theirs])
    return ours


def test_default_collate_numbers_strings(torch):
    assert check_collate(torch, [1, 2, 3]).dtype == pt.int64
    assert check_collate(torch, [1.5, 2.0]).dtype == pt.float64
    assert check_collate(torch, [True, False]).dtype == pt.bool
    assert default_collate(["a", "b"]) == ["a", "b"]
    assert default_collate([b"a", b"b"]) == [b"a", b"b"]
    for sc in ([np.float32(1), np.float32(2)], [np.int32(3), np.int32(4)], [np.float64(1.0)], [np.bool_(True)]):
        check_collate(torch, sc)


def test_default_collate_tensors_arrays(torch):
    xs = [np.arange(6.0, dtype=np.float32).reshape(2, 3) + i for i in range(4)]
    out = check_collate(torch, [pt.tensor(x) for x in xs], [torch.tensor(x) for x in xs])
    assert out.shape == (4, 2, 3)
    check_collate(torch, xs)                            # numpy arrays -> one stacked tensor
    check_collate(torch, [np.arange(3), np.arange(3)])  # int64
    ex = same_error(lambda: default_collate([pt.zeros(2), pt.zeros(3)]),
                    lambda: torch.utils.data.default_collate([torch.zeros(2), torch.zeros(3)]))
    assert "stack expects each tensor to be equal size" in str(ex)
    same_error(lambda: default_collate([np.array(["a"]), np.array(["b"])]),
               lambda: torch.utils.data.default_collate([np.array(["a"]), np.array(["b"])]))


def test_default_collate_containers(torch):
    b = [{"a": 1, "b": [1.0, 2.0]}, {"a": 2, "b": [3.0, 4.0]}]
    out = check_collate(torch, b)
    assert isinstance(out, dict) and out["a"].dtype == pt.int64 and out["b"][0].dtype == pt.float64
    p = default_collate([Point(1, 2.0), Point(3, 4.0)])
    tp = torch.utils.data.default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert type(p) is Point and p.x.tolist() == tp.x.tolist() and str(p.y.dtype) == str(tp.y.dtype)
    t = default_collate([(1, "x"), (2, "y")])
    assert isinstance(t, list) and t[0].tolist() == [1, 2] and t[1] == ("x", "y")  # zip gives tuples
    nested = [(pt.ones(2), {"k": np.zeros(1)}), (pt.zeros(2), {"k": np.ones(1)})]
    tnested = [(torch.ones(2), {"k": np.zeros(1)}), (torch.zeros(2), {"k": np.ones(1)})]
    assert lists([default_collate(nested)]) == lists([torch.utils.data.default_collate(tnested)])
    same_error(lambda: default_collate([[1, 2], [1]]), lambda: torch.utils.data.default_collate([[1, 2], [1]]))

    class Thing:
        pass
    same_error(lambda: default_collate([Thing(), Thing()]),
               lambda: torch.utils.data.default_collate([Thing(), Thing()]))
    same_error(lambda: default_collate([None]), lambda: torch.utils.data.default_collate([None]))


def test_default_convert(torch):
    assert default_convert(0) == 0
    t = default_convert(np.array([0, 1]))
    assert isinstance(t, pt.Tensor) and t.tolist() == [0, 1] and t.dtype == pt.int64
    p = default_convert(Point(np.array(0), np.array(1.5)))
    assert type(p) is Point and p.y.dtype == pt.float64
    assert lists([default_convert((np.array([1]), "s"))]) == [[[1], "s"]]
    d = default_convert({"a": np.float32(2.0), "b": "s"})
    assert d["a"].dtype == pt.float32 and d["b"] == "s"
    arr = np.array(["x"])
    assert default_convert(arr) is arr
    x = pt.ones(2)
    assert default_convert(x) is x


def test_collate_fn_map_extension():
    from pedatorch.utils.data._utils.collate import collate, default_collate_fn_map

    class Custom:
        pass
    m = dict(default_collate_fn_map)
    m[Custom] = lambda batch, *, collate_fn_map=None: "custom"
    assert collate([Custom(), Custom()], collate_fn_map=m) == "custom"


# ====================================================================== DataLoader, one process

def pair_datasets(torch, n=10):
    x = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
    y = np.arange(n)
    return (TensorDataset(pt.tensor(x), pt.tensor(y)),
            torch.utils.data.TensorDataset(torch.tensor(x), torch.tensor(y)))


def test_dataloader_argument_errors(torch):
    TL = torch.utils.data.DataLoader
    for kw in [dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2), dict(num_workers=1, prefetch_factor=-1),
               dict(persistent_workers=True), dict(sampler=[1], shuffle=True), dict(batch_sampler=[[1]], batch_size=2),
               dict(batch_sampler=[[1]], shuffle=True), dict(batch_sampler=[[1]], drop_last=True),
               dict(batch_size=None, drop_last=True), dict(multiprocessing_context="fork"),
               dict(num_workers=1, multiprocessing_context="bogus"), dict(num_workers=1, multiprocessing_context=3)]:
        same_error(lambda: DataLoader(range(4), **kw), lambda: TL(range(4), **kw))
    for kw in [dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])]:
        same_error(lambda: DataLoader(Stream(0, 3), **kw), lambda: TL(torch_stream(torch)(0, 3), **kw))
    loader = DataLoader(range(4))
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        loader.batch_size = 3
    loader.num_workers = 0  # other attributes may change


@pytest.mark.parametrize("kw", [dict(batch_size=3), dict(batch_size=3, shuffle=True),
                                dict(batch_size=3, shuffle=True, drop_last=True), dict(batch_size=4, drop_last=True),
                                dict(batch_size=None), dict(batch_size=None, shuffle=True), dict(shuffle=True)])
def test_dataloader_batches_match_torch(torch, kw):
    ds, tds = pair_datasets(torch)
    loader, tloader = DataLoader(ds, **kw), torch.utils.data.DataLoader(tds, **kw)
    assert len(loader) == len(tloader)
    pt.manual_seed(0)
    torch.manual_seed(0)
    for epoch in range(2):  # each epoch reshuffles: the default streams advance alike
        ours, theirs = list(loader), list(tloader)
        assert lists(ours) == lists(theirs)
        assert all(str(a[0].dtype) == str(b[0].dtype) for a, b in zip(ours, theirs))


def test_dataloader_generator_sampler_batch_sampler(torch):
    ds, tds = pair_datasets(torch, 13)
    g, tg = pt.Generator().manual_seed(9), torch.Generator().manual_seed(9)
    ours = list(DataLoader(ds, batch_size=4, shuffle=True, generator=g))
    theirs = list(torch.utils.data.DataLoader(tds, batch_size=4, shuffle=True, generator=tg))
    assert lists(ours) == lists(theirs)
    batches = [[3, 1], [0, 12, 5], [7]]
    ours = list(DataLoader(ds, batch_sampler=batches))
    theirs = list(torch.utils.data.DataLoader(tds, batch_sampler=batches))
    assert lists(ours) == lists(theirs) and len(DataLoader(ds, batch_sampler=batches)) == 3
    sampler = D.SubsetRandomSampler([1, 4, 6, 8], generator=pt.Generator().manual_seed(1))
    tsampler = torch.utils.data.SubsetRandomSampler([1, 4, 6, 8], generator=torch.Generator().manual_seed(1))
    assert lists(DataLoader(ds, batch_size=3, sampler=sampler)) == \
        lists(torch.utils.data.DataLoader(tds, batch_size=3, sampler=tsampler))


def test_dataloader_plain_datasets_and_collate_fn(torch):
    data = [{"x": np.float32(i), "s": str(i)} for i in range(5)]
    assert lists(DataLoader(data, batch_size=2)) == lists(torch.utils.data.DataLoader(data, batch_size=2))
    # batch_size=None: default_convert, no batching
    ours = list(DataLoader([np.array([1, 2]), 3], batch_size=None))
    assert isinstance(ours[0], pt.Tensor) and ours[1] == 3
    assert DataLoader(range(3), batch_size=None).collate_fn is default_convert
    assert DataLoader(range(3)).collate_fn is default_collate
    assert list(DataLoader(range(5), batch_size=2, collate_fn=lambda b: sum(b))) == [1, 5, 4]


def test_dataloader_iterable_dataset(torch):
    for kw in (dict(), dict(batch_size=2), dict(batch_size=2, drop_last=True), dict(batch_size=None)):
        loader = DataLoader(Stream(3, 8), **kw)
        tloader = torch.utils.data.DataLoader(torch_stream(torch)(3, 8), **kw)
        assert lists(loader) == lists(tloader)
        assert len(loader) == len(tloader)

    class Lying(Stream):
        def __len__(self):
            return 2
    loader = DataLoader(Lying(0, 4))
    assert len(loader) == 2
    with pytest.warns(UserWarning, match="was reported to be 2"):
        list(loader)


def test_dataloader_getitems_and_pin_memory():
    class Batched(Squares):
        calls = []

        def __getitems__(self, indices):
            self.calls.append(list(indices))
            return [self[i] for i in indices]
    ds = Batched(5)
    assert lists(DataLoader(ds, batch_size=2)) == [[0, 1], [4, 9], [16]]
    assert ds.calls == [[0, 1], [2, 3], [4]]
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"):
        assert lists(DataLoader(range(3), batch_size=2, pin_memory=True)) == [[0, 1], [2]]


def test_get_worker_info_in_main_process():
    assert get_worker_info() is None


# ====================================================================== DataLoader, worker processes

class WorkerProbe(Dataset):
    """Returns what the worker knows about itself, and a random draw from its default generator."""

    def __init__(self, torch_mod, n=8):
        self.t = torch_mod
        self.n = n

    def __getitem__(self, i):
        info = self.t.utils.data.get_worker_info()
        return {"i": i, "id": info.id, "num_workers": info.num_workers, "seed": info.seed,
                "same_dataset": info.dataset is self, "rand": self.t.rand(2), "np": float(np.random.rand())}

    def __len__(self):
        return self.n


@deadline(20)
def test_workers_order_and_seeds_match_torch(torch):
    ds, tds = pair_datasets(torch, 11)
    for kw in (dict(batch_size=3, shuffle=True), dict(batch_size=2, shuffle=True, drop_last=True),
               dict(batch_size=None, shuffle=True)):
        pt.manual_seed(1)
        ours = list(DataLoader(ds, num_workers=2, **kw))
        torch.manual_seed(1)
        theirs = list(torch.utils.data.DataLoader(tds, **kw))  # the order is decided in the main process
        assert lists(ours) == lists(theirs)
    # inside the workers: ids, seeds (base_seed + id), the default generator seeded with them, numpy's seed
    pt.manual_seed(7)
    ours = list(DataLoader(WorkerProbe(pt), batch_size=2, num_workers=2))
    torch.manual_seed(7)
    theirs = list(torch.utils.data.DataLoader(WorkerProbe(torch), batch_size=2, num_workers=2))
    assert [b["id"].tolist() for b in ours] == [[0, 0], [1, 1], [0, 0], [1, 1]]
    assert all(b["same_dataset"].tolist() == [True, True] for b in ours)
    for a, b in zip(ours, theirs):
        for k in ("i", "id", "num_workers", "seed"):
            assert a[k].tolist() == b[k].tolist()
        np.testing.assert_array_equal(a["rand"]._data, b["rand"].numpy())
        np.testing.assert_array_equal(a["np"]._data, b["np"].numpy())
    assert ours[0]["seed"].tolist()[0] + 1 == ours[1]["seed"].tolist()[0]


@deadline(20)
def test_workers_iterable_dataset_split_by_worker_info(torch):
    def split_class(mod):
        class Split(mod.utils.data.IterableDataset):
            def __init__(self, start, end):
                self.start, self.end = start, end

            def __iter__(self):
                info = mod.utils.data.get_worker_info()
                if info is None:
                    return iter(range(self.start, self.end))
                per = int(np.ceil((self.end - self.start) / info.num_workers))
                lo = self.start + info.id * per
                return iter(range(lo, min(lo + per, self.end)))
        return Split
    Split, TSplit = split_class(pt), split_class(torch)
    for kw in (dict(), dict(batch_size=2), dict(batch_size=2, drop_last=True)):
        ours = list(DataLoader(Split(3, 10), num_workers=2, **kw))
        theirs = list(torch.utils.data.DataLoader(TSplit(3, 10), num_workers=2, **kw))
        assert lists(ours) == lists(theirs)
    assert lists(DataLoader(Split(3, 7), num_workers=2)) == [[3], [5], [4], [6]]
    # without splitting, every worker yields the whole stream
    assert sorted(sum(lists(DataLoader(Stream(0, 3), num_workers=2)), [])) == [0, 0, 1, 1, 2, 2]


@deadline(20)
def test_worker_init_fn_and_prefetch(torch):
    def init(worker_id):
        info = get_worker_info()
        assert info.id == worker_id
        ds = info.dataset
        per = (ds.end - ds.start + info.num_workers - 1) // info.num_workers
        ds.start = ds.start + worker_id * per
        ds.end = min(ds.start + per, ds.end)
    ds = Stream(3, 7)
    assert lists(DataLoader(ds, num_workers=2, worker_init_fn=init)) == [[3], [5], [4], [6]]
    assert (ds.start, ds.end) == (3, 7)  # the main process's copy is untouched
    for pf in (1, 3):
        loader = DataLoader(range(20), batch_size=3, num_workers=2, prefetch_factor=pf, shuffle=True,
                            generator=pt.Generator().manual_seed(3))
        tl = torch.utils.data.DataLoader(range(20), batch_size=3, shuffle=True,
                                         generator=torch.Generator().manual_seed(3))
        assert lists(loader) == lists(tl)
    assert DataLoader(range(3), num_workers=2).prefetch_factor == 2
    assert sorted(sum(lists(DataLoader(range(9), batch_size=2, num_workers=2, in_order=False)), [])) == list(range(9))


class PidCounter(Dataset):
    def __init__(self):
        self.calls = 0

    def __getitem__(self, i):
        self.calls += 1
        return pt.tensor([i, os.getpid(), self.calls])

    def __len__(self):
        return 4


@deadline(20)
def test_persistent_workers():
    loader = DataLoader(PidCounter(), batch_size=None, num_workers=2, persistent_workers=True)
    e1, e2 = lists(loader), lists(loader)
    assert [r[0] for r in e1] == [r[0] for r in e2] == [0, 1, 2, 3]
    assert {r[1] for r in e1} == {r[1] for r in e2} and len({r[1] for r in e1}) == 2
    assert os.getpid() not in {r[1] for r in e1}
    assert [r[2] for r in e2] == [3, 3, 4, 4]      # each worker's dataset copy kept its state
    workers = loader._iterator._workers
    assert all(w.is_alive() for w in workers)
    # without persistence: new processes each epoch, shut down at its end
    loader = DataLoader(PidCounter(), batch_size=None, num_workers=2)
    it = iter(loader)
    first = lists(it)
    assert all(not w.is_alive() for w in it._workers)
    assert {r[1] for r in first}.isdisjoint({r[1] for r in lists(loader)})
    # persistent workers with an iterable dataset: a fresh iterator each epoch
    loader = DataLoader(Stream(0, 3), num_workers=2, persistent_workers=True)
    assert sorted(sum(lists(loader), [])) == sorted(sum(lists(loader), [])) == [0, 0, 1, 1, 2, 2]


class Failing(Dataset):
    def __init__(self, exc=ValueError, at=3):
        self.exc, self.at = exc, at

    def __getitem__(self, i):
        if i == self.at:
            raise self.exc(f"bad index {i}")
        return i

    def __len__(self):
        return 8


@deadline(20)
def test_worker_exception_carries_traceback(torch):
    with pytest.raises(ValueError) as ours:
        list(DataLoader(Failing(), num_workers=2))
    tit = iter(torch.utils.data.DataLoader(Failing(), num_workers=2))
    with pytest.raises(ValueError) as theirs:
        list(tit)
    tit._shutdown_workers()  # torch's iterator ends up in a reference cycle; its __del__ at gc time hangs 10 s
    msg, tmsg = str(ours.value), str(theirs.value)
    assert msg.startswith("Caught ValueError in DataLoader worker process 1.\nOriginal Traceback (most recent call "
                          "last):\n")
    assert tmsg.split("\n")[0] == msg.split("\n")[0]
    assert 'raise self.exc(f"bad index {i}")' in msg and msg.rstrip().endswith("ValueError: bad index 3")
    assert tmsg.rstrip().endswith("ValueError: bad index 3")
    # the loader goes on after an error: the next batches still come, in order
    it = iter(DataLoader(Failing(at=0), num_workers=2))
    with pytest.raises(ValueError, match="Caught ValueError in DataLoader worker process 0"):
        next(it)
    assert [next(it).item() for _ in range(3)] == [1, 2, 3]
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process 0"):
        list(DataLoader(Failing(KeyError, at=2), batch_size=4, num_workers=2))
    # an error in worker_init_fn arrives with the first batch of that worker

    def bad_init(worker_id):
        if worker_id == 1:
            raise RuntimeError("init failed")
    with pytest.raises(RuntimeError, match="(?s)Caught RuntimeError in DataLoader worker process 1.*init failed"):
        list(DataLoader(range(4), num_workers=2, worker_init_fn=bad_init))
    # a batch that cannot be pickled is an error, not a hang
    with pytest.raises(Exception, match="in DataLoader worker process 0"):
        list(DataLoader(range(2), num_workers=2, collate_fn=lambda b: (lambda: b)))


class Dying(Dataset):
    def __init__(self, how):
        self.how = how

    def __getitem__(self, i):
        if i == 2:
            if self.how == "exit":
                os._exit(3)
            os.kill(os.getpid(), signal.SIGKILL)
        return i

    def __len__(self):
        return 6


@deadline(20)
@pytest.mark.parametrize("how", ["exit", "kill"])
def test_dead_worker_raises_promptly(how):
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
        list(DataLoader(Dying(how), num_workers=2))
    assert time.monotonic() - t0 < 5


@deadline(20)
def test_timeout():
    class Slow(Dataset):
        def __getitem__(self, i):
            time.sleep(1.0 if i == 1 else 0)
            return i

        def __len__(self):
            return 3
    it = iter(DataLoader(Slow(), num_workers=2, timeout=0.2))
    assert next(it) == 0
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.2 seconds"):
        next(it)
    assert time.monotonic() - t0 < 0.8
    del it
    assert lists(DataLoader(range(4), batch_size=2, num_workers=2, timeout=5)) == [[0, 1], [2, 3]]


@deadline(20)
def test_workers_with_context_object_and_len():
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    loader = DataLoader(range(5), batch_size=2, num_workers=2, multiprocessing_context=ctx)
    assert lists(loader) == [[0, 1], [2, 3], [4]] and len(loader) == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DataLoader(range(5), num_workers=1)  # within the CPU count: no warning
