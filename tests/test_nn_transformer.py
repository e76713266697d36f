"""nn.MultiheadAttention and the nn.Transformer family against PyTorch: same weights (torch's state_dict
copied in) -> same outputs, attention weights and gradients; same seed -> same default weights."""
import warnings

import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close, to_np


def copy_weights(pm, tm):
    res = pm.load_state_dict({k: pt.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    assert not res.missing_keys and not res.unexpected_keys


def make(torch, name, *args, dtype="float64", **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm = getattr(torch.nn, name)(*args, **kw).to(getattr(torch, dtype))
        pm = getattr(pt.nn, name)(*args, **kw).to(getattr(pt, dtype))
    assert list(pm.state_dict()) == list(tm.state_dict())
    copy_weights(pm, tm)
    return pm, tm


def both(torch, arr, requires_grad=True):
    arr = np.asarray(arr)
    if arr.dtype.kind == "f":
        return pt.tensor(arr, requires_grad=requires_grad), torch.tensor(arr, requires_grad=requires_grad)
    return pt.tensor(arr), torch.tensor(arr)


def check_param_grads(pm, tm, tol=1e-10):
    tp = dict(tm.named_parameters())
    for k, p in pm.named_parameters():
        if tp[k].grad is None:
            assert p.grad is None or float(p.grad.abs().max()) == 0, k
        else:
            assert_close(p.grad, tp[k].grad, rtol=tol, atol=tol)


def weighted_sum(out, torch_mod, seed=0):
    w = np.random.default_rng(seed).standard_normal(tuple(out.shape))
    return (out * torch_mod.tensor(w)).sum()


# ====================================================================== MultiheadAttention

def test_mha_parameters_init_and_repr(torch):
    for kw in ({}, {"kdim": 3, "vdim": 5}, {"add_bias_kv": True}, {"bias": False}, {"batch_first": True}):
        torch.manual_seed(0)
        tm = torch.nn.MultiheadAttention(8, 2, **kw)
        pt.manual_seed(0)
        pm = pt.nn.MultiheadAttention(8, 2, **kw)
        assert [k for k, _ in pm.named_parameters()] == [k for k, _ in tm.named_parameters()]
        assert list(pm.state_dict()) == list(tm.state_dict())
        for (k, p), t in zip(pm.named_parameters(), tm.parameters()):
            np.testing.assert_array_equal(to_np(p), to_np(t), err_msg=k)
        assert repr(pm) == repr(tm)
        assert type(pm.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
        assert isinstance(pm.out_proj, pt.nn.Linear)
        for attr in ("embed_dim", "kdim", "vdim", "_qkv_same_embed_dim", "num_heads", "dropout", "batch_first",
                     "head_dim", "add_zero_attn"):
            assert getattr(pm, attr) == getattr(tm, attr)
        for name in ("in_proj_weight", "q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias",
                     "bias_k", "bias_v"):
            assert (getattr(pm, name) is None) == (getattr(tm, name) is None), name


def test_mha_constructor_errors(torch):
    for args in ((8, 3), (0, 2), (8, 0)):
        with pytest.raises(Exception) as et:
            torch.nn.MultiheadAttention(*args)
        with pytest.raises(type(et.value)) as ep:
            pt.nn.MultiheadAttention(*args)
        assert str(ep.value) == str(et.value)


def _masks(kind, L, S, N, heads, rng):
    """(attn_mask, key_padding_mask) as numpy arrays for a test case."""
    am = kpm = None
    if kind in ("bool_attn", "both_bool"):
        am = rng.random((L, S)) < 0.3
        am[:, 0] = False                         # every query keeps one key
    if kind == "float_attn":
        am = rng.standard_normal((L, S))
    if kind == "attn3d":
        am = rng.standard_normal((N * heads, L, S))
    if kind in ("bool_kpm", "both_bool"):
        kpm = np.zeros((N, S), bool)
        kpm[0, -2:] = True
    if kind == "float_kpm":
        kpm = np.where(rng.random((N, S)) < 0.3, -np.inf, 0.0)
        kpm[:, 0] = 0.0
    return am, kpm


@pytest.mark.parametrize("masks", ["none", "bool_attn", "float_attn", "attn3d", "bool_kpm", "float_kpm",
                                   "both_bool"])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("batch_first", [False, True])
def test_mha_self_attention(torch, masks, need_weights, average, batch_first):
    rng = np.random.default_rng(1)
    E, heads, L, N = 8, 2, 4, 3
    pm, tm = make(torch, "MultiheadAttention", E, heads, batch_first=batch_first)
    px, tx = both(torch, rng.standard_normal((N, L, E) if batch_first else (L, N, E)))
    am, kpm = _masks(masks, L, L, N, heads, rng)
    pam, tam = both(torch, am, False) if am is not None else (None, None)
    pkpm, tkpm = both(torch, kpm, False) if kpm is not None else (None, None)
    po, pw = pm(px, px, px, key_padding_mask=pkpm, need_weights=need_weights, attn_mask=pam,
                average_attn_weights=average)
    to, tw = tm(tx, tx, tx, key_padding_mask=tkpm, need_weights=need_weights, attn_mask=tam,
                average_attn_weights=average)
    assert_close(po, to, rtol=1e-10, atol=1e-12)
    if need_weights:
        assert_close(pw, tw, rtol=1e-10, atol=1e-12)
    else:
        assert pw is None and tw is None
    total_p = weighted_sum(po, pt) + (weighted_sum(pw, pt, 1) if need_weights else 0)
    total_t = weighted_sum(to, torch) + (weighted_sum(tw, torch, 1) if need_weights else 0)
    total_p.backward()
    total_t.backward()
    assert_close(px.grad, tx.grad, rtol=1e-9, atol=1e-11)
    check_param_grads(pm, tm, tol=1e-9)


@pytest.mark.parametrize("kw", [{}, {"kdim": 3, "vdim": 5}, {"add_bias_kv": True}, {"add_zero_attn": True},
                                {"bias": False}, {"add_bias_kv": True, "add_zero_attn": True, "kdim": 6}])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("with_masks", [False, True])
def test_mha_cross_attention(torch, kw, batch_first, with_masks):
    rng = np.random.default_rng(2)
    E, heads, L, S, N = 8, 4, 3, 5, 2
    pm, tm = make(torch, "MultiheadAttention", E, heads, batch_first=batch_first, **kw)
    kd, vd = kw.get("kdim", E), kw.get("vdim", E)

    def shape(n, d):
        return (N, n, d) if batch_first else (n, N, d)
    pq, tq = both(torch, rng.standard_normal(shape(L, E)))
    pk, tk = both(torch, rng.standard_normal(shape(S, kd)))
    pv, tv = both(torch, rng.standard_normal(shape(S, vd)))
    pam = tam = pkpm = tkpm = None
    if with_masks:
        am, kpm = _masks("both_bool", L, S, N, heads, rng)
        pam, tam = both(torch, am)
        pkpm, tkpm = both(torch, kpm)
    po, pw = pm(pq, pk, pv, key_padding_mask=pkpm, attn_mask=pam)
    to, tw = tm(tq, tk, tv, key_padding_mask=tkpm, attn_mask=tam)
    assert_close(po, to, rtol=1e-10, atol=1e-12)
    assert_close(pw, tw, rtol=1e-10, atol=1e-12)
    (weighted_sum(po, pt) + weighted_sum(pw, pt, 1)).backward()
    (weighted_sum(to, torch) + weighted_sum(tw, torch, 1)).backward()
    for a, b in ((pq, tq), (pk, tk), (pv, tv)):
        assert_close(a.grad, b.grad, rtol=1e-9, atol=1e-11)
    check_param_grads(pm, tm, tol=1e-9)


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_unbatched_and_shared_key_value(torch, need_weights):
    rng = np.random.default_rng(3)
    pm, tm = make(torch, "MultiheadAttention", 6, 3, batch_first=True)
    pq, tq = both(torch, rng.standard_normal((4, 6)))
    pkv, tkv = both(torch, rng.standard_normal((5, 6)))
    kpm = np.array([False, False, True, False, True])
    po, pw = pm(pq, pkv, pkv, key_padding_mask=pt.tensor(kpm), need_weights=need_weights)
    to, tw = tm(tq, tkv, tkv, key_padding_mask=torch.tensor(kpm), need_weights=need_weights)
    assert po.shape == to.shape == (4, 6)
    assert_close(po, to, rtol=1e-10, atol=1e-12)
    if need_weights:
        assert pw.shape == tw.shape == (4, 5)
        assert_close(pw, tw, rtol=1e-10, atol=1e-12)
    weighted_sum(po, pt).backward()
    weighted_sum(to, torch).backward()
    assert_close(pq.grad, tq.grad, rtol=1e-9, atol=1e-11)
    assert_close(pkv.grad, tkv.grad, rtol=1e-9, atol=1e-11)


def test_mha_is_causal_and_float32(torch):
    rng = np.random.default_rng(4)
    pm, tm = make(torch, "MultiheadAttention", 8, 2, dtype="float32")
    x = rng.standard_normal((5, 2, 8)).astype(np.float32)
    px, tx = both(torch, x)
    pmask = pt.nn.Transformer.generate_square_subsequent_mask(5)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(5)
    for nw in (True, False):
        po, pw = pm(px, px, px, attn_mask=pmask, is_causal=True, need_weights=nw)
        to, tw = tm(tx, tx, tx, attn_mask=tmask, is_causal=True, need_weights=nw)
        assert po.dtype == pt.float32
        assert_close(po, to, rtol=1e-5, atol=1e-6)
        if nw:
            assert_close(pw, tw, rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        pm(px, px, px, is_causal=True)


def test_mha_eval_no_grad(torch):
    """PyTorch takes its fused inference path here; the values are the same."""
    rng = np.random.default_rng(5)
    pm, tm = make(torch, "MultiheadAttention", 8, 2, batch_first=True, dtype="float32")
    pm.eval()
    tm.eval()
    x = rng.standard_normal((2, 4, 8)).astype(np.float32)
    kpm = np.array([[False] * 4, [False, False, True, True]])
    with pt.no_grad():
        po, pw = pm(pt.tensor(x), pt.tensor(x), pt.tensor(x), key_padding_mask=pt.tensor(kpm))
    with torch.no_grad():
        to, tw = tm(torch.tensor(x), torch.tensor(x), torch.tensor(x), key_padding_mask=torch.tensor(kpm))
    assert_close(po, to, rtol=1e-5, atol=1e-6)
    assert_close(pw, tw, rtol=1e-5, atol=1e-6)


def test_mha_dropout_same_seed(torch):
    rng = np.random.default_rng(6)
    pm, tm = make(torch, "MultiheadAttention", 8, 2, dropout=0.4)
    px, tx = both(torch, rng.standard_normal((4, 3, 8)))
    torch.manual_seed(9)
    to, tw = tm(tx, tx, tx)
    pt.manual_seed(9)
    po, pw = pm(px, px, px)
    assert_close(po, to, rtol=1e-10, atol=1e-12)
    assert_close(pw, tw, rtol=1e-10, atol=1e-12)


def test_mha_mismatched_mask_types_warn(torch):
    m = pt.nn.MultiheadAttention(4, 2)
    x = pt.randn(3, 1, 4)
    with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
        m(x, x, x, key_padding_mask=pt.zeros(1, 3, dtype=pt.bool), attn_mask=pt.zeros(3, 3))
    with pytest.raises(AssertionError, match="only bool and floating types of attn_mask are supported"):
        m(x, x, x, attn_mask=pt.zeros(3, 3, dtype=pt.int64))


def test_mha_merge_masks(torch):
    pm, tm = make(torch, "MultiheadAttention", 4, 2, batch_first=True)
    q = np.zeros((2, 3, 4))
    am = np.random.default_rng(7).standard_normal((3, 3))
    kpm = np.random.default_rng(8).standard_normal((2, 3))
    for a, k in ((None, None), (am, None), (None, kpm), (am, kpm)):
        pa = None if a is None else pt.tensor(a)
        ta = None if a is None else torch.tensor(a)
        pk = None if k is None else pt.tensor(k)
        tk = None if k is None else torch.tensor(k)
        pmask, ptype = pm.merge_masks(pa, pk, pt.tensor(q))
        tmask, ttype = tm.merge_masks(ta, tk, torch.tensor(q))
        assert ptype == ttype
        if tmask is None:
            assert pmask is None
        else:
            assert_close(pmask, tmask)


def test_mha_gradcheck():
    pt.manual_seed(0)
    m = pt.nn.MultiheadAttention(4, 2, kdim=3, vdim=2, add_bias_kv=True).double()
    q = pt.randn(3, 2, 4, dtype=pt.float64, requires_grad=True)
    k = pt.randn(2, 2, 3, dtype=pt.float64, requires_grad=True)
    v = pt.randn(2, 2, 2, dtype=pt.float64, requires_grad=True)
    mask = pt.tensor([[0.0, -1.0]] * 3, dtype=pt.float64)

    def f(q, k, v, *params):
        return m(q, k, v, attn_mask=mask, average_attn_weights=False)
    assert pt.autograd.gradcheck(f, (q, k, v) + tuple(m.parameters()))

    def g(q, *params):
        return m(q, q[:2, :, :3], q[:2, :, :2], need_weights=False)[0]
    assert pt.autograd.gradcheck(g, (q,) + tuple(m.parameters()))


# ====================================================================== encoder / decoder layers

ACTIVATIONS = ["relu", "gelu", "callable"]


def _activation(name, mod):
    return mod.tanh if name == "callable" else name


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("mode", ["eval", "train"])
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_encoder_layer(torch, norm_first, batch_first, mode, activation):
    rng = np.random.default_rng(10)
    d, heads, ff, S, N = 8, 2, 16, 5, 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm = torch.nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0 if mode == "train" else 0.1,
                                              activation=_activation(activation, torch), batch_first=batch_first,
                                              norm_first=norm_first).double()
        pm = pt.nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0 if mode == "train" else 0.1,
                                           activation=_activation(activation, pt), batch_first=batch_first,
                                           norm_first=norm_first).double()
    assert list(pm.state_dict()) == list(tm.state_dict())
    copy_weights(pm, tm)
    if mode == "eval":
        pm.eval()
        tm.eval()
    px, tx = both(torch, rng.standard_normal((N, S, d) if batch_first else (S, N, d)))
    kpm = np.zeros((N, S), bool)
    kpm[1, -2:] = True
    mask = torch.nn.Transformer.generate_square_subsequent_mask(S, dtype=torch.float64)
    for kwargs in ({}, {"src_key_padding_mask": kpm}, {"src_mask": mask.numpy()},
                   {"src_mask": mask.numpy(), "src_key_padding_mask": kpm, "is_causal": True}):
        pk = {k: (pt.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
        tk = {k: (torch.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
        if "src_key_padding_mask" in kwargs and "src_mask" in kwargs:
            pk["src_key_padding_mask"] = pt.zeros(N, S, dtype=pt.float64).masked_fill(pt.tensor(kpm), float("-inf"))
            tk["src_key_padding_mask"] = torch.zeros(N, S, dtype=torch.float64).masked_fill(torch.tensor(kpm),
                                                                                            float("-inf"))
        po = pm(px, **pk)
        to = tm(tx, **tk)
        assert_close(po, to, rtol=1e-10, atol=1e-10)
    pm.zero_grad()
    tm.zero_grad()
    weighted_sum(po, pt).backward()
    weighted_sum(to, torch).backward()
    assert_close(px.grad, tx.grad, rtol=1e-8, atol=1e-10)
    check_param_grads(pm, tm, tol=1e-8)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("mode", ["eval", "train"])
def test_decoder_layer(torch, norm_first, batch_first, mode):
    rng = np.random.default_rng(11)
    d, heads, ff, T, S, N = 8, 2, 16, 4, 5, 2
    pm, tm = make(torch, "TransformerDecoderLayer", d, heads, ff, dropout=0.0 if mode == "train" else 0.2,
                  batch_first=batch_first, norm_first=norm_first)
    if mode == "eval":
        pm.eval()
        tm.eval()

    def shape(n):
        return (N, n, d) if batch_first else (n, N, d)
    pt_tgt, t_tgt = both(torch, rng.standard_normal(shape(T)))
    pmem, tmem = both(torch, rng.standard_normal(shape(S)))
    tgt_mask = torch.nn.Transformer.generate_square_subsequent_mask(T, dtype=torch.float64)
    mem_kpm = np.zeros((N, S), bool)
    mem_kpm[0, -1] = True
    tgt_kpm = np.zeros((N, T), bool)
    tgt_kpm[1, -1] = True
    po = pm(pt_tgt, pmem, tgt_mask=pt.tensor(tgt_mask.numpy()), memory_key_padding_mask=pt.tensor(mem_kpm),
            tgt_is_causal=True)
    to = tm(t_tgt, tmem, tgt_mask=tgt_mask, memory_key_padding_mask=torch.tensor(mem_kpm), tgt_is_causal=True)
    assert_close(po, to, rtol=1e-10, atol=1e-10)
    memory_mask = rng.standard_normal((T, S))
    po2 = pm(pt_tgt, pmem, tgt_key_padding_mask=pt.tensor(tgt_kpm), memory_mask=pt.tensor(memory_mask))
    to2 = tm(t_tgt, tmem, tgt_key_padding_mask=torch.tensor(tgt_kpm), memory_mask=torch.tensor(memory_mask))
    assert_close(po2, to2, rtol=1e-10, atol=1e-10)
    (weighted_sum(po, pt)).backward()
    (weighted_sum(to, torch)).backward()
    assert_close(pt_tgt.grad, t_tgt.grad, rtol=1e-8, atol=1e-10)
    assert_close(pmem.grad, tmem.grad, rtol=1e-8, atol=1e-10)
    check_param_grads(pm, tm, tol=1e-8)


def test_layers_same_seed_same_default_weights(torch):
    for name, args in (("TransformerEncoderLayer", (8, 2, 16)), ("TransformerDecoderLayer", (8, 2, 16))):
        torch.manual_seed(3)
        tm = getattr(torch.nn, name)(*args)
        pt.manual_seed(3)
        pm = getattr(pt.nn, name)(*args)
        assert [k for k, _ in pm.named_parameters()] == [k for k, _ in tm.named_parameters()]
        for (k, p), t in zip(pm.named_parameters(), tm.parameters()):
            np.testing.assert_array_equal(to_np(p), to_np(t), err_msg=k)
        assert repr(pm) == repr(tm)


def test_layer_attributes_and_errors(torch):
    for act, code in (("relu", 1), ("gelu", 2)):
        assert pt.nn.TransformerEncoderLayer(4, 2, 8, activation=act).activation_relu_or_gelu == code
    assert pt.nn.TransformerEncoderLayer(4, 2, 8).activation_relu_or_gelu == 1
    assert pt.nn.TransformerEncoderLayer(4, 2, 8, activation=pt.nn.GELU()).activation_relu_or_gelu == 2
    assert pt.nn.TransformerEncoderLayer(4, 2, 8, activation=pt.tanh).activation_relu_or_gelu == 0
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        pt.nn.TransformerEncoderLayer(4, 2, 8, activation="tanh")
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        pt.nn.TransformerDecoderLayer(4, 2, 8, activation="tanh")
    m = pt.nn.TransformerEncoderLayer(4, 2, 8, bias=False, layer_norm_eps=1e-3)
    assert m.linear1.bias is None and m.norm1.bias is None and m.self_attn.in_proj_bias is None
    assert m.norm1.eps == 1e-3


# ====================================================================== stacks and the full model

def _warn_messages(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [str(x.message) for x in w]


def test_encoder_stack_copies_and_warnings(torch):
    cases = [dict(), dict(batch_first=True), dict(batch_first=True, norm_first=True),
             dict(batch_first=True, bias=False), dict(batch_first=True, activation=lambda x: x),
             dict(batch_first=True, nhead=1)]
    for kw in cases:
        kw = dict(kw)
        nhead = kw.pop("nhead", 2)
        msgs_t = _warn_messages(lambda: torch.nn.TransformerEncoder(
            torch.nn.TransformerEncoderLayer(4, nhead, 8, **kw), 2))
        msgs_p = _warn_messages(lambda: pt.nn.TransformerEncoder(pt.nn.TransformerEncoderLayer(4, nhead, 8, **kw), 2))
        assert msgs_p == msgs_t
        assert pt.nn.TransformerEncoder(pt.nn.TransformerEncoderLayer(4, nhead, 8, **kw), 2,
                                        enable_nested_tensor=False).use_nested_tensor is False
    layer = pt.nn.TransformerEncoderLayer(4, 2, 8, batch_first=True)
    enc = pt.nn.TransformerEncoder(layer, 3, norm=pt.nn.LayerNorm(4))
    assert len(enc.layers) == 3 and enc.num_layers == 3 and enc.use_nested_tensor
    assert enc.layers[0] is not layer and enc.layers[0] is not enc.layers[1]
    assert enc.layers[0].linear1.weight is not enc.layers[1].linear1.weight
    assert pt.equal(enc.layers[2].linear1.weight, layer.linear1.weight)
    dec = pt.nn.TransformerDecoder(pt.nn.TransformerDecoderLayer(4, 2, 8), 2)
    tdec = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(4, 2, 8), 2)
    assert list(dec.state_dict()) == list(tdec.state_dict())
    assert repr(dec) == repr(tdec)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_decoder_stacks(torch, batch_first, norm_first):
    rng = np.random.default_rng(12)
    d, heads, ff, N, S, T = 8, 2, 16, 2, 5, 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tenc = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(
            d, heads, ff, dropout=0.0, batch_first=batch_first, norm_first=norm_first), 2,
            norm=torch.nn.LayerNorm(d)).double()
        penc = pt.nn.TransformerEncoder(pt.nn.TransformerEncoderLayer(
            d, heads, ff, dropout=0.0, batch_first=batch_first, norm_first=norm_first), 2,
            norm=pt.nn.LayerNorm(d)).double()
    tdec = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(
        d, heads, ff, dropout=0.0, batch_first=batch_first, norm_first=norm_first), 2).double()
    pdec = pt.nn.TransformerDecoder(pt.nn.TransformerDecoderLayer(
        d, heads, ff, dropout=0.0, batch_first=batch_first, norm_first=norm_first), 2).double()
    copy_weights(penc, tenc)
    copy_weights(pdec, tdec)

    def shape(n):
        return (N, n, d) if batch_first else (n, N, d)
    ps, ts = both(torch, rng.standard_normal(shape(S)))
    ptg, ttg = both(torch, rng.standard_normal(shape(T)))
    kpm = np.array([[False] * S, [False] * (S - 2) + [True] * 2])
    causal = torch.nn.Transformer.generate_square_subsequent_mask(T, dtype=torch.float64)
    pmem = penc(ps, src_key_padding_mask=pt.tensor(kpm))
    tmem = tenc(ts, src_key_padding_mask=torch.tensor(kpm))
    assert_close(pmem, tmem, rtol=1e-10, atol=1e-10)
    po = pdec(ptg, pmem, tgt_mask=pt.tensor(causal.numpy()), memory_key_padding_mask=pt.tensor(kpm))
    to = tdec(ttg, tmem, tgt_mask=causal, memory_key_padding_mask=torch.tensor(kpm))
    assert_close(po, to, rtol=1e-10, atol=1e-10)
    weighted_sum(po, pt).backward()
    weighted_sum(to, torch).backward()
    assert_close(ps.grad, ts.grad, rtol=1e-8, atol=1e-10)
    assert_close(ptg.grad, ttg.grad, rtol=1e-8, atol=1e-10)
    check_param_grads(penc, tenc, tol=1e-8)
    check_param_grads(pdec, tdec, tol=1e-8)


def test_encoder_nested_tensor_inference_zeros_padding(torch):
    """Eval + no grad + batch_first + a left-aligned key padding mask: PyTorch runs nested tensors and the
    padded positions come out as zeros (before the final norm)."""
    rng = np.random.default_rng(13)
    tenc = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2)
    penc = pt.nn.TransformerEncoder(pt.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2)
    copy_weights(penc, tenc)
    penc.eval()
    tenc.eval()
    x = rng.standard_normal((3, 5, 8)).astype(np.float32)
    kpm = np.array([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
    with torch.no_grad():
        to = tenc(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm))
    with pt.no_grad():
        po = penc(pt.tensor(x), src_key_padding_mask=pt.tensor(kpm))
    assert_close(po, to, rtol=1e-5, atol=1e-5)
    assert float(po[1, 3:].abs().max()) == 0.0
    with pt.no_grad():   # not left-aligned: no nested path, no zeros
        kpm2 = np.array([[False] * 5, [True] + [False] * 4, [False] * 5])
        with torch.no_grad():
            to2 = tenc(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm2))
        assert_close(penc(pt.tensor(x), src_key_padding_mask=pt.tensor(kpm2)), to2, rtol=1e-5, atol=1e-5)


def test_transformer_full_model(torch):
    rng = np.random.default_rng(14)
    d, heads, N, S, T = 8, 2, 2, 5, 4
    pm, tm = make(torch, "Transformer", d_model=d, nhead=heads, num_encoder_layers=2, num_decoder_layers=1,
                  dim_feedforward=16, dropout=0.0)
    assert repr(pm) == repr(tm)
    ps, ts = both(torch, rng.standard_normal((S, N, d)))
    ptg, ttg = both(torch, rng.standard_normal((T, N, d)))
    pmask = pt.nn.Transformer.generate_square_subsequent_mask(T, dtype=pt.float64)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(T, dtype=torch.float64)
    kpm = np.array([[False] * S, [False] * (S - 1) + [True]])
    po = pm(ps, ptg, tgt_mask=pmask, src_key_padding_mask=pt.tensor(kpm), memory_key_padding_mask=pt.tensor(kpm))
    to = tm(ts, ttg, tgt_mask=tmask, src_key_padding_mask=torch.tensor(kpm),
            memory_key_padding_mask=torch.tensor(kpm))
    assert_close(po, to, rtol=1e-10, atol=1e-10)
    weighted_sum(po, pt).backward()
    weighted_sum(to, torch).backward()
    assert_close(ps.grad, ts.grad, rtol=1e-8, atol=1e-10)
    assert_close(ptg.grad, ttg.grad, rtol=1e-8, atol=1e-10)
    check_param_grads(pm, tm, tol=1e-8)
    # unbatched
    po1 = pm(ps[:, 0].detach(), ptg[:, 0].detach(), tgt_mask=pmask)
    to1 = tm(ts[:, 0].detach(), ttg[:, 0].detach(), tgt_mask=tmask)
    assert_close(po1, to1, rtol=1e-10, atol=1e-10)


def test_transformer_same_seed_and_errors(torch):
    torch.manual_seed(21)
    tm = torch.nn.Transformer(8, 2, 1, 1, 16)
    pt.manual_seed(21)
    pm = pt.nn.Transformer(8, 2, 1, 1, 16)
    for (k, p), t in zip(pm.named_parameters(), tm.parameters()):
        np.testing.assert_array_equal(to_np(p), to_np(t), err_msg=k)
    assert pm.d_model == 8 and pm.nhead == 2 and pm.batch_first is False
    cases = [((5, 2, 8), (4, 3, 8), False), ((2, 5, 8), (3, 4, 8), True), ((5, 2, 6), (4, 2, 8), False)]
    for s_shape, t_shape, bf in cases:
        tmod = torch.nn.Transformer(8, 2, 1, 1, 16, batch_first=bf)
        pmod = pt.nn.Transformer(8, 2, 1, 1, 16, batch_first=bf)
        with pytest.raises(RuntimeError) as et:
            tmod(torch.zeros(s_shape), torch.zeros(t_shape))
        with pytest.raises(RuntimeError) as ep:
            pmod(pt.zeros(s_shape), pt.zeros(t_shape))
        assert str(ep.value) == str(et.value)


def test_generate_square_subsequent_mask(torch):
    for sz in (1, 2, 5):
        p = pt.nn.Transformer.generate_square_subsequent_mask(sz)
        t = torch.nn.Transformer.generate_square_subsequent_mask(sz)
        assert p.dtype == pt.float32
        np.testing.assert_array_equal(to_np(p), to_np(t))
        assert repr(p) == repr(t)
    p = pt.nn.Transformer.generate_square_subsequent_mask(3, dtype=pt.float64, device="cpu")
    assert p.dtype == pt.float64 and p.device.type == "cpu"
    from pedatorch.nn.modules.transformer import _detect_is_causal_mask
    m = pt.nn.Transformer.generate_square_subsequent_mask(4)
    assert _detect_is_causal_mask(m) is True
    assert _detect_is_causal_mask(m, size=3) is False
    assert _detect_is_causal_mask(pt.zeros(4, 4)) is False
    assert _detect_is_causal_mask(pt.zeros(4, 4), is_causal=True) is True
    assert _detect_is_causal_mask(None) is False


def test_encoder_layer_gradcheck():
    pt.manual_seed(0)
    m = pt.nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0).double()
    x = pt.randn(3, 2, 4, dtype=pt.float64, requires_grad=True)
    mask = pt.nn.Transformer.generate_square_subsequent_mask(3, dtype=pt.float64)

    def f(x, *params):
        return m(x, src_mask=mask)
    assert pt.autograd.gradcheck(f, (x,) + tuple(m.parameters()))
