"""nn.Module API round p2: containers, extra state, hooks, nn.Buffer; each compared with PyTorch."""
import warnings
from collections import OrderedDict

import pytest

import pedatorch as torch
from conftest import error_of

pt = pytest.importorskip("torch")

LIBS = [torch, pt]


_err = error_of


# ---------------------------------------------------------------- 1, 2: ParameterDict / ModuleDict

@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16", "complex64"])
def test_parameter_containers_repr(dt):
    """ParameterDict names the tensor type (torch.FloatTensor), ParameterList the dtype (torch.float32)."""
    def reprs(lib):
        p = lib.nn.Parameter(lib.ones(2, 3, dtype=getattr(lib, dt)))
        return (repr(lib.nn.ParameterDict({"a": p, "b": lib.ones(1)})), repr(lib.nn.ParameterList([p, "s"])),
                repr(lib.nn.ParameterDict({"a": p})))
    assert reprs(torch) == reprs(pt)


def test_update_order_of_parameter_dict_and_module_dict():
    """A plain dict's keys are sorted by ParameterDict (constructor and update); an OrderedDict, a
    ParameterDict, pairs, and everything given to ModuleDict keep their order."""
    def keys(lib):
        nn = lib.nn
        P = lambda: nn.Parameter(lib.ones(1))  # noqa: E731
        pd = nn.ParameterDict({"b": P(), "a": P()})
        out = [list(pd.keys())]
        pd.update({"d": P(), "c": P()})
        pd.update(OrderedDict([("z", P()), ("y", P())]))
        pd.update([("x2", P()), ("x1", P())])
        out.append(list(pd.keys()))
        out.append(list(nn.ParameterDict(OrderedDict([("q", P()), ("p", P())])).keys()))
        pd.update(nn.ParameterDict(OrderedDict([("w", P()), ("v", P())])))
        out.append(list(pd.keys()))
        md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.ReLU()})
        md.update({"d": nn.ReLU(), "c": nn.ReLU()})
        out.append(list(md.keys()))
        for bad in (5, [("a",)], ["abc"], [5]):
            out.append(_err(lambda: pd.update(bad)))
            out.append(_err(lambda: md.update(bad)))
        return out
    assert keys(torch) == keys(pt)


# ---------------------------------------------------------------- 3: get_extra_state / set_extra_state

def _extra_state_program(lib):
    nn = lib.nn
    log = []

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)
            self.w = nn.Parameter(lib.ones(1))
            self.register_buffer("b", lib.zeros(1))
            self.count = 3

        def get_extra_state(self):
            return {"count": self.count}

        def set_extra_state(self, state):
            log.append(state)
            self.count = state["count"]

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.m = M()
            self.x = nn.Parameter(lib.ones(1))

    class OnlyGet(nn.Module):
        def get_extra_state(self):
            return 5

    sd = Outer().state_dict()
    out = [list(sd.keys()), sd["m._extra_state"]]
    m2 = Outer()
    sd["m._extra_state"] = {"count": 7}
    out += [str(m2.load_state_dict(sd)), m2.m.count]
    del sd["m._extra_state"]
    out.append(_err(lambda: m2.load_state_dict(sd)))
    out.append(str(m2.load_state_dict(sd, strict=False)))
    out += [list(OnlyGet().state_dict().items()), _err(lambda: OnlyGet().load_state_dict(OnlyGet().state_dict()))]
    out += [_err(lambda: nn.Module().get_extra_state()), _err(lambda: nn.Module().set_extra_state(1))]
    return out, log


def test_extra_state_in_state_dict_and_load():
    assert _extra_state_program(torch) == _extra_state_program(pt)


# ---------------------------------------------------------------- 4: always_call forward hooks

