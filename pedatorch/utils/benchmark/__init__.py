"""``torch.utils.benchmark``: time a snippet of code the careful way.

    t = Timer(stmt="x @ x", globals={"x": x})
    t.timeit(100)                          # 100 runs, one measurement
    t.blocked_autorange(min_run_time=0.2)  # blocks of runs until 0.2 s are spent: a median and an IQR

``Timer`` wraps Python's ``timeit`` (the same clock, ``time.perf_counter``): it runs the setup once, a few
warm-up runs, then the statement ``number`` times per block, and divides each block's time by ``number``.
``Measurement`` holds the per-run times and prints them as PyTorch does; ``Compare`` puts several
measurements side by side (rows: sub_label and thread count, columns: description).  pedatorch runs on one
thread, so ``num_threads`` is recorded, not applied.
"""
import statistics
import timeit

__all__ = ["Timer", "Measurement", "Compare", "TaskSpec"]


class TaskSpec:
    """What was timed: the statement, its setup, and the labels that name it."""

    def __init__(self, stmt, setup="pass", global_setup="", label=None, sub_label=None, description=None,
                 env=None, num_threads=1):
        self.stmt, self.setup, self.global_setup = stmt, setup, global_setup
        self.label, self.sub_label, self.description = label, sub_label, description
        self.env, self.num_threads = env, num_threads

    @property
    def title(self):
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n" + \
            "\n".join("  " + line for line in self.stmt.splitlines())

    def summarize(self):
        lines = [self.title]
        if self.description:
            lines.append(self.description)
        if self.setup and self.setup != "pass":
            lines.append("setup:" + (f" {self.setup}" if "\n" not in self.setup else "\n" + "\n".join(
                "  " + line for line in self.setup.splitlines())))
        return "\n".join(lines)


def _unit(seconds):
    """(scale, name) of the unit PyTorch prints a time in."""
    for scale, name in ((1e-9, "ns"), (1e-6, "us"), (1e-3, "ms")):
        if seconds < scale * 1000:
            return scale, name
    return 1.0, "s"


def _format(seconds, digits=2):
    scale, name = _unit(seconds)
    return f"{seconds / scale:.{digits}f} {name}"


