"""The meta device: tensors with a shape, dtype and strides but no data (``backend/meta.py``).

Compared with PyTorch where it is installed: reprs, the shapes/dtypes/strides ops give, the errors where a
value would be needed, modules built on meta and moved off it with ``to_empty``. The memory test checks the
promise itself: a model too big to initialise costs no memory on the meta device."""
import sys
import warnings

import numpy as np
import pytest

import pedatorch as pt
import pedatorch.nn as pnn

from conftest import error_of


def _both(torch):
    return [(pt, pnn), (torch, torch.nn)]


def _repr(t):
    return repr(t).replace("torch.", "T.").replace("pedatorch.", "T.")


def test_factories_print_as_pytorch(torch):
    def cases(lib, nn):
        return [lib.empty(3, 4, device="meta"), lib.zeros(3, dtype=lib.int64, device="meta"),
                lib.tensor([1.0, 2.0], device="meta"), lib.empty(0, device="meta"), lib.empty((), device="meta"),
                lib.ones(2, 3, device="meta", requires_grad=True), lib.full((2,), 7, device="meta"),
                lib.arange(5, device="meta"), lib.randn(2, 2, device="meta", dtype=lib.float16),
                lib.ones(3).to("meta"), nn.Parameter(lib.empty(2, device="meta")),
                lib.empty(2, 3, device=lib.device("meta")).t()]
    ours, theirs = cases(pt, pnn), cases(torch, torch.nn)
    for a, b in zip(ours, theirs):
        assert _repr(a) == _repr(b)
        assert str(a.device) == "meta" and a.is_meta and not a.is_cuda and not a.is_cpu
        assert a.stride() == b.stride() and a.dtype.__repr__().split(".")[-1] == repr(b.dtype).split(".")[-1]


def test_ops_give_pytorchs_shapes_dtypes_and_strides(torch):
    def run(lib, nn):
        F = nn.functional
        x = lib.empty(3, 4, device="meta")
        lab = lib.empty(3, dtype=lib.int64, device="meta")
        outs = [x @ x.T, (x * 2).relu().sum(0), x.t(), x[1:], x[:, ::2], x.max(0).values, x.max(0).indices,
                x.sort(1).indices, x.topk(2).values, x.cumsum(0), x.argmax(), x.to(lib.float16), x.new_zeros(2),
                x.t().clone(), x.t().contiguous(), x[lib.tensor([0, 2])], x[lib.tensor([0, 2], device="meta")],
                x + lib.tensor(1.0), lib.tensor(1.0) + x, lib.einsum("ij,jk->ik", x, x.T), x.unsqueeze(0).expand(2, 3, 4),
                F.conv2d(lib.empty(1, 3, 8, 8, device="meta"), lib.empty(4, 3, 3, 3, device="meta")),
                F.cross_entropy(x, lab), F.dropout(x, 0.5), lib.bernoulli(x), lib.randint(0, 5, (3,), device="meta"),
                lib.randperm(4, device="meta"), lib.where(x > 0, x, 0.0), lib.cat([x, x], 1), x.view(2, 6),
                lib.repeat_interleave(lab, lab, output_size=6), nn.Embedding(10, 4, device="meta")(lab)]
        return [(tuple(o.shape), str(o.dtype).split(".")[-1], o.stride(), o.storage_offset(), o.device.type)
                for o in outs]
    assert run(pt, pnn) == run(torch, torch.nn)


def test_where_a_value_is_needed_pytorch_raises(torch):
    def run(lib, nn):
        x = lib.empty(3, 4, device="meta")
        cases = [lambda: x.item(), lambda: x.sum().item(), lambda: bool(x[0, 0]), lambda: float(x[0, 0]),
                 lambda: x.cpu(), lambda: x.to("cpu"), lambda: x.numpy(), lambda: x.numpy(force=True),
                 lambda: x.tolist(), lambda: lib.ones(3, 4).copy_(x), lambda: x + lib.ones(3, 4),
                 lambda: lib.ones(3, 4) + x, lambda: lib.cat([x, lib.ones(3, 4)]), lambda: x.nonzero(),
                 lambda: x[x > 0], lambda: x.unique(), lambda: lib.equal(x, x), lambda: x.sum().is_nonzero(),
                 lambda: lib.empty(3, dtype=lib.long, device="meta").bincount(),
                 lambda: lib.empty(3, dtype=lib.long, device="meta").repeat_interleave(
                     lib.empty(3, dtype=lib.long, device="meta"))]
        return [error_of(c) for c in cases]
    ours, theirs = run(pt, pnn), run(torch, torch.nn)
    for (cls, msg), (tcls, tmsg) in zip(ours, theirs):
        assert cls == tcls
        assert tmsg.startswith(msg[:40].replace("pedatorch", "torch")) or msg.startswith("aten::"), (msg, tmsg)


