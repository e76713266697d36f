#!/usr/bin/env python3
"""Time the same workloads on pedatorch, on PyTorch and as hand-written numpy, each in its own process.

    python benchmarks/run.py                 # every workload
    python benchmarks/run.py overhead mlp    # only these
    python benchmarks/run.py --list
    python benchmarks/run.py overhead --rounds 31 --repeat 500 --json results.json

How it measures (benchmarks/README.md says how to read the numbers):

* Each library runs in its own long-lived worker process: this file started again with
  ``--worker pedatorch``, ``--worker torch`` or ``--worker numpy`` (the numpy floor, floor.py).
  Timing two libraries in one process slows the one that shares it (PyTorch took twice as long
  per tiny op next to pedatorch), so this process, the parent, never imports numpy, torch or
  pedatorch: it only sends requests and collects answers, one JSON object per line on the
  workers' stdin and stdout.
* Every worker runs on one thread: OMP/OPENBLAS/MKL_NUM_THREADS=1 are in its environment before
  numpy or torch loads, and ``torch.set_num_threads(1)``. OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE
  are removed from the workers' environment (they make a current numpy pick a slow BLAS kernel).
* A workload is a function ``make(lib) -> step``: it builds its inputs with ``lib`` (the
  ``pedatorch`` or the ``torch`` module, used alike) and returns a callable doing one step. A
  worker builds each workload once and runs its warm-up steps once.
* Then, round after round, the parent asks each worker in turn for the time of one block of
  ``repeat`` steps; the library that goes first changes every round, so a slow spell of the
  machine hits all of them. The time per step is the median over the rounds.
"""
import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
SLOW_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
LIBRARIES = ("pedatorch", "torch", "numpy")  # the table's column order
BLOCK_SECONDS = 0.1  # --repeat's default aims at blocks about this long

# --------------------------------------------------------------------------- workloads
# They run inside the workers only: numpy is imported inside the functions, never at the top.

WORKLOADS = {}


def workload(fn):
    """Register ``fn(lib) -> step`` under its name."""
    WORKLOADS[fn.__name__] = fn
    return fn


def _data(lib, shape, classes=None, seed=0):
    """floor.inputs (seeded numpy arrays, the same for every library) as ``lib`` tensors."""
    from floor import inputs
    arrays = inputs(shape, classes, seed)
    if classes is None:
        return lib.tensor(arrays)
    return tuple(lib.tensor(a) for a in arrays)


class Training:
    """One training step on a fixed batch: zero_grad, forward, loss, backward, optimizer step.
    Returns the loss; the test reads ``model``, ``x`` and ``y`` to check the numpy floor."""

    def __init__(self, model, loss_fn, optimizer, x, y):
        self.model, self.loss_fn, self.optimizer, self.x, self.y = model, loss_fn, optimizer, x, y

    def __call__(self):
        self.optimizer.zero_grad()
        loss = self.loss_fn(self.model(self.x), self.y)
        loss.backward()
        self.optimizer.step()
        return loss


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
        return y

    step.leaves = (a, b, c)
    return step


def _mlp_model(lib):
    nn = lib.nn
    lib.manual_seed(0)
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))


@workload
def mlp(lib):
    """MLP 784-256-256-10, batch 128, cross-entropy, SGD with momentum."""
    model = _mlp_model(lib)
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return Training(model, lib.nn.CrossEntropyLoss(), opt, *_data(lib, (128, 784), 10))


@workload
def inference_mlp(lib):
    """The same MLP, forward only under no_grad, batch 1024."""
    model = _mlp_model(lib)
    x = _data(lib, (1024, 784))

    def step():
        with lib.no_grad():
            return model(x)

    return step


@workload
def lenet(lib):
    """LeNet-5 on 1x28x28 inputs, batch 64, cross-entropy, SGD with momentum."""
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return Training(model, nn.CrossEntropyLoss(), opt, *_data(lib, (64, 1, 28, 28), 10))


