"""The checks a lesson's test cell calls: each compares the learner's answer with a trusted reference.

A check prints a short verdict to stdout: what passed or, for what failed, the first concrete difference (the
input, expected vs got, shapes and dtypes, the index and size of the largest error). On failure it raises
AssertionError with the same text, which is how nbgrader (and pedatorch's grader) scores a test cell. Nothing
goes to stderr, so a correct answer is never marked down for a warning.

The same test cell runs in two places:

- in the learner's own kernel (instant feedback): the learner's functions, classes and modules are the real ones;
- in the grader's process (``grader.py``): they are proxies (``remote.RemoteObject``) for objects living in the
  learner's sandboxed process. Calling one sends plain data over and brings plain data back.

So the checks only *call* the learner's objects, read their attributes and items and iterate over them; they never
ask what class they are, and they send them nothing but tensors, numbers and containers of those. The reference
values are always computed here, by the check, from the reference the instructor gives.

Example (a test cell)::

    from pedatorch.grading import check_function
    check_function(my_relu, lambda x: x.clamp(min=0), input_fn=lambda: pedatorch.randn(3, 4))
"""
import inspect
import math
import re
import textwrap
import time

import numpy as np

from . import remote
from .._dtype import float64
from .._tensor import Tensor
from ..autograd import grad, no_grad
from ..autograd.gradcheck import _numerical_jacobian
from ..backend import is_array, to_host
from ..ops.creation import tensor, zeros
from ..ops.random import randn, randn_like

__all__ = ["check_value", "check_function", "check_backward", "check_module", "check_optimizer",
           "check_training"]

# Default tolerances: loose enough for a correct re-implementation that adds things up in another order
# (float32), tight enough to catch a wrong formula.
ATOL, RTOL = 1e-5, 1e-4


# --------------------------------------------------------------------------- verdicts

def _passed(text):
    print(f"Correct: {text}")


def _failed(text):
    """Print the verdict and raise it: the learner sees it in the notebook, the grader in the message."""
    text = f"Not yet: {text}"
    print(text)
    raise AssertionError(text)


def _name_of(obj, default):
    """A readable name for a learner's function or class (a proxy knows it only from its repr)."""
    if isinstance(obj, remote.RemoteObject):
        text = repr(obj)
        m = re.match(r"<bound method [\w.]*?(\w+) of <class '(?:[\w.]*\.)?(\w+)'>", text)   # Function.apply
        if m:
            return f"{m.group(2)}.{m.group(1)}"
        m = re.match(r"<(?:function|class) '?(?:[\w.]*\.)?(\w+)", text)
        return m.group(1) if m else default
    name = getattr(obj, "__name__", None)
    owner = getattr(obj, "__self__", None)
    if isinstance(owner, type):   # a classmethod such as a custom Function's apply
        name = f"{owner.__name__}.{name}"
    return default if not name or name == "<lambda>" else name


# --------------------------------------------------------------------------- describing values

def _is_tensor_like(x):
    return isinstance(x, Tensor) or is_array(x)


def _host(x):
    """A fresh host numpy copy of a tensor, an array, a number or a (nested) list of numbers."""
    if isinstance(x, Tensor):
        arr = to_host(x.detach().numpy(force=True))
    elif is_array(x):
        arr = to_host(x)
    else:
        arr = to_host(tensor(x)._data)
    return arr.astype(arr.dtype, subok=False)   # a plain copy: an ndarray subclass's comparisons could lie


def _dtype_of(x):
    return x.dtype if isinstance(x, Tensor) else getattr(x, "dtype", type(x).__name__)


