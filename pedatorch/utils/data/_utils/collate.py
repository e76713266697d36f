"""Collation: a list of samples -> one batch (``default_collate``), and ``default_convert``.

``default_collate`` looks at the first sample and recurses into its structure:

=====================  ==============================================
sample                 batch
=====================  ==============================================
Tensor                 ``stack(samples)`` (a new leading dim)
numpy array            tensors, stacked
numpy scalar           ``as_tensor`` of the list
float / int / bool     a float64 / int64 / bool tensor
str / bytes            the list itself
Mapping                the same mapping type, collated per key
namedtuple             the same namedtuple, collated per field
tuple / other Sequence a list (tuple) / the same type, per position
=====================  ==============================================

Anything else is PyTorch's TypeError.  The rules live in
``default_collate_fn_map`` (type -> function), which users may extend.
"""
import collections
import copy
import re

import numpy as np

from ...._dtype import float64
from ...._tensor import Tensor
from ....ops.creation import as_tensor, tensor
from ....ops.join import stack

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                                  "lists; found {}")


def default_convert(data):
    """Turn the numpy arrays in ``data`` (recursing into mappings and sequences) into tensors."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data  # arrays of strings or objects stay arrays
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # a list, as PyTorch does
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map=None):
    """Collate ``batch`` by the type of its first element: ``collate_fn_map`` first, then containers."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        def per_key():
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update(per_key())
                return clone
            return elem_type(per_key())
        except TypeError:
            return per_key()
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Tensors: stacked along a new first dim (PyTorch stacks into shared memory in a worker; here the
    batch is pickled back to the main process instead)."""
    elem = batch[0]
    if getattr(elem, "is_nested", False):
        raise RuntimeError("Batches of nested tensors are not currently supported by the default collate_fn; "
                           "please provide a custom collate_fn to handle them appropriately.")
    if getattr(elem, "is_sparse", False):
        raise RuntimeError("Batches of sparse tensors are not currently supported by the default collate_fn; "
                           "please provide a custom collate_fn to handle them appropriately.")
    return stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    # through one numpy array, so that the scalars' own dtype (int32, float64, ...) is kept
    return as_tensor(np.array(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    return tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return tensor(batch)  # int64 (bool for bools: bool is an int subclass)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {Tensor: collate_tensor_fn,
                          np.ndarray: collate_numpy_array_fn,
                          (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
                          float: collate_float_fn,
                          int: collate_int_fn,
                          str: collate_str_fn,
                          bytes: collate_str_fn}


def default_collate(batch):
    """Merge a list of samples into a batch (see the table at the top of this module)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
