"""``parameters_to_vector`` / ``vector_to_parameters``: a model's parameters as one flat vector and back."""
from ..._tensor import Tensor, typename
from ...ops.join import cat


def parameters_to_vector(parameters):
    r"""Flatten an iterable of parameters into a single vector (``cat`` of their ``view(-1)``).

    Args:
        parameters (Iterable[Tensor]): an iterable of Tensors that are the parameters of a model.

    Returns:
        The parameters represented by a single vector (differentiable: ``CatBackward0``).
    """
    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.view(-1))
    return cat(vec)


def vector_to_parameters(vec, parameters):
    r"""Copy slices of a vector into an iterable of parameters (each ``param.data`` becomes a view of
    its slice of ``vec``).

    Args:
        vec (Tensor): a single vector representing the parameters of a model.
        parameters (Iterable[Tensor]): an iterable of Tensors that are the parameters of a model.
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param


def _check_param_device(param, old_param_device):
    r"""The device index of the first parameter (-1 for CPU); raise when a later one is elsewhere."""
    support_device_types = ["cuda", "privateuseone"]
    if old_param_device is None:
        old_param_device = param.get_device() if param.device.type in support_device_types else -1
    else:
        warn = False
        if param.device.type in support_device_types:
            warn = param.get_device() != old_param_device
        else:
            warn = old_param_device != -1
        if warn:
            raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return old_param_device
