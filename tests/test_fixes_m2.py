"""Half-precision conversions as PyTorch does them: a double reaches float16/bfloat16 through float32 (two
roundings), in tensor conversions, in factories and in a Python number meeting a half tensor; pow's
exponent is a float16 number for a float16 tensor."""
import numpy as np
import pytest

import pedatorch as torch

pt = pytest.importorskip("torch")

# -3.932617082707641: its float32 rounding lies exactly half-way between two float16 numbers
VALUES = np.concatenate([[-3.932617082707641], np.random.default_rng(0).standard_normal(5000) * 10])


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_double_to_half_goes_through_float(dt):
    ours_dt, pt_dt = getattr(torch, dt), getattr(pt, dt)
    cases = [(torch.tensor(VALUES).to(ours_dt), pt.tensor(VALUES).to(pt_dt)),
             (torch.tensor(VALUES.tolist(), dtype=ours_dt), pt.tensor(VALUES.tolist(), dtype=pt_dt)),
             (torch.tensor(VALUES, dtype=ours_dt), pt.tensor(VALUES, dtype=pt_dt)),
             (torch.tensor(np.float64(VALUES[0]), dtype=ours_dt), pt.tensor(np.float64(VALUES[0]), dtype=pt_dt)),
             (torch.full((3,), VALUES[0], dtype=ours_dt), pt.full((3,), VALUES[0], dtype=pt_dt))]
    for ours, theirs in cases:
        np.testing.assert_array_equal(ours.float().numpy(), theirs.float().numpy())


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "__radd__", "__rsub__", "__rtruediv__", "pow"])
def test_python_number_with_a_half_tensor(dt, op):
    x = np.abs(np.random.default_rng(1).standard_normal(4000)).astype(np.float32)
    for v in (VALUES[0], 0.1, 2.718281828459045, 1234.5678):
        ours = getattr(torch.tensor(x).to(getattr(torch, dt)), op)(v).float().numpy()
        theirs = getattr(pt.tensor(x).to(getattr(pt, dt)), op)(v).float().numpy()
        np.testing.assert_array_equal(ours, theirs)


def test_std_mean_double_backward_of_a_transposed_input():
    """std_mean saved its std before laying it out contiguously: for a transposed input the saved std was a
    copy, not the output, and the double backward lost std's own dependence on x (fuzzer round 10)."""
    from pedatorch.autograd import gradgradcheck
    x = torch.tensor(np.random.default_rng(0).standard_normal((3, 2, 2)), requires_grad=True)
    assert gradgradcheck(lambda t: torch.std_mean(t.transpose(-2, -1), dim=0, keepdim=True), (x,))
    assert gradgradcheck(lambda t: torch.std_mean(t.transpose(-2, -1), dim=(0, 2)), (x,))


def test_constant_pad_that_only_crops_keeps_the_layout():
    """ATen's constant_pad_nd with no positive pad narrows and clones (preserve_format): a transposed input
    keeps its layout (fuzzer round 10: F.pad(x, (0, 0)) on a transposed x)."""
    for pads in [(0, 0), (-1, 0), (0, -1, -1, 0), (-1, 1)]:
        ours = torch.constant_pad_nd(torch.ones(3, 4).t(), pads)
        theirs = pt.constant_pad_nd(pt.ones(3, 4).t(), pads)
        assert ours.stride() == theirs.stride() and ours.shape == theirs.shape
    assert torch.nn.functional.pad(torch.ones(3, 4).t(), (0, 0)).stride() == (1, 4)


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32", "float64"])
def test_ties_of_signed_zeros_keep_the_first_operand(dt):
    """PyTorch's max/min/clamp/relu keep x (the first operand) where the two are equal, and amax/amin over a
    dim the first of equal values: 0.0 and -0.0 differ in sign (numpy keeps the second, except in its
    float16 loop) (fuzzer round 10: digamma(amin(...)) gave inf for -inf)."""
    def run(lib):
        d = getattr(lib, dt)
        z, o = lib.tensor([-0., 0.], dtype=d), lib.tensor([0., -0.], dtype=d)
        m = lib.tensor([[-0., 0.], [0., -0.]], dtype=d)
        F = lib.nn.functional
        vals = [lib.maximum(z, o), lib.minimum(z, o), lib.relu(z), z.clamp_min(0.), o.clamp_max(-0.),
                z.clamp(min=o), o.clamp(max=z), F.relu6(z), F.hardtanh(z, -0., 0.), F.hardtanh(o, -0., 0.),
                z.amax(0), o.amin(0), m.amax(0), m.amax(1), m.amin(0), m.amin(1), lib.aminmax(m, dim=1).min,
                lib.tensor([[0., -0.] * 20], dtype=d).amax(1)]
        return [[str(x) for x in v.float().reshape(-1).tolist()] for v in vals]
    assert run(torch) == run(pt)
