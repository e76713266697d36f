"""nn.utils.prune compared with PyTorch: after the same manual_seed both libraries build the same modules and
prune the same entries (the random methods draw from the generator as PyTorch does), so masks, pruned
values, the names and order of named_parameters / named_buffers / state_dict, the forward pre-hooks, the
pruning history, gradients and the errors (class and message) must all be equal."""
import copy
import re

import numpy as np
import pytest

import pedatorch as pt
import pedatorch.nn.utils.prune as pt_prune
from conftest import to_np


def prune_of(lib):
    if lib is pt:
        return pt_prune
    import torch.nn.utils.prune as prune
    return prune


def both(torch, fn):
    """``fn(lib, prune)`` under each library (seeded with 0 first)."""
    out = []
    for lib in (pt, torch):
        lib.manual_seed(0)
        out.append(fn(lib, prune_of(lib)))
    return out


def assert_same(a, b, rtol=0):
    """Equal nested results: tensors by dtype and values (exactly, or to ``rtol`` where a matmul's float32
    summation order may differ), everything else by ==."""
    if hasattr(b, "detach"):
        assert hasattr(a, "detach"), (a, b)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_allclose(to_np(a), to_np(b), rtol=rtol, atol=rtol)
    elif isinstance(b, (list, tuple)):
        assert isinstance(a, (list, tuple)) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            assert_same(x, y, rtol)
    elif isinstance(b, dict):
        assert list(a) == list(b)
        for k in b:
            assert_same(a[k], b[k], rtol)
    else:
        assert a == b


def compare(torch, fn, rtol=0):
    got, want = both(torch, fn)
    assert_same(got, want, rtol)


_ADDRESS = re.compile(r"0x[0-9a-f]+")


def raises_same(torch, fn):
    """``fn(lib, prune)`` raises the same class and message (memory addresses blanked) in both."""
    errs = []
    for lib in (pt, torch):
        lib.manual_seed(0)
        with pytest.raises(Exception) as info:
            fn(lib, prune_of(lib))
        errs.append(info.value)
    assert type(errs[0]).__name__ == type(errs[1]).__name__, errs
    assert _ADDRESS.sub("0x", str(errs[0])) == _ADDRESS.sub("0x", str(errs[1])), errs


def state(m):
    """What pruning changes on a module: parameter, buffer and state-dict names, the values, the hooks."""
    return {
        "params": [(n, p) for n, p in m.named_parameters()],
        "buffers": [(n, b) for n, b in m.named_buffers()],
        "state_dict": list(m.state_dict().keys()),
        "hooks": [type(h).__name__ for h in m._forward_pre_hooks.values()],
    }


def conv(lib):
    return lib.nn.Conv2d(3, 6, 3)


def linear(lib):
    return lib.nn.Linear(7, 5)


# ---------------------------------------------------------------- each method against PyTorch
@pytest.mark.parametrize("amount", [0.3, 0.0, 1.0, 0, 5, 0.25])
@pytest.mark.parametrize("make", [conv, linear])
def test_random_unstructured(torch, make, amount):
    def fn(lib, prune):
        m = make(lib)
        prune.random_unstructured(m, "weight", amount=amount)
        return state(m), m.weight, m.weight_mask, lib.rand(3)   # the stream goes on alike
    compare(torch, fn)


@pytest.mark.parametrize("amount", [0.3, 3, 0.5, 1.0])
def test_l1_unstructured_with_and_without_importance_scores(torch, amount):
    def fn(lib, prune):
        m = conv(lib)
        prune.l1_unstructured(m, name="bias", amount=amount)
        scores = lib.rand(6, 3, 3, 3)
        prune.l1_unstructured(m, name="weight", amount=amount, importance_scores=scores)
        return state(m), m.bias_mask, m.weight_mask, m.weight
    compare(torch, fn)


@pytest.mark.parametrize("dim", [0, 1, -1, 3])
@pytest.mark.parametrize("amount", [0.5, 2, 0.0])
def test_random_structured(torch, dim, amount):
    def fn(lib, prune):
        m = conv(lib)
        prune.random_structured(m, "weight", amount=amount, dim=dim)
        return state(m), m.weight_mask, lib.rand(2)
    compare(torch, fn)


@pytest.mark.parametrize("n", [1, 2, float("inf"), float("-inf"), 0.5])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_ln_structured(torch, n, dim):
    def fn(lib, prune):
        m = conv(lib)
        prune.ln_structured(m, "weight", amount=0.34, n=n, dim=dim)
        return state(m), m.weight_mask, m.weight
    compare(torch, fn)


