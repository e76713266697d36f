"""What third-party PyTorch programs reach for beyond the common layers, against PyTorch:
the ``torch.nn.modules.<file>.<Name>`` import paths, lazy modules (``nn.LazyLinear`` ...) and
``torch.nn.parallel`` (DataParallel on one device, DistributedDataParallel without a process group)."""
import copy
import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close, to_np


def _run(lib, src):
    return eval(src, {"nn": lib.nn, "torch": lib})


def _tensor(lib, arr, requires_grad=False):
    return lib.tensor(np.array(arr), requires_grad=requires_grad)


def _raises(fn):
    """(exception class name, message) of what ``fn()`` raises."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    raise AssertionError("no exception raised")


# ---------------------------------------------------------------------------- the module-path table
def _torch_module_classes(torch):
    """(file, class name) for every public class of every ``torch.nn.modules.<file>``."""
    import torch.nn.modules as tm
    pairs = []
    for info in pkgutil.iter_modules(tm.__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"torch.nn.modules.{info.name}")
        defined = [n for n, v in vars(mod).items() if inspect.isclass(v) and v.__module__ == mod.__name__]
        for name in sorted(set(getattr(mod, "__all__", [])) | set(defined)):
            if not name.startswith("_") and inspect.isclass(getattr(mod, name, None)):
                pairs.append((info.name, name))
    return pairs


def test_every_class_pedatorch_has_is_under_torchs_module_path(torch):
    missing, checked = [], 0
    for sub, name in _torch_module_classes(torch):
        if not hasattr(pt.nn, name) and name != "NonDynamicallyQuantizableLinear":
            continue  # a layer pedatorch does not have yet
        checked += 1
        try:
            ours = getattr(importlib.import_module(f"pedatorch.nn.modules.{sub}"), name)
        except (ImportError, AttributeError):
            missing.append(f"{sub}.{name}")
            continue
        if hasattr(pt.nn, name):
            assert ours is getattr(pt.nn, name), f"{sub}.{name} is another class than nn.{name}"
    assert not missing, f"not importable from pedatorch.nn.modules: {missing}"
    assert checked > 140  # the walk did find the layers


@pytest.mark.parametrize("path", ["pedatorch.nn.modules.activation.MultiheadAttention",
                                  "pedatorch.nn.modules.linear.NonDynamicallyQuantizableLinear",
                                  "pedatorch.nn.modules.lazy.LazyModuleMixin",
                                  "pedatorch.nn.modules.instancenorm.LazyInstanceNorm2d",
                                  "pedatorch.nn.modules.padding.ZeroPad2d",
                                  "pedatorch.nn.parameter.Parameter", "pedatorch.nn.parameter.Buffer",
                                  "pedatorch.nn.parameter.UninitializedParameter",
                                  "pedatorch.nn.parameter.UninitializedBuffer", "pedatorch.nn.parameter.is_lazy",
                                  "pedatorch.nn.parallel.DataParallel",
                                  "pedatorch.nn.parallel.DistributedDataParallel",
                                  "pedatorch.nn.parallel.data_parallel",
                                  "pedatorch.nn.parallel.data_parallel.DataParallel",
                                  "pedatorch.nn.parallel.distributed.DistributedDataParallel"])
def test_import_path(torch, path):
    module, _, name = path.rpartition(".")
    assert hasattr(importlib.import_module(module.replace("pedatorch", "torch")), name)
    assert hasattr(importlib.import_module(module), name)


def test_nn_level_names_as_torch(torch):
    for name in ["UninitializedParameter", "UninitializedBuffer", "DataParallel", "LazyLinear", "LazyConv2d",
                 "LazyBatchNorm1d", "LazyInstanceNorm3d", "parallel", "parameter", "modules"]:
        assert hasattr(torch.nn, name) and hasattr(pt.nn, name), name
    assert pt.nn.DataParallel is pt.nn.parallel.DataParallel
    assert not hasattr(pt.nn, "LazyModuleMixin") and not hasattr(torch.nn, "LazyModuleMixin")


def test_multihead_attention_out_proj_class_and_repr(torch):
    outs = []
    for lib in (pt, torch):
        lib.manual_seed(0)
        mha = lib.nn.MultiheadAttention(8, 2)
        out_proj_cls = lib.nn.modules.linear.NonDynamicallyQuantizableLinear
        assert type(mha.out_proj) is out_proj_cls and isinstance(mha.out_proj, lib.nn.Linear)
        outs.append((repr(mha), repr(mha.out_proj), to_np(mha.out_proj.weight)))
    assert outs[0][:2] == outs[1][:2]
    assert_close(outs[0][2], outs[1][2])


# ---------------------------------------------------------------------------- lazy modules
# (constructor, input shape, the class it becomes)
LAZY = [
    ("nn.LazyLinear(3)", (2, 4), "Linear"),
    ("nn.LazyLinear(5, bias=False)", (2, 3, 6), "Linear"),
    ("nn.LazyConv1d(4, 3)", (2, 3, 8), "Conv1d"),
    ("nn.LazyConv1d(4, 3, padding=1, bias=False)", (3, 8), "Conv1d"),  # unbatched
    ("nn.LazyConv2d(6, 3, stride=2, padding=1, groups=2)", (2, 4, 7, 7), "Conv2d"),
    ("nn.LazyConv2d(2, (3, 2), padding_mode='reflect', padding=1)", (3, 5, 5), "Conv2d"),  # unbatched
    ("nn.LazyConv3d(2, 3)", (1, 2, 5, 5, 5), "Conv3d"),
    ("nn.LazyConvTranspose1d(4, 3, stride=2)", (2, 3, 6), "ConvTranspose1d"),
    ("nn.LazyConvTranspose2d(4, 3, stride=2, padding=1, output_padding=1, groups=2)", (2, 4, 4, 4),
     "ConvTranspose2d"),
    ("nn.LazyBatchNorm1d()", (4, 5), "BatchNorm1d"),
    ("nn.LazyBatchNorm1d(affine=False, momentum=None)", (4, 3, 6), "BatchNorm1d"),
    ("nn.LazyBatchNorm2d(bias=False)", (2, 3, 4, 4), "BatchNorm2d"),
    ("nn.LazyBatchNorm3d(track_running_stats=False)", (2, 3, 2, 3, 3), "BatchNorm3d"),
    ("nn.LazyInstanceNorm1d()", (2, 3, 6), "InstanceNorm1d"),
    ("nn.LazyInstanceNorm2d(affine=False)", (2, 3, 4, 4), "InstanceNorm2d"),
    ("nn.LazyInstanceNorm3d(track_running_stats=False)", (2, 3, 2, 3, 3), "InstanceNorm3d"),
]


def _lazy_run(lib, src, shape, seed=0):
    """Build, forward and backward a lazy module; everything worth comparing, as numpy/strings."""
    lib.manual_seed(seed)
    m = _run(lib, src)
    before = {"repr": repr(m), "class": type(m).__name__, "lazy": m.has_uninitialized_params(),
              "params": [(k, repr(v)) for k, v in m.named_parameters()],
              "state": [(k, repr(v)) for k, v in m.state_dict().items()]}
    params = list(m.parameters())
    x = _tensor(lib, np.random.default_rng(1).standard_normal(shape).astype(np.float32), requires_grad=True)
    y = m(x)
    (y * _tensor(lib, np.random.default_rng(2).standard_normal(tuple(y.shape)).astype(np.float32))).sum().backward()
    after = {"repr": repr(m), "class": type(m).__name__, "lazy": m.has_uninitialized_params()
             if hasattr(m, "has_uninitialized_params") else None,
             "same objects": all(p is q for p, q in zip(params, m.parameters())),
             "param classes": [type(p).__name__ for p in m.parameters()],
             "buffer classes": [type(b).__name__ for b in m.buffers()]}
    values = {"y": to_np(y), "x.grad": to_np(x.grad),
              **{k: to_np(v) for k, v in m.state_dict().items()},
              **{k + ".grad": to_np(v.grad) for k, v in m.named_parameters()}}
    return before, after, values, m


@pytest.mark.parametrize("src,shape,becomes", LAZY, ids=[s for s, _, _ in LAZY])
def test_lazy_module_matches_torch(torch, src, shape, becomes):
    ours, theirs = _lazy_run(pt, src, shape), _lazy_run(torch, src, shape)
    assert ours[0] == theirs[0]  # repr, placeholders, state_dict before the first forward
    assert ours[0]["lazy"] and ours[0]["class"] == src.split("(")[0][3:]
    assert ours[1] == theirs[1]  # repr, class, parameter objects after it
    assert ours[1]["class"] == becomes and ours[1]["same objects"]
    assert set(ours[2]) == set(theirs[2])
    for k in theirs[2]:  # the same initial weights (same seed), outputs, gradients and running stats
        assert_close(ours[2][k], theirs[2][k], rtol=1e-5, atol=1e-5)
    assert not hasattr(ours[3], "_initialize_hook") and not ours[3]._forward_pre_hooks


def test_lazy_weights_are_the_eager_layers_weights(torch):
    # the RNG is consumed at the first forward, exactly as the eager layer would consume it
    for lib in (pt, torch):
        lib.manual_seed(3)
        lazy = lib.nn.LazyConv2d(4, 3)
        lazy(lib.zeros(1, 2, 5, 5))
        lib.manual_seed(3)
        eager = lib.nn.Conv2d(2, 4, 3)
        assert_close(lazy.weight, eager.weight, rtol=0, atol=0)
        assert_close(lazy.bias, eager.bias, rtol=0, atol=0)


def test_optimizer_created_before_the_first_forward(torch):
    results = []
    for lib in (pt, torch):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.LazyLinear(4), lib.nn.ReLU(), lib.nn.LazyLinear(2))
        opt = lib.optim.Adam(model.parameters(), lr=0.1)
        x = _tensor(lib, np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32))
        for _ in range(2):
            opt.zero_grad()
            model(x).pow(2).sum().backward()
            opt.step()
        assert all(p is q for p, q in zip(opt.param_groups[0]["params"], model.parameters()))
        results.append((repr(model), [to_np(p) for p in model.parameters()]))
    assert results[0][0] == results[1][0]
    for a, b in zip(results[0][1], results[1][1]):
        assert_close(a, b, rtol=1e-5, atol=1e-6)


def _to_lib_state(lib, state):
    return {k: _tensor(lib, to_np(v)) for k, v in state.items()}


@pytest.mark.parametrize("src,eager,shape", [
    ("nn.LazyLinear(3)", "nn.Linear(4, 3)", (2, 4)),
    ("nn.LazyConv2d(4, 3)", "nn.Conv2d(2, 4, 3)", (1, 2, 5, 5)),
    ("nn.LazyBatchNorm2d()", "nn.BatchNorm2d(3)", (2, 3, 4, 4)),
])
def test_load_state_dict_into_a_lazy_module(torch, src, eager, shape):
    torch.manual_seed(5)
    ref = _run(torch, eager)
    ref.train()(torch.randn(*shape))  # running statistics that are not the defaults
    ref_state = ref.state_dict()
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    results = []
    for lib in (pt, torch):
        m = _run(lib, src)
        keys = m.load_state_dict(_to_lib_state(lib, ref_state))
        loaded = (repr(keys), type(m).__name__, m.has_uninitialized_params(), repr(m))
        m.eval()
        y = m(_tensor(lib, x))
        results.append((loaded, repr(m), type(m).__name__, to_np(y),
                        {k: to_np(v) for k, v in m.state_dict().items()}))
    assert results[0][:3] == results[1][:3]
    assert results[0][0][1:3] == (src.split("(")[0][3:], False)
    assert_close(results[0][3], results[1][3], rtol=1e-5, atol=1e-6)
    for k, v in results[1][4].items():
        assert_close(results[0][4][k], v)


def test_state_dict_round_trip_through_a_lazy_module(torch):
    pt.manual_seed(0)
    trained = pt.nn.LazyLinear(3)
    trained(pt.randn(2, 4))
    fresh = pt.nn.LazyLinear(3)
    fresh.load_state_dict(trained.state_dict())
    for k, v in trained.state_dict().items():
        assert_close(fresh.state_dict()[k], v, rtol=0, atol=0)
    x = pt.randn(5, 4)
    assert_close(fresh(x), trained(x), rtol=0, atol=0)
    # an uninitialised module's state_dict loads into another uninitialised one and stays lazy
    lazy = pt.nn.LazyLinear(3)
    lazy.load_state_dict(pt.nn.LazyLinear(3).state_dict())
    assert lazy.has_uninitialized_params() and type(lazy).__name__ == "LazyLinear"


def test_lazy_errors_as_torch(torch):
    cases = [
        lambda lib: lib.nn.Linear(4, 3).load_state_dict(lib.nn.LazyLinear(3).state_dict()),
        lambda lib: lib.nn.LazyLinear(3).weight.shape,
        lambda lib: lib.nn.LazyConv2d(4, 3)(lib.zeros(3, 3)),
        lambda lib: lib.nn.LazyConv2d(4, 3, groups=2)(lib.zeros(1, 3, 5, 5)),
        lambda lib: lib.nn.LazyConvTranspose1d(4, 3, padding_mode="reflect"),
        lambda lib: lib.nn.LazyBatchNorm2d()(lib.zeros(2, 3, 4)),
        lambda lib: lib.nn.LazyLinear(3).weight.share_memory_(),
        lambda lib: type("NoInit", (lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Linear), {})(2, 2)(lib.zeros(2)),
    ]
    for case in cases:
        assert _raises(lambda: case(pt)) == _raises(lambda: case(torch))


def test_not_fully_initialized_raises_as_torch(torch):
    def case(lib):
        class Half(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = lib.nn.UninitializedParameter()
                self.b = lib.nn.UninitializedParameter()

            def initialize_parameters(self, x):
                self.a.materialize(x.shape)

            def forward(self, x):
                return x * self.a
        Half()(lib.ones(2))
    assert _raises(lambda: case(pt)) == _raises(lambda: case(torch))


def test_uninitialized_parameter_and_buffer(torch):
    conversions = []
    for lib in (pt, torch):
        p, b = lib.nn.UninitializedParameter(), lib.nn.UninitializedBuffer()
        assert repr(p) == "<UninitializedParameter>" and repr(b) == "<UninitializedBuffer>"
        assert isinstance(p, lib.nn.Parameter) and p.requires_grad and not b.requires_grad
        assert lib.nn.parameter.is_lazy(p) and lib.nn.parameter.is_lazy(b)
        assert not lib.nn.parameter.is_lazy(lib.nn.Parameter(lib.zeros(1)))
        assert p.dtype == lib.float32 and tuple(p.size()) == (0,)
        q = lib.nn.UninitializedParameter(dtype=lib.float64)
        c = copy.deepcopy(q)
        assert type(c) is type(q) and c is not q and c.dtype == lib.float64
        # a parameter's conversions are ordinary tensors, a buffer's stay uninitialised
        conversions.append((repr(q.float()), repr(b.double()), b.double().dtype == lib.float64))
        q.materialize((2, 3))
        assert type(q) is lib.nn.Parameter and tuple(q.shape) == (2, 3) and q.dtype == lib.float64
        b.materialize((4,), dtype=lib.float64)
        assert type(b) is lib.Tensor and tuple(b.shape) == (4,) and b.dtype == lib.float64
    assert conversions[0] == conversions[1]


@pytest.mark.parametrize("how", ["dtype=", ".double()"])
def test_lazy_dtype_set_before_the_first_forward(torch, how):
    results = []
    for lib in (pt, torch):
        lib.manual_seed(0)
        if how == "dtype=":
            m = lib.nn.Sequential(lib.nn.LazyLinear(3, dtype=lib.float64), lib.nn.LazyBatchNorm1d(dtype=lib.float64))
        else:
            m = lib.nn.Sequential(lib.nn.LazyLinear(3), lib.nn.LazyBatchNorm1d()).double()
        assert repr(m[1].running_mean) == "<UninitializedBuffer>" and m[1].running_mean.dtype == lib.float64
        y = m(_tensor(lib, np.random.default_rng(0).standard_normal((4, 2))))
        results.append((repr(m), {k: (str(v.dtype), to_np(v)) for k, v in m.state_dict().items()}, to_np(y)))
    assert results[0][0] == results[1][0]
    for k, (dt, v) in results[1][1].items():
        assert results[0][1][k][0] == dt
        assert_close(results[0][1][k][1], v)
    assert_close(results[0][2], results[1][2])


def test_deepcopy_of_a_lazy_module_initialises_on_its_own(torch):
    for lib in (pt, torch):
        m = lib.nn.LazyLinear(3)
        c = copy.deepcopy(m)
        c(lib.zeros(2, 4))
        assert type(c) is lib.nn.Linear and c.in_features == 4
        assert type(m) is lib.nn.LazyLinear and m.has_uninitialized_params()
        m(lib.zeros(2, 5))
        assert type(m) is lib.nn.Linear and m.in_features == 5


# ---------------------------------------------------------------------------- torch.nn.parallel
def test_data_parallel_without_gpus(torch):
    if torch.cuda.is_available() or pt.cuda.is_available():
        pytest.skip("DataParallel's CPU form")
    results = []
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    for lib in (pt, torch):
        lib.manual_seed(0)
        inner = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2))
        dp = lib.nn.DataParallel(inner)
        assert dp.module is inner and dp.device_ids == []
        xt = _tensor(lib, x, requires_grad=True)
        y = dp(xt)
        y.sum().backward()
        results.append((repr(dp), list(dp.state_dict()), to_np(y), to_np(xt.grad),
                        [to_np(p.grad) for p in dp.parameters()], type(dp).__module__.replace("pedatorch", "torch")))
    assert results[0][0] == results[1][0] and results[0][1] == results[1][1] and results[0][5] == results[1][5]
    assert results[0][1][0] == "module.0.weight"
    for a, b in zip(results[0][2:5], results[1][2:5]):
        for u, v in zip(a if isinstance(a, list) else [a], b if isinstance(b, list) else [b]):
            assert_close(u, v)
    # a DataParallel checkpoint loads into another DataParallel, and without the prefix into the bare module
    pt.manual_seed(1)
    dp = pt.nn.DataParallel(pt.nn.Linear(3, 2))
    dp2, bare = pt.nn.DataParallel(pt.nn.Linear(3, 2)), pt.nn.Linear(3, 2)
    dp2.load_state_dict(dp.state_dict())
    bare.load_state_dict({k[len("module."):]: v for k, v in dp.state_dict().items()})
    assert_close(dp2.module.weight, dp.module.weight, rtol=0, atol=0)
    assert_close(bare.weight, dp.module.weight, rtol=0, atol=0)


def test_data_parallel_function_needs_a_gpu_as_in_torch(torch):
    if torch.cuda.is_available() or pt.cuda.is_available():
        pytest.skip("data_parallel's CPU error")
    assert _raises(lambda: pt.nn.parallel.data_parallel(pt.nn.Linear(2, 2), pt.zeros(1, 2))) == \
        _raises(lambda: torch.nn.parallel.data_parallel(torch.nn.Linear(2, 2), torch.zeros(1, 2)))


def test_distributed_data_parallel_without_a_process_group(torch):
    for make in [lambda lib: lib.nn.parallel.DistributedDataParallel(lib.nn.Linear(2, 2)),
                 lambda lib: lib.nn.parallel.DistributedDataParallel(lib.nn.Linear(2, 2),
                                                                     delay_all_reduce_named_params=[])]:
        assert _raises(lambda: make(pt)) == _raises(lambda: make(torch))


def test_buffer_to_keeps_its_values(torch):
    ours = pt.nn.Buffer(pt.tensor([1., 2.])).to(pt.float64)
    theirs = torch.nn.Buffer(torch.tensor([1., 2.])).to(torch.float64)
    assert_close(ours, theirs)


@pytest.mark.parametrize("use", [
    lambda p, lib: p + 1, lambda p, lib: p.numel(), lambda p, lib: p.sum(dim=0), lambda p, lib: lib.relu(p),
    lambda p, lib: p.dim(), lambda p, lib: p.detach(), lambda p, lib: p.clone(), lambda p, lib: p.requires_grad_(False),
    lambda p, lib: lib.nn.functional.linear(lib.ones(2, 3), p), lambda p, lib: lib.nn.LazyLinear(3).requires_grad_(False),
], ids=["add", "numel", "sum", "relu", "dim", "detach", "clone", "requires_grad_", "linear", "module.requires_grad_"])
def test_uninitialized_parameter_refuses_ops_as_pytorch(torch, use):
    """Any op on a lazy placeholder is a ValueError naming the op (the method-level wording differs)."""
    for lib in (pt, torch):
        with pytest.raises(ValueError, match="^Attempted to use an uninitialized parameter in <"):
            use(lib.nn.UninitializedParameter(), lib)


@pytest.mark.parametrize("use", [
    lambda p, lib: tuple(p.size()), lambda p, lib: str(p.dtype).split(".")[-1], lambda p, lib: p.device.type,
    lambda p, lib: p.requires_grad, lambda p, lib: p.is_leaf, lambda p, lib: p.ndim, lambda p, lib: repr(p),
    lambda p, lib: p.is_floating_point(), lambda p, lib: p.grad is None, lambda p, lib: p.data.tolist(),
    lambda p, lib: p.to(lib.float64).tolist(), lambda p, lib: type(p.float()).__name__,
], ids=["size", "dtype", "device", "requires_grad", "is_leaf", "ndim", "repr", "is_floating_point", "grad",
        "data", "to", "float"])
def test_uninitialized_parameter_allows_what_pytorch_allows(torch, use):
    assert use(pt.nn.UninitializedParameter(), pt) == use(torch.nn.UninitializedParameter(), torch)
