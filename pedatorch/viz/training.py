"""Training curves that draw themselves while the loop runs, and a progress bar.

:class:`TrainingCurves` collects the numbers a training loop produces (loss,
accuracy, learning rate, gradient norms) and plots them with matplotlib, one
panel per metric, train and validation on the same panel::

    from pedatorch import viz

    curves = viz.TrainingCurves(metrics=("loss", "accuracy"))
    step = 0
    for epoch in range(epochs):
        for x, y in curves.progress(train_loader, desc=f"epoch {epoch}"):
            loss = loss_fn(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            curves.log_grad_norms(model, step=step)        # needs the .grad, so before zero_grad()
            optimizer.step()
            curves.log(step=step, loss=loss, lr=optimizer)  # a 0-d tensor is fine; lr= takes a number
            step += 1                                       # (or the optimizer: its first group's lr)
        curves.log(epoch=epoch, split="val", loss=val_loss, accuracy=val_acc)
    curves.close()                                          # the last redraw, and the file for out=
    curves.history["val"]["accuracy"]                       # [(0, 0.71), (1, 0.83), ...]

    with viz.TrainingCurves(out="curves.png") as curves:    # a script: the PNG is the picture
        ...                                                 # (closed, and written, at the end)

Where it draws
--------------
* **In a notebook** (an IPython kernel is running), the first redraw shows the
  figure as one PNG output (``IPython.display.display(..., display_id=True)``);
  every later redraw *replaces* that output through its display handle, so a
  loop of a thousand steps leaves one picture in the cell, not a thousand.
  Redraws are throttled: at most one every ``every`` calls of :meth:`log`, and
  ``min_interval`` seconds after the first value or the end of the last redraw, or longer when a
  redraw is slow (the wait is 19 times the redraw's time, so redraws cost at most
  5% of the loop); whatever is still undrawn is drawn when the cell finishes (or
  at :meth:`close`). Progress bars made with :meth:`progress` come below the
  figure.
* **In a script** nothing pops up. ``curves.save("curves.png")`` writes the
  figure (``.svg`` and ``.pdf`` by extension too); with ``out="curves.png"`` it
  is written on every redraw and at :meth:`close`.

The figure is a :class:`matplotlib.figure.Figure` drawn by the Agg canvas, made
without ``pyplot``: it never opens a window, never changes your matplotlib
backend, and the notebook's inline backend never shows it a second time at the
end of the cell.

What goes where
---------------
* ``TrainingCurves(metrics=("loss", "accuracy"), every=1, min_interval=0.5,
  title=None, figsize=None, grad_norms=False, out=None)``: see the class.
* ``curves.log(step=None, epoch=None, *, split="train", **values)``: each value
  (a float, or a one-element tensor of pedatorch or PyTorch: it goes through
  ``float()``) is one point of the series ``"<split>/<name>"``, drawn on the
  panel ``name`` as the line labelled ``split``. ``lr=`` (a number, or the
  optimizer) is drawn on its own panel, whose y axis is logarithmic once the
  learning rate spans a factor of 10 or more.
* ``curves.log_grad_norms(model)``: the norm of each parameter's ``.grad``
  (one line per name of ``model.named_parameters()``) on a "grad norm" panel
  with a logarithmic y axis. ``grad_norms=True`` shows that panel from the start.
* The x axis is the **step** once any step was logged. Points logged with only
  an ``epoch`` (validation, typically) are drawn at the last step logged before
  them, i.e. at the end of that epoch. If no step is ever logged, the x axis is
  the epoch. A call with neither counts as the next step.
* Panels appear when their first value arrives, in the order of ``metrics``,
  then in the order other names were first logged.

Reading it back
---------------
``curves.history`` is ``{split: {metric: [(x, value), ...]}}`` with x the step
(or the epoch, for values logged with an epoch only): ``history["train"]["loss"]``,
``history["val"]["accuracy"]``, ``history["train"]["lr"]``, and the gradient
norms under ``history["grad_norm"]["0.weight"]``. ``curves.records`` has one
dict per call of :meth:`log`; ``curves.series("val/loss")`` gives the ``(xs, ys)``
lists as drawn (there the validation points sit at their epoch's last step);
:meth:`summary` is a text table of the last/min/max values; ``curves.figure`` is
the matplotlib Figure (``curves.axes`` its panels by name). Evaluating
``curves`` in a cell shows the current figure (``_repr_png_``).

:func:`progress` wraps an iterable in a progress bar with an ETA: tqdm when it
is installed (``tqdm.auto``: a widget in a notebook, text in a terminal), else
an ipywidgets bar in a notebook, else a text bar on stderr.
:meth:`TrainingCurves.progress` is the same bar, showing the latest logged
values next to it.
"""
import base64
import io
import math
import sys
import time
import weakref

