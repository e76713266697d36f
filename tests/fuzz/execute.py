"""Running program lines with ``torch`` bound to PyTorch or to pedatorch."""
import importlib

import numpy as np

_CODE = {}


def library(name):
    """``"torch"`` or ``"pedatorch"``, imported."""
    return importlib.import_module(name)


def new_namespace(libname):
    """The globals a program runs in: ``torch``, ``F`` (= torch.nn.functional) and ``np``."""
    lib = library(libname)
    return {"torch": lib, "F": lib.nn.functional, "np": np, "__builtins__": __builtins__}


def run_line(line, ns):
    """Execute one line of program source in ``ns`` (compiled once per distinct line)."""
    code = _CODE.get(line)
    if code is None:
        if len(_CODE) > 50000:
            _CODE.clear()
        code = _CODE[line] = compile(line, "<fuzz>", "exec")
    exec(code, ns)


def input_lines(inp, name):
    return inp.source(name).split("\n")
