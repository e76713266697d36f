"""pedatorch.optim.lr_scheduler: every scheduler's lr (and momentum) sequence equals PyTorch's, the
state_dict round-trips, and the warnings and errors are PyTorch's."""
import math
import warnings

import numpy as np
import pytest

import pedatorch as pt
from pedatorch.optim import lr_scheduler as pt_sched


def make_opt(lib, cls="SGD", **kw):
    params = [lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(3))]
    kw = dict(kw)
    if cls == "SGD":
        kw.setdefault("momentum", 0.9)
    return getattr(lib.optim, cls)([{"params": params[:1]}, {"params": params[1:], "lr": 0.05}],
                                   **dict({"lr": 0.1}, **kw))


def group_values(opt):
    """What a scheduler may write into the groups: lr, momentum, beta1."""
    out = []
    for g in opt.param_groups:
        out.append(float(g["lr"]))
        if "momentum" in g:
            out.append(float(g["momentum"]))
        if "betas" in g:
            out.append(float(g["betas"][0]))
    return out


def run(lib, make_sched, n, cls="SGD", metrics=None, epochs=None, opt_kw=None):
    """Build the optimizer and scheduler; n times: optimizer.step(), scheduler.step(); record the values."""
    opt = make_opt(lib, cls, **(opt_kw or {}))
    sched = make_sched(lib.optim.lr_scheduler, opt)
    seq = [list(map(float, sched.get_last_lr())) + group_values(opt)]
    for i in range(n):
        opt.step()
        if metrics is not None:
            sched.step(metrics[i])
        elif epochs is not None:
            sched.step(epochs[i])
        else:
            sched.step()
        seq.append(list(map(float, sched.get_last_lr())) + group_values(opt))
    return seq, sched, opt


def check_same(ours, theirs):
    a, b = np.array(ours), np.array(theirs)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)


