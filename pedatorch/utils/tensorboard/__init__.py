"""``pedatorch.utils.tensorboard`` (PyTorch's ``torch.utils.tensorboard``): ``SummaryWriter`` logs training
to event files that TensorBoard (``tensorboard --logdir runs``) shows.

Like PyTorch's, it is built on the ``tensorboard`` package (its protos and its event file writer), so
importing it without tensorboard installed fails with the ImportError PyTorch gives, and, as in PyTorch,
neither ``import pedatorch`` nor ``pedatorch.utils`` imports it: only ``from pedatorch.utils.tensorboard
import SummaryWriter`` does. ``pip install tensorboard`` to use it.
"""
import re

import tensorboard


def _version(text):
    """'2.21.0' -> (2, 21), '2.0rc1' -> (2, 0): enough of a version to compare with 1.15."""
    return tuple(int(re.match(r"\d*", piece).group() or 0) for piece in text.split(".")[:2])


if not hasattr(tensorboard, "__version__") or _version(tensorboard.__version__) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

del tensorboard

from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