@workload
def lstm(lib):
    """LSTM(32 -> 64) over 35 steps, batch 32, a linear head on the last step, cross-entropy, Adam."""
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

    model = Net()
    return Training(model, nn.CrossEntropyLoss(), lib.optim.Adam(model.parameters()),
                    *_data(lib, (32, 35, 32), 10))


@workload
def encoder(lib):
    """TransformerEncoderLayer(d_model=64, nhead=4) with PyTorch's defaults (feed-forward 2048, dropout 0.1,
    sequence first) on (16, 32, 64), MSE, Adam."""
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.TransformerEncoderLayer(64, 4)
    return Training(model, nn.MSELoss(), lib.optim.Adam(model.parameters()),
                    _data(lib, (16, 32, 64)), _data(lib, (16, 32, 64), seed=1))


@workload
def matmul(lib):
    """1024 x 1024 float32 @ 1024 x 1024: the BLAS underneath (numpy's OpenBLAS, PyTorch's own)."""
    a, b = _data(lib, (1024, 1024)), _data(lib, (1024, 1024), seed=1)
    return lambda: a @ b


@workload
def init_normal(lib):
    """nn.init.normal_ and kaiming_uniform_ of a 1024 x 1024 float32 weight: PyTorch's random streams
    reproduced bit for bit (the float32 Box-Muller replays its FMA arithmetic)."""
    lib.manual_seed(0)
    w = lib.empty(1024, 1024)

    def step():
        lib.nn.init.normal_(w, 0.0, 0.01)
        lib.nn.init.kaiming_uniform_(w)
    return step


# --------------------------------------------------------------------------- the worker


def _load(name):
    """Import library ``name`` in this worker: ({workload: a function building its step}, a description)."""
    import functools
    import numpy as np
    if name == "numpy":
        import floor
        return floor.WORKLOADS, f"numpy {np.__version__} (benchmarks/floor.py), BLAS {_blas_info()}"
    if name == "torch":
        import torch as lib
        lib.set_num_threads(1)
        about = f"torch {lib.__version__}, threads={lib.get_num_threads()}"
    else:
        if _ROOT not in sys.path:
            sys.path.insert(0, _ROOT)  # benchmark the working tree, installed or not
        import pedatorch as lib
        about = f"pedatorch {lib.__version__}, numpy {np.__version__}, BLAS {_blas_info()}"
    return {n: functools.partial(make, lib) for n, make in WORKLOADS.items()}, about


def _blas_info():
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "? (threadpoolctl not installed)"
    parts = [f"{i.get('internal_api')} {i.get('version')} {i.get('architecture', '?')} threads={i.get('num_threads')}"
             for i in threadpool_info() if i.get("user_api") == "blas"]
    return "; ".join(parts) or "none found"


def _time_steps(step, count):
    """Seconds per step over ``count`` steps, after collecting garbage left by earlier ones."""
    import gc
    gc.collect()
    t0 = time.perf_counter()
    for _ in range(count):
        step()
    return (time.perf_counter() - t0) / count


def worker(name):
    """Serve the parent: one JSON request per line on stdin, one JSON answer per line on stdout.

    {"workload": W, "warmup": N} builds W and runs N untimed steps; it answers the seconds per step
    of all but the first, which the parent uses to choose the block size. {"workload": W,
    "repeat": R} times one block of R steps and answers the seconds per step.
    """
    import traceback
    answers = sys.stdout
    sys.stdout = sys.stderr  # a print inside a workload must not garble the answers

    def answer(**fields):
        answers.write(json.dumps(fields) + "\n")
        answers.flush()

    try:
        builders, about = _load(name)
    except ImportError as e:
        answer(error=f"{name} is not importable ({e})")
        return 0
    answer(about=about, workloads=list(builders))
    steps = {}
    for line in sys.stdin:
        request = json.loads(line)
        w = request["workload"]
        try:
            if "warmup" in request:
                steps[w] = builders[w]()
                first = _time_steps(steps[w], 1)  # pays one-time costs: allocation, caches
                n = request["warmup"] - 1
                answer(seconds=_time_steps(steps[w], n) if n else first)
            else:
                answer(seconds=_time_steps(steps[w], request["repeat"]))
        except Exception:
            answer(error=traceback.format_exc())
    return 0


