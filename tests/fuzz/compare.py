"""Running a program on PyTorch and pedatorch side by side, and comparing.

``check(program)`` runs the inputs and steps in lockstep, comparing after every step:
the structure of the result, dtypes, shapes, strides (for view/layout ops), values
(NaN-aware, tolerances by dtype), ``requires_grad`` and the ``grad_fn`` class name;
and exceptions: when PyTorch raises, pedatorch must raise the same built-in class;
when PyTorch succeeds, so must pedatorch. Then the gradient stage: a random weighted
sum of every float output that requires grad, its gradients with
``autograd.grad(create_graph=True)`` and with ``backward()``, and a second-order
``backward()`` through those gradients.

The first difference found is returned as a ``Mismatch``; its ``signature``
(op | kind | dtype) groups the mismatches of a campaign.
"""
import warnings
from dataclasses import dataclass

import numpy as np

from .execute import new_namespace, run_line, input_lines
from .program import FLOATS, Program

# (rtol, atol) by dtype; atol is scaled by the magnitude of the expected values.
TOL = {"float64": (1e-7, 1e-9), "float32": (1e-4, 1e-5), "float16": (1e-2, 2e-3), "bfloat16": (3e-2, 2e-2)}
GRAD_TOL = {"float64": (1e-6, 1e-8), "float32": (1e-3, 1e-4), "float16": (5e-2, 1e-2), "bfloat16": (1e-1, 5e-2)}


@dataclass
class Mismatch:
    step: int      # the step it was found at (len(steps) and up: the gradient stage)
    op: str        # the op blamed
    kind: str      # what differs: value, dtype, shape, stride, grad_fn, requires_grad, pt_raises, ...
    dtype: str     # dtype of the op's first tensor operand
    detail: str    # pedatorch's result vs PyTorch's

    @property
    def signature(self):
        return f"{self.op}|{self.kind}|{self.dtype}"

    def __str__(self):
        return f"[{self.signature}] step {self.step}: {self.detail}"


class _Documented(Exception):
    """A documented difference: the program stops here without a mismatch."""


class _Found(Exception):
    def __init__(self, kind, detail):
        self.kind, self.detail = kind, detail


# --------------------------------------------------------------------------- helpers

def dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def is_tensor(v):
    import pedatorch
    import torch
    return isinstance(v, (torch.Tensor, pedatorch.Tensor))


def to_numpy(t):
    """A numpy copy of a torch or pedatorch tensor; bfloat16 as float32."""
    t = t.detach()
    if hasattr(t, "_data"):  # pedatorch: the array itself (its own conversions are under test)
        a = np.array(t._data)
        return a.astype(np.float32) if dtype_name(t) == "bfloat16" else a
    if t._is_zerotensor():   # an unused gradient: PyTorch's ZeroTensor (numpy() of one with odd strides crashes)
        return np.zeros(tuple(t.shape), dtype=np.float32 if dtype_name(t) == "bfloat16" else dtype_name(t))
    if dtype_name(t) == "bfloat16":
        t = t.float()
    return t.numpy(force=True).copy()


def builtin_class(exc):
    """The first built-in exception class of ``exc`` (torch's LinAlgError -> RuntimeError)."""
    for cls in type(exc).__mro__:
        if cls.__module__ == "builtins":
            return cls.__name__
    return type(exc).__name__


def short(exc):
    msg = str(exc).strip().split("\n")[0]
    return f"{type(exc).__name__}: {msg[:160]}"


def grad_fn_name(t):
    try:
        return None if t.grad_fn is None else type(t.grad_fn).__name__
    except Exception as e:  # noqa: BLE001 - PyTorch refuses to give a view's grad_fn after some writes
        return f"<raises {builtin_class(e)}>"


