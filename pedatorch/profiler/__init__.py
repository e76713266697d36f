"""``torch.profiler``: where does the time of a program go?  One line per op, with its time.

    from pedatorch.profiler import profile, record_function, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            model(inputs)
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))

How it sees the ops: every built-in op goes through ``ArrayFunction.apply``, and an entered ``OpMode``
is handed each call first (``autograd/function.py``; autocast and ``jit.trace`` work the same way).
The profiler is such a mode: it notes the clock before and after each op and files an *event* under
the event that was open when the op began (a ``record_function`` range, a backward node, or another
op).  In a backward pass the engine tells the profiler when each node starts and ends
(``autograd.engine.watch_backward``): those are the ``autograd::engine::evaluate_function: ...``
events, with the ops of the node's backward formula inside.

Each event has a *total* time (from its start to its end) and a *self* time (the total less the totals
of the events inside it).  ``key_averages()`` adds the events up by name; its ``table()`` prints them as
PyTorch's profiler does.  The times are the wall clock of a Python program: the profiler's own
bookkeeping (a few microseconds per op) is part of them, so read them for proportions, not to the
microsecond.  There is no GPU timeline: on ``cuda`` the times are those of launching the work.
"""
import enum
import gzip
import json
import os
import socket
import time
from functools import wraps

from ..autograd import engine as _engine
from ..autograd.function import OpMode
from .._tensor import Tensor
from ..autograd.op_names import op_name

__all__ = ["profile", "record_function", "ProfilerActivity", "ProfilerAction", "schedule",
           "tensorboard_trace_handler", "supported_activities", "kineto_available"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1
    XPU = 2
    MTIA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What a ``schedule`` says the profiler does during a step."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities():
    return {ProfilerActivity.CPU}


def kineto_available():
    return False


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A step -> ProfilerAction function: skip ``skip_first`` steps, then cycle through ``wait`` steps doing
    nothing, ``warmup`` steps running but not recording, ``active`` steps recording (the last one hands
    the trace to ``on_trace_ready``), ``repeat`` times (0: forever)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0).")

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:   # the first cycle starts without its waiting steps
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        at = step % cycle
        if at < wait:
            return ProfilerAction.NONE
        if at < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if at < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


# ---------------------------------------------------------------- events

class FunctionEvent:
    """One timed range: an op call, a ``record_function`` block or a backward node."""

    def __init__(self, name, start_ns, parent, input_shapes=()):
        self.name = self.key = name
        self.start_ns, self.end_ns = start_ns, None
        self.cpu_parent, self.cpu_children = parent, []
        self.input_shapes = list(input_shapes)
        self.cpu_memory_usage = 0   # bytes of the new arrays it made (profile_memory=True)
        self.count = 1
        if parent is not None:
            parent.cpu_children.append(self)

    @property
    def cpu_time_total(self):
        """Microseconds from start to end."""
        return (self.end_ns - self.start_ns) / 1000

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self):
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    def __repr__(self):
        return (f"<FunctionEvent name={self.name} cpu_time={_format_time(self.cpu_time_total)} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>")


class FunctionEventAvg:
    """The events of one name (and input shapes, when grouped by them) added up."""

    def __init__(self, key, input_shapes):
        self.key, self.input_shapes = key, input_shapes
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0
        self.cpu_parent = None   # (a key average is never nested)

    def add(self, event):
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        self.cpu_memory_usage += event.cpu_memory_usage
        self.self_cpu_memory_usage += event.self_cpu_memory_usage
        return self

    @property
    def cpu_time(self):
        """Average total time per call, in microseconds."""
        return self.cpu_time_total / self.count if self.count else 0.0

    # (no device timeline: the device columns of PyTorch's events are zero here)
    device_time_total = self_device_time_total = cuda_time_total = self_cuda_time_total = 0.0

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time)} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of events (or of their averages) that prints as a table."""

    def __init__(self, events=(), profile_memory=False):
        super().__init__(events)
        self.profile_memory = profile_memory

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        groups = {}
        for ev in self:
            shapes = str(ev.input_shapes) if group_by_input_shape else ""
            key = (ev.key, shapes)
            if key not in groups:
                groups[key] = FunctionEventAvg(ev.key, ev.input_shapes if group_by_input_shape else [])
            groups[key].add(ev)
        return EventList(groups.values(), self.profile_memory)

    def total_average(self):
        total = FunctionEventAvg("Total", [])
        for ev in self:
            total.add(ev)
        return total

    @property
    def self_cpu_time_total(self):
        return sum(ev.self_cpu_time_total for ev in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        return _table(self, sort_by, row_limit, max_name_column_width, max_shapes_column_width, header,
                      top_level_events_only, time_unit, self.profile_memory)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Write the events in Chrome's trace format (open it in chrome://tracing or ui.perfetto.dev)."""
        trace = {"traceEvents": [
            {"ph": "X", "cat": "cpu_op", "name": ev.name, "pid": os.getpid(), "tid": 1, "ts": ev.start_ns / 1000,
             "dur": ev.cpu_time_total, "args": {"Input Dims": ev.input_shapes} if ev.input_shapes else {}}
            for ev in self], "displayTimeUnit": "ms"}
        opener = gzip.open if str(path).endswith(".gz") else open
        with opener(path, "wt") as fh:
            json.dump(trace, fh)


