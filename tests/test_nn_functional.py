"""nn.functional: normalization, dropout, sparse, vision, distance, attention - compared with PyTorch.

Each comparison runs the same inputs and weights through pedatorch and torch: forward values and dtypes,
gradients of inputs and parameters, grad_fn names, running statistics, dropout masks after the same
manual_seed, and error classes/messages.  Every differentiable function is gradchecked in float64.
"""
import itertools
import warnings

import numpy as np
import pytest

import pedatorch as pt
import pedatorch.nn.functional as PF
from conftest import assert_close, gradcheck

RNG = np.random.default_rng(1234)


def R(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def run_both(torch, fn_pt, fn_t, arrays, grad=True, rtol=1e-5, atol=2e-5, gtol=1e-4, check_name=True):
    """Run fn on pedatorch and torch copies of ``arrays`` (None stays None); compare outputs and gradients."""
    ps = [pt.tensor(a, requires_grad=grad and a.dtype.kind == "f") if a is not None else None for a in arrays]
    ts = [torch.tensor(a, requires_grad=grad and a.dtype.kind == "f") if a is not None else None for a in arrays]
    po, to = fn_pt(*ps), fn_t(*ts)
    assert_close(po, to, rtol=rtol, atol=atol)
    if check_name:
        assert type(po.grad_fn).__name__ == type(to.grad_fn).__name__
    if grad and to.requires_grad:
        g = R(*to.shape, dtype=to.detach().numpy().dtype)
        po.backward(pt.tensor(g))
        to.backward(torch.tensor(g))
        for p, t in zip(ps, ts):
            if t is not None and t.requires_grad:
                assert_close(p.grad, t.grad, rtol=gtol, atol=gtol)
    return po, to


def same_error(torch, fn_pt, fn_t):
    with pytest.raises(Exception) as et:
        fn_t()
    with pytest.raises(type(et.value)) as ep:
        fn_pt()
    assert str(ep.value) == str(et.value)


def D(a):
    return pt.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


# ====================================================================== normalization

@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 4, 5)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm(torch, shape, training):
    x, w, b = R(*shape) * 2 + 1, R(3), R(3)
    rm0, rv0 = R(3), np.abs(R(3)) + 0.5
    prm, prv, trm, trv = pt.tensor(rm0), pt.tensor(rv0), torch.tensor(rm0), torch.tensor(rv0)
    for _ in range(3):  # running stats after several training calls
        run_both(torch, lambda x, w, b: PF.batch_norm(x, prm, prv, w, b, training, 0.2),
                 lambda x, w, b: torch.nn.functional.batch_norm(x, trm, trv, w, b, training, 0.2), [x, w, b])
    assert_close(prm, trm)
    assert_close(prv, trv)
    po, _ = run_both(torch, lambda x: PF.batch_norm(x, None if training else prm, None if training else prv,
                                                    training=training),
                     lambda x: torch.nn.functional.batch_norm(x, None if training else trm,
                                                              None if training else trv, training=training), [x])
    assert type(po.grad_fn).__name__ == "NativeBatchNormBackward0"


def test_batch_norm_version_and_errors(torch):
    rm, rv = pt.zeros(3), pt.ones(3)
    F = torch.nn.functional
    trm, trv = torch.zeros(3), torch.ones(3)
    # the running stats change in place, their versions do not (ATen's schema does not mark them written)
    PF.batch_norm(pt.randn(4, 3), rm, rv, training=True)
    F.batch_norm(torch.randn(4, 3), trm, trv, training=True)
    assert (rm._version, rv._version) == (trm._version, trv._version)
    same_error(torch, lambda: PF.batch_norm(pt.randn(1, 3), rm, rv, training=True),
               lambda: F.batch_norm(torch.randn(1, 3), trm, trv, training=True))
    same_error(torch, lambda: PF.batch_norm(pt.randn(2, 3), None, None), lambda: F.batch_norm(torch.randn(2, 3), None, None))
    same_error(torch, lambda: PF.batch_norm(pt.randn(2, 4), rm, rv, training=True),
               lambda: F.batch_norm(torch.randn(2, 4), trm, trv, training=True))
    same_error(torch, lambda: PF.batch_norm(pt.randn(2, 3), rm, rv, pt.randn(4)),
               lambda: F.batch_norm(torch.randn(2, 3), trm, trv, torch.randn(4)))
    same_error(torch, lambda: PF.batch_norm(pt.randn(2, 3), rm, rv, training=True, eps=0.0),
               lambda: F.batch_norm(torch.randn(2, 3), trm, trv, training=True, eps=0.0))
    same_error(torch, lambda: PF.batch_norm(pt.randn(2, 3), rm, rv, training=True, momentum=None),
               lambda: F.batch_norm(torch.randn(2, 3), trm, trv, training=True, momentum=None))


