"""The check functions a lesson's test cell calls (pedatorch/grading/checks.py).

Each check passes on a right answer and fails on a wrong one with the first concrete difference in its message,
prints its verdict on stdout only, and works the same when the learner's object is a proxy for an object in a
sandboxed student process (the way the grader runs a test cell).
"""
import tempfile
import time

import numpy as np
import pytest

import pedatorch as pt
from pedatorch import nn
from pedatorch.grading import checks, remote, sandbox
from pedatorch.grading.checks import (check_backward, check_function, check_module, check_optimizer,
                                      check_training, check_value)


def fails(capsys, check, *args, **kwargs):
    """Run a check that must fail: the AssertionError's text, which must also be what it printed."""
    with pytest.raises(AssertionError) as e:
        check(*args, **kwargs)
    out = capsys.readouterr()
    assert out.err == ""
    assert str(e.value) in out.out
    return str(e.value)


def passes(capsys, check, *args, **kwargs):
    check(*args, **kwargs)
    out = capsys.readouterr()
    assert out.err == "" and out.out.startswith("Correct:")
    return out.out


# --------------------------------------------------------------------------- the learner's code, both places

LEARNER = '''
import pedatorch
from pedatorch import nn

def relu(x):
    return x.clamp(min=0)

def bad_relu(x):
    return x.abs()

class Square(pedatorch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * g * x

class BadSquare(Square):
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x          # forgot the 2

class MyLinear(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(pedatorch.randn(n_out, n_in))
        self.bias = nn.Parameter(pedatorch.zeros(n_out))

    def forward(self, x):
        return x @ self.weight.T + self.bias

class NoBiasLinear(MyLinear):
    def forward(self, x):
        return x @ self.weight.T

class MySGD(pedatorch.optim.Optimizer):
    def __init__(self, params, lr, momentum=0.0):
        super().__init__(params, dict(lr=lr, momentum=momentum))

    @pedatorch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                v = state.get("v")
                v = p.grad.clone() if v is None else group["momentum"] * v + p.grad
                state["v"] = v
                p -= group["lr"] * v

class ForgetfulSGD(MySGD):   # no momentum
    @pedatorch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                p -= group["lr"] * p.grad

def train():
    return {"loss": pedatorch.tensor(0.1), "accuracy": 0.97}

def lazy_train():
    return 0.9, 0.5
'''

NAMES = ["relu", "bad_relu", "Square", "BadSquare", "MyLinear", "NoBiasLinear", "MySGD", "ForgetfulSGD", "train",
         "lazy_train"]


class Local:
    """The learner's objects in this process, as in the learner's own kernel."""

    def __init__(self):
        ns = {"__name__": "learner"}
        exec(LEARNER, ns)
        self.__dict__.update({n: ns[n] for n in NAMES})


@pytest.fixture(scope="module")
def conn():
    workdir = tempfile.mkdtemp(prefix="pedatorch-checks-")
    proc, to_child, from_child = sandbox.launch(workdir, dict(cpu_seconds=60, memory_mb=3072, processes=16,
                                                              file_mb=16))
    c = remote.Connection(proc, to_child, from_child, time.monotonic() + 120)
    c.exec_cell(LEARNER, "answer")
    yield c
    c.close()
    sandbox.stop(proc)


@pytest.fixture(params=["local", "remote"])
def learner(request):
    """The learner's objects: real ones, or proxies for those in a sandboxed student process."""
    if request.param == "local":
        return Local()
    c = request.getfixturevalue("conn")
    proxies = Local.__new__(Local)
    proxies.__dict__.update({n: v for n, (_, v) in c.names(NAMES).items()})
    assert isinstance(proxies.relu, remote.RemoteObject)
    return proxies


# --------------------------------------------------------------------------- check_value

