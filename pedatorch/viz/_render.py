"""Turning DOT text into SVG/PNG/PDF: which Graphviz renderer runs, and how to choose.

pedatorch draws every picture (graphs, broadcasts, memory layouts) as DOT text
first; a renderer turns it into an image.  The renderer is the first of:

1. the one set with :func:`set_renderer` (a path or command name) or the
   ``PEDATORCH_DOT`` environment variable;
2. ``graphviz-pure`` (a pip wheel, installed by ``pip install 'pedatorch[viz]'``):
   a static build of Graphviz's ``dot`` with the same flags, found next to this
   Python even when the kernel's ``PATH`` lacks the venv's ``bin``.  Its version is
   pinned, so a lesson re-run by a learner stores the very SVG that was shipped
   (another Graphviz lays text out slightly differently: a diff of every picture).
   It writes SVG and PNG, not PDF: PDF goes to the system ``dot`` when there is one;
3. a system Graphviz ``dot`` on ``PATH`` (``apt install graphviz``): it can write
   every format, PDF included.

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
    p = shutil.which("graphviz-pure", path=here) or shutil.which("graphviz-pure")
    if p:
        yield p
    p = shutil.which("dot")
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


def render(source, fmt="svg", timeout=60, dpi=None):
    """DOT text -> bytes in ``fmt`` (``dpi``: a raster format's resolution; Graphviz's default is 96)."""
    exe = renderer()
    if fmt == "pdf" and not can_write("pdf"):
        system_dot = shutil.which("dot") if _chosen is None and not os.environ.get("PEDATORCH_DOT") else None
        if system_dot is None:
            raise ValueError(f"the renderer {os.path.basename(exe)} cannot write PDF; save as .svg or .png, "
                             "or install Graphviz's dot (apt install graphviz)")
        exe = system_dot
    try:
        proc = subprocess.run([exe, f"-T{fmt}"] + ([f"-Gdpi={dpi}"] if dpi else []), input=source.encode("utf-8"),
                              capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{os.path.basename(exe)} took over {timeout} s to draw this picture: draw less "
                           "(max_nodes=..., depth=1) or pass a larger timeout") from None
    except OSError as e:
        raise RendererNotFound(f"{exe} could not be run ({e.strerror}): reinstall it (pip install "
                               "'pedatorch[viz]') or choose another with viz.set_renderer(...)") from None
    if proc.returncode != 0:
        # one line: Graphviz's own first message, which names what it could not do
        first = next((ln.strip() for ln in proc.stderr.decode("utf-8", "replace").splitlines() if ln.strip()),
                     f"exit status {proc.returncode}")
        raise RuntimeError(f"{os.path.basename(exe)} -T{fmt} failed: {first}")
    return proc.stdout