def test_layer_group_instance_norm(torch):
    F = torch.nn.functional
    x = R(4, 6, 5)
    run_both(torch, lambda x, w, b: PF.layer_norm(x, (6, 5), w, b), lambda x, w, b: F.layer_norm(x, (6, 5), w, b),
             [x, R(6, 5), R(6, 5)])
    po, _ = run_both(torch, lambda x: PF.layer_norm(x, [5]), lambda x: F.layer_norm(x, [5]), [x])
    assert type(po.grad_fn).__name__ == "NativeLayerNormBackward0"
    po, _ = run_both(torch, lambda x, w, b: PF.group_norm(x, 3, w, b), lambda x, w, b: F.group_norm(x, 3, w, b),
                     [x, R(6), R(6)])
    assert type(po.grad_fn).__name__ == "NativeGroupNormBackward0"
    run_both(torch, lambda x: PF.group_norm(x, 2), lambda x: F.group_norm(x, 2), [R(2, 4, 3, 3)])
    for use in (True, False):
        rm0, rv0 = R(6), np.abs(R(6)) + 0.5
        prm, prv, trm, trv = pt.tensor(rm0), pt.tensor(rv0), torch.tensor(rm0), torch.tensor(rv0)
        run_both(torch, lambda x, w, b: PF.instance_norm(x, prm, prv, w, b, use),
                 lambda x, w, b: F.instance_norm(x, trm, trv, w, b, use), [x, R(6), R(6)])
        assert_close(prm, trm)
        assert_close(prv, trv)
    run_both(torch, lambda x: PF.instance_norm(x), lambda x: F.instance_norm(x), [R(2, 3, 4, 4)])


def test_layer_group_norm_errors(torch):
    F = torch.nn.functional
    same_error(torch, lambda: PF.layer_norm(pt.randn(4, 3, 5), (4,)), lambda: F.layer_norm(torch.randn(4, 3, 5), (4,)))
    same_error(torch, lambda: PF.layer_norm(pt.randn(4, 5), (5,), pt.randn(4)),
               lambda: F.layer_norm(torch.randn(4, 5), (5,), torch.randn(4)))
    same_error(torch, lambda: PF.layer_norm(pt.randn(4, 5), 5), lambda: F.layer_norm(torch.randn(4, 5), 5))
    same_error(torch, lambda: PF.group_norm(pt.randn(4, 3, 5), 2), lambda: F.group_norm(torch.randn(4, 3, 5), 2))
    same_error(torch, lambda: PF.group_norm(pt.randn(4), 2), lambda: F.group_norm(torch.randn(4), 2))
    same_error(torch, lambda: PF.group_norm(pt.randn(3, 4), 2, pt.randn(4, 1)),
               lambda: F.group_norm(torch.randn(3, 4), 2, torch.randn(4, 1)))
    same_error(torch, lambda: PF.rms_norm(pt.randn(4, 5), (4,)), lambda: F.rms_norm(torch.randn(4, 5), (4,)))
    same_error(torch, lambda: PF.local_response_norm(pt.randn(4, 5), 2),
               lambda: F.local_response_norm(torch.randn(4, 5), 2))


def test_rms_lrn_normalize(torch):
    F = torch.nn.functional
    x = R(4, 3, 5)
    run_both(torch, lambda x: PF.rms_norm(x, (5,)), lambda x: F.rms_norm(x, (5,)), [x])
    run_both(torch, lambda x, w: PF.rms_norm(x, (3, 5), w, 1e-3), lambda x, w: F.rms_norm(x, (3, 5), w, 1e-3),
             [x, R(3, 5)])
    x4 = R(2, 7, 3, 4)
    for size in (1, 2, 3, 4):
        run_both(torch, lambda x: PF.local_response_norm(x, size, 0.1), lambda x: F.local_response_norm(x, size, 0.1),
                 [x4])
        run_both(torch, lambda x: PF.local_response_norm(x, size, 0.1, 0.5, 2.0),
                 lambda x: F.local_response_norm(x, size, 0.1, 0.5, 2.0), [x4[:, :, 0]])
    run_both(torch, lambda x: PF.normalize(x), lambda x: F.normalize(x), [x4])
    run_both(torch, lambda x: PF.normalize(x, 3, 2), lambda x: F.normalize(x, 3, 2), [x4])


def test_normalization_gradcheck():
    x, w, b = RNG.standard_normal((4, 3, 2)), RNG.standard_normal(3), RNG.standard_normal(3)
    assert pt.autograd.gradgradcheck(lambda x, w, b: PF.batch_norm(x, None, None, w, b, True), (D(x), D(w), D(b)))
    rm, rv = pt.zeros(3, dtype=pt.float64), pt.ones(3, dtype=pt.float64)
    assert pt.autograd.gradgradcheck(lambda x, w, b: PF.batch_norm(x, rm, rv, w, b, False), (D(x), D(w), D(b)))
    assert pt.autograd.gradgradcheck(lambda x, w, b: PF.layer_norm(x, (3, 2), w, b),
                                     (D(x), D(RNG.standard_normal((3, 2))), D(RNG.standard_normal((3, 2)))))
    assert pt.autograd.gradgradcheck(lambda x, w, b: PF.group_norm(x.reshape(2, 6, 2), 3, w, b),
                                     (D(x), D(RNG.standard_normal(6)), D(RNG.standard_normal(6))))
    assert gradcheck(lambda x: PF.instance_norm(x), x)
    assert gradcheck(lambda x: PF.local_response_norm(x, 2), x)
    assert gradcheck(lambda x: PF.rms_norm(x, (2,)), x)
    assert gradcheck(lambda x: PF.normalize(x), x)


# ====================================================================== dropout

