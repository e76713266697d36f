"""``pedatorch.onnx.errors``: the exporter's exceptions and warning (``torch.onnx.errors``)."""
__all__ = ["OnnxExporterError", "OnnxExporterWarning", "UnsupportedOperatorError", "SymbolicValueError"]


class OnnxExporterWarning(UserWarning):
    """Warnings in the ONNX exporter."""


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter: the base class of all exporter errors."""


class UnsupportedOperatorError(OnnxExporterError):
    """An operator the exporter cannot translate."""


class SymbolicValueError(OnnxExporterError):
    """Errors around the values of a traced graph."""
