"""Helpers of the DataLoader (PyTorch's ``torch.utils.data._utils``): collation, fetching, workers."""
import atexit

MP_STATUS_CHECK_INTERVAL = 5.0
"""How long (seconds) a worker waits on its index queue before checking that its parent is alive."""

POLL_INTERVAL = 0.05
"""How often (seconds) the main process, waiting for a batch, checks that its workers are alive.

PyTorch learns of a dead worker from a SIGCHLD handler written in C; polling
this often gives the same promptness without touching signal handlers.
"""

python_exit_status = False
"""True once the interpreter is shutting down (workers are then left to multiprocessing's own cleanup)."""


def _set_python_exit_flag():
    global python_exit_status
    python_exit_status = True


atexit.register(_set_python_exit_flag)

from . import collate, fetch, worker  # noqa: E402,F401
