#!/usr/bin/env python3
"""Time the same workload on pedatorch and on PyTorch, in one process, interleaved.

    python benchmarks/run.py                 # every workload
    python benchmarks/run.py overhead        # only these
    python benchmarks/run.py --list
    python benchmarks/run.py overhead --rounds 31 --repeat 500

How it measures (benchmarks/README.md says how to read the numbers):

* Both libraries run on one thread: OMP/OPENBLAS/MKL_NUM_THREADS=1 are set before
  numpy or torch is imported, and ``torch.set_num_threads(1)``.
* OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are removed from the environment (they
  make a current numpy pick a slow BLAS kernel). The runner re-executes itself with
  the cleaned environment when it has to. Do this only here, never in tests.
* A workload is a function ``make(lib) -> step``: it builds its inputs with ``lib``
  (the ``pedatorch`` or the ``torch`` module) and returns a callable doing one step.
* After a warm-up, each round times ``repeat`` steps of each library, one library
  after the other, alternating which goes first. The reported time per step is the
  median over the rounds; the ratio is pedatorch's median over torch's.
"""
import os
import sys

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_SLOW_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
_MARK = "_PEDATORCH_BENCH_ENV"


def _ensure_environment():
    """Pin BLAS/OpenMP to one thread and drop the slow-OpenBLAS variables, before numpy loads."""
    wrong = [v for v in _SLOW_VARS if v in os.environ] + [v for v in _THREAD_VARS if os.environ.get(v) != "1"]
    if not wrong:
        return
    env = dict(os.environ)
    for v in _SLOW_VARS:
        env.pop(v, None)
    for v in _THREAD_VARS:
        env[v] = "1"
    if os.environ.get(_MARK) or "numpy" in sys.modules:
        # Already re-executed (or numpy came in early): set them here and carry on.
        os.environ.clear()
        os.environ.update(env)
        return
    env[_MARK] = ",".join(v for v in _SLOW_VARS if v in os.environ) or "-"
    script = os.path.abspath(__file__)
    os.execve(sys.executable, [sys.executable, script] + sys.argv[1:], env)


if __name__ == "__main__":
    _ensure_environment()

import argparse  # noqa: E402
import gc  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)  # benchmark the working tree, installed or not

# --------------------------------------------------------------------------- workloads

WORKLOADS = {}


def workload(fn):
    """Register ``fn(lib) -> step`` under its name."""
    WORKLOADS[fn.__name__] = fn
    return fn


@workload
def overhead(lib):
    """Per-op overhead: 8-element float32 tensors, 4 ops forward, backward into 3 leaves."""
    vals = [0.5, -1.0, 1.5, -2.0, 2.5, -3.0, 3.5, -4.0]
    a = lib.tensor(vals, dtype=lib.float32, requires_grad=True)
    b = lib.tensor(vals[::-1], dtype=lib.float32, requires_grad=True)
    c = lib.tensor([0.25] * 8, dtype=lib.float32, requires_grad=True)

    def step():
        y = (a * b + c).relu().sum()
        y.backward()

    return step


def _train_step(lib, model, make_batch, loss_fn):
    """One SGD training step of ``model`` on a fixed batch: forward, loss, backward, update."""
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = make_batch()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    return step


def _data(lib, shape, classes=None, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    x = lib.tensor(rng.standard_normal(shape).astype(np.float32))
    if classes is None:
        return x
    return x, lib.tensor(rng.integers(0, classes, shape[0]))


@workload
def mlp(lib):
    """MLP 784-256-256-10, batch 128, cross-entropy, SGD with momentum."""
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    return _train_step(lib, model, lambda: _data(lib, (128, 784), 10), nn.CrossEntropyLoss())


@workload
def lenet(lib):
    """LeNet-5 on 1x28x28 inputs, batch 64."""
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))
    return _train_step(lib, model, lambda: _data(lib, (64, 1, 28, 28), 10), nn.CrossEntropyLoss())


@workload
def lstm(lib):
    """LSTM(32 -> 64) over length-35 sequences, batch 16, a linear head on the last step."""
    nn = lib.nn
    lib.manual_seed(0)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(32, 64, batch_first=True)
            self.head = nn.Linear(64, 10)

        def forward(self, x):
            out, _ = self.rnn(x)
            return self.head(out[:, -1])

    return _train_step(lib, Net(), lambda: _data(lib, (16, 35, 32), 10), nn.CrossEntropyLoss())


