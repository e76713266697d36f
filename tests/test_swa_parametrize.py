"""optim.swa_utils (AveragedModel, SWALR, update_bn, the averaging functions) and nn.utils.parametrize /
nn.utils.parametrizations (weight_norm, spectral_norm, orthogonal) compared with PyTorch on the same inputs:
values after several steps, state dict keys, gradients reaching ``original``, errors; and gradcheck."""
import copy
import pickle
import warnings

import numpy as np
import pytest

import pedatorch as pt
from pedatorch.nn.utils import parametrizations as PZ
from pedatorch.nn.utils import parametrize as P
from pedatorch.optim import swa_utils as S
from conftest import assert_close, gradcheck, to_np

rng = np.random.default_rng(3)


def copy_weights(torch, ours, theirs):
    """Give the torch module ``theirs`` the parameters and buffers of the pedatorch module ``ours``."""
    assert list(theirs.state_dict()) == list(ours.state_dict())
    theirs.load_state_dict({k: torch.tensor(to_np(v)) for k, v in ours.state_dict().items()})


def same_state(ours, theirs, rtol=1e-5, atol=1e-6):
    """Same state-dict keys, in the same order, with close values and the same dtypes."""
    so, st = ours.state_dict(), theirs.state_dict()
    assert list(so) == list(st)
    for k in st:
        assert_close(so[k], st[k], rtol=rtol, atol=atol)


def raises_same(torch, fn):
    """``fn(lib)`` raises the same exception class with the same message on both libraries."""
    errs = []
    for lib in (pt, torch):
        with pytest.raises(Exception) as info:
            fn(lib)
        errs.append(info.value)
    assert type(errs[0]).__name__ == type(errs[1]).__name__, errs
    assert str(errs[0]) == str(errs[1]), errs


def net(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(), lib.nn.Linear(4, 2))


def twin_nets(torch):
    ours, theirs = net(pt), net(torch)
    copy_weights(torch, ours, theirs)
    return ours, theirs


