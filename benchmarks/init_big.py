#!/usr/bin/env python3
"""Initialise VGG-16's biggest weight (4096 x 25088 float32) with one library, in its own process:

    .venv/bin/python benchmarks/init_big.py pedatorch
    .venv/bin/python benchmarks/init_big.py torch

Prints the seconds of each call (the first includes touching the fresh tensor's memory) and the next
``rand(3)``, which must be the same in both libraries (the generator moved exactly as far).
"""
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

which = sys.argv[1] if len(sys.argv) > 1 else "pedatorch"
if which == "torch":
    import torch as lib
    lib.set_num_threads(1)
else:
    import pedatorch as lib

lib.manual_seed(0)
w = lib.empty(4096, 25088)
for name, init in (("normal_", lambda: lib.nn.init.normal_(w)), ("normal_", lambda: lib.nn.init.normal_(w)),
                   ("kaiming_uniform_", lambda: lib.nn.init.kaiming_uniform_(w)),
                   ("kaiming_uniform_", lambda: lib.nn.init.kaiming_uniform_(w))):
    t0 = time.perf_counter()
    init()
    print(f"{which:9s} {name:17s} {time.perf_counter() - t0:6.2f} s", flush=True)
print(which, "next rand(3):", [round(float(v), 6) for v in lib.rand(3)])