def test_data_free_facts():
    x = pt.empty(3, 4, device="meta")
    assert x.data_ptr() == 0 and x.get_device() == -1 and x.type() == "torch.meta.FloatTensor"
    assert x.untyped_storage().nbytes() == 48 and x.untyped_storage().device == pt.device("meta")
    assert x.to("meta") is x and pt.empty_like(x).is_meta


def test_random_ops_on_meta_draw_nothing():
    pt.manual_seed(0)
    expected = pt.rand(3)
    pt.manual_seed(0)
    pnn.Linear(40, 30, device="meta")
    pt.empty(5, device="meta").normal_()
    pt.randn(4, device="meta")
    assert pt.equal(pt.rand(3), expected)


def test_autograd_runs_on_meta(torch):
    def run(lib, nn):
        w = lib.empty(3, 2, device="meta", requires_grad=True)
        y = nn.Linear(2, 3, device="meta")(lib.empty(5, 2, device="meta")) @ w
        y.tanh().sum().backward()
        return _repr(y), _repr(w.grad)
    assert run(pt, pnn) == run(torch, torch.nn)


def test_modules_on_meta_then_to_empty(torch):
    def run(lib, nn):
        with lib.device("meta"):
            m = nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4), nn.BatchNorm1d(4))
        lines = [_repr(m[0].weight), _repr(m[1].weight), _repr(m[2].running_mean), _repr(m[2].num_batches_tracked)]
        w = m[0].weight
        lines.append(error_of(lambda: m.to("cpu")))
        assert m.to_empty(device="cpu") is m
        lines.append(m[0].weight is w)   # (a new Parameter off the meta device)
        lines += [str(p.device) + type(p).__name__ + str(p.requires_grad) for p in m.parameters()]
        lines.append(str(m(lib.ones(2, 3)).shape))
        lin = nn.Linear(4, 3, device="meta")
        lin.to_empty(device="cpu", recurse=False)
        lines.append(str(lin.weight.device))
        sd = nn.Linear(4, 3).state_dict()
        lin = nn.Linear(4, 3, device="meta")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lin.load_state_dict(sd)
        lines += [str(lin.weight.device), str([str(c.message)[:60] for c in caught])]
        lin.load_state_dict(sd, assign=True)
        lines.append(str(lin.weight.device) + type(lin.weight).__name__ + str(lin.weight.requires_grad))
        lines.append(str(lib.equal(lin.weight, sd["weight"])))
        return lines
    ours = [str(v).replace("pedatorch", "torch") for v in run(pt, pnn)]
    assert ours == [str(v) for v in run(torch, torch.nn)]


def test_skip_init_builds_on_meta(torch):
    pt.manual_seed(3)
    expected = pt.rand(2)
    pt.manual_seed(3)
    m = pnn.utils.skip_init(pnn.Linear, 5, 6)
    assert m.weight.device == pt.device("cpu") and m.weight.shape == (6, 5)
    assert pt.equal(pt.rand(2), expected)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the resident set from /proc")
def test_a_model_too_big_to_initialise_costs_no_memory():
    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096
    before = rss()
    with pt.device("meta"):
        big = pnn.Sequential(pnn.Linear(16384, 16384), pnn.LayerNorm(16384), pnn.Linear(16384, 16384))
    n = sum(p.numel() for p in big.parameters())
    assert n * 4 > 2e9                          # 2 GB of float32 parameters, initialised (on meta)
    assert rss() - before < 100e6
    y = big(pt.empty(2, 16384, device="meta"))
    assert y.shape == (2, 16384) and y.is_meta


def test_save_and_load_keep_meta_tensors(torch, tmp_path):
    import io
    buf = io.BytesIO()
    pt.save({"m": pt.empty(3, 4, device="meta").t(), "p": pnn.Parameter(pt.empty(2, device="meta"))}, buf)
    buf.seek(0)
    ours = pt.load(buf)
    buf.seek(0)
    theirs = torch.load(buf)        # PyTorch reads pedatorch's file, and the other way round
    tbuf = io.BytesIO()
    torch.save(theirs, tbuf)
    tbuf.seek(0)
    back = pt.load(tbuf)
    for d in (ours, back):
        assert [_repr(v) for v in d.values()] == [_repr(v) for v in theirs.values()]
        assert d["m"].stride() == (1, 4) and type(d["p"]) is pnn.Parameter


def test_pickle_and_deepcopy_keep_meta_tensors_without_data():
    import copy
    import pickle
    x = pt.empty(3, 4, device="meta", dtype=pt.bfloat16).t()
    y = pickle.loads(pickle.dumps(x))
    assert y.is_meta and y.dtype is pt.bfloat16 and y.shape == (4, 3) and y.stride() == (1, 4)
    assert len(pickle.dumps(pt.empty(1000, 1000, device="meta"))) < 1000
    w = copy.deepcopy(pnn.Linear(2, 3, device="meta")).weight
    assert w.is_meta and type(w) is pnn.Parameter and w.shape == (3, 2)
