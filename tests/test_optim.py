"""pedatorch.optim: the Optimizer base (groups, state, state_dict, hooks, errors, printing) and every
optimizer's trajectory, compared with PyTorch on the same weights and the same loss."""
import collections
import copy
import inspect
import math
import pickle
import sys
import warnings

import numpy as np
import pytest

import pedatorch as pt
import pedatorch.optim.optimizer as pt_optimizer
from conftest import assert_close, to_np

rng = np.random.default_rng(0)
W0 = rng.standard_normal((3, 4))
B0 = rng.standard_normal(3)
X = rng.standard_normal((5, 4))
Y = rng.standard_normal((5, 3))


def make_params(lib, dtype="float32"):
    return [lib.nn.Parameter(lib.tensor(W0.astype(dtype))), lib.nn.Parameter(lib.tensor(B0.astype(dtype)))]


def loss_fn(lib, W, b, dtype="float32"):
    """A tiny linear model with a squared error, written with plain tensor ops."""
    x, y = lib.tensor(X.astype(dtype)), lib.tensor(Y.astype(dtype))
    return (((x @ W.t() + b) - y) ** 2).mean()


def train(lib, cls, kw, dtype="float32", steps=20, groups=False, params=None):
    W, b = params or make_params(lib, dtype)
    p = [{"params": [W]}, {"params": [b], "lr": 0.03}] if groups else [W, b]
    opt = getattr(lib.optim, cls)(p, **kw)
    for _ in range(steps):
        opt.zero_grad()
        loss_fn(lib, W, b, dtype).backward()
        opt.step()
    return (W, b), opt


def raises_same(torch, fn):
    """``fn(lib)`` raises the same exception class with the same message on both."""
    errs = []
    for lib in (pt, torch):
        with pytest.raises(Exception) as info:
            fn(lib)
        errs.append(info.value)
    assert type(errs[0]).__name__ == type(errs[1]).__name__, errs
    assert str(errs[0]) == str(errs[1]), errs
    return errs


CASES = [
    ("SGD", {}),
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, maximize=True)),
    ("SGD", dict(lr=0.1, momentum=0.5, foreach=True)),
    ("SGD", dict(lr=0.1, momentum=0.5, fused=True)),
    ("Adam", {}),
    ("Adam", dict(lr=0.05)),
    ("Adam", dict(lr=0.05, betas=(0.5, 0.9), amsgrad=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("Adam", dict(lr=0.05, fused=True)),
    ("Adam", dict(lr=0.05, amsgrad=True, foreach=False)),
    ("AdamW", dict(lr=0.05)),
    ("AdamW", dict(lr=0.05, amsgrad=True, weight_decay=0.3)),
    ("RMSprop", {}),
    ("RMSprop", dict(lr=0.01, alpha=0.9, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True)),
    ("RMSprop", dict(lr=0.01, centered=True, maximize=True, foreach=False)),
    ("Adagrad", {}),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1, weight_decay=0.1)),
    ("Adadelta", {}),
    ("Adadelta", dict(lr=0.5, rho=0.5, eps=1e-4, weight_decay=0.1, maximize=True)),
    ("Adamax", {}),
    ("Adamax", dict(lr=0.05, betas=(0.8, 0.99), weight_decay=0.1)),
    ("NAdam", {}),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", {}),
    ("RAdam", dict(lr=0.05, weight_decay=0.1)),
    ("RAdam", dict(lr=0.05, betas=(0.9, 0.9), weight_decay=0.1, decoupled_weight_decay=True)),
]
IDS = [f"{c}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'defaults'}" for c, kw in CASES]


def check_state_dicts(ours, theirs, rtol, atol):
    sd_o, sd_t = ours.state_dict(), theirs.state_dict()
    assert sd_o.keys() == sd_t.keys() == {"state", "param_groups"}
    assert sd_o["param_groups"] == sd_t["param_groups"]
    assert list(sd_o["state"].keys()) == list(sd_t["state"].keys())
    for k in sd_t["state"]:
        so, st = sd_o["state"][k], sd_t["state"][k]
        assert list(so.keys()) == list(st.keys())
        for name in st:
            if hasattr(st[name], "dtype"):
                assert so[name].shape == tuple(st[name].shape)
                assert_close(so[name], st[name], rtol=rtol, atol=atol)
            else:
                assert so[name] == st[name]