@pytest.mark.parametrize("name,args,shape", [
    ("dropout", (0.3, True), (5, 7)), ("dropout", (0.5, True), (3, 4, 33)), ("dropout", (1.0,), (3, 3)),
    ("alpha_dropout", (0.3, True), (5, 7)), ("feature_alpha_dropout", (0.3, True), (4, 5, 6)),
    ("dropout1d", (0.4,), (4, 5, 6)), ("dropout1d", (0.4,), (5, 6)), ("dropout2d", (0.4,), (4, 5, 6, 2)),
    ("dropout3d", (0.4,), (4, 5, 6, 2, 2)), ("dropout3d", (0.4,), (5, 6, 2, 2))])
def test_dropout_masks_match(torch, name, args, shape):
    torch.manual_seed(7)
    pt.manual_seed(7)
    run_both(torch, lambda x: getattr(PF, name)(x, *args), lambda x: getattr(torch.nn.functional, name)(x, *args),
             [R(*shape)], rtol=1e-6, atol=1e-6)


def test_dropout_layout_inplace_eval(torch):
    x = R(6, 5)
    torch.manual_seed(3)
    pt.manual_seed(3)
    assert_close(PF.dropout(pt.tensor(x).t(), 0.5), torch.nn.functional.dropout(torch.tensor(x).t(), 0.5))
    px, tx = pt.tensor(x), torch.tensor(x)
    assert PF.dropout(px, 0.5, inplace=True) is px
    torch.nn.functional.dropout(tx, 0.5, inplace=True)
    assert_close(px, tx)
    assert PF.dropout(px, 0.5, training=False) is px
    assert PF.dropout(px, 0.0) is px
    y = PF.dropout(pt.tensor(x, requires_grad=True), 0.2)
    assert type(y.grad_fn).__name__ == "MulBackward0"


def test_dropout_errors(torch):
    F = torch.nn.functional
    same_error(torch, lambda: PF.dropout(pt.randn(3), 1.5), lambda: F.dropout(torch.randn(3), 1.5))
    same_error(torch, lambda: PF.alpha_dropout(pt.randn(3), -0.1), lambda: F.alpha_dropout(torch.randn(3), -0.1))
    same_error(torch, lambda: PF.dropout(pt.arange(3), 0.5), lambda: F.dropout(torch.arange(3), 0.5))
    same_error(torch, lambda: PF.feature_alpha_dropout(pt.randn(3), 0.5, True),
               lambda: F.feature_alpha_dropout(torch.randn(3), 0.5, True))
    same_error(torch, lambda: PF.dropout1d(pt.randn(3)), lambda: F.dropout1d(torch.randn(3)))


def test_dropout_gradcheck():
    x = RNG.standard_normal((4, 5))
    for fn in (lambda t: PF.dropout(t, 0.4), lambda t: PF.alpha_dropout(t, 0.4, True),
               lambda t: PF.dropout2d(t.reshape(2, 2, 5), 0.4)):
        def seeded(t, fn=fn):
            pt.manual_seed(0)
            return fn(t)
        assert gradcheck(seeded, x)


# ====================================================================== sparse

@pytest.mark.parametrize("kw", [{}, {"padding_idx": 2}, {"padding_idx": -3}, {"scale_grad_by_freq": True}])
def test_embedding(torch, kw):
    W, idx = R(10, 4), RNG.integers(0, 10, (3, 5))
    po, _ = run_both(torch, lambda w: PF.embedding(pt.tensor(idx), w, **kw),
                     lambda w: torch.nn.functional.embedding(torch.tensor(idx), w, **kw), [W])
    assert type(po.grad_fn).__name__ == "EmbeddingBackward0"


def test_embedding_max_norm(torch):
    W, idx = R(10, 4), RNG.integers(0, 10, (3, 5))
    for kw in ({"max_norm": 1.0}, {"max_norm": 1.5, "norm_type": 1.0}):
        pw, tw = pt.tensor(W), torch.tensor(W)
        assert_close(PF.embedding(pt.tensor(idx), pw, **kw), torch.nn.functional.embedding(torch.tensor(idx), tw, **kw))
        assert_close(pw, tw)  # renormalised in place


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag(torch, mode):
    W, idx, off = R(10, 4), RNG.integers(0, 10, 9), np.array([0, 2, 2, 5, 9])
    F = torch.nn.functional
    cases = [{}, {"padding_idx": int(idx[0])}, {"include_last_offset": True}]
    for kw in cases:
        run_both(torch, lambda w: PF.embedding_bag(pt.tensor(idx), w, pt.tensor(off), mode=mode, **kw),
                 lambda w: F.embedding_bag(torch.tensor(idx), w, torch.tensor(off), mode=mode, **kw), [W])
    if mode == "sum":
        run_both(torch, lambda w, p: PF.embedding_bag(pt.tensor(idx), w, pt.tensor(off), mode=mode,
                                                      per_sample_weights=p),
                 lambda w, p: F.embedding_bag(torch.tensor(idx), w, torch.tensor(off), mode=mode,
                                              per_sample_weights=p), [W, RNG.random(9).astype(np.float32)])
    i2 = RNG.integers(0, 10, (3, 4))
    run_both(torch, lambda w: PF.embedding_bag(pt.tensor(i2), w, mode=mode),
             lambda w: F.embedding_bag(torch.tensor(i2), w, mode=mode), [W])