SCHEDULERS = {
    "StepLR": lambda S, o: S.StepLR(o, step_size=7, gamma=0.5),
    "StepLR-default-gamma": lambda S, o: S.StepLR(o, 3),
    "MultiStepLR": lambda S, o: S.MultiStepLR(o, milestones=[5, 12, 12, 30], gamma=0.3),
    "ConstantLR": lambda S, o: S.ConstantLR(o, factor=0.25, total_iters=8),
    "ConstantLR-default": lambda S, o: S.ConstantLR(o),
    "LinearLR": lambda S, o: S.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=17),
    "LinearLR-default": lambda S, o: S.LinearLR(o),
    "ExponentialLR": lambda S, o: S.ExponentialLR(o, gamma=0.93),
    "PolynomialLR": lambda S, o: S.PolynomialLR(o, total_iters=23, power=2.5),
    "PolynomialLR-default": lambda S, o: S.PolynomialLR(o),
    "CosineAnnealingLR": lambda S, o: S.CosineAnnealingLR(o, T_max=10, eta_min=0.001),
    "CosineAnnealingLR-long": lambda S, o: S.CosineAnnealingLR(o, T_max=7),
    "CosineAnnealingWarmRestarts": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2, eta_min=1e-4),
    "CosineAnnealingWarmRestarts-T_mult1": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=6),
    "LambdaLR": lambda S, o: S.LambdaLR(o, lr_lambda=lambda e: 0.95 ** e),
    "LambdaLR-list": lambda S, o: S.LambdaLR(o, lr_lambda=[lambda e: 1 / (e + 1), lambda e: 0.9 ** (e // 4)]),
    "MultiplicativeLR": lambda S, o: S.MultiplicativeLR(o, lr_lambda=lambda e: 0.97),
    "OneCycleLR": lambda S, o: S.OneCycleLR(o, max_lr=1.0, total_steps=50),
    "OneCycleLR-linear-3phase": lambda S, o: S.OneCycleLR(o, max_lr=[0.5, 2.0], epochs=5, steps_per_epoch=10,
                                                          pct_start=0.25, anneal_strategy="linear",
                                                          three_phase=True, div_factor=10.0,
                                                          final_div_factor=100.0),
    "OneCycleLR-no-momentum": lambda S, o: S.OneCycleLR(o, max_lr=0.3, total_steps=45, cycle_momentum=False,
                                                        base_momentum=0.7, max_momentum=0.99),
    "CyclicLR-triangular": lambda S, o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4),
    "CyclicLR-triangular2": lambda S, o: S.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=3,
                                                    step_size_down=5, mode="triangular2"),
    "CyclicLR-exp_range": lambda S, o: S.CyclicLR(o, base_lr=0.001, max_lr=0.1, step_size_up=5, mode="exp_range",
                                                  gamma=0.97, base_momentum=0.7, max_momentum=0.95),
    "CyclicLR-scale_fn": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=4, scale_fn=lambda x: 1 / (1 + x),
                                                 scale_mode="iterations", cycle_momentum=False),
    "SequentialLR": lambda S, o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.1, total_iters=5),
                                                    S.CosineAnnealingLR(o, T_max=20)], milestones=[5]),
    "SequentialLR-3": lambda S, o: S.SequentialLR(o, [S.ConstantLR(o, factor=0.5, total_iters=3),
                                                      S.ExponentialLR(o, gamma=0.9),
                                                      S.StepLR(o, step_size=4, gamma=0.5)], milestones=[6, 20]),
    "ChainedScheduler": lambda S, o: S.ChainedScheduler([S.ConstantLR(o, factor=0.1, total_iters=4),
                                                         S.ExponentialLR(o, gamma=0.9)]),
    "ChainedScheduler-opt": lambda S, o: S.ChainedScheduler([S.LinearLR(o, total_iters=6),
                                                             S.MultiStepLR(o, [10, 20])], optimizer=o),
}


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_sequence_matches_torch(torch, name):
    n = 50 if name.startswith("OneCycle") else 60
    if name == "OneCycleLR-no-momentum":
        n = 45
    ours, sched, _ = run(pt, SCHEDULERS[name], n)
    theirs, tsched, _ = run(torch, SCHEDULERS[name], n)
    check_same(ours, theirs)
    assert getattr(sched, "last_epoch", None) == getattr(tsched, "last_epoch", None)


@pytest.mark.parametrize("name", ["OneCycleLR", "CyclicLR-triangular", "CyclicLR-exp_range", "CosineAnnealingLR",
                                  "StepLR"])
def test_adam_betas(torch, name):
    """With Adam the cycled momentum is beta1."""
    ours, _, opt = run(pt, SCHEDULERS[name], 40, cls="Adam")
    theirs, _, topt = run(torch, SCHEDULERS[name], 40, cls="Adam")
    check_same(ours, theirs)
    assert [g["betas"][1] for g in opt.param_groups] == [0.999, 0.999]
    assert repr(opt) == repr(topt)


def test_cosine_recursive_not_closed_form(torch):
    """The recursive form differs from the closed form in the last bits; both sides take the recursive one."""
    ours, _, _ = run(pt, SCHEDULERS["CosineAnnealingLR"], 60)
    closed = [0.001 + (0.1 - 0.001) * (1 + math.cos(math.pi * t / 10)) / 2 for t in range(61)]
    assert [s[0] for s in ours] != closed
    np.testing.assert_allclose([s[0] for s in ours], closed, rtol=1e-9)


def test_warm_restarts_fractional_epochs(torch):
    epochs = [e + i / 4 for e in range(12) for i in range(4)]
    for T_mult in (1, 2, 3):
        def make(S, o):
            return S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=T_mult, eta_min=0.002)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours, s1, _ = run(pt, make, len(epochs), epochs=epochs)
            theirs, s2, _ = run(torch, make, len(epochs), epochs=epochs)
        check_same(ours, theirs)
        assert (s1.T_cur, s1.T_i, s1.last_epoch) == (s2.T_cur, s2.T_i, s2.last_epoch)