@pytest.mark.parametrize("cls,kw", CASES, ids=IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_trajectory_matches_torch(torch, cls, kw, dtype):
    (W, b), ours = train(pt, cls, kw, dtype)
    (Wt, bt), theirs = train(torch, cls, kw, dtype)
    rtol, atol = (2e-5, 2e-6) if dtype == "float32" else (1e-11, 1e-12)
    assert_close(W, Wt, rtol=rtol, atol=atol)
    assert_close(b, bt, rtol=rtol, atol=atol)
    check_state_dicts(ours, theirs, rtol, atol)


@pytest.mark.parametrize("cls", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam",
                                 "RAdam"])
def test_param_groups_trajectory(torch, cls):
    kw = {"momentum": 0.9} if cls in ("SGD", "RMSprop") else {}
    (W, b), ours = train(pt, cls, kw, "float64", groups=True)
    (Wt, bt), theirs = train(torch, cls, kw, "float64", groups=True)
    assert_close(W, Wt, rtol=1e-11, atol=1e-12)
    assert_close(b, bt, rtol=1e-11, atol=1e-12)
    check_state_dicts(ours, theirs, 1e-11, 1e-12)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("cls", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam",
                                 "RAdam"])
def test_repr_and_defaults(torch, cls):
    ours = getattr(pt.optim, cls)([{"params": make_params(pt)[:1]}, {"params": make_params(pt)[1:], "lr": 0.5}])
    theirs = getattr(torch.optim, cls)([{"params": make_params(torch)[:1]},
                                        {"params": make_params(torch)[1:], "lr": 0.5}])
    assert repr(ours) == repr(theirs)
    assert ours.defaults == theirs.defaults
    sig_o = inspect.signature(getattr(pt.optim, cls).__init__).parameters
    sig_t = inspect.signature(getattr(torch.optim, cls).__init__).parameters
    assert [(n, p.kind, p.default) for n, p in sig_o.items()] == [(n, p.kind, p.default) for n, p in sig_t.items()]


def test_default_values():
    p = make_params(pt)
    assert pt.optim.SGD(p).defaults["lr"] == 1e-3
    assert pt.optim.AdamW(p).defaults["weight_decay"] == 1e-2
    assert pt.optim.AdamW(p).defaults["decoupled_weight_decay"] is True
    assert pt.optim.Adadelta(p).defaults["lr"] == 1.0
    assert pt.optim.RMSprop(p).defaults["lr"] == 1e-2


def test_sgd_step_by_hand():
    """theta <- theta - lr * (grad + wd * theta), without torch."""
    p = pt.nn.Parameter(pt.tensor([1.0, -2.0], dtype=pt.float64))
    opt = pt.optim.SGD([p], lr=0.5, weight_decay=0.1)
    p.grad = pt.tensor([0.2, 0.4], dtype=pt.float64)
    opt.step()
    np.testing.assert_allclose(to_np(p), [1 - 0.5 * (0.2 + 0.1), -2 - 0.5 * (0.4 - 0.2)], rtol=1e-15)
    assert p.grad_fn is None and p.is_leaf and p.requires_grad


def test_adam_first_step_by_hand():
    """Adam's first step moves each coordinate by about lr * sign(grad)."""
    p = pt.nn.Parameter(pt.tensor([1.0, -2.0, 3.0], dtype=pt.float64))
    opt = pt.optim.Adam([p], lr=0.1)
    p.grad = pt.tensor([0.5, -3.0, 1e-3], dtype=pt.float64)
    opt.step()
    g = np.array([0.5, -3.0, 1e-3])
    np.testing.assert_allclose(to_np(p), np.array([1.0, -2.0, 3.0]) - 0.1 * g / (np.abs(g) + 1e-8), rtol=1e-12)
    st = opt.state[p]
    assert st["step"].dtype == pt.float32 and st["step"].item() == 1.0 and st["step"].dim() == 0


@pytest.mark.parametrize("cls,kw", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.1)),
                                    ("Adam", dict(lr=0.1, amsgrad=True)), ("RMSprop", dict(centered=True)),
                                    ("Adagrad", {}), ("NAdam", {}), ("RAdam", {}), ("Adamax", {}),
                                    ("Adadelta", {})])
