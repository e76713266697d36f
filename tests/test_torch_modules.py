"""torch.random, torch.compiler, torch.multiprocessing, torch.distributed, torch.nn.attention and the
constants: the modules tutorials import, compared with PyTorch where it is installed."""
import math
import multiprocessing as py_mp
import sys

import pytest

import pedatorch as torch
import pedatorch.multiprocessing as mp
import pedatorch.nn as nn
import pedatorch.nn.functional as F
from pedatorch.nn.attention import SDPBackend, sdpa_kernel


def test_constants():
    assert (torch.pi, torch.e, torch.inf, torch.newaxis) == (math.pi, math.e, math.inf, None)
    assert math.isnan(torch.nan)
    assert torch.arange(3.)[torch.newaxis].shape == (1, 3)


def test_fork_rng_restores_the_stream():
    pt = pytest.importorskip("torch")
    for lib in (torch, pt):
        lib.manual_seed(3)
        with lib.random.fork_rng(devices=[]):
            lib.rand(7)
        after = lib.rand(2).tolist()
        lib.manual_seed(3)
        assert lib.rand(2).tolist() == after
    torch.manual_seed(3), pt.manual_seed(3)
    with torch.random.fork_rng(enabled=False):
        torch.rand(1)
    with pt.random.fork_rng(enabled=False):
        pt.rand(1)
    assert torch.rand(3).tolist() == pt.rand(3).tolist()
    assert torch.random.initial_seed() == 3 and torch.random.get_rng_state().shape == pt.random.get_rng_state().shape


def test_compiler_is_eager():
    model = nn.Linear(2, 2)
    assert torch.compile(model) is model and torch.compiler.compile(model) is model
    assert torch.compile(mode="max-autotune")(model) is model
    f = torch.compiler.disable(lambda x: x + 1)
    assert f(1) == 2 and torch.compiler.disable()(len)([1]) == 1
    assert torch.compiler.is_compiling() is False and torch.compiler.list_backends() == []
    with torch.compiler.set_stance("force_eager"):
        pass


def test_distributed_is_unavailable():
    assert torch.distributed.is_available() is False and torch.distributed.is_initialized() is False
    pt = pytest.importorskip("torch")
    for lib in (torch, pt):
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            lib.distributed.get_rank()


def test_sdpa_kernel_switches_like_pytorch():
    pt = pytest.importorskip("torch")
    import torch.nn.attention as pt_attention
    q = torch.randn(1, 2, 3, 4)
    for chosen in ("MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION"):
        outcomes = []
        for lib, module, x in ((torch, sys.modules["pedatorch.nn.attention"], q),
                               (pt, pt_attention, pt.from_numpy(q.numpy()))):
            with module.sdpa_kernel(getattr(module.SDPBackend, chosen)):
                try:
                    lib.nn.functional.scaled_dot_product_attention(x, x, x)
                    outcomes.append("ok")
                except RuntimeError as err:
                    outcomes.append(str(err))
        assert outcomes[0] == outcomes[1], chosen
    with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):
        F.scaled_dot_product_attention(q, q, q)
        assert not torch.backends.cuda.flash_sdp_enabled() and torch.backends.cuda.math_sdp_enabled()
    assert torch.backends.cuda.flash_sdp_enabled()   # restored
    assert str(SDPBackend.MATH) == str(pt_attention.SDPBackend.MATH) and int(SDPBackend.FLASH_ATTENTION) == 1
    with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend"):
        with sdpa_kernel("math"):
            pass


def _add_one(rank, model):
    with torch.no_grad():
        model.weight.add_(1.0)


def _fail(rank):
    raise ValueError(f"boom {rank}")


@pytest.mark.skipif("fork" not in py_mp.get_all_start_methods(), reason="needs the fork start method")
def test_hogwild_share_memory_with_fork():
    model = nn.Linear(2, 1, bias=False)
    nn.init.zeros_(model.weight)
    assert not model.weight.is_shared()
    assert model.share_memory() is model and model.weight.is_shared()
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_add_one, args=(r, model)) for r in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    assert model.weight.tolist() == [[3.0, 3.0]]
    base = torch.arange(6.)
    view = base.view(2, 3)[1]
    view.share_memory_()
    view.add_(10)
    assert view.is_shared() and base.is_shared() and base.tolist() == [0, 1, 2, 13, 14, 15]


@pytest.mark.skipif("fork" not in py_mp.get_all_start_methods(), reason="needs the fork start method")
def test_start_processes_raises_the_childs_error():
    with pytest.raises(mp.ProcessRaisedException, match="ValueError: boom"):
        mp.start_processes(_fail, nprocs=2, start_method="fork")
    ctx = mp.start_processes(_add_one, args=(nn.Linear(1, 1),), nprocs=1, join=False, start_method="fork")
    while not ctx.join():
        pass
    assert mp.get_sharing_strategy() in mp.get_all_sharing_strategies()
