"""Regression tests for fixes of this round found by compat programs and probes (PPO/DQN helpers' reports):
complex clamp and sign refuse as PyTorch does; clamp of a plain number is PyTorch's TypeError."""
import pytest

import pedatorch as pt

from conftest import error_of

torch = pytest.importorskip("torch")


def _errors(lib):
    z = lib.tensor([3 + 4j])
    return [error_of(f) for f in (
        lambda: lib.clamp(0.5, max=1.0), lambda: z.clamp(min=-1.), lambda: z.clamp(max=1.), lambda: z.clamp(-1., 1.),
        lambda: z.clamp_min(0.), lambda: z.clamp(min=lib.tensor(0.)), lambda: z.clamp_(0, 1), lambda: z.clip(0, 1),
        lambda: lib.clamp_max(z, 1.), lambda: z.sign(), lambda: z.clone().sign_(),
        lambda: lib.nn.init.orthogonal_(lib.empty(2, 2, dtype=lib.complex64)))]


def test_complex_clamp_and_sign_refuse_as_pytorch():
    assert _errors(pt) == _errors(torch)
    assert pt.tensor([3 + 4j]).sgn().tolist() == pytest.approx([0.6 + 0.8j])


def test_copy_broadcast_errors_as_pytorch():
    def run(lib):
        out = []
        for dst, src in [((3,), (3, 1)), ((3, 2), (3, 1, 1)), ((3, 2), (3, 2, 1)), ((2, 3), (3,)), ((), (2,)),
                         ((2,), ())]:
            out.append(error_of(lambda: lib.empty(dst).copy_(lib.ones(src))))
        return out
    assert run(pt) == run(torch)
