"""pytest --nbval on the lessons: compare every output except the SVG of pictures.

nbval compares each stored output with a fresh run, mimetype by mimetype. A pedatorch.viz picture
carries a one-line text/plain (compared, like any output) and an SVG whose bytes depend on the
Graphviz renderer installed (a system ``dot`` and graphviz-pure lay text out slightly differently).
What the pictures contain is asserted by tests/test_viz_*.py; here the SVG is left out of the
comparison, as nbval itself leaves out PNGs.
"""
try:
    from nbval import plugin as _nbval
except ImportError:  # nbval not installed: nothing to adjust
    _nbval = None

if _nbval is not None and not getattr(_nbval.IPyNbFile, "_pedatorch_svg_skipped", False):
    _init = _nbval.IPyNbFile.__init__

    def _init_skipping_svg(self, *args, **kwargs):
        _init(self, *args, **kwargs)
        self.skip_compare = tuple(self.skip_compare) + ("image/svg+xml",)

    _nbval.IPyNbFile.__init__ = _init_skipping_svg
    _nbval.IPyNbFile._pedatorch_svg_skipped = True