def _fmt(v):
    """One number, short."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (complex, np.complexfloating)):
        return f"{complex(v):.6g}"
    return f"{float(v):.6g}"


def _short(x):
    """A one-line description of a value: small tensors with their values, big ones by shape and dtype."""
    if _is_tensor_like(x):
        kind = "tensor" if isinstance(x, Tensor) else "array"
        shape = tuple(x.shape)
        if int(np.prod(shape, dtype=np.int64)) <= 8:
            values = np.array2string(_host(x), precision=4, separator=", ").replace("\n", "")
            return f"{kind}({values}, dtype={_dtype_of(x)})"
        return f"a {_dtype_of(x)} {kind} of shape {shape}"
    if isinstance(x, (tuple, list)):
        inner = ", ".join(_short(v) for v in x[:6]) + (", ..." if len(x) > 6 else "")
        return f"({inner}{',' if len(x) == 1 else ''})" if isinstance(x, tuple) else f"[{inner}]"
    if isinstance(x, remote.RemoteObject):
        return f"a {x._type}"
    text = " ".join(repr(x).split())   # one line, even for a Module
    return text if len(text) <= 80 else text[:77] + "..."


def _call_text(name, args):
    """``f(a 2x3 float32 tensor)`` for a function's name; a longer label gets the inputs after "on"."""
    described = _describe_args(args)
    return f"{name}({described})" if str(name).isidentifier() else f"{name}, on ({described})"


def _array_difference(got, expected, atol, rtol, check_dtype):
    """The first difference between two tensors/arrays, or None."""
    if not _is_tensor_like(got):
        kind = "tensor" if isinstance(expected, Tensor) else "array"
        return f"expected {_short(expected)}, got {_short(got)} (not a {kind})"
    if tuple(got.shape) != tuple(expected.shape):
        return f"expected shape {tuple(expected.shape)}, got shape {tuple(got.shape)}"
    if check_dtype and isinstance(got, Tensor) != isinstance(expected, Tensor):
        return f"expected {_short(expected)}, got {_short(got)}"
    if check_dtype and str(_dtype_of(got)) != str(_dtype_of(expected)):
        return f"expected dtype {_dtype_of(expected)}, got dtype {_dtype_of(got)}"
    e, g = _host(expected), _host(got)
    if e.size == 0:
        return None
    if e.dtype.kind in "biu" and g.dtype.kind in "biu":
        bad = (g != e)[...]   # ([...]: a 0-d array, where numpy returns a scalar for 0-d inputs)
        err = np.abs(g.astype(np.float64) - e.astype(np.float64))[...]
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            bad = ~np.isclose(g, e, rtol=rtol, atol=atol, equal_nan=True)
            err = np.abs(g - e)[...].astype(np.float64)   # ([...]: an array also for 0-d inputs)
        err[np.isnan(err) & bad] = np.inf     # a NaN or inf where a number was expected counts most
    if not bad.any():
        return None
    err = np.where(bad, err, -1.0)             # only the values that are off compete for "largest"
    flat = int(np.argmax(err))
    index = tuple(int(i) for i in np.unravel_index(flat, e.shape))
    at = f" at index {index}" if e.ndim else ""
    return (f"{int(bad.sum())} of {e.size} values differ; the largest error is {_fmt(err.reshape(-1)[flat])}{at}: "
            f"expected {_fmt(e.reshape(-1)[flat])}, got {_fmt(g.reshape(-1)[flat])}")


