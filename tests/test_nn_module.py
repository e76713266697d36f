"""nn.Module and the containers, against PyTorch: registration, names and order, state_dict,
train/eval, to(), hooks, repr, and default initialisation (same seed -> same weights)."""
import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close


def build(lib):
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 3)
            self.act = nn.ReLU()
            self.fc2 = nn.Linear(3, 2, bias=False)
            self.register_buffer("steps", lib.zeros(1))
            self.register_buffer("scratch", lib.ones(2), persistent=False)
            self.scale = nn.Parameter(lib.ones(1))

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x))) * self.scale

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([Block(), Block()])
            self.head = nn.Sequential(OrderedDict([("lin", nn.Linear(2, 2)), ("tanh", nn.Tanh())]))
            self.shared = self.head  # the same module twice: listed once

        def forward(self, x):
            for b in self.blocks:
                x = b(x).repeat(1, 2)
            return self.head(x[..., :2])
    lib.manual_seed(0)
    return Net()


def test_names_order_and_counts(torch):
    ours, theirs = build(pt), build(torch)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    assert sum(p.numel() for p in ours.parameters()) == sum(p.numel() for p in theirs.parameters())
    assert list(ours.state_dict().keys()) == list(theirs.state_dict().keys())
    assert [n for n, _ in ours.named_parameters(prefix="m", recurse=False)] == \
        [n for n, _ in theirs.named_parameters(prefix="m", recurse=False)]


def test_default_initialisation_matches_torch(torch):
    ours, theirs = build(pt), build(torch)
    for (n, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert_close(a, b, rtol=0, atol=0), n


def test_forward_backward_match(torch):
    ours, theirs = build(pt), build(torch)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    ya, yb = ours(pt.tensor(x)), theirs(torch.tensor(x))
    assert_close(ya, yb, rtol=1e-5, atol=1e-6)
    ya.sum().backward()
    yb.sum().backward()
    for (n, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert (a.grad is None) == (b.grad is None), n
        if a.grad is not None:
            assert_close(a.grad, b.grad, rtol=1e-5, atol=1e-6)


def test_repr_matches_torch(torch):
    assert repr(build(pt)) == repr(build(torch))
    a = pt.nn.ModuleList([pt.nn.Linear(2, 2) for _ in range(3)] + [pt.nn.ReLU()])
    b = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)] + [torch.nn.ReLU()])
    assert repr(a) == repr(b)
    pa = pt.nn.ParameterList([pt.nn.Parameter(pt.ones(2, 3)), pt.nn.Parameter(pt.ones(1))])
    pb = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(2, 3)), torch.nn.Parameter(torch.ones(1))])
    assert repr(pa) == repr(pb)
    assert repr(pt.nn.Parameter(pt.ones(2))) == repr(torch.nn.Parameter(torch.ones(2)))


def test_state_dict_roundtrip_and_errors(torch):
    src, dst = build(pt), build(pt)
    with pt.no_grad():
        for p in dst.parameters():
            p.mul_(0)
    r = dst.load_state_dict(src.state_dict())
    assert r.missing_keys == [] and r.unexpected_keys == [] and repr(r) == "<All keys matched successfully>"
    for a, b in zip(src.parameters(), dst.parameters()):
        assert a.tolist() == b.tolist()
    sd = src.state_dict()
    assert not any(v.requires_grad for v in sd.values())
    assert sd["blocks.0.fc1.weight"].data_ptr() == src.blocks[0].fc1.weight.data_ptr()
    # missing / unexpected / size mismatch: same messages as PyTorch
    msgs = []
    for lib in (pt, torch):
        m = build(lib)
        bad = m.state_dict()
        del bad["head.lin.bias"]
        bad["extra"] = lib.ones(1)
        bad["blocks.0.fc1.weight"] = lib.ones(5, 5)
        with pytest.raises(RuntimeError) as info:
            m.load_state_dict(bad)
        msgs.append(str(info.value))
        res = m.load_state_dict({k: v for k, v in bad.items() if k != "blocks.0.fc1.weight"}, strict=False)
        msgs.append((res.missing_keys, res.unexpected_keys))
    assert msgs[0] == msgs[2] and msgs[1] == msgs[3]