@workload
def encoder(lib):
    """One TransformerEncoderLayer(d_model=128, nhead=4, ff=512), batch 16 x length 32, MSE loss."""
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.TransformerEncoderLayer(128, 4, dim_feedforward=512, dropout=0.0, batch_first=True)
    return _train_step(lib, model, lambda: (_data(lib, (16, 32, 128)), _data(lib, (16, 32, 128), seed=1)),
                       nn.MSELoss())


@workload
def init_normal(lib):
    """nn.init.normal_ and kaiming_uniform_ of a 1024 x 1024 float32 weight: PyTorch's random streams
    reproduced bit for bit (the float32 Box-Muller replays its FMA arithmetic). Use --repeat 5 or so."""
    lib.manual_seed(0)
    w = lib.empty(1024, 1024)

    def step():
        lib.nn.init.normal_(w, 0.0, 0.01)
        lib.nn.init.kaiming_uniform_(w)
    return step


# --------------------------------------------------------------------------- timing


def _time_block(step, repeat):
    gc.collect()
    t0 = time.perf_counter()
    for _ in range(repeat):
        step()
    return (time.perf_counter() - t0) / repeat


def run_workload(name, libs, rounds, repeat, warmup):
    steps = {lib_name: WORKLOADS[name](lib) for lib_name, lib in libs}
    for step in steps.values():
        for _ in range(warmup):
            step()
    times = {lib_name: [] for lib_name in steps}
    order = list(steps)
    for r in range(rounds):
        for lib_name in (order if r % 2 == 0 else order[::-1]):
            times[lib_name].append(_time_block(steps[lib_name], repeat))
    return times


def _fmt(seconds):
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def _spread(ts):
    """Interquartile range relative to the median, in percent."""
    if len(ts) < 4:
        return "-"
    q = statistics.quantiles(ts, n=4)
    return f"{100 * (q[2] - q[0]) / statistics.median(ts):.0f}%"


def _blas_info(np):
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "threadpoolctl not installed"
    parts = []
    for info in threadpool_info():
        if info.get("user_api") == "blas":
            parts.append(f"{info.get('internal_api')} {info.get('version')} "
                         f"{info.get('architecture', '?')} threads={info.get('num_threads')}")
    return "; ".join(parts) or "no BLAS found"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("workloads", nargs="*", help=f"names among: {', '.join(WORKLOADS)} (default: all)")
    p.add_argument("--rounds", type=int, default=21, help="timed rounds per library (default 21)")
    p.add_argument("--repeat", type=int, default=200, help="steps per timed round (default 200)")
    p.add_argument("--warmup", type=int, default=20, help="untimed steps per library first (default 20)")
    p.add_argument("--no-torch", action="store_true", help="time pedatorch only")
    p.add_argument("--list", action="store_true", help="list the workloads and exit")
    args = p.parse_args(argv)

    if args.list:
        for name, fn in WORKLOADS.items():
            print(f"{name:12s} {(fn.__doc__ or '').strip()}")
        return 0
    names = args.workloads or list(WORKLOADS)
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        p.error(f"unknown workload(s) {', '.join(unknown)}; known: {', '.join(WORKLOADS)}")
    if args.rounds < 1 or args.repeat < 1:
        p.error("--rounds and --repeat must be at least 1")

    import numpy as np
    import pedatorch
    libs = [("pedatorch", pedatorch)]
    torch = None
    if not args.no_torch:
        try:
            import torch
        except ImportError:
            print("torch is not importable: timing pedatorch only (pip install -e '.[oracle]')")
        else:
            torch.set_num_threads(1)
            libs.append(("torch", torch))

    print(f"python {platform.python_version()}, numpy {np.__version__}, pedatorch {pedatorch.__version__}"
          + (f", torch {torch.__version__} (threads={torch.get_num_threads()})" if torch else ""))
    removed = os.environ.get(_MARK, "-")
    print(f"BLAS: {_blas_info(np)}; OMP/OPENBLAS/MKL_NUM_THREADS=1"
          + (f"; removed from the environment: {removed}" if removed != "-" else ""))
    print(f"{args.rounds} rounds x {args.repeat} steps per library, interleaved; times are per step\n")

    header = ("workload", "pedatorch median", "spread", "torch median", "spread", "pedatorch/torch")
    rows = []
    for name in names:
        times = run_workload(name, libs, args.rounds, args.repeat, args.warmup)
        ours = statistics.median(times["pedatorch"])
        theirs = statistics.median(times["torch"]) if "torch" in times else None
        rows.append((name, _fmt(ours), _spread(times["pedatorch"]), _fmt(theirs),
                     _spread(times["torch"]) if "torch" in times else "-",
                     f"{ours / theirs:.1f}x" if theirs else "-"))
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