class Measurement:
    """The times of one ``Timer`` run: ``raw_times`` per block of ``number_per_run`` runs."""

    def __init__(self, number_per_run, raw_times, task_spec, metadata=None):
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.metadata = metadata

    def __getattr__(self, name):   # (stmt, label, description, ...: the task spec's)
        if name in ("stmt", "setup", "global_setup", "label", "sub_label", "description", "env", "num_threads",
                    "title"):
            return getattr(self.task_spec, name)
        raise AttributeError(name)

    @property
    def times(self):
        """Seconds per run, one entry per block."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def mean(self):
        return statistics.mean(self.times)

    @property
    def median(self):
        return statistics.median(self.times)

    @property
    def iqr(self):
        if len(self.times) < 2:
            return 0.0
        q = statistics.quantiles(self.times, n=4, method="inclusive")
        return q[2] - q[0]

    @property
    def significant_figures(self):
        """How many digits of the median the spread supports (1 to 4; 4 for a single measurement)."""
        if len(self.times) < 2 or self.iqr == 0:
            return 4 if len(self.times) < 2 else 2
        import math
        return max(1, min(4, int(math.log10(self.median / self.iqr) + 1)))

    @property
    def has_warnings(self):
        return len(self.times) > 1 and self.iqr / self.median > 0.1

    def meets_confidence(self, threshold=0.1):
        return len(self.times) < 2 or self.iqr / self.median < threshold

    @staticmethod
    def merge(measurements):
        """Measurements of the same task joined into one."""
        merged = {}
        for m in measurements:
            key = (m.stmt, m.label, m.sub_label, m.description, m.num_threads)
            if key in merged:
                merged[key].raw_times += [t * merged[key].number_per_run / m.number_per_run for t in m.raw_times]
            else:
                merged[key] = Measurement(m.number_per_run, m.raw_times, m.task_spec)
        return list(merged.values())

    def __repr__(self):
        lines = [f"<torch.utils.benchmark.utils.common.Measurement object at {hex(id(self))}>",
                 self.task_spec.summarize()]
        threads = f"{self.num_threads} thread{'s' if self.num_threads != 1 else ''}"
        if len(self.times) == 1:
            lines += [f"  {_format(self.median)}",
                      f"  1 measurement, {self.number_per_run} runs , {threads}"]
        else:
            q = statistics.quantiles(self.times, n=4, method="inclusive")
            scale, name = _unit(self.median)
            lines += [f"  Median: {self.median / scale:.2f} {name}",
                      f"  IQR:    {self.iqr / scale:.2f} {name} ({q[0] / scale:.2f} to {q[2] / scale:.2f})",
                      f"  {len(self.times)} measurements, {self.number_per_run} runs per measurement, {threads}"]
        if self.has_warnings:
            lines.append(f"  WARNING: Interquartile range is {100 * self.iqr / self.median:.1f}% of the median "
                         f"measurement.\n           This could indicate system fluctuation.")
        return "\n".join(lines)


class Timer:
    """Time ``stmt`` (a string of code, or a callable) in a namespace of ``globals``, after ``setup``."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timeit.default_timer, globals=None,
                 label=None, sub_label=None, description=None, env=None, num_threads=1, language="python"):
        if language not in ("python", "py"):
            raise ValueError("pedatorch's Timer runs Python statements only")
        self._task_spec = TaskSpec(stmt if isinstance(stmt, str) else getattr(stmt, "__name__", repr(stmt)),
                                   setup, global_setup, label, sub_label, description, env, num_threads)
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=dict(globals or {}))

    def _time(self, number):
        return self._timer.timeit(number)

    def timeit(self, number=1000000):
        """One measurement of ``number`` runs (after ``number // 100`` warm-up runs, at least 2)."""
        self._time(max(number // 100, 2))
        return Measurement(number, [self._time(number)], self._task_spec)

    def _block_size(self, min_run_time):
        """Runs per block: ten times more until a block takes at least 1/1000 of ``min_run_time``."""
        number = 1
        while True:
            if self._time(number) >= min_run_time / 1000 or number >= 10 ** 9:
                return number
            number *= 10

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of runs until ``min_run_time`` seconds are spent (at least one block)."""
        number = self._block_size(min_run_time)
        times, total = [], 0.0
        while total < min_run_time or not times:
            t = self._time(number)
            total += t
            times.append(t)
            if callback is not None:
                callback(number, t)
        return Measurement(number, times, self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        """Blocks of runs until the spread is below ``threshold`` of the median (or ``max_run_time`` is spent)."""
        number = self._block_size(min_run_time=0.05)
        times, total = [], 0.0
        while total < max_run_time:
            t = self._time(number)
            total += t
            times.append(t)
            if callback is not None:
                callback(number, t)
            m = Measurement(number, times, self._task_spec)
            if len(times) > 3 and total >= min_run_time and m.meets_confidence(threshold):
                break
        return Measurement(number, times, self._task_spec)


class Compare:
    """A table of measurements: one per label, rows by thread count and sub_label, columns by description."""

    def __init__(self, results):
        self._results = list(results)
        self._trim = False
        self._color = None

    def extend_results(self, results):
        self._results.extend(results)

    def trim_significant_figures(self):
        self._trim = True

    def colorize(self, rowwise=False):
        self._color = "row" if rowwise else "column"

    def highlight_warnings(self):
        pass

    def __str__(self):
        return "\n".join(self._render())

    def print(self):
        print(str(self))

    def _render(self):
        out = []
        labels = list(dict.fromkeys(m.label for m in self._results))
        for label in labels:
            group = Measurement.merge([m for m in self._results if m.label == label])
            out += self._table(label, group)
        return out

    def _table(self, label, group):
        columns = list(dict.fromkeys(m.description for m in group))
        rows = list(dict.fromkeys((m.num_threads, m.sub_label or m.stmt) for m in group))
        cell = {(m.num_threads, m.sub_label or m.stmt, m.description): m for m in group}
        times = [m.median for m in group]
        scale, unit = _unit(min(times))
        names = {"ns": "nanoseconds", "us": "microseconds", "ms": "milliseconds", "s": "seconds"}

        def text(m):
            if m is None:
                return ""
            value = m.median / scale
            if self._trim:
                digits = m.significant_figures
                decimals = max(0, digits - len(str(int(value))))
                return f"{round(value, decimals - (digits - len(str(int(value))) < 0)):.{decimals}f}"
            return f"{value:.1f}"

        best = {}
        if self._color:
            for key, m in cell.items():
                k = key[2] if self._color == "column" else key[:2]
                if k not in best or m.median < best[k].median:
                    best[k] = m

        def shown(m):
            t = text(m)
            if m is not None and self._color and best.get(
                    m.description if self._color == "column" else (m.num_threads, m.sub_label or m.stmt)) is m:
                return f"\033[92m\033[1m{t}\033[0m\033[0m"
            return t

        body = [[name] + [shown(cell.get((threads, name, c))) for c in columns] for threads, name in rows]
        head = [""] + [c or "" for c in columns]
        widths = [max(len(_plain(r[i])) for r in body + [head]) for i in range(len(head))]
        lines = ["  " + head[0].rjust(widths[0]) + "  |" + "|".join(
            f"  {h.center(w)}  " if i else h for i, (h, w) in enumerate(zip(head[1:], widths[1:]), 1)).rstrip()]
        current = None
        for (threads, _), row in zip(rows, body):
            if threads != current:
                current = threads
                lines.append(f"{threads} threads: " + "-" * max(0, len(lines[0]) - len(f"{threads} threads: ")))
            lines.append("  " + row[0].rjust(widths[0]) + "  |" + "|".join(
                f"  {_pad(v, w)}  " for v, w in zip(row[1:], widths[1:])).rstrip())
        width = max(len(_plain(line)) for line in lines)
        title = f" {label} " if label else ""
        dashes = width - len(title) - 2
        lines.insert(0, "[" + "-" * (dashes // 2) + title + "-" * (dashes - dashes // 2) + "]")
        return lines + ["", f"Times are in {names[unit]} ({unit}).", ""]


def _plain(s):
    import re
    return re.sub(r"\033\[[0-9;]*m", "", s)


def _pad(value, width):
    return " " * (width - len(_plain(value))) + value
