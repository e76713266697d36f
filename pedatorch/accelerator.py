"""``pedatorch.accelerator``: the device-agnostic accelerator API (``torch.accelerator``)."""
