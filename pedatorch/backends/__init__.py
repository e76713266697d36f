"""``pedatorch.backends``: the flags PyTorch programs set for its compute libraries (``torch.backends``)."""