def first_difference(a, b, rtol, atol):
    """None if the arrays agree (NaN-aware: NaN where NaN, the same infinities), else a
    description of the worst element."""
    if a.dtype.kind in "biu" or b.dtype.kind in "biu":
        if a.dtype.kind == "f" or b.dtype.kind == "f":   # compare as floats; the dtype check catches the rest
            a, b = a.astype(np.float64), b.astype(np.float64)
        elif np.array_equal(a.astype(np.int64), b.astype(np.int64)):
            return None
        else:
            bad = np.argwhere(a.astype(np.int64) != b.astype(np.int64))[0]
            return f"at {tuple(int(i) for i in bad)}: {a[tuple(bad)]} vs {b[tuple(bad)]}"
    a, b = a.astype(np.float64), b.astype(np.float64)
    if np.array_equal(a, b, equal_nan=True):
        return None
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if (nan_a != nan_b).any():
        i = tuple(np.argwhere(nan_a != nan_b)[0])
        return f"NaN differs at {i}: {a[i]} vs {b[i]}"
    inf = np.isinf(a) | np.isinf(b)
    if (a[inf] != b[inf]).any():
        i = tuple(np.argwhere(inf & (a != b))[0])
        return f"inf differs at {i}: {a[i]} vs {b[i]}"
    ok = ~(nan_a | inf)
    finite_b = np.abs(b[ok])
    scale = max(1.0, float(finite_b.max())) if finite_b.size else 1.0
    err = np.abs(a[ok] - b[ok]) - (atol * scale + rtol * finite_b)
    if (err > 0).any():
        where = np.argwhere(ok)[int(np.argmax(err))]
        i = tuple(int(j) for j in where)
        return f"at {i}: {a[i]!r} vs {b[i]!r}"
    return None


def bitwise_equal(p, t):
    if is_tensor(p) and is_tensor(t):
        if dtype_name(p) != dtype_name(t) or tuple(p.shape) != tuple(t.shape):
            return False
        return np.array_equal(to_numpy(p).astype(np.float64), to_numpy(t).astype(np.float64), equal_nan=True)
    if isinstance(p, (tuple, list)) and isinstance(t, (tuple, list)):
        return len(p) == len(t) and all(bitwise_equal(a, b) for a, b in zip(p, t))
    try:
        return bool(p == t) or (p != p and t != t)
    except Exception:
        return False


def loosest(dtypes):
    """The least precise float dtype of ``dtypes`` (rounding differences grow to its size)."""
    order = ["bfloat16", "float16", "float32", "float64"]
    fl = [d for d in dtypes if d in order]
    return min(fl, key=order.index) if fl else None


def compare_tensor(p, t, values=True, strides=False, where="", tol=TOL, graph=True, tol_dtype=None,
                   grad_fn=True):
    """Raise _Found for the first difference between tensors p (pedatorch) and t (torch).
    ``graph``: compare requires_grad and the grad_fn class name too."""
    dp, dt_ = dtype_name(p), dtype_name(t)
    if dp != dt_:
        raise _Found("dtype", f"{where}dtype {dp} vs {dt_}")
    if tuple(p.shape) != tuple(t.shape):
        raise _Found("shape", f"{where}shape {tuple(p.shape)} vs {tuple(t.shape)}")
    if graph and p.requires_grad != t.requires_grad:
        raise _Found("requires_grad", f"{where}requires_grad {p.requires_grad} vs {t.requires_grad}")
    if graph and grad_fn and grad_fn_name(p) != grad_fn_name(t):
        raise _Found("grad_fn", f"{where}grad_fn {grad_fn_name(p)} vs {grad_fn_name(t)}")
    if strides and t.numel() > 1 and tuple(p.stride()) != tuple(t.stride()):
        # strides of size-1 dims never matter for addressing: a separate kind, "stride1"
        relevant = [i for i, n in enumerate(t.shape) if n != 1]
        kind = "stride" if [p.stride()[i] for i in relevant] != [t.stride()[i] for i in relevant] else "stride1"
        raise _Found(kind, f"{where}stride {tuple(p.stride())} vs {tuple(t.stride())} (shape {tuple(t.shape)})")
    if values:
        rtol, atol = tol.get(loosest([dt_, tol_dtype or dt_]) or dt_, (0, 0))
        diff = first_difference(to_numpy(p), to_numpy(t), rtol, atol)
        if diff:
            raise _Found("value", f"{where}values differ {diff}\n  pedatorch: {to_numpy(p).tolist()}\n"
                                  f"  torch:     {to_numpy(t).tolist()}")


