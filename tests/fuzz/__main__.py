"""The fuzzing campaign: ``python -m tests.fuzz --programs N --seed S --out DIR``.

Runs N random programs (program i has seed S + i), groups the mismatches by signature
(op | kind | dtype), minimizes the first program of each signature and writes it to
DIR as a standalone repro (``<signature>.py``), plus ``summary.md``. ``--sweeps`` also
runs the deterministic sweeps; ``--replay SEED`` checks one program and prints it.
"""
import argparse
import collections
import os
import re
import sys
import time
import traceback

from .compare import check
from .gen import generate
from .known import known_reason
from .minimize import minimize
from .repro import repro_source


def campaign(n, seed, out=None, minimize_budget=300, verbose=True, sweeps=False, max_steps=6):
    found = {}                      # signature -> (program, mismatch)
    counts = collections.Counter()
    harness = []
    t0 = time.time()
    for i in range(n):
        s = seed + i
        try:
            prog = generate(s, max_steps=max_steps)
            m = check(prog)
        except Exception:  # noqa: BLE001 - a bug in the fuzzer itself: report, go on
            harness.append((s, traceback.format_exc()))
            continue
        if m is not None:
            counts[m.signature] += 1
            if m.signature not in found:
                found[m.signature] = (prog, m)
                if verbose:
                    print(f"[{i}] new: {m}".split("\n")[0], flush=True)
        if verbose and (i + 1) % 500 == 0:
            print(f"... {i + 1} programs, {len(found)} signatures, {time.time() - t0:.0f}s", flush=True)
    if sweeps:
        from .sweeps import all_sweeps
        for case, m in all_sweeps():
            counts[m.signature] += 1
            if m.signature not in found:
                found[m.signature] = (case, m)
                if verbose:
                    print(f"[sweep] new: {m}".split("\n")[0], flush=True)
    if out:
        write_repros(found, counts, out, minimize_budget, verbose)
    if verbose:
        print(f"{n} programs in {time.time() - t0:.0f}s: {sum(counts.values())} mismatches, "
              f"{len(found)} signatures ({sum(1 for s in found if known_reason(s))} known); "
              f"{len(harness)} fuzzer errors")
        for s, tb in harness[:3]:
            print(f"fuzzer error at seed {s}:\n{tb}")
    return found, counts, harness


def safe_name(signature):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", signature).strip("_")


def write_repros(found, counts, out, budget, verbose=True):
    os.makedirs(out, exist_ok=True)
    rows = []
    for sig in sorted(found):
        prog, m = found[sig]
        small = minimize(prog, sig, budget=budget)
        m2 = check(small) or m
        path = os.path.join(out, safe_name(sig) + ".py")
        with open(path, "w") as f:
            f.write(repro_source(small, m2))
        reason = known_reason(sig)
        op, kind, dtype = sig.split("|")
        rows.append(f"| `{op}` | {kind} | {dtype} | {counts[sig]} | {prog.seed} | {safe_name(sig)}.py | "
                    f"{(reason or '').replace('|', '/')} | {m2.detail.splitlines()[0][:120].replace('|', '/')} |")
        if verbose:
            print(f"wrote {path} ({len(prog.steps)} -> {len(small.steps)} steps)", flush=True)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("| op | kind | dtype | count | seed | repro | known | first difference |\n"
                "|---|---|---|---|---|---|---|---|\n")
        f.write("\n".join(rows) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--programs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="fuzz-out")
    ap.add_argument("--max-steps", type=int, default=6)
    ap.add_argument("--budget", type=int, default=300, help="checks per minimization")
    ap.add_argument("--sweeps", action="store_true", help="also run the deterministic sweeps")
    ap.add_argument("--replay", type=int, help="print program SEED, its mismatch and its minimized repro")
    args = ap.parse_args(argv)
    if args.replay is not None:
        prog = generate(args.replay, max_steps=args.max_steps)
        print(prog.source())
        m = check(prog)
        print("\n#", m or "no mismatch")
        if m:
            print(repro_source(minimize(prog, m.signature, budget=args.budget), m))
        return 0
    found, _, harness = campaign(args.programs, args.seed, args.out, args.budget, sweeps=args.sweeps,
                                 max_steps=args.max_steps)
    return 1 if harness else 0


if __name__ == "__main__":
    sys.exit(main())
