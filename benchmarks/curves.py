#!/usr/bin/env python3
"""What viz.TrainingCurves costs a training loop: a tiny MLP trained with and without it.

    python benchmarks/curves.py                  # 7 rounds of 3 epochs each way
    python benchmarks/curves.py --rounds 11 --epochs 5

The curves redraw into a PNG file (``out=``), as they would into a notebook output: each redraw is a
full matplotlib Agg render of the figure. The loop is the lessons' shape: an epoch of 50 batches,
``log()`` after every batch, a progress bar per epoch. Rounds alternate which variant runs first;
the overhead reported is the median time with curves over the median without, minus one, and the
spread is each variant's interquartile range over its median. Only pedatorch runs here (one thread).
"""
import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import pedatorch as torch  # noqa: E402
from pedatorch import nn, viz  # noqa: E402


def train(epochs, curves_path):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(50, 16, 20), torch.randint(0, 2, (50, 16))
    curves = viz.TrainingCurves(out=curves_path, notebook=False) if curves_path else None
    start = time.perf_counter()
    for epoch in range(epochs):
        batches = curves.progress(range(50), desc=f"epoch {epoch}", backend="text", file=open(os.devnull, "w")) \
            if curves else range(50)
        for i in batches:
            loss = nn.functional.cross_entropy(model(x[i]), y[i])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if curves:
                curves.log(loss=loss.item(), epoch=epoch)
    loop = time.perf_counter() - start
    final = 0.0
    if curves:                       # the final drawing (in a notebook: when the cell ends)
        curves.close()
        final = time.perf_counter() - start - loop
    return loop, final, (curves.updates if curves else 0)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--epochs", type=int, default=3)
    args = p.parse_args()
    plain, with_curves, finals, updates = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "curves.png")
        train(1, path)                                       # warm-up: imports matplotlib, first render
        for r in range(args.rounds):
            order = (None, path) if r % 2 == 0 else (path, None)
            for target in order:
                seconds, final, n = train(args.epochs, target)
                (with_curves if target else plain).append(seconds)
                if target:
                    updates.append(n)
                    finals.append(final)

    def spread(ts):
        q = statistics.quantiles(ts, n=4)
        return (q[2] - q[0]) / statistics.median(ts) * 100

    a, b = statistics.median(plain), statistics.median(with_curves)
    print(f"{args.epochs} epochs x 50 batches, {args.rounds} rounds")
    print(f"without curves: {a * 1e3:8.1f} ms  (spread {spread(plain):.0f}%)")
    print(f"with curves:    {b * 1e3:8.1f} ms  (spread {spread(with_curves):.0f}%), "
          f"{statistics.median(updates):.0f} redraws for {args.epochs * 50} log() calls")
    print(f"overhead during the loop: {(b / a - 1) * 100:+.1f}%; "
          f"then the final drawing: {statistics.median(finals) * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