def test_sparse_errors(torch):
    F = torch.nn.functional
    w, tw = pt.randn(10, 3), torch.randn(10, 3)
    same_error(torch, lambda: PF.embedding(pt.tensor([1, 14]), w), lambda: F.embedding(torch.tensor([1, 14]), tw))
    same_error(torch, lambda: PF.embedding(pt.tensor([1., 2]), w), lambda: F.embedding(torch.tensor([1., 2]), tw))
    same_error(torch, lambda: PF.embedding(pt.tensor([1]), w, padding_idx=10),
               lambda: F.embedding(torch.tensor([1]), tw, padding_idx=10))
    same_error(torch, lambda: PF.embedding(pt.tensor([1]), pt.randn(10)),
               lambda: F.embedding(torch.tensor([1]), torch.randn(10)))
    i, o = [1, 2, 4, 5], [1, 2]
    same_error(torch, lambda: PF.embedding_bag(pt.tensor(i), w, pt.tensor(o)),
               lambda: F.embedding_bag(torch.tensor(i), tw, torch.tensor(o)))
    same_error(torch, lambda: PF.embedding_bag(pt.tensor(i), w, pt.tensor([0, 5])),
               lambda: F.embedding_bag(torch.tensor(i), tw, torch.tensor([0, 5])))
    same_error(torch, lambda: PF.embedding_bag(pt.tensor(i), w, pt.tensor([0, 2]), padding_idx=12),
               lambda: F.embedding_bag(torch.tensor(i), tw, torch.tensor([0, 2]), padding_idx=12))
    same_error(torch, lambda: PF.embedding_bag(pt.tensor(i), w, pt.tensor([0, 2]), mode="mean",
                                               per_sample_weights=pt.rand(4)),
               lambda: F.embedding_bag(torch.tensor(i), tw, torch.tensor([0, 2]), mode="mean",
                                       per_sample_weights=torch.rand(4)))


def test_one_hot(torch):
    F = torch.nn.functional
    for args in (([[1, 2], [0, 4]],), ([1, 2], 5), (2, 4)):
        a = pt.nn.functional.one_hot(pt.tensor(args[0]), *args[1:])
        b = F.one_hot(torch.tensor(args[0]), *args[1:])
        assert_close(a, b)
    assert PF.one_hot(pt.tensor([], dtype=pt.int64), 3).shape == (0, 3)
    for data, extra, dtype in (([1, 2], (2,), "int64"), ([1, -1], (), "int64"), ([1, 2], (), "int32"),
                               ([], (), "int64"), ([1, 2], (0,), "int64")):
        same_error(torch, lambda: PF.one_hot(pt.tensor(data, dtype=getattr(pt, dtype)), *extra),
                   lambda: F.one_hot(torch.tensor(data, dtype=getattr(torch, dtype)), *extra))


def test_sparse_gradcheck():
    W, idx = RNG.standard_normal((10, 4)), RNG.integers(0, 10, (3, 5))
    idx1, off = pt.tensor(RNG.integers(0, 10, 9)), pt.tensor([0, 2, 2, 5, 9])
    assert pt.autograd.gradgradcheck(lambda w: PF.embedding(pt.tensor(idx), w, padding_idx=1,
                                                            scale_grad_by_freq=True), (D(W),))
    assert pt.autograd.gradgradcheck(lambda w, p: PF.embedding_bag(idx1, w, off, mode="sum", per_sample_weights=p),
                                     (D(W), D(RNG.random(9))))
    assert gradcheck(lambda w: PF.embedding_bag(idx1, w, off, mode="mean"), W)
    assert gradcheck(lambda w: PF.embedding_bag(idx1, w, off, mode="max"), W)


# ====================================================================== vision

_INTERP = []
for _mode, _nd in [("nearest", 3), ("nearest", 4), ("nearest", 5), ("nearest-exact", 3), ("nearest-exact", 4),
                   ("linear", 3), ("bilinear", 4), ("bicubic", 4), ("trilinear", 5), ("area", 3), ("area", 4),
                   ("area", 5)]:
    for _spec in [dict(size=7), dict(size=3), dict(scale_factor=2), dict(scale_factor=1.7), dict(scale_factor=0.6),
                  dict(scale_factor=2.5, recompute_scale_factor=True), dict(size=1)]:
        for _ac in ([None] if _mode in ("nearest", "nearest-exact", "area") else [False, True]):
            _INTERP.append((_mode, _nd, _spec, _ac, False))
for _mode in ["bilinear", "bicubic"]:
    for _spec in [dict(size=(3, 5)), dict(size=(9, 2)), dict(scale_factor=0.3), dict(scale_factor=1.5)]:
        for _ac in [False, True]:
            _INTERP.append((_mode, 4, _spec, _ac, True))
_INTERP += [("lanczos", 4, dict(size=(4, 5)), False, True), ("lanczos", 4, dict(size=(13, 20)), False, True)]


@pytest.mark.parametrize("mode,nd,spec,ac,aa", _INTERP)
def test_interpolate(torch, mode, nd, spec, ac, aa):
    shape = [2, 3] + [5, 4, 6][:nd - 2] if mode != "lanczos" else [2, 3, 9, 11]
    kw = dict(spec, mode=mode, align_corners=ac, antialias=aa)
    run_both(torch, lambda x: PF.interpolate(x, **kw), lambda x: torch.nn.functional.interpolate(x, **kw),
             [R(*shape)], atol=3e-5)


