"""``nn.Parameter``: a leaf tensor that a Module registers as one of its parameters."""
from .._tensor import Tensor

__all__ = ["Parameter", "Buffer"]


class Parameter(Tensor):
    """A Tensor that requires grad by default and is registered when assigned to a Module attribute.

    It shares memory with the tensor it wraps (``Parameter(t)`` views ``t``'s data); ops on a
    Parameter return plain Tensors.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from ..ops.creation import empty
            data = empty(0)
        p = Tensor.__new__(cls)  # the legacy constructor would copy: wrap the same array instead
        p._init_from(data._data, False)
        p._version_counter = data._shared_version()
        if requires_grad:
            p.requires_grad = True
        return p

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (Tensor._make(self._data.copy() if not self.is_cuda else self._data),
                                     self._requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        new = Parameter(Tensor._make(self._data.copy()), self._requires_grad)
        memo[id(self)] = new
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        return new


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


class Buffer(Tensor):
    """``nn.Buffer(t)``: marks a tensor to be registered as a buffer when assigned to a Module."""

    def __new__(cls, data=None, *, persistent=True):
        from ..ops.creation import empty
        data = empty(0) if data is None else data
        b = Tensor.__new__(cls)
        b._init_from(data._data, False)
        b.persistent = persistent
        return b