# --------------------------------------------------------------------------- the parent


class Worker:
    """The parent's end of one worker process."""

    def __init__(self, name, env):
        self.name = name
        self.process = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", name],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)

    def hello(self):
        """Wait for the worker's first line: what it runs, or why it cannot."""
        hello = self._read()
        self.error = hello.get("error")
        self.about = hello.get("about")
        self.workloads = hello.get("workloads", [])

    def _read(self):
        line = self.process.stdout.readline()
        if not line:
            return {"error": f"the {self.name} worker exited (status {self.process.wait()})"}
        return json.loads(line)

    def ask(self, **request):
        """Send one request; return the seconds it answered, or raise RuntimeError with its error."""
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        except OSError:  # it died earlier (a crash in a workload)
            raise RuntimeError(f"the {self.name} worker exited (status {self.process.wait()})") from None
        reply = self._read()
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply["seconds"]

    def close(self):
        try:
            self.process.stdin.close()  # the worker's loop ends, and so does the worker
        except OSError:
            pass
        self.process.wait()


def worker_environment():
    """The parent's environment with every thread count at 1 and the slow-BLAS variables removed;
    also the names of the variables that were removed."""
    env = dict(os.environ)
    removed = [v for v in SLOW_VARS if env.pop(v, None) is not None]
    env.update({v: "1" for v in THREAD_VARS})
    return env, removed


def measure(name, workers, rounds, repeat, warmup):
    """Time workload ``name`` on each worker that has it: {library: [seconds per step, one per round]},
    the block size used, and {library: error text} for the ones that failed."""
    errors = {}
    ready = []
    slowest = 0.0
    for w in workers:
        if name in w.workloads:
            try:
                slowest = max(slowest, w.ask(workload=name, warmup=warmup))
                ready.append(w)
            except RuntimeError as e:
                errors[w.name] = str(e)
    if repeat is None:
        repeat = max(1, round(BLOCK_SECONDS / slowest)) if slowest > 0 else 1
    times = {w.name: [] for w in ready}
    for r in range(rounds if ready else 0):
        first = r % len(ready)
        for w in ready[first:] + ready[:first]:
            if w.name in errors:
                continue
            try:
                times[w.name].append(w.ask(workload=name, repeat=repeat))
            except RuntimeError as e:
                errors[w.name] = str(e)
    return {lib: ts for lib, ts in times.items() if lib not in errors}, repeat, errors


def summarize(ts):
    """Median, quartiles, min and max of per-round times (quartiles interpolate between rounds)."""
    q1, _, q3 = statistics.quantiles(ts, n=4, method="inclusive") if len(ts) > 1 else (ts[0],) * 3
    return {"median": statistics.median(ts), "q1": q1, "q3": q3, "min": min(ts), "max": max(ts), "rounds": ts}


def _fmt(seconds):
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def _spread(stats):
    """The interquartile range relative to the median, in percent."""
    if stats is None or len(stats["rounds"]) < 2:
        return "-"
    return f"{100 * (stats['q3'] - stats['q1']) / stats['median']:.0f}%"


def _ratio(a, b):
    return a["median"] / b["median"] if a and b else None


