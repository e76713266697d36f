"""Run a compat program under PyTorch and under pedatorch, and compare what they print.

    python tests/compat/_compare.py [PROGRAM.py ...]      # all programs when none are named

Comparison, line by line (after replacing memory addresses ``at 0x...`` by ``at 0x…``):

- identical lines match **exactly**;
- otherwise a line matches **within tolerance** when it splits into the same text and the same count of
  numbers, the text between the numbers is equal up to whitespace (a tensor's column width follows its
  widest number: ``-0.0000`` vs ``0.0000`` re-pads a whole column), and each pair of numbers agrees to
  ``|a - b| <= rtol * max(|a|, |b|) + one unit in the last printed digit`` (``0.12345`` printed as
  ``0.1234`` by one library and ``0.1235`` by the other is float32 summation order, not a bug).

Integers (no ``.`` or exponent) must be equal: counts, shapes, indices, labels and parameter counts are
exact in both libraries.
"""
import os
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
LAUNCH = HERE / "_launch.py"
ROOT = HERE.parents[1]  # the checkout: its pedatorch is the one under test

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
# a number as Python, numpy and tensor printing write it: -1, 2., 0.1234, 1.5e-03, 1e+08, nan, inf
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w])|(?<![\w])-?(?:nan|inf)(?![\w])")


def programs():
    """The compat programs, in order: tests/compat/NN_*.py."""
    return sorted(p.name for p in HERE.glob("[0-9][0-9]_*.py"))


def start(lib, name):
    """Start PROGRAM with ``torch`` bound to ``lib``, without waiting (the two libraries' runs go side by
    side).  One thread each: the machine is shared, and pedatorch is single-threaded anyway.  The checkout
    these tests live in goes first on the path: the program runs from tests/compat/, where ``import
    pedatorch`` would otherwise find whichever copy is installed (another worktree's, say)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0", PYTHONPATH=path)
    return subprocess.Popen([sys.executable, str(LAUNCH), lib, str(HERE / name)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=str(HERE))


def finish(proc, timeout=120):
    """``(returncode, stdout, stderr)`` of a started run, memory addresses normalised."""
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, _ADDRESS.sub(" at 0x…", out), err


def _decimals(token):
    """Digits after the point of a printed number (a unit in its last place is 10**-decimals)."""
    mantissa, _, exponent = token.lower().partition("e")
    places = len(mantissa.partition(".")[2]) if "." in mantissa else 0
    return places - (int(exponent) if exponent else 0)


def _is_integer(token):
    return re.fullmatch(r"[-+]?\d+", token) is not None


def numbers_close(a, b, rtol):
    """Two printed numbers (strings) agree: integers exactly, floats to rtol + a unit in the last digit."""
    if _is_integer(a) or _is_integer(b):
        return a == b
    x, y = float(a), float(b)
    if x != x or y != y:
        return x != x and y != y
    if x == y:
        return True
    if abs(x) == float("inf") or abs(y) == float("inf"):
        return False
    ulp = 10.0 ** -min(_decimals(a), _decimals(b))
    return abs(x - y) <= rtol * max(abs(x), abs(y)) + ulp * (1 + 1e-9)


def line_matches(expected, actual, rtol):
    """"exact", "close" or None (no match) for one line."""
    if expected == actual:
        return "exact"
    if rtol is None:
        return None
    e_nums, a_nums = _NUMBER.findall(expected), _NUMBER.findall(actual)
    e_text, a_text = _NUMBER.split(expected), _NUMBER.split(actual)
    if len(e_nums) != len(a_nums):
        return None
    if ["".join(t.split()) for t in e_text] != ["".join(t.split()) for t in a_text]:
        return None
    if all(numbers_close(x, y, rtol) for x, y in zip(e_nums, a_nums)):
        return "close"
    return None


def compare(expected, actual, rtol=1e-4):
    """``("exact" | "close", [])`` or ``(None, [report lines])`` for two program outputs."""
    e_lines, a_lines = expected.splitlines(), actual.splitlines()
    problems, verdict = [], "exact"
    for i in range(max(len(e_lines), len(a_lines))):
        e = e_lines[i] if i < len(e_lines) else "<no line>"
        a = a_lines[i] if i < len(a_lines) else "<no line>"
        result = line_matches(e, a, rtol) if i < len(e_lines) and i < len(a_lines) else None
        if result is None:
            problems += [f"line {i + 1}:", f"  torch:     {e}", f"  pedatorch: {a}"]
        elif result == "close":
            verdict = "close"
    return (None if problems else verdict), problems


def main(names):
    counts = {}
    for name in names or programs():
        procs = start("torch", name), start("pedatorch", name)
        (rc_t, out_t, err_t), (rc_p, out_p, err_p) = (finish(p) for p in procs)
        if rc_t != 0:
            verdict, problems = "torch-failed", err_t.splitlines()[-5:]
        else:
            verdict, problems = compare(out_t, out_p)
            if rc_p != 0:
                verdict, problems = None, problems[:12] + err_p.splitlines()[-8:]
        counts[verdict] = counts.get(verdict, 0) + 1
        print(f"{name:32s} {verdict or 'DIFFERENT'}")
        for line in problems[:24]:
            print("    " + line)
    print(counts)


if __name__ == "__main__":
    main(sys.argv[1:])
