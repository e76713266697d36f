"""Mixed precision: ``pedatorch.autocast`` (op dtypes, regions, the state functions, custom_fwd/custom_bwd) and
``pedatorch.amp.GradScaler`` (scale, unscale_, step, update, state_dict), compared with PyTorch where it is
installed: the dtype each op returns inside ``autocast("cpu", dtype=bfloat16 / float16)``, the dtypes of the
course's models, their losses and their gradients, and GradScaler's trajectory of scale and parameters.

The CUDA lists are checked on the stand-in CUDA backend (numpy inside; a real GPU where there is one).

Some checks need the op front ends to hand their tensors to autocast before they compare dtypes
(``autograd.function.before_checks``: ``mm`` refuses a bfloat16 activation and a float32 weight before
``Mm.apply`` is reached); they are marked ``needs_front_ends`` and expected to fail until that hook is in.
"""
import pickle
import threading
import warnings

import numpy as np
import pytest

import pedatorch as pt
from pedatorch.amp import autocast_mode as am
from pedatorch.autograd import function as _function
from pedatorch.backend import cuda_available, standin

needs_front_ends = pytest.mark.xfail(not hasattr(_function, "before_checks"), strict=True,
                                     reason="the op front ends do not hand their tensors to autocast yet "
                                            "(autograd.function.before_checks)")

LOWER = ["bfloat16", "float16"]


def _dt(lib, name):
    return getattr(lib, name)


@pytest.fixture(autouse=True)
def _clean_state():
    """Every test starts and ends with autocast off everywhere and no OpMode left behind."""
    yield
    for dev in am._DEFAULT_DTYPES:
        if am._state.enabled[dev]:
            am.set_autocast_enabled(dev, False)
    am._state.dtype.update(am._DEFAULT_DTYPES)
    am._state.cache_enabled = True
    am._state.nesting = 0
    am.clear_autocast_cache()
    assert _function.active_modes() == []


