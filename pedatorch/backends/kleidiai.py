"""``pedatorch.backends.kleidiai``: Arm's KleidiAI kernels (``torch.backends.kleidiai``)."""


def is_available():
    """Is KleidiAI there?  Not in pedatorch."""
    return False
