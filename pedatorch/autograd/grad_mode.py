"""Grad mode: whether ops record the graph (thread-local, as in PyTorch).

``no_grad``, ``enable_grad``, ``set_grad_enabled`` and ``inference_mode`` are
context managers and decorators.  Ops read ``_state.enabled`` on their fast
path: one attribute lookup.
"""
import functools
import inspect
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled", "set_multithreading_enabled"]


class _State(threading.local):
    enabled = True       # grad mode
    inference = False    # inference mode (implies grad mode off)
    anomaly = False      # detect_anomaly
    anomaly_check_nan = True


_state = _State()


def is_grad_enabled():
    return _state.enabled


def is_inference_mode_enabled():
    return _state.inference


class _DecoratorContextManager:
    """Usable as ``with no_grad():`` and as ``@no_grad()`` (or bare ``@no_grad``)."""

    def __new__(cls, orig_func=None, *args, **kwargs):
        if orig_func is not None and callable(orig_func) and cls in (no_grad, enable_grad):
            return cls()(orig_func)  # bare decorator: @no_grad
        return super().__new__(cls)

    def __call__(self, func):
        if inspect.isclass(func):
            raise RuntimeError("Decorating classes is not supported")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as e:
                        with self.clone():
                            response = gen.throw(e)
                    else:
                        with self.clone():
                            try:
                                response = gen.send(request)
                            except StopIteration as e:
                                return e.value
            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Ops inside record no graph: results have ``requires_grad=False``."""

    def __init__(self, orig_func=None):
        self.prev = None

    def __enter__(self):
        self.prev = _state.enabled
        _state.enabled = False

    def __exit__(self, *exc):
        _state.enabled = self.prev


class enable_grad(_DecoratorContextManager):
    """Turn grad mode back on inside a ``no_grad`` block."""

    def __init__(self, orig_func=None):
        self.prev = None

    def __enter__(self):
        self.prev = _state.enabled
        _state.enabled = True

    def __exit__(self, *exc):
        _state.enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """``set_grad_enabled(False)`` as a call, a context manager or a decorator."""

    def __new__(cls, mode):
        return object.__new__(cls)

    def __init__(self, mode):
        self.prev = _state.enabled
        self.mode = bool(mode)
        _state.enabled = self.mode  # takes effect at once, like PyTorch's

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _state.enabled = self.prev

    def __call__(self, func):
        _state.enabled = self.prev  # as a decorator it must not change the mode now
        return super().__call__(func)

    def clone(self):
        return _CloneSetGrad(self.mode)


class _CloneSetGrad:
    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.prev = _state.enabled
        _state.enabled = self.mode

    def __exit__(self, *exc):
        _state.enabled = self.prev


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``; tensors made inside are inference tensors."""

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            return cls(True)(mode)
        return object.__new__(cls)

    def __init__(self, mode=True):
        self.mode = mode
        self.prev = None

    def __enter__(self):
        self.prev = (_state.enabled, _state.inference)
        if self.mode:
            _state.enabled, _state.inference = False, True

    def __exit__(self, *exc):
        _state.enabled, _state.inference = self.prev

    def clone(self):
        return inference_mode(self.mode)


class set_multithreading_enabled(_DecoratorContextManager):
    """Whether backward runs on per-device worker threads (PyTorch's engine); pedatorch's engine always runs
    backward on the calling thread, so this only remembers the setting."""

    _enabled = True

    def __new__(cls, mode):
        return object.__new__(cls)

    def __init__(self, mode):
        self.prev = set_multithreading_enabled._enabled
        self.mode = bool(mode)
        set_multithreading_enabled._enabled = self.mode   # takes effect at once, like set_grad_enabled

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        set_multithreading_enabled._enabled = self.prev

    def clone(self):
        return self.__class__(self.mode)