__all__ = ["TrainingCurves", "progress", "Progress"]

# Colours of the splits, the same on every panel (matplotlib's default cycle).
_SPLIT_COLORS = {"train": "C0", "val": "C1", "valid": "C1", "validation": "C1", "test": "C2"}
_LR = "lr"
_GRAD = "grad norm"


def _need(module):
    from . import _need as need
    return need(module)


def _ipython():
    """The running IPython kernel's shell, or None (in a script, or in a plain terminal IPython)."""
    if "IPython" not in sys.modules:   # a kernel has always imported IPython; don't import it here
        return None
    ip = sys.modules["IPython"].get_ipython()
    return ip if ip is not None and getattr(ip, "kernel", None) is not None else None


def _number(name, value):
    """``float(value)``, with an error that says what was passed."""
    if name == _LR and hasattr(value, "param_groups"):   # an optimizer: its (first group's) lr
        value = value.param_groups[0]["lr"]
    if hasattr(value, "detach"):      # a tensor that requires grad: its value only (torch warns otherwise)
        value = value.detach()
    try:
        return float(value)
    except (TypeError, ValueError, RuntimeError):
        shape = getattr(value, "shape", None)
        what = type(value).__name__ + (f" of shape {tuple(shape)}" if shape is not None else "")
        raise TypeError(f"TrainingCurves.log: {name}= must be a number or a one-element tensor, "
                        f"got {what}") from None


def _fmt(v):
    return "nan" if v != v else f"{v:.4g}"


class _Point:
    """Where one value was logged: its step and/or epoch, and the last step seen before it."""
    __slots__ = ("step", "epoch", "at_step", "value")

    def __init__(self, step, epoch, at_step, value):
        self.step, self.epoch, self.at_step, self.value = step, epoch, at_step, value