def _always_call_program(lib):
    nn = lib.nn
    log = []

    class Bad(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    class Good(nn.Module):
        def forward(self, x):
            return x + 1

    def show(o):
        return None if o is None else o.tolist()

    m = Bad()
    m.register_forward_hook(lambda m, i, o: log.append("normal"))
    m.register_forward_hook(lambda m, i, o: log.append(("always", show(o))), always_call=True)
    m.register_forward_hook(lambda m, i, k, o: log.append(("kw", k)), always_call=True, with_kwargs=True)
    log.append(_err(lambda: m(lib.ones(1))))

    def raising(m, i, o):
        raise KeyError("hook")
    g = Good()   # a hook raises: the always-called hooks after it run, those before are not run again
    g.register_forward_hook(lambda m, i, o: log.append(("first", show(o))), always_call=True)
    g.register_forward_hook(raising)
    g.register_forward_hook(lambda m, i, o: log.append("skipped"))
    g.register_forward_hook(lambda m, i, o: log.append(("after", show(o))), always_call=True)
    log.append(_err(lambda: g(lib.ones(1))))

    b = Bad()    # an always-called hook that raises too: a warning, and the forward's error goes on
    b.register_forward_hook(lambda m, i, o: 1 / 0, always_call=True)
    b.register_forward_hook(lambda m, i, o: log.append("still"), always_call=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        log.append(_err(lambda: b(lib.ones(1))))
    log.append([str(x.message) for x in w])

    h = lib.nn.modules.module.register_module_forward_hook(
        lambda m, i, o: log.append(("global", type(m).__name__, o)), always_call=True)
    try:
        log.append(_err(lambda: Bad()(lib.ones(1))))
    finally:
        h.remove()
    g2 = Good()
    g2.register_forward_hook(lambda m, i, o: o * 10, always_call=True)
    log.append(g2(lib.ones(1)).tolist())
    return log


def test_always_call_forward_hooks_run_when_forward_raises():
    assert _always_call_program(torch) == _always_call_program(pt)


# ---------------------------------------------------------------- 5: nn.Buffer

def _buffer_program(lib):
    nn = lib.nn
    t = lib.ones(2)
    b = nn.Buffer(t)
    out = [repr(b), type(b).__name__, isinstance(b, nn.Buffer), isinstance(t, nn.Buffer), b is t,
           b.data_ptr() == t.data_ptr(), nn.Buffer(lib.ones(2, requires_grad=True)).requires_grad,
           nn.Buffer(lib.ones(2) * 2).is_leaf, nn.Buffer(lib.ones(2), persistent=False).persistent,
           repr(nn.Buffer()), repr(nn.Buffer(lib.ones(2, dtype=lib.long)))]

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Buffer(lib.ones(2))
            self.c = nn.Buffer(lib.zeros(1), persistent=False)

    m = M()
    out += [list(m.state_dict()), sorted(m._non_persistent_buffers_set), type(m.a).__name__]
    m.register_buffer("d", nn.Buffer(lib.ones(1), persistent=False))   # register_buffer's own flag wins
    m.a = lib.full((2,), 5.)                                             # a plain tensor: stays persistent
    m.c = nn.Buffer(lib.zeros(1))                                        # becomes persistent
    out += [list(m.state_dict()), sorted(m._non_persistent_buffers_set)]
    return out


def test_buffer_is_a_marked_plain_tensor():
    assert _buffer_program(torch) == _buffer_program(pt)


# ---------------------------------------------------------------- 6: plain dicts

def test_module_dicts_are_plain_dicts():
    def show(lib):
        nn = lib.nn
        lin = nn.Linear(2, 2)
        s = nn.Sequential(nn.ReLU())
        s.insert(0, nn.Tanh())
        d = nn.Sequential(nn.ReLU(), nn.Tanh())
        del d[0]
        return [str(lin._parameters.keys()), repr(lin._buffers), repr(nn.Sequential(nn.ReLU())._modules),
                type(lin._modules).__name__, type(s._modules).__name__, type(d._modules).__name__]
    assert show(torch) == show(pt)


# ---------------------------------------------------------------- 7: full backward hooks' grad_input

def _grad_input_program(lib):
    nn = lib.nn
    log = []

    def hook(m, gi, go):
        log.append(([None if g is None else (g.tolist(), str(g.dtype)) for g in gi],
                    [None if g is None else g.tolist() for g in go]))

    class Gate(nn.Module):
        def forward(self, a, b):
            return a * b

    class FirstOnly(nn.Module):
        def forward(self, a, b):
            return a * 2

    class Index(nn.Module):
        def forward(self, a, idx):
            return a[idx]

    cases = [(Gate, lib.ones(2, requires_grad=True), lib.full((2,), 3.)),
             (Gate, lib.ones(2), lib.full((2,), 3., requires_grad=True)),
             (FirstOnly, lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)),
             (FirstOnly, lib.ones(2, requires_grad=True), 5),
             (Gate, lib.ones(2, requires_grad=True), lib.ones(2, dtype=lib.float64)),
             (Index, lib.ones(3, requires_grad=True), lib.tensor([0, 2]))]
    for cls, a, b in cases:
        m = cls()
        m.register_full_backward_hook(hook)
        m(a, b).sum().backward()

    m = Gate()   # the hook's replacement is as long as grad_input; its entry for ``b`` is ignored
    m.register_full_backward_hook(lambda m, gi, go: (gi[0] * 10, lib.ones(2) * 100))
    a, b = lib.ones(2, requires_grad=True), lib.full((2,), 3.)
    m(a, b).sum().backward()
    log.append((a.grad.tolist(), b.grad))
    m = Gate()
    m.register_full_backward_hook(lambda m, gi, go: (gi[0],))
    log.append(_err(lambda: m(lib.ones(2, requires_grad=True), b).sum().backward()))

    lin = nn.Linear(2, 1)  # no input requires grad: the hooks fire with grad_output, and a warning
    lin.register_full_backward_hook(lambda m, gi, go: log.append(("no input", gi)))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        lin(lib.ones(1, 2)).sum().backward()
    log.append([str(x.message) for x in w])
    return log


def test_full_backward_hook_grad_input_has_an_entry_per_argument():
    assert _grad_input_program(torch) == _grad_input_program(pt)


# ---------------------------------------------------------------- 8: the deprecated register_backward_hook

def _old_hook_program(lib, make):
    log = []

    def hook(m, gi, go):
        log.append(([None if g is None else tuple(g.shape) for g in gi], [tuple(g.shape) for g in go]))
    m, x = make(lib)
    m.register_backward_hook(hook)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m(*x).sum().backward()
    log.append([str(x.message) for x in w])
    return log


class _Mul:
    def __call__(self, lib):
        class M(lib.nn.Module):
            def forward(self, a, b):
                return a * b
        return M(), (lib.ones(2, requires_grad=True), lib.ones(2))


SIMPLE = {"relu": lambda lib: (lib.nn.ReLU(), (lib.ones(2, requires_grad=True),)),
          "sequential": lambda lib: (lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.ReLU()),
                                     (lib.ones(4, 3, requires_grad=True),)),
          "mul": _Mul()}