def compare_result(p, t, values=True, strides=False, where="", tol_dtype=None, grad_fn=True):
    """Compare any step result: tensors, sequences of them, Python numbers, sizes.
    ``tol_dtype``: tolerances of at least this dtype (the step's least precise input)."""
    if is_tensor(t):
        if not is_tensor(p):
            raise _Found("type", f"{where}{type(p).__name__} vs Tensor")
        return compare_tensor(p, t, values, strides, where, tol_dtype=tol_dtype, grad_fn=grad_fn)
    if isinstance(t, (tuple, list)):
        if not isinstance(p, (tuple, list)):
            raise _Found("type", f"{where}{type(p).__name__} vs {type(t).__name__}")
        if len(p) != len(t):
            raise _Found("shape", f"{where}length {len(p)} vs {len(t)}")
        if type(t).__name__ != type(p).__name__ and type(t).__name__ not in ("Size",):
            raise _Found("type", f"{where}{type(p).__name__} vs {type(t).__name__}")
        for i, (a, b) in enumerate(zip(p, t)):
            compare_result(a, b, values, strides, f"{where}[{i}] ", tol_dtype, grad_fn)
        return
    if isinstance(t, (bool, int, float)):
        if type(p) is not type(t):
            raise _Found("type", f"{where}{type(p).__name__} {p!r} vs {type(t).__name__} {t!r}")
        if values and first_difference(np.array([p], dtype=np.float64), np.array([t], dtype=np.float64),
                                       1e-6, 1e-6):
            raise _Found("value", f"{where}{p!r} vs {t!r}")
        return
    if repr(p).replace("pedatorch", "torch") != repr(t):
        raise _Found("value", f"{where}{p!r} vs {t!r}")


def _tensors(v):
    if isinstance(v, (tuple, list)):
        return [e for e in v if is_tensor(e)]
    return [v] if is_tensor(v) else []


def _run(line, ns):
    try:
        for part in line.split("\n"):
            run_line(part, ns)
        return None
    except Exception as e:  # noqa: BLE001 - every exception is a result to compare
        return e


# pedatorch errors that docs/architecture.md lists as deliberate differences from PyTorch.
DOCUMENTED_ERRORS = [
    # "Writing into an expand'ed tensor raises ... for every in-place op (PyTorch allows a few)"
    "more than one element of the written-to tensor refers to a single memory location",
]


def compare_errors(ep, et):
    """Both, one or neither raised: the error-parity rule."""
    if ep is not None and et is None and any(d in str(ep) for d in DOCUMENTED_ERRORS):
        raise _Documented()
    if et is not None and ep is None:
        raise _Found("no_error", f"pedatorch succeeded, torch raised {short(et)}")
    if ep is not None and et is None:
        raise _Found("pt_raises", f"pedatorch raised {short(ep)}")
    if ep is not None and builtin_class(ep) != builtin_class(et):
        raise _Found("error_class", f"pedatorch raised {short(ep)}\n  torch raised {short(et)}")


# --------------------------------------------------------------------------- the runner