def test_closed_form_with_epoch_argument(torch):
    """step(epoch) uses the closed form where there is one (with the deprecation warning)."""
    epochs = [3, 4, 10, 2, 15, 15, 7, 30]
    for name in ("StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR", "PolynomialLR",
                 "CosineAnnealingLR", "LambdaLR"):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ours, _, _ = run(pt, SCHEDULERS[name], len(epochs), epochs=epochs)
        assert any("The epoch parameter in `scheduler.step()` was not necessary" in str(x.message) for x in w)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs, _, _ = run(torch, SCHEDULERS[name], len(epochs), epochs=epochs)
        check_same(ours, theirs)


@pytest.mark.parametrize("kw", [dict(), dict(mode="max", factor=0.5, patience=2),
                                dict(threshold_mode="abs", threshold=0.05, patience=1, cooldown=2),
                                dict(mode="max", threshold_mode="abs", threshold=0.1, patience=0, min_lr=[0.01, 0.02]),
                                dict(factor=0.5, patience=1, min_lr=0.004, eps=1e-3)])
def test_reduce_on_plateau(torch, kw):
    r = np.random.default_rng(1)
    metrics = list(np.round(r.standard_normal(60).cumsum() * 0.1 + 5, 2))

    def make(S, o):
        return S.ReduceLROnPlateau(o, **kw)
    ours, s1, _ = run(pt, make, 60, metrics=metrics)
    theirs, s2, _ = run(torch, make, 60, metrics=metrics)
    check_same(ours, theirs)
    assert (s1.best, s1.num_bad_epochs, s1.cooldown_counter, s1.last_epoch) == (
        s2.best, s2.num_bad_epochs, s2.cooldown_counter, s2.last_epoch)
    sd = s1.state_dict()
    assert sd.keys() == s2.state_dict().keys()


def test_reduce_on_plateau_tensor_metric():
    opt = make_opt(pt)
    s = pt_sched.ReduceLROnPlateau(opt, patience=0)
    s.step(pt.tensor(1.0))
    s.step(pt.tensor(2.0))
    assert s.get_last_lr() == [0.010000000000000002, 0.005000000000000001]


# ---------------------------------------------------------------- state dicts

def _comparable(sd):
    """A state dict's plain values (callables and nested scheduler dicts compared separately)."""
    return {k: v for k, v in sd.items() if k not in ("_schedulers", "lr_lambdas", "_scale_fn_custom")}


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_state_dict_round_trip(torch, name):
    """Run 20 steps, save, build a fresh scheduler over a fresh optimizer, load both, continue: same as
    uninterrupted; the saved keys and plain values equal PyTorch's."""
    n1, n2 = 20, 25
    full, _, _ = run(pt, SCHEDULERS[name], n1 + n2)
    first, sched, opt = run(pt, SCHEDULERS[name], n1)
    sd, osd = sched.state_dict(), opt.state_dict()
    assert "optimizer" not in sd

    _, tsched, _ = run(torch, SCHEDULERS[name], n1)
    tsd = tsched.state_dict()
    assert sd.keys() == tsd.keys()
    plain_o, plain_t = _comparable(sd), _comparable(tsd)
    for k in plain_t:
        if k != "_scale_fn_ref":
            assert plain_o[k] == plain_t[k], k

    opt2 = make_opt(pt)
    sched2 = SCHEDULERS[name](pt_sched, opt2)
    opt2.load_state_dict(osd)
    sched2.load_state_dict(sd)
    rest = []
    for _ in range(n2):
        opt2.step()
        sched2.step()
        rest.append(list(map(float, sched2.get_last_lr())) + group_values(opt2))
    check_same(first + rest, full)


def test_lambda_state_dict_keeps_callable_objects(torch):
    class Decay:
        def __init__(self, r):
            self.r = r

        def __call__(self, e):
            return self.r ** e

    for lib in (pt, torch):
        opt = make_opt(lib)
        s = lib.optim.lr_scheduler.LambdaLR(opt, [Decay(0.5), lambda e: 1.0])
        sd = s.state_dict()
        assert sd["lr_lambdas"] == [{"r": 0.5}, None]
        sd["lr_lambdas"][0]["r"] = 0.25
        s.load_state_dict(sd)
        assert s.lr_lambdas[0].r == 0.25 and "lr_lambdas" in sd