def test_complex_params(torch, cls, kw):
    z0 = np.array([1 + 2j, -0.5 + 0.3j, 0.1 - 1j], dtype=np.complex128)
    t0 = np.array([0.3 - 1j, 1 + 1j, -1 + 0.2j], dtype=np.complex128)

    def run(lib):
        z = lib.nn.Parameter(lib.tensor(z0))
        target = lib.tensor(t0)
        opt = getattr(lib.optim, cls)([z], **kw)
        for _ in range(10):
            opt.zero_grad()
            d = z - target
            (d.real ** 2 + d.imag ** 2).sum().backward()
            opt.step()
        return z

    assert_close(run(pt), run(torch), rtol=1e-11, atol=1e-12)


def test_tensor_lr(torch):
    for cls in ("SGD", "Adam", "RMSprop", "Adagrad", "NAdam"):
        (W, b), ours = train(pt, cls, dict(lr=pt.tensor(0.01)), steps=5)
        (Wt, bt), theirs = train(torch, cls, dict(lr=torch.tensor(0.01)), steps=5)
        assert_close(W, Wt, rtol=2e-5, atol=2e-6)
        assert repr(ours) == repr(theirs)


def test_default_dtype_float64_step(torch):
    for lib in (pt, torch):
        lib.set_default_dtype(lib.float64)
    try:
        for cls in ("Adam", "RMSprop", "NAdam", "Adagrad"):
            (_, _), ours = train(pt, cls, {}, "float32", steps=2)
            (_, _), theirs = train(torch, cls, {}, "float32", steps=2)
            for key in ("step", "mu_product"):
                if key in theirs.state_dict()["state"][0]:
                    assert str(ours.state_dict()["state"][0][key].dtype) == str(
                        theirs.state_dict()["state"][0][key].dtype)
    finally:
        for lib in (pt, torch):
            lib.set_default_dtype(lib.float32)


def test_grad_none_is_skipped(torch):
    def run(lib):
        W, b = make_params(lib)
        opt = lib.optim.Adam([W, b], lr=0.1)
        W.grad = lib.ones_like(W)
        opt.step()
        return W, b, opt

    W, b, opt = run(pt)
    Wt, bt, optt = run(torch)
    assert_close(W, Wt)
    assert_close(b, bt)
    assert b not in opt.state and len(opt.state) == len(optt.state) == 1
    assert list(opt.state_dict()["state"]) == list(optt.state_dict()["state"]) == [0]


def test_adagrad_state_made_in_constructor(torch):
    ours = pt.optim.Adagrad(make_params(pt), initial_accumulator_value=0.5)
    theirs = torch.optim.Adagrad(make_params(torch), initial_accumulator_value=0.5)
    check_state_dicts(ours, theirs, 0, 0)


def test_sgd_without_momentum_keeps_no_state(torch):
    (_, _), ours = train(pt, "SGD", dict(lr=0.1), steps=2)
    (_, _), theirs = train(torch, "SGD", dict(lr=0.1), steps=2)
    assert ours.state_dict()["state"] == theirs.state_dict()["state"] == {}


# ---------------------------------------------------------------- constructor errors and warnings

def test_constructor_errors(torch):
    raises_same(torch, lambda lib: lib.optim.SGD(lib.ones(3), lr=0.1))
    errs = raises_same(torch, lambda lib: lib.optim.SGD(lib.ones(3, dtype=lib.float64)))
    assert str(errs[0]) == ("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got torch.DoubleTensor")
    raises_same(torch, lambda lib: lib.optim.SGD([], lr=0.1))
    raises_same(torch, lambda lib: lib.optim.Adam([1.0]))
    raises_same(torch, lambda lib: lib.optim.Adam([{"params": set(make_params(lib))}]))

    def non_leaf(lib):
        w = lib.ones(3, requires_grad=True)
        lib.optim.SGD([w * 2])
    raises_same(torch, non_leaf)

    def two_groups(lib):
        W, b = make_params(lib)
        lib.optim.SGD([{"params": [W, b]}, {"params": [b]}])
    raises_same(torch, two_groups)

    def names_mixed(lib):
        W, b = make_params(lib)
        lib.optim.SGD([("w", W), b])
    raises_same(torch, names_mixed)

    def add_unnamed_group(lib):
        W, b = make_params(lib)
        opt = lib.optim.SGD([("w", W)])
        opt.add_param_group({"params": [b]})
    raises_same(torch, add_unnamed_group)
    raises_same(torch, lambda lib: lib.optim.SGD(make_params(lib)).add_param_group([lib.ones(1)]))


