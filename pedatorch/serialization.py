"""``pedatorch.serialization``: what ``torch.serialization`` offers (save and load themselves come later).

``torch.load(f, weights_only=True)`` unpickles a file without running arbitrary code: it
rebuilds only tensors, containers and numbers, and refuses any other class or function named
in the file unless the program allowed it::

    torch.serialization.add_safe_globals([MyConfig])            # from now on
    with torch.serialization.safe_globals([MyConfig]):           # inside the block only
        torch.load("ckpt.pt", weights_only=True)

This module holds that allow-list (``_safe_globals``, a plain list) and the loading options;
``pedatorch.load`` will consult them (``_allowed_globals_by_name``).
"""
import enum
import mmap
import shutil
import tempfile
from contextlib import contextmanager

__all__ = ["DEFAULT_PROTOCOL", "LoadEndianness", "SourceChangeWarning", "add_safe_globals", "clear_safe_globals",
           "get_safe_globals", "safe_globals", "get_default_load_endianness", "set_default_load_endianness",
           "get_crc32_options", "set_crc32_options", "get_default_mmap_options", "set_default_mmap_options",
           "mkdtemp"]

DEFAULT_PROTOCOL = 2   # the pickle protocol torch.save writes with


class SourceChangeWarning(Warning):
    """The source of a pickled module's class changed since it was saved."""


@contextmanager
def mkdtemp():
    """A temporary directory, removed after the ``with`` block."""
    path = tempfile.mkdtemp()
    try:
        yield path
    finally:
        shutil.rmtree(path)


# ---------------------------------------------------------------- the weights_only allow-list
# Each entry is a class or function, or a (class or function, "module.QualName") pair for an
# object saved under another name.

_safe_globals = []


def add_safe_globals(safe_globals):
    """Allow these classes and functions in ``weights_only`` loads from now on."""
    for g in safe_globals:
        if g not in _safe_globals:
            _safe_globals.append(g)


def get_safe_globals():
    """The classes and functions the program allowed (a copy of the list)."""
    return list(_safe_globals)


def clear_safe_globals():
    """Forget every allowed class and function."""
    _safe_globals.clear()


class safe_globals:
    """``with safe_globals([MyConfig]):`` allows these only inside the block.

    On leaving, the list is as it was before the block.
    """

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        self._before = get_safe_globals()
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc_info):
        _safe_globals[:] = self._before
        return False


def _allowed_globals_by_name():
    """``{"module.QualName": object}`` for the allowed globals: what a loader looks names up in."""
    by_name = {}
    for g in _safe_globals:
        if isinstance(g, tuple):
            if len(g) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full path), "
                                 f"but got tuple of length: {len(g)}")
            if type(g[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, "
                                f"but got: {type(g[1])}")
            g, name = g
        else:
            name = f"{g.__module__}.{g.__qualname__}"
        by_name[name] = g
    return by_name


# ---------------------------------------------------------------- loading and saving options

class LoadEndianness(enum.Enum):
    """The byte order to assume for a file that does not record one."""
    NATIVE = 1
    LITTLE = 2
    BIG = 3


_options = {"load_endianness": None,       # None: the machine's own order
            "compute_crc32": True,         # save a checksum with each record
            "mmap_flags": mmap.MAP_PRIVATE if hasattr(mmap, "MAP_PRIVATE") else None}


def get_default_load_endianness():
    """The byte order assumed for files that do not record one (None: native)."""
    return _options["load_endianness"]


def set_default_load_endianness(endianness):
    """Set that byte order: a ``LoadEndianness`` or None."""
    if not isinstance(endianness, LoadEndianness) and endianness is not None:
        raise TypeError("Invalid argument type in function set_default_load_endianness")
    _options["load_endianness"] = endianness


def get_crc32_options():
    """Does save write a CRC32 checksum for each record?"""
    return _options["compute_crc32"]


def set_crc32_options(compute_crc32):
    _options["compute_crc32"] = compute_crc32


def get_default_mmap_options():
    """The ``mmap`` flags ``load(mmap=True)`` maps files with (``mmap.MAP_PRIVATE``: copy on write)."""
    return _options["mmap_flags"]


class set_default_mmap_options:
    """Set the ``mmap`` flags for ``load(mmap=True)``: for good, or inside a ``with`` block."""

    def __init__(self, flags):
        if not hasattr(mmap, "MAP_PRIVATE"):
            raise RuntimeError("Changing the default mmap options is currently not supported for Windows")
        if flags != mmap.MAP_PRIVATE and flags != mmap.MAP_SHARED:
            raise ValueError("Invalid argument in function set_default_mmap_options, "
                             f"expected mmap.MAP_PRIVATE or mmap.MAP_SHARED, but got {flags}")
        self.prev = _options["mmap_flags"]
        _options["mmap_flags"] = flags

    def __enter__(self):
        pass

    def __exit__(self, *exc_info):
        _options["mmap_flags"] = self.prev


def save(obj, f, *args, **kwargs):   # being built
    raise NotImplementedError("pedatorch.save is being built")


def load(f, *args, **kwargs):   # being built
    raise NotImplementedError("pedatorch.load is being built")
