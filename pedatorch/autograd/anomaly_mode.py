"""``detect_anomaly``: record where each node was made; name it when backward yields NaN."""
from .._warnings import user_stacklevel
from .grad_mode import _state, _DecoratorContextManager

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


def is_anomaly_enabled():
    return _state.anomaly


def is_anomaly_check_nan_enabled():
    return _state.anomaly_check_nan


class detect_anomaly(_DecoratorContextManager):
    """Inside: every node remembers the forward traceback; a NaN gradient raises RuntimeError."""

    def __new__(cls, check_nan=True):
        return object.__new__(cls)

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        self.prev = None

    def __enter__(self):
        import warnings
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should "
                      "only be enabled for debugging.", UserWarning, stacklevel=user_stacklevel())
        self.prev = (_state.anomaly, _state.anomaly_check_nan)
        _state.anomaly, _state.anomaly_check_nan = True, self.check_nan

    def __exit__(self, *exc):
        _state.anomaly, _state.anomaly_check_nan = self.prev

    def clone(self):
        return detect_anomaly(self.check_nan)


class set_detect_anomaly:
    """``set_detect_anomaly(True)``: a call, or a context manager restoring the previous mode."""

    def __init__(self, mode, check_nan=True):
        self.prev = (_state.anomaly, _state.anomaly_check_nan)
        _state.anomaly, _state.anomaly_check_nan = bool(mode), check_nan

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _state.anomaly, _state.anomaly_check_nan = self.prev
