"""Changing only the convolutions' weights to another memory format (e.g. ``torch.channels_last``).

The memory format is how a 4-d (5-d) tensor's entries are laid out (the strides): channels last puts the
channels of one pixel next to each other, which fast convolution kernels prefer.  The values and the
meaning of each dim do not change."""
from ..._tensor import preserve_format
from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds, recurse):
    if isinstance(module, kinds):
        weight_data = module.weight.detach().clone(memory_format=memory_format)
        if memory_format is preserve_format:
            # PyTorch restrides the copy with resize_(size, memory_format), which takes no preserve_format
            raise RuntimeError("Unsupported memory formatPreserve")
        module.weight.data = weight_data   # the same Parameter, its data laid out anew
    for child in module.children():
        recurse(child, memory_format)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Lay out the weight of every ``Conv2d`` / ``ConvTranspose2d`` in ``module`` (itself included) in
    ``memory_format``.  Returns the module."""
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d), convert_conv2d_weight_memory_format)


def convert_conv3d_weight_memory_format(module, memory_format):
    """Lay out the weight of every ``Conv3d`` / ``ConvTranspose3d`` in ``module`` (itself included) in
    ``memory_format``.  Returns the module."""
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d), convert_conv3d_weight_memory_format)
