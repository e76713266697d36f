"""``pedatorch.onnx``: ONNX export (``torch.onnx``).

Export itself is not built yet (a later issue): ``export`` raises NotImplementedError.  What
programs touch before exporting is here, so that they import and run up to that call: the
enums ``TrainingMode``, ``OperatorExportTypes`` and ``TensorProtoDataType``,
``is_in_onnx_export()`` (which model code asks to take an export-friendly path), the
exceptions, and the registry of custom symbolic functions.
"""
import enum
import re
from contextlib import contextmanager

from ..version import __version__ as producer_version  # noqa: F401
from . import errors
from .errors import OnnxExporterError

__all__ = ["errors", "export", "is_in_onnx_export", "OnnxExporterError"]

producer_name = "pedatorch"


class _Enum(enum.Enum):
    """An enum whose members convert to int (``int(TrainingMode.EVAL) == 0``), as PyTorch's do."""

    def __int__(self):
        return self.value


class TrainingMode(_Enum):
    """Which mode the model is exported in: eval, as it is, or training."""
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(_Enum):
    """How ops without an ONNX equivalent are exported (the older exporter's option)."""
    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


class TensorProtoDataType(_Enum):
    """ONNX's element types, with ONNX's numbers."""
    UNDEFINED = 0
    FLOAT = 1
    UINT8 = 2
    INT8 = 3
    UINT16 = 4
    INT16 = 5
    INT32 = 6
    INT64 = 7
    STRING = 8
    BOOL = 9
    FLOAT16 = 10
    DOUBLE = 11
    UINT32 = 12
    UINT64 = 13
    COMPLEX64 = 14
    COMPLEX128 = 15
    BFLOAT16 = 16
    FLOAT8E4M3FN = 17
    FLOAT8E4M3FNUZ = 18
    FLOAT8E5M2 = 19
    FLOAT8E5M2FNUZ = 20


def export(model, args=(), f=None, **kwargs):
    """Export ``model`` to an ONNX file: not built in pedatorch yet."""
    raise NotImplementedError("pedatorch.onnx.export: ONNX export is not built in pedatorch yet "
                              "(it is planned for a later version). Export the model with PyTorch instead.")


def is_in_onnx_export():
    """Is an export running right now?  Never, since there is no exporter yet."""
    return False


# ---------------------------------------------------------------- custom symbolic functions
# The older exporter lets a program say how to write an op in ONNX.  The registry is kept, so
# that programs registering functions at import time run; the exporter will read it.

_custom_symbolics = {}


def register_custom_op_symbolic(symbolic_name, symbolic_fn, opset_version):
    """Use ``symbolic_fn`` to export op ``symbolic_name`` ("namespace::op") from ``opset_version`` on."""
    if symbolic_name.startswith("::"):
        symbolic_name = "aten" + symbolic_name
    if not re.match(r"^[a-zA-Z0-9-_]+::[a-zA-Z-_]+[a-zA-Z0-9-_]*$", symbolic_name):
        raise OnnxExporterError(f"Failed to register operator {symbolic_name}. The symbolic name must match the "
                                "format domain::name, and should start with a letter and contain only "
                                "alphanumeric characters")
    if symbolic_name.startswith("onnx::"):
        raise ValueError(f"Failed to register operator {symbolic_name}. onnx domain cannot be modified.")
    _custom_symbolics.setdefault(symbolic_name, {})[opset_version] = symbolic_fn


def unregister_custom_op_symbolic(symbolic_name, opset_version):
    """Forget the function registered for ``symbolic_name`` at ``opset_version``."""
    if symbolic_name.startswith("::"):
        symbolic_name = "aten" + symbolic_name
    _custom_symbolics.get(symbolic_name, {}).pop(opset_version, None)


@contextmanager
def select_model_mode_for_export(model, mode):
    """Deprecated: put ``model`` in ``mode`` (a TrainingMode) inside the ``with`` block."""
    if not isinstance(mode, TrainingMode):
        raise TypeError(f"'mode' should be a torch.onnx.TrainingMode enum, but got '{type(mode)}'.")
    was_training = getattr(model, "training", False)
    if hasattr(model, "training") and mode != TrainingMode.PRESERVE:
        model.train(mode == TrainingMode.TRAINING)
    try:
        yield
    finally:
        if hasattr(model, "training") and mode != TrainingMode.PRESERVE:
            model.train(was_training)