def test_ln_structured_importance_scores_and_fro_on_a_matrix(torch):
    def fn(lib, prune):
        m = linear(lib)
        prune.ln_structured(m, "weight", amount=2, n="fro", dim=0, importance_scores=lib.randn(5, 7))
        return m.weight_mask
    compare(torch, fn)


def test_identity_and_custom_from_mask(torch):
    def fn(lib, prune):
        m = prune.identity(linear(lib), "bias")
        prune.custom_from_mask(m, name="weight", mask=lib.rand(5, 7) > 0.5)
        prune.custom_from_mask(m, name="bias", mask=lib.tensor([0, 1, 0, 1, 1]))   # an int mask: float after
        return state(m), m.bias_mask, m.weight_mask, m.bias, m.weight
    compare(torch, fn)


def test_custom_from_mask_doc_example(torch):
    def fn(lib, prune):
        m = prune.custom_from_mask(lib.nn.Linear(5, 3), name="bias", mask=lib.tensor([0, 1, 0]))
        return m.bias_mask
    compare(torch, fn)


def test_float64_module_gets_float64_masks(torch):
    def fn(lib, prune):
        m = linear(lib).double()
        prune.random_unstructured(m, "weight", amount=0.4)
        prune.ln_structured(m, "weight", amount=1, n=1, dim=1)
        return m.weight_mask, m.weight
    compare(torch, fn)


# ---------------------------------------------------------------- iterative pruning (PruningContainer)
def test_iterative_pruning_combines_masks(torch):
    def fn(lib, prune):
        m = conv(lib)
        prune.random_unstructured(m, name="weight", amount=0.3)
        prune.ln_structured(m, name="weight", amount=0.5, n=2, dim=0)
        prune.random_structured(m, name="weight", amount=1, dim=1)
        prune.l1_unstructured(m, name="weight", amount=0.2)
        hook = next(h for h in m._forward_pre_hooks.values() if h._tensor_name == "weight")
        history = [type(h).__name__ for h in hook]
        return state(m), m.weight_mask, m.weight, history, type(hook).__name__, len(hook), type(hook[1]).__name__
    compare(torch, fn)


def test_one_hook_per_pruned_tensor_in_order(torch):
    def fn(lib, prune):
        m = conv(lib)
        prune.random_unstructured(m, name="weight", amount=0.3)
        prune.l1_unstructured(m, name="bias", amount=3)
        prune.l1_unstructured(m, name="weight", amount=3)
        return [(type(h).__name__, h._tensor_name) for h in m._forward_pre_hooks.values()]
    compare(torch, fn)


def test_global_unstructured(torch):
    def fn(lib, prune):
        net = lib.nn.Sequential(lib.nn.Linear(10, 4), lib.nn.Linear(4, 3))
        prune.random_unstructured(net[0], "weight", amount=5)       # an existing mask is respected
        params = ((net[0], "weight"), (net[1], "weight"), (net[1], "bias"))
        prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=0.3)
        zeros = sum(lib.nn.utils.parameters_to_vector(net.buffers()) == 0)
        return state(net), state(net[0]), zeros, [b for _, b in net.named_buffers()]
    compare(torch, fn)


def test_global_unstructured_random_and_importance_scores(torch):
    def fn(lib, prune):
        net = lib.nn.Sequential(lib.nn.Linear(6, 4), lib.nn.Linear(4, 2))
        scores = {(net[1], "weight"): lib.ones(2, 4)}
        prune.global_unstructured([(net[0], "weight"), (net[1], "weight")], pruning_method=prune.L1Unstructured,
                                  importance_scores=scores, amount=10)
        prune.global_unstructured([(net[0], "weight"), (net[1], "weight")],
                                  pruning_method=prune.RandomUnstructured, amount=0.2)
        return [b for _, b in net.named_buffers()], lib.rand(2)
    compare(torch, fn)


def test_global_unstructured_doc_example(torch):
    def fn(lib, prune):
        from collections import OrderedDict
        net = lib.nn.Sequential(OrderedDict([("first", lib.nn.Linear(10, 4)), ("second", lib.nn.Linear(4, 1))]))
        prune.global_unstructured(((net.first, "weight"), (net.second, "weight")),
                                  pruning_method=prune.L1Unstructured, amount=10)
        return sum(lib.nn.utils.parameters_to_vector(net.buffers()) == 0)
    compare(torch, fn)


