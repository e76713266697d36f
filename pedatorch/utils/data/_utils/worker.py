"""The worker process of a multi-process DataLoader, and ``get_worker_info``.

Each worker runs ``_worker_loop``: it seeds its random number generators with
``base_seed + worker_id`` (Python's ``random``, pedatorch's default generator,
and numpy's global state from PyTorch's seed-mixing ``_generate_state``), calls
``worker_init_fn``, then answers ``(task_idx, index)`` messages from its index
queue with ``(task_idx, batch)`` on the shared result queue, until it receives
``None``.

What a worker sends is pickled in the worker itself (``_dumps``), so that a
batch that cannot be pickled becomes an error the main process sees instead of
a batch that never arrives.  Exceptions travel as ``ExceptionWrapper``: the
exception's type and its formatted traceback, re-raised in the main process as
PyTorch does ("Caught ValueError in DataLoader worker process 0.\nOriginal
Traceback (most recent call last): ...").
"""
import io
import os
import pickle
import queue
import random
import sys
import traceback
from dataclasses import dataclass

import numpy as np

from ...._random import manual_seed
from . import MP_STATUS_CHECK_INTERVAL

__all__ = ["WorkerInfo", "get_worker_info", "ExceptionWrapper"]


class KeyErrorMessage(str):
    """A str that is its own repr (KeyError shows its argument's repr; this keeps the traceback readable)."""

    __slots__ = ()

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception and its traceback, as text, to re-raise in another process or thread."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raise ``exc_type("Caught <Type> <where>.\\nOriginal <traceback>")`` here."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        try:
            raise exception
        finally:
            del exception  # no cycle exception -> traceback -> this frame: the loader is freed promptly


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker.

    id: this worker's id (0 .. num_workers - 1); num_workers; seed: the seed this
    worker's generators got (base_seed + id); dataset: this process's copy of the
    dataset.
    """

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str = "multiprocessing"


_worker_info = None


def get_worker_info():
    """The current worker's ``WorkerInfo``; None in the main process."""
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """A worker's iterable dataset is exhausted."""
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Start a new epoch (persistent workers): make a fresh fetcher."""
    seed: object = None


class ManagerWatchdog:
    """Notices that the main process died (the worker then has a new parent)."""

    def __init__(self):
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self):
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


def _generate_state(base_seed, worker_id):
    """The 4 x 32-bit seed of numpy's global generator in a worker (PyTorch's SeedSequence-like mix)."""
    INIT_A, MULT_A = 0x43B0D7E5, 0x931E8875
    INIT_B, MULT_B = 0x8B51F9DD, 0x58F38DED
    MIX_MULT_L, MIX_MULT_R = 0xCA01F9DD, 0x4973F715
    XSHIFT = 4 * 8 // 2
    MASK32 = 0xFFFFFFFF

    entropy = [worker_id, base_seed & MASK32, base_seed >> 32, 0]
    pool = [0] * 4
    hash_const_A = INIT_A

    def hash(value):
        nonlocal hash_const_A
        value = (value ^ hash_const_A) & MASK32
        hash_const_A = (hash_const_A * MULT_A) & MASK32
        value = (value * hash_const_A) & MASK32
        return (value ^ (value >> XSHIFT)) & MASK32

    def mix(x, y):
        result = ((MIX_MULT_L * x) & MASK32) - ((MIX_MULT_R * y) & MASK32)
        result &= MASK32
        return (result ^ (result >> XSHIFT)) & MASK32

    for i in range(len(pool)):
        pool[i] = hash(entropy[i])
    for i_src in range(len(pool)):
        for i_dst in range(len(pool)):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hash(pool[i_src]))

    hash_const_B = INIT_B
    state = []
    for i_dst in range(4):
        data_val = (pool[i_dst] ^ hash_const_B) & MASK32
        hash_const_B = (hash_const_B * MULT_B) & MASK32
        data_val = (data_val * hash_const_B) & MASK32
        state.append((data_val ^ (data_val >> XSHIFT)) & MASK32)
    return state


class _Pickler(pickle.Pickler):
    """pickle, except that 0-dim tensors keep their shape (``Tensor.__reduce_ex__`` gives them one dim)."""

    def reducer_override(self, obj):
        from ...._tensor import Tensor, _rebuild_tensor
        if type(obj) is Tensor and obj._data.ndim == 0 and obj.is_cpu:
            return _rebuild_tensor, (Tensor, np.array(obj._data), obj._requires_grad, "cpu")
        return NotImplemented


def _pickle(obj):
    buf = io.BytesIO()
    _Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buf.getvalue()


def _dumps(idx, data, worker_id):
    """Pickle one message here, in the worker; a batch that cannot be pickled becomes an error message."""
    try:
        return _pickle((idx, data))
    except Exception:
        err = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        try:
            return _pickle((idx, err))
        except Exception:  # the exception's own class cannot be pickled: send it as a RuntimeError
            err.exc_type = RuntimeError
            return _pickle((idx, err))


def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation, collate_fn,
                 drop_last, base_seed, init_fn, worker_id, num_workers, persistent_workers, shared_seed=None):
    """The body of one worker process (see the module docstring)."""
    import numpy as np
    from ..dataloader import _DatasetKind

    try:
        # (PyTorch first calls torch.set_num_threads(1); pedatorch's set_num_threads changes nothing)
        seed = base_seed + worker_id
        random.seed(seed)
        manual_seed(seed)
        np.random.seed(_generate_state(base_seed, worker_id))

        global _worker_info
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)

        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        # iteration_end: this worker's iterable dataset is exhausted; tasks that still arrive are dropped
        iteration_end = False
        watchdog = ManagerWatchdog()
        while watchdog.is_alive():
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                if done_event.is_set():  # shutting down, and the None was lost: stop anyway
                    break
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put(_dumps(r, None, worker_id))  # acknowledge
                iteration_end = False
                fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
                continue
            if r is None:  # shut down
                break
            if done_event.is_set() or iteration_end:
                continue
            idx, index = r
            if init_exception is not None:
                data = init_exception
                init_exception = None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put(_dumps(idx, data, worker_id))
            del data, idx, index, r
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
