"""nn.AdaptiveLogSoftmaxWithLoss against PyTorch: the same parameters after the same seed, outputs, loss,
gradients, log_prob, predict and errors."""
import numpy as np
import pytest

import pedatorch as torch
import pedatorch.nn as nn

pt = pytest.importorskip("torch")


def _pair(*args, **kwargs):
    torch.manual_seed(0)
    pt.manual_seed(0)
    return nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs), pt.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs)


@pytest.mark.parametrize("cutoffs, head_bias", [([3, 6], False), ([2], True), ([4, 8, 12], False)])
def test_forward_backward_log_prob_predict(cutoffs, head_bias):
    ours, theirs = _pair(16, 20, cutoffs, div_value=2.0, head_bias=head_bias)
    assert repr(ours) == repr(theirs)
    for (n1, p1), (n2, p2) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert n1 == n2
        np.testing.assert_array_equal(p1.detach().numpy(), p2.detach().numpy())
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 16)).astype(np.float32)
    y = np.array([0, 19, 5, 2, 13, 7])
    a, b = torch.tensor(x, requires_grad=True), pt.tensor(x, requires_grad=True)
    out, ref = ours(a, torch.tensor(y)), theirs(b, pt.tensor(y))
    assert type(out).__name__ == type(ref).__name__ == "_ASMoutput"
    np.testing.assert_allclose(out.output.detach().numpy(), ref.output.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.loss.item(), ref.loss.item(), rtol=1e-5)
    assert out.loss.grad_fn.name() == ref.loss.grad_fn.name()
    out.loss.backward()
    ref.loss.backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-6)
    for p1, p2 in zip(ours.parameters(), theirs.parameters()):   # (a cluster no target falls in: no gradient)
        assert (p1.grad is None) == (p2.grad is None)
        if p1.grad is not None:
            np.testing.assert_allclose(p1.grad.numpy(), p2.grad.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(ours.log_prob(torch.tensor(x)).detach().numpy(),
                               theirs.log_prob(pt.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    assert ours.predict(torch.tensor(x)).tolist() == theirs.predict(pt.tensor(x)).tolist()
    single = ours(torch.tensor(x[0]), torch.tensor(y[0]))
    assert single.output.shape == () and single.loss.shape == ()


def test_errors_are_pytorchs():
    for args in (([],), ([5, 3],), ([0],), ([20],), ([3, 3],)):
        with pytest.raises(ValueError) as e1:
            nn.AdaptiveLogSoftmaxWithLoss(8, 20, *args)
        with pytest.raises(ValueError) as e2:
            pt.nn.AdaptiveLogSoftmaxWithLoss(8, 20, *args)
        assert str(e1.value) == str(e2.value)
    ours, theirs = _pair(8, 10, [3])
    calls = [(np.zeros((2, 8), np.float32), [1, 2, 3]), (np.zeros((2, 8), np.float32), [1, 10]),
             (np.zeros((2, 8), np.float32), [[1]]), (np.zeros(8, np.float32), [1, 2])]
    for x, y in calls:
        with pytest.raises(RuntimeError) as e1:
            ours(torch.tensor(x), torch.tensor(y))
        with pytest.raises(RuntimeError) as e2:
            theirs(pt.tensor(x), pt.tensor(y))
        assert str(e1.value) == str(e2.value)
