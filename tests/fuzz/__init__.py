"""A differential fuzzer: random PyTorch programs run on pedatorch and on real PyTorch.

    program.py   a program is data (inputs + steps) that renders to Python source
    ops.py       the op table: source templates + how to pick operands and parameters
    gen.py       generate(seed): a random program, each step checked on PyTorch as it is drawn
    execute.py   run a line of source with ``torch`` bound to either library
    compare.py   check(program): lockstep run, compare every step, then the gradients
    minimize.py  shrink a program while its mismatch signature persists
    repro.py     a standalone .py that prints both libraries' results
    sweeps.py    deterministic sweeps: double backward, every dtype, result types, bad inputs
    known.py     the known mismatches (xfailed by tests/test_fuzz.py; to shrink to zero)
    __main__.py  the campaign CLI: python -m tests.fuzz --programs N --seed S --out DIR

Quick look at one program: ``python -m tests.fuzz --replay 42``.
"""