def _difference(got, expected, atol=ATOL, rtol=RTOL, check_dtype=True, where=""):
    """The first difference between ``got`` and ``expected`` as a sentence (None when they agree).
    ``where`` names the part being compared (``"[1]"``, ``"['loss']"``)."""
    prefix = f"{where}: " if where else ""
    if _is_tensor_like(expected):
        diff = _array_difference(got, expected, atol, rtol, check_dtype)
        return prefix + diff if diff else None
    if isinstance(expected, (tuple, list)):   # torch.Size is a tuple; a proxy's tuples come back as tuples
        if not isinstance(got, (tuple, list)):
            return f"{prefix}expected {_short(expected)}, got {_short(got)}"
        if len(got) == len(expected) and not any(isinstance(v, (tuple, list, dict)) or _is_tensor_like(v)
                                                 for v in expected):   # a shape: show it whole
            if any(_difference(g, e, atol, rtol, check_dtype) for g, e in zip(got, expected)):
                return f"{prefix}expected {_short(expected)}, got {_short(got)}"
            return None
        if len(got) != len(expected):
            return f"{prefix}expected {len(expected)} items {_short(expected)}, got {len(got)} items {_short(got)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            diff = _difference(g, e, atol, rtol, check_dtype, f"{where}[{i}]")
            if diff:
                return diff
        return None
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return f"{prefix}expected a dict, got {_short(got)}"
        missing, extra = [k for k in expected if k not in got], [k for k in got if k not in expected]
        if missing or extra:
            return f"{prefix}keys differ: missing {missing}, unexpected {extra}"
        for k in expected:
            diff = _difference(got[k], expected[k], atol, rtol, check_dtype, f"{where}[{k!r}]")
            if diff:
                return diff
        return None
    if isinstance(expected, (bool, np.bool_)):
        ok = isinstance(got, (bool, np.bool_)) and bool(got) == bool(expected)
    elif isinstance(expected, (int, np.integer)):
        ok = isinstance(got, (int, np.integer)) and not isinstance(got, bool) and int(got) == int(expected)
    elif isinstance(expected, (float, np.floating)):
        ok = isinstance(got, (int, float, np.integer, np.floating)) and not isinstance(got, bool) and (
            math.isclose(float(got), float(expected), rel_tol=rtol, abs_tol=atol)
            or math.isnan(float(got)) and math.isnan(float(expected)))
    else:   # strings, dtypes, None ...
        ok = type(got) is type(expected) and got == expected
    return None if ok else f"{prefix}expected {_short(expected)}, got {_short(got)}"


def _as_args(case):
    """One input case as positional arguments: a tuple is the arguments, anything else the single one."""
    return case if isinstance(case, tuple) else (case,)


def _fresh(args):
    """Copies of the tensors among ``args``, so that a function changing its input in place changes no other's."""
    return tuple(a.detach().clone() if isinstance(a, Tensor) else a for a in args)


def _describe_args(args):
    return ", ".join(_short(a) for a in args)


# --------------------------------------------------------------------------- the checks

def check_value(got, expected, name="the value", *, atol=ATOL, rtol=RTOL, check_dtype=True):
    """Check one answer against the expected value: a number, a string, a tuple or ``Size`` (e.g. a shape),
    a list or dict of values, a tensor or an array (shape, then dtype, then values within ``atol + rtol*|e|``).

    Example::

        check_value(predicted_shape, (4, 3, 5), name="the broadcast shape")
        check_value(my_softmax_output, reference_output, name="softmax of x")
    """
    diff = _difference(got, expected, atol, rtol, check_dtype)
    if diff:
        _failed(f"{name}: {diff}")
    _passed(f"{name} is right ({_short(expected)})")


def check_function(fn, reference, inputs=None, *, input_fn=None, n_random=5, atol=ATOL, rtol=RTOL,
                   check_dtype=True, name=None):
    """Call the learner's ``fn`` and the trusted ``reference`` on the same inputs and compare the results
    (tensors by shape, dtype and values; tuples, lists and numbers item by item).

    ``inputs`` is a list of cases; a case is a tuple of positional arguments, or a single argument (to pass one
    tuple as the argument, wrap it: ``((2, 3),)``). ``input_fn()`` makes a random case; it is called
    ``n_random`` times (after the ``inputs``). Each call gets its own copies of the input tensors.

    Example::

        check_function(my_relu, lambda x: x.clamp(min=0),
                       inputs=[pedatorch.tensor([-1.0, 0.0, 2.0])],
                       input_fn=lambda: pedatorch.randn(3, 4), n_random=5)
    """
    name = name or _name_of(fn, "your function")
    cases = [_as_args(c) for c in (inputs or [])]
    if input_fn is not None:
        cases += [_as_args(input_fn()) for _ in range(n_random)]
    if not cases:
        raise ValueError("check_function needs inputs or an input_fn")
    for i, args in enumerate(cases):
        expected = reference(*_fresh(args))
        where = f"{_call_text(name, args)} (input {i + 1} of {len(cases)})"
        try:
            got = fn(*_fresh(args))
        except Exception:   # the learner's error is theirs to see in full: say on which input, and pass it on
            print(f"Not yet: {where} raised an error:")
            raise
        diff = _difference(got, expected, atol, rtol, check_dtype)
        if diff:
            _failed(f"{where}: {diff}")
    _passed(f"{name} matches the reference on {len(cases)} input{'s' if len(cases) > 1 else ''}")