@pytest.mark.parametrize("cls,kw", [
    ("SGD", dict(lr=-0.1)), ("SGD", dict(momentum=-0.5)), ("SGD", dict(weight_decay=-1)),
    ("SGD", dict(nesterov=True)), ("SGD", dict(nesterov=True, momentum=0.9, dampening=0.1)),
    ("SGD", dict(fused=True, differentiable=True)), ("SGD", dict(fused=True, foreach=True)),
    ("Adam", dict(lr=-0.1)), ("Adam", dict(eps=-1.0)), ("Adam", dict(betas=(1.0, 0.9))),
    ("Adam", dict(betas=(0.9, -0.1))), ("Adam", dict(weight_decay=-0.1)), ("Adam", dict(betas=(0.9, 1))),
    ("Adam", dict(fused=True, differentiable=True)), ("Adam", dict(fused=True, foreach=True)),
    ("AdamW", dict(lr=-1e-3)), ("AdamW", dict(betas=(0.9, 1.5))),
    ("RMSprop", dict(lr=-0.1)), ("RMSprop", dict(eps=-0.1)), ("RMSprop", dict(momentum=-0.1)),
    ("RMSprop", dict(weight_decay=-0.1)), ("RMSprop", dict(alpha=-0.1)),
    ("Adagrad", dict(lr=-0.1)), ("Adagrad", dict(lr_decay=-0.1)), ("Adagrad", dict(weight_decay=-0.1)),
    ("Adagrad", dict(initial_accumulator_value=-0.1)), ("Adagrad", dict(eps=-0.1)),
    ("Adagrad", dict(fused=True, differentiable=True)),
    ("Adadelta", dict(lr=-0.1)), ("Adadelta", dict(rho=1.1)), ("Adadelta", dict(eps=-0.1)),
    ("Adadelta", dict(weight_decay=-0.1)),
    ("Adamax", dict(lr=-0.1)), ("Adamax", dict(eps=-0.1)), ("Adamax", dict(betas=(1.0, 0.9))),
    ("Adamax", dict(betas=(0.9, 1.0))), ("Adamax", dict(weight_decay=-0.1)),
    ("NAdam", dict(lr=-0.1)), ("NAdam", dict(eps=-0.1)), ("NAdam", dict(betas=(1.0, 0.9))),
    ("NAdam", dict(betas=(0.9, 1.0))), ("NAdam", dict(weight_decay=-0.1)), ("NAdam", dict(momentum_decay=-0.1)),
    ("RAdam", dict(lr=-0.1)), ("RAdam", dict(eps=-0.1)), ("RAdam", dict(betas=(1.0, 0.9))),
    ("RAdam", dict(betas=(0.9, 1.0))), ("RAdam", dict(weight_decay=-0.1)),
])
def test_hyperparameter_errors(torch, cls, kw):
    errs = raises_same(torch, lambda lib: getattr(lib.optim, cls)(make_params(lib), **kw))
    if kw == dict(lr=-0.1):
        assert str(errs[0]) == "Invalid learning rate: -0.1"


def test_duplicate_parameter_warns(torch):
    for lib in (pt, torch):
        W, b = make_params(lib)
        with pytest.warns(UserWarning, match="optimizer contains a parameter group with duplicate parameters"):
            lib.optim.SGD([W, W, b])


def test_capturable_on_cpu_fails_at_step(torch):
    for cls in ("Adam", "AdamW", "RMSprop", "Adadelta", "Adamax", "NAdam", "RAdam"):
        def run(lib):
            W, b = make_params(lib)
            opt = getattr(lib.optim, cls)([W, b], capturable=True)
            W.grad = lib.ones_like(W)
            opt.step()
        raises_same(torch, run)


def test_fused_step_dtype(torch):
    for cls in ("Adam", "AdamW", "Adagrad"):
        (_, _), ours = train(pt, cls, dict(fused=True), "float64", steps=3)
        (_, _), theirs = train(torch, cls, dict(fused=True), "float64", steps=3)
        check_state_dicts(ours, theirs, 1e-11, 1e-12)


# ---------------------------------------------------------------- groups, zero_grad, closure