def test_interpolate_errors(torch):
    F = torch.nn.functional
    x, tx = pt.randn(1, 2, 4, 4), torch.randn(1, 2, 4, 4)
    for kw in (dict(size=3, mode="linear"), dict(size=3, mode="nearest", align_corners=True),
               dict(size=3, scale_factor=2), dict(), dict(size=(3,)), dict(size=(3, 2.0)),
               dict(size=3, mode="nearest", antialias=True), dict(size=0, mode="bilinear"),
               dict(size=3, mode="lanczos"), dict(size=3, mode="bogus"), dict(size=3, recompute_scale_factor=True)):
        same_error(torch, lambda: PF.interpolate(x, **kw), lambda: F.interpolate(tx, **kw))
    same_error(torch, lambda: PF.interpolate(pt.randn(1, 2, 4), size=3, mode="bilinear"),
               lambda: F.interpolate(torch.randn(1, 2, 4), size=3, mode="bilinear"))


def test_pixel_shuffle(torch):
    F = torch.nn.functional
    po, _ = run_both(torch, lambda x: PF.pixel_shuffle(x, 2), lambda x: F.pixel_shuffle(x, 2), [R(1, 8, 2, 3)])
    assert type(po.grad_fn).__name__ == "PixelShuffleBackward0"
    run_both(torch, lambda x: PF.pixel_unshuffle(x, 2), lambda x: F.pixel_unshuffle(x, 2), [R(2, 1, 2, 4, 6)])
    same_error(torch, lambda: PF.pixel_shuffle(pt.randn(1, 7, 2, 3), 2), lambda: F.pixel_shuffle(torch.randn(1, 7, 2, 3), 2))
    same_error(torch, lambda: PF.pixel_unshuffle(pt.randn(1, 2, 5, 6), 2),
               lambda: F.pixel_unshuffle(torch.randn(1, 2, 5, 6), 2))
    same_error(torch, lambda: PF.pixel_shuffle(pt.randn(2, 3), 2), lambda: F.pixel_shuffle(torch.randn(2, 3), 2))


def test_pad_reexport(torch):
    run_both(torch, lambda x: PF.pad(x, (1, 2, 0, 1), mode="reflect"),
             lambda x: torch.nn.functional.pad(x, (1, 2, 0, 1), mode="reflect"), [R(1, 2, 3, 4)])


_GRID = [(nd, m, p, ac) for nd, m, p, ac in itertools.product([4, 5], ["bilinear", "nearest", "bicubic"],
                                                             ["zeros", "border", "reflection"], [False, True])
         if not (nd == 5 and m == "bicubic")]


@pytest.mark.parametrize("nd,mode,padding,ac", _GRID)
def test_grid_sample(torch, nd, mode, padding, ac):
    x = R(2, 3, 4, 5) if nd == 4 else R(2, 3, 3, 4, 5)
    g = (RNG.random((2, 3, 4, 2) if nd == 4 else (2, 2, 3, 4, 3)) * 3 - 1.5).astype(np.float32)
    run_both(torch, lambda x, g: PF.grid_sample(x, g, mode, padding, ac),
             lambda x, g: torch.nn.functional.grid_sample(x, g, mode, padding, ac), [x, g], atol=3e-5)


def test_affine_grid(torch):
    for size, th in [((2, 3, 4, 5), R(2, 2, 3)), ((2, 3, 2, 4, 5), R(2, 3, 4)), ((2, 3, 1, 5), R(2, 2, 3))]:
        for ac in (False, True):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                po, _ = run_both(torch, lambda t: PF.affine_grid(t, size, ac),
                                 lambda t: torch.nn.functional.affine_grid(t, size, ac), [th])
    F = torch.nn.functional
    same_error(torch, lambda: PF.affine_grid(pt.randn(2, 2, 3), (2, 3, 4), False),
               lambda: F.affine_grid(torch.randn(2, 2, 3), (2, 3, 4), False))
    same_error(torch, lambda: PF.affine_grid(pt.randn(2, 3, 3), (2, 3, 4, 5), False),
               lambda: F.affine_grid(torch.randn(2, 3, 3), (2, 3, 4, 5), False))
    same_error(torch, lambda: PF.grid_sample(pt.randn(2, 3, 4, 5), pt.rand(1, 3, 3, 2), align_corners=False),
               lambda: F.grid_sample(torch.randn(2, 3, 4, 5), torch.rand(1, 3, 3, 2), align_corners=False))
    same_error(torch, lambda: PF.grid_sample(pt.randn(2, 3, 4, 5), pt.rand(2, 3, 3, 3), align_corners=False),
               lambda: F.grid_sample(torch.randn(2, 3, 4, 5), torch.rand(2, 3, 3, 3), align_corners=False))