def _float64_leaves(args):
    """The inputs of a gradcheck: floating tensors as float64 copies that require grad. When some of the given
    tensors require grad, only those are differentiated; otherwise all floating tensors are."""
    chosen = [isinstance(a, Tensor) and a.is_floating_point() and a.requires_grad for a in args]
    if not any(chosen):
        chosen = [isinstance(a, Tensor) and a.is_floating_point() for a in args]
    out = tuple(a.detach().to(float64).clone().requires_grad_() if c else
                (a.detach().clone() if isinstance(a, Tensor) else a) for a, c in zip(args, chosen))
    return out, [i for i, c in enumerate(chosen) if c]


def _outputs(result):
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def check_backward(fn, inputs, reference=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, name=None):
    """Check the learner's backward: ``gradcheck`` (in float64) of ``fn`` on the arguments ``inputs`` (a tuple,
    or a single tensor), with a verdict per input. ``fn`` is e.g. a custom Function's ``.apply``.

    The floating tensors of ``inputs`` are differentiated (only those that require grad, if some do). With a
    ``reference``, the outputs and the gradients for one random ``grad_output`` are compared with its too.

    Example::

        check_backward(MySigmoid.apply, pedatorch.randn(3, 4))
        check_backward(my_mul, (pedatorch.randn(3), pedatorch.randn(3)), reference=lambda a, b: a * b)
    """
    name = name or _name_of(fn, "your function")
    args, diff_idx = _float64_leaves(_as_args(inputs))
    if not diff_idx:
        raise ValueError("check_backward needs at least one floating-point tensor input")
    outputs = _outputs(fn(*args))
    if not any(isinstance(o, Tensor) and o.requires_grad for o in outputs):
        _failed(f"{_call_text(name, args)} returned {_short(outputs[0] if len(outputs) == 1 else outputs)}, "
                f"which does not require grad: autograd cannot reach its backward (a .detach(), .numpy() or "
                f"a missing Function?)")
    lines, ok = [], True
    if reference is not None:
        expected = _outputs(reference(*_fresh(args)))
        diff = _difference(tuple(o.detach() for o in outputs), tuple(e.detach() for e in expected), atol, rtol)
        if diff:
            _failed(f"the output of {name}({_describe_args(args)}) is wrong: {diff}")
    tensor_outputs = [o for o in outputs if isinstance(o, Tensor)]   # the Jacobians' columns
    numerical = _numerical_jacobian(fn, args, diff_idx, eps)
    analytical = _backward_jacobian(fn, args, diff_idx)
    for n_cols, a_cols, i in zip(numerical, analytical, diff_idx):
        verdict = None
        for j, (num, ana) in enumerate(zip(n_cols, a_cols)):
            diff = _jacobian_difference(num, ana, args[i].shape, tensor_outputs[j].shape, atol, rtol,
                                        f"output {j}" if len(tensor_outputs) > 1 else "output")
            if diff:
                verdict = diff
                break
        ok = ok and verdict is None
        lines.append(f"  input {i} ({_short(args[i].detach())}): " +
                     ("gradient matches finite differences" if verdict is None else f"WRONG gradient: {verdict}"))
    if ok and reference is not None:
        diff = _compare_grads(fn, reference, args, diff_idx, outputs, atol, rtol)
        if diff:
            ok = False
            lines.append(f"  compared with the reference: {diff}")
    text = f"gradcheck of {name}:\n" + "\n".join(lines)
    if not ok:
        _failed(text)
    _passed(text)


