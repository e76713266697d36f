"""``pedatorch.onnx.errors``: the exporter's exceptions and warning (``torch.onnx.errors``)."""
__all__ = ["OnnxExporterError", "OnnxExporterWarning", "UnsupportedOperatorError", "SymbolicValueError"]


class OnnxExporterWarning(UserWarning):
    """Warnings in the ONNX exporter."""


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter: the base class of all exporter errors."""


class UnsupportedOperatorError(OnnxExporterError):
    """An operator the exporter cannot translate (``name``: "aten::xxx", at opset ``version``).

    ``reason`` (pedatorch's addition) says what about the op is not supported."""

    def __init__(self, name, version, supported_version, reason=None):
        if supported_version is not None:
            msg = (f"Exporting the operator '{name}' to ONNX opset version {version} is not supported. Support for "
                   f"this operator was added in version {supported_version}, try exporting with this version")
        elif name.startswith(("aten::", "prim::", "quantized::")):
            msg = f"Exporting the operator '{name}' to ONNX opset version {version} is not supported"
        else:
            msg = (f"ONNX export failed on an operator with unrecognized namespace {name}. If you are trying to "
                   "export a custom operator, make sure you registered it with the right domain and version.")
        if reason:
            msg += f": {reason}"
        super().__init__(msg)


class SymbolicValueError(OnnxExporterError):
    """Errors around the values of a traced graph."""