def _caught(fn):
    """Run fn; (result, [(category name, message)]) of the warnings it gave."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = fn()
    return r, [(x.category.__name__, str(x.message)) for x in w]


def _error(fn):
    try:
        fn()
    except Exception as e:   # noqa: BLE001  (the class and message are what is compared)
        return type(e).__name__, str(e)
    return None


# ====================================================================== the state and the region

def test_defaults_and_availability():
    assert pt.amp.get_autocast_dtype("cpu") is pt.bfloat16
    assert pt.amp.get_autocast_dtype("cuda") is pt.float16
    assert not pt.amp.is_autocast_enabled() and not pt.amp.is_autocast_enabled("cpu")
    assert pt.amp.is_autocast_cache_enabled()
    for dev in ("cpu", "cuda", "xpu", "mps", "hpu"):
        assert pt.amp.is_autocast_available(dev)
    assert not pt.amp.is_autocast_available("meta")
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        pt.amp.is_autocast_available("foo")


def test_region_sets_nests_and_restores():
    x, w = pt.randn(3, 4), pt.randn(4, 2)
    assert (x @ w).dtype is pt.float32
    with pt.autocast("cpu") as region:
        assert isinstance(region, pt.autocast)
        assert pt.amp.is_autocast_enabled("cpu") and pt.amp.get_autocast_dtype("cpu") is pt.bfloat16
        assert (x @ w).dtype is pt.bfloat16
        with pt.autocast("cpu", dtype=pt.float16):
            assert (x @ w).dtype is pt.float16
            with pt.autocast("cpu", enabled=False):
                assert not pt.amp.is_autocast_enabled("cpu")
                assert (x @ w).dtype is pt.float32
            assert (x @ w).dtype is pt.float16
        assert (x @ w).dtype is pt.bfloat16 and pt.amp.get_autocast_dtype("cpu") is pt.bfloat16
    assert not pt.amp.is_autocast_enabled("cpu") and (x @ w).dtype is pt.float32
    with pytest.raises(ZeroDivisionError):
        with pt.autocast("cpu", dtype=pt.float16):
            1 / 0
    assert not pt.amp.is_autocast_enabled("cpu") and pt.amp.get_autocast_dtype("cpu") is pt.bfloat16


def test_the_mode_is_entered_only_while_enabled():
    """Outside autocast no OpMode is entered, so ops pay nothing (ArrayFunction.apply's one check)."""
    assert _function.active_modes() == []
    with pt.autocast("cpu"):
        assert len(_function.active_modes()) == 1
        with pt.autocast("cpu", enabled=False):
            assert _function.active_modes() == []
    with pt.autocast("cpu", enabled=False):
        assert _function.active_modes() == []
    assert _function.active_modes() == []


def test_set_autocast_enabled_without_a_region():
    x = pt.randn(2, 2)
    pt.amp.set_autocast_enabled("cpu", True)
    assert pt.mm(x, x).dtype is pt.bfloat16
    pt.amp.set_autocast_dtype("cpu", pt.float16)
    assert pt.mm(x, x).dtype is pt.float16
    pt.amp.set_autocast_enabled("cpu", False)
    assert pt.mm(x, x).dtype is pt.float32
    pt.amp.set_autocast_enabled(True)   # the older one-argument form means CUDA
    assert pt.amp.is_autocast_enabled() and pt.amp.is_autocast_enabled("cuda")
    pt.amp.set_autocast_enabled(False)


def test_decorator():
    lin = pt.nn.Linear(4, 2)

    @pt.autocast("cpu", dtype=pt.bfloat16)
    def forward(x):
        return lin(x)

    assert forward(pt.randn(3, 4)).dtype is pt.bfloat16 and lin(pt.randn(3, 4)).dtype is pt.float32
    assert forward.__name__ == "forward"


def test_state_is_per_thread():
    seen = []
    with pt.autocast("cpu"):
        t = threading.Thread(target=lambda: seen.append((pt.amp.is_autocast_enabled("cpu"),
                                                         pt.mm(pt.ones(2, 2), pt.ones(2, 2)).dtype)))
        t.start()
        t.join()
    assert seen == [(False, pt.float32)]


def test_nesting_counter_and_cache_functions():
    assert pt.amp.autocast_increment_nesting() == 1
    assert pt.amp.autocast_increment_nesting() == 2
    assert pt.amp.autocast_decrement_nesting() == 1
    assert pt.amp.autocast_decrement_nesting() == 0
    pt.amp.set_autocast_cache_enabled(False)
    assert not pt.amp.is_autocast_cache_enabled()
    with pt.autocast("cpu", cache_enabled=True):
        assert pt.amp.is_autocast_cache_enabled()
    assert not pt.amp.is_autocast_cache_enabled()
    pt.amp.set_autocast_cache_enabled(True)


def test_messages_equal_pytorchs(torch):
    cases = [
        lambda lib: lib.autocast(1),
        lambda lib: lib.autocast("meta"),
        lambda lib: lib.autocast("meta", dtype=lib.float16),
        lambda lib: lib.autocast("cpu")(3),
        lambda lib: lib.amp.custom_fwd(lambda x: x, device_type=1),
        lambda lib: lib.amp.custom_bwd(lambda x: x, device_type=1),
        lambda lib: (lib if lib is torch else lib.amp).is_autocast_enabled(1),
        lambda lib: (lib if lib is torch else lib.amp).set_autocast_enabled("cpu", 1),
        lambda lib: (lib if lib is torch else lib.amp).set_autocast_enabled("cpu"),
        lambda lib: (lib if lib is torch else lib.amp).set_autocast_enabled(),
        lambda lib: (lib if lib is torch else lib.amp).get_autocast_dtype(3),
        lambda lib: (lib if lib is torch else lib.amp).set_autocast_dtype("cpu", 3),
        lambda lib: (lib if lib is torch else lib.amp).set_autocast_cache_enabled(1),
    ]
    for case in cases:
        assert _error(lambda: case(pt)) == _error(lambda: case(torch))


def test_unsupported_dtype_warns_and_disables(torch):
    for lib in (pt, torch):
        region, warned = _caught(lambda: lib.autocast("cpu", dtype=lib.float32))
        assert not region._enabled
        assert warned == [("UserWarning", "In CPU autocast, but the target dtype is not supported. Disabling "
                                          "autocast.\nCPU Autocast only supports dtypes of torch.bfloat16, "
                                          "torch.float16 currently.")]


@pytest.mark.skipif(cuda_available(), reason="a GPU is there")
def test_cuda_without_gpu_warns_and_disables(torch):
    x = pt.randn(2, 2)
    for lib in (pt, torch):
        region, warned = _caught(lambda: lib.autocast("cuda"))
        assert warned == [("UserWarning", "CUDA is not available or torch_xla is imported. Disabling autocast.")]
        assert not region._enabled and region.fast_dtype is lib.float16
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pt.autocast("cuda"):
            assert not pt.amp.is_autocast_enabled("cuda") and pt.mm(x, x).dtype is pt.float32


def test_deprecated_state_functions(torch):
    names = ["is_autocast_cpu_enabled", "get_autocast_cpu_dtype", "get_autocast_gpu_dtype",
             "is_autocast_xla_enabled", "get_autocast_xla_dtype", "is_autocast_ipu_enabled", "get_autocast_ipu_dtype"]
    for name in names:
        ours, warned = _caught(getattr(pt.amp, name))
        theirs, expected = _caught(getattr(torch, name))
        assert str(ours) == str(theirs) and warned == expected
    _, warned = _caught(lambda: pt.amp.set_autocast_cpu_enabled(True))
    assert pt.amp.is_autocast_enabled("cpu")
    _, expected = _caught(lambda: torch.set_autocast_cpu_enabled(False))
    assert warned == expected
    pt.amp.set_autocast_enabled("cpu", False)
    _, warned = _caught(lambda: pt.amp.set_autocast_cpu_dtype(pt.float16))
    assert pt.amp.get_autocast_dtype("cpu") is pt.float16
    _, expected = _caught(lambda: torch.set_autocast_cpu_dtype(torch.bfloat16))
    assert warned == expected


# ====================================================================== which dtype each op gives

def _ops(lib):
    """op name -> f(dtype) building its inputs in ``dtype`` (all of them) and calling it."""
    F = lib.nn.functional

    def r(d, *shape):
        return lib.rand(*shape).to(d)

    return {
        "mm": lambda d: lib.mm(r(d, 3, 4), r(d, 4, 5)),
        "matmul": lambda d: lib.matmul(r(d, 2, 3, 4), r(d, 4, 5)),
        "matmul_vectors": lambda d: lib.matmul(r(d, 4), r(d, 4)),
        "matmul_matrix_vector": lambda d: r(d, 3, 4) @ r(d, 4),
        "bmm": lambda d: lib.bmm(r(d, 2, 3, 4), r(d, 2, 4, 5)),
        "mv": lambda d: lib.mv(r(d, 3, 4), r(d, 4)),
        "dot": lambda d: lib.dot(r(d, 4), r(d, 4)),
        "addmm": lambda d: lib.addmm(r(d, 3, 5), r(d, 3, 4), r(d, 4, 5)),
        "addmv": lambda d: lib.addmv(r(d, 3), r(d, 3, 4), r(d, 4)),
        "baddbmm": lambda d: lib.baddbmm(r(d, 2, 3, 5), r(d, 2, 3, 4), r(d, 2, 4, 5)),
        "linear": lambda d: F.linear(r(d, 2, 3, 4), r(d, 5, 4), r(d, 5)),
        "bilinear": lambda d: F.bilinear(r(d, 3, 4), r(d, 3, 2), r(d, 5, 4, 2)),
        "einsum": lambda d: lib.einsum("ij,jk->ik", r(d, 3, 4), r(d, 4, 5)),
        "tensordot": lambda d: lib.tensordot(r(d, 3, 4), r(d, 4, 5), 1),
        "multi_dot": lambda d: lib.linalg.multi_dot([r(d, 3, 4), r(d, 4, 5), r(d, 5, 2)]),
        "vecdot": lambda d: lib.linalg.vecdot(r(d, 3, 4), r(d, 3, 4)),
        "conv1d": lambda d: F.conv1d(r(d, 1, 2, 5), r(d, 3, 2, 2)),
        "conv2d": lambda d: F.conv2d(r(d, 1, 2, 5, 5), r(d, 3, 2, 2, 2), r(d, 3)),
        "conv_transpose2d": lambda d: F.conv_transpose2d(r(d, 1, 2, 5, 5), r(d, 2, 3, 2, 2)),
        "prelu": lambda d: F.prelu(r(d, 2, 3), r(d, 3)),
        "sdpa": lambda d: F.scaled_dot_product_attention(r(d, 1, 2, 3, 4), r(d, 1, 2, 3, 4), r(d, 1, 2, 3, 4)),
        "exp": lambda d: r(d, 3).exp(),
        "log_softmax": lambda d: F.log_softmax(r(d, 2, 3), -1),
        "softmax": lambda d: F.softmax(r(d, 2, 3), -1),
        "sum": lambda d: r(d, 3).sum(),
        "prod": lambda d: r(d, 3).prod(),
        "cumsum": lambda d: r(d, 3).cumsum(0),
        "norm": lambda d: r(d, 3).norm(),
        "relu": lambda d: F.relu(r(d, 3)),
        "gelu": lambda d: F.gelu(r(d, 3)),
        "layer_norm": lambda d: F.layer_norm(r(d, 2, 3), (3,), r(d, 3), r(d, 3)),
        "group_norm": lambda d: F.group_norm(r(d, 2, 4, 3), 2, r(d, 4), r(d, 4)),
        "batch_norm": lambda d: F.batch_norm(r(d, 2, 3, 4), lib.zeros(3), lib.ones(3), r(d, 3), r(d, 3), True),
        "max_pool2d": lambda d: F.max_pool2d(r(d, 1, 2, 4, 4), 2),
        "avg_pool3d": lambda d: F.avg_pool3d(r(d, 1, 2, 4, 4, 4), 2),
        "max_pool3d": lambda d: F.max_pool3d(r(d, 1, 2, 4, 4, 4), 2),
        "adaptive_avg_pool2d": lambda d: F.adaptive_avg_pool2d(r(d, 1, 2, 4, 4), 1),
        "max_unpool2d": lambda d: F.max_unpool2d(*F.max_pool2d(r(d, 1, 2, 4, 4), 2, return_indices=True), 2),
        "pad_reflect": lambda d: F.pad(r(d, 1, 1, 3, 3), (1, 1, 1, 1), mode="reflect"),
        "pad_constant": lambda d: F.pad(r(d, 1, 1, 3, 3), (1, 1, 1, 1)),
        "mse_loss": lambda d: F.mse_loss(r(d, 3), r(d, 3)),
        "l1_loss": lambda d: F.l1_loss(r(d, 3), r(d, 3)),
        "smooth_l1_loss": lambda d: F.smooth_l1_loss(r(d, 3), r(d, 3)),
        "huber_loss": lambda d: F.huber_loss(r(d, 3), r(d, 3)),
        "cross_entropy": lambda d: F.cross_entropy(r(d, 2, 3), lib.tensor([0, 2])),
        "cross_entropy_probs": lambda d: F.cross_entropy(r(d, 2, 3), r(d, 2, 3)),
        "nll_loss": lambda d: F.nll_loss(r(d, 2, 3), lib.tensor([0, 2])),
        "binary_cross_entropy": lambda d: F.binary_cross_entropy(r(d, 3), r(d, 3)),
        "bce_with_logits": lambda d: F.binary_cross_entropy_with_logits(r(d, 3), r(d, 3)),
        "kl_div": lambda d: F.kl_div(r(d, 3), r(d, 3), reduction="batchmean"),
        "soft_margin_loss": lambda d: F.soft_margin_loss(r(d, 3), r(d, 3)),
        "margin_ranking_loss": lambda d: F.margin_ranking_loss(r(d, 3), r(d, 3), r(d, 3)),
        "hinge_embedding_loss": lambda d: F.hinge_embedding_loss(r(d, 3), r(d, 3)),
        "cosine_embedding_loss": lambda d: F.cosine_embedding_loss(r(d, 2, 3), r(d, 2, 3), lib.tensor([1, -1])),
        "poisson_nll_loss": lambda d: F.poisson_nll_loss(r(d, 3), r(d, 3)),
        "triplet_margin_loss": lambda d: F.triplet_margin_loss(r(d, 2, 3), r(d, 2, 3), r(d, 2, 3)),
        "multi_margin_loss": lambda d: F.multi_margin_loss(r(d, 2, 3), lib.tensor([0, 2])),
        "cdist": lambda d: lib.cdist(r(d, 2, 3), r(d, 2, 3)),
        "cosine_similarity": lambda d: F.cosine_similarity(r(d, 2, 3), r(d, 2, 3)),
        "cat": lambda d: lib.cat([r(d, 2), lib.rand(2)]),
        "stack": lambda d: lib.stack([r(d, 2), lib.rand(2)]),
        "index_copy": lambda d: r(d, 3).index_copy(0, lib.tensor([1]), r(d, 1)),
        "addcmul": lambda d: lib.addcmul(r(d, 3), r(d, 3), r(d, 3)),
        "atan2": lambda d: lib.atan2(r(d, 3), r(d, 3)),
        "grid_sample": lambda d: F.grid_sample(r(d, 1, 1, 3, 3), r(d, 1, 2, 2, 2) * 2 - 1, align_corners=False),
        "trace": lambda d: lib.trace(r(d, 3, 3)),
        "embedding": lambda d: F.embedding(lib.tensor([0]), r(d, 3, 2)),
        "where": lambda d: lib.where(lib.rand(3) > 0.5, r(d, 3), lib.rand(3)),
        "mha": lambda d: lib.nn.MultiheadAttention(4, 2)(r(d, 3, 1, 4), r(d, 3, 1, 4), r(d, 3, 1, 4))[0],
        "gru": lambda d: lib.nn.GRU(4, 3)(r(d, 2, 1, 4))[0],
        "rnn": lambda d: lib.nn.RNN(4, 3)(r(d, 2, 1, 4))[0],
        "lstm_cell": lambda d: lib.nn.LSTMCell(4, 3)(r(d, 2, 4))[0],
        "gru_cell": lambda d: lib.nn.GRUCell(4, 3)(r(d, 2, 4)),
        "rnn_cell": lambda d: lib.nn.RNNCell(4, 3)(r(d, 2, 4)),
        "encoder_layer": lambda d: lib.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0)(r(d, 3, 1, 4)),
    }