def test_add_param_group_fills_defaults(torch):
    def run(lib):
        W, b = make_params(lib)
        opt = lib.optim.SGD([W], lr=0.1, momentum=0.9)
        opt.add_param_group({"params": b, "lr": 0.01})
        return opt
    ours, theirs = run(pt), run(torch)
    assert len(ours.param_groups) == 2
    assert ours.param_groups[1]["momentum"] == 0.9 and ours.param_groups[1]["lr"] == 0.01
    assert isinstance(ours.param_groups[1]["params"], list)
    assert repr(ours) == repr(theirs)

    def same_param(lib):
        opt = run(lib)
        opt.add_param_group({"params": opt.param_groups[0]["params"]})
    raises_same(torch, same_param)


def test_required_parameter(torch):
    def run(lib, req):
        W, b = make_params(lib)
        opt = lib.optim.Optimizer([W], {"lr": req, "foo": 1})
        return opt
    for lib, req in ((pt, pt_optimizer.required), (torch, sys.modules["torch.optim.optimizer"].required)):
        with pytest.raises(ValueError, match="parameter group didn't specify a value of required optimization "
                                             "parameter lr"):
            run(lib, req)
    assert repr(pt_optimizer.required) == "<required parameter>"
    opt = pt.optim.Optimizer([{"params": make_params(pt), "lr": 0.3}], {"lr": pt_optimizer.required})
    assert opt.param_groups[0]["lr"] == 0.3
    with pytest.raises(NotImplementedError):
        opt.step()


def test_zero_grad(torch):
    for lib in (pt, torch):
        W, b = make_params(lib)
        opt = lib.optim.SGD([W, b], lr=0.1)
        loss_fn(lib, W, b).backward()
        g = W.grad
        opt.zero_grad(set_to_none=False)
        assert W.grad is g and not g.requires_grad and float(abs(g).sum()) == 0.0
        opt.zero_grad()
        assert W.grad is None and b.grad is None
        # a gradient with history is detached in place
        (gw,) = lib.autograd.grad((W ** 3).sum(), [W], create_graph=True)
        W.grad = gw
        assert W.grad.grad_fn is not None
        opt.zero_grad(set_to_none=False)
        assert W.grad.grad_fn is None and not W.grad.requires_grad and float(abs(W.grad).sum()) == 0.0


def test_closure_runs_with_grad_enabled(torch):
    def run(lib):
        W, b = make_params(lib)
        opt = lib.optim.SGD([W, b], lr=0.1, momentum=0.9)
        seen = []

        def closure():
            seen.append(lib.is_grad_enabled())
            opt.zero_grad()
            loss = loss_fn(lib, W, b)
            loss.backward()
            return loss

        losses = []
        with lib.no_grad():
            for _ in range(5):
                losses.append(opt.step(closure).item())
        assert seen == [True] * 5
        assert lib.is_grad_enabled()
        return losses, W
    (lo, W), (lt, Wt) = run(pt), run(torch)
    np.testing.assert_allclose(lo, lt, rtol=1e-5)
    assert_close(W, Wt, rtol=2e-5, atol=2e-6)
    assert pt.optim.SGD(make_params(pt)).step() is None


def test_step_runs_under_no_grad():
    W, b = make_params(pt)
    opt = pt.optim.Adam([W, b])
    loss_fn(pt, W, b).backward()
    modes = []
    opt.register_step_pre_hook(lambda o, a, k: modes.append(pt.is_grad_enabled()))
    opt.step()
    assert W.grad_fn is None and W.is_leaf and pt.is_grad_enabled()
    assert opt.state[W]["exp_avg"].grad_fn is None and not opt.state[W]["exp_avg"].requires_grad


@pytest.mark.parametrize("cls,kw", [
    ("SGD", dict(lr=0.1, momentum=0.9)), ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.1)), ("Adam", dict(lr=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.1)), ("RMSprop", dict(lr=0.1, centered=True)),
    ("RMSprop", dict(lr=0.1, momentum=0.5, maximize=True)),
    ("Adagrad", dict(lr=0.1, weight_decay=0.1)), ("Adadelta", dict(weight_decay=0.1)),
    ("NAdam", dict(lr=0.1)),
    ("NAdam", dict(lr=0.1, weight_decay=0.1)),
    ("NAdam", dict(decoupled_weight_decay=True, weight_decay=0.1)),
    ("RAdam", dict(lr=0.1)), ("RAdam", dict(lr=0.1, betas=(0.9, 0.5)))])