def perturb_and_run(torch, ours, theirs, seed):
    """One fake 'training step' on both: new random weights, then a forward in train mode (moves the
    BatchNorm statistics)."""
    r = np.random.default_rng(seed)
    for (_, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        w = r.standard_normal(tuple(q.shape)).astype("float32")
        with pt.no_grad():
            p.copy_(pt.tensor(w))
        with torch.no_grad():
            q.copy_(torch.tensor(w))
    x = r.standard_normal((5, 3)).astype("float32")
    ours(pt.tensor(x))
    theirs(torch.tensor(x))


# ================================================================ AveragedModel
AVG_CASES = [
    ("swa", {}),
    ("swa-buffers", dict(use_buffers=True)),
    ("ema-avg_fn", dict(avg_fn="ema")),
    ("ema-avg_fn-buffers", dict(avg_fn="ema", use_buffers=True)),
    ("ema-multi", dict(multi_avg_fn="ema")),
    ("ema-multi-buffers", dict(multi_avg_fn="ema", use_buffers=True)),
    ("swa-multi", dict(multi_avg_fn="swa")),
    ("swa-avg_fn", dict(avg_fn="swa", use_buffers=True)),
]


def make_kw(lib, kw):
    kw = dict(kw)
    utils = lib.optim.swa_utils
    if kw.get("avg_fn") == "ema":
        kw["avg_fn"] = utils.get_ema_avg_fn(0.9)
    if kw.get("avg_fn") == "swa":
        kw["avg_fn"] = utils.get_swa_avg_fn()
    if kw.get("multi_avg_fn") == "ema":
        kw["multi_avg_fn"] = utils.get_ema_multi_avg_fn(0.8)
    if kw.get("multi_avg_fn") == "swa":
        kw["multi_avg_fn"] = utils.get_swa_multi_avg_fn()
    return kw


@pytest.mark.parametrize("name,kw", AVG_CASES, ids=[c[0] for c in AVG_CASES])
def test_averaged_model_matches_torch(torch, name, kw):
    ours, theirs = twin_nets(torch)
    avg_o = S.AveragedModel(ours, **make_kw(pt, kw))
    avg_t = torch.optim.swa_utils.AveragedModel(theirs, **make_kw(torch, kw))
    same_state(avg_o, avg_t)                        # n_averaged first, then module.*
    for step in range(5):
        perturb_and_run(torch, ours, theirs, seed=step)
        avg_o.update_parameters(ours)
        avg_t.update_parameters(theirs)
        same_state(avg_o, avg_t)
    assert avg_o.n_averaged.item() == 5 and avg_o.n_averaged.dtype == pt.int64
    # the averaged copy is a deep copy: it is not the model's own tensors
    assert avg_o.module[0].weight is not ours[0].weight
    x = rng.standard_normal((4, 3)).astype("float32")
    avg_o.eval(), avg_t.eval()
    assert_close(avg_o(pt.tensor(x)), avg_t(torch.tensor(x)), rtol=1e-5, atol=1e-5)


def test_swa_is_the_mean(torch):
    """Default SWA: after n updates each parameter is the plain mean of the n weights seen."""
    model = pt.nn.Linear(2, 2)
    avg = S.AveragedModel(model)
    seen = []
    for step in range(4):
        w = rng.standard_normal((2, 2)).astype("float32")
        with pt.no_grad():
            model.weight.copy_(pt.tensor(w))
        seen.append(w)
        avg.update_parameters(model)
    assert_close(avg.module.weight, np.mean(seen, axis=0), rtol=1e-5, atol=1e-6)


def test_averaging_functions_match_torch(torch):
    a, b = rng.standard_normal(5), rng.standard_normal(5)
    for name, args in [("get_ema_avg_fn", (0.7,)), ("get_swa_avg_fn", ())]:
        ours = getattr(S, name)(*args)(pt.tensor(a), pt.tensor(b), pt.tensor(3))
        theirs = getattr(torch.optim.swa_utils, name)(*args)(torch.tensor(a), torch.tensor(b), torch.tensor(3))
        assert_close(ours, theirs, rtol=1e-12, atol=1e-12)
    for name, args, n in [("get_ema_multi_avg_fn", (0.7,), 3), ("get_swa_multi_avg_fn", (), 3),
                          ("get_swa_multi_avg_fn", (), pt.tensor(3))]:
        ours = [pt.tensor(a), pt.tensor(2 * a)]
        theirs = [torch.tensor(a), torch.tensor(2 * a)]
        getattr(S, name)(*args)(ours, [pt.tensor(b)] * 2, n)
        getattr(torch.optim.swa_utils, name)(*args)(theirs, [torch.tensor(b)] * 2,
                                                    torch.tensor(3) if isinstance(n, pt.Tensor) else n)
        for o, t in zip(ours, theirs):
            assert_close(o, t, rtol=1e-12, atol=1e-12)


def test_averaged_model_errors(torch):
    raises_same(torch, lambda lib: lib.optim.swa_utils.AveragedModel(
        lib.nn.Linear(2, 2), avg_fn=lib.optim.swa_utils.get_swa_avg_fn(),
        multi_avg_fn=lib.optim.swa_utils.get_swa_multi_avg_fn()))
    for name in ("get_ema_avg_fn", "get_ema_multi_avg_fn"):
        for decay in (-0.1, 1.5):
            raises_same(torch, lambda lib: getattr(lib.optim.swa_utils, name)(decay))


def test_averaged_model_load_state_dict_from_torch(torch):
    ours, theirs = twin_nets(torch)
    avg_o, avg_t = S.AveragedModel(ours), torch.optim.swa_utils.AveragedModel(theirs)
    for step in range(3):
        perturb_and_run(torch, ours, theirs, seed=10 + step)
        avg_t.update_parameters(theirs)
    avg_o.load_state_dict({k: pt.tensor(v.numpy()) for k, v in avg_t.state_dict().items()})
    same_state(avg_o, avg_t, rtol=0, atol=0)
    assert avg_o.n_averaged.item() == 3


# ================================================================ update_bn
@pytest.mark.parametrize("batch_kind", ["tensor", "tuple"])
def test_update_bn_matches_torch(torch, batch_kind):
    ours, theirs = twin_nets(torch)
    for m in (ours, theirs):
        m[1].momentum = 0.3
        m.eval()
    xs = [rng.standard_normal((6, 3)).astype("float32") for _ in range(4)]

    def loader(lib):
        for x in xs:
            t = lib.tensor(x)
            yield t if batch_kind == "tensor" else (t, lib.zeros(6))

    S.update_bn(loader(pt), ours)
    torch.optim.swa_utils.update_bn(loader(torch), theirs)
    same_state(ours, theirs, rtol=1e-5, atol=1e-6)
    # the statistics are the mean over the batches (momentum=None), and everything is put back
    assert ours[1].num_batches_tracked.item() == 4
    assert ours[1].momentum == 0.3 and not ours.training


def test_update_bn_without_batchnorm_does_nothing(torch):
    model = pt.nn.Linear(3, 1)
    model.eval()
    S.update_bn([pt.ones(2, 3)], model)  # returns before running the model
    assert not model.training


# ================================================================ SWALR
def lr_trace(lib, n_steps, **kw):
    params = [lib.nn.Parameter(lib.zeros(2)), lib.nn.Parameter(lib.zeros(2))]
    opt = lib.optim.SGD([{"params": [params[0]]}, {"params": [params[1]], "lr": 0.5}], lr=1.0)
    sched = lib.optim.swa_utils.SWALR(opt, **kw)
    lrs = [sched.get_last_lr()]
    for _ in range(n_steps):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
    return lrs, opt, sched


SWALR_CASES = [
    dict(swa_lr=0.05),
    dict(swa_lr=0.05, anneal_epochs=3, anneal_strategy="linear"),
    dict(swa_lr=[0.1, 0.01], anneal_epochs=4, anneal_strategy="cos"),
    dict(swa_lr=0.2, anneal_epochs=0),
    dict(swa_lr=0.2, anneal_epochs=1, anneal_strategy="linear"),
]


@pytest.mark.parametrize("kw", SWALR_CASES, ids=[str(i) for i in range(len(SWALR_CASES))])
def test_swalr_matches_torch(torch, kw):
    ours, opt_o, sched_o = lr_trace(pt, 14, **kw)
    theirs, opt_t, sched_t = lr_trace(torch, 14, **kw)
    np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=1e-15)
    assert [g["swa_lr"] for g in opt_o.param_groups] == [g["swa_lr"] for g in opt_t.param_groups]
    # state dict: the same keys (no optimizer, no anneal_func), and a round trip keeps the schedule
    sd_o, sd_t = sched_o.state_dict(), sched_t.state_dict()
    assert sorted(sd_o) == sorted(sd_t)
    assert "anneal_func" not in sd_o and sd_o["_anneal_strategy"] == sd_t["_anneal_strategy"]
    _, _, fresh = lr_trace(pt, 0, **dict(kw, anneal_strategy="cos" if kw.get("anneal_strategy") == "linear"
                                          else "linear"))
    fresh.load_state_dict(sd_o)
    assert fresh.anneal_func == sched_o.anneal_func