# ---------------------------------------------------------------- base behaviour, warnings, errors

def test_initial_lr_and_base_lrs():
    opt = make_opt(pt)
    s = pt_sched.StepLR(opt, 2)
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.05]
    assert s.base_lrs == [0.1, 0.05] and s.last_epoch == 0 and s.get_last_lr() == [0.1, 0.05]
    # a second scheduler keeps the stored initial_lr
    opt.param_groups[0]["lr"] = 0.7
    s2 = pt_sched.ExponentialLR(opt, 0.5)
    assert s2.base_lrs == [0.1, 0.05]


def test_resume_needs_initial_lr(torch):
    errs = []
    for lib in (pt, torch):
        with pytest.raises(KeyError) as info:
            lib.optim.lr_scheduler.StepLR(make_opt(lib), 3, last_epoch=4)
        errs.append(str(info.value))
    assert errs[0] == errs[1]


def test_step_before_optimizer_step_warns(torch):
    for lib in (pt, torch):
        opt = make_opt(lib)
        s = lib.optim.lr_scheduler.StepLR(opt, 3)
        with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
            s.step()
        opt.step()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            s.step()
        assert getattr(opt, "_opt_called", False)
        assert hasattr(opt.step, "_wrapped_by_lr_sched")


def test_optimizer_step_replaced_warns(torch):
    for lib in (pt, torch):
        opt = make_opt(lib)
        s = lib.optim.lr_scheduler.StepLR(opt, 3)
        opt.step = lambda: None
        with pytest.warns(UserWarning, match="Seems like `optimizer.step\\(\\)` has been overridden"):
            s.step()


def test_no_warning_in_normal_use():
    opt = make_opt(pt)
    s = pt_sched.OneCycleLR(opt, 1.0, total_steps=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(10):
            opt.step()
            s.step()


def test_get_lr_outside_step_warns(torch):
    for lib in (pt, torch):
        s = lib.optim.lr_scheduler.StepLR(make_opt(lib), 3)
        with pytest.warns(UserWarning, match="To get the last learning rate computed by the scheduler"):
            s.get_lr()


def test_onecycle_too_many_steps(torch):
    errs = []
    for lib in (pt, torch):
        opt = make_opt(lib)
        s = lib.optim.lr_scheduler.OneCycleLR(opt, 1.0, total_steps=3)
        for _ in range(3):
            opt.step()
            s.step()
        opt.step()
        with pytest.raises(ValueError) as info:
            s.step()
        errs.append(str(info.value))
    assert errs[0] == errs[1] == "Tried to step 4 times. The specified number of total steps is 3"


@pytest.mark.parametrize("make", [
    lambda S, o: S.ConstantLR(o, factor=1.5),
    lambda S, o: S.LinearLR(o, start_factor=0),
    lambda S, o: S.LinearLR(o, end_factor=1.5),
    lambda S, o: S.LambdaLR(o, [lambda e: 1.0]),
    lambda S, o: S.MultiplicativeLR(o, [1.0, 2.0]),
    lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=0),
    lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2.0),
    lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="x"),
    lambda S, o: S.ReduceLROnPlateau(o, factor=1.0),
    lambda S, o: S.ReduceLROnPlateau(o, mode="middle"),
    lambda S, o: S.ReduceLROnPlateau(o, threshold_mode="x"),
    lambda S, o: S.ReduceLROnPlateau(o, min_lr=[0.1]),
    lambda S, o: S.ReduceLROnPlateau(None),
    lambda S, o: S.StepLR(None, 3),
    lambda S, o: S.OneCycleLR(o, 1.0),
    lambda S, o: S.OneCycleLR(o, 1.0, total_steps=0),
    lambda S, o: S.OneCycleLR(o, 1.0, epochs=0, steps_per_epoch=3),
    lambda S, o: S.OneCycleLR(o, 1.0, epochs=2, steps_per_epoch=1.5),
    lambda S, o: S.OneCycleLR(o, 1.0, total_steps=10, pct_start=1),
    lambda S, o: S.OneCycleLR(o, 1.0, total_steps=10, anneal_strategy="exp"),
    lambda S, o: S.OneCycleLR(o, [1.0, 2.0, 3.0], total_steps=10),
    lambda S, o: S.CyclicLR(o, 0.01, 0.1, mode="sine"),
    lambda S, o: S.SequentialLR(o, [], milestones=[]),
    lambda S, o: S.SequentialLR(o, [S.StepLR(o, 2)], milestones=[3]),
    lambda S, o: S.SequentialLR(o, [S.StepLR(o, 2), S.ReduceLROnPlateau(o)], milestones=[3]),
    lambda S, o: S.SequentialLR(o, [S.StepLR(o, 2), object()], milestones=[3]),
    lambda S, o: S.ChainedScheduler([]),
    lambda S, o: S.ChainedScheduler([S.StepLR(o, 2), S.ReduceLROnPlateau(o)]),
])
def test_errors(torch, make):
    errs = []
    for lib in (pt, torch):
        with pytest.raises(Exception) as info:
            make(lib.optim.lr_scheduler, make_opt(lib))
        errs.append(info.value)
    assert type(errs[0]).__name__ == type(errs[1]).__name__
    assert str(errs[0]) == str(errs[1])