# ops given float32 inputs that need the front-end hook to match (a composite PyTorch casts as a whole, or a
# second product meeting a lower-precision activation and a float32 weight); "name:dtype" for one dtype only
_F32_NEEDS_FRONT_ENDS = {"matmul_vectors", "matmul_matrix_vector", "vecdot", "sdpa:bfloat16", "mha",
                         "encoder_layer", "multi_dot"}
# ops given lower-precision inputs that need it (composite losses on the float32 lists; fixes that came
# with it: the bfloat16 flash-attention kernel, the RNN modules' dtype check)
_LP_NEEDS_FRONT_ENDS = {"sdpa:bfloat16", "l1_loss", "cross_entropy_probs", "kl_div", "margin_ranking_loss",
                        "hinge_embedding_loss", "cosine_embedding_loss", "poisson_nll_loss", "triplet_margin_loss",
                        "mha", "gru", "rnn", "encoder_layer", "lstm_cell", "gru_cell", "rnn_cell"}


def _dtype_cases():
    for name in _ops(pt):
        for lp in LOWER:
            for inputs in ("float32", "lower"):
                needs = _F32_NEEDS_FRONT_ENDS if inputs == "float32" else _LP_NEEDS_FRONT_ENDS
                marks = [needs_front_ends] if name in needs or f"{name}:{lp}" in needs else []
                yield pytest.param(name, lp, inputs, marks=marks, id=f"{name}-{lp}-{inputs}")


