"""``pedatorch.onnx``: ONNX export (``torch.onnx``)."""
