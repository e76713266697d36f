"""Printing round p3 (compat program 52_printing_dtypes): what a user prints, compared with PyTorch."""
import pytest

import pedatorch as torch

pt = pytest.importorskip("torch")

LIBS = [torch, pt]


@pytest.fixture(autouse=True)
def _default_options():
    for lib in LIBS:
        lib.set_printoptions(profile="default")
    yield
    for lib in LIBS:
        lib.set_printoptions(profile="default")


@pytest.mark.parametrize("options", [{}, {"profile": "full"}, {"precision": 2, "sci_mode": True},
                                     {"threshold": 5, "edgeitems": 0, "linewidth": 40, "sci_mode": False}])
def test_print_opts_repr(options):
    """print(torch._tensor_str.PRINT_OPTS) shows PyTorch's dataclass repr, not an object address."""
    def text(lib):
        lib.set_printoptions(**options)
        return repr(lib._tensor_str.PRINT_OPTS), str(lib._tensor_str.get_printoptions())
    assert text(torch) == text(pt)
