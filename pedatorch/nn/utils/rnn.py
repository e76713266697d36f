"""Variable-length sequences for RNNs: padding and packing.

A batch of B sequences of lengths L_0 >= L_1 >= ... (sorted, longest first) can be stored

- *padded*: one ``(T, B, *)`` tensor (``(B, T, *)`` with ``batch_first``), T = max length, the tail of
  each shorter sequence filled with ``padding_value``;
- *packed* (:class:`PackedSequence`): only the real entries, time step by time step:
  ``data`` is ``(sum L_b, *)`` and holds ``x[0, 0..bs_0)``, then ``x[1, 0..bs_1)``, ... where
  ``batch_sizes[t] = bs_t`` = the number of sequences longer than t (a CPU int64 tensor).
  An RNN processes step t on the first ``bs_t`` rows of its state only.

For unsorted batches (``enforce_sorted=False``) the batch is sorted first: ``sorted_indices[k]`` is the
original index of the k-th longest sequence and ``unsorted_indices`` is its inverse permutation
(``padded.index_select(batch_dim, unsorted_indices)`` restores the original order).
"""
import numbers
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from ...autograd.function import ArrayFunction
from ...backend import namespace, CPU_BACKEND

# Lengths and batch sizes are CPU tensors (PyTorch's contract, see ``_check_long_tensor``): the index tables
# made from them are made on the host, by numpy, and moved to the data's device where they index it.
_HOST = CPU_BACKEND.xp
from ..._dtype import float16, float32, float64, int8, int16, int32, int64, uint8
from ..._tensor import Tensor
from ...ops.creation import arange, as_tensor, empty_like, full, tensor
from ...ops.join import cat
from ...ops.sorting import sort

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def bind(optional, fn):
    if optional is None:
        return None
    return fn(optional)