def test_train_eval_apply_requires_grad_zero_grad(torch):
    for lib in (pt, torch):
        m = build(lib)
        m.eval()
        assert not any(x.training for x in m.modules())
        m.train()
        assert all(x.training for x in m.modules())
        seen = []
        m.apply(lambda mod: seen.append(type(mod).__name__))
        assert seen[-1] == "Net" and seen[0] == "Linear"
        m.requires_grad_(False)
        assert not any(p.requires_grad for p in m.parameters())
        m.requires_grad_()
        m(lib.ones(2, 4)).sum().backward()
        m.zero_grad()
        assert all(p.grad is None for p in m.parameters())
        m(lib.ones(2, 4)).sum().backward()
        m.zero_grad(set_to_none=False)
        assert all(p.grad is None or float(p.grad.abs().sum()) == 0 for p in m.parameters())


def test_to_dtype_keeps_parameter_identity(torch):
    m = build(pt)
    w = m.head.lin.weight
    m.double()
    assert m.head.lin.weight is w and w.dtype is pt.float64 and isinstance(w, pt.nn.Parameter)
    assert m.blocks[0].steps.dtype is pt.float64
    m.to(pt.float32)
    assert w.dtype is pt.float32
    with pytest.raises(TypeError):
        m.to(pt.int64)
    m.to("cpu")


def test_setattr_rules(torch):
    for lib in (pt, torch):
        nn = lib.nn
        m = nn.Linear(2, 2)
        with pytest.raises(TypeError):
            m.weight = lib.ones(2, 2)  # a plain tensor where a Parameter is registered
        m.weight = None
        assert "weight" in m._parameters and m.weight is None
        m.foo = 3
        assert m.foo == 3
        with pytest.raises(AttributeError):
            m.nothing
        with pytest.raises(KeyError):
            m.register_buffer("a.b", lib.ones(1))
        with pytest.raises(TypeError):
            m.register_parameter("p", lib.ones(1))

        class Early(nn.Module):
            def __init__(self):
                self.w = nn.Parameter(lib.ones(1))
        with pytest.raises(AttributeError):
            Early()


def test_containers(torch):
    for lib in (pt, torch):
        nn = lib.nn
        s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        assert len(s) == 3 and isinstance(s[1], nn.ReLU) and isinstance(s[-1], nn.Linear)
        assert isinstance(s[:2], nn.Sequential) and len(s[:2]) == 2
        s.append(nn.Sigmoid())
        del s[1]
        assert [type(x).__name__ for x in s] == ["Linear", "Linear", "Sigmoid"]
        assert list(s._modules.keys()) == ["0", "1", "2"]
        ml = nn.ModuleList([nn.ReLU()])
        ml.append(nn.Tanh())
        ml.extend([nn.Sigmoid()])
        ml.insert(0, nn.Identity())
        assert [type(x).__name__ for x in ml] == ["Identity", "ReLU", "Tanh", "Sigmoid"]
        md = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Tanh()})
        md["c"] = nn.Sigmoid()
        assert list(md.keys()) == ["a", "b", "c"] and "b" in md
        pl = nn.ParameterList([nn.Parameter(lib.ones(2)), lib.zeros(3)])
        assert all(isinstance(p, nn.Parameter) for p in pl) and len(list(pl.parameters())) == 2
        pd = nn.ParameterDict({"w": nn.Parameter(lib.ones(2))})
        pd["b"] = lib.zeros(1)
        assert list(pd.keys()) == ["w", "b"] and isinstance(pd["b"], nn.Parameter)
        assert [n for n, _ in nn.Sequential(OrderedDict(x=nn.Linear(1, 1))).named_parameters()] == \
            ["x.weight", "x.bias"]