@pytest.mark.parametrize("case", list(SIMPLE))
def test_old_backward_hook_sees_the_last_node(case):
    """Not a full hook: grad_input is that of the last node of forward (ReLU's, here)."""
    assert _old_hook_program(torch, SIMPLE[case]) == _old_hook_program(pt, SIMPLE[case])


def test_old_backward_hook_on_linear_sees_addmm_gradients():
    make = lambda lib: (lib.nn.Linear(3, 2), (lib.ones(4, 3, requires_grad=True),))  # noqa: E731
    assert _old_hook_program(torch, make) == _old_hook_program(pt, make)


def test_old_and_full_backward_hooks_do_not_mix():
    def errors(lib):
        a, b = lib.nn.Linear(2, 2), lib.nn.Linear(2, 2)
        a.register_backward_hook(lambda *h: None)
        b.register_full_backward_hook(lambda *h: None)
        return [_err(lambda: a.register_full_backward_hook(lambda *h: None)),
                _err(lambda: b.register_backward_hook(lambda *h: None))]
    assert errors(torch) == errors(pt)


def test_old_backward_hook_can_replace_grad_input():
    def grads(lib):
        r = lib.nn.ReLU()
        r.register_backward_hook(lambda m, gi, go: tuple(g * 0 + 5 for g in gi))
        y = lib.ones(2, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r(y).sum().backward()
        return y.grad.tolist()
    assert grads(torch) == grads(pt)


# ---------------------------------------------------------------- 9: checkpoint's early stop

def test_checkpoint_early_stop_skips_the_rest_of_the_recomputation():
    def calls(lib):
        from importlib import import_module
        ckpt = import_module(lib.__name__ + ".utils.checkpoint")
        lib.manual_seed(0)
        seg = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 4))
        log = []
        seg.register_forward_hook(lambda m, i, o: log.append("seg"))
        x = lib.ones(3, 4, requires_grad=True)
        ckpt.checkpoint(seg, x, use_reentrant=False).sum().backward()
        with ckpt.set_checkpoint_early_stop(False):
            ckpt.checkpoint(seg, x, use_reentrant=False).sum().backward()
        return log
    assert calls(torch) == calls(pt)


# ---------------------------------------------------------------- 10: Parameter of an integer tensor

def test_integer_parameter_error():
    make = lambda lib: lib.nn.Parameter(lib.ones(2, dtype=lib.long))  # noqa: E731
    assert _err(lambda: make(torch)) == _err(lambda: make(pt))
