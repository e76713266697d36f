"""``pedatorch.cpu`` (``torch.cpu``): the CPU seen through the ``torch.cuda`` API, for device-agnostic code.

There is one CPU device and its work is done when a call returns, so these answer at once: one device,
always available, a stream that never waits.  ``pedatorch.cpu.amp`` holds the older spellings of
``pedatorch.amp`` for the CPU (loaded with ``pedatorch.amp``).
"""
__all__ = ["is_available", "is_initialized", "synchronize", "current_device", "current_stream", "stream",
           "set_device", "device_count", "Stream", "StreamContext", "Event"]


def is_available():
    return True


def is_initialized():
    return True


def device_count():
    """The number of CPU devices (not cores): 1."""
    return 1


def current_device():
    return "cpu"


def set_device(device):
    """There is only one CPU device: nothing to do."""


def synchronize(device=None):
    """CPU ops have finished when they return: nothing to wait for."""


class Stream:
    """A CPU "stream": work is never queued, so every method returns at once."""

    def __init__(self, priority=-1):
        pass

    def wait_stream(self, stream):
        pass

    def record_event(self):
        pass

    def wait_event(self, event):
        pass


class Event:
    def query(self):
        return True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass


_default_cpu_stream = Stream()
_current_stream = _default_cpu_stream


def current_stream(device=None):
    return _current_stream


class StreamContext:
    """``with pedatorch.cpu.stream(s):`` makes ``s`` the current stream inside the block."""

    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = _default_cpu_stream

    def __enter__(self):
        global _current_stream
        if self.stream is not None:
            self.prev_stream, _current_stream = _current_stream, self.stream

    def __exit__(self, *exc):
        global _current_stream
        if self.stream is not None:
            _current_stream = self.prev_stream


def stream(stream):
    return StreamContext(stream)