def test_value_numbers_shapes_and_tensors(capsys):
    passes(capsys, check_value, pt.Size([4, 3, 5]), (4, 3, 5), name="the broadcast shape")
    assert "expected (4, 3, 5), got (4, 1, 5)" in fails(capsys, check_value, (4, 1, 5), (4, 3, 5),
                                                        name="the broadcast shape")
    passes(capsys, check_value, 0.30000001, 0.3)
    assert "expected 3, got 3.0" in fails(capsys, check_value, 3.0, 3, name="the count")
    x = pt.arange(6.0).reshape(2, 3)
    passes(capsys, check_value, x.clone(), x)
    msg = fails(capsys, check_value, x.T, x, name="y")
    assert "y: expected shape (2, 3), got shape (3, 2)" in msg
    msg = fails(capsys, check_value, x.double(), x)
    assert "expected dtype torch.float32, got dtype torch.float64" in msg
    wrong = x.clone()
    wrong[1, 2] += 0.5
    wrong[0, 0] += 0.1
    msg = fails(capsys, check_value, wrong, x, name="y")
    assert "2 of 6 values differ; the largest error is 0.5 at index (1, 2): expected 5, got 5.5" in msg
    msg = fails(capsys, check_value, x.numpy(), x)
    assert "expected tensor([[0., 1., 2.], [3., 4., 5.]], dtype=torch.float32), got array(" in msg
    nan = x.clone()
    nan[0, 1] = float("nan")
    assert "largest error is inf at index (0, 1): expected 1, got nan" in fails(capsys, check_value, nan, x)
    assert "['loss']: expected 1" in fails(capsys, check_value, {"loss": 2}, {"loss": 1})


def test_value_is_not_fooled_by_a_lying_array(capsys):
    class Liar(np.ndarray):   # comparisons always say "equal"
        def __eq__(self, other):
            return True
    liar = pt.zeros(3).numpy().view(Liar)
    assert "3 of 3 values differ" in fails(capsys, check_value, liar, pt.ones(3), check_dtype=False)


def test_value_from_the_learners_process(conn, capsys):
    conn.exec_cell("shape = (2, 3)\nt = pedatorch.ones(2, 3)", "answer")
    got = conn.names(["shape", "t"])
    passes(capsys, check_value, got["shape"][1], pt.Size([2, 3]), name="the shape")
    assert "6 of 6 values differ" in fails(capsys, check_value, got["t"][1], pt.zeros(2, 3))


# --------------------------------------------------------------------------- check_function

def test_function(learner, capsys):
    out = passes(capsys, check_function, learner.relu, lambda x: x.clamp(min=0),
                 inputs=[pt.tensor([-1.0, 0.0, 2.0])], input_fn=lambda: pt.randn(3, 4), n_random=3)
    assert "relu matches the reference on 4 inputs" in out
    msg = fails(capsys, check_function, learner.bad_relu, lambda x: x.clamp(min=0),
                inputs=[pt.tensor([-1.0, 0.0, 2.0])])
    assert "bad_relu(tensor([-1.,  0.,  2.], dtype=torch.float32)) (input 1 of 1)" in msg
    assert "1 of 3 values differ; the largest error is 1 at index (0,): expected 0, got 1" in msg


def test_function_reports_the_input_of_an_error(capsys):
    def broken(x):
        raise ValueError("oops")
    with pytest.raises(ValueError):
        check_function(broken, lambda x: x, inputs=[pt.ones(2)])
    out = capsys.readouterr()
    assert out.err == "" and "broken(tensor([1., 1.], dtype=torch.float32)) (input 1 of 1) raised" in out.out


# --------------------------------------------------------------------------- check_backward

def test_backward(learner, capsys):
    out = passes(capsys, check_backward, learner.Square.apply, pt.randn(3), reference=lambda x: x * x)
    assert "Square.apply" in out and "input 0" in out and "gradient matches finite differences" in out
    msg = fails(capsys, check_backward, learner.BadSquare.apply, pt.tensor([1.0, 2.0, 3.0]))
    assert "BadSquare.apply" in msg and "input 0" in msg and "WRONG gradient" in msg
    assert "finite differences give 6, your backward gives 3 (error 3; 3 of 9 entries differ)" in msg


