"""nn.RNN / LSTM / GRU and their cells against PyTorch: same weights -> same outputs, final states and
gradients (inputs, initial states, every parameter); same seed -> same default weights and dropout masks."""
import copy
import warnings

import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close, to_np

MODES = ["RNN", "LSTM", "GRU"]


def make(torch, name, *args, dtype="float64", **kw):
    """The same module in PyTorch and pedatorch, pedatorch's weights copied from PyTorch's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm = getattr(torch.nn, name)(*args, **kw).to(getattr(torch, dtype))
        pm = getattr(pt.nn, name)(*args, **kw).to(getattr(pt, dtype))
    res = pm.load_state_dict({k: pt.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    assert not res.missing_keys and not res.unexpected_keys
    return pm, tm


def both(torch, arr, requires_grad=True):
    arr = np.asarray(arr)
    return pt.tensor(arr, requires_grad=requires_grad), torch.tensor(arr, requires_grad=requires_grad)


def states(h):
    return list(h) if isinstance(h, tuple) else [h]


def loss(out, h):
    """A loss that gives every output and final state a different gradient."""
    total = (out * out).sum()
    for k, s in enumerate(states(h)):
        total = total + (s ** 3).sum() * (k + 1)
    return total


def check_grads(pm, tm, pairs, tol=1e-10):
    for p, t in pairs:
        assert_close(p.grad, t.grad, rtol=tol, atol=tol)
    tp = dict(tm.named_parameters())
    for k, p in pm.named_parameters():
        assert_close(p.grad, tp[k].grad, rtol=tol, atol=tol)


# ---------------------------------------------------------------------------------------------- padded input

@pytest.mark.parametrize("name", MODES)
@pytest.mark.parametrize("num_layers", [1, 2])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("with_h0", [False, True])
def test_padded_matches_torch(torch, name, num_layers, bidirectional, batch_first, with_h0):
    rng = np.random.default_rng(0)
    H, B, T, I = 5, 3, 4, 3
    pm, tm = make(torch, name, I, H, num_layers=num_layers, bidirectional=bidirectional, batch_first=batch_first)
    px, tx = both(torch, rng.standard_normal((B, T, I) if batch_first else (T, B, I)))
    D = 2 if bidirectional else 1
    pairs = [(px, tx)]
    if with_h0:
        ph, th = both(torch, rng.standard_normal((num_layers * D, B, H)))
        pairs.append((ph, th))
        if name == "LSTM":
            pc, tc = both(torch, rng.standard_normal((num_layers * D, B, H)))
            pairs.append((pc, tc))
            po, phn = pm(px, (ph, pc))
            to, thn = tm(tx, (th, tc))
        else:
            po, phn = pm(px, ph)
            to, thn = tm(tx, th)
    else:
        po, phn = pm(px)
        to, thn = tm(tx)
    assert_close(po, to, rtol=1e-12, atol=1e-12)
    assert po.stride() == to.stride()
    for a, b in zip(states(phn), states(thn)):
        assert_close(a, b, rtol=1e-12, atol=1e-12)
        assert a.grad_fn.name() == b.grad_fn.name() == "StackBackward0"
    assert po.grad_fn.name() == to.grad_fn.name()
    loss(po, phn).backward()
    loss(to, thn).backward()
    check_grads(pm, tm, pairs)


@pytest.mark.parametrize("name", MODES)
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_float32_and_grad_fn_names(torch, name, bidirectional, batch_first):
    rng = np.random.default_rng(1)
    pm, tm = make(torch, name, 4, 6, num_layers=2, bidirectional=bidirectional, batch_first=batch_first,
                  dtype="float32")
    px, tx = both(torch, rng.standard_normal((3, 5, 4)).astype(np.float32))
    po, ph = pm(px)
    to, th = tm(tx)
    assert po.dtype == pt.float32
    assert_close(po, to, rtol=1e-5, atol=1e-6)
    for a, b in zip(states(ph), states(th)):
        assert_close(a, b, rtol=1e-5, atol=1e-6)
    assert po.grad_fn.name() == to.grad_fn.name()     # MkldnnRnnLayerBackward0 for a float32 LSTM, ...
    loss(po, ph).backward()
    loss(to, th).backward()
    check_grads(pm, tm, [(px, tx)], tol=2e-4)


# ---------------------------------------------------------------------------------------------- packed input

@pytest.mark.parametrize("name", MODES)
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("with_h0", [False, True])
def test_packed_matches_torch(torch, name, bidirectional, enforce_sorted, with_h0):
    rng = np.random.default_rng(2)
    H, B, T, I, L = 4, 4, 5, 3, 2
    lengths = [5, 3, 3, 1] if enforce_sorted else [2, 5, 1, 4]
    pm, tm = make(torch, name, I, H, num_layers=L, bidirectional=bidirectional, batch_first=True)
    px, tx = both(torch, rng.standard_normal((B, T, I)))
    pp = pt.nn.utils.rnn.pack_padded_sequence(px, lengths, batch_first=True, enforce_sorted=enforce_sorted)
    tp = torch.nn.utils.rnn.pack_padded_sequence(tx, lengths, batch_first=True, enforce_sorted=enforce_sorted)
    D = 2 if bidirectional else 1
    pairs = [(px, tx)]
    if with_h0:
        ph, th = both(torch, rng.standard_normal((L * D, B, H)))
        pairs.append((ph, th))
        if name == "LSTM":
            pc, tc = both(torch, rng.standard_normal((L * D, B, H)))
            pairs.append((pc, tc))
            po, phn = pm(pp, (ph, pc))
            to, thn = tm(tp, (th, tc))
        else:
            po, phn = pm(pp, ph)
            to, thn = tm(tp, th)
    else:
        po, phn = pm(pp)
        to, thn = tm(tp)
    assert isinstance(po, pt.nn.utils.rnn.PackedSequence)
    assert po.batch_sizes.tolist() == to.batch_sizes.tolist()
    if not enforce_sorted:
        assert po.sorted_indices.tolist() == to.sorted_indices.tolist()
        assert po.unsorted_indices.tolist() == to.unsorted_indices.tolist()
    assert_close(po.data, to.data, rtol=1e-12, atol=1e-12)
    assert po.data.grad_fn.name() == to.data.grad_fn.name() == "CatBackward0"
    for a, b in zip(states(phn), states(thn)):   # the state at each sequence's last valid step
        assert_close(a, b, rtol=1e-12, atol=1e-12)
    pad_p, len_p = pt.nn.utils.rnn.pad_packed_sequence(po, batch_first=True)
    pad_t, len_t = torch.nn.utils.rnn.pad_packed_sequence(to, batch_first=True)
    assert_close(pad_p, pad_t, rtol=1e-12, atol=1e-12)
    loss(po.data, phn).backward()
    loss(to.data, thn).backward()
    check_grads(pm, tm, pairs)


def test_pack_sequence_input(torch):
    rng = np.random.default_rng(3)
    pm, tm = make(torch, "GRU", 2, 3)
    seqs = [rng.standard_normal((n, 2)) for n in (4, 2, 3)]
    po, ph = pm(pt.nn.utils.rnn.pack_sequence([pt.tensor(s) for s in seqs], enforce_sorted=False))
    to, th = tm(torch.nn.utils.rnn.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False))
    assert_close(po.data, to.data, rtol=1e-12, atol=1e-12)
    assert_close(ph, th, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------------------------- unbatched, proj

@pytest.mark.parametrize("name", MODES)
@pytest.mark.parametrize("with_h0", [False, True])
def test_unbatched(torch, name, with_h0):
    rng = np.random.default_rng(4)
    pm, tm = make(torch, name, 3, 4, num_layers=2, bidirectional=True, batch_first=True)
    px, tx = both(torch, rng.standard_normal((5, 3)))
    if with_h0:
        ph, th = both(torch, rng.standard_normal((4, 4)))
        if name == "LSTM":
            po, phn = pm(px, (ph, ph * 2))
            to, thn = tm(tx, (th, th * 2))
        else:
            po, phn = pm(px, ph)
            to, thn = tm(tx, th)
    else:
        po, phn = pm(px)
        to, thn = tm(tx)
    assert po.shape == to.shape == (5, 8)
    assert_close(po, to, rtol=1e-12, atol=1e-12)
    for a, b in zip(states(phn), states(thn)):
        assert a.shape == b.shape == (4, 4)
        assert_close(a, b, rtol=1e-12, atol=1e-12)
        assert a.grad_fn.name() == b.grad_fn.name()
    assert po.grad_fn.name() == to.grad_fn.name()
    loss(po, phn).backward()
    loss(to, thn).backward()
    check_grads(pm, tm, [(px, tx)] + ([(ph, th)] if with_h0 else []))


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("packed", [False, True])
def test_lstm_proj_size(torch, bidirectional, packed):
    rng = np.random.default_rng(5)
    pm, tm = make(torch, "LSTM", 3, 6, num_layers=2, proj_size=2, bidirectional=bidirectional)
    assert [k for k, _ in pm.named_parameters()] == [k for k, _ in tm.named_parameters()]
    assert pm.weight_hr_l0.shape == (2, 6) and pm.weight_hh_l1.shape == (24, 2)
    px, tx = both(torch, rng.standard_normal((4, 3, 3)))
    pi, ti = px, tx
    if packed:
        pi = pt.nn.utils.rnn.pack_padded_sequence(px, [4, 1, 3], enforce_sorted=False)
        ti = torch.nn.utils.rnn.pack_padded_sequence(tx, [4, 1, 3], enforce_sorted=False)
    po, (ph, pc) = pm(pi)
    to, (th, tc) = tm(ti)
    if packed:
        po, to = po.data, to.data
    assert ph.shape == th.shape and pc.shape == tc.shape
    for a, b in ((po, to), (ph, th), (pc, tc)):
        assert_close(a, b, rtol=1e-12, atol=1e-12)
    loss(po, (ph, pc)).backward()
    loss(to, (th, tc)).backward()
    check_grads(pm, tm, [(px, tx)])


def test_lstm_proj_warning_once(torch):
    from pedatorch.nn.modules import rnn as R
    R._warned_proj[0] = False
    m = pt.nn.LSTM(3, 4, proj_size=2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m(pt.randn(2, 1, 3))
        m(pt.randn(2, 1, 3))
    msgs = [str(x.message) for x in w]
    assert len(msgs) == 1 and msgs[0].startswith("LSTM with projections is not supported with oneDNN.")


# ---------------------------------------------------------------------------------------------- init, RNG, dropout

@pytest.mark.parametrize("name", MODES)
def test_same_seed_same_default_weights(torch, name):
    torch.manual_seed(11)
    tm = getattr(torch.nn, name)(3, 5, num_layers=2, bidirectional=True)
    pt.manual_seed(11)
    pm = getattr(pt.nn, name)(3, 5, num_layers=2, bidirectional=True)
    tn = [k for k, _ in tm.named_parameters()]
    assert [k for k, _ in pm.named_parameters()] == tn
    assert list(pm.state_dict()) == list(tm.state_dict())
    for p, t in zip(pm.parameters(), tm.parameters()):
        assert p.shape == t.shape
        np.testing.assert_array_equal(to_np(p), to_np(t))


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_same_seed_same_default_weights(torch, name):
    torch.manual_seed(12)
    tm = getattr(torch.nn, name)(3, 5)
    pt.manual_seed(12)
    pm = getattr(pt.nn, name)(3, 5)
    assert [k for k, _ in pm.named_parameters()] == [k for k, _ in tm.named_parameters()]
    for p, t in zip(pm.parameters(), tm.parameters()):
        np.testing.assert_array_equal(to_np(p), to_np(t))


@pytest.mark.parametrize("name", MODES)
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dropout_masks_match_torch(torch, name, bidirectional, dtype):
    torch.manual_seed(5)
    tm = getattr(torch.nn, name)(3, 4, num_layers=3, dropout=0.5, bidirectional=bidirectional).to(getattr(torch, dtype))
    pt.manual_seed(5)
    pm = getattr(pt.nn, name)(3, 4, num_layers=3, dropout=0.5, bidirectional=bidirectional).to(getattr(pt, dtype))
    x = np.random.default_rng(6).standard_normal((5, 2, 3)).astype(dtype)
    px, tx = both(torch, x)
    torch.manual_seed(7)
    to, th = tm(tx)
    pt.manual_seed(7)
    po, ph = pm(px)
    tol = 1e-5 if dtype == "float32" else 1e-12
    assert_close(po, to, rtol=tol, atol=tol)
    loss(po, ph).backward()
    loss(to, th).backward()
    check_grads(pm, tm, [(px, tx)], tol=1e-3 if dtype == "float32" else 1e-10)
    # evaluation: no dropout, and no random numbers drawn
    pm.eval()
    tm.eval()
    pt.manual_seed(0)
    po2 = pm(px)[0]
    assert_close(po2, tm(tx)[0], rtol=tol, atol=tol)
    assert pt.rand(1).item() == (pt.manual_seed(0), pt.rand(1))[1].item()


def test_dropout_warning_and_errors(torch):
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        pt.nn.LSTM(3, 4, dropout=0.3)
    for bad in (-0.1, 1.5, True, "0.1"):
        with pytest.raises(ValueError, match="dropout should be a number in range"):
            pt.nn.GRU(3, 4, num_layers=2, dropout=bad)


# ---------------------------------------------------------------------------------------------- cells

@pytest.mark.parametrize("name,kw", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}), ("LSTMCell", {}),
                                     ("GRUCell", {}), ("GRUCell", {"bias": False})])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_hx", [True, False])
def test_cells_match_torch(torch, name, kw, batched, with_hx):
    rng = np.random.default_rng(7)
    pm, tm = make(torch, name, 3, 4, **kw)
    shape = (2, 3) if batched else (3,)
    hshape = (2, 4) if batched else (4,)
    px, tx = both(torch, rng.standard_normal(shape))
    pairs = [(px, tx)]
    if with_hx:
        ph, th = both(torch, rng.standard_normal(hshape))
        pairs.append((ph, th))
        if name == "LSTMCell":
            pc, tc = both(torch, rng.standard_normal(hshape))
            pairs.append((pc, tc))
            pr, tr = pm(px, (ph, pc)), tm(tx, (th, tc))
        else:
            pr, tr = pm(px, ph), tm(tx, th)
    else:
        pr, tr = pm(px), tm(tx)
    for a, b in zip(states(pr), states(tr)):
        assert a.shape == b.shape
        assert_close(a, b, rtol=1e-12, atol=1e-12)
        assert a.grad_fn.name() == b.grad_fn.name()
    total_p = sum(((s ** 2) * (k + 1)).sum() for k, s in enumerate(states(pr)))
    total_t = sum(((s ** 2) * (k + 1)).sum() for k, s in enumerate(states(tr)))
    total_p.backward()
    total_t.backward()
    check_grads(pm, tm, pairs)


def test_cell_errors(torch):
    cases = [
        (pt.nn.LSTMCell(3, 4), torch.nn.LSTMCell(3, 4), lambda m, T: m(T.randn(2, 5))),
        (pt.nn.LSTMCell(3, 4), torch.nn.LSTMCell(3, 4), lambda m, T: m(T.randn(2, 3), (T.randn(3, 4), T.randn(3, 4)))),
        (pt.nn.LSTMCell(3, 4), torch.nn.LSTMCell(3, 4), lambda m, T: m(T.randn(2, 3), (T.randn(2, 4), T.randn(2, 5)))),
        (pt.nn.GRUCell(3, 4), torch.nn.GRUCell(3, 4), lambda m, T: m(T.randn(2, 3), T.randn(2, 5))),
        (pt.nn.RNNCell(3, 4), torch.nn.RNNCell(3, 4), lambda m, T: m(T.randn(2, 2, 3))),
        (pt.nn.GRUCell(3, 4), torch.nn.GRUCell(3, 4), lambda m, T: m(T.randn(2, 3), T.randn(1, 2, 4))),
    ]
    for pm, tm, call in cases:
        with pytest.raises(Exception) as et:
            call(tm, torch)
        with pytest.raises(type(et.value)) as ep:
            call(pm, pt)
        assert str(ep.value) == str(et.value)


# ---------------------------------------------------------------------------------------------- errors, repr, misc

def test_forward_errors(torch):
    cases = [
        ("LSTM", lambda T: (T.randn(5, 2, 4),)),
        ("LSTM", lambda T: (T.randn(5, 2, 3), (T.randn(1, 3, 4), T.randn(1, 2, 4)))),
        ("LSTM", lambda T: (T.randn(5, 2, 3), (T.randn(1, 2, 4), T.randn(1, 2, 5)))),
        ("LSTM", lambda T: (T.randn(5, 2, 3, dtype=T.float64),)),
        ("LSTM", lambda T: (T.randn(2, 2, 2, 3),)),
        ("LSTM", lambda T: (T.randn(5, 2, 3), (T.randn(2, 4), T.randn(2, 4)))),
        ("GRU", lambda T: (T.randn(5, 2, 3), T.randn(1, 3, 4))),
        ("GRU", lambda T: (T.randn(5, 2, 3), T.randn(3, 4))),
        ("GRU", lambda T: (T.randn(5, 3), T.randn(1, 1, 4))),
        ("RNN", lambda T: (T.randn(5, 2, 3), T.randn(2, 2, 4))),
        ("RNN", lambda T: (T.randn(5,),)),
        ("LSTM", lambda T: (T.randn(0, 2, 3),)),
    ]
    for name, args in cases:
        tm, pm = getattr(torch.nn, name)(3, 4), getattr(pt.nn, name)(3, 4)
        with pytest.raises(Exception) as et:
            tm(*args(torch))
        with pytest.raises(type(et.value)) as ep:
            pm(*args(pt))
        assert str(ep.value) == str(et.value)


@pytest.mark.parametrize("name", MODES)
def test_empty_batch(torch, name):
    pm, tm = make(torch, name, 3, 4, bidirectional=True)
    px, tx = both(torch, np.zeros((2, 0, 3)))
    po, ph = pm(px)
    to, th = tm(tx)
    assert po.shape == to.shape
    for a, b in zip(states(ph), states(th)):
        assert a.shape == b.shape
    loss(po, ph).backward()
    assert px.grad.shape == (2, 0, 3)


def test_constructor_errors(torch):
    calls = [
        lambda nn: nn.RNN(3, 4, nonlinearity="sigmoid"),
        lambda nn: nn.GRU(3, 4, proj_size=2),
        lambda nn: nn.RNN(3, 4, proj_size=2),
        lambda nn: nn.LSTM(3, 4, proj_size=4),
        lambda nn: nn.LSTM(3, 4, proj_size=-1),
        lambda nn: nn.LSTM(0, 4),
        lambda nn: nn.LSTM(3, 0),
        lambda nn: nn.LSTM(3, 4, num_layers=0),
        lambda nn: nn.LSTM(3.0, 4),
        lambda nn: nn.GRU(3, 4, bias=1),
        lambda nn: nn.GRU(3, 4, batch_first=None),
    ]
    for call in calls:
        with pytest.raises(Exception) as et:
            call(torch.nn)
        with pytest.raises(type(et.value)) as ep:
            call(pt.nn)
        assert str(ep.value) == str(et.value)


def test_repr_matches_torch(torch):
    builds = [
        lambda nn: nn.LSTM(3, 4, num_layers=2, dropout=0.2, bidirectional=True, batch_first=True, proj_size=2,
                           bias=False),
        lambda nn: nn.RNN(3, 4, 2, "relu"),
        lambda nn: nn.GRU(3, 4),
        lambda nn: nn.RNNCell(3, 4, nonlinearity="relu", bias=False),
        lambda nn: nn.LSTMCell(3, 4),
        lambda nn: nn.GRUCell(2, 3, bias=False),
        lambda nn: nn.Sequential(nn.LSTM(2, 3), nn.GRUCell(3, 3)),
    ]
    for b in builds:
        assert repr(b(pt.nn)) == repr(b(torch.nn))
    m = pt.nn.RNN(3, 4, 2, "relu")
    assert m.nonlinearity == "relu" and m.mode == "RNN_RELU" and m.num_layers == 2


def test_flat_weights_and_conversions(torch):
    m = pt.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    assert m.flatten_parameters() is None
    assert m._flat_weights_names == [k for k, _ in m.named_parameters()]
    assert [[w.shape for w in ws] for ws in m.all_weights] == \
        [[w.shape for w in ws] for ws in torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True).all_weights]
    m.double()
    assert all(w.dtype == pt.float64 for w in m._flat_weights)
    out, (h, c) = m(pt.randn(2, 1, 3, dtype=pt.float64))
    assert out.dtype == h.dtype == c.dtype == pt.float64
    # assigning a new Parameter is seen by forward
    m2 = copy.deepcopy(m)
    with pt.no_grad():
        m2.weight_hh_l0 = pt.nn.Parameter(m2.weight_hh_l0 * 0)
    assert m2._flat_weights[1] is m2.weight_hh_l0
    x = pt.randn(3, 2, 3, dtype=pt.float64)
    assert not pt.allclose(m(x)[0], m2(x)[0])
    assert pt.equal(copy.deepcopy(m)(x)[0], m(x)[0])


def test_no_grad_and_eval(torch):
    pm, tm = make(torch, "LSTM", 3, 4, num_layers=2, dtype="float32")
    x = np.random.default_rng(8).standard_normal((6, 2, 3)).astype(np.float32)
    with pt.no_grad():
        po, (ph, pc) = pm(pt.tensor(x))
    assert po.grad_fn is None and not po.requires_grad
    with torch.no_grad():
        to, (th, tc) = tm(torch.tensor(x))
    assert_close(po, to, rtol=1e-5, atol=1e-6)
    assert_close(pc, tc, rtol=1e-5, atol=1e-6)


def test_retain_graph_and_second_backward(torch):
    m = pt.nn.GRU(2, 3).double()
    x = pt.randn(4, 2, 2, dtype=pt.float64, requires_grad=True)
    out, h = m(x)
    s = out.sum() + h.sum()
    s.backward(retain_graph=True)
    g1 = x.grad.clone()
    s.backward()
    assert_close(x.grad, 2 * g1)
    with pytest.raises(RuntimeError):
        s.backward()


# ---------------------------------------------------------------------------------------------- double backward, gradcheck

@pytest.mark.parametrize("name", MODES)
@pytest.mark.parametrize("packed", [False, True])
def test_double_backward_matches_torch(torch, name, packed):
    pm, tm = make(torch, name, 2, 3, bidirectional=True)
    px, tx = both(torch, np.random.default_rng(9).standard_normal((4, 2, 2)))
    pi, ti = px, tx
    if packed:
        pi = pt.nn.utils.rnn.pack_padded_sequence(px, [4, 2])
        ti = torch.nn.utils.rnn.pack_padded_sequence(tx, [4, 2])
    po, to = pm(pi)[0], tm(ti)[0]
    if packed:
        po, to = po.data, to.data
    gp, = pt.autograd.grad((po ** 2).sum(), px, create_graph=True)
    gt, = torch.autograd.grad((to ** 2).sum(), tx, create_graph=True)
    assert_close(gp, gt, rtol=1e-12, atol=1e-12)
    g2p, = pt.autograd.grad((gp ** 2).sum(), pm.weight_hh_l0_reverse)
    g2t, = torch.autograd.grad((gt ** 2).sum(), tm.weight_hh_l0_reverse)
    assert_close(g2p, g2t, rtol=1e-10, atol=1e-12)


def test_gradcheck_lstm():
    pt.manual_seed(0)
    m = pt.nn.LSTM(2, 3, num_layers=2, bidirectional=True).double()
    x = pt.randn(3, 2, 2, dtype=pt.float64, requires_grad=True)
    h = pt.randn(4, 2, 3, dtype=pt.float64, requires_grad=True)
    c = pt.randn(4, 2, 3, dtype=pt.float64, requires_grad=True)

    def f(x, h, c, *params):
        out, (hn, cn) = m(x, (h, c))
        return out, hn, cn
    assert pt.autograd.gradcheck(f, (x, h, c) + tuple(m.parameters()))


def test_gradgradcheck_lstm():
    pt.manual_seed(4)
    m = pt.nn.LSTM(2, 2, bidirectional=True).double()
    x = pt.randn(2, 1, 2, dtype=pt.float64, requires_grad=True)
    h = pt.randn(2, 1, 2, dtype=pt.float64, requires_grad=True)

    def f(x, h):
        out, (hn, cn) = m(x, (h, h * 0.5))
        return out, cn
    assert pt.autograd.gradgradcheck(f, (x, h))


def test_gradcheck_lstm_proj_packed():
    pt.manual_seed(1)
    m = pt.nn.LSTM(2, 3, proj_size=2, bidirectional=True).double()
    x = pt.randn(3, 3, 2, dtype=pt.float64, requires_grad=True)

    def f(x, *params):
        packed = pt.nn.utils.rnn.pack_padded_sequence(x, [3, 1, 2], enforce_sorted=False)
        out, (hn, cn) = m(packed)
        return out.data, hn, cn
    assert pt.autograd.gradcheck(f, (x,) + tuple(m.parameters()))


@pytest.mark.parametrize("name,kw", [("GRU", {}), ("RNN", {}), ("RNN", {"nonlinearity": "relu"})])
def test_gradcheck_gru_rnn(name, kw):
    pt.manual_seed(2)
    m = getattr(pt.nn, name)(2, 3, num_layers=2, bidirectional=True, **kw).double()
    x = pt.randn(3, 2, 2, dtype=pt.float64, requires_grad=True)
    h = pt.randn(4, 2, 3, dtype=pt.float64, requires_grad=True)

    def f(x, h, *params):
        return m(x, h)
    assert pt.autograd.gradcheck(f, (x, h) + tuple(m.parameters()))


def test_gradcheck_cells():
    pt.manual_seed(3)
    for cell in (pt.nn.LSTMCell(2, 3), pt.nn.GRUCell(2, 3), pt.nn.RNNCell(2, 3)):
        cell.double()
        x = pt.randn(2, 2, dtype=pt.float64, requires_grad=True)
        h = pt.randn(2, 3, dtype=pt.float64, requires_grad=True)

        def f(x, h, *params):
            return cell(x, (h, h * 0.5)) if isinstance(cell, pt.nn.LSTMCell) else cell(x, h)
        assert pt.autograd.gradcheck(f, (x, h) + tuple(cell.parameters()))