def test_cycle_momentum_needs_momentum(torch):
    errs = []
    for lib in (pt, torch):
        opt = lib.optim.Adagrad([lib.nn.Parameter(lib.ones(2))])
        for make in (lambda S: S.CyclicLR(opt, 0.01, 0.1), lambda S: S.OneCycleLR(opt, 0.1, total_steps=5)):
            with pytest.raises(ValueError) as info:
                make(lib.optim.lr_scheduler)
            errs.append(str(info.value))
    assert errs[:2] == errs[2:]
    assert errs[0] == "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"


def test_sequential_other_optimizer(torch):
    errs = []
    for lib in (pt, torch):
        S = lib.optim.lr_scheduler
        o1, o2 = make_opt(lib), make_opt(lib)
        with pytest.raises(ValueError) as info:
            S.SequentialLR(o1, [S.StepLR(o1, 2), S.StepLR(o2, 2)], milestones=[3])
        errs.append(str(info.value).split(" has ")[0])
    assert errs[0] == errs[1]


def test_tensor_lr(torch):
    """A tensor lr is updated in place (fill_), and get_last_lr returns clones."""
    def run_(lib):
        p = lib.nn.Parameter(lib.ones(2))
        lr = lib.tensor(0.1)
        opt = lib.optim.Adam([p], lr=lr)
        s = lib.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5)
        out = []
        for _ in range(6):
            p.grad = lib.ones(2)
            opt.step()
            s.step()
            out.append(float(s.get_last_lr()[0]))
        assert opt.param_groups[0]["lr"] is lr
        assert s.get_last_lr()[0] is not lr
        return out, p
    (o, p), (t, pt_) = run_(pt), run_(torch)
    assert o == t
    np.testing.assert_allclose(np.array(p.detach()._data), pt_.detach().numpy(), rtol=1e-6)


def test_lr_scheduler_without_torch():
    opt = make_opt(pt)
    s = pt_sched.StepLR(opt, step_size=2, gamma=0.1)
    lrs = []
    for _ in range(5):
        opt.step()
        s.step()
        lrs.append(s.get_last_lr()[0])
    np.testing.assert_allclose(lrs, [0.1, 0.01, 0.01, 0.001, 0.001], rtol=1e-12)
    assert isinstance(s, pt_sched.LRScheduler) and issubclass(pt_sched._LRScheduler, pt_sched.LRScheduler)
    assert pt_sched.__all__ == ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
                                "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler",
                                "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
                                "PolynomialLR", "LRScheduler"]