class PackedSequence(PackedSequence_):
    r"""Holds the data and list of :attr:`batch_sizes` of a packed sequence.

    All RNN modules accept packed sequences as inputs. Instances are meant to be made by
    :func:`pack_padded_sequence` and :func:`pack_sequence`, not by hand.

    Batch sizes are the number of elements at each time step: for the sequences ``abc`` and ``x``,
    ``data`` is ``axbc`` and ``batch_sizes=[2,1,1]``.

    Attributes:
        data (Tensor): the packed entries, ``(sum of lengths, *)``
        batch_sizes (Tensor): int64 CPU tensor, the batch size at each time step
        sorted_indices (Tensor, optional): how the batch was sorted (original index of each packed column)
        unsorted_indices (Tensor, optional): its inverse, to recover the original order

    ``data`` can be on any device and of any dtype; ``sorted_indices`` / ``unsorted_indices`` are int64
    on ``data``'s device; ``batch_sizes`` is always an int64 CPU tensor.
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices,
                                                                unsorted_indices))

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes,
                          bind(self.sorted_indices, lambda t: t.pin_memory()),
                          bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        r"""Perform dtype and/or device conversion on `self.data` (signature of :meth:`Tensor.to`).

        Returns ``self`` when ``self.data`` already has the dtype and device; otherwise a copy whose
        index tensors follow ``data`` to its device (``batch_sizes`` stays on the CPU).
        """
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        non_blocking = kwargs.get("non_blocking", False)

        def call_to(t):
            return t.to(data.device, non_blocking=non_blocking)

        sorted_indices = bind(self.sorted_indices, call_to)
        unsorted_indices = bind(self.unsorted_indices, call_to)
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args, **kwargs):
        ex = tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.is_cuda:
            return self.to(*args, **kwargs)
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        ex = tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.device.type == "cpu":
            return self.to(*args, **kwargs)
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=float64)

    def float(self):
        return self.to(dtype=float32)

    def half(self):
        return self.to(dtype=float16)

    def long(self):
        return self.to(dtype=int64)

    def int(self):
        return self.to(dtype=int32)

    def short(self):
        return self.to(dtype=int16)

    def char(self):
        return self.to(dtype=int8)

    def byte(self):
        return self.to(dtype=uint8)

    @property
    def is_cuda(self):
        r"""Return true if `self.data` stored on a gpu."""
        return self.data.is_cuda

    def is_pinned(self):
        r"""Return true if `self.data` stored on in pinned memory."""
        return self.data.is_pinned()


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    # NB: unsorted_indices, when given, should be the inverse permutation of sorted_indices (not checked)
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)

    # PackedSequence(data, batch_sizes, sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. "
                "Instances of PackedSequence should never be created manually. "
                "They should be instantiated by functions like pack_sequence "
                "and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence"
            )
        return data, batch_sizes, sorted_indices, unsorted_indices

    # PackedSequence((data, batch_sizes), *, sorted_indices)
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def _packed_sequence_init(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    data, batch_sizes, sorted_indices, unsorted_indices = _packed_sequence_init_args(
        data, batch_sizes, sorted_indices, unsorted_indices)
    return PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices)


def invert_permutation(permutation):
    """Return the inverse of ``permutation`` (``out[permutation[i]] = i``), or None for None."""
    if permutation is None:
        return None
    output = empty_like(permutation)
    output.scatter_(0, permutation, arange(0, permutation.numel(), device=permutation.device))
    return output


# ------------------------------------------------------------------ the packing kernels
def _check_long_tensor(t):
    if not (t.dim() == 1 and t.device.type == "cpu" and t.dtype.name == "int64"):
        names = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                 "bool": "Bool", "float32": "Float", "float64": "Double", "float16": "Half"}
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {t.dim()}D "
                           f"{t.device} {names.get(t.dtype.name, t.dtype.name)} tensor")


def _packed_positions(batch_sizes, steps):
    """The (t, b) position of every packed row, in packed order: t-major, b < batch_sizes[t].

    ``batch_sizes`` is non-increasing, so the rows of step t are a prefix of the batch."""
    xp = _HOST
    bs = xp.asarray(batch_sizes, dtype=np.int64)[:steps]
    width = int(bs[0]) if len(bs) else 0
    return xp.nonzero(xp.arange(width)[None, :] < bs[:, None])


class PackPaddedSequence(ArrayFunction):
    """data = the entries x[t, b] with t < lengths[b], t-major (x: T x B x *, after un-batch_first);
    dx = zeros with the packed rows scattered back to their (t, b) positions."""
    node_name = "PackPaddedSequenceBackward0"

    @staticmethod
    def forward(ctx, x, batch_sizes, batch_first):
        xt = x.swapaxes(0, 1) if batch_first else x
        t_idx, b_idx = _packed_positions(batch_sizes, xt.shape[0])  # steps past T have no rows (as torch)
        ctx.in_shape, ctx.batch_first = x.shape, batch_first
        ctx.t_idx, ctx.b_idx = t_idx, b_idx
        xp = namespace(x)
        return xt[xp.asarray(t_idx), xp.asarray(b_idx)]

    @staticmethod
    def backward(ctx, grad):
        shape = ctx.in_shape
        T, B = (shape[1], shape[0]) if ctx.batch_first else (shape[0], shape[1])
        rows = as_tensor(ctx.t_idx * B + ctx.b_idx, device=grad.device)
        g = _scatter_rows(grad.new_zeros((T * B,) + tuple(shape[2:])), rows, grad).view((T, B) + tuple(shape[2:]))
        if ctx.batch_first:
            g = g.transpose(0, 1)
        return g, None, None


def _scatter_rows(flat, rows, src):
    """``flat.index_copy(0, rows, src)``; nothing to do without rows."""
    if rows.numel() == 0:
        return flat
    return flat.index_copy(0, rows, src)


def _pack_padded_sequence(input, lengths, batch_first):
    """PyTorch's ``_VF._pack_padded_sequence``: (data, batch_sizes) from a padded, sorted batch."""
    batch_size = input.transpose(0, 1).size(1) if batch_first else input.size(1)
    _check_long_tensor(lengths)
    if input.numel() <= 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if lengths.size(0) != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.size(0)} "
                           f"(batch_size={batch_size})")
    xp = _HOST
    lens = xp.asarray(lengths._data)
    if lens[batch_size - 1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element "
                           "in 'lengths' that is <= 0")
    if xp.any(lens[1:] > lens[:-1]):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` "
                           "to pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    # batch_sizes[t] = number of sequences longer than t
    bs = (lens[None, :] > xp.arange(lens[0])[:, None]).sum(1).astype(np.int64)
    data = PackPaddedSequence.apply(input, tuple(bs.tolist()), batch_first)
    return data, as_tensor(bs, dtype=int64)


def _pad_packed_sequence(data, batch_sizes, batch_first, padding_value, total_length):
    """PyTorch's ``_VF._pad_packed_sequence``: the (T, B, *) padded tensor (a ``full`` of padding_value
    with the packed rows copied in: ``CopySlices``) and the lengths, in packed (sorted) order."""
    _check_long_tensor(batch_sizes)
    xp = _HOST
    bs = xp.asarray(batch_sizes._data, dtype=np.int64)
    max_batch_size = int(bs[0])
    steps = len(bs)
    if total_length > 0:
        if total_length < steps:
            raise RuntimeError(f"Expected total_length to be at least the length of the longest sequence in "
                               f"input, but got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    rest = tuple(data.shape[1:])
    output = full((steps, max_batch_size) + rest, padding_value, dtype=data.dtype, device=data.device)
    t_idx, b_idx = _packed_positions(bs, len(bs))
    if len(t_idx):
        rows = as_tensor(t_idx * max_batch_size + b_idx, device=data.device)
        output.view((steps * max_batch_size,) + rest).index_copy_(0, rows, data)
    # lengths[b] = number of steps whose batch is wider than b
    lengths = as_tensor((bs[None, :] > xp.arange(max_batch_size)[:, None]).sum(1).astype(np.int64))
    if batch_first:
        output = output.transpose(0, 1)
    return output, lengths


# ------------------------------------------------------------------ public functions
def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    r"""Packs a Tensor containing padded sequences of variable length.

    :attr:`input` is ``T x B x *`` (``B x T x *`` with :attr:`batch_first`). With
    ``enforce_sorted=True`` the sequences must be sorted by decreasing length (``input[:, 0]`` the
    longest); with ``enforce_sorted=False`` they are sorted here and the permutation is kept in the
    result's ``sorted_indices``. The inverse is :func:`pad_packed_sequence`.

    Args:
        input (Tensor): padded batch of variable length sequences.
        lengths (Tensor or list(int)): the sequence lengths (a CPU tensor if a tensor).
        batch_first (bool, optional): if ``True``, the input is ``B x T x *``. Default: ``False``.
        enforce_sorted (bool, optional): if ``True``, the input must be sorted by decreasing length.
            Default: ``True``.

    Returns:
        a :class:`PackedSequence` object (``data`` has ``PackPaddedSequenceBackward0``)
    """
    if not isinstance(lengths, Tensor):
        lengths = as_tensor(lengths, dtype=int64, device="cpu")
    else:
        lengths = lengths.to(dtype=int64)

    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        batch_dim = 0 if batch_first else 1
        input = input.index_select(batch_dim, sorted_indices)

    data, batch_sizes = _pack_padded_sequence(input, lengths, batch_first)
    return _packed_sequence_init(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    r"""Pad a packed batch of variable length sequences (the inverse of :func:`pack_padded_sequence`).

    Returns the ``T x B x *`` (``B x T x *`` with :attr:`batch_first`) padded tensor, T the longest
    length (or :attr:`total_length`), and the int64 tensor of lengths; both in the batch's original
    order (``unsorted_indices`` applied).

    Args:
        sequence (PackedSequence): batch to pad
        batch_first (bool, optional): if ``True``, the output is ``B x T x *``.
        padding_value (float, optional): values for padded elements.
        total_length (int, optional): pad to this length; ``ValueError`` when it is less than the
            longest sequence.
    """
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError(
                "Expected total_length to be at least the length "
                "of the longest sequence in input, but got "
                f"total_length={total_length} and max sequence length being {max_seq_length}"
            )
        max_seq_length = total_length
    padded_output, lengths = _pad_packed_sequence(sequence.data, sequence.batch_sizes, batch_first,
                                                  padding_value, max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return padded_output.index_select(batch_dim, unsorted_indices), lengths[unsorted_indices.cpu()]
    return padded_output, lengths


def _arg_type_name(obj):
    """A type as PyTorch's argument parser names it: builtins and Tensor bare, others with their module."""
    t = type(obj)
    if isinstance(obj, Tensor):
        return "Tensor"
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _check_pad_sequence_args(sequences, batch_first, padding_value, padding_side):
    """The TypeErrors of PyTorch's C++ ``pad_sequence`` signature, checked argument by argument in order:
    a ``Tensor[]``, a ``bool`` (not an int), a ``float`` (a Python or numpy number, or a 0-dim tensor that
    does not require grad) and a ``str``."""
    for i, s in enumerate(sequences):
        if not isinstance(s, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {_arg_type_name(s)}")
    if not isinstance(batch_first, bool):
        raise TypeError(f"pad_sequence(): argument 'batch_first' (position 2) must be bool, not "
                        f"{_arg_type_name(batch_first)}")
    if isinstance(padding_value, Tensor):
        is_float = padding_value.dim() == 0 and not padding_value.requires_grad
    else:
        is_float = isinstance(padding_value, (numbers.Real, np.bool_))
    if not is_float:
        raise TypeError(f"pad_sequence(): argument 'padding_value' (position 3) must be float, not "
                        f"{_arg_type_name(padding_value)}")
    if not isinstance(padding_side, (str, bytes)):
        raise TypeError(f"pad_sequence(): argument 'padding_side' (position 4) must be str, not "
                        f"{_arg_type_name(padding_side)}")


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    r"""Pad a list of variable length Tensors (each ``L x *``) with :attr:`padding_value`.

    The output is ``T x B x *`` (``B x T x *`` with :attr:`batch_first`), T the longest length, of the
    first sequence's dtype and device; each sequence fills ``[0, L)`` (``padding_side='right'``) or
    ``[T - L, T)`` (``'left'``) of its column. The trailing dims come from the first sequence (the
    others are broadcast to them, as ``copy_`` does).

    Args:
        sequences (list[Tensor]): list of variable length sequences.
        batch_first (bool, optional): if ``True``, the output is ``B x T x *``.
        padding_value (float, optional): value for padded elements. Default: ``0``.
        padding_side (str, optional): the side to pad the sequences on. Default: ``'right'``.
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    _check_pad_sequence_args(sequences, batch_first, padding_value, padding_side)
    if isinstance(padding_side, bytes):  # PyTorch's argument parser reads bytes as a str
        padding_side = padding_side.decode()
    n = len(sequences)
    if n == 0:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    first = sequences[0]
    if first.dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    trailing = tuple(first.shape[1:])
    for s in sequences:
        if s.dim() == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    xp = _HOST   # the lengths are host ints; the row table is moved to ``out``'s device below
    lens = xp.array([s.size(0) for s in sequences], dtype=np.int64)
    max_len = int(lens.max())

    out_dims = ((n, max_len) if batch_first else (max_len, n)) + trailing
    out = full(out_dims, padding_value, dtype=first.dtype, device=first.device)
    total = int(lens.sum())
    if total == 0:
        return out
    # each sequence as L x trailing in out's dtype (a copy_ into such a block, which broadcasts and casts)
    blocks = [s if (tuple(s.shape[1:]) == trailing and s.dtype == first.dtype and s.device == first.device)
              else out.new_empty((s.size(0),) + trailing).copy_(s) for s in sequences]
    src = cat(blocks) if n > 1 else blocks[0]
    # row j of sequence i goes to time t = offset_i + j of column i
    seq = xp.repeat(xp.arange(n), lens)
    starts = xp.cumsum(lens) - lens
    offsets = xp.zeros(n, np.int64) if padding_side == "right" else max_len - lens
    t = xp.arange(total) - xp.repeat(starts, lens) + xp.repeat(offsets, lens)
    rows = seq * max_len + t if batch_first else t * n + seq
    out.view((out_dims[0] * out_dims[1],) + trailing).index_copy_(
        0, as_tensor(rows, device=out.device), src)
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    r"""Unpad a padded Tensor into a list of variable length Tensors (the inverse of :func:`pad_sequence`).

    As in PyTorch, with ``batch_first=False`` :attr:`padded_sequences` is transposed **in place**.

    Args:
        padded_sequences (Tensor): padded sequences.
        lengths (Tensor): length of original (unpadded) sequences.
        batch_first (bool, optional): whether batch dimension first or not. Default: ``False``.

    Returns:
        a list of :class:`Tensor` objects
    """
    unpadded_sequences = []
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    max_length = padded_sequences.shape[1]
    idx = arange(max_length, device=lengths.device)
    for seq, length in zip(padded_sequences, lengths, strict=True):  # one output per sequence
        mask = idx < length
        unpadded_sequences.append(seq[mask])
    return unpadded_sequences


def pack_sequence(sequences, enforce_sorted=True):
    r"""Packs a list of variable length Tensors (``pad_sequence`` then ``pack_padded_sequence``).

    Args:
        sequences (list[Tensor]): A list of sequences of decreasing length (each ``L x *``).
        enforce_sorted (bool, optional): if ``True``, the sequences must be sorted by decreasing length.
            Default: ``True``.

    Returns:
        a :class:`PackedSequence` object
    """
    lengths = as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    r"""Unpack a PackedSequence into a list of variable length Tensors (in the original order).

    Args:
        packed_sequences (PackedSequence): A PackedSequence object.

    Returns:
        a list of :class:`Tensor` objects
    """
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