def test_vision_gradcheck():
    x = RNG.standard_normal((1, 1, 3, 4))
    for m in ("nearest", "bilinear", "bicubic", "area"):
        assert pt.autograd.gradgradcheck(lambda x: PF.interpolate(x, size=(5, 3), mode=m), (D(x),))
    assert gradcheck(lambda x: PF.interpolate(x, size=(2, 3), mode="bilinear", antialias=True), x)
    assert gradcheck(lambda x: PF.interpolate(x[0], scale_factor=1.5, mode="linear", align_corners=True), x)
    assert pt.autograd.gradgradcheck(lambda x: PF.pixel_shuffle(x, 2), (D(RNG.standard_normal((1, 8, 2, 3))),))
    g = RNG.random((1, 2, 2, 2)) * 2.6 - 1.3
    for mode, padding in (("bilinear", "zeros"), ("bilinear", "border"), ("bilinear", "reflection"),
                          ("bicubic", "zeros"), ("bicubic", "reflection")):
        assert pt.autograd.gradgradcheck(lambda x, g: PF.grid_sample(x, g, mode, padding, True), (D(x), D(g)))
    assert gradcheck(lambda x, g: PF.grid_sample(x, g, "nearest", "zeros", False), x, g)
    g3 = RNG.random((1, 2, 2, 2, 3)) * 2.6 - 1.3
    assert gradcheck(lambda x, g: PF.grid_sample(x.unsqueeze(2).expand(1, 1, 2, 3, 4), g, "bilinear", "border", False),
                     x, g3)
    assert gradcheck(lambda t: PF.affine_grid(t, (1, 2, 3, 4), False), RNG.standard_normal((1, 2, 3)))


# ====================================================================== distance

def test_distances(torch):
    F = torch.nn.functional
    a, b = R(3, 5, 4), R(5, 4)
    b[1] = a[0, 1]
    po, _ = run_both(torch, lambda x, y: PF.cosine_similarity(x, y, -1), lambda x, y: F.cosine_similarity(x, y, -1), [a, b])
    run_both(torch, lambda x, y: PF.cosine_similarity(x, y * 0, -1), lambda x, y: F.cosine_similarity(x, y * 0, -1),
             [a, b])
    run_both(torch, lambda x, y: PF.pairwise_distance(x, y), lambda x, y: F.pairwise_distance(x, y), [a, b],
             check_name=False)  # pedatorch's norm records LinalgVectorNormBackward0, torch NormBackward1
    run_both(torch, lambda x, y: PF.pairwise_distance(x, y, 1, keepdim=True),
             lambda x, y: F.pairwise_distance(x, y, 1, keepdim=True), [a, b], check_name=False)
    rows = np.r_[b, b[:1]]
    for p in (0, 1, 1.5, 2, 3, float("inf"), 0.5):
        run_both(torch, lambda x: PF.pdist(x, p), lambda x: F.pdist(x, p), [rows], gtol=2e-4)
        run_both(torch, lambda x, y: PF.cdist(x, y, p), lambda x, y: torch.cdist(x, y, p), [a, b[:3]], gtol=2e-4)
    run_both(torch, lambda x, y: PF.cdist(x, y), lambda x, y: torch.cdist(x, y),
             [R(2, 30, 3, dtype=np.float64), R(1, 20, 3, dtype=np.float64)])


def test_distance_errors(torch):
    F = torch.nn.functional
    x, tx = pt.randn(3, 4), torch.randn(3, 4)
    same_error(torch, lambda: PF.cosine_similarity(pt.arange(4).view(2, 2), pt.arange(4).view(2, 2)),
               lambda: F.cosine_similarity(torch.arange(4).view(2, 2), torch.arange(4).view(2, 2)))
    same_error(torch, lambda: PF.cosine_similarity(x, pt.randn(2, 4)), lambda: F.cosine_similarity(tx, torch.randn(2, 4)))
    same_error(torch, lambda: PF.cosine_similarity(x, x, dim=3), lambda: F.cosine_similarity(tx, tx, dim=3))
    same_error(torch, lambda: PF.pdist(x, p=-1), lambda: F.pdist(tx, p=-1))
    same_error(torch, lambda: PF.pdist(pt.randn(2, 3, 4)), lambda: F.pdist(torch.randn(2, 3, 4)))
    same_error(torch, lambda: PF.cdist(x, pt.randn(3, 5)), lambda: torch.cdist(tx, torch.randn(3, 5)))
    same_error(torch, lambda: PF.cdist(pt.randn(4), x), lambda: torch.cdist(torch.randn(4), tx))
    same_error(torch, lambda: PF.cdist(x, x, p=-1), lambda: torch.cdist(tx, tx, p=-1))


def test_distance_gradcheck():
    a, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((4, 4))
    for p in (1, 1.5, 2, 3, float("inf")):
        assert pt.autograd.gradgradcheck(lambda x: PF.pdist(x, p), (D(b),))
        assert pt.autograd.gradgradcheck(lambda x, y: PF.cdist(x, y, p), (D(a), D(b[2:4])))
    assert pt.autograd.gradgradcheck(lambda x, y: PF.cosine_similarity(x, y), (D(a), D(a[::-1].copy())))
    assert gradcheck(lambda x, y: PF.pairwise_distance(x, y), a, b[:3])


# ====================================================================== attention