def _backward_jacobian(fn, args, diff_idx):
    """The Jacobians autograd gives, as gradcheck's ``_analytical_jacobian`` builds them (J[i][j]: input i by
    output j, one row per input element), but with a fresh call of ``fn`` for each output element: the backward
    of a call into the learner's process can run only once."""
    inputs = [args[i] for i in diff_idx]
    shapes = [tuple(o.shape) for o in _outputs(fn(*args)) if isinstance(o, Tensor)]
    sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    jac = [[_host(zeros(x.numel(), n, dtype=float64)) for n in sizes] for x in inputs]
    for j, n in enumerate(sizes):
        for k in range(n):
            out = [o for o in _outputs(fn(*args)) if isinstance(o, Tensor)][j]
            if not out.requires_grad:
                break
            seed = out.detach().reshape(-1) * 0
            seed[k] = 1
            for i, g in enumerate(grad(out, inputs, seed.reshape(shapes[j]), allow_unused=True)):
                if g is not None:
                    jac[i][j][:, k] = _host(g).astype(np.float64).reshape(-1)
    return jac


def _jacobian_difference(num, ana, in_shape, out_shape, atol, rtol, out_name):
    """Where the backward's Jacobian (rows: input elements, columns: output elements) is off, or None."""
    if np.allclose(ana, num, rtol=rtol, atol=atol):
        return None
    err = np.abs(ana - num)
    err[np.isnan(err)] = np.inf
    k, m = np.unravel_index(int(np.argmax(err)), err.shape)
    xi = tuple(int(v) for v in np.unravel_index(k, in_shape)) if len(in_shape) else ()
    yi = tuple(int(v) for v in np.unravel_index(m, out_shape)) if len(out_shape) else ()
    return (f"the derivative of {out_name}{list(yi) if yi else ''} with respect to input{list(xi) if xi else ''}"
            f" is off: finite differences give "
            f"{_fmt(num[k, m])}, your backward gives {_fmt(ana[k, m])} (error {_fmt(err[k, m])}; "
            f"{int((~np.isclose(ana, num, rtol=rtol, atol=atol)).sum())} of {num.size} entries differ)")


def _compare_grads(fn, reference, args, diff_idx, outputs, atol, rtol):
    """The gradients of fn and of the reference for the same random grad_outputs: the first difference."""
    seeds = [randn_like(o.detach()) for o in outputs if isinstance(o, Tensor) and o.requires_grad]
    got_args = _fresh_leaves(args, diff_idx)
    ref_args = _fresh_leaves(args, diff_idx)
    got_out = [o for o in _outputs(fn(*got_args)) if isinstance(o, Tensor) and o.requires_grad]
    ref_out = [o for o in _outputs(reference(*ref_args)) if isinstance(o, Tensor) and o.requires_grad]
    got = grad(got_out, [got_args[i] for i in diff_idx], seeds, allow_unused=True)
    ref = grad(ref_out, [ref_args[i] for i in diff_idx], seeds, allow_unused=True)
    for i, g, r in zip(diff_idx, got, ref):
        if g is None and r is None:
            continue
        if g is None or r is None:
            return f"input {i}: expected {'no gradient' if r is None else 'a gradient'}, got " \
                   f"{'none' if g is None else 'one'}"
        diff = _difference(g, r, atol, rtol, where=f"the gradient of input {i}")
        if diff:
            return diff
    return None


def _fresh_leaves(args, diff_idx):
    return tuple(a.detach().clone().requires_grad_() if i in diff_idx else a for i, a in enumerate(args))


def _is_factory(obj):
    """A class or a function that builds a module, rather than a module: both are called to get one."""
    if isinstance(obj, remote.RemoteObject):
        return obj._type in ("type", "ABCMeta", "function", "builtin_function_or_method", "method", "partial")
    return isinstance(obj, type) or inspect.isroutine(obj) or type(obj).__name__ == "partial"


