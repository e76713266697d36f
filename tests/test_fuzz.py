"""Differential fuzzing against PyTorch (the engine is tests/fuzz/; see its __init__).

A short seeded campaign of random programs plus the deterministic sweeps. Every case
must match PyTorch, except the signatures listed in tests/fuzz/known.py, which xfail
(non-strict: a fixed one passes; then delete its line). A failure message holds the
program's source; ``python -m tests.fuzz --replay SEED`` prints its minimized repro.

FUZZ_PROGRAMS=N (environment) changes the campaign's size (default 300).
"""
import os

import pytest

pytest.importorskip("torch")

from tests.fuzz.compare import check  # noqa: E402
from tests.fuzz.gen import generate  # noqa: E402
from tests.fuzz.known import known_reason  # noqa: E402
from tests.fuzz import sweeps  # noqa: E402

N_PROGRAMS = int(os.environ.get("FUZZ_PROGRAMS", "300"))
CHUNK = 50


def _verdict(mismatches):
    """Fail on an unknown mismatch; xfail when every mismatch is a known one."""
    unknown = [(name, m) for name, m in mismatches if not known_reason(m.signature)]
    if unknown:
        lines = [f"{len(unknown)} mismatch(es) not in tests/fuzz/known.py:"]
        for name, m in unknown[:10]:
            lines.append(f"--- {name}: {m}")
        pytest.fail("\n".join(lines), pytrace=False)
    if mismatches:
        reasons = sorted({f"{m.signature}: {known_reason(m.signature)}" for _, m in mismatches})
        pytest.xfail("known: " + "; ".join(reasons[:5]))


@pytest.mark.parametrize("start", range(0, N_PROGRAMS, CHUNK), ids=lambda s: f"seeds{s}-{s + CHUNK - 1}")
def test_random_programs(start):
    mismatches = []
    for seed in range(start, min(start + CHUNK, N_PROGRAMS)):
        prog = generate(seed)
        m = check(prog)
        if m is not None:
            mismatches.append((f"seed {seed} (python -m tests.fuzz --replay {seed})\n{prog.source()}\n", m))
    _verdict(mismatches)


def _sweep(name):
    return [(case, m) for case, m in sweeps.run(sweeps.SWEEPS[name]())]


@pytest.mark.parametrize("name", list(sweeps.SWEEPS))
def test_sweep(name):
    """grad: double backward of every differentiable op on shapes 0-d, [1], [3], [2, 3];
    dtype: every op on every dtype; types: result types of every operand pair; bad: errors."""
    _verdict(_sweep(name))


def test_fuzzer_finds_a_planted_bug(monkeypatch):
    """The comparison is not vacuous: pedatorch's exp made wrong is caught."""
    import pedatorch
    real_exp = pedatorch.exp
    monkeypatch.setattr(pedatorch, "exp", lambda x: real_exp(x) * 1.001)
    from tests.fuzz.program import Input, Program, Step
    import numpy as np
    prog = Program(0, [Input(np.array([0.5, 1.0]), "float32")], [Step("exp", ["x0"], {}, 0)])
    m = check(prog)
    assert m is not None and m.signature == "exp|value|float32"