def _format_time(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_memory(nbytes):
    kb, mb, gb = 1024, 1024 ** 2, 1024 ** 3
    if abs(nbytes) >= gb:
        return f"{nbytes / gb:.2f} Gb"
    if abs(nbytes) >= mb:
        return f"{nbytes / mb:.2f} Mb"
    if abs(nbytes) >= kb:
        return f"{nbytes / kb:.2f} Kb"
    return f"{nbytes} B"


def _share(part, total):
    return f"{100 * part / total:.2f}%" if total else "0.00%"


def _table(events, sort_by, row_limit, name_width_max, shapes_width_max, header, top_level_only, time_unit,
           profile_memory):
    """PyTorch's profiler table: a column per figure, 12 wide, two spaces apart, numbers to the right."""
    if not events:
        return ""
    if sort_by is not None:
        events = sorted(events, key=lambda ev: getattr(ev, sort_by.replace("cuda", "device")), reverse=True)
    with_shapes = any(ev.input_shapes for ev in events)
    name_width = min(max(len(ev.key) for ev in events) + 4, name_width_max or 10 ** 9)
    shapes_width = min(max(len(str(ev.input_shapes)) for ev in events) + 4, shapes_width_max or 10 ** 9)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    widths = [name_width] + [12] * (len(headers) - 1)
    if with_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_width)
    row = "".join("{:>" + str(w) + "}  " for w in widths)
    sep = "".join("-" * w + "  " for w in widths)
    line_length = sum(w + 2 for w in widths) - 2

    def when(us):
        scale = {"s": (1e6, "s"), "ms": (1e3, "ms"), "us": (1, "us")}.get(time_unit)
        return f"{us / scale[0]:.3f}{scale[1]}" if scale else _format_time(us)

    total_self = sum(ev.self_cpu_time_total for ev in events)
    out = []
    if header is not None:
        out += ["=" * line_length, header]
    if top_level_only:
        out += ["=" * line_length, "This report only display top-level ops statistics"]
    out += [sep, row.format(*headers), sep]
    shown = 0
    for ev in events:
        if shown == row_limit:
            break
        if top_level_only and ev.cpu_parent is not None:
            continue
        shown += 1
        name = ev.key if len(ev.key) < name_width_max - 3 else ev.key[:name_width_max - 3] + "..."
        values = [name, _share(ev.self_cpu_time_total, total_self), when(ev.self_cpu_time_total),
                  _share(ev.cpu_time_total, total_self), when(ev.cpu_time_total),
                  when(ev.cpu_time_total / ev.count)]
        if profile_memory:
            values += [_format_memory(ev.cpu_memory_usage), _format_memory(ev.self_cpu_memory_usage)]
        values.append(ev.count)
        if with_shapes:
            shapes = str(ev.input_shapes)
            values.append(shapes if len(shapes) <= shapes_width else shapes[:shapes_width - 3] + "...")
        out.append(row.format(*values))
    out += [sep, f"Self CPU time total: {when(total_self)}"]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- recording

_active = []   # the recording profilers (record_function and the engine report to the innermost)


def _shapes(args):
    """The input shapes as PyTorch lists them: a tensor's size, [] for anything else."""
    return [list(a.shape) if isinstance(a, Tensor) else [] for a in args]


