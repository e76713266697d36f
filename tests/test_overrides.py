"""The __torch_function__ protocol (torch.overrides), each behaviour compared with PyTorch: Tensor subclasses keep
their class through ops, a subclass's override sees every call, tensor-likes that are not Tensors take over the
functions they implement, TorchFunctionMode, and the switches in torch._C."""
import math

import numpy as np
import pytest

import pedatorch as pt

torch = pytest.importorskip("torch")
LIBS = pytest.mark.parametrize("lib", [pt, torch], ids=["pedatorch", "torch"])


def both(fn):
    return fn(pt), fn(torch)


def test_subclasses_keep_their_class_through_ops():
    def run(lib):
        class My(lib.Tensor):
            pass
        x = lib.tensor([1.0, -2.0, 3.0]).as_subclass(My)
        p = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
        results = [x + 1, x.sum(), lib.add(x, 1), x[0], lib.nn.functional.relu(x), x.clone(), lib.cat([x, x]),
                   x.max(0).values, lib.linalg.norm(x), p * 2, p.detach(), My(lib.tensor([1.0])), x.T, 2 * x,
                   lib.where(x > 0, x, 0.0), x.unbind(0)[1], lib.stack([x.detach(), x])]
        names = [type(r).__name__ for r in results]
        names.append(type(x.max(0)).__name__)
        names.append(type(x.split(1)).__name__ + "/" + type(x.split(1)[0]).__name__)
        return names, repr(x), str(x * 2), x.tolist(), x.shape == (3,)
    assert both(run)[0] == both(run)[1]


@LIBS
def test_subclass_results_join_the_graph_through_an_alias(lib):
    class My(lib.Tensor):
        pass
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.as_subclass(My)
    z = (y * y).sum()
    assert type(z).__name__ == "My"
    assert type(z.grad_fn).__name__ == "AliasBackward0"
    z.backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]


