"""A standalone repro file for a mismatch: the program's source, run once with pedatorch
and once with PyTorch, printing both results (and, for gradient mismatches, both
gradients)."""
import textwrap
import warnings

import numpy as np

from .compare import Run
from .program import lit_nested

HEADER = '''\
"""pedatorch vs PyTorch: {signature}

{detail}

Program seed {seed}; regenerate with: python -m tests.fuzz --replay {seed}
"""
import numpy as np

import pedatorch
import torch as real_torch


def show(name, v):
    if hasattr(v, "grad_fn") and hasattr(v, "dtype"):
        print(f"  {{name}} = {{v!r}}")
        print(f"      dtype={{v.dtype}} shape={{tuple(v.shape)}} stride={{v.stride()}} "
              f"requires_grad={{v.requires_grad}} grad_fn={{type(v.grad_fn).__name__ if v.grad_fn else None}}")
    else:
        print(f"  {{name}} = {{v!r}}")

'''

FOOTER = '''

for torch in (pedatorch, real_torch):
    print(f"=== {torch.__name__}")
    try:
        run(torch)
    except Exception as e:
        print(f"  raised {type(e).__name__}: {e}")
'''


def _weights_src(arrays):
    return "[" + ", ".join(f"np.array({lit_nested(a.tolist())})" if a.ndim else f"np.array({float(a)!r})"
                           for a in arrays) + "]"


def repro_source(prog, mismatch):
    lines = ["F = torch.nn.functional"] + prog.source().split("\n")
    last = f"y{len(prog.steps) - 1}" if prog.steps else "x0"
    if mismatch.kind.startswith(("grad", "backward", ".grad")):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            run = Run(prog)
            run.forward()
        outs, leaves, names = run.grad_targets(with_names=True)
        leaf_names = [f"x{i}" for i, inp in enumerate(prog.inputs) if inp.requires_grad]
        rng = np.random.default_rng(prog.seed + 7)
        weights = [np.round(rng.standard_normal(tuple(t.shape)), 2) for _, t in outs]
        rng2 = np.random.default_rng(prog.seed + 11)
        lines += [
            f"outs = [{', '.join(names)}]",
            f"leaves = [{', '.join(leaf_names)}]",
            f"weights = {_weights_src(weights)}",
            "loss = sum((o * torch.tensor(w, dtype=o.dtype)).sum() for o, w in zip(outs, weights))",
            "grads = torch.autograd.grad(loss, leaves, create_graph=True, allow_unused=True)",
            "for i, g in enumerate(grads):",
            "    show(f'grad x{i}', g)",
        ]
        if mismatch.kind.startswith((".grad", "backward")):
            lines += ["loss.backward()", "for i, x in enumerate(leaves):", "    show(f'x{i}.grad', x.grad)"]
        if mismatch.kind.startswith("grad2"):
            vs = [np.round(rng2.standard_normal(tuple(t.shape)), 2) for _, t in leaves]
            lines += [
                f"vs = {_weights_src(vs)}",
                "for x in leaves:",
                "    x.grad = None",
                "s = sum((g * torch.tensor(v, dtype=g.dtype)).sum() for g, v in zip(grads, vs)"
                " if g is not None and g.requires_grad)",
                "if isinstance(s, int):",
                "    print('  no gradient requires grad: every second-order gradient is zero')",
                "else:",
                "    s.backward()",
                "for i, x in enumerate(leaves):",
                "    show(f'second-order x{i}.grad', x.grad)",
            ]
    else:
        lines += [f"show({last!r}, {last})"]
        if "after the write" in mismatch.detail:
            name = mismatch.detail.split(" ")[0]
            lines += [f"show({name!r}, {name})"]
    body = textwrap.indent("\n".join(lines), "    ")
    head = HEADER.format(signature=mismatch.signature, detail=mismatch.detail.replace('"""', "'''"), seed=prog.seed)
    return head + "\ndef run(torch):\n" + body + "\n" + FOOTER