def test_backward_per_input_and_reference(capsys):
    def half_wrong(a, b):   # right gradient for a, none for b
        return a * b.detach()
    msg = fails(capsys, check_backward, half_wrong, (pt.randn(2), pt.randn(2)))
    assert "input 0" in msg and "input 0 (" in msg.split("\n")[1] and "matches" in msg.split("\n")[1]
    assert "input 1" in msg.split("\n")[2] and "WRONG gradient" in msg.split("\n")[2]
    msg = fails(capsys, check_backward, lambda x: x * 3, pt.ones(2), reference=lambda x: x * 2)
    assert "the output of your function" in msg and "expected 2, got 3" in msg
    msg = fails(capsys, check_backward, lambda x: (x * 2).detach(), pt.ones(2))
    assert "does not require grad" in msg


# --------------------------------------------------------------------------- check_module

def test_module(learner, capsys):
    x = [pt.randn(5, 3), pt.randn(2, 3)]
    out = passes(capsys, check_module, learner.MyLinear, nn.Linear, x, args=(3, 2))
    assert "MyLinear's parameters and outputs on 2 inputs match the reference" in out
    msg = fails(capsys, check_module, learner.NoBiasLinear, nn.Linear, x, args=(3, 2))
    assert "the output of NoBiasLinear on input 1 of 2 (a torch.float32 tensor of shape (5, 3))" in msg
    assert "values differ; the largest error" in msg
    msg = fails(capsys, check_module, learner.MyLinear(2, 3), nn.Linear(3, 2), x)   # an instance, built wrong
    assert "parameter 'weight': expected shape (2, 3), got shape (3, 2)" in msg


def test_module_parameter_names(capsys):
    class Renamed(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(pt.zeros(2, 3))

        def forward(self, x):
            return x @ self.w.T
    msg = fails(capsys, check_module, Renamed, lambda: nn.Linear(3, 2, bias=False), [pt.randn(1, 3)])
    assert "expected ['weight'], got ['w'] (missing ['weight']) (unexpected ['w'])" in msg


# --------------------------------------------------------------------------- check_optimizer

def test_optimizer(learner, capsys):
    out = passes(capsys, check_optimizer, learner.MySGD, pt.optim.SGD, steps=4, lr=0.1, momentum=0.9)
    assert "MySGD(lr=0.1, momentum=0.9) takes the same 4 steps as the reference" in out
    msg = fails(capsys, check_optimizer, learner.ForgetfulSGD, pt.optim.SGD, lr=0.1, momentum=0.9)
    assert "ForgetfulSGD(lr=0.1, momentum=0.9): after step 2 of 5, parameter 0 (shape (3, 4)) is off" in msg
    assert "12 of 12 values differ; the largest error" in msg


# --------------------------------------------------------------------------- check_training

def test_training(learner, capsys):
    out = passes(capsys, check_training, learner.train, loss_below=0.5, accuracy_above=0.9, time_budget=30)
    assert "train reached loss 0.1 (below 0.5) and accuracy 0.97 (above 0.9)" in out
    msg = fails(capsys, check_training, learner.lazy_train, loss_below=0.5, accuracy_above=0.9)
    assert "lazy_train reached loss 0.9; it should be below 0.5" in msg
    msg = fails(capsys, check_training, learner.lazy_train, accuracy_above=0.9)
    assert "lazy_train reached accuracy 0.5; it should be above 0.9" in msg


def test_training_time_and_missing_metric(capsys):
    def slow():
        time.sleep(0.12)
        return 0.1
    assert "took 0.1 s; the budget is 0.01 s" in fails(capsys, check_training, slow, loss_below=1, time_budget=0.01)
    assert "no accuracy in it" in fails(capsys, check_training, lambda: 0.1, accuracy_above=0.5)


def test_all_is_public():
    assert sorted(checks.__all__) == sorted(["check_value", "check_function", "check_backward", "check_module",
                                             "check_optimizer", "check_training"])
    import pedatorch.grading as grading
    assert all(hasattr(grading, n) for n in checks.__all__)


def test_check_value_of_zero_dim_tensors():
    import pedatorch as _pt
    from pedatorch.grading import check_value as _check_value
    _check_value(_pt.tensor(1.0), _pt.tensor(1.0))
    with pytest.raises(AssertionError, match="the largest error is 0.5: expected 1, got 1.5"):
        _check_value(_pt.tensor(1.5), _pt.tensor(1.0))
    with pytest.raises(AssertionError, match="expected 1, got 2"):
        _check_value(_pt.tensor(2), _pt.tensor(1))
