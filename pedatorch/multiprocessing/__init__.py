"""``torch.multiprocessing``: Python's ``multiprocessing``, plus ``spawn`` and tensors in shared memory.

Everything of ``multiprocessing`` is here under the same names (``Process``, ``Queue``, ``get_context``...).
``spawn(fn, args, nprocs)`` starts ``nprocs`` processes that each run ``fn(i, *args)`` and joins them; an
exception in one of them is raised again in the parent with the child's traceback.

Shared tensors (Hogwild training, ``model.share_memory()``): ``Tensor.share_memory_()`` moves a tensor's
numbers into memory that processes started afterwards by *fork* (Linux's default start method) share, so
what one process writes into it the others see.  A process started by *spawn* receives its arguments
pickled, which copies them: there, as in PyTorch's "file_system"-less setups, send results back through a
``Queue`` instead.
"""
from .._warnings import user_stacklevel
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
from multiprocessing import *  # noqa: F401,F403  (torch.multiprocessing is a drop-in replacement)

__all__ = list(multiprocessing.__all__) + [
    "spawn", "start_processes", "ProcessContext", "ProcessException", "ProcessRaisedException",
    "ProcessExitedException", "get_sharing_strategy", "set_sharing_strategy", "get_all_sharing_strategies"]

_sharing = ["file_descriptor"]


def get_all_sharing_strategies():
    return {"file_descriptor", "file_system"}


def get_sharing_strategy():
    return _sharing[0]


def set_sharing_strategy(new_strategy):
    """Kept for programs that set it: shared tensors here live in anonymous shared memory either way."""
    if new_strategy not in get_all_sharing_strategies():
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}")
    _sharing[0] = new_strategy


class ProcessException(Exception):
    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised an exception; the message holds its traceback."""

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg, error_index, error_pid)


class ProcessExitedException(ProcessException):
    """A spawned process ended with a non-zero exit code or a signal, without a Python exception."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, error_file):
    """The child's entry point: run ``fn(i, *args)``; on an exception leave its traceback for the parent."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass   # the parent stopped us
    except Exception:
        import traceback
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The processes ``start_processes`` started; ``join()`` waits for them and raises a child's error."""

    def __init__(self, processes, error_files):
        self.processes, self.error_files = processes, error_files
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [p.pid for p in self.processes]

    def join(self, timeout=None, grace_period=None):
        """True when every process has ended well, False while some still run; raises on a failure."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        for p in self.processes:   # one failed: stop the others, as PyTorch does
            if p.is_alive():
                p.terminate()
            p.join()
        proc, path = self.processes[failed], self.error_files[failed]
        if not os.access(path, os.R_OK) or os.path.getsize(path) == 0:
            code = proc.exitcode
            if code < 0:
                name = signal.Signals(-code).name
                raise ProcessExitedException(f"process {failed:d} terminated with signal {name}",
                                             error_index=failed, error_pid=proc.pid, exit_code=code, signal_name=name)
            raise ProcessExitedException(f"process {failed:d} terminated with exit code {code:d}",
                                         error_index=failed, error_pid=proc.pid, exit_code=code)
        with open(path, "rb") as fh:
            original = pickle.load(fh)
        msg = f"\n\n-- Process {failed:d} terminated with the following error:\n" + original
        raise ProcessRaisedException(msg, failed, proc.pid)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` processes running ``fn(i, *args)`` with ``start_method``; join them when ``join``."""
    ctx = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        fd, error_file = tempfile.mkstemp(prefix="pedatorch-spawn-")
        os.close(fd)
        os.unlink(error_file)   # the child creates it only when it fails
        p = ctx.Process(target=_wrap, args=(fn, i, args, error_file), daemon=daemon)
        p.start()
        processes.append(p)
        error_files.append(error_file)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """``start_processes`` with the "spawn" start method (``fn`` must be importable: defined at module level)."""
    if start_method != "spawn":
        import warnings
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\nTo use a different "
                      f"start_method use:\n\t\t torch.multiprocessing.start_processes(...)", FutureWarning, stacklevel=user_stacklevel())
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