def table(results):
    """``results`` ({workload: {"libraries": {library: summarize(...)}, "errors": ..., ratios}}) as markdown."""
    header = ("workload", "pedatorch", "spread", "torch", "spread", "numpy floor", "spread",
              "pedatorch/torch", "pedatorch/floor")
    rows = []
    for name, res in results.items():
        row = [name]
        for lib in LIBRARIES:
            stats = res["libraries"].get(lib)
            row += ["error" if lib in res["errors"] else _fmt(stats and stats["median"]), _spread(stats)]
        row += [f"{r:.2f}x" if r else "-" for r in (res["pedatorch/torch"], res["pedatorch/numpy"])]
        rows.append(row)
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    return "\n".join([line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [line(r) for r in rows])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("workloads", nargs="*", help=f"names among: {', '.join(WORKLOADS)} (default: all)")
    p.add_argument("--rounds", type=int, default=21, help="timed blocks per library (default 21)")
    p.add_argument("--repeat", type=int, default=None,
                   help=f"steps per timed block (default: enough for about {BLOCK_SECONDS} s a block, "
                        "from the warm-up's times; the same for every library)")
    p.add_argument("--warmup", type=int, default=20, help="untimed steps per library first (default 20)")
    p.add_argument("--no-torch", action="store_true", help="leave PyTorch out")
    p.add_argument("--json", metavar="FILE", help="also write the numbers (every round's time) to FILE")
    p.add_argument("--list", action="store_true", help="list the workloads and exit")
    p.add_argument("--worker", choices=LIBRARIES, help=argparse.SUPPRESS)  # what the parent starts
    args = p.parse_args(argv)

    if args.worker:
        return worker(args.worker)
    if args.list:
        for name, fn in WORKLOADS.items():
            print(f"{name:14s} {' '.join((fn.__doc__ or '').split())}")
        print("(the numpy floor, benchmarks/floor.py, times the workloads in its WORKLOADS)")
        return 0
    names = args.workloads or list(WORKLOADS)
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        p.error(f"unknown workload(s) {', '.join(unknown)}; known: {', '.join(WORKLOADS)}")
    if args.rounds < 1 or (args.repeat is not None and args.repeat < 1) or args.warmup < 1:
        p.error("--rounds, --repeat and --warmup must be at least 1")

    env, removed = worker_environment()
    workers = []
    started = [Worker(lib, env) for lib in LIBRARIES if not (lib == "torch" and args.no_torch)]
    for w in started:  # they import their library at the same time; no timing runs yet
        w.hello()
        if w.error:
            print(f"{w.error}: leaving it out", file=sys.stderr)
            w.close()
        else:
            workers.append(w)

    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; "
          "each library in its own worker process, one at a time")
    print(f"workers: {', '.join(THREAD_VARS)}=1"
          + (f"; removed from their environment: {', '.join(removed)}" if removed else ""))
    for w in workers:
        print(f"  {w.name:9s} {w.about}")
    print(f"{args.rounds} rounds, interleaved (the first library changes every round); "
          f"{args.warmup} warm-up steps; times are per step, medians over the rounds\n", flush=True)

    results = {}
    try:
        for name in names:
            times, repeat, errors = measure(name, workers, args.rounds, args.repeat, args.warmup)
            for lib, text in errors.items():
                print(f"{name} failed on {lib}:\n{text}", file=sys.stderr)
            stats = {lib: summarize(ts) for lib, ts in times.items() if ts}
            results[name] = {"repeat": repeat, "libraries": stats, "errors": errors,
                             "pedatorch/torch": _ratio(stats.get("pedatorch"), stats.get("torch")),
                             "pedatorch/numpy": _ratio(stats.get("pedatorch"), stats.get("numpy"))}
    finally:
        for w in workers:
            w.close()

    print(table(results))
    ratios = [r["pedatorch/torch"] for r in results.values() if r["pedatorch/torch"]]
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else None
    if geomean:
        print(f"\ngeomean pedatorch/torch over {len(ratios)} workloads: {geomean:.2f}x")
    print("block sizes (--repeat): " + ", ".join(f"{n} {r['repeat']}" for n, r in results.items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"python": platform.python_version(), "cpus": os.cpu_count(), "rounds": args.rounds,
                       "warmup": args.warmup, "removed_from_environment": removed,
                       "libraries": {w.name: w.about for w in workers}, "workloads": results,
                       "geomean pedatorch/torch": geomean}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