class TrainingCurves:
    """Live plot of a training loop's metrics (see the module docstring for a full example).

    Args:
        metrics: the names whose panels come first, in this order (others get a
            panel after them when first logged).
        every: redraw at most once every ``every`` calls of :meth:`log`.
        min_interval: at least this many seconds from the end of one redraw to the next (more
            when a redraw is slow: see :attr:`wait`).
        title: a title over the whole figure.
        figsize: ``(width, height)`` in inches; by default 4.8 x 3.2 per panel.
        grad_norms: show the gradient-norm panel from the start
            (fill it with :meth:`log_grad_norms`).
        out: a path (``.png``, ``.svg``, ``.pdf``) written on every redraw and at :meth:`close`.
        notebook: ``None`` to detect an IPython kernel, ``True``/``False`` to say.
        dpi: pixels per inch of the PNG (the PNG is ``figsize * dpi`` pixels).
        draw_share: the largest share of the loop's time that redraws may take (1: redraw whenever
            ``every`` and ``min_interval`` allow).
    """

    def __init__(self, metrics=("loss", "accuracy"), every=1, min_interval=0.5, title=None, figsize=None,
                 grad_norms=False, out=None, *, notebook=None, dpi=100, draw_share=0.05):
        if isinstance(metrics, str):
            metrics = (metrics,)
        if not isinstance(every, int) or isinstance(every, bool) or every < 1:
            raise ValueError(f"TrainingCurves: every must be an int >= 1, got {every!r}")
        if min_interval < 0:
            raise ValueError(f"TrainingCurves: min_interval must be >= 0, got {min_interval!r}")
        if not 0 < draw_share <= 1:
            raise ValueError(f"TrainingCurves: draw_share must be in (0, 1], got {draw_share!r}")
        self.draw_share = float(draw_share)
        self.metrics = tuple(str(m) for m in (metrics or ()))
        self.every = every
        self.title = title
        self.figsize = figsize
        self.grad_norms = bool(grad_norms)
        self.out = out
        self.min_interval = float(min_interval)
        self.dpi = dpi
        self.notebook = _ipython() is not None if notebook is None else bool(notebook)
        self.records = []          # one dict per log() call
        self.updates = 0           # how many times the figure was redrawn for the screen/file
        self._series = {}          # "train/loss" -> [_Point]; the panel is found by _panel_of
        self._panel_of = {}        # series key -> panel name
        self._split_of = {}        # series key -> line label
        self._where = {}           # series key -> (split or "grad_norm", metric name)
        self._last_step = None
        self._last_epoch = None
        self._calls_since_draw = 0
        self._last_draw = -math.inf
        self._draw_seconds = 0.0   # how long the last redraw took
        self._version = 0          # bumped by every new value
        self._figure = None
        self._figure_version = -1
        self._axes = {}
        self._handle = None        # the IPython display handle, after the first redraw
        self._flush_hook = None
        self._bar = None
        self._closed = False

    # ------------------------------------------------------------- logging
    def log(self, step=None, epoch=None, *, split="train", **values):
        """Record one point per value, e.g. ``log(step=i, loss=loss, lr=0.1)`` or
        ``log(epoch=e, split="val", loss=0.3, accuracy=0.9)``; returns the record (a dict)."""
        if not values:
            raise ValueError("TrainingCurves.log needs at least one value, e.g. curves.log(step=i, loss=loss)")
        if not isinstance(split, str) or not split:
            raise ValueError(f"TrainingCurves.log: split must be a non-empty string, got {split!r}")
        if step is None and epoch is None:       # neither: the next step
            step = 0 if self._last_step is None else self._last_step + 1
        if step is not None:
            step = int(step)
        if epoch is not None:
            epoch = float(epoch)
            epoch = int(epoch) if epoch.is_integer() else epoch
        record = {"split": split, "step": step, "epoch": epoch}
        for name, value in values.items():
            v = _number(name, value)
            record[name] = v
            self._add(split, name, _LR if name == _LR else name, split, step, epoch, v)
        if step is not None:
            self._last_step = step if self._last_step is None else max(self._last_step, step)
        if epoch is not None:
            self._last_epoch = epoch
        self.records.append(record)
        if self._bar is not None:
            self._bar.set_postfix(**{(k if split == "train" else f"{split}_{k}"): _fmt(record[k])
                                     for k in values})
        self._calls_since_draw += 1
        self._maybe_update()
        return record

    def log_grad_norms(self, model, step=None, epoch=None):
        """Record the 2-norm of every parameter's ``.grad`` (by its name in
        ``model.named_parameters()``); call it after ``loss.backward()`` and
        before ``optimizer.zero_grad()``. Without step/epoch the points go at the
        last step logged. Returns ``{name: norm}``."""
        if not hasattr(model, "named_parameters"):
            raise TypeError(f"log_grad_norms expects a Module (with named_parameters()), "
                            f"got {type(model).__name__}")
        norms = {name: _number(name, p.grad.norm()) for name, p in model.named_parameters()
                 if p.grad is not None}
        if not norms:
            raise RuntimeError("log_grad_norms: no parameter has a .grad; call it after loss.backward() "
                               "and before optimizer.zero_grad()")
        if step is None and epoch is None:
            step, epoch = self._last_step, (self._last_epoch if self._last_step is None else None)
        step = None if step is None else int(step)
        self.grad_norms = True
        for name, v in norms.items():
            self._add("grad_norm", name, _GRAD, name, step, epoch, v)
        return norms

    def _add(self, group, name, panel, label, step, epoch, value):
        """One point of the series ``"<group>/<name>"`` (group: the split, or "grad_norm")."""
        key = f"{group}/{name}"
        if key not in self._series:
            self._series[key], self._panel_of[key], self._split_of[key] = [], panel, label
            self._where[key] = (group, name)
        self._series[key].append(_Point(step, epoch, self._last_step, value))
        self._version += 1

    # ------------------------------------------------------------ reading
    @property
    def history(self):
        """What was logged: ``{split: {metric: [(x, value), ...]}}``, e.g.
        ``{"train": {"loss": [(0, 2.3), (1, 2.1)], "lr": [(0, 0.1), (1, 0.1)]},
        "val": {"loss": [(0, 1.9)]}, "grad_norm": {"0.weight": [(1, 0.4)]}}``.

        ``x`` is the step the value was logged with, or its epoch when it was
        logged with an epoch only; values are floats. (A new dict every time:
        changing it changes nothing here.)"""
        out = {}
        for key, pts in self._series.items():
            group, name = self._where[key]
            out.setdefault(group, {})[name] = [(p.step if p.step is not None else p.epoch, p.value)
                                               for p in pts]
        return out

    @property
    def x_axis(self):
        """``"step"`` once any step was logged, else ``"epoch"``."""
        if any(p.step is not None for pts in self._series.values() for p in pts):
            return "step"
        return "epoch"

    def series(self, key):
        """The ``(x, y)`` lists of one series, as drawn (x in units of :attr:`x_axis`)."""
        if key not in self._series:
            raise KeyError(f"no series {key!r}; logged: {', '.join(self._series) or 'nothing yet'}")
        by_step = self.x_axis == "step"
        xs = []
        for i, p in enumerate(self._series[key]):
            if by_step:
                xs.append(p.step if p.step is not None else (p.at_step if p.at_step is not None else 0))
            else:
                xs.append(p.epoch if p.epoch is not None else i)
        return xs, [p.value for p in self._series[key]]

    def panels(self):
        """The panel names in the order they are drawn."""
        logged = list(dict.fromkeys(self._panel_of[k] for k in self._series))
        names = [m for m in self.metrics if m in logged]
        names += [m for m in logged if m not in names and m not in (_LR, _GRAD)]
        if _LR in logged:
            names.append(_LR)
        if self.grad_norms:
            names.append(_GRAD)
        return names

    def summary(self):
        """A text table: for every series its number of points, last, min and max value."""
        if not self.records and not self._series:
            return "TrainingCurves: nothing logged yet"
        head = [f"TrainingCurves: {len(self.records)} log calls"]
        if self._last_step is not None:
            head.append(f"last step {self._last_step}")
        if self._last_epoch is not None:
            head.append(f"last epoch {self._last_epoch}")
        unit = self.x_axis
        width = max(len(k) for k in self._series)
        lines = [", ".join(head)]
        for key in self._series:
            xs, ys = self.series(key)
            finite = [(y, x) for x, y in zip(xs, ys) if y == y]
            text = f"  {key:<{width}}  {len(ys):>5} points  last {_fmt(ys[-1])} ({unit} {xs[-1]})"
            if finite:
                lo, hi = min(finite, key=lambda t: t[0]), max(finite, key=lambda t: t[0])
                text += f"  min {_fmt(lo[0])} ({unit} {lo[1]})  max {_fmt(hi[0])} ({unit} {hi[1]})"
            lines.append(text)
        return "\n".join(lines)

    def __repr__(self):
        if not self._series:
            return "<pedatorch.viz.TrainingCurves: nothing logged yet>"
        return f"<pedatorch.viz.TrainingCurves: {', '.join(self._series)}; {len(self.records)} log calls>"

    # ------------------------------------------------------------ drawing
    @property
    def figure(self):
        """The matplotlib Figure of what is logged so far (redrawn when new values came)."""
        if self._figure is None or self._figure_version != self._version:
            self._draw()
        return self._figure

    @property
    def axes(self):
        """``{panel name: matplotlib Axes}`` of :attr:`figure`."""
        self.figure
        return dict(self._axes)

    def _draw(self):
        Figure = _need("matplotlib.figure").Figure
        FigureCanvasAgg = _need("matplotlib.backends.backend_agg").FigureCanvasAgg
        panels = self.panels()
        n = max(len(panels), 1)
        ncols = 1 if n == 1 else 2 if n <= 4 else 3
        nrows = -(-n // ncols)
        figsize = self.figsize or (4.8 * ncols, 3.2 * nrows)
        fig = Figure(figsize=figsize, dpi=self.dpi, layout="constrained")
        FigureCanvasAgg(fig)     # Agg draws it; no pyplot, so no window and no second inline copy
        self._axes = {}
        if not panels:
            ax = fig.add_subplot(1, 1, 1)
            ax.text(0.5, 0.5, "nothing logged yet", ha="center", va="center", transform=ax.transAxes)
            ax.set_axis_off()
        extra_colors = {}
        for i, panel in enumerate(panels):
            ax = fig.add_subplot(nrows, ncols, i + 1)
            self._axes[panel] = ax
            keys = [k for k in self._series if self._panel_of[k] == panel]
            latest = []
            for j, key in enumerate(keys):
                xs, ys = self.series(key)
                ys = [y if math.isfinite(y) else math.nan for y in ys]
                label = self._split_of[key]
                if panel == _GRAD:
                    color = f"C{j % 10}"
                else:
                    color = _SPLIT_COLORS.get(label) or extra_colors.setdefault(label, f"C{3 + len(extra_colors)}")
                dashed = label != "train" and panel not in (_GRAD, _LR)
                ax.plot(xs, ys, label=label, color=color, linestyle="--" if dashed else "-",
                        marker="o" if len(xs) <= 50 else None, markersize=3, linewidth=1.5)
                if panel != _GRAD:
                    latest.append(f"{label} {_fmt(ys[-1])}" if panel != _LR else _fmt(ys[-1]))
            values = [p.value for k in keys for p in self._series[k]]
            positive = [v for v in values if v > 0 and math.isfinite(v)]
            if panel == _GRAD:
                if positive:
                    ax.set_yscale("log")
            elif panel == _LR and positive and len(positive) == len(values) and max(positive) >= 10 * min(positive):
                ax.set_yscale("log")
            ax.set_title(panel + (":  " + ",  ".join(latest) if latest else ""), fontsize=10)
            ax.set_xlabel(self.x_axis)
            ax.grid(True, alpha=0.3)
            if keys and (panel != _LR):
                ax.legend(fontsize="x-small" if len(keys) > 4 else "small", ncol=2 if len(keys) > 8 else 1)
            if not keys:
                ax.text(0.5, 0.5, "no values yet", ha="center", va="center", transform=ax.transAxes,
                        color="grey")
        if self.title:
            fig.suptitle(self.title)
        self._figure, self._figure_version = fig, self._version
        return fig

    def _image(self, format="png"):
        buf = io.BytesIO()
        self.figure.savefig(buf, format=format, dpi=self.dpi)
        return buf.getvalue()

    def save(self, path, dpi=None):
        """Write the figure to ``path``: PNG, SVG or PDF by the extension. Returns path."""
        import os
        path = os.fspath(path)
        fmt = os.path.splitext(path)[1].lstrip(".").lower() or "png"
        self.figure.savefig(path, format=fmt, dpi=dpi or self.dpi)
        return path

    def _repr_png_(self):
        return self._image("png") if self._series else None

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": repr(self)}
        if self._series:
            bundle["image/png"] = base64.b64encode(self._image("png")).decode("ascii")
        return bundle

    # ----------------------------------------------------------- updating
    def _maybe_update(self):
        if not (self.notebook or self.out):
            return                                  # a script without out=: draw only when asked
        if self.notebook:
            self._hook_cell_end()
        now = time.monotonic()
        if self._last_draw == -math.inf:
            # the first wait starts at the first value: a loop shorter than min_interval is drawn once,
            # at its end, instead of paying a first render (the slowest) before its second step
            self._last_draw = now
        elif self._calls_since_draw >= self.every and now - self._last_draw >= self.wait:
            self.update()

    @property
    def wait(self):
        """Seconds from the end of one redraw to the next: ``min_interval``, or longer when drawing is
        slow, so that redraws take at most ``draw_share`` of the loop's time (at 5%, a 0.5 s redraw waits 9.5 s)."""
        drawing = self._draw_seconds or TrainingCurves._typical_draw_seconds   # before the first: the last seen
        return max(self.min_interval, drawing * (1 - self.draw_share) / self.draw_share)

    _typical_draw_seconds = 0.0   # how long the last redraw of any TrainingCurves took

    def update(self):
        """Redraw now: replace the notebook output (show it the first time) and write ``out``."""
        start = time.monotonic()
        self._calls_since_draw = 0
        self.updates += 1
        if self.notebook:
            self._show()
        if self.out:
            self.save(self.out)
        # measured from the end of the draw: a draw longer than min_interval must not start the next one
        self._last_draw = time.monotonic()
        self._draw_seconds = TrainingCurves._typical_draw_seconds = self._last_draw - start

    def _show(self):
        display = _need("IPython.display")
        if self._handle is None:
            self._handle = display.display(self, display_id=True)
        else:
            self._handle.update(self)

    def _reserve_place(self):
        """Show an empty output where the figure will be, so that it stays above the progress bars
        that come after it (each epoch's bar would otherwise push the first figure between two bars)."""
        if self.notebook and self._handle is None:
            display = _need("IPython.display")
            self._handle = display.display({"text/plain": ""}, raw=True, display_id=True)

    @property
    def pending(self):
        """True when values were logged since the last redraw."""
        return self._calls_since_draw > 0

    def _hook_cell_end(self):
        """In a notebook, draw what throttling held back when the cell finishes."""
        ip = _ipython()
        if self._flush_hook is not None or ip is None:
            return
        ref = weakref.ref(self)

        def flush(*args):
            curves = ref()
            if curves is None or curves._closed:
                ip.events.unregister("post_run_cell", flush)
            elif curves.pending:
                curves.update()
        self._flush_hook = (ip, flush)
        ip.events.register("post_run_cell", flush)

    def close(self):
        """Draw what is pending (and write ``out``), close the progress bar; logging stays possible."""
        if self.pending and (self.notebook or self.out):
            self.update()
        elif self.out and self.updates == 0 and self._series:
            self.save(self.out)
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self._flush_hook is not None:
            ip, hook = self._flush_hook
            try:
                ip.events.unregister("post_run_cell", hook)
            except ValueError:
                pass
            self._flush_hook = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def progress(self, iterable, total=None, desc=None, **kw):
        """:func:`progress` over ``iterable``, showing the values of each :meth:`log` as its postfix."""
        if self._bar is not None:
            self._bar.close()
        self._reserve_place()
        self._bar = progress(iterable, total=total, desc=desc, **kw)
        return self._bar


# ======================================================================= progress
def _have(module):
    import importlib.util
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _clock(seconds):
    if seconds is None or not math.isfinite(seconds):
        return "?"
    seconds = int(seconds)
    h, rest = divmod(seconds, 3600)
    return (f"{h}:" if h else "") + f"{rest // 60:02d}:{rest % 60:02d}"


def _status(n, total, elapsed, postfix):
    """``"42/100 [00:03<00:04, 12.3 it/s] loss=0.21"``: count, elapsed<ETA, rate, postfix."""
    rate = n / elapsed if elapsed > 0 else None
    eta = (total - n) / rate if rate and total is not None else None
    count = f"{n}/{total}" if total is not None else f"{n}"
    timing = _clock(elapsed) + (f"<{_clock(eta)}" if total is not None else "")
    speed = f", {rate:.3g} it/s" if rate else ""
    post = " " + ", ".join(f"{k}={v}" for k, v in postfix.items()) if postfix else ""
    return f"{count} [{timing}{speed}]{post}"


class _TextBar:
    """A one-line bar redrawn with a carriage return, at most 10 times a second."""

    def __init__(self, total, desc, file=None, width=24, **ignored):
        self.total, self.desc, self.file, self.width = total, desc, file or sys.stderr, width
        self.n, self.postfix, self.start, self._shown = 0, {}, time.monotonic(), -math.inf
        self._draw()

    def _draw(self, final=False):
        now = time.monotonic()
        if not final and now - self._shown < 0.1:
            return
        self._shown = now
        head = f"{self.desc}: " if self.desc else ""
        bar = ""
        if self.total:
            filled = int(self.width * min(self.n / self.total, 1))
            bar = f"{100 * self.n // self.total:3d}%|{'#' * filled}{' ' * (self.width - filled)}| "
        self.file.write("\r" + head + bar + _status(self.n, self.total, now - self.start, self.postfix))
        self.file.flush()

    def update(self, n=1):
        self.n += n
        self._draw(final=self.n == self.total)

    def set_postfix(self, **values):
        self.postfix = values
        self._draw()

    def close(self):
        self._draw(final=True)
        self.file.write("\n")
        self.file.flush()


class _WidgetBar:
    """An ipywidgets IntProgress and a Label with count, ETA and postfix, in a notebook."""

    def __init__(self, total, desc, **ignored):
        widgets = _need("ipywidgets")
        display = _need("IPython.display").display
        self.total, self.n, self.postfix, self.start = total, 0, {}, time.monotonic()
        self.bar = widgets.IntProgress(min=0, max=total or 1, value=0, description=desc or "")
        self.label = widgets.Label()
        self.box = widgets.HBox([self.bar, self.label])
        self._shown = -math.inf
        self._draw(final=True)
        display(self.box)

    def _draw(self, final=False):
        now = time.monotonic()
        if not final and now - self._shown < 0.1:
            return
        self._shown = now
        self.bar.max = self.total or max(self.n, 1)
        self.bar.value = self.n
        self.label.value = _status(self.n, self.total, now - self.start, self.postfix)

    def update(self, n=1):
        self.n += n
        self._draw(final=self.n == self.total)

    def set_postfix(self, **values):
        self.postfix = values
        self._draw()

    def close(self):
        self._draw(final=True)
        self.bar.bar_style = "success" if self.total is None or self.n >= self.total else "warning"


class Progress:
    """An iterable that yields the items of ``iterable`` and advances a bar for each.

    ``len()`` is the total (``len(iterable)`` unless ``total=`` was given);
    ``.n`` counts the items yielded so far; ``.backend`` says which bar draws
    (``"tqdm"``, ``"widget"`` or ``"text"``); ``set_postfix(**values)`` shows
    values after the bar. The bar opens when the iteration starts and closes
    when it ends (or breaks).
    """

    def __init__(self, iterable, total=None, desc=None, backend=None, **kw):
        if total is None:
            try:
                total = len(iterable)
            except TypeError:
                total = None
        if backend is None:
            backend = "tqdm" if _have("tqdm") else "widget" if _ipython() and _have("ipywidgets") else "text"
        if backend not in ("tqdm", "widget", "text"):
            raise ValueError(f"progress: backend must be 'tqdm', 'widget' or 'text', got {backend!r}")
        self.iterable, self.total, self.desc, self.backend, self.kw = iterable, total, desc, backend, kw
        self.n = 0
        self.postfix = {}
        self._bar = None
        self.closed = False

    def __len__(self):
        if self.total is None:
            raise TypeError(f"progress over a {type(self.iterable).__name__} has no len(); pass total=")
        return self.total

    def __repr__(self):
        total = "?" if self.total is None else self.total
        return f"<pedatorch.viz.Progress{': ' + self.desc if self.desc else ''} {self.n}/{total} ({self.backend})>"

    def _open(self):
        if self.backend == "tqdm":
            tqdm = _need("tqdm.auto").tqdm
            self._bar = tqdm(total=self.total, desc=self.desc, **self.kw)
        elif self.backend == "widget":
            self._bar = _WidgetBar(self.total, self.desc, **self.kw)
        else:
            self._bar = _TextBar(self.total, self.desc, **self.kw)
        if self.postfix:
            self._bar.set_postfix(**self.postfix)

    def __iter__(self):
        self.n, self.closed = 0, False
        self._open()
        try:
            for item in self.iterable:
                yield item
                self.n += 1
                self._bar.update(1)
        finally:
            self.close()

    def set_postfix(self, **values):
        self.postfix = values
        if self._bar is not None and not self.closed:
            self._bar.set_postfix(**values)

    def close(self):
        if self._bar is not None and not self.closed:
            self._bar.close()
        self.closed = True


def progress(iterable, total=None, desc=None, **kw):
    """Iterate over ``iterable`` with a progress bar and an ETA::

        for x, y in viz.progress(loader, desc="epoch 1"):   # len(loader) is the total
            ...

    tqdm (``tqdm.auto``) draws it when installed; other keyword arguments go to
    tqdm (``leave=False``, ``unit="batch"``, ...). Without tqdm: an ipywidgets
    bar in a notebook, else a text bar on stderr (``file=`` to choose another
    stream). ``backend="tqdm"|"widget"|"text"`` picks one. Returns a
    :class:`Progress`.
    """
    return Progress(iterable, total=total, desc=desc, **kw)
