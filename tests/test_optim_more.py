"""pedatorch.optim.Adafactor and pedatorch.optim.Muon, compared with PyTorch: trajectories after every
step (float32 and float64, several parameter groups, 1-D/2-D/3-D parameters for Adafactor), state dicts
(their keys and contents, and saving and loading mid-run), constructor and step errors, and printing."""
import copy
import inspect
import pickle
import warnings

import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close, to_np

rng = np.random.default_rng(7)
SHAPES = {"vec": (5,), "mat": (4, 3), "wide": (3, 6), "cube": (2, 3, 4)}
INIT = {k: rng.standard_normal(s) for k, s in SHAPES.items()}
TARGET = {k: rng.standard_normal(s) for k, s in SHAPES.items()}
SCALE = {k: rng.uniform(0.5, 2.0, s) for k, s in SHAPES.items()}

TOL = {"float32": dict(rtol=1e-6), "float64": dict(rtol=1e-12)}


def make_params(lib, names, dtype):
    return [lib.nn.Parameter(lib.tensor(INIT[n].astype(dtype))) for n in names]


def loss_of(lib, params, names, dtype):
    """A quartic bowl per parameter, written elementwise so both libraries get the very same gradients."""
    total = 0
    for p, n in zip(params, names):
        d = p * lib.tensor(SCALE[n].astype(dtype)) - lib.tensor(TARGET[n].astype(dtype))
        total = total + (d * d + 0.1 * d * d * d * d).sum()
    return total


def grouped(params, group_kws):
    """One group per entry of ``group_kws``: params are dealt out in order (the last group takes the rest)."""
    groups, start = [], 0
    for i, kw in enumerate(group_kws):
        take = params[start:] if i == len(group_kws) - 1 else params[start:start + 1]
        groups.append({"params": take, **kw})
        start += len(take)
    return groups


def run(lib, cls, kw, names, dtype, steps=6, group_kws=None):
    """Train from INIT; return the optimizer and every parameter's values after each step."""
    params = make_params(lib, names, dtype)
    opt = getattr(lib.optim, cls)(grouped(params, group_kws) if group_kws else params, **kw)
    history = []
    for _ in range(steps):
        opt.zero_grad()
        loss_of(lib, params, names, dtype).backward()
        opt.step()
        history.append([to_np(p) for p in params])
    return opt, params, history