def test_differentiable_step(torch, cls, kw):
    """With differentiable=True the step is recorded: d(updated params)/d(original) flows back."""
    def run(lib):
        w0 = lib.tensor(W0[0], requires_grad=True)
        w = w0.clone()
        opt = getattr(lib.optim, cls)([w], differentiable=True, **kw)
        for _ in range(3):
            w.grad = (w * w).detach() + 0.5
            opt.step()
        w.sum().backward()
        return w, w0.grad, w.grad_fn is not None
    (w, g, has), (wt, gt, hast) = run(pt), run(torch)
    assert has and hast
    assert_close(w, wt, rtol=1e-11, atol=1e-12)
    assert_close(g, gt, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("cls,kw", [("Adam", dict(lr=0.1, amsgrad=True, weight_decay=0.1)), ("Adamax", dict(lr=0.1))])
def test_differentiable_step_modified_state_fails_like_torch(torch, cls, kw):
    """amsgrad's maximum (and Adamax's amax) save a state tensor that requires grad (weight decay, or Adamax's
    own grad path) and that the next step updates in place: PyTorch's backward raises the version error,
    and so does pedatorch's, with the same message."""
    def run(lib):
        w0 = lib.tensor(W0[0], requires_grad=True)
        w = w0.clone()
        opt = getattr(lib.optim, cls)([w], differentiable=True, **kw)
        for _ in range(3):
            w.grad = (w * w).detach() + 0.5
            opt.step()
        w.sum().backward()
    raises_same(torch, run)


def test_differentiable_leaf_param_fails_like_torch(torch):
    def run(lib):
        W, b = make_params(lib)
        opt = lib.optim.SGD([W, b], lr=0.1, differentiable=True)
        W.grad = lib.ones_like(W)
        opt.step()
    raises_same(torch, run)


# ---------------------------------------------------------------- state dicts

def test_state_dict_layout(torch):
    def run(lib):
        W, b = make_params(lib)
        extra = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.Adam([{"params": [W]}, {"params": [b, extra], "lr": 0.5}], amsgrad=True)
        loss = loss_fn(lib, W, b) + (extra ** 2).sum()
        loss.backward()
        opt.step()
        return opt
    ours, theirs = run(pt), run(torch)
    sd = ours.state_dict()
    assert isinstance(ours.state, collections.defaultdict) and ours.state.default_factory is dict
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1, 2]]
    assert list(sd["state"]) == [0, 1, 2]
    assert list(sd["state"][0]) == ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
    step = sd["state"][0]["step"]
    assert step.dtype == pt.float32 and step.dim() == 0 and step.device.type == "cpu" and step.item() == 1.0
    # the state dict holds the optimizer's own tensors, not copies
    assert sd["state"][1]["exp_avg"] is ours.state[ours.param_groups[1]["params"][0]]["exp_avg"]
    check_state_dicts(ours, theirs, 1e-6, 1e-7)


def test_state_dict_with_names(torch):
    def run(lib):
        W, b = make_params(lib)
        return lib.optim.SGD([("weight", W), ("bias", b)], lr=0.1)
    ours, theirs = run(pt), run(torch)
    assert ours.param_groups[0]["param_names"] == ["weight", "bias"]
    assert ours.state_dict()["param_groups"] == theirs.state_dict()["param_groups"]
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("cls,kw", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(amsgrad=True)),
                                    ("AdamW", {}), ("RMSprop", dict(momentum=0.5, centered=True)),
                                    ("Adagrad", {}), ("Adadelta", {}), ("Adamax", {}), ("NAdam", {}),
                                    ("RAdam", {})])
def test_load_state_dict_resumes(cls, kw):
    """Train 10 steps, save, load into a fresh optimizer over copies, train 10 more: same as 20 steps."""
    (W, b), opt = train(pt, cls, kw, "float64", steps=10)
    sd = copy.deepcopy(opt.state_dict())
    W2, b2 = [pt.nn.Parameter(p.detach().clone()) for p in (W, b)]
    opt2 = getattr(pt.optim, cls)([W2, b2], **kw)
    opt2.load_state_dict(sd)
    for _ in range(10):
        for o, (w, bb) in ((opt, (W, b)), (opt2, (W2, b2))):
            o.zero_grad()
            loss_fn(pt, w, bb, "float64").backward()
            o.step()
    # (NAdam's mu_product is cast to the parameters' dtype on loading, as in PyTorch: not bit-identical)
    assert_close(W2, W, rtol=1e-12, atol=1e-14)
    assert_close(b2, b, rtol=1e-12, atol=1e-14)
    assert opt2.state_dict()["param_groups"] == opt.state_dict()["param_groups"]
    assert set(opt2.state) == {W2, b2}