_m = np.zeros((6, 7), bool)
_m[:, :3] = True
_m[2] = False
_mf = np.zeros((6, 7), np.float32)
_mf[2] = -np.inf
_mf[3, 1] = -np.inf
_SDPA = [
    ((2, 4, 6, 8), (2, 4, 7, 8), (2, 4, 7, 8), {}),
    ((2, 4, 6, 8), (2, 4, 7, 8), (2, 4, 7, 8), {"is_causal": True}),
    ((2, 4, 6, 8), (2, 4, 7, 8), (2, 4, 7, 8), {"scale": 0.3}),
    ((2, 4, 6, 8), (2, 4, 7, 8), (2, 4, 7, 8), {"scale": -0.3}),
    ((2, 4, 6, 8), (2, 4, 7, 8), (2, 4, 7, 8), {"attn_mask": RNG.random((6, 7)) > 0.3}),
    ((2, 4, 6, 8), (2, 4, 7, 8), (2, 4, 7, 8), {"attn_mask": RNG.random((6, 7)) > 0.6, "is_causal": True}),
    ((2, 4, 6, 8), (2, 4, 7, 8), (2, 4, 7, 8), {"attn_mask": R(2, 1, 6, 7)}),
    ((2, 4, 6, 8), (2, 4, 7, 8), (2, 4, 7, 8), {"attn_mask": R(4, 6, 7)}),
    ((2, 4, 6, 8), (2, 4, 7, 8), (2, 4, 7, 5), {}),
    ((2, 4, 6, 8), (2, 2, 7, 8), (2, 2, 7, 8), {"enable_gqa": True}),
    ((4, 6, 8), (2, 7, 8), (2, 7, 8), {"enable_gqa": True}),
    ((4, 6, 8), (4, 7, 8), (4, 7, 8), {"attn_mask": R(6, 7)}),
    ((4, 6, 8), (4, 7, 8), (4, 7, 8), {"is_causal": True}),
    ((6, 8), (7, 8), (7, 3), {}),
    ((1, 2, 4, 6, 8), (1, 2, 4, 7, 8), (1, 2, 4, 7, 8), {}),
    ((2, 4, 6, 8), (2, 4, 7, 8), (2, 4, 7, 8), {"attn_mask": _m}),
    ((4, 6, 8), (4, 7, 8), (4, 7, 8), {"attn_mask": _m}),
    ((2, 4, 6, 8), (2, 4, 7, 8), (2, 4, 7, 8), {"attn_mask": _mf}),
    ((4, 6, 8), (4, 7, 8), (4, 7, 8), {"attn_mask": _mf}),
]


@pytest.mark.parametrize("qs,ks,vs,kw", _SDPA)
def test_sdpa(torch, qs, ks, vs, kw):
    def call(lib, F, mask_lib):
        def f(q, k, v):
            kk = dict(kw)
            if "attn_mask" in kk:
                kk["attn_mask"] = mask_lib.tensor(kk["attn_mask"])
            return F.scaled_dot_product_attention(q, k, v, **kk)
        return f
    run_both(torch, call(pt, PF, pt), call(torch, torch.nn.functional, torch), [R(*qs), R(*ks), R(*vs)])


def test_sdpa_dropout_and_errors(torch):
    F = torch.nn.functional
    torch.manual_seed(3)
    pt.manual_seed(3)
    run_both(torch, lambda q, k, v: PF.scaled_dot_product_attention(q, k, v, dropout_p=0.3),
             lambda q, k, v: F.scaled_dot_product_attention(q, k, v, dropout_p=0.3), [R(2, 4, 6, 8), R(2, 4, 7, 8),
                                                                                        R(2, 4, 7, 8)])
    q, k, v = R(2, 4, 6, 8), R(2, 4, 7, 8), R(2, 4, 7, 8)
    P, T = [pt.tensor(a) for a in (q, k, v)], [torch.tensor(a) for a in (q, k, v)]
    same_error(torch, lambda: PF.scaled_dot_product_attention(*P, attn_mask=pt.ones(6, 7, dtype=pt.int64)),
               lambda: F.scaled_dot_product_attention(*T, attn_mask=torch.ones(6, 7, dtype=torch.long)))
    same_error(torch, lambda: PF.scaled_dot_product_attention(P[0], P[1], P[2].double()),
               lambda: F.scaled_dot_product_attention(T[0], T[1], T[2].double()))
    same_error(torch, lambda: PF.scaled_dot_product_attention(P[0][0], P[1][0], P[2][0], attn_mask=pt.ones(6, 7) > 0,
                                                              is_causal=True),
               lambda: F.scaled_dot_product_attention(T[0][0], T[1][0], T[2][0], attn_mask=torch.ones(6, 7) > 0,
                                                      is_causal=True))
    same_error(torch, lambda: PF.scaled_dot_product_attention(P[0], pt.randn(2, 3, 7, 8), pt.randn(2, 3, 7, 8),
                                                              enable_gqa=True),
               lambda: F.scaled_dot_product_attention(T[0], torch.randn(2, 3, 7, 8), torch.randn(2, 3, 7, 8),
                                                      enable_gqa=True))


def test_sdpa_gradcheck():
    q, k, v = RNG.standard_normal((1, 2, 3, 4)), RNG.standard_normal((1, 2, 5, 4)), RNG.standard_normal((1, 2, 5, 4))
    m = pt.tensor(_m[:3, :5])
    for fn in (lambda q, k, v: PF.scaled_dot_product_attention(q, k, v, is_causal=True),
               lambda q, k, v: PF.scaled_dot_product_attention(q, k, v, attn_mask=m),
               lambda q, k, v: PF.scaled_dot_product_attention(q, k[:, :1], v[:, :1], enable_gqa=True),
               lambda q, k, v: PF.scaled_dot_product_attention(q[0], k[0], v[0], is_causal=True)):
        assert pt.autograd.gradgradcheck(fn, (D(q), D(k), D(v)))


