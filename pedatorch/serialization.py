"""``pedatorch.serialization``: what ``torch.serialization`` offers."""