def _new_bytes(out):
    """Bytes of the new memory an op's result holds (views of its inputs hold none)."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return sum(o._data.nbytes for o in outs if isinstance(o, Tensor) and o._base is None)


class _Recorder(OpMode):
    """The op mode of a recording profiler: a timed event per op call."""

    def __init__(self, prof):
        self.prof = prof

    def op(self, cls, args):
        prof = self.prof
        ev = prof._open(op_name(cls), _shapes(args) if prof.record_shapes else ())
        try:
            out = cls.apply(*args)
        finally:
            prof._close(ev)
        if prof.profile_memory:
            ev.cpu_memory_usage += _new_bytes(out)
            if ev.cpu_parent is not None:   # (the enclosing events made it too)
                parent = ev.cpu_parent
                while parent is not None:
                    parent.cpu_memory_usage += _new_bytes(out)
                    parent = parent.cpu_parent
        return out


class profile:
    """Record the ops run inside ``with profile(...) as prof:``; ``prof.key_averages().table()`` shows them.

    ``activities``: which devices to record (CPU here; CUDA is accepted and adds no timeline).
    ``record_shapes``: keep each op's input shapes (``key_averages(group_by_input_shape=True)``).
    ``profile_memory``: count the bytes of the new arrays each op makes.  ``schedule`` and
    ``on_trace_ready``: record only some steps (``prof.step()`` ends one) and hand each finished
    trace to ``on_trace_ready(prof)`` (``tensorboard_trace_handler`` writes it to a folder).
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False,
                 custom_trace_id_callback=None, use_cuda=None):
        self.activities = set(activities) if activities is not None else supported_activities()
        self.schedule = schedule
        self.on_trace_ready = on_trace_ready
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.with_stack, self.with_flops, self.with_modules = with_stack, with_flops, with_modules
        self.acc_events = acc_events
        self.step_num = 0
        self.current_action = None
        self._events = []        # every finished event, in the order they started
        self._stack = []         # the open events, innermost last
        self._mode = _Recorder(self)
        self._watch = _engine.watch_backward(self._node_done, before=self._node_start)
        self._recording = False
        self._step_event = None

    # ------------------------------------------------------------ events
    def _open(self, name, shapes=()):
        ev = FunctionEvent(name, time.perf_counter_ns(), self._stack[-1] if self._stack else None, shapes)
        self._stack.append(ev)
        self._events.append(ev)
        return ev

    def _close(self, ev):
        ev.end_ns = time.perf_counter_ns()
        while self._stack:   # (closes what an exception left open inside it too)
            top = self._stack.pop()
            if top.end_ns is None:
                top.end_ns = ev.end_ns
            if top is ev:
                break

    def _node_start(self, node):
        self._open(f"autograd::engine::evaluate_function: {node.name()}")

    def _node_done(self, node, grad_outputs, grad_inputs):
        if self._stack:
            self._close(self._stack[-1])

    # ------------------------------------------------------------ on and off
    def _start_recording(self):
        if not self._recording:
            self._recording = True
            _active.append(self)
            self._mode.__enter__()
            self._watch.__enter__()
        self._open_step()

    def _stop_recording(self):
        if self._recording:
            self._close_step()
            while self._stack:
                self._close(self._stack[-1])
            self._watch.__exit__(None, None, None)
            self._mode.__exit__(None, None, None)
            _active.remove(self)
            self._recording = False

    def _open_step(self):
        if self.schedule is not None and self._step_event is None:
            self._step_event = self._open(f"ProfilerStep#{self.step_num}")

    def _close_step(self):
        if self._step_event is not None:
            self._close(self._step_event)
            self._step_event = None

    def _action(self):
        return self.schedule(self.step_num) if self.schedule is not None else ProfilerAction.RECORD

    def start(self):
        self.current_action = self._action()
        if self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._start_recording()

    def stop(self):
        was = self.current_action
        self._stop_recording()
        if self.on_trace_ready is not None and was in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self.on_trace_ready(self)

    def step(self):
        """End a step of a scheduled profile: save the trace after its last active step, then move on."""
        previous = self.current_action
        self._close_step()
        self.step_num += 1
        self.current_action = self._action()
        if previous == ProfilerAction.RECORD_AND_SAVE:
            self._stop_recording()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
            self._events = []
        if self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._start_recording()
        elif self._recording:
            self._stop_recording()
            self._events = []

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    # ------------------------------------------------------------ results
    def events(self):
        return EventList([ev for ev in self._events if ev.end_ns is not None], self.profile_memory)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path):
        self.events().export_chrome_trace(path)

    def table(self, **kwargs):
        return self.key_averages().table(**kwargs)


class record_function:
    """A named range in the profile: ``with record_function("forward"): ...`` or as a decorator."""

    def __init__(self, name, args=None):
        self.name, self.args = name, args
        self._events = []

    def __enter__(self):
        prof = _active[-1] if _active else None
        self._events.append((prof, prof._open(self.name) if prof is not None else None))
        return self

    def __exit__(self, *exc):
        prof, ev = self._events.pop()
        if ev is not None and ev.end_ns is None:
            prof._close(ev)
        return False

    def __call__(self, fn):
        @wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapper


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` that writes each trace to ``dir_name`` as ``<worker>.<time>.pt.trace.json``."""
    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns() // 1000000}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, name))
    return handler