def _outcome(lib, name, lp, inputs):
    lib.manual_seed(0)
    dt = _dt(lib, lp)
    f = _ops(lib)[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with lib.autocast("cpu", dtype=dt):
                out = f(dt if inputs == "lower" else lib.float32)
        except Exception as e:   # noqa: BLE001
            return type(e).__name__
    return str(out.dtype)


@pytest.mark.parametrize("name,lp,inputs", list(_dtype_cases()))
def test_op_dtype_under_cpu_autocast(torch, name, lp, inputs):
    assert _outcome(pt, name, lp, inputs) == _outcome(torch, name, lp, inputs)


@needs_front_ends
@pytest.mark.parametrize("lp", LOWER)
def test_lower_precision_activation_meets_float32_weight(torch, lp):
    """The usual case inside a network: an op's output in the lower dtype goes into the next op with float32
    parameters; autocast casts before the op's own dtype checks, as in PyTorch."""
    def calls(lib):
        F, dt = lib.nn.functional, _dt(lib, lp)
        x = lib.rand(2, 3, 4).to(dt)
        return [F.linear(x, lib.rand(5, 4), lib.rand(5)), lib.mm(x[0], lib.rand(4, 2)), x @ lib.rand(4),
                lib.bmm(x, lib.rand(2, 4, 3)), F.conv1d(x, lib.rand(2, 3, 2)), F.prelu(x, lib.rand(3)),
                F.layer_norm(x, (4,), lib.rand(4), lib.rand(4)),
                F.cross_entropy(x[0], lib.tensor([0, 1, 2]), weight=lib.rand(4)),
                lib.rand(3).index_copy(0, lib.tensor([1]), x[0, 0, :1]), lib.cat([x, lib.rand(2, 3, 4)])]
    with pt.autocast("cpu", dtype=_dt(pt, lp)):
        ours = [str(t.dtype) for t in calls(pt)]
    with torch.autocast("cpu", dtype=_dt(torch, lp)):
        theirs = [str(t.dtype) for t in calls(torch)]
    assert ours == theirs


def test_explicit_dtype_in_place_and_float64_are_left_alone():
    x = pt.randn(3, 3)
    with pt.autocast("cpu"):
        y = x.clone()
        y.addmm_(x, x)                                  # in-place: not autocast, keeps float32
        assert y.dtype is pt.float32
        assert pt.mm(x.double(), x.double()).dtype is pt.float64
        assert pt.mm(x.half(), x.half()).dtype is pt.bfloat16   # a float16 tensor is cast like float32
        assert pt.mm(x.int(), x.int()).dtype is pt.int32         # integers are not eligible


def test_lstm_is_one_lower_precision_layer(torch):
    """nn.LSTM is PyTorch's mkldnn_rnn_layer on the CPU (lower precision): its output and final states are
    bfloat16.  (PyTorch itself needs a CPU with bfloat16 support for it: where it fails, only ours is checked.)"""
    for lib in (pt, torch):
        lib.manual_seed(0)
        lstm = lib.nn.LSTM(4, 6, batch_first=True)
        x = lib.randn(2, 5, 4)
        try:
            with lib.autocast("cpu"):
                out, (h, c) = lstm(x)
                loss = lib.nn.functional.mse_loss(out, lib.zeros(2, 5, 6))
        except RuntimeError:
            assert lib is torch
            continue
        assert (out.dtype, h.dtype, c.dtype, loss.dtype) == (lib.bfloat16,) * 3 + (lib.float32,)
        loss.backward()
        assert {p.grad.dtype for p in lstm.parameters()} == {lib.float32}


# ====================================================================== the course's models

def _models(lib):
    nn, F = lib.nn, lib.nn.functional
    return {
        "mlp": (lambda: nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)),
                lambda: (lib.randn(5, 8), lib.tensor([0, 1, 2, 3, 0])), F.cross_entropy),
        # (no bias before BatchNorm: its gradient would be rounding noise)
        "cnn": (lambda: nn.Sequential(nn.Conv2d(1, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4), nn.ReLU(),
                                      nn.MaxPool2d(2), nn.Conv2d(4, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8),
                                      nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 3)),
                lambda: (lib.randn(2, 1, 8, 8), lib.tensor([0, 2])), F.cross_entropy),
        "gru": (lambda: nn.GRU(4, 6, batch_first=True), lambda: (lib.randn(2, 5, 4), lib.randn(2, 5, 6)),
                lambda out, y: F.mse_loss(out[0], y)),
        "rnn": (lambda: nn.RNN(4, 6, batch_first=True), lambda: (lib.randn(2, 5, 4), lib.randn(2, 5, 6)),
                lambda out, y: F.mse_loss(out[0], y)),
        "transformer": (lambda: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
                        lambda: (lib.randn(2, 5, 8), lib.tensor([[0, 1, 2, 3, 4]] * 2)),
                        lambda out, y: F.cross_entropy(out.reshape(-1, 8), y.reshape(-1))),
    }


