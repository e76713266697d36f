"""Shrinking a program while its mismatch persists (same signature).

Greedy passes, repeated until nothing changes: drop steps (with the steps that use
their result), drop unused inputs, make inputs contiguous, stop requiring grad,
shrink input shapes, simplify dtypes and values.
"""
import copy

import numpy as np

from .compare import check
from .gen import round_to
from .program import FLOATS, Input, Program, Step


def _rename(step, mapping):
    """``step`` with operand names replaced by ``mapping`` (old name -> new name)."""
    ops = [mapping.get(a, a) if isinstance(a, str) else a for a in step.operands]
    return Step(step.op, ops, dict(step.params), step.form)


def drop_steps(prog, k):
    """Without step ``k`` and every later step that uses its result (directly or not)."""
    gone = {f"y{k}"}
    kept = []
    for j, s in enumerate(prog.steps):
        if j == k or any(n in gone for n in s.names()):
            gone.add(f"y{j}")
            continue
        kept.append((j, s))
    mapping = {f"y{j}": f"y{i}" for i, (j, _) in enumerate(kept)}
    return Program(prog.seed, prog.inputs, [_rename(s, mapping) for _, s in kept])


def cut_step(prog, k):
    """Step ``k``'s result (computed by PyTorch) becomes a new input, and step ``k`` goes:
    the later steps read the constant instead. None when the result is not one tensor."""
    from .compare import is_tensor, to_numpy, dtype_name
    from .execute import new_namespace, run_line, input_lines
    ns = new_namespace("torch")
    for i, inp in enumerate(prog.inputs):
        for line in input_lines(inp, f"x{i}"):
            run_line(line, ns)
    for j in range(k + 1):
        for line in prog.step_line(j).split("\n"):
            run_line(line, ns)
    v = ns[f"y{k}"]
    if not is_tensor(v):
        return None
    d = dtype_name(v)
    data = to_numpy(v).astype(bool if d == "bool" else np.float64 if d in FLOATS else np.int64)
    new = Input(data=data, dtype=d, requires_grad=bool(v.requires_grad))
    name = f"x{len(prog.inputs)}"
    steps = [_rename(s, {f"y{k}": name}) for s in prog.steps]
    p = Program(prog.seed, prog.inputs + [new], steps)
    return drop_steps(p, k)     # no later step reads y{k} any more


def drop_unused_inputs(prog):
    used = {n for s in prog.steps for n in s.names()}
    keep = [i for i in range(len(prog.inputs)) if f"x{i}" in used]
    mapping = {f"x{i}": f"x{j}" for j, i in enumerate(keep)}
    return Program(prog.seed, [prog.inputs[i] for i in keep], [_rename(s, mapping) for s in prog.steps])


def realize(inp):
    """The input's values as a contiguous array of its final shape (layout applied)."""
    d = inp.data
    lay = inp.layout
    if lay == ".transpose(-2, -1)":
        return np.swapaxes(d, -1, -2).copy()
    if lay == "[..., ::2]":
        return d[..., ::2].copy()
    if lay == "[1:]":
        return d[1:].copy()
    if lay.startswith(".expand"):
        shape = eval(lay[len(".expand"):])
        return np.broadcast_to(d, shape).copy()
    return d


def _variants(prog):
    """Candidate simplifications, smallest-first in spirit."""
    for k in reversed(range(len(prog.steps))):
        yield drop_steps(prog, k)
    for k in reversed(range(len(prog.steps) - 1)):
        try:
            cut = cut_step(prog, k)
        except Exception:  # noqa: BLE001 - the prefix raises: nothing to cut
            cut = None
        if cut is not None:
            yield cut
    for i, inp in enumerate(prog.inputs):
        def with_input(**changes):
            p = copy.deepcopy(prog)
            for key, v in changes.items():
                setattr(p.inputs[i], key, v)
            return p
        if inp.layout:
            yield with_input(data=realize(inp), layout="")
        if inp.requires_grad:
            yield with_input(requires_grad=False)
        if not inp.layout:
            for d in range(inp.data.ndim):
                n = inp.data.shape[d]
                if n > 1:
                    yield with_input(data=np.take(inp.data, range(n - 1), axis=d))
                    yield with_input(data=np.take(inp.data, [0], axis=d))
        for simpler in ("float32", "float64", "int64"):
            if inp.dtype != simpler and (inp.dtype in FLOATS) == (simpler in FLOATS):
                yield with_input(dtype=simpler, data=round_to(inp.data, simpler) if simpler in FLOATS else inp.data)
        if inp.dtype in FLOATS and inp.data.size:
            rounded = np.round(inp.data.astype(np.float64) * 2) / 2
            if not np.array_equal(rounded, inp.data, equal_nan=True):
                yield with_input(data=round_to(rounded, inp.dtype))


def minimize(prog, signature=None, budget=400):
    """A smaller program with the same mismatch signature (``signature`` defaults to the
    program's own)."""
    if signature is None:
        m = check(prog)
        if m is None:
            return prog
        signature = m.signature
    prog = drop_unused_inputs(prog)
    checks = 0
    changed = True
    while changed and checks < budget:
        changed = False
        for cand in _variants(prog):
            cand = drop_unused_inputs(cand)
            checks += 1
            try:
                m = check(cand)
            except Exception:  # noqa: BLE001 - e.g. torch cannot make a shrunk input
                m = None
            if m is not None and m.signature == signature:
                prog = cand
                changed = True
                break
            if checks >= budget:
                break
    return prog
