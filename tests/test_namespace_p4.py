"""Small names of torch's namespace a program meets: the deterministic-algorithms flags, torch.cond /
while_loop run eagerly, the sym_* helpers, torch.layout / memory_format, empty_permuted, storage_type,
get_device_module -- each compared with PyTorch."""
import pytest

import pedatorch as pt

from conftest import error_of


def _norm(v):
    return repr(v).replace("pedatorch", "torch")


def _run(lib):
    out = [lib.are_deterministic_algorithms_enabled(), lib.get_deterministic_debug_mode(),
           lib.is_deterministic_algorithms_warn_only_enabled()]
    lib.use_deterministic_algorithms(True, warn_only=True)
    out += [lib.are_deterministic_algorithms_enabled(), lib.get_deterministic_debug_mode(),
            lib.is_deterministic_algorithms_warn_only_enabled()]
    for mode in ["error", 0, "warn", 1, "default", 5, "x", 1.5]:
        out.append(error_of(lambda: lib.set_deterministic_debug_mode(mode)) or lib.get_deterministic_debug_mode())
    out.append(error_of(lambda: lib.use_deterministic_algorithms("yes")))
    lib.use_deterministic_algorithms(False)
    out += [lib.cond(lib.tensor(True), lambda x: x + 1, lambda x: x - 1, (lib.ones(2),)),
            lib.cond(False, lambda x: x + 1, lambda x: x - 1, (lib.ones(2),)),
            lib.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (lib.tensor(0), lib.ones(2))),
            (lib.sym_int(3.7), lib.sym_float(2), lib.sym_max(2, 3), lib.sym_min(1, 2), lib.sym_not(True),
             lib.sym_sqrt(4), lib.sym_ite(True, 1, 2), lib.sym_sum([1, 2, 3])),
            isinstance(lib.strided, lib.layout), isinstance(lib.channels_last, lib.memory_format),
            isinstance(lib.strided, lib.memory_format), lib.ones(2).layout,
            lib.ones(2).storage_type().__name__, lib.ones(2, dtype=lib.int64).storage_type().__name__,
            lib.empty_permuted((2, 3, 4), (2, 0, 1)).stride(), lib.empty_permuted((2, 3), (1, 0)).shape,
            lib.empty_permuted((2, 3), (1, 0), dtype=lib.int64).dtype,
            lib.get_device_module("cpu").__name__.split(".")[-1], lib.get_device_module().__name__.split(".")[-1]]
    for bad in [((2, 3), (0, 0)), ((2, 3), (0,)), ((2, 3), (0, 2))]:
        out.append(error_of(lambda: lib.empty_permuted(*bad)))
    return [_norm(v) for v in out]


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
def test_small_names_as_pytorch(torch):
    assert _run(pt) == _run(torch)


def _make_tensors(lib):
    import warnings
    lib.manual_seed(0)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kw in [dict(dtype=lib.float64, low=-1, high=1), dict(dtype=lib.float32), dict(dtype=lib.int64),
                   dict(dtype=lib.uint8), dict(dtype=lib.bool), dict(dtype=lib.complex64, low=-1, high=1),
                   dict(dtype=lib.float32, noncontiguous=True), dict(dtype=lib.float16, exclude_zero=True),
                   dict(dtype=lib.int32, low=2, high=5), dict(dtype=lib.float32, requires_grad=True),
                   dict(dtype=lib.float64, high=float("inf"))]:
            t = lib.testing.make_tensor((2, 3), device="cpu", **kw)
            out += [_norm(t), t.stride()]
        for bad in [dict(dtype=lib.int64, requires_grad=True), dict(dtype=lib.float32, low=2, high=1),
                    dict(dtype=lib.uint8, low=-5, high=-1), dict(dtype=lib.float32, low=float("nan"))]:
            out.append(error_of(lambda: lib.testing.make_tensor((2,), device="cpu", **bad)))
    x = lib.randn(3, dtype=lib.float64, requires_grad=True)
    out += [lib.autograd.gradgradcheck(lambda t: t * t.sin(), (x,)), _norm(lib.randn(2))]   # (the same draws)
    return out


def test_make_tensor_and_gradgradcheck_draw_as_pytorch(torch):
    assert _make_tensors(pt) == _make_tensors(torch)


def test_module_aliases(torch):
    import pedatorch.functional
    import pedatorch.types
    import pedatorch.utils.model_zoo
    assert sorted(pt.functional.__all__) == sorted(torch.functional.__all__)
    assert pt.functional.norm(pt.ones(3)).item() == pytest.approx(3 ** 0.5)
    assert pt.utils.model_zoo.load_url is pt.hub.load_state_dict_from_url
    assert isinstance(3, pt.types.Number.__args__) and pt.types.Storage


def _resizes(lib):
    import warnings
    out = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = lib.arange(6., requires_grad=True)
        y = x.resize(2, 3)
        out += [_norm(y), y.grad_fn.name(), y._base is x]
        y.sum().backward()
        out += [_norm(x.grad), _norm(x.detach().resize_as(lib.ones(3, 2)).shape),
                error_of(lambda: x.resize((3, 2))), error_of(lambda: x.resize(4))]
    out.append([str(c.message) for c in caught])
    return out


def test_out_of_place_resize_as_pytorch(torch):
    assert _resizes(pt) == _resizes(torch)


def _aten_forms(lib):
    lib.manual_seed(0)
    x = lib.randn(2, 3, 4)
    w, b, rm, rv = lib.ones(3) * 2, lib.zeros(3) + 0.5, lib.zeros(3), lib.ones(3)
    e = lib.arange(12.).reshape(4, 3)
    return [_norm(v) for v in (lib.batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5, False), rm, rv,
                               lib.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
                               lib.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
                               lib.embedding(e, lib.tensor([1, 3])), lib.embedding(e, lib.tensor([1, 3]), 1))]


def test_top_level_aten_forms_take_atens_argument_order(torch):
    assert _aten_forms(pt) == _aten_forms(torch)