def test_load_state_dict_casts_like_torch(torch):
    """Saved float64 state loaded for float32 params: floating state is cast, ``step`` is not."""
    def run(lib, cls, kw):
        (_, _), opt64 = train(lib, cls, kw, "float64", steps=3)
        W, b = make_params(lib, "float32")
        opt = getattr(lib.optim, cls)([W, b], **kw)
        opt.load_state_dict(opt64.state_dict())
        return opt
    for cls, kw in (("Adam", {}), ("Adam", dict(fused=True)), ("SGD", dict(momentum=0.9)), ("NAdam", {})):
        ours, theirs = run(pt, cls, kw), run(torch, cls, kw)
        for k, st in theirs.state_dict()["state"].items():
            so = ours.state_dict()["state"][k]
            for name in st:
                assert str(so[name].dtype) == str(st[name].dtype), (cls, name)
                assert_close(so[name], st[name], rtol=1e-6)


def test_load_state_dict_errors(torch):
    def groups(lib):
        opt = lib.optim.SGD(make_params(lib))
        opt2 = lib.optim.SGD([{"params": make_params(lib)[:1]}, {"params": make_params(lib)[1:]}])
        opt.load_state_dict(opt2.state_dict())
    errs = raises_same(torch, groups)
    assert str(errs[0]) == "loaded state dict has a different number of parameter groups"

    def sizes(lib):
        opt = lib.optim.SGD(make_params(lib))
        opt2 = lib.optim.SGD(make_params(lib)[:1])
        opt.load_state_dict(opt2.state_dict())
    errs = raises_same(torch, sizes)
    assert str(errs[0]) == ("loaded state dict contains a parameter group that doesn't match the size of "
                            "optimizer's group")


def test_load_state_dict_keeps_param_names_and_hyperparameters():
    W, b = make_params(pt)
    opt = pt.optim.SGD([("w", W), ("b", b)], lr=0.1)
    other = pt.optim.SGD(make_params(pt), lr=0.7, momentum=0.3)
    opt.load_state_dict(other.state_dict())
    g = opt.param_groups[0]
    assert g["lr"] == 0.7 and g["momentum"] == 0.3 and g["param_names"] == ["w", "b"] and g["params"][0] is W


def test_state_dict_hooks():
    W, b = make_params(pt)
    opt = pt.optim.SGD([W, b], lr=0.1)
    calls = []
    opt.register_state_dict_pre_hook(lambda o: calls.append("pre"))
    opt.register_state_dict_pre_hook(lambda o: calls.append("pre0"), prepend=True)
    h = opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    sd = opt.state_dict()
    assert calls == ["pre0", "pre"] and sd["extra"] == 1
    h.remove()
    assert "extra" not in opt.state_dict()

    def pre(o, sd):
        sd = dict(sd)
        sd["param_groups"] = [dict(g, lr=0.25) for g in sd["param_groups"]]
        return sd
    opt.register_load_state_dict_pre_hook(pre)
    opt.register_load_state_dict_post_hook(lambda o: calls.append("loaded"))
    opt.load_state_dict(opt.state_dict())
    assert opt.param_groups[0]["lr"] == 0.25 and calls[-1] == "loaded"


def test_deepcopy_and_pickle():
    (W, b), opt = train(pt, "Adam", {}, steps=3)
    opt2 = copy.deepcopy(opt)
    assert repr(opt2) == repr(opt)
    assert len(opt2.state) == 2
    p2 = opt2.param_groups[0]["params"][0]
    assert p2 is not W and opt2.state[p2]["step"].item() == 3.0
    opt3 = pickle.loads(pickle.dumps(opt))
    assert opt3.state_dict()["param_groups"] == opt.state_dict()["param_groups"]
    p3 = opt3.param_groups[0]["params"][0]
    p3.grad = pt.ones_like(p3)
    opt3.step()
    assert opt3.state[p3]["step"].item() == 4.0


# ---------------------------------------------------------------- step hooks