def _train_step(lib, name, lp):
    build, data, loss_fn = _models(lib)[name]
    lib.manual_seed(0)
    model = build()
    x, y = data()
    with lib.autocast("cpu", dtype=_dt(lib, lp)):
        out = model(x)
        loss = loss_fn(out, y)
    loss.backward()
    first = out[0] if isinstance(out, tuple) else out
    grads = [p.grad for p in model.parameters()]
    return (str(first.dtype), str(loss.dtype), sorted({str(g.dtype) for g in grads})), float(loss), \
        [to_np(g) for g in grads]


def to_np(t):
    return np.array(t.detach().double().cpu().numpy())


@pytest.mark.parametrize("lp", LOWER)
@pytest.mark.parametrize("name", [pytest.param("mlp", marks=needs_front_ends),
                                  pytest.param("cnn", marks=needs_front_ends),
                                  "gru", "rnn",
                                  pytest.param("transformer", marks=needs_front_ends)])
def test_course_model_dtypes_loss_and_grads(torch, name, lp):
    ours, loss, grads = _train_step(pt, name, lp)
    theirs, t_loss, t_grads = _train_step(torch, name, lp)
    assert ours == theirs                        # output dtype, loss dtype, the gradients' dtypes
    assert ours[2] == ["torch.float32"]           # the parameters stay float32, so do their gradients
    assert loss == pytest.approx(t_loss, rel=2e-3)
    for g, tg in zip(grads, t_grads):             # the lower dtype rounds differently here and there
        np.testing.assert_allclose(g, tg, rtol=0.1, atol=0.02 * max(1e-3, np.abs(tg).max()))


@needs_front_ends
def test_mlp_step_is_pytorchs_bit_for_bit(torch):
    """Same casts in the same places, and products rounded once from float32: the MLP's loss and gradients
    under bfloat16 autocast equal PyTorch's exactly."""
    ours, loss, grads = _train_step(pt, "mlp", "bfloat16")
    theirs, t_loss, t_grads = _train_step(torch, "mlp", "bfloat16")
    assert loss == t_loss
    for g, tg in zip(grads, t_grads):
        np.testing.assert_array_equal(g, tg)


def test_gradients_flow_back_through_the_casts():
    lin = pt.nn.Linear(4, 3)
    x = pt.randn(2, 4, requires_grad=True)
    with pt.autocast("cpu"):
        y = lin(x)
    assert y.dtype is pt.bfloat16 and y.grad_fn.name() == "AddmmBackward0"
    assert {n.name() for n, _ in y.grad_fn.next_functions if n is not None} >= {"ToCopyBackward0"}
    y.float().sum().backward()
    assert x.grad.dtype is pt.float32 and lin.weight.grad.dtype is pt.float32


def test_cast_cache_shares_a_parameters_cast():
    w = pt.randn(3, 3, requires_grad=True)
    x = pt.randn(2, 3)
    with pt.autocast("cpu"):
        a, b = pt.mm(x, w), pt.mm(x, w)
        # (a's and b's casts of w are one ToCopyBackward0 node)
        assert a.grad_fn.next_functions[1][0] is b.grad_fn.next_functions[1][0]
    assert not am._state.cache                          # forgotten when the outermost region ends
    with pt.autocast("cpu", cache_enabled=False):
        a, b = pt.mm(x, w), pt.mm(x, w)
        assert a.grad_fn.next_functions[1][0] is not b.grad_fn.next_functions[1][0]
    (a.float().sum() + b.float().sum()).backward()
    assert w.grad.dtype is pt.float32


def test_gradcheck_through_a_region():
    """float64 tensors are never cast, so a region is transparent to them (and differentiable)."""
    def f(x, w):
        with pt.autocast("cpu"):
            return (pt.mm(x, w).exp() * 2).sum()
    x = pt.randn(2, 3, dtype=pt.float64, requires_grad=True)
    w = pt.randn(3, 2, dtype=pt.float64, requires_grad=True)
    assert f(x, w).dtype is pt.float64
    assert pt.autograd.gradcheck(f, (x, w))


