"""pedatorch.utils.benchmark: Timer, Measurement, Compare (what they print; the times themselves vary)."""
import re

import pedatorch as torch
import pedatorch.utils.benchmark as benchmark


def test_timeit_and_repr():
    x = torch.ones(4, 4)
    m = benchmark.Timer(stmt="x @ x", globals={"x": x}).timeit(50)
    lines = repr(m).split("\n")
    assert re.fullmatch(r"<torch\.utils\.benchmark\.utils\.common\.Measurement object at 0x[0-9a-f]+>", lines[0])
    assert lines[1] == "x @ x" and re.fullmatch(r"  \d+\.\d\d (ns|us|ms|s)", lines[2])
    assert lines[3] == "  1 measurement, 50 runs , 1 thread"
    assert m.number_per_run == 50 and len(m.times) == 1 and m.mean == m.median > 0 and m.iqr == 0


def test_blocked_autorange_and_labels():
    t = benchmark.Timer(stmt="torch.mm(x, x)", setup="import pedatorch as torch", globals={"x": torch.ones(3, 3)},
                        label="MM", sub_label="sub", description="desc")
    calls = []
    m = t.blocked_autorange(callback=lambda number, seconds: calls.append(number), min_run_time=0.05)
    assert len(m.times) == len(calls) >= 1 and sum(m.raw_times) >= 0.05
    text = repr(m).split("\n")
    assert text[1:4] == ["MM: sub", "desc", "setup: import pedatorch as torch"]
    assert text[4].startswith("  Median: ") and text[5].startswith("  IQR:    ")
    assert re.fullmatch(rf"  {len(m.times)} measurements, {m.number_per_run} runs per measurement, 1 thread", text[6])
    assert m.title == "MM: sub" and m.description == "desc" and m.num_threads == 1
    callable_timer = benchmark.Timer(stmt=lambda: None)
    assert callable_timer.timeit(10).number_per_run == 10


def test_compare_table():
    results = [benchmark.Timer("pass", label="L", sub_label=f"n={n}", description=d, num_threads=n).timeit(10)
               for n in (1, 2) for d in ("a", "bb")]
    text = str(benchmark.Compare(results))
    lines = text.split("\n")
    assert lines[0].startswith("[") and " L " in lines[0] and lines[0].endswith("]")
    assert lines[1].split("|")[1].strip() == "a" and lines[1].split("|")[2].strip() == "bb"
    assert lines[2].startswith("1 threads: ") and lines[4].startswith("2 threads: ")
    assert [line.split("|")[0].strip() for line in (lines[3], lines[5])] == ["n=1", "n=2"]
    assert re.match(r"Times are in (nanoseconds \(ns\)|microseconds \(us\))\.", lines[-2])