def check_module(module, reference, inputs, *, args=(), kwargs=None, param_shapes=True, copy_state=True,
                 training=False, atol=ATOL, rtol=RTOL, name=None):
    """Check the learner's Module against a reference Module: its parameter names and shapes, then its outputs on
    ``inputs`` after the reference's ``state_dict`` was copied into it (so both compute with the same weights).

    ``module`` and ``reference`` are Module instances, or classes/factories that are called with ``args`` and
    ``kwargs`` to build one. ``inputs`` is a list of cases as in ``check_function``. Both modules are put into
    eval mode (``training=False``) first, so dropout and batch norm are deterministic.

    Example::

        check_module(MyLinear, pedatorch.nn.Linear, inputs=[pedatorch.randn(5, 3)], args=(3, 2))
    """
    kwargs = kwargs or {}
    learner = module(*args, **kwargs) if _is_factory(module) else module
    ref = reference(*args, **kwargs) if _is_factory(reference) else reference
    name = name or (_name_of(module, "your module") if _is_factory(module) else "your module")
    if param_shapes:
        want = {n: tuple(p.shape) for n, p in ref.named_parameters()}
        have = {n: tuple(p.shape) for n, p in learner.named_parameters()}
        missing, extra = [n for n in want if n not in have], [n for n in have if n not in want]
        if missing or extra:
            _failed(f"{name}'s parameters: expected {list(want)}, got {list(have)}"
                    + (f" (missing {missing})" if missing else "") + (f" (unexpected {extra})" if extra else ""))
        for n, shape in want.items():
            if have[n] != shape:
                _failed(f"{name}'s parameter {n!r}: expected shape {shape}, got shape {have[n]}")
    if copy_state:
        state = {k: v.detach().clone() for k, v in ref.state_dict().items()}
        have = {k: tuple(v.shape) for k, v in learner.state_dict().items()}
        missing = [k for k in state if k not in have]
        if missing or any(have[k] != tuple(v.shape) for k, v in state.items()):
            _failed(f"{name}'s state_dict does not fit the reference's: expected "
                    f"{ {k: tuple(v.shape) for k, v in state.items()} }, got {have}")
        learner.load_state_dict(state)
    learner.train(training)
    ref.train(training)
    cases = [_as_args(c) for c in inputs]
    for i, case in enumerate(cases):
        with no_grad():
            expected = ref(*_fresh(case))
        got = learner(*_fresh(case))
        diff = _difference(got, expected, atol, rtol)
        if diff:
            _failed(f"the output of {name} on input {i + 1} of {len(cases)} ({_describe_args(case)}): {diff}")
    what = "parameters and " if param_shapes else ""
    _passed(f"{name}'s {what}outputs on {len(cases)} input{'s' if len(cases) > 1 else ''} match the reference")


def _optimizer_stepper(make, params, hyper):
    """Build an optimizer on ``params``; return a function that sets the parameters' gradients, takes one step
    and returns the parameters' new values. Defined where the optimizer class lives (see _where)."""
    opt = make(params, **hyper)

    def step(grads):
        for p, g in zip(params, grads):
            p.grad = g
        opt.step()
        return [p.detach().clone() for p in params]
    return step


def _where(obj, fn):
    """``fn`` as a function living where ``obj`` lives. A proxy's objects are in the learner's process, and a
    tensor's ``.grad`` cannot be set over there through a proxy, so ``fn``'s source is defined over there and
    called through a proxy like any learner's function (it only gets and returns plain data)."""
    if not isinstance(obj, remote.RemoteObject):
        return fn
    obj._conn.exec_cell(textwrap.dedent(inspect.getsource(fn)), f"check helper {fn.__name__}")
    return obj._conn.names([fn.__name__])[fn.__name__][1]