class Run:
    """One program on both libraries: namespaces, which values are bitwise equal and which
    are 'tainted' (downstream of a discontinuous op whose inputs differed by rounding)."""

    def __init__(self, program):
        self.program = program
        self.nt = new_namespace("torch")
        self.np = new_namespace("pedatorch")
        self.tainted = set()

    def names(self):
        return [n for n in self.nt if n[0] in "xy" and n[1:].isdigit()]

    def first_dtype(self, step):
        for a in step.operands:
            if isinstance(a, str) and is_tensor(self.nt.get(a)):
                return dtype_name(self.nt[a])
        return type(step.operands[0]).__name__ if step.operands else "-"

    def exact(self, name):
        return name not in self.tainted and bitwise_equal(self.np.get(name), self.nt.get(name))

    def forward(self):
        """Inputs then steps; returns a Mismatch or None; sets ``self.completed``."""
        from .ops import OPS
        prog = self.program
        self.completed = False
        for i, inp in enumerate(prog.inputs):
            for line in input_lines(inp, f"x{i}"):
                et, ep = _run(line, self.nt), _run(line, self.np)
                if et is not None:
                    raise RuntimeError(f"torch could not make input x{i}: {et}")
                if ep is not None:
                    return Mismatch(-1, "<input>", "pt_raises", inp.dtype, f"{line}\n  {short(ep)}")
                try:
                    compare_result(self.np[f"x{i}"], self.nt[f"x{i}"], strides=True, where=f"x{i}: ")
                except _Found as f:
                    return Mismatch(-1, "<input>", f.kind, inp.dtype, f.detail)
        for k, step in enumerate(prog.steps):
            op = OPS[step.op]
            label = step.params.get("label", step.op)   # a hand-written line is named by its case
            line = prog.step_line(k)
            dtype = self.first_dtype(step)
            inexact = [n for n in step.names() if not self.exact(n)]
            skip_values = any(n in self.tainted for n in step.names()) or (inexact and not op.smooth)
            et, ep = _run(line, self.nt), _run(line, self.np)
            try:
                compare_errors(ep, et)
                if et is not None:
                    return None        # both raised the same class: the program ends here
                y = f"y{k}"
                # tolerances of the least precise input; when an input already differs by rounding,
                # of the least precise value so far (its error may come from there)
                pool = self.names() if inexact else step.names()
                tol_dtype = loosest([dtype_name(v) for n in pool for v in _tensors(self.nt.get(n))])
                compare_result(self.np[y], self.nt[y], values=not skip_values, strides=op.strides,
                               where="" if not op.inplace else f"{y}: ", tol_dtype=tol_dtype,
                               grad_fn=op.check_grad_fn)
                if skip_values:
                    self.tainted.add(y)
                if op.inplace:        # the write may show through other views: compare every value
                    for n in self.names():
                        if n in self.tainted or (skip_values and n != y):
                            self.tainted.add(n)
                            continue
                        compare_result(self.np[n], self.nt[n], values=True, where=f"{n} (after the write): ",
                                       tol_dtype=tol_dtype)
            except _Documented:
                return None
            except _Found as f:
                return Mismatch(k, label, f.kind, dtype, f.detail)
        self.completed = True
        return None

    # ----------------------------------------------------------------------- gradients
    def grad_targets(self, with_names=False):
        """(outputs, leaves) as (pedatorch, torch) pairs: every float output value that
        requires grad (tuple results included, each tensor once), every input leaf that
        requires grad. ``with_names``: also the outputs' source names (``y3``, ``y4[0]``)."""
        outs, names, seen = [], [], set()
        for n in self.names():
            if n[0] != "y":
                continue
            vt, vp = self.nt[n], self.np[n]
            if isinstance(vt, (tuple, list)):
                pairs = [(f"{n}[{i}]", t, p) for i, (t, p) in enumerate(zip(vt, vp))]
            else:
                pairs = [(n, vt, vp)]
            for name, t, p in pairs:
                if is_tensor(t) and t.requires_grad and t.dtype.is_floating_point and id(t) not in seen:
                    seen.add(id(t))
                    outs.append((p, t))
                    names.append(name)
        leaves = [(self.np[f"x{i}"], self.nt[f"x{i}"]) for i, inp in enumerate(self.program.inputs)
                  if inp.requires_grad]
        return (outs, leaves, names) if with_names else (outs, leaves)

    def gradients(self):
        """The gradient stage; returns (kind, detail) or None."""
        outs, leaves = self.grad_targets()
        if not outs or not leaves:
            return None
        rng = np.random.default_rng(self.program.seed + 7)
        weights = [np.round(rng.standard_normal(tuple(t.shape)), 2) for _, t in outs]
        values = not self.tainted
        self.loosest_dtype = loosest([dtype_name(v) for n in self.names() for v in _tensors(self.nt[n])])
        try:
            return self._gradients(outs, leaves, weights, values)
        except _Documented:
            return None
        except _Found as f:
            return f.kind, f.detail

    def _gradients(self, outs, leaves, weights, values):
        libs = {}
        for side, ns, idx in (("p", self.np, 0), ("t", self.nt, 1)):
            lib = ns["torch"]
            o = [pair[idx] for pair in outs]
            x = [pair[idx] for pair in leaves]
            w = [lib.tensor(wi, dtype=oi.dtype) for wi, oi in zip(weights, o)]
            libs[side] = (lib, o, x, w)

        def stage(fn):
            rp, ep, rt, et = None, None, None, None
            try:
                rp = fn(*libs["p"])
            except Exception as e:  # noqa: BLE001
                ep = e
            try:
                rt = fn(*libs["t"])
            except Exception as e:  # noqa: BLE001
                et = e
            return rp, ep, rt, et

        def loss(lib, o, w):
            total = None
            for oi, wi in zip(o, w):
                term = (oi * wi).sum()
                total = term if total is None else total + term
            return total

        def compare_grads(gp, gt, what, none_is_zero=False):
            """Gradients: None-ness, dtype, shape, values. Not their grad_fn: pedatorch writes
            backward formulas with Tensor ops, so a create_graph gradient has other nodes."""
            for i, (a, b) in enumerate(zip(gp, gt)):
                if none_is_zero and (a is None) != (b is None):
                    x = libs["p"][2][i] if a is None else libs["t"][2][i]
                    zero = x.new_zeros(x.shape)
                    a, b = (zero, b) if a is None else (a, zero)
                if (a is None) != (b is None):
                    raise _Found(f"{what}_none", f"{what} of leaf {i}: {'None' if a is None else 'tensor'} vs "
                                                 f"{'None' if b is None else 'tensor'}")
                if b is not None:
                    try:
                        compare_tensor(a, b, values=values, where=f"{what} of leaf {i}: ", tol=GRAD_TOL,
                                       graph=False, tol_dtype=self.loosest_dtype)
                    except _Found as f:
                        raise _Found(f"{what}_{f.kind}", f.detail)

        # 1. autograd.grad(create_graph=True)
        def first(lib, o, x, w):
            return lib.autograd.grad(loss(lib, o, w), x, create_graph=True, allow_unused=True)
        gp, ep, gt, et = stage(first)
        self._errors(ep, et, "grad")
        if et is not None:
            return None
        compare_grads(gp, gt, "grad")

        # 2. backward() into .grad
        def accumulate(lib, o, x, w):
            loss(lib, o, w).backward(retain_graph=True)
            return [xi.grad for xi in x]
        gp2, ep, gt2, et = stage(accumulate)
        self._errors(ep, et, "backward")
        if et is None:
            compare_grads(gp2, gt2, ".grad")

        # 3. second order: backward() of a weighted sum of the create_graph gradients. Compared
        # as mathematics: a gradient that does not require grad (a constant) counts as zeros, since
        # which gradients stay attached to the graph depends on how the backward is written.
        rng = np.random.default_rng(self.program.seed + 11)
        v = [np.round(rng.standard_normal(tuple(x.shape)), 2) for _, x in leaves]

        def second(lib, o, x, w):
            grads = gp if lib is libs["p"][0] else gt
            for xi in x:
                xi.grad = None
            total = None
            for i, g in enumerate(grads):
                if g is not None and g.requires_grad:
                    term = (g * lib.tensor(v[i], dtype=g.dtype)).sum()
                    total = term if total is None else total + term
            if total is not None:
                total.backward()
            return [xi.grad for xi in x]
        gp3, ep, gt3, et = stage(second)
        if et is not None and "not implemented" in str(et):
            return None     # PyTorch has no double backward here; pedatorch may
        self._errors(ep, et, "grad2")
        if et is None:
            compare_grads(gp3, gt3, "grad2", none_is_zero=True)
        return None

    @staticmethod
    def _errors(ep, et, what):
        try:
            compare_errors(ep, et)
        except _Found as f:
            raise _Found(f"{what}_{f.kind}", f.detail)


def check(program, grads=True, localize=True):
    """The first Mismatch of ``program`` (or None)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        run = Run(program)
        m = run.forward()
        if m is not None or not grads or not run.completed:
            return m
        found = run.gradients()
        if found is None:
            return None
        kind, detail = found
        k = blame(program, kind) if localize else len(program.steps) - 1
        step = program.steps[k] if program.steps else None
        return Mismatch(len(program.steps) + k, step.op if step else "<input>", kind,
                        run.first_dtype(step) if step else "-", detail)


def blame(program, kind):
    """The step whose prefix first shows a gradient mismatch of ``kind`` (the op to blame)."""
    for k in range(1, len(program.steps)):
        prefix = Program(program.seed, program.inputs, program.steps[:k])
        m = check(prefix, localize=False)
        if m is not None and m.kind == kind:
            return k - 1
    return len(program.steps) - 1
