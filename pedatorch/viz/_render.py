"""Turning DOT text into SVG/PNG/PDF: which Graphviz renderer runs, and how to choose.

pedatorch draws every picture (graphs, broadcasts, memory layouts) as DOT text
first; a renderer turns it into an image.  The renderer is the first of:

1. the one set with :func:`set_renderer` (a path or command name) or the
   ``PEDATORCH_DOT`` environment variable;
2. a system Graphviz ``dot`` on ``PATH`` (``apt install graphviz``): it can write
   every format, PDF included;
3. ``graphviz-pure`` (a pip wheel, installed by ``pip install 'pedatorch[viz]'``):
   a static build of Graphviz's ``dot`` with the same flags, found next to this
   Python even when the kernel's ``PATH`` lacks the venv's ``bin``.  It writes SVG
   and PNG, not PDF.

No Python binding is needed: the renderer is run as a subprocess with the DOT
text on stdin.
"""
import os
import shutil
import subprocess
import sys

_chosen = None   # set_renderer()'s choice
_found = None    # cache of the search


class RendererNotFound(RuntimeError):
    """No Graphviz renderer is installed (only the DOT text can be had)."""


def _candidates():
    here = os.path.dirname(sys.executable)
    for name in ("dot",):
        p = shutil.which(name)
        if p:
            yield p
    for name in ("graphviz-pure",):
        p = shutil.which(name) or shutil.which(name, path=here)
        if p:
            yield p


def set_renderer(command=None):
    """Use ``command`` (a path, or a name on PATH) to render DOT; ``None`` goes back
    to the automatic choice.  Returns the path that will be used."""
    global _chosen, _found
    _found = None
    if command is None:
        _chosen = None
        return renderer()
    path = shutil.which(command) or (command if os.path.isfile(command) else None)
    if path is None:
        raise RendererNotFound(f"set_renderer: no executable {command!r}")
    _chosen = path
    return path


def renderer():
    """The path of the Graphviz renderer in use (raises RendererNotFound if none)."""
    global _found
    if _chosen is not None:
        return _chosen
    env = os.environ.get("PEDATORCH_DOT")
    if env:
        path = shutil.which(env) or (env if os.path.isfile(env) else None)
        if path is None:
            raise RendererNotFound(f"PEDATORCH_DOT={env!r} is not an executable")
        return path
    if _found is None:
        _found = next(_candidates(), None)
    if _found is None:
        raise RendererNotFound(
            "no Graphviz renderer found: pip install 'pedatorch[viz]' (brings graphviz-pure) "
            "or install Graphviz's dot (apt install graphviz); the DOT text is in .source")
    return _found


def renderer_name():
    """'dot', 'graphviz-pure', or the file name of a renderer set by hand."""
    return os.path.basename(renderer())


def can_write(fmt):
    """Whether the current renderer writes ``fmt`` ('svg', 'png', 'pdf', ...)."""
    if fmt in ("svg", "png", "dot", "gv", "plain"):
        return True
    return "graphviz-pure" not in renderer_name()


def render(source, fmt="svg", timeout=60):
    """DOT text -> bytes in ``fmt``."""
    exe = renderer()
    if fmt == "pdf" and not can_write("pdf"):
        raise ValueError(f"the renderer {os.path.basename(exe)} cannot write PDF; save as .svg or .png, "
                         "or install Graphviz's dot (apt install graphviz) and viz.set_renderer('dot')")
    proc = subprocess.run([exe, f"-T{fmt}"], input=source.encode("utf-8"), capture_output=True,
                          timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{os.path.basename(exe)} -T{fmt} failed: "
                           f"{proc.stderr.decode('utf-8', 'replace').strip()}")
    return proc.stdout
