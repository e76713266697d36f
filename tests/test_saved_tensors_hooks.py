"""torch.autograd.graph.saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks: what an op saves for
backward goes through the pack hook; backward gets the unpack hook's tensor. Compared with PyTorch."""
import numpy as np
import pytest

import pedatorch
from pedatorch.autograd import gradcheck


def _program(T):
    shapes = []

    def pack(t):
        shapes.append(tuple(t.shape))
        return t.detach().clone()
    x = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
    w = T.tensor([0.5, -1.0, 2.0], dtype=T.float64, requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = (x * w).exp().sum() + (x.sin() ** 2).sum()
    y.backward()
    return shapes, x.grad.numpy(), w.grad.numpy()


def test_pack_and_unpack_as_pytorch():
    torch = pytest.importorskip("torch")
    ours, theirs = _program(pedatorch), _program(torch)
    assert ours[0] == theirs[0]                       # mul saves both inputs, exp its output, sin and pow x
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-12)


def test_only_what_the_pack_hook_returns_is_kept():
    """The unpack hook's tensor is what backward uses (here: doubled), for inputs and outputs alike."""
    x = pedatorch.tensor([1.0, 2.0], requires_grad=True)
    with pedatorch.autograd.graph.saved_tensors_hooks(lambda t: t.detach() * 2, lambda t: t):
        y = (x * x).sum()                             # saves x twice: d/dx = x1 + x2 -> 2x + 2x = 4x
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]              # (without the hooks: 2x = [2, 4])


def test_double_backward_through_packed_outputs():
    x = pedatorch.tensor([1.0, 2.0, 3.0], dtype=pedatorch.float64, requires_grad=True)
    with pedatorch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        g, = pedatorch.autograd.grad(x.exp().sum(), x, create_graph=True)
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0, 3.0]))

    def f(a):
        with pedatorch.autograd.graph.save_on_cpu():
            return (a.tanh() * a).sum()
    assert gradcheck(f, (pedatorch.randn(4, dtype=pedatorch.float64, requires_grad=True),))


def test_errors_as_pytorch():
    x = pedatorch.tensor([1.0], requires_grad=True)
    with pedatorch.autograd.graph.disable_saved_tensors_hooks("no hooks in here"):
        with pytest.raises(RuntimeError, match="no hooks in here"):
            with pedatorch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with pedatorch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = x.exp().sum()
    with pytest.raises(TypeError, match="Output of saved tensor unpack_hook expected to be a Tensor but got "
                                        "result of type int"):
        y.backward()


def test_anomaly_trace_ends_at_the_learners_line():
    """The forward trace anomaly mode prints stops where PyTorch's does: at the last frame outside the op
    machinery (PyTorch's is C++), i.e. the learner's line."""
    import warnings
    x = pedatorch.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="SqrtBackward0"):
            with pedatorch.autograd.detect_anomaly():
                (x.sqrt() * pedatorch.tensor([0.0, 1.0])).sum().backward()   # the line the trace names
    trace = next(str(w.message) for w in caught if "Traceback of forward call" in str(w.message))
    lines = trace.rstrip().splitlines()
    assert "x.sqrt()" in lines[-1] and "test_saved_tensors_hooks.py" in lines[-2]