# ====================================================================== the CUDA lists (stand-in or GPU)

@pytest.fixture
def cuda():
    real = cuda_available()
    if not real:
        standin.enable()
    try:
        yield "cuda"
    finally:
        if not real:
            standin.disable()


def test_cuda_lists(cuda):
    F = pt.nn.functional
    x, w = pt.rand(3, 4, device=cuda), pt.rand(4, 2, device=cuda)
    with pt.autocast("cuda"):
        assert pt.amp.is_autocast_enabled("cuda") and not pt.amp.is_autocast_enabled("cpu")
        assert (x @ w).dtype is pt.float16                        # lower precision
        assert x.exp().dtype is pt.float32 and x.half().log().dtype is pt.float32   # float32 list
        assert F.layer_norm(x.half(), (4,)).dtype is pt.float32
        assert x.half().sum().dtype is pt.float32                 # float32 unless a dtype is named
        assert x.half().sum(dtype=pt.float16).dtype is pt.float16
        assert F.softmax(x.half(), -1).dtype is pt.float32
        assert x.half().relu().dtype is pt.float16                # not listed: runs as given
        assert pt.addcmul(x.half(), x.half(), x).dtype is pt.float32   # promote: the widest
        assert pt.addcmul(x.half(), x.half(), x.half()).dtype is pt.float16
        if not cuda_available():   # (cupy has no bfloat16)
            with pytest.raises(RuntimeError, match="Unexpected floating ScalarType in at::autocast::prioritize"):
                pt.addcmul(x.half(), x.bfloat16(), x.half())   # a bfloat16 tensor in a float16 region
        assert pt.mm(x.cpu(), w.cpu()).dtype is pt.float32        # CPU tensors: the CPU's autocast (off)
        with pt.autocast("cpu"):
            assert pt.mm(x.cpu(), w.cpu()).dtype is pt.bfloat16 and (x @ w).dtype is pt.float16


def test_cuda_bans_binary_cross_entropy(cuda, torch):
    x = pt.rand(3, device=cuda)
    with pt.autocast("cuda"):
        with pytest.raises(RuntimeError) as info:
            pt.nn.functional.binary_cross_entropy(x, x)
    assert str(info.value) == (
        "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
        "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
        "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
        "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
        "safe to autocast.")
    with pt.autocast("cpu"):   # the CPU's list runs it in float32 instead
        assert pt.nn.functional.binary_cross_entropy(x.cpu(), x.cpu()).dtype is pt.float32


def test_grad_scaler_on_cuda(cuda):
    scaler = pt.amp.GradScaler("cuda", init_scale=4.0)
    w = pt.ones(2, device=cuda, requires_grad=True)
    opt = pt.optim.SGD([w], lr=0.5)
    loss = scaler.scale((w * 3).sum())
    assert loss.device.type == "cuda" and float(loss.cpu()) == 24.0
    loss.backward()
    scaler.step(opt)
    scaler.update()
    assert w.cpu().tolist() == [-0.5, -0.5] and scaler.get_scale() == 4.0


# ====================================================================== custom autograd Functions

