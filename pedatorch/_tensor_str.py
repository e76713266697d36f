"""Printing tensors as PyTorch does (placeholder until the full formatter lands)."""
import numpy as np


def _str(self, tensor_contents=None):
    body = np.array2string(np.asarray(self._data), separator=", ")
    suffix = []
    if self.grad_fn is not None:
        suffix.append(f"grad_fn=<{self.grad_fn.name()}>")
    elif self._requires_grad:
        suffix.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + s for s in suffix) + ")"


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    pass