def test_swalr_chained_after_another_scheduler(torch):
    """SWALR anneals from whatever lr the group has when it takes over."""
    traces = []
    for lib in (pt, torch):
        p = lib.nn.Parameter(lib.zeros(1))
        opt = lib.optim.SGD([p], lr=1.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            first = lib.optim.lr_scheduler.MultiplicativeLR(opt, lambda e: 0.9)
            swa = lib.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=5, anneal_strategy="linear")
        lrs = []
        for epoch in range(12):
            opt.step()
            (swa if epoch >= 4 else first).step()
            lrs.append(opt.param_groups[0]["lr"])
        traces.append(lrs)
    np.testing.assert_allclose(traces[0], traces[1], rtol=1e-14)


def test_swalr_errors(torch):
    def opt(lib):
        return lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=0.1)
    raises_same(torch, lambda lib: lib.optim.swa_utils.SWALR(opt(lib), swa_lr=0.1, anneal_strategy="exp"))
    raises_same(torch, lambda lib: lib.optim.swa_utils.SWALR(opt(lib), swa_lr=0.1, anneal_epochs=-1))
    raises_same(torch, lambda lib: lib.optim.swa_utils.SWALR(opt(lib), swa_lr=0.1, anneal_epochs=2.0))
    raises_same(torch, lambda lib: lib.optim.swa_utils.SWALR(opt(lib), swa_lr=[0.1, 0.2]))