def test_step_hooks(torch):
    for lib in (pt, torch):
        W, b = make_params(lib)
        opt = lib.optim.SGD([W, b], lr=0.1)
        calls = []
        h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append(("pre", o is opt, a, k)))
        h2 = opt.register_step_post_hook(lambda o, a, k: calls.append(("post", o is opt, a, k)))
        loss_fn(lib, W, b).backward()
        opt.step()
        assert calls == [("pre", True, (opt,), {}), ("post", True, (opt,), {})]
        h1.remove()
        h2.remove()
        opt.step()
        assert len(calls) == 2

        # a pre-hook may replace the arguments
        def closure():
            return lib.tensor(7.0)
        opt.register_step_pre_hook(lambda o, a, k: (a, {"closure": closure}))
        assert opt.step().item() == 7.0
        opt.register_step_pre_hook(lambda o, a, k: 5)
        with pytest.raises(RuntimeError, match="must return None or a tuple of"):
            opt.step()


def test_global_step_hooks():
    calls = []
    h1 = pt_optimizer.register_optimizer_step_pre_hook(lambda o, a, k: calls.append(("pre", type(o).__name__)))
    h2 = pt_optimizer.register_optimizer_step_post_hook(lambda o, a, k: calls.append(("post", type(o).__name__)))
    try:
        W, b = make_params(pt)
        local = []
        for cls in (pt.optim.SGD, pt.optim.Adam):
            opt = cls([W, b])
            opt.register_step_post_hook(lambda o, a, k: calls.append("local-post"))
            opt.step()
    finally:
        h1.remove()
        h2.remove()
    assert calls == [("pre", "SGD"), "local-post", ("post", "SGD"), ("pre", "Adam"), "local-post", ("post", "Adam")]
    assert not local
    opt.step()
    assert calls[6:] == ["local-post"]


def test_custom_optimizer_subclass():
    """A learner's own Optimizer: hooks wrap its step too; state keyed by the parameter."""
    class Sign(pt.optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, {"lr": lr})

        @pt.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self.state[p]["n"] = self.state[p].get("n", 0) + 1
                        p.add_(p.grad.sign(), alpha=-group["lr"])

    p = pt.nn.Parameter(pt.tensor([1.0, -1.0]))
    opt = Sign([p])
    seen = []
    opt.register_step_post_hook(lambda o, a, k: seen.append(1))
    p.grad = pt.tensor([3.0, -0.5])
    opt.step()
    np.testing.assert_allclose(to_np(p), [0.9, -0.9], rtol=1e-6)
    assert seen == [1] and opt.state_dict()["state"] == {0: {"n": 1}}
    assert repr(opt) == "Sign (\nParameter Group 0\n    lr: 0.1\n)"


def test_sgd_repr_text():
    opt = pt.optim.SGD(make_params(pt))
    assert repr(opt) == ("SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n    foreach: None\n"
                         "    fused: None\n    lr: 0.001\n    maximize: False\n    momentum: 0\n    nesterov: False\n"
                         "    weight_decay: 0\n)")


def test_functional_api(torch):
    from pedatorch.optim.adam import adam
    from pedatorch.optim.sgd import sgd
    p = pt.tensor([1.0, 2.0], dtype=pt.float64)
    g = pt.tensor([0.5, -0.5], dtype=pt.float64)
    bufs = [None]
    sgd([p], [g], bufs, weight_decay=0, momentum=0.9, lr=0.1, dampening=0, nesterov=False, maximize=False)
    assert_close(p, np.array([0.95, 2.05]), rtol=1e-15)
    assert_close(bufs[0], g, rtol=0)
    ea, es, st = pt.zeros(2, dtype=pt.float64), pt.zeros(2, dtype=pt.float64), pt.tensor(0.0)
    adam([p], [g], [ea], [es], [], [st], amsgrad=False, beta1=0.9, beta2=0.999, lr=0.1, weight_decay=0, eps=1e-8,
         maximize=False)
    assert st.item() == 1.0
    with pytest.raises(RuntimeError, match="state_steps"):
        adam([p], [g], [ea], [es], [], [1.0], amsgrad=False, beta1=0.9, beta2=0.999, lr=0.1, weight_decay=0,
             eps=1e-8, maximize=False)


def test_namespace(torch):
    for name in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "Optimizer",
                 "lr_scheduler"):
        assert hasattr(pt.optim, name) and name in pt.optim.__all__
    assert pt.optim.lr_scheduler.StepLR.__name__ == "StepLR"
    assert issubclass(pt.optim.AdamW, pt.optim.Adam)
    assert math.isclose(pt.optim.Adam(make_params(pt)).defaults["eps"], 1e-8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pt.optim.SGD(make_params(pt)).step()