def check_optimizer(opt_class, reference_class, params=None, *, steps=5, atol=ATOL, rtol=RTOL, name=None, **hyper):
    """Check the learner's optimizer class against a reference one: both start from the same parameters, get the
    same (random) gradients before each of ``steps`` steps, and the parameters must agree after every step.

    ``params`` are the starting values (default: two random float32 tensors); ``hyper`` are the optimizer's
    keyword arguments (``lr=0.1, momentum=0.9``), given to both.

    Example::

        check_optimizer(MySGD, pedatorch.optim.SGD, steps=5, lr=0.1, momentum=0.9)
    """
    name = name or _name_of(opt_class, "your optimizer")
    start = list(params) if params is not None else [randn(3, 4), randn(4)]
    start = [p.detach().clone() for p in start]
    grads = [[randn_like(p) for p in start] for _ in range(steps)]
    ref_step = _optimizer_stepper(reference_class, [p.clone().requires_grad_() for p in start], hyper)
    learner_step = _where(opt_class, _optimizer_stepper)(opt_class, [p.clone().requires_grad_() for p in start],
                                                         hyper)
    setting = ", ".join(f"{k}={v!r}" for k, v in hyper.items())
    for s, g in enumerate(grads):
        expected = ref_step([x.clone() for x in g])
        got = learner_step([x.clone() for x in g])
        if not isinstance(got, list) or len(got) != len(expected):
            _failed(f"{name}: after step {s + 1} expected {len(expected)} parameters, got {_short(got)}")
        for i, (p_got, p_exp) in enumerate(zip(got, expected)):
            diff = _difference(p_got, p_exp, atol, rtol)
            if diff:
                _failed(f"{name}({setting}): after step {s + 1} of {steps}, parameter {i} "
                        f"(shape {tuple(p_exp.shape)}) is off: {diff}")
    _passed(f"{name}({setting}) takes the same {steps} steps as the reference")


def _metric(result, key, position):
    """A metric of a training run's result: ``result[key]`` of a dict, ``result[position]`` of a tuple, or the
    result itself (position 0, a bare loss). A tensor counts by its single value."""
    if isinstance(result, dict):
        value = result.get(key, result.get(key[:3]))   # "accuracy" or "acc"
    elif isinstance(result, (tuple, list)):
        value = result[position] if position < len(result) else None
    else:
        value = result if position == 0 else None
    if isinstance(value, Tensor) or is_array(value):
        value = _host(value).reshape(-1)[0].item() if int(np.prod(value.shape, dtype=np.int64)) == 1 else value
    return value


def check_training(train_fn, *, loss_below=None, accuracy_above=None, time_budget=60.0, name=None):
    """Run the learner's training: ``train_fn()`` returns its metrics, as a dict (``{"loss": .., "accuracy": ..}``),
    a tuple ``(loss, accuracy)`` or a bare loss. The run passes when the loss ends below ``loss_below``, the
    accuracy above ``accuracy_above`` (each when given), within ``time_budget`` seconds.

    Example::

        check_training(lambda: train(model, epochs=3), loss_below=0.5, accuracy_above=0.9, time_budget=60)
    """
    name = name or _name_of(train_fn, "your training")
    t0 = time.perf_counter()
    result = train_fn()
    took = time.perf_counter() - t0
    reached = []
    for key, position, bound, below in (("loss", 0, loss_below, True), ("accuracy", 1, accuracy_above, False)):
        if bound is None:
            continue
        value = _metric(result, key, position)
        if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool):
            _failed(f"{name} returned {_short(result)}: no {key} in it (return a dict with the key {key!r}, or "
                    f"a tuple (loss, accuracy))")
        value = float(value)
        good = value < bound if below else value > bound
        if not good:   # NaN is never below or above anything
            _failed(f"{name} reached {key} {_fmt(value)}; it should be {'below' if below else 'above'} "
                    f"{_fmt(bound)} (in {took:.1f} s)")
        reached.append(f"{key} {_fmt(value)} ({'below' if below else 'above'} {_fmt(bound)})")
    if took > time_budget:
        _failed(f"{name} took {took:.1f} s; the budget is {_fmt(time_budget)} s")
    _passed(f"{name} reached {' and '.join(reached) or 'its end'} in {took:.1f} s (budget {_fmt(time_budget)} s)")