def close(a, b, dtype, scale=None):
    """Within ``rtol`` of PyTorch relative to the tensor's largest entry (an element that the step brings
    near zero keeps the absolute error of its neighbours)."""
    a, b = to_np(a), to_np(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    rtol = TOL[dtype]["rtol"]
    atol = rtol * np.abs(b).max() if scale is None else scale
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def compare_histories(ours, theirs, dtype, scale=None):
    assert len(ours) == len(theirs)
    for step, (po, pt_) in enumerate(zip(ours, theirs)):
        for a, b in zip(po, pt_):
            try:
                close(a, b, dtype, scale)
            except AssertionError as e:
                raise AssertionError(f"after step {step + 1}: {e}") from None


def check_state_dicts(ours, theirs, dtype):
    sd_o, sd_t = ours.state_dict(), theirs.state_dict()
    assert sd_o.keys() == sd_t.keys() == {"state", "param_groups"}
    assert sd_o["param_groups"] == sd_t["param_groups"]
    assert list(sd_o["state"].keys()) == list(sd_t["state"].keys())
    for k, st in sd_t["state"].items():
        so = sd_o["state"][k]
        assert list(so.keys()) == list(st.keys())
        for name, value in st.items():
            assert so[name].shape == tuple(value.shape)
            assert str(so[name].dtype) == str(value.dtype)
            close(so[name], value, dtype)


def raises_same(torch, fn):
    """``fn(lib)`` raises the same exception class with the same message in both libraries."""
    errs = []
    for lib in (pt, torch):
        with pytest.raises(Exception) as info:
            fn(lib)
        errs.append(info.value)
    assert type(errs[0]).__name__ == type(errs[1]).__name__, errs
    assert str(errs[0]) == str(errs[1]), errs


def torch_state_dict_to_pt(torch, sd):
    """A PyTorch optimizer state dict with its tensors turned into pedatorch tensors (same dtypes)."""
    def conv(v):
        if isinstance(v, torch.Tensor):
            return pt.tensor(v.detach().numpy().copy())
        if isinstance(v, dict):
            return {k: conv(x) for k, x in v.items()}
        return copy.deepcopy(v)
    return conv(sd)


# ---------------------------------------------------------------------------------------- Adafactor

ALL = ["vec", "mat", "cube", "wide"]
ADAFACTOR_CASES = [
    ({}, None),
    (dict(lr=0.05), None),
    (dict(lr=0.5, weight_decay=0.1), None),
    (dict(lr=0.2, maximize=True), None),
    (dict(lr=0.3, beta2_decay=-0.5, d=2.0), None),
    (dict(lr=0.3, eps=(1e-6, 1e-2)), None),
    (dict(lr=0.1, eps=(None, 3.0)), None),  # eps2 above RMS(theta): the floor sets the step size
    (dict(lr=0.3, foreach=True), None),     # foreach accepted (the for-loop runs)
    (dict(lr=0.1), [{}, {"lr": 0.4, "weight_decay": 0.2}, {"d": 3.0, "beta2_decay": -0.3, "maximize": True}]),
    (dict(lr=0.1, weight_decay=0.05), [{"eps": (1e-5, 1e-4)}, {"lr": 2.0}]),
]
ADAFACTOR_IDS = [f"{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'defaults'}{'-groups' if g else ''}"
                 for kw, g in ADAFACTOR_CASES]


@pytest.mark.parametrize("kw,group_kws", ADAFACTOR_CASES, ids=ADAFACTOR_IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_adafactor_trajectory_matches_torch(torch, kw, group_kws, dtype):
    ours, _, h_o = run(pt, "Adafactor", kw, ALL, dtype, group_kws=group_kws)
    theirs, _, h_t = run(torch, "Adafactor", kw, ALL, dtype, group_kws=group_kws)
    compare_histories(h_o, h_t, dtype)
    check_state_dicts(ours, theirs, dtype)
    assert repr(ours) == repr(theirs)


def test_adafactor_state_names_and_shapes(torch):
    """2-D and larger: row_var (last dim 1) and col_var (second-to-last dim 1); 1-D: variance."""
    ours, _, _ = run(pt, "Adafactor", {}, ALL, "float32", steps=1)
    state = ours.state_dict()["state"]
    assert list(state[0]) == ["step", "variance"] and state[0]["variance"].shape == (5,)
    assert list(state[1]) == ["step", "row_var", "col_var"]
    assert state[1]["row_var"].shape == (4, 1) and state[1]["col_var"].shape == (1, 3)
    assert state[2]["row_var"].shape == (2, 3, 1) and state[2]["col_var"].shape == (2, 1, 4)
    assert state[0]["step"].dtype == pt.float32 and state[0]["step"].item() == 1.0


def test_adafactor_first_step_by_hand():
    """Step 1 on a vector: beta2_hat = 0 so V = g * g and U = sign(g); RMS(U) = 1, no clipping;
    theta <- theta - max(eps2, RMS(theta)) * min(lr, 1) * sign(g)."""
    theta0 = np.array([3.0, -4.0, 0.0, 1.0])
    g = np.array([0.5, -2.0, 1e-3, -0.25])
    p = pt.nn.Parameter(pt.tensor(theta0))
    opt = pt.optim.Adafactor([p], lr=0.1)
    p.grad = pt.tensor(g)
    opt.step()
    rms = np.sqrt((theta0 ** 2).mean())
    assert_close(p, theta0 - rms * 0.1 * np.sign(g), rtol=1e-15, atol=0)
    assert_close(opt.state[p]["variance"], g * g, rtol=0, atol=0)


def test_adafactor_eps1_defaults_to_machine_epsilon(torch):
    """eps=(None, ...) uses the parameter dtype's machine epsilon: visible when the gradient is tiny."""
    for dtype in ("float32", "float64"):
        res = []
        for lib in (pt, torch):
            p = lib.nn.Parameter(lib.tensor(np.array([[1.0, 2.0], [3.0, 4.0]], dtype=dtype)))
            opt = lib.optim.Adafactor([p])
            p.grad = lib.tensor(np.array([[1e-12, 0.0], [-1e-12, 1e-13]], dtype=dtype))
            opt.step()
            res.append(to_np(p))
        close(res[0], res[1], dtype)


def test_adafactor_eps1_taken_from_first_param_of_group(torch):
    """PyTorch fixes eps1 from the first parameter of a group (when eps1 is None): a float32 parameter
    ahead of a float64 one makes the float64 one use float32's epsilon too."""
    res = []
    for lib in (pt, torch):
        a = lib.nn.Parameter(lib.tensor(np.array([1.0, 2.0], dtype="float32")))
        b = lib.nn.Parameter(lib.tensor(np.array([1.0, 2.0], dtype="float64")))
        opt = lib.optim.Adafactor([a, b])
        a.grad = lib.tensor(np.array([1.0, 1.0], dtype="float32"))
        b.grad = lib.tensor(np.array([1e-9, 1e-10], dtype="float64"))
        opt.step()
        res.append((to_np(a), to_np(b)))
    close(res[0][0], res[1][0], "float32")
    close(res[0][1], res[1][1], "float64")


def test_adafactor_tensor_lr(torch):
    res = []
    for lib in (pt, torch):
        opt_params = make_params(lib, ["mat", "vec"], "float64")
        opt = lib.optim.Adafactor(opt_params, lr=lib.tensor(0.2), weight_decay=0.1)
        for _ in range(3):
            opt.zero_grad()
            loss_of(lib, opt_params, ["mat", "vec"], "float64").backward()
            opt.step()
        res.append([to_np(p) for p in opt_params])
    for a, b in zip(*res):
        close(a, b, "float64")


def test_adafactor_default_dtype_float64_step(torch):
    prev = pt.get_default_dtype()
    prev_t = torch.get_default_dtype()
    try:
        pt.set_default_dtype(pt.float64)
        torch.set_default_dtype(torch.float64)
        for lib in (pt, torch):
            p = lib.nn.Parameter(lib.ones(2, 2))
            opt = lib.optim.Adafactor([p])
            p.grad = lib.ones(2, 2)
            opt.step()
            assert str(opt.state[p]["step"].dtype).endswith("float64")
    finally:
        pt.set_default_dtype(prev)
        torch.set_default_dtype(prev_t)


# ---------------------------------------------------------------------------------------- Muon

MATS = ["mat", "wide"]
MUON_CASES = [
    ({}, None),
    (dict(lr=0.05), None),
    (dict(lr=0.05, weight_decay=0.0, momentum=0.9, nesterov=False), None),
    (dict(lr=0.02, adjust_lr_fn="original"), None),
    (dict(lr=0.02, adjust_lr_fn="match_rms_adamw", weight_decay=0.3), None),
    (dict(lr=0.02, ns_steps=3, ns_coefficients=(2.0, -1.5, 0.5), eps=1e-5), None),
    (dict(lr=0.02, momentum=0.0), None),
    (dict(lr=0.02), [{"nesterov": False, "weight_decay": 0.0}, {"lr": 0.1, "adjust_lr_fn": "match_rms_adamw",
                                                                "momentum": 0.5}]),
]
MUON_IDS = [f"{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'defaults'}{'-groups' if g else ''}"
            for kw, g in MUON_CASES]


def fixed_grads(names, dtype, steps=6, seed=5):
    """A fixed gradient sequence of small dyadic fractions (exact in every evaluation order)."""
    g = np.random.default_rng(seed)
    return [[(g.integers(-16, 17, SHAPES[n]) / 16).astype(dtype) for n in names] for _ in range(steps)]


def run_muon_fixed_grads(lib, kw, dtype, group_kws=None):
    params = make_params(lib, MATS, dtype)
    opt = lib.optim.Muon(grouped(params, group_kws) if group_kws else params, **kw)
    history = []
    for grads in fixed_grads(MATS, dtype):
        for p, g in zip(params, grads):
            p.grad = lib.tensor(g)
        opt.step()
        history.append([to_np(p) for p in params])
    return opt, history


@pytest.mark.parametrize("kw,group_kws", MUON_CASES, ids=MUON_IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_muon_trajectory_matches_torch(torch, kw, group_kws, dtype):
    """Gradients set directly, so that every step starts from the same momentum in both libraries: the
    bfloat16 Newton-Schulz result is then bit-identical and the parameters agree to rounding."""
    ours, h_o = run_muon_fixed_grads(pt, kw, dtype, group_kws)
    theirs, h_t = run_muon_fixed_grads(torch, kw, dtype, group_kws)
    compare_histories(h_o, h_t, dtype)
    check_state_dicts(ours, theirs, dtype)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_muon_trajectory_from_a_loss(torch, dtype):
    """Gradients from a loss of the parameters: a last-bit difference in an elementwise op can move a
    bfloat16 rounding inside Newton-Schulz, which changes that step by up to ~2**-8 of the update.
    So the bound here is bfloat16's: steps * adjusted lr * 2**-7."""
    kw = dict(lr=0.05, weight_decay=0.1)
    _, _, h_o = run(pt, "Muon", kw, MATS, dtype, group_kws=[{}, {"adjust_lr_fn": "match_rms_adamw"}])
    _, _, h_t = run(torch, "Muon", kw, MATS, dtype, group_kws=[{}, {"adjust_lr_fn": "match_rms_adamw"}])
    compare_histories(h_o, h_t, dtype, scale=6 * 0.05 * 0.2 * 6 ** 0.5 * 2 ** -7)


def test_muon_newton_schulz_matches_torch(torch):
    """The bfloat16 orthogonalization itself, tall and wide, bit for bit, and it does orthogonalize."""
    from pedatorch.optim._muon import _zeropower_via_newtonschulz as ns_pt
    from torch.optim._muon import _zeropower_via_newtonschulz as ns_t
    coeffs = (3.4445, -4.7750, 2.0315)
    for shape in [(3, 5), (5, 3), (8, 8), (16, 7)]:
        g = np.random.default_rng(1).standard_normal(shape).astype("float32")
        ours = ns_pt(pt.tensor(g), coeffs, 5, 1e-7)
        theirs = ns_t(torch.tensor(g), coeffs, 5, 1e-7)
        assert ours.dtype == pt.bfloat16 and ours.shape == tuple(theirs.shape)
        np.testing.assert_array_equal(to_np(ours.float()), theirs.float().numpy())
        s = np.linalg.svd(to_np(ours.float()), compute_uv=False)
        assert (s > 0.5).all() and (s < 1.5).all()


MLP_INIT = [np.random.default_rng(10 + i).uniform(-0.5, 0.5, s).astype("float32")
            for i, s in enumerate([(8, 4), (8,), (2, 8), (2,)])]


def test_muon_model_with_adamw_for_the_rest(torch):
    """The documented pattern: Muon for the 2-D weights, AdamW for the biases, on a tiny MLP."""
    x = np.random.default_rng(3).standard_normal((6, 4)).astype("float32")
    y = np.random.default_rng(4).standard_normal((6, 2)).astype("float32")
    res = []
    for lib in (pt, torch):
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2))
        with lib.no_grad():  # the same initial weights in both
            for p, w in zip(model.parameters(), MLP_INIT):
                p.copy_(lib.tensor(w))
        mats = [p for p in model.parameters() if p.ndim == 2]
        rest = [p for p in model.parameters() if p.ndim != 2]
        muon = lib.optim.Muon(mats, lr=0.02)
        adamw = lib.optim.AdamW(rest, lr=3e-3)
        for _ in range(4):
            muon.zero_grad()
            adamw.zero_grad()
            ((model(lib.tensor(x)) - lib.tensor(y)) ** 2).mean().backward()
            muon.step()
            adamw.step()
        res.append([to_np(p) for p in model.parameters()])
    for a, b in zip(*res):  # bfloat16's bound (see test_muon_trajectory_from_a_loss)
        np.testing.assert_allclose(a, b, rtol=0, atol=4 * 0.02 * 2 ** 0.5 * 2 ** -7)


def test_muon_tensor_lr(torch):
    res = []
    for lib in (pt, torch):
        params = make_params(lib, MATS, "float64")
        opt = lib.optim.Muon(params, lr=lib.tensor(0.05))
        for grads in fixed_grads(MATS, "float64", steps=3):
            for p, g in zip(params, grads):
                p.grad = lib.tensor(g)
            opt.step()
        res.append([to_np(p) for p in params])
    for a, b in zip(*res):
        close(a, b, "float64")


# ---------------------------------------------------------------------------------------- both

CLASSES = [("Adafactor", ALL, dict(lr=0.2, weight_decay=0.1)),
           ("Muon", MATS, dict(lr=0.05, adjust_lr_fn="match_rms_adamw"))]


@pytest.mark.parametrize("cls,names,kw", CLASSES, ids=[c[0] for c in CLASSES])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_state_dict_round_trip(torch, cls, names, kw, dtype):
    """Save after 3 steps, load into a fresh optimizer over copies of the parameters: both runs continue
    identically, and as PyTorch does; a PyTorch state dict loads and continues as PyTorch too."""
    grads = fixed_grads(names, dtype, steps=6, seed=11)
    group_kws = [{}, {"lr": kw["lr"] * 2}]

    def make(lib, params, groups):
        return getattr(lib.optim, cls)(grouped(params, groups), **kw)

    def step(lib, opt, params, i):
        for p, g in zip(params, grads[i]):
            p.grad = lib.tensor(g)
        opt.step()

    params, params_t = make_params(pt, names, dtype), make_params(torch, names, dtype)
    ours, theirs = make(pt, params, group_kws), make(torch, params_t, group_kws)
    for i in range(3):
        step(pt, ours, params, i)
        step(torch, theirs, params_t, i)

    saved = pickle.loads(pickle.dumps(ours.state_dict()))
    params2 = [pt.nn.Parameter(p.detach().clone()) for p in params]
    fresh = make(pt, params2, [{}, {"lr": 123.0}])
    fresh.load_state_dict(saved)
    assert fresh.param_groups[1]["lr"] == kw["lr"] * 2  # the hyper-parameters come from the dict
    check_state_dicts(fresh, theirs, dtype)

    from_torch = [pt.nn.Parameter(pt.tensor(p.detach().numpy().copy())) for p in params_t]
    crossed = make(pt, from_torch, [{}, {}])
    crossed.load_state_dict(torch_state_dict_to_pt(torch, theirs.state_dict()))
    check_state_dicts(crossed, theirs, dtype)

    for i in range(3, 6):
        for lib, opt, ps in ((pt, ours, params), (pt, fresh, params2), (pt, crossed, from_torch),
                             (torch, theirs, params_t)):
            step(lib, opt, ps, i)
        for a, b, c, d in zip(params, params2, from_torch, params_t):
            np.testing.assert_array_equal(to_np(a), to_np(b))
            close(c, d, dtype)
            close(a, d, dtype)
    check_state_dicts(fresh, theirs, dtype)
    check_state_dicts(crossed, theirs, dtype)


@pytest.mark.parametrize("cls,names,kw", CLASSES, ids=[c[0] for c in CLASSES])
def test_deepcopy_and_pickle_continue_identically(cls, names, kw):
    opt, params, _ = run(pt, cls, kw, names, "float64", steps=2)
    runs = [(opt, params), copy.deepcopy((opt, params)), pickle.loads(pickle.dumps((opt, params)))]
    for _ in range(2):
        for o, ps in runs:
            o.zero_grad()
            loss_of(pt, ps, names, "float64").backward()
            o.step()
        for _, ps in runs[1:]:
            for a, b in zip(params, ps):
                np.testing.assert_array_equal(to_np(a), to_np(b))


@pytest.mark.parametrize("cls,names", [("Adafactor", ALL), ("Muon", MATS)])
def test_grad_none_skipped_and_closure(torch, cls, names):
    res = []
    for lib in (pt, torch):
        params = make_params(lib, names, "float64")
        opt = getattr(lib.optim, cls)(params, lr=0.1)

        def closure():
            opt.zero_grad()
            assert lib.is_grad_enabled()
            loss = loss_of(lib, params[:1], names[:1], "float64")
            loss.backward()
            return loss

        with lib.no_grad():
            loss = opt.step(closure)
        assert len(opt.state) == 1 and params[0] in opt.state and params[1] not in opt.state
        res.append((loss.item(), [to_np(p) for p in params]))
    assert abs(res[0][0] - res[1][0]) <= 1e-14 * abs(res[1][0])  # the loss (a sum: last bit may differ)
    for a, b in zip(res[0][1], res[1][1]):
        close(a, b, "float64")
    np.testing.assert_array_equal(res[0][1][1], INIT[names[1]])


@pytest.mark.parametrize("cls", ["Adafactor", "Muon"])
def test_signature_defaults_repr_and_namespace(torch, cls):
    sig_o = inspect.signature(getattr(pt.optim, cls).__init__).parameters
    sig_t = inspect.signature(getattr(torch.optim, cls).__init__).parameters
    assert [(n, p.kind, p.default) for n, p in sig_o.items()] == [(n, p.kind, p.default) for n, p in sig_t.items()]
    names = MATS if cls == "Muon" else ALL
    ours = getattr(pt.optim, cls)([{"params": make_params(pt, names, "float32")[:1]},
                                   {"params": make_params(pt, names, "float32")[1:], "lr": 0.5}])
    theirs = getattr(torch.optim, cls)([{"params": make_params(torch, names, "float32")[:1]},
                                        {"params": make_params(torch, names, "float32")[1:], "lr": 0.5}])
    assert repr(ours) == repr(theirs)
    assert ours.defaults == theirs.defaults
    assert cls in pt.optim.__all__ and cls in torch.optim.__all__
    assert getattr(pt.optim, cls).__module__ == "pedatorch.optim"
    assert isinstance(ours, pt.optim.Optimizer)
    assert "\n" in getattr(pt.optim, cls).__doc__ and getattr(pt.optim, cls).__doc__.strip()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours.step()  # no gradients: nothing happens, no warning


def test_functional_apis(torch):
    from pedatorch.optim._adafactor import adafactor
    from pedatorch.optim._muon import muon
    p = pt.tensor([1.0, 2.0], dtype=pt.float64)
    g = pt.tensor([0.5, -0.5], dtype=pt.float64)
    with pytest.raises(RuntimeError, match="`state_steps` argument must contain a list of singleton tensors"):
        adafactor([p], [g], [None], [None], [pt.zeros(2, dtype=pt.float64)], [1.0], d=1.0, lr=0.1,
                  beta2_decay=-0.8, weight_decay=0.0, eps1=None, eps2=1e-3, maximize=False)
    kw = dict(lr=0.1, weight_decay=0.0, momentum=0.9, nesterov=True, ns_coefficients=(3.4445, -4.7750, 2.0315),
              ns_steps=5, eps=1e-7, adjust_lr_fn=None, has_complex=False)

    def call_muon(lib, grad_shape=(2, 2), **extra):
        lib.optim._muon.muon([lib.ones(2, 2)], [lib.ones(*grad_shape)], [lib.zeros(*grad_shape)], **{**kw, **extra})

    raises_same(torch, lambda lib: call_muon(lib, foreach=True))
    raises_same(torch, lambda lib: call_muon(lib, grad_shape=(2,)))
    raises_same(torch, lambda lib: call_muon(lib, has_complex=True))


# ---------------------------------------------------------------------------------------- errors

def _p(lib, shape=(2, 3), dtype="float32"):
    return [lib.nn.Parameter(lib.zeros(*shape, dtype=getattr(lib, dtype)))]


ADAFACTOR_BAD = [dict(lr=-0.1), dict(beta2_decay=0.5), dict(eps=(-1e-3, 1e-3)), dict(eps=(None, -1.0)),
                 dict(d=0.5), dict(weight_decay=-1e-2)]
MUON_BAD = [dict(lr=-1.0), dict(momentum=-0.5), dict(weight_decay=-0.1), dict(adjust_lr_fn="sqrt")]


@pytest.mark.parametrize("kw", ADAFACTOR_BAD, ids=[next(iter(k)) for k in ADAFACTOR_BAD])
def test_adafactor_constructor_errors(torch, kw):
    raises_same(torch, lambda lib: lib.optim.Adafactor(_p(lib), **kw))


@pytest.mark.parametrize("kw", MUON_BAD, ids=[next(iter(k)) for k in MUON_BAD])
def test_muon_constructor_errors(torch, kw):
    raises_same(torch, lambda lib: lib.optim.Muon(_p(lib), **kw))


def test_common_constructor_errors(torch):
    for cls in ("Adafactor", "Muon"):
        raises_same(torch, lambda lib: getattr(lib.optim, cls)(_p(lib), lr=lib.tensor([0.1, 0.2])))
        raises_same(torch, lambda lib: getattr(lib.optim, cls)([]))
        raises_same(torch, lambda lib: getattr(lib.optim, cls)(_p(lib)[0]))
        raises_same(torch, lambda lib: getattr(lib.optim, cls)({"params": _p(lib)}.values()))
    raises_same(torch, lambda lib: lib.optim.Adafactor(_p(lib), foreach=True, maximize=True, unknown=1))
    raises_same(torch, lambda lib: lib.optim.Muon(_p(lib), maximize=True))
    raises_same(torch, lambda lib: lib.optim.Muon(_p(lib), foreach=True))


def test_muon_only_2d(torch):
    for shape in [(3,), (2, 3, 4), ()]:
        raises_same(torch, lambda lib: lib.optim.Muon(_p(lib, shape)))
    raises_same(torch, lambda lib: lib.optim.Muon([{"params": _p(lib)}, {"params": _p(lib, (4,))}]))
    # add_param_group after construction is not checked (as in PyTorch); the step is
    for lib in (pt, torch):
        opt = lib.optim.Muon(_p(lib))
        opt.add_param_group({"params": _p(lib, (4,))})
        assert len(opt.param_groups) == 2


def test_step_errors(torch):
    def complex_adafactor(lib):
        p = lib.nn.Parameter(lib.zeros(2, 2, dtype=lib.complex64))
        p.grad = lib.ones(2, 2, dtype=lib.complex64)
        lib.optim.Adafactor([p]).step()

    def complex_muon(lib):
        p = lib.nn.Parameter(lib.zeros(2, 2, dtype=lib.complex64))
        p.grad = lib.ones(2, 2, dtype=lib.complex64)
        lib.optim.Muon([p]).step()

    def muon_steps(lib, **kw):
        p = lib.nn.Parameter(lib.zeros(2, 2))
        p.grad = lib.ones(2, 2)
        lib.optim.Muon([p], **kw).step()

    raises_same(torch, complex_adafactor)
    raises_same(torch, complex_muon)
    raises_same(torch, lambda lib: muon_steps(lib, ns_steps=100))
    raises_same(torch, lambda lib: muon_steps(lib, ns_coefficients=(1.0, 2.0)))

    def muon_1d_added(lib):
        opt = lib.optim.Muon(_p(lib))
        q = lib.nn.Parameter(lib.zeros(4))
        q.grad = lib.ones(4)
        opt.add_param_group({"params": [q]})
        opt.step()

    raises_same(torch, muon_1d_added)


def test_load_state_dict_errors(torch):
    for cls, names in (("Adafactor", ALL), ("Muon", MATS)):
        def load_mismatch(lib):
            opt, _, _ = run(lib, cls, {}, names, "float32", steps=1)
            fresh = getattr(lib.optim, cls)(make_params(lib, names, "float32")[:1])
            fresh.load_state_dict(opt.state_dict())

        raises_same(torch, load_mismatch)