def test_swa_utils_importable_like_torch():
    from pedatorch.optim.swa_utils import SWALR, AveragedModel  # noqa: F401
    assert pt.optim.swa_utils is S
    assert sorted(S.__all__) == sorted(["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
                                        "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"])


# ================================================================ register_parametrization
def symmetric_cls(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):  # the upper triangle determines the matrix
            return A.triu()
    return Symmetric


def scale_cls(lib):
    class Scale(lib.nn.Module):  # no right_inverse
        def forward(self, X):
            return 2 * X
    return Scale


def twin_linear(torch, n_in=3, n_out=3, dtype="float64"):
    w = rng.standard_normal((n_out, n_in)).astype(dtype)
    b = rng.standard_normal(n_out).astype(dtype)
    mods = []
    for lib in (pt, torch):
        m = lib.nn.Linear(n_in, n_out, dtype=getattr(lib, dtype))
        with lib.no_grad():
            m.weight.copy_(lib.tensor(w))
            m.bias.copy_(lib.tensor(b))
        mods.append(m)
    return mods


def test_register_parametrization_matches_torch(torch):
    ours, theirs = twin_linear(torch)
    weight_before = ours.weight
    P.register_parametrization(ours, "weight", symmetric_cls(pt)())
    torch.nn.utils.parametrize.register_parametrization(theirs, "weight", symmetric_cls(torch)())
    # the class swap, the property, the stored original (the same Parameter object, right-inverted)
    assert type(ours).__name__ == type(theirs).__name__ == "ParametrizedLinear"
    assert isinstance(ours, pt.nn.Linear) and P.type_before_parametrizations(ours) is pt.nn.Linear
    assert ours.parametrizations.weight.original is weight_before
    assert "weight" not in ours._parameters and P.is_parametrized(ours) and P.is_parametrized(ours, "weight")
    assert not P.is_parametrized(ours, "bias") and not P.is_parametrized(pt.nn.Linear(2, 2))
    assert repr(ours) == repr(theirs)
    same_state(ours, theirs)
    assert list(ours.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert_close(ours.weight, theirs.weight)
    # gradients reach original, and are PyTorch's
    x = rng.standard_normal((4, 3))
    (ours(pt.tensor(x)) ** 2).sum().backward()
    (theirs(torch.tensor(x)) ** 2).sum().backward()
    assert_close(ours.parametrizations.weight.original.grad, theirs.parametrizations.weight.original.grad)
    assert_close(ours.bias.grad, theirs.bias.grad)
    # a second module of the same class is untouched
    assert type(pt.nn.Linear(2, 2)) is pt.nn.Linear and "weight" in pt.nn.Linear(2, 2)._parameters


def test_training_a_parametrized_model_matches_torch(torch):
    ours, theirs = twin_linear(torch, 4, 4)
    for lib, m in ((pt, ours), (torch, theirs)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", symmetric_cls(lib)())
        lib.nn.utils.parametrize.register_parametrization(m, "weight", scale_cls(lib)())  # chained
    assert len(ours.parametrizations.weight) == 2
    x, y = rng.standard_normal((6, 4)), rng.standard_normal((6, 4))
    opts = [lib.optim.SGD(m.parameters(), lr=0.05, momentum=0.9) for lib, m in ((pt, ours), (torch, theirs))]
    for _ in range(5):
        for lib, m, opt in ((pt, ours, opts[0]), (torch, theirs, opts[1])):
            opt.zero_grad()
            ((m(lib.tensor(x)) - lib.tensor(y)) ** 2).mean().backward()
            opt.step()
    same_state(ours, theirs, rtol=1e-12, atol=1e-12)
    assert_close(ours.weight, theirs.weight, rtol=1e-12, atol=1e-12)
    assert_close(ours.weight, ours.weight.mT)  # still symmetric


def test_assignment_uses_right_inverse(torch):
    ours, theirs = twin_linear(torch)
    A = rng.standard_normal((3, 3))
    for lib, m in ((pt, ours), (torch, theirs)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", symmetric_cls(lib)())
        original = m.parametrizations.weight.original
        m.weight = lib.tensor(A)
        assert m.parametrizations.weight.original is original  # filled in, not replaced
    same_state(ours, theirs)
    assert_close(ours.parametrizations.weight.original, np.triu(A))
    # a parametrization without right_inverse refuses assignment
    for lib, m in ((pt, ours), (torch, theirs)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", scale_cls(lib)())
    raises_same(torch, lambda lib: setattr(ours if lib is pt else theirs, "weight", lib.tensor(A)))


def test_remove_parametrizations(torch):
    for leave in (True, False):
        ours, theirs = twin_linear(torch)
        for lib, m in ((pt, ours), (torch, theirs)):
            lib.nn.utils.parametrize.register_parametrization(m, "weight", scale_cls(lib)())
            original = m.parametrizations.weight.original
            lib.nn.utils.parametrize.remove_parametrizations(m, "weight", leave_parametrized=leave)
            assert m.weight is original and type(m) is lib.nn.Linear and not hasattr(m, "parametrizations")
        same_state(ours, theirs)
    raises_same(torch, lambda lib: lib.nn.utils.parametrize.remove_parametrizations(lib.nn.Linear(2, 2), "weight"))


def test_registration_errors(torch):
    class Shrink:  # builds, per library, a parametrization that changes the shape
        def __init__(self, lib):
            class S(lib.nn.Module):
                def forward(self, X):
                    return X[:1]
            self.mod = S()

    def register(lib, name="weight", unsafe=False, twice=False):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 3)
        if twice:
            lib.nn.utils.parametrize.register_parametrization(m, name, scale_cls(lib)())
        return lib.nn.utils.parametrize.register_parametrization(m, name, Shrink(lib).mod, unsafe=unsafe)

    raises_same(torch, lambda lib: register(lib))
    raises_same(torch, lambda lib: register(lib, twice=True))
    raises_same(torch, lambda lib: register(lib, name="nope"))
    raises_same(torch, lambda lib: lib.nn.utils.parametrize.ParametrizationList([], lib.zeros(2)))
    # unsafe: allowed, and the shape changes
    assert register(pt, unsafe=True).weight.shape == (1, 3)


def test_parametrization_of_a_buffer_and_several_originals(torch):
    class Split(pt.nn.Module):  # stores a tensor as two halves that add up to it
        def forward(self, a, b):
            return a + b

        def right_inverse(self, X):
            return X / 2, X / 2

    m = pt.nn.BatchNorm1d(3)
    P.register_parametrization(m, "running_mean", Split(), unsafe=True)
    assert list(m.state_dict())[:4] == ["weight", "bias", "running_var", "num_batches_tracked"]
    assert "parametrizations.running_mean.original0" in m.state_dict()
    assert not isinstance(m.parametrizations.running_mean.original0, pt.nn.Parameter)  # buffers stay buffers
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        P.remove_parametrizations(m, "running_mean", leave_parametrized=False)
    P.remove_parametrizations(m, "running_mean")
    assert "running_mean" in m._buffers and type(m) is pt.nn.BatchNorm1d


def test_cached():
    calls = []

    class Counting(pt.nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 1

    m = pt.nn.Linear(2, 2)
    P.register_parametrization(m, "weight", Counting())
    calls.clear()
    with P.cached():
        w1, w2 = m.weight, m.weight
        with P.cached():  # nesting keeps the outer cache
            assert m.weight is w1
    assert w1 is w2 and len(calls) == 1
    assert m.weight is not w1 and len(calls) == 2  # outside: computed at each access


def test_deepcopy_and_pickle(torch):
    m = PZ.weight_norm(pt.nn.Linear(3, 2))
    c = copy.deepcopy(m)
    assert type(c) is type(m) and c.parametrizations.weight.original1 is not m.parametrizations.weight.original1
    assert_close(c.weight, m.weight)
    with pytest.raises(RuntimeError, match="only supported through state_dict"):
        pickle.dumps(m)
    # an AveragedModel of a parametrized model averages the originals
    avg = S.AveragedModel(m)
    assert list(avg.state_dict())[0] == "n_averaged" and "module.parametrizations.weight.original0" in avg.state_dict()


def test_transfer_parametrizations_and_params():
    src = pt.nn.Linear(3, 3)
    P.register_parametrization(src, "weight", symmetric_cls(pt)())
    dst = P.transfer_parametrizations_and_params(src, pt.nn.Linear(3, 3))
    assert dst.parametrizations.weight.original is src.parametrizations.weight.original
    assert_close(dst.weight, src.weight)


def test_parametrization_gradcheck():
    sym = symmetric_cls(pt)()
    m = pt.nn.Linear(3, 3, dtype=pt.float64)
    P.register_parametrization(m, "weight", sym)
    x = pt.tensor(rng.standard_normal((2, 3)))

    def through_module(original):
        # the module's forward, as a function of the stored original
        with pt.no_grad():
            m.parametrizations.weight.original.copy_(original)
        return pt.nn.functional.linear(x, m.parametrizations.weight[0](original), m.bias)
    assert gradcheck(through_module, rng.standard_normal((3, 3)))


# ================================================================ weight_norm
@pytest.mark.parametrize("dim", [0, 1, None, -2])
def test_weight_norm_matches_torch(torch, dim):
    ours, theirs = twin_linear(torch, 3, 4)
    PZ.weight_norm(ours, dim=dim)
    torch.nn.utils.parametrizations.weight_norm(theirs, dim=dim)
    assert list(ours.state_dict()) == ["bias", "parametrizations.weight.original0",
                                       "parametrizations.weight.original1"]
    same_state(ours, theirs, rtol=1e-12, atol=1e-12)
    assert_close(ours.weight, theirs.weight, rtol=1e-12, atol=1e-12)  # unchanged by registration
    x = rng.standard_normal((5, 3))
    opts = [lib.optim.Adam(m.parameters(), lr=0.1) for lib, m in ((pt, ours), (torch, theirs))]
    for _ in range(4):
        for lib, m, opt in ((pt, ours, opts[0]), (torch, theirs, opts[1])):
            opt.zero_grad()
            (m(lib.tensor(x)).sin() ** 2).sum().backward()
            opt.step()
        for i in (0, 1):
            assert_close(getattr(ours.parametrizations.weight, f"original{i}").grad,
                         getattr(theirs.parametrizations.weight, f"original{i}").grad, rtol=1e-10, atol=1e-12)
    same_state(ours, theirs, rtol=1e-10, atol=1e-12)


def test_weight_norm_loads_old_style_keys(torch):
    ours, theirs = twin_linear(torch, 3, 4)
    PZ.weight_norm(ours)
    g, v = rng.standard_normal((4, 1)), rng.standard_normal((4, 3))
    ours.load_state_dict({"bias": pt.zeros(4), "weight_g": pt.tensor(g), "weight_v": pt.tensor(v)})
    assert_close(ours.parametrizations.weight.original0, g)
    assert_close(ours.weight, g * v / np.linalg.norm(v, axis=1, keepdims=True))


def test_weight_norm_gradcheck():
    wn = PZ._WeightNorm(0)
    assert gradcheck(lambda g, v: wn(g, v), rng.standard_normal((4, 1)), rng.standard_normal((4, 3)))
    wn_all = PZ._WeightNorm(None)
    assert gradcheck(lambda g, v: wn_all(g, v), np.array(1.5), rng.standard_normal((2, 3, 2)))


# ================================================================ spectral_norm
@pytest.mark.parametrize("make,kw", [
    (lambda lib: lib.nn.Linear(5, 4, dtype=lib.float64), {}),
    (lambda lib: lib.nn.Linear(5, 4, dtype=lib.float64), dict(n_power_iterations=3, eps=1e-6)),
    (lambda lib: lib.nn.Conv2d(2, 3, 3, dtype=lib.float64), {}),
    (lambda lib: lib.nn.ConvTranspose2d(2, 3, 3, dtype=lib.float64), {}),   # dim=1 by default
    (lambda lib: lib.nn.Linear(5, 4, dtype=lib.float64), dict(dim=1)),
], ids=["linear", "linear-iter3", "conv2d", "convtranspose2d", "linear-dim1"])
def test_spectral_norm_matches_torch(torch, make, kw):
    ours, theirs = make(pt), make(torch)
    copy_weights(torch, ours, theirs)
    pt.manual_seed(7)
    torch.manual_seed(7)  # the same generator: the same random start vectors
    PZ.spectral_norm(ours, **kw)
    torch.nn.utils.parametrizations.spectral_norm(theirs, **kw)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert "parametrizations.weight.0._u" in ours.state_dict()
    same_state(ours, theirs, rtol=1e-10, atol=1e-12)
    x = rng.standard_normal((2, 5) if isinstance(ours, pt.nn.Linear) else (1, 2, 5, 5))
    opts = [lib.optim.SGD(m.parameters(), lr=0.1) for lib, m in ((pt, ours), (torch, theirs))]
    for _ in range(4):  # each training forward does a power step (updates _u, _v)
        for lib, m, opt in ((pt, ours, opts[0]), (torch, theirs, opts[1])):
            opt.zero_grad()
            (m(lib.tensor(x)) ** 2).sum().backward()
            opt.step()
        assert_close(ours.parametrizations.weight.original.grad, theirs.parametrizations.weight.original.grad,
                     rtol=1e-8, atol=1e-10)
    same_state(ours, theirs, rtol=1e-8, atol=1e-10)
    # the largest singular value of the parametrized weight is (close to) 1
    w = to_np(ours.weight)
    mat = np.moveaxis(w, 1, 0) if isinstance(ours, pt.nn.ConvTranspose2d) or kw.get("dim") == 1 else w
    assert abs(np.linalg.svd(mat.reshape(mat.shape[0], -1), compute_uv=False)[0] - 1) < 0.05
    # eval mode: no power step, the vectors stay
    ours.eval()
    u = ours.parametrizations.weight[0]._u.clone()
    ours(pt.tensor(x))
    assert_close(ours.parametrizations.weight[0]._u, u, rtol=0, atol=0)


def test_spectral_norm_errors(torch):
    raises_same(torch, lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), dim=2))
    raises_same(torch, lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2),
                                                                                n_power_iterations=0))
    raises_same(torch, lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), "nope"))


