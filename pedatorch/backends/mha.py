"""``pedatorch.backends.mha``: the fast path of ``nn.MultiheadAttention`` (``torch.backends.mha``).

pedatorch's attention modules always take the plain path; the switch is kept for programs that set it.
"""
_is_fastpath_enabled = True


def get_fastpath_enabled():
    return _is_fastpath_enabled


def set_fastpath_enabled(value):
    global _is_fastpath_enabled
    _is_fastpath_enabled = value