E_, H_, L_, S_, N_ = 8, 2, 5, 6, 3


def _mha_case(torch, selfattn=True, crossKV=False, unbatched=False, sep=False, bias=True, bkv=False, zero=False,
              need_weights=True, avg=True, am=None, kpm=None, training=False, dp=0.0, causal=False):
    E, L, S, N = E_, L_, S_, N_
    qa = R(L, N, E) if not unbatched else R(L, E)
    ka = qa if selfattn else (R(S, N, E) if not unbatched else R(S, E))
    va = ka if (selfattn or crossKV) else (R(S, N, E) if not unbatched else R(S, E))
    arrs = dict(ipw=R(3 * E, E), ipb=R(3 * E) if bias else None, bk=R(1, 1, E) if bkv else None,
                bv=R(1, 1, E) if bkv else None, opw=R(E, E), opb=R(E) if bias else None, qw=R(E, E), kw=R(E, E),
                vw=R(E, E))
    g = R(*((L, N, E) if not unbatched else (L, E)))
    results = []
    for lib, F in ((pt, PF), (torch, torch.nn.functional)):
        t = {k: (lib.tensor(v, requires_grad=True) if v is not None else None) for k, v in arrs.items()}
        q = lib.tensor(qa, requires_grad=True)
        k = q if selfattn else lib.tensor(ka, requires_grad=True)
        v = k if (selfattn or crossKV) else lib.tensor(va, requires_grad=True)
        lib.manual_seed(5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            o, w = F.multi_head_attention_forward(
                q, k, v, E, H_, None if sep else t["ipw"], t["ipb"], t["bk"], t["bv"], zero, dp, t["opw"], t["opb"],
                training=training, key_padding_mask=None if kpm is None else lib.tensor(kpm),
                need_weights=need_weights, attn_mask=None if am is None else lib.tensor(am),
                use_separate_proj_weight=sep, q_proj_weight=t["qw"], k_proj_weight=t["kw"], v_proj_weight=t["vw"],
                average_attn_weights=avg, is_causal=causal)
        o.backward(lib.tensor(g))
        results.append((o, w, [q, k, v] + [t[n] for n in sorted(t)]))
    (po, pw, pg), (to, tw, tg) = results
    assert_close(po, to, atol=3e-5)
    assert (pw is None) == (tw is None)
    if tw is not None:
        assert_close(pw, tw, atol=3e-5)
    assert type(po.grad_fn).__name__ == type(to.grad_fn).__name__
    for a, b in zip(pg, tg):
        if b is not None and b.grad is not None:
            assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("need_weights", [True, False])
def test_multi_head_attention_forward(torch, need_weights):
    nw = need_weights
    L, N = L_, N_
    _mha_case(torch, need_weights=nw)
    _mha_case(torch, selfattn=False, crossKV=True, need_weights=nw)
    _mha_case(torch, selfattn=False, need_weights=nw)
    _mha_case(torch, unbatched=True, need_weights=nw)
    _mha_case(torch, unbatched=True, selfattn=False, need_weights=nw, am=R(H_, L, S_))
    _mha_case(torch, sep=True, selfattn=False, need_weights=nw)
    _mha_case(torch, bias=False, need_weights=nw)
    _mha_case(torch, bkv=True, zero=True, need_weights=nw, am=R(L, L), kpm=RNG.random((N, L)) > 0.7)
    _mha_case(torch, need_weights=nw, am=RNG.random((L, L)) > 0.8)
    _mha_case(torch, need_weights=nw, am=R(N * H_, L, L))
    _mha_case(torch, need_weights=nw, kpm=RNG.random((N, L)) > 0.7)
    _mha_case(torch, need_weights=nw, kpm=R(N, L))
    _mha_case(torch, need_weights=nw, avg=False)
    _mha_case(torch, need_weights=nw, am=np.triu(np.full((L, L), -np.inf, np.float32), 1), causal=True)
    _mha_case(torch, need_weights=nw, training=True, dp=0.3)


def test_mha_errors(torch):
    E = E_
    q = pt.randn(L_, N_, E)
    w, ow = pt.randn(3 * E, E), pt.randn(E, E)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 6"):
        PF.multi_head_attention_forward(q, q, q, 6, 2, w, None, None, None, False, 0.0, ow, None)
    with pytest.raises(AssertionError, match="embed_dim 8 not divisible by num_heads 3"):
        PF.multi_head_attention_forward(q, q, q, 8, 3, w, None, None, None, False, 0.0, ow, None)
    with pytest.raises(RuntimeError, match="The shape of the 2D attn_mask is"):
        PF.multi_head_attention_forward(q, q, q, 8, 2, w, None, None, None, False, 0.0, ow, None,
                                        attn_mask=pt.zeros(2, 2))
    with pytest.raises(AssertionError, match="query should be unbatched 2D or batched 3D tensor"):
        PF.multi_head_attention_forward(q[0, 0], q[0, 0], q[0, 0], 8, 2, w, None, None, None, False, 0.0, ow, None)
