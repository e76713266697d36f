"""``gradcheck``: compare autograd's gradients with finite differences (in float64).

For a function ``f`` of inputs ``x_1..x_k`` with outputs ``y_1..y_m`` it builds
the full Jacobian twice: numerically, one input element at a time, with central
differences ``(f(x + eps) - f(x - eps)) / (2 eps)``; and analytically, one output
element at a time, with ``autograd.grad`` and a one-hot ``grad_output``.

Complex numbers, as PyTorch checks them: a complex output is checked as two real functions, its real
part and its imaginary part; for a real output s of a complex input z = x + iy, both Jacobians hold
ds/dx + i ds/dy (the numerical one from perturbing x and y in turn), which is what autograd's gradient
of a real function of z is (twice the conjugate Wirtinger derivative).
"""
import numpy as np

from .._tensor import Tensor
from ..backend import namespace, to_host
from .._dtype import float64

# torch.testing.make_tensor, which gradgradcheck draws its random grad_outputs with; pedatorch.testing (a layer
# above) hands it over when it is imported (``use_make_tensor``)
make_tensor = None


def use_make_tensor(fn):
    global make_tensor
    make_tensor = fn

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    pass


def _as_tuple(x):
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _differentiable(outputs):
    return [o for o in outputs if isinstance(o, Tensor) and o._requires_grad]


def _numerical_jacobian(func, inputs, diff_idx, eps):
    """J[i][j]: d(output j)/d(input i) as an array (numel(input) x numel(output))."""
    base = [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]
    jac = []
    for i in diff_idx:
        x = inputs[i]
        flat = x._data.reshape(-1)  # a view when x is contiguous; gradcheck inputs are made so
        cols = [np.zeros((x._data.size, o._data.size), dtype=np.result_type(flat.dtype, o._data.dtype))
                for o in base]
        # a complex element is perturbed along its real and then its imaginary axis: ds/dx + i ds/dy
        steps = (1, 1j) if x.is_complex() else (1,)
        for k in range(flat.size):
            for step in steps:
                d = _central_difference(func, inputs, flat, k, eps * step)
                for j, col in enumerate(d):
                    cols[j][k] += col * step
        jac.append(cols)
    return jac


def _central_difference(func, inputs, flat, k, step):
    """(f(x + step) - f(x - step)) / (2 |step|) for each output, flattened, where the step is added to
    element k of an input's memory (``flat``)."""
    # grad mode stays as it is: the function may itself call autograd (gradgradcheck)
    orig = flat[k].copy()
    flat[k] = orig + step
    plus = [to_host(o._data).copy() for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]
    flat[k] = orig - step
    minus = [to_host(o._data).copy() for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]
    flat[k] = orig
    return [((p - m) / (2 * abs(step))).reshape(-1) for p, m in zip(plus, minus)]


def _analytical_jacobian(func, inputs, diff_idx):
    from . import grad
    outputs = _as_tuple(func(*inputs))
    diff_inputs = [inputs[i] for i in diff_idx]
    jac = [[np.zeros((inputs[i]._data.size, o._data.size),
                     dtype=np.complex128 if inputs[i].is_complex() else np.float64)
            for o in outputs if isinstance(o, Tensor)] for i in diff_idx]
    tensor_outputs = [o for o in outputs if isinstance(o, Tensor)]
    for j, out in enumerate(tensor_outputs):
        if not out._requires_grad:
            continue
        for k in range(out._data.size):
            seed = namespace(out._data).zeros(out._data.shape, dtype=out._data.dtype)
            seed.reshape(-1)[k] = 1
            gs = grad(out, diff_inputs, Tensor._make(seed), retain_graph=True, allow_unused=True)
            for i, g in enumerate(gs):
                if g is not None:
                    jac[i][j][:, k] = to_host(g._data).reshape(-1)
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False, masked=None):
    """True when autograd's Jacobian matches the finite-difference one for every input."""
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x._requires_grad]
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of "
                         "the them have requires_grad=True.")
    for i in diff_idx:
        x = inputs[i]
        if x._data.dtype != np.float64 and x._data.dtype != np.complex128:
            import warnings
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point. "
                          "This check will likely fail if all the inputs are not of double precision "
                          "floating point. ", UserWarning)
        if not x.is_contiguous():
            raise ValueError(f"gradcheck input #{i} must be contiguous (finite differences perturb its "
                             f"memory in place); pass x.contiguous()")
    outputs = [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]
    if not any(o.is_complex() for o in outputs):
        return _check_jacobians(func, inputs, diff_idx, eps, atol, rtol, raise_exception, "")
    # complex outputs: their imaginary parts, then their real parts, each a real function (as PyTorch)
    for part in ("imag", "real"):
        def part_func(*args, part=part):
            return tuple(getattr(o, part) if isinstance(o, Tensor) and o.is_complex() else o
                         for o in _as_tuple(func(*args)))
        if not _check_jacobians(part_func, inputs, diff_idx, eps, atol, rtol, raise_exception,
                                f" (the {part} parts of complex outputs)"):
            return False
    return True


def _check_jacobians(func, inputs, diff_idx, eps, atol, rtol, raise_exception, what):
    numerical = _numerical_jacobian(func, inputs, diff_idx, eps)
    analytical = _analytical_jacobian(func, inputs, diff_idx)
    for a_i, (num_cols, ana_cols) in enumerate(zip(numerical, analytical)):
        for j, (n, a) in enumerate(zip(num_cols, ana_cols)):
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                # printed as tensors, as PyTorch prints them
                msg = (f"Jacobian mismatch for output {j} with respect to input {diff_idx[a_i]}{what},\n"
                       f"numerical:{Tensor._make(np.asarray(n))!r}\nanalytical:{Tensor._make(np.asarray(a))!r}\n")
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False):
    """gradcheck of the backward itself: checks second derivatives."""
    from . import grad
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x._requires_grad]
    outputs = _differentiable(_as_tuple(func(*inputs)))
    if grad_outputs is None:   # random ones in [-1, 1), drawn from the global generator as PyTorch draws them
        grad_outputs = tuple(make_tensor(o.shape, dtype=o.dtype if o.is_floating_point() or o.is_complex() else float64,
                                         device=o.device, low=-1, high=1, requires_grad=True,
                                         noncontiguous=gen_non_contig_grad_outputs) for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def new_func(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = _differentiable(_as_tuple(func(*ins)))
        diff = [ins[i] for i in diff_idx]
        gs = grad(outs, diff, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(new_func, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
