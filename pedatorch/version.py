"""The version (``torch.version`` in PyTorch): read by the package root and by the ONNX exporter."""
__version__ = "0.1.0"
