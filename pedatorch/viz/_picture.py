"""The object every DOT-based picture returns: inline SVG in Jupyter, .source, .save()."""
import base64
import os
import re

from . import _render


def quote(text):
    """A DOT double-quoted string."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def html(text):
    """Text escaped for a Graphviz HTML-like label."""
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


class Picture:
    """A picture described by DOT text.

    * in JupyterLab it renders inline (``_repr_mimebundle_`` gives SVG and a text line);
    * ``.source`` is the DOT text, ``.svg()`` the rendered SVG (cached);
    * ``.save(path)`` writes ``.svg``, ``.png``, ``.pdf`` (where the renderer can)
      or ``.dot``/``.gv``, chosen by the extension or ``format``.

    ``repr()`` is one stable line with no memory address, so that notebooks
    showing a picture can be checked by nbval.
    """

    kind = "Picture"

    def __init__(self, source, summary=""):
        self.source = source
        self.summary = summary
        self._svg = None

    def __repr__(self):
        return f"<pedatorch.viz.{self.kind}{': ' + self.summary if self.summary else ''}>"

    def pipe(self, format="svg"):
        """The picture rendered to bytes in ``format``."""
        if format == "svg":
            return self.svg().encode("utf-8")
        return _render.render(self.source, format)

    def svg(self):
        if self._svg is None:
            self._svg = _render.render(self.source, "svg").decode("utf-8")
        return self._svg

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": repr(self)}
        try:
            bundle["image/svg+xml"] = self.svg()
            # JupyterLab shows no SVG from an untrusted notebook (a fresh clone's lessons): the PNG
            # is what a learner sees there before running anything; trusted, the SVG wins
            bundle["image/png"] = base64.b64encode(_render.render(self.source, "png", dpi=self._png_dpi())
                                                   ).decode("ascii")
        except _render.RendererNotFound:
            bundle["text/plain"] += ("\n(no picture: no Graphviz renderer is installed; "
                                     "pip install 'pedatorch[viz]' brings one)")
        return bundle

    PNG_PIXELS = 2_000_000   # the notebook PNG of a huge picture is drawn smaller (it is only a fallback)

    def _png_dpi(self):
        """Graphviz's 96 dpi, or less where the PNG would exceed PNG_PIXELS (the SVG's viewBox is in points)."""
        m = re.search(r'viewBox="[\d.\-]+ [\d.\-]+ ([\d.]+) ([\d.]+)"', self.svg())
        if not m:
            return None
        pixels = float(m.group(1)) * float(m.group(2)) * (96 / 72) ** 2
        return None if pixels <= self.PNG_PIXELS else max(12, int(96 * (self.PNG_PIXELS / pixels) ** 0.5))

    def save(self, path, format=None):
        """Write the picture to ``path`` (format from the extension unless given); returns path."""
        path = os.fspath(path)
        fmt = (format or os.path.splitext(path)[1].lstrip(".") or "svg").lower()
        if fmt in ("dot", "gv"):
            data = self.source.encode("utf-8")
        else:
            data = self.pipe(fmt)
        with open(path, "wb") as f:
            f.write(data)
        return path