def test_forward_hooks(torch):
    def run(lib):
        nn = lib.nn
        lib.manual_seed(0)
        m = nn.Linear(3, 2)
        log = []
        h1 = m.register_forward_pre_hook(lambda mod, args: log.append(("pre", tuple(args[0].shape))) or
                                         (args[0] * 2,))
        h2 = m.register_forward_hook(lambda mod, args, out: log.append(("post", tuple(out.shape))) or out + 1)
        y = m(lib.ones(4, 3))
        h1.remove()
        h2.remove()
        y2 = m(lib.ones(4, 3))
        m.register_forward_pre_hook(lambda mod, args, kwargs: (args, kwargs), with_kwargs=True)
        m.register_forward_hook(lambda mod, args, kwargs, out: out * 0, with_kwargs=True)
        y3 = m(lib.ones(1, 3))
        return log, y.tolist(), y2.tolist(), y3.tolist()
    ours, theirs = run(pt), run(torch)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_full_backward_hooks(torch):
    def run(lib):
        nn = lib.nn
        lib.manual_seed(0)
        m = nn.Sequential(nn.Linear(3, 2), nn.Tanh())
        log = []

        def hook(mod, grad_input, grad_output):
            log.append(("hook", [None if g is None else [round(v, 5) for v in g.flatten().tolist()]
                                 for g in grad_input],
                        [[round(v, 5) for v in g.flatten().tolist()] for g in grad_output]))

        def pre(mod, grad_output):
            log.append(("pre", [[round(v, 5) for v in g.flatten().tolist()] for g in grad_output]))
            return (grad_output[0] * 2,)
        m[0].register_full_backward_hook(hook)
        m[1].register_full_backward_pre_hook(pre)
        x = lib.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
        m(x).sum().backward()
        log.append(("x.grad", [round(v, 5) for v in x.grad.flatten().tolist()]))
        # an input that needs no gradient: grad_input is (None,)
        m(lib.ones(1, 3)).sum().backward()
        return log
    assert run(pt) == run(torch)


def test_deepcopy_and_pickle(torch):
    m = build(pt)
    c = copy.deepcopy(m)
    assert c.head.lin.weight is not m.head.lin.weight
    assert c.head.lin.weight.tolist() == m.head.lin.weight.tolist()
    assert c.shared is c.head
    s = pt.nn.Sequential(pt.nn.Linear(4, 3), pt.nn.ReLU(), pt.nn.Linear(3, 2))
    p = pickle.loads(pickle.dumps(s))
    x = pt.ones(2, 4)
    assert p(x).tolist() == s(x).tolist()
    assert isinstance(p[0].weight, pt.nn.Parameter) and p[0].weight.requires_grad


def test_get_submodule_parameter_buffer(torch):
    for lib in (pt, torch):
        m = build(lib)
        assert m.get_submodule("blocks.1.fc2") is m.blocks[1].fc2
        assert m.get_parameter("blocks.0.scale") is m.blocks[0].scale
        assert m.get_buffer("blocks.0.steps") is m.blocks[0].steps
        with pytest.raises(AttributeError):
            m.get_submodule("blocks.5")


def test_identity_flatten_unflatten(torch):
    for lib in (pt, torch):
        nn = lib.nn
        x = lib.arange(24.).reshape(2, 3, 4)
        assert nn.Flatten()(x).shape == (2, 12) and nn.Flatten(0, 1)(x).shape == (6, 4)
        assert nn.Unflatten(1, (3, 1))(x).shape == (2, 3, 1, 4)
        assert nn.Identity(54, unused="x")(x) is x
    assert repr(pt.nn.Flatten()) == repr(torch.nn.Flatten())
    assert repr(pt.nn.Unflatten(1, (2, 3))) == repr(torch.nn.Unflatten(1, (2, 3)))


def _named_hook(module, args, output):
    return None


def test_hook_handles_follow_deepcopy_and_pickle():
    import copy
    import pickle
    m = pt.nn.Linear(2, 2)
    m.h = m.register_forward_hook(_named_hook)
    for clone in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        clone.h.remove()
        assert len(clone._forward_hooks) == 0
        assert len(m._forward_hooks) == 1          # the original keeps its hook
        h2 = clone.register_forward_hook(_named_hook)
        assert h2.id != clone.h.id                  # ids stay unique after unpickling