def test_spectral_norm_gradcheck():
    pt.manual_seed(0)
    sn = PZ._SpectralNorm(pt.tensor(rng.standard_normal((3, 4))), dim=0)
    sn.eval()  # fixed u, v: a deterministic function of the weight
    assert gradcheck(lambda w: sn(w), rng.standard_normal((3, 4)))
    assert gradcheck(lambda w: sn(w), rng.standard_normal(4))  # 1-D: w / |w|


# ================================================================ orthogonal
@pytest.mark.parametrize("orth_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("triv", [True, False])
def test_orthogonal_matches_torch(torch, orth_map, triv):
    ours, theirs = twin_linear(torch, 4, 4)
    PZ.orthogonal(ours, orthogonal_map=orth_map, use_trivialization=triv)
    torch.nn.utils.parametrizations.orthogonal(theirs, orthogonal_map=orth_map, use_trivialization=triv)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    same_state(ours, theirs, rtol=1e-10, atol=1e-12)
    w = to_np(ours.weight)
    np.testing.assert_allclose(w.T @ w, np.eye(4), atol=1e-10)
    assert_close(ours.weight, theirs.weight, rtol=1e-9, atol=1e-11)
    x = rng.standard_normal((3, 4))
    (ours(pt.tensor(x)) ** 3).sum().backward()
    (theirs(torch.tensor(x)) ** 3).sum().backward()
    assert_close(ours.parametrizations.weight.original.grad, theirs.parametrizations.weight.original.grad,
                 rtol=1e-8, atol=1e-10)


def test_orthogonal_rectangular(torch):
    for shape in ((3, 5), (5, 3)):
        m = pt.nn.Linear(shape[1], shape[0], dtype=pt.float64)
        PZ.orthogonal(m)
        w = to_np(m.weight)
        small = w @ w.T if shape[0] < shape[1] else w.T @ w
        np.testing.assert_allclose(small, np.eye(min(shape)), atol=1e-10)
    raises_same(torch, lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), "bias"))
    raises_same(torch, lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2),
                                                                             orthogonal_map="qr"))


def test_orthogonal_gradcheck():
    for orth_map in ("matrix_exp", "cayley", "householder"):
        o = PZ._Orthogonal(pt.zeros(3, 3, dtype=pt.float64), PZ._OrthMaps[orth_map], use_trivialization=False)
        X = rng.standard_normal((3, 3))
        if orth_map == "householder":
            np.fill_diagonal(X, 1.5)  # forward reads the diagonal as signs (int(1.5 +- h) = 1: no jump)
        assert gradcheck(lambda A: o(A), X)
