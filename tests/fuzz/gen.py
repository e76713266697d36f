"""The program generator: ``generate(seed)`` -> a reproducible random Program.

It builds the program step by step and runs each candidate step on real PyTorch
right away, so that the next step can look at real shapes and dtypes (a matmul
partner with the right inner size, a valid ``dim``). When PyTorch raises, the step
is usually thrown away and another one drawn; sometimes it is kept as the
program's last step, so that error parity is tested too.
"""
import warnings

import numpy as np

from .program import DTYPES, FLOATS, INTS, Input, Program, Step, dt
from .execute import new_namespace, run_line, input_lines

MAX_NUMEL = 4096


def round_to(data, dtype):
    """``data`` (float64) rounded to ``dtype``'s values, kept as float64."""
    if dtype == "bfloat16":
        import ml_dtypes
        return data.astype(ml_dtypes.bfloat16).astype(np.float64)
    return data.astype(dtype).astype(np.float64)


def make_data(rng, shape, dtype, special=False):
    """Values for an input: normal floats (sometimes exact small values, for ties and
    boundaries; with ``special`` also 0, -0, inf, nan), small ints, random bools."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in INTS:
        lo, hi = (0, 10) if dtype == "uint8" else (-4, 5)
        if rng.random() < 0.05:  # near the type's limits: overflow and wrap-around
            info = np.iinfo(dtype)
            lo, hi = max(info.min, -300), min(info.max, 300)
            lo, hi = (info.max - 3, info.max + 1) if rng.random() < 0.5 else (lo, hi)
        return rng.integers(lo, hi, shape).astype(np.int64)
    r = rng.random()
    if r < 0.12:
        data = rng.choice([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0], shape)
    else:
        data = rng.standard_normal(shape) * (3.0 if r > 0.9 else 1.0)
    if special and data.size and rng.random() < 0.5:
        flat = data.reshape(-1)
        flat[rng.integers(0, flat.size)] = rng.choice([0.0, -0.0, np.inf, -np.inf, np.nan])
    return round_to(np.asarray(data, dtype=np.float64), dtype)


class Gen:
    """What an op's ``make`` sees while a program is generated: the random generator,
    the PyTorch values made so far, and ways to add inputs and pick parameters."""

    def __init__(self, rng, special=False):
        self.rng = rng
        self.inputs = []
        self.special = special
        self.ns = new_namespace("torch")
        self.force_dtype = None   # sweeps: every new operand of this dtype
        self.force_grad = None    # sweeps: every new float input requires grad (or not)

    # -- values ------------------------------------------------------------
    def val(self, name):
        return self.ns[name]

    def fresh(self, shape, dtype, requires_grad=None, data=None, layout=None):
        """A new input of ``shape``/``dtype``; returns its name. Float inputs usually require
        grad; ``layout`` (None: random) may make it a transposed/sliced/expanded view."""
        rng = self.rng
        shape = tuple(int(s) for s in shape)
        if layout is None:
            layout = self.random_layout(shape)
        base_shape, layout_src = layout_base(shape, layout)
        if data is None:
            data = make_data(rng, base_shape, dtype, self.special)
        else:
            data = np.asarray(data).reshape(base_shape)
        if requires_grad is None:
            requires_grad = self.force_grad if self.force_grad is not None else dtype in FLOATS and rng.random() < 0.65
        inp = Input(data=data, dtype=dtype, layout=layout_src, requires_grad=bool(requires_grad and dtype in FLOATS))
        name = f"x{len(self.inputs)}"
        self.inputs.append(inp)
        for line in input_lines(inp, name):
            run_line(line, self.ns)
        return name

    def random_layout(self, shape):
        r = self.rng.random()
        if not shape or 0 in shape or r < 0.55:
            return "contiguous"
        if r < 0.72 and len(shape) >= 2:
            return "transposed"
        if r < 0.82:
            return "strided"
        if r < 0.9:
            return "offset"
        return "expanded" if any(s > 1 for s in shape) else "strided"

    # -- parameters ----------------------------------------------------------
    def choice(self, seq, p=None):
        return seq[int(self.rng.choice(len(seq), p=p))]

    def coin(self, p=0.5):
        return bool(self.rng.random() < p)

    def int(self, lo, hi):
        """An int in [lo, hi]."""
        return int(self.rng.integers(lo, hi + 1))

    def dim(self, x, bad=0.03):
        """A dim of ``x`` (negative or not); rarely an out-of-range one."""
        n = max(self.val(x).dim(), 1)
        if self.coin(bad):
            return self.choice([n, -n - 1])
        return self.int(-n, n - 1)

    def dims(self, x):
        """A tuple of distinct dims of ``x`` (maybe empty)."""
        n = self.val(x).dim()
        k = self.int(0, n) if n else 0
        return tuple(int(d) - (n if self.coin(0.3) else 0) for d in self.rng.permutation(n)[:k]) if n else ()

    def shape_of(self, x):
        return tuple(self.val(x).shape)

    def dtype_of(self, x):
        v = self.val(x)
        return str(v.dtype).replace("torch.", "") if hasattr(v, "dtype") else type(v).__name__

    def bshape(self, shape):
        """A shape that broadcasts with ``shape``: leading dims dropped, some set to 1, rarely
        one more leading dim (and rarely a mismatch)."""
        s = list(shape)
        if s and self.coin(0.3):
            s = s[self.int(0, len(s)):]
        s = [1 if (n > 1 and self.coin(0.25)) else n for n in s]
        if self.coin(0.1):
            s = [self.int(1, 2)] + s
        if s and self.coin(0.03):
            s[-1] += 1
        return tuple(s)

    def scalar(self, kind=None):
        """A Python number: int, float or bool."""
        kind = kind or self.choice(["int", "float", "bool"], p=[0.4, 0.5, 0.1])
        if kind == "int":
            return self.int(-3, 3)
        if kind == "bool":
            return self.coin()
        return self.choice([0.5, -1.5, 2.0, 0.25, 3.0, -0.75])

    def other(self, x, dtype=None, scalar_p=0.25):
        """A second operand for a binary elementwise op with ``x``: a Python scalar, an existing
        value, or a new input of a broadcastable shape (usually x's dtype)."""
        if self.coin(scalar_p):
            return self.scalar()
        if self.coin(0.25):
            same = [n for n, v in self.ns.items() if n[0] in "xy" and n != x and hasattr(v, "shape")
                    and tuple(v.shape) == self.shape_of(x)]
            if same:
                return self.choice(same)
        if dtype is None:
            dtype = self.force_dtype or (self.dtype_of(x) if self.coin(0.75) else self.choice(DTYPES))
        shape = self.bshape(self.shape_of(x))
        if self.coin(0.1):
            shape = ()
        return self.fresh(shape, dtype)


def layout_base(shape, layout):
    """The shape to allocate and the source that views it as ``shape`` in ``layout``."""
    if layout == "contiguous" or not shape:
        return shape, ""
    if layout == "transposed":
        base = shape[:-2] + (shape[-1], shape[-2])
        return base, ".transpose(-2, -1)"
    if layout == "strided":       # every other element of the last dim
        return shape[:-1] + (shape[-1] * 2,), "[..., ::2]"
    if layout == "offset":        # skip a first row
        return (shape[0] + 1,) + shape[1:], "[1:]"
    if layout == "expanded":      # a dim of size 1 expanded
        d = max(i for i, s in enumerate(shape) if s > 1)
        base = shape[:d] + (1,) + shape[d + 1:]
        return base, f".expand{tuple(shape)!r}"
    raise ValueError(layout)


def random_shape(g):
    nd = g.choice([0, 1, 2, 3], p=[0.15, 0.3, 0.35, 0.2])
    return tuple(g.choice([0, 1, 2, 3, 4], p=[0.04, 0.2, 0.3, 0.3, 0.16]) for _ in range(nd))


def tensor_names(g):
    return [n for n, v in g.ns.items() if n[0] in "xy" and n[1:].isdigit() and _is_tensor(v)]


def _is_tensor(v):
    return hasattr(v, "shape") and hasattr(v, "dtype") and hasattr(v, "grad_fn")


def generate(seed, max_steps=6, ops=None, keep_error_p=0.2, special=None):
    """The program of ``seed``: 1-3 inputs of broadcastable shapes, then 1-``max_steps``
    steps drawn from ``ops`` (default: the whole table), each checked on PyTorch."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return _generate(seed, max_steps, ops, keep_error_p, special)


def _generate(seed, max_steps, ops, keep_error_p, special):
    from .ops import OPS
    rng = np.random.default_rng(seed)
    if special is None:
        special = rng.random() < 0.05
    g = Gen(rng, special=special)
    names = list(ops) if ops is not None else list(OPS)
    names = [n for n in names if OPS[n].weight > 0]
    weights = np.array([OPS[n].weight for n in names], dtype=float)
    weights /= weights.sum()

    shape = random_shape(g)
    dtype = g.choice(DTYPES, p=[0.3, 0.2, 0.07, 0.07, 0.04, 0.04, 0.05, 0.12, 0.04, 0.07])
    g.fresh(shape, dtype)
    for _ in range(g.int(0, 2)):
        g.fresh(g.bshape(shape), dtype if g.coin(0.7) else g.choice(DTYPES))

    steps = []
    n_steps = g.int(1, max_steps)
    while len(steps) < n_steps:
        for _attempt in range(25):
            op = OPS[names[int(rng.choice(len(names), p=weights))]]
            cands = tensor_names(g)
            fitting = [n for n in cands if op.accepts(g.dtype_of(n), g.val(n).dim())]
            pool = fitting if fitting and g.coin(0.93) else cands
            recent = [n for n in pool if n[0] == "y"]
            x = recent[-1] if recent and g.coin(0.5 if not op.inplace else 0.8) else g.choice(pool)
            n_inputs = len(g.inputs)
            try:
                operands, params = op.make(g, x)
            except Exception:  # _Skip, or x does not fit the op (an IndexError on its shape ...)
                del g.inputs[n_inputs:]
                continue
            if op.inplace and _self_overlapping(g.val(operands[0])):
                # writing in place into a view whose elements overlap (unfold with step < size): PyTorch's
                # result depends on its loop order (docs/architecture.md), so there is nothing to compare with
                del g.inputs[n_inputs:]
                continue
            forms = op.forms_for(len(operands))
            step = Step(op.name, operands, params, form=forms[g.int(0, len(forms) - 1)])
            prog = Program(seed, g.inputs, steps + [step])
            try:
                for line in prog.step_line(len(steps)).split("\n"):
                    run_line(line, g.ns)
            except Exception:
                if g.coin(keep_error_p):
                    steps.append(step)
                    return Program(seed, g.inputs, steps)
                del g.inputs[n_inputs:]
                g.ns.pop(f"y{len(steps)}", None)
                continue
            out = g.ns.get(f"y{len(steps)}")
            if _too_big(out):
                return Program(seed, g.inputs, steps) if steps else generate(seed + 10**9, max_steps, ops)
            steps.append(step)
            break
        else:
            break
    return Program(seed, g.inputs, steps)


def _self_overlapping(t):
    """A tensor some of whose elements share memory, other than by a 0 stride (an expanded tensor, whose
    in-place writes PyTorch refuses with an error both libraries raise)."""
    import torch
    return (isinstance(t, torch.Tensor) and torch._debug_has_internal_overlap(t) != 0
            and all(st != 0 or n <= 1 for st, n in zip(t.stride(), t.shape)))


class _Skip(Exception):
    """Raised by an op's ``make`` when it cannot use the chosen operand; another is drawn."""


def skip():
    raise _Skip()


def _too_big(out):
    if _is_tensor(out):
        return out.numel() > MAX_NUMEL
    if isinstance(out, (tuple, list)):
        return any(_too_big(o) for o in out)
    return False
