"""benchmarks/: the numpy floor computes what pedatorch computes, and run.py runs end to end.

Each floor program (benchmarks/floor.py) is started from the parameters and the batch of the pedatorch
workload in benchmarks/run.py; both take two steps (so the momentum and Adam states count too), and the
loss, every gradient and every updated parameter must agree.
"""
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import pedatorch

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")
sys.path.insert(0, BENCH)  # run.py imports floor as a sibling, as it does when run as a script
import floor  # noqa: E402

_spec = importlib.util.spec_from_file_location("benchmarks_run", os.path.join(BENCH, "run.py"))
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)


def close(ours, floors, rtol=1e-4):
    """rtol, with an absolute floor of rtol times the array's largest entry: float32 sums taken in a
    different order differ by about 1e-7 of their terms, which is more, relatively, for entries near 0."""
    ours = np.asarray(ours)
    atol = rtol * max(float(np.abs(ours).max()), 1e-30)
    np.testing.assert_allclose(floors, ours, rtol=rtol, atol=atol)


def arrays(tensors):
    return [t.detach().numpy().copy() for t in tensors]


@pytest.mark.parametrize("name, floor_model, floor_optimizer", [
    ("mlp", floor.MLP, lambda params: floor.SGD(params, lr=0.01, momentum=0.9)),
    ("lstm", floor.LSTMClassifier, floor.Adam),
])
def test_floor_training_step_matches_pedatorch(name, floor_model, floor_optimizer):
    ours = run.WORKLOADS[name](pedatorch)
    params = list(ours.model.parameters())
    model = floor_model(arrays(params))
    optimizer = floor_optimizer(model.params)
    x, y = ours.x.numpy(), ours.y.numpy()
    for _ in range(2):
        before = arrays(params)
        loss, grads = model.loss_and_grads(x, y)
        optimizer.step(grads)
        close(ours().item(), loss)
        assert len(grads) == len(params)
        for p, old, g, q in zip(params, before, grads, model.params):
            assert g.shape == tuple(p.shape) and g.dtype == np.float32 and q.dtype == np.float32
            close(p.grad.numpy(), g)
            close(p.detach().numpy(), q)
            # The update itself, small next to the parameter. Adam divides by |gradient| + 1e-8, so where
            # a gradient is ~1e-8 its rounding shows in the update: compare to 1e-3 there.
            close(p.detach().numpy() - old, q - old, rtol=1e-3)
    # The floor's own benchmark builds the same shapes of inputs and parameters.
    own = floor.WORKLOADS[name]()
    assert own.x.shape == x.shape and own.y.shape == y.shape
    assert [p.shape for p in own.model.params] == [p.shape for p in model.params]


def test_floor_overhead_matches_pedatorch():
    ours = run.WORKLOADS["overhead"](pedatorch)
    own = floor.overhead()
    for leaf, p in zip(ours.leaves, own.params):
        np.testing.assert_array_equal(leaf.detach().numpy(), p)
    for _ in range(3):  # the gradients accumulate: nobody zeroes them
        close(ours().item(), own())
        for leaf, g in zip(ours.leaves, own.grads):
            close(leaf.grad.numpy(), g)


def test_cross_entropy_gradient_matches_torch():
    torch = pytest.importorskip("torch")
    logits, labels = floor.inputs((5, 7), 7)
    loss, grad = floor.cross_entropy(logits, labels)
    t = torch.tensor(logits, requires_grad=True)
    expected = torch.nn.functional.cross_entropy(t, torch.tensor(labels))
    expected.backward()
    close(expected.item(), loss)
    close(t.grad.numpy(), grad)


def test_run_end_to_end(tmp_path):
    out = tmp_path / "bench.json"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["OPENBLAS_CORETYPE"] = "Haswell"  # the workers must not see it
    cmd = [sys.executable, os.path.join(BENCH, "run.py"), "overhead", "--rounds", "2", "--repeat", "5",
           "--warmup", "1", "--no-torch", "--json", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "| overhead |" in proc.stdout and "pedatorch/floor" in proc.stdout
    assert "removed from their environment: OPENBLAS_CORETYPE" in proc.stdout
    data = json.loads(out.read_text())
    result = data["workloads"]["overhead"]
    assert result["repeat"] == 5 and not result["errors"]
    assert sorted(result["libraries"]) == ["numpy", "pedatorch"]
    assert len(result["libraries"]["pedatorch"]["rounds"]) == 2
    assert result["pedatorch/numpy"] > 0 and result["pedatorch/torch"] is None


def test_parent_imports_no_library():
    """The parent only talks to the workers: numpy, torch and pedatorch stay out of its process."""
    code = ("import runpy, sys; sys.argv = ['run.py', 'overhead', '--rounds', '1', '--repeat', '2', "
            "'--warmup', '1', '--no-torch']\n"
            "try:\n    runpy.run_path(%r, run_name='__main__')\n"
            "except SystemExit as e:\n    assert not e.code, e.code\n"
            "print(sorted(m for m in ('numpy', 'torch', 'pedatorch') if m in sys.modules))"
            % os.path.join(BENCH, "run.py"))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("[]"), proc.stdout


def test_bad_arguments():
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "run.py"), "nope"], capture_output=True, text=True)
    assert proc.returncode == 2 and "unknown workload(s) nope" in proc.stderr
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "run.py"), "--list"], capture_output=True, text=True)
    assert proc.returncode == 0 and "inference_mlp" in proc.stdout and "matmul" in proc.stdout