# ---------------------------------------------------------------- the reparametrization at work
def test_forward_pre_hook_recomputes_the_pruned_weight_and_gradients_are_masked(torch):
    def fn(lib, prune):
        m = linear(lib)
        prune.random_unstructured(m, "weight", amount=0.5)
        with lib.no_grad():
            m.weight_orig.mul_(2.0)    # as an optimizer step would
        x = lib.randn(3, 7)
        y = m(x)
        y.sum().backward()
        return y, m.weight, m.weight_orig.grad, m.bias.grad, m.weight.grad_fn is not None
    compare(torch, fn, rtol=1e-6)


def test_training_step_keeps_pruned_entries_zero(torch):
    def fn(lib, prune):
        m = linear(lib)
        prune.l1_unstructured(m, "weight", amount=0.4)
        opt = lib.optim.SGD(m.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            m(lib.randn(4, 7)).pow(2).mean().backward()
            opt.step()
        m(lib.randn(1, 7))
        return m.weight, (m.weight == 0).sum(), m.weight_orig
    got, want = both(torch, fn)
    np.testing.assert_allclose(to_np(got[0]), to_np(want[0]), rtol=1e-5, atol=1e-6)
    assert int(got[1]) == int(want[1]) == 14


def test_remove_makes_pruning_permanent(torch):
    def fn(lib, prune):
        m = conv(lib)
        prune.random_unstructured(m, "weight", amount=0.3)
        orig = m.weight_orig
        prune.remove(m, "weight")
        return (state(m), m.weight, m.weight is orig, type(m.weight).__name__, m.weight.requires_grad,
                prune.is_pruned(m), "weight" in m.__dict__)
    compare(torch, fn)


def test_remove_one_of_two_and_is_pruned_on_submodules(torch):
    def fn(lib, prune):
        net = lib.nn.Sequential(conv(lib), lib.nn.ReLU())
        before = prune.is_pruned(net)
        prune.l1_unstructured(net[0], "bias", amount=2)
        prune.random_unstructured(net[0], "weight", amount=2)
        during = prune.is_pruned(net)
        prune.remove(net[0], "bias")
        return before, during, prune.is_pruned(net), state(net), state(net[0])
    compare(torch, fn)


def test_state_dict_round_trip_into_a_pruned_model(torch):
    def fn(lib, prune):
        a, b = linear(lib), linear(lib)
        prune.random_unstructured(a, "weight", amount=0.5)
        prune.identity(b, "weight")
        result = b.load_state_dict(a.state_dict())
        b(lib.zeros(1, 7))   # the hook recomputes b.weight from the loaded mask and orig
        return list(a.state_dict()), b.weight, a.weight, str(result)
    compare(torch, fn)


def test_deepcopy_of_a_pruned_module(torch):
    def fresh(lib, prune):   # m.weight came out of a multiplication that autograd recorded: no deepcopy
        m = linear(lib)
        prune.random_unstructured(m, "weight", amount=0.5)
        copy.deepcopy(m)
    raises_same(torch, fresh)

    def fn(lib, prune):      # after a forward under no_grad, m.weight is a plain tensor: it copies
        m = linear(lib)
        prune.random_unstructured(m, "weight", amount=0.5)
        with lib.no_grad():
            m(lib.zeros(1, 7))
        c = copy.deepcopy(m)
        with lib.no_grad():
            c.weight_orig.fill_(1.0)
            c(lib.zeros(1, 7))
        return c.weight, m.weight, state(c), [type(h).__name__ for h in c._forward_pre_hooks.values()]
    compare(torch, fn)


def test_hooks_dict_prints_like_pytorchs(torch):
    outs = []
    for lib in (pt, torch):
        m = linear(lib)
        prune_of(lib).random_unstructured(m, "weight", amount=1)
        text = _ADDRESS.sub("0x", repr(m._forward_pre_hooks))
        outs.append(re.sub(r"\(\d+, ", "(N, ", text))   # hook ids count all hooks made in the process
    assert outs[0] == outs[1]
    assert outs[1] == "OrderedDict([(N, <torch.nn.utils.prune.RandomUnstructured object at 0x>)])"
    assert repr(linear(pt)._forward_pre_hooks) == "OrderedDict()"


# ---------------------------------------------------------------- custom methods and the method API
def test_custom_method_from_the_tutorial(torch):
    def fn(lib, prune):
        class FooBarPruningMethod(prune.BasePruningMethod):
            PRUNING_TYPE = "unstructured"

            def compute_mask(self, t, default_mask):
                mask = default_mask.clone()
                mask.view(-1)[::2] = 0
                return mask

        m = linear(lib)
        FooBarPruningMethod.apply(m, "bias")
        prune.random_unstructured(m, "bias", amount=1)      # on the entries FooBar left
        FooBarPruningMethod.apply(m, "bias")                # every other of what is left
        hook = list(m._forward_pre_hooks.values())[0]
        return m.bias_mask, [type(h).__name__ for h in hook], repr(hook[0]).split(" object")[0]
    compare(torch, fn)


def test_prune_method_and_direct_construction(torch):
    def fn(lib, prune):
        t = lib.randn(4, 5)
        a = prune.L1Unstructured(amount=0.5).prune(t)
        b = prune.LnStructured(amount=1, n=1, dim=0).prune(t, default_mask=(t > -1).float())
        c = prune.RandomStructured(amount=2, dim=1).prune(t, importance_scores=lib.ones(4, 5))
        d = prune.RandomUnstructured(0.25).compute_mask(t, default_mask=lib.ones(4, 5).t().contiguous().t())
        e = prune.Identity().prune(t)
        return a, b, c, d, e
    compare(torch, fn)


def test_pruning_container_by_hand(torch):
    def fn(lib, prune):
        x = prune.L1Unstructured(2)
        x._tensor_name = "w"
        y = prune.RandomStructured(1, dim=0)
        y._tensor_name = "w"
        c = prune.PruningContainer(x)
        c.add_pruning_method(y)
        mask = c.compute_mask(lib.randn(3, 4), default_mask=lib.ones(3, 4))
        empty = prune.PruningContainer()
        return mask, len(c), c._tensor_name, len(empty), c[0] is x
    compare(torch, fn)


def test_structured_method_needs_dim(torch):
    def fn(lib, prune):
        class NoDim(prune.BasePruningMethod):
            PRUNING_TYPE = "structured"

            def compute_mask(self, t, default_mask):
                return default_mask
        m = linear(lib)
        NoDim.apply(m, "weight")
        NoDim.apply(m, "weight")
    raises_same(torch, fn)


def test_unknown_pruning_type(torch):
    def fn(lib, prune):
        class Odd(prune.BasePruningMethod):
            PRUNING_TYPE = "diagonal"

            def compute_mask(self, t, default_mask):
                return default_mask
        m = linear(lib)
        Odd.apply(m, "weight")
        Odd.apply(m, "weight")
    raises_same(torch, fn)


def test_base_method_is_abstract(torch):
    raises_same(torch, lambda lib, prune: prune.BasePruningMethod())


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("amount", [-1, 1.5, -0.1, "0.3", None, 31])
def test_bad_amounts(torch, amount):
    raises_same(torch, lambda lib, prune: prune.random_unstructured(linear(lib), "bias", amount=amount))
    raises_same(torch, lambda lib, prune: prune.l1_unstructured(linear(lib), "weight", amount=amount * 2
                                                                 if isinstance(amount, int) and amount > 30
                                                                 else amount))


@pytest.mark.parametrize("amount", [-2, 2.0, 7])
def test_bad_structured_amounts(torch, amount):
    raises_same(torch, lambda lib, prune: prune.random_structured(linear(lib), "weight", amount=amount, dim=0))
    raises_same(torch, lambda lib, prune: prune.ln_structured(linear(lib), "weight", amount, n=2, dim=0))


def test_structured_errors(torch):
    raises_same(torch, lambda lib, prune: prune.ln_structured(linear(lib), "bias", 1, n=2, dim=0))
    raises_same(torch, lambda lib, prune: prune.random_structured(linear(lib), "bias", 1, dim=0))
    raises_same(torch, lambda lib, prune: prune.ln_structured(linear(lib), "weight", 1, n=2, dim=2))
    raises_same(torch, lambda lib, prune: prune.random_structured(conv(lib), "weight", 1, dim=4))


def test_errors_roll_back_the_reparametrization(torch):
    def fn(lib, prune):
        m = linear(lib)
        try:
            prune.l1_unstructured(m, "weight", amount=100)
        except ValueError as e:
            msg = str(e)
        return msg, state(m), hasattr(m, "weight_orig")
    compare(torch, fn)


def test_remove_unpruned_and_missing_names(torch):
    raises_same(torch, lambda lib, prune: prune.remove(linear(lib), "weight"))
    raises_same(torch, lambda lib, prune: prune.random_unstructured(linear(lib), "nope", amount=1))


def test_importance_scores_shape(torch):
    raises_same(torch, lambda lib, prune: prune.l1_unstructured(linear(lib), "weight", 2,
                                                                importance_scores=lib.ones(7, 5)))
    raises_same(torch, lambda lib, prune: prune.L1Unstructured(2).prune(lib.ones(3), importance_scores=lib.ones(2)))


def test_global_unstructured_errors(torch):
    raises_same(torch, lambda lib, prune: prune.global_unstructured(3, prune.L1Unstructured, amount=1))
    raises_same(torch, lambda lib, prune: prune.global_unstructured(
        [(linear(lib), "weight")], prune.L1Unstructured, importance_scores=[1], amount=1))
    raises_same(torch, lambda lib, prune: prune.global_unstructured(
        [(linear(lib), "weight")], prune.L1Unstructured, amount=36))


def test_global_unstructured_rejects_structured_methods(torch):
    errs = []
    for lib in (pt, torch):
        prune = prune_of(lib)
        with pytest.raises(TypeError) as info:
            prune.global_unstructured([(linear(lib), "weight")], prune.RandomStructured, amount=1)
        errs.append(str(info.value))
    # the message names the class; ours lives in pedatorch.nn.utils.prune
    assert errs[0].replace("pedatorch.", "torch.") == errs[1]


def test_container_errors(torch):
    def wrong_type(lib, prune):
        c = prune.PruningContainer(prune.Identity())
        c.add_pruning_method("x")

    def wrong_name(lib, prune):
        a, b = prune.Identity(), prune.Identity()
        a._tensor_name, b._tensor_name = "weight", "bias"
        prune.PruningContainer(a).add_pruning_method(b)
    raises_same(torch, wrong_type)
    raises_same(torch, wrong_name)


def test_public_names(torch):
    import torch.nn.utils.prune as tp
    assert sorted(n for n in dir(tp) if not n.startswith("_") and callable(getattr(tp, n)) and
                  getattr(getattr(tp, n), "__module__", "") == tp.__name__) == \
        sorted(n for n in dir(pt_prune) if not n.startswith("_") and callable(getattr(pt_prune, n)) and
               getattr(getattr(pt_prune, n), "__module__", "") == pt_prune.__name__)


# ---------------------------------------------------------------- on each device (CUDA: a GPU or the stand-in)
def test_pruning_on_each_device(device):
    pt.manual_seed(0)
    m = pt.nn.Conv2d(2, 4, 3).to(device)
    pt_prune.random_unstructured(m, "weight", amount=0.3)
    pt_prune.ln_structured(m, "weight", amount=1, n=2, dim=0)
    pt_prune.random_structured(m, "weight", amount=1, dim=1)
    pt_prune.l1_unstructured(m, "bias", amount=2)
    pt_prune.global_unstructured([(m, "weight"), (m, "bias")], pruning_method=pt_prune.L1Unstructured, amount=5)
    y = m(pt.randn(1, 2, 5, 5, device=device))
    y.sum().backward()
    assert m.weight_mask.device.type == m.bias_mask.device.type == m.weight.device.type == device
    mask = to_np(m.weight_mask)
    assert set(np.unique(mask)) <= {0.0, 1.0}
    assert (mask.reshape(4, -1).sum(1) == 0).sum() >= 1             # the structured step emptied a channel
    np.testing.assert_array_equal(to_np(m.weight), to_np(m.weight_orig) * mask)
    np.testing.assert_array_equal(to_np(m.weight_orig.grad) * (1 - mask), 0)
    pt_prune.remove(m, "weight")
    assert m.weight.device.type == device
    assert pt_prune.is_pruned(m)   # the bias still is


def test_l1_unstructured_with_ties_at_the_cut(torch):
    def fn(lib, prune):
        m = lib.nn.Linear(300, 100)
        prune.l1_unstructured(m, "weight", amount=0.5)
        prune.remove(m, "weight")                       # half the weights are now exactly 0 ...
        prune.l1_unstructured(m, "weight", amount=0.3)  # ... and 30% of them are to be picked: all tied
        return m.weight_mask
    compare(torch, fn)