def _custom_function_run(lib):
    log = []

    class MyMM(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu")
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a.mm(b)

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            r = grad.mm(b.t()), a.t().mm(grad)
            log.append(("bwd", lib.is_autocast_enabled("cpu") if lib.__name__ == "torch"
                        else lib.amp.is_autocast_enabled("cpu"), str(r[0].dtype)))
            return r

    class MyMMFloat32(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu", cast_inputs=lib.float32)
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            log.append(("fwd", str(a.dtype), str(b.dtype), str(a.mm(b).dtype)))
            return a.mm(b)

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            return grad.mm(b.t()), a.t().mm(grad)

    lib.manual_seed(0)
    a, b = lib.rand(3, 4, requires_grad=True), lib.rand(4, 2, requires_grad=True)
    for fn in (MyMM, MyMMFloat32):
        with lib.autocast("cpu"):
            y = fn.apply(a, b)
            log.append(("out", str(y.dtype)))
        y.float().sum().backward()
        log.append(("grads", str(a.grad.dtype), str(b.grad.dtype)))
        a.grad = b.grad = None
        log.append(("outside", str(fn.apply(a, b).dtype)))
    return log


@needs_front_ends   # (MyMM's backward multiplies its bfloat16 gradient with a float32 input under autocast)
def test_custom_fwd_and_custom_bwd(torch):
    assert _custom_function_run(pt) == _custom_function_run(torch)


def test_custom_fwd_cast_inputs(torch):
    """cast_inputs: in a region the inputs are cast and forward runs with autocast off; outside, as is."""
    def run(lib):
        seen = []

        class Double(lib.autograd.Function):
            @staticmethod
            @lib.amp.custom_fwd(device_type="cpu", cast_inputs=lib.float16)
            def forward(ctx, a, k):
                seen.append((str(a.dtype), ctx._fwd_used_autocast, str(ctx._dtype),
                             str(lib.mm(a.float(), a.float().t()).dtype)))
                return a * k

            @staticmethod
            @lib.amp.custom_bwd(device_type="cpu")
            def backward(ctx, grad):
                return grad * 2, None

        a = lib.ones(2, 2, requires_grad=True)
        with lib.autocast("cpu"):
            y = Double.apply(a, 2)
        y.sum().backward()
        z = Double.apply(a, 2)
        return seen, str(y.dtype), str(z.dtype), a.grad.tolist()
    assert run(pt) == run(torch)


def test_custom_fwd_casts_nested_inputs():
    x = pt.rand(2)
    with pt.autocast("cpu"):
        cast = am._cast_inputs(([x, x.double(), "s"], {"k": x, "n": np.ones(2)}), "cpu", pt.float16)
    (lst, d) = cast
    assert [t if isinstance(t, str) else t.dtype for t in lst] == [pt.float16, pt.float64, "s"]
    assert d["k"].dtype is pt.float16 and isinstance(d["n"], np.ndarray)


# ====================================================================== GradScaler

def _amp_loop(lib, lp, init_scale, growth_interval, steps=10, enabled_autocast=True, poisoned=()):
    """The course's AMP loop: scale -> backward -> unscale_ -> clip_grad_norm_ -> step -> update (the
    steps in ``poisoned`` get an inf in their input, so their gradients are NaN)."""
    nn = lib.nn
    lib.manual_seed(0)
    net = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 8))
    data = [(lib.randn(16, 32), lib.randn(16, 8)) for _ in range(4)]
    opt = lib.optim.SGD(net.parameters(), lr=0.01)
    scaler = lib.amp.GradScaler("cpu", init_scale=init_scale, growth_interval=growth_interval)
    trajectory = []
    for i in range(steps):
        x, y = data[i % 4]
        if i in poisoned:
            x = x.clone()
            x[0, 0] = float("inf")
        with lib.autocast("cpu", dtype=_dt(lib, lp), enabled=enabled_autocast):
            loss = nn.functional.mse_loss(net(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        lib.nn.utils.clip_grad_norm_(net.parameters(), max_norm=0.5)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
        trajectory.append((scaler.get_scale(), scaler._get_growth_tracker(), float(loss),
                           [float(p.double().sum()) for p in net.parameters()]))
    return trajectory, scaler.state_dict()


def _same_trajectory(ours, theirs, rtol=1e-6):
    (traj, sd), (t_traj, t_sd) = ours, theirs
    assert sd == t_sd
    for (scale, tracker, loss, params), (t_scale, t_tracker, t_loss, t_params) in zip(traj, t_traj):
        assert (scale, tracker) == (t_scale, t_tracker)
        assert loss == pytest.approx(t_loss, rel=rtol, nan_ok=True)
        np.testing.assert_allclose(params, t_params, rtol=rtol, atol=1e-8)


def test_scaler_trajectory_float32_with_skipped_steps(torch):
    """Without autocast: growth every 3 clean steps; the steps whose gradients hold NaN are skipped (the
    parameters do not move), the scale halves and the count of clean steps restarts, as in PyTorch."""
    ours = _amp_loop(pt, "bfloat16", 2.0 ** 16, 3, enabled_autocast=False, poisoned=(4, 5))
    _same_trajectory(ours, _amp_loop(torch, "bfloat16", 2.0 ** 16, 3, enabled_autocast=False, poisoned=(4, 5)))
    scales = [s for s, *_ in ours[0]]
    assert scales == [2.0 ** 16, 2.0 ** 16, 2.0 ** 17, 2.0 ** 17, 2.0 ** 16, 2.0 ** 15, 2.0 ** 15, 2.0 ** 15,
                      2.0 ** 16, 2.0 ** 16]
    assert ours[0][3][3] == ours[0][4][3] == ours[0][5][3]    # skipped: the parameters stay


@needs_front_ends
def test_scaler_trajectory_under_autocast(torch):
    # bfloat16: clean steps, growth every 3
    _same_trajectory(_amp_loop(pt, "bfloat16", 2.0 ** 16, 3), _amp_loop(torch, "bfloat16", 2.0 ** 16, 3))
    # float16 with too large a scale: gradients overflow in float16, the steps are skipped and the scale
    # halves until they fit, then it grows again
    ours = _amp_loop(pt, "float16", 2.0 ** 24, 2)
    _same_trajectory(ours, _amp_loop(torch, "float16", 2.0 ** 24, 2), rtol=1e-5)
    assert [s for s, *_ in ours[0]][:5] == [2.0 ** 23, 2.0 ** 22, 2.0 ** 21, 2.0 ** 20, 2.0 ** 19]


def test_scaler_skips_a_step_with_inf_or_nan_gradients():
    w = pt.ones(3, requires_grad=True)
    opt = pt.optim.SGD([w], lr=1.0)
    scaler = pt.amp.GradScaler("cpu", init_scale=8.0, growth_interval=1)
    scaler.scale((w * pt.tensor([1.0, float("inf"), 1.0])).sum()).backward()
    assert scaler.step(opt) is None
    scaler.update()
    assert w.tolist() == [1.0, 1.0, 1.0] and scaler.get_scale() == 4.0
    w.grad = None
    scaler.scale(w.sum()).backward()
    scaler.unscale_(opt)
    assert w.grad.tolist() == [1.0, 1.0, 1.0]                 # unscaled: the true gradient
    scaler.step(opt)
    scaler.update()
    assert w.tolist() == [0.0, 0.0, 0.0] and scaler.get_scale() == 8.0   # growth_interval=1: grows at once


def test_scaler_errors_equal_pytorchs(torch):
    def run(lib, what):
        w = lib.ones(2, dtype=lib.float16 if what == "fp16 grads" else lib.float32, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        s = lib.amp.GradScaler("cpu")
        if what == "update before scale":
            return _error(s.update)
        s.scale(w.sum()).backward()
        if what == "unscale twice":
            s.unscale_(opt)
            return _error(lambda: s.unscale_(opt))
        if what == "unscale after step":
            s.step(opt)
            return _error(lambda: s.unscale_(opt))
        if what == "step twice":
            s.step(opt)
            return _error(lambda: s.step(opt))
        if what == "closure":
            return _error(lambda: s.step(opt, closure=lambda: 0))
        if what == "empty state":
            return _error(lambda: s.load_state_dict({}))
        if what == "fp16 grads":
            return _error(lambda: s.unscale_(opt))
        if what == "new_scale tensor":
            s.step(opt)
            return _error(lambda: s.update(lib.ones(2)))
        if what == "not tensors":
            return _error(lambda: s.scale([w, 3]))
    for what in ("update before scale", "unscale twice", "unscale after step", "step twice", "closure",
                 "empty state", "fp16 grads", "new_scale tensor", "not tensors"):
        assert run(pt, what) == run(torch, what), what
    for kw in ({"growth_factor": 1.0}, {"backoff_factor": 1.0}):
        assert _error(lambda: pt.amp.GradScaler("cpu", **kw)) == _error(lambda: torch.amp.GradScaler("cpu", **kw))


def test_scaler_state_dict_getters_and_update(torch):
    for lib in (pt, torch):
        s = lib.amp.GradScaler("cpu", init_scale=32.0, growth_factor=4.0, backoff_factor=0.25, growth_interval=7)
        assert (s.get_scale(), s.get_growth_factor(), s.get_backoff_factor(), s.get_growth_interval(),
                s.is_enabled()) == (32.0, 4.0, 0.25, 7, True)
        assert s.state_dict() == {"scale": 32.0, "growth_factor": 4.0, "backoff_factor": 0.25,
                                  "growth_interval": 7, "_growth_tracker": 0}
        s.set_growth_factor(3.0)
        s.set_backoff_factor(0.5)
        s.set_growth_interval(2)
        t = lib.amp.GradScaler("cpu")
        t.load_state_dict(s.state_dict())
        assert t.state_dict() == {"scale": 32.0, "growth_factor": 3.0, "backoff_factor": 0.5, "growth_interval": 2,
                                  "_growth_tracker": 0}
        w = lib.ones(1, requires_grad=True)
        t.scale(w.sum()).backward()
        opt = lib.optim.SGD([w], lr=0.1)
        t.step(opt)
        t.update(new_scale=5.0)
        assert t.get_scale() == 5.0
        t.scale(w.sum())
        t.update(new_scale=lib.tensor(6.0))
        assert t.get_scale() == 6.0
        u = pickle.loads(pickle.dumps(t))
        assert u.state_dict() == t.state_dict()


def test_scale_nested_outputs():
    s = pt.amp.GradScaler("cpu", init_scale=2.0)
    a, b = pt.ones(1), pt.full((1,), 3.0)
    out = s.scale([a, (b, [a])])
    assert isinstance(out, list) and isinstance(out[1], tuple)
    assert [out[0].item(), out[1][0].item(), out[1][1][0].item()] == [2.0, 6.0, 2.0]
    assert [t.item() for t in s.scale(t for t in (a, b))] == [2.0, 6.0]


def test_disabled_scaler_passes_through(torch):
    w = pt.ones(2, requires_grad=True)
    opt = pt.optim.SGD([w], lr=0.5)
    s = pt.amp.GradScaler("cpu", enabled=False)
    loss = w.sum()
    assert s.scale(loss) is loss and s.get_scale() == 1.0 and s.state_dict() == {} and not s.is_enabled()
    loss.backward()
    s.unscale_(opt)
    s.step(opt)
    s.update()
    s.load_state_dict({})
    assert w.tolist() == [0.5, 0.5]


@pytest.mark.skipif(cuda_available(), reason="a GPU is there")
def test_cuda_scaler_without_gpu_warns_and_disables(torch):
    for lib in (pt, torch):
        s, warned = _caught(lambda: lib.amp.GradScaler())
        assert not s.is_enabled() and s.state_dict() == {}
        assert warned == [("UserWarning", "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                                          "Disabling.")]


# ====================================================================== torch.cpu, torch.cuda.amp, torch.cpu.amp

def test_cpu_module():
    assert pt.cpu.is_available() and pt.cpu.is_initialized()
    assert pt.cpu.device_count() == 1 and pt.cpu.current_device() == "cpu"
    assert pt.cpu.synchronize() is None and pt.cpu.set_device("cpu") is None
    s = pt.cpu.Stream()
    with pt.cpu.stream(s):
        assert pt.cpu.current_stream() is s
    assert pt.cpu.current_stream() is not s
    e = pt.cpu.Event()
    assert e.query() and e.record() is None


def test_deprecated_spellings(torch):
    import pedatorch.cuda.amp
    from pedatorch.cpu.amp import GradScaler as CpuScaler, autocast as cpu_autocast
    assert pedatorch.cuda.amp is pt.cuda.amp and pt.cpu.amp.autocast is cpu_autocast
    cases = [
        (lambda lib: lib.cpu.amp.autocast(), lambda r: (r._enabled, r.device, str(r.fast_dtype))),
        (lambda lib: lib.cpu.amp.GradScaler(init_scale=4.0), lambda r: (r.is_enabled(), r.get_scale())),
        (lambda lib: lib.cuda.amp.custom_fwd(lambda ctx, x: x), lambda r: callable(r)),
        (lambda lib: lib.cuda.amp.custom_bwd(lambda ctx, x: x), lambda r: callable(r)),
    ]
    if not cuda_available():
        cases += [(lambda lib: lib.cuda.amp.autocast(), lambda r: (r._enabled, r.device, str(r.fast_dtype))),
                  (lambda lib: lib.cuda.amp.GradScaler(), lambda r: r.is_enabled())]
    for make, summary in cases:
        ours, warned = _caught(lambda: make(pt))
        theirs, expected = _caught(lambda: make(torch))
        assert summary(ours) == summary(theirs)
        assert [w[0] for w in warned] == [w[0] for w in expected]
        assert warned[0] == expected[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert isinstance(CpuScaler(), pt.amp.GradScaler)
        with cpu_autocast():
            assert pt.mm(pt.ones(2, 2), pt.ones(2, 2)).dtype is pt.bfloat16
    assert pt.cuda.amp.amp_definitely_not_available() == (not pt.cuda.is_available())