def test_a_logging_subclass_sees_every_call():
    # the "Extending torch with a Tensor wrapper type" pattern of PyTorch's docs
    def run(lib):
        calls = []

        class LoggingTensor(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                calls.append(func.__name__)
                return super().__torch_function__(func, types, args, kwargs or {})

        x = lib.tensor([1.0, 2.0]).as_subclass(LoggingTensor)
        y = lib.mul(x, 2)
        z = y.exp()
        w = lib.nn.functional.softmax(z, dim=0)
        return calls, type(w).__name__
    (calls, t), (calls_pt, t_pt) = both(run)
    assert t == t_pt == "LoggingTensor"
    for name in ("mul", "exp", "softmax"):
        assert name in calls and name in calls_pt
    assert calls.index("mul") < calls.index("exp") < calls.index("softmax")


def test_a_subclass_override_can_replace_a_function():
    def run(lib):
        class Doubled(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                if func is lib.add or func is lib.Tensor.add:
                    with lib._C.DisableTorchFunctionSubclass():
                        return (args[0] + args[1]) * 2
                return super().__torch_function__(func, types, args, kwargs or {})

        x = lib.tensor([1.0, 2.0]).as_subclass(Doubled)
        return lib.add(x, 1).tolist(), x.add(1).tolist(), (x + 1).tolist(), type(lib.add(x, 1)).__name__
    # (x + 1 is Tensor.add too: PyTorch binds the operator to the method)
    assert both(run)[0] == both(run)[1] == ([4.0, 6.0], [4.0, 6.0], [4.0, 6.0], "Tensor")


def test_a_tensor_like_takes_over_the_functions_it_implements():
    # PyTorch's ScalarTensor example: not a Tensor at all
    def run(lib):
        handled = {}

        class ScalarTensor:
            def __init__(self, n, value):
                self._n, self._value = n, value

            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                if func not in handled or not all(issubclass(t, (lib.Tensor, ScalarTensor)) for t in types):
                    return NotImplemented
                return handled[func](*args, **(kwargs or {}))

        handled[lib.mean] = lambda s: float(s._value) / s._n
        handled[lib.nn.functional.relu] = lambda s, inplace=False: ScalarTensor(s._n, max(s._value, 0))
        d = ScalarTensor(5, 2)
        mean = lib.mean(d)
        relu = lib.nn.functional.relu(ScalarTensor(3, -1))._value
        try:
            lib.sum(d)
            err = None
        except TypeError as e:
            err = str(e)
        return mean, relu, err
    (m, r, e), (m_pt, r_pt, e_pt) = both(run)
    assert (m, r) == (m_pt, r_pt) == (0.4, 0)
    assert e is not None and e_pt is not None
    assert e == e_pt
    assert e.startswith("Multiple dispatch failed for 'torch.sum'; all __torch_function__ handlers returned")


def test_the_messages_when_every_override_declines():
    def run(lib):
        class S:
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return NotImplemented

        class T(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return NotImplemented
        t = lib.zeros(1).as_subclass(T)
        out = []
        for f in (lambda: lib.sum(S()), lambda: lib.add(t, S()), lambda: lib.nn.functional.relu(S()),
                  lambda: t.sum()):
            try:
                f()
            except TypeError as e:
                out.append(str(e).replace("pedatorch", "torch"))
        return out
    assert both(run)[0] == both(run)[1]


def test_a_tensor_like_in_a_list_argument_is_seen():
    def run(lib):
        class Like:
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return ("handled", func.__name__, len(args[0]))
        return lib.cat([lib.zeros(2), Like()]), lib.stack((Like(), lib.zeros(2)))
    assert both(run)[0] == both(run)[1]


def test_subclasses_dispatch_before_their_bases():
    def run(lib):
        order = []

        class A(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                order.append("A")
                return NotImplemented

        class B(A):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                order.append("B")
                return NotImplemented

        a = lib.zeros(2).as_subclass(A)
        b = lib.zeros(2).as_subclass(B)
        try:
            lib.add(a, b)
        except TypeError:
            pass
        return order
    assert both(run)[0] == both(run)[1] == ["B", "A"]


def test_torch_function_mode_sees_calls_with_plain_tensors():
    def run(lib):
        seen = []

        class Mode(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.append(func.__name__)
                return func(*args, **(kwargs or {}))

        a = lib.tensor([1.0, 2.0])
        with Mode():
            b = lib.add(a, 1)
            c = b.mul(3)
            d = lib.nn.functional.relu(c - 7)
        after = len(seen)
        lib.add(a, 1)
        return seen, after == len(seen), d.tolist()
    (seen, stopped, d), (seen_pt, stopped_pt, d_pt) = both(run)
    assert stopped and stopped_pt and d == d_pt == [0.0, 2.0]
    for name in ("add", "mul", "relu"):
        assert name in seen and name in seen_pt


def test_a_mode_can_change_results():
    def run(lib):
        class AddOne(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                return out + 1 if func is lib.mul else out

        with AddOne():
            return lib.mul(lib.tensor([2.0]), 3).tolist()
    assert both(run)[0] == both(run)[1] == [7.0]


@LIBS
def test_disable_torch_function_subclass(lib):
    calls = []

    class Counting(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    x = lib.zeros(2).as_subclass(Counting)
    with lib._C.DisableTorchFunctionSubclass():
        y = lib.add(x, 1)
    assert calls == []
    assert type(y).__name__ == "Tensor"   # (no cast to the subclass either)
    assert lib._C._disabled_torch_function_impl is not None


def test_overrides_helpers():
    for lib in (pt, torch):
        class My(lib.Tensor):
            pass

        class Like:
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return NotImplemented
        t = lib.zeros(1)
        p = lib.nn.Parameter(lib.zeros(1))
        ov = lib.overrides
        assert not ov.has_torch_function((t, 1, p))
        assert ov.has_torch_function((t, t.as_subclass(My)))
        assert ov.has_torch_function((Like(),))
        assert ov.has_torch_function_unary(Like()) and not ov.has_torch_function_variadic(t, t)
        assert ov.is_tensor_like(t) and ov.is_tensor_like(Like()) and not ov.is_tensor_like(np.zeros(1))
        assert ov.is_tensor_like(My)   # (PyTorch asks the class: a class with __torch_function__ counts)
        assert lib.mean in ov.get_overridable_functions()[lib]
        assert lib.zeros in ov.get_ignored_functions()


def test_handle_torch_function_for_outside_functions():
    def run(lib):
        ov = lib.overrides

        def my_norm(x):
            if ov.has_torch_function_unary(x):
                return ov.handle_torch_function(my_norm, (x,), x)
            return math.sqrt(float((x * x).sum()))

        class Like:
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return "handled " + func.__name__
        return my_norm(lib.tensor([3.0, 4.0])), my_norm(Like())
    assert both(run)[0] == both(run)[1] == (5.0, "handled my_norm")


def test_parameters_and_modules_are_unaffected():
    def run(lib):
        class My(lib.Tensor):
            pass
        lib.manual_seed(0)
        lin = lib.nn.Linear(3, 2)
        x = lib.randn(4, 3).as_subclass(My)
        y = lin(x)
        loss = y.pow(2).mean()
        loss.backward()
        return type(y).__name__, type(loss).__name__, type(lin.weight).__name__, type(lin.weight.grad).__name__, \
            round(loss.item(), 5)
    assert both(run)[0] == both(run)[1]


def test_make_subclass_builds_a_detached_leaf_of_the_class():
    def run(lib):
        class P(lib.Tensor):
            @staticmethod
            def __new__(cls, data, requires_grad=True):
                return lib.Tensor._make_subclass(cls, data, requires_grad)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        p = P(x * 1)
        y = p * 2
        try:
            P(lib.tensor([1, 2]))
        except RuntimeError as e:
            err = str(e)
        shared = P(x.detach())
        x.data.add_(1)
        return (type(p).__name__, p.requires_grad, p.is_leaf, type(y).__name__, type(y.grad_fn).__name__, err,
                shared.tolist())
    assert both(run)[0] == both(run)[1]
