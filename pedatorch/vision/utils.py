"""Pictures of image batches: ``make_grid`` tiles images into one, ``save_image`` writes that to a file."""
import math

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops.join import cat, stack
from ._image import pil

__all__ = ["make_grid", "save_image"]


@no_grad()
def make_grid(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False, pad_value=0.0):
    """Tile a batch (B, C, H, W) (or a list of images) into one image (C, rows * (H + padding) + padding, ...),
    ``nrow`` images per row.  One-channel images become three-channel.  ``normalize`` maps ``value_range``
    (default: the tensor's min and max; with ``scale_each``, per image) to [0, 1]."""
    if not isinstance(tensor, Tensor):
        if isinstance(tensor, list):
            for t in tensor:
                if not isinstance(t, Tensor):
                    raise TypeError(f"tensor or list of tensors expected, got a list containing {type(t)}")
        else:
            raise TypeError(f"tensor or list of tensors expected, got {type(tensor)}")
    if isinstance(tensor, list):
        tensor = stack(tensor, dim=0)
    if tensor.dim() == 2:        # one image H x W
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 3:        # one image C x H x W
        if tensor.size(0) == 1:
            tensor = cat((tensor, tensor, tensor), 0)
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 4 and tensor.size(1) == 1:
        tensor = cat((tensor, tensor, tensor), 1)

    if normalize is True:
        tensor = tensor.clone()
        if value_range is not None and not isinstance(value_range, tuple):
            raise TypeError("value_range has to be a tuple (min, max) if specified. min and max are numbers")

        def norm_ip(img, low, high):
            img.clamp_(min=low, max=high)
            img.sub_(low).div_(max(high - low, 1e-5))

        def norm_range(t):
            if value_range is not None:
                norm_ip(t, value_range[0], value_range[1])
            else:
                norm_ip(t, float(t.min()), float(t.max()))
        if scale_each is True:
            for t in tensor:
                norm_range(t)
        else:
            norm_range(tensor)

    if tensor.size(0) == 1:
        return tensor.squeeze(0)
    nmaps = tensor.size(0)
    xmaps = min(nrow, nmaps)
    ymaps = int(math.ceil(float(nmaps) / xmaps))
    height, width = int(tensor.size(2) + padding), int(tensor.size(3) + padding)
    grid = tensor.new_full((tensor.size(1), height * ymaps + padding, width * xmaps + padding), pad_value)
    for k in range(nmaps):
        y, x = divmod(k, xmaps)
        grid.narrow(1, y * height + padding, height - padding).narrow(2, x * width + padding,
                                                                      width - padding).copy_(tensor[k])
    return grid


@no_grad()
def save_image(tensor, fp, format=None, **kwargs):
    """Write an image tensor (or a batch, as make_grid(**kwargs) tiles it) with values in [0, 1] to an image file
    (PNG, JPEG... from the name's extension, or ``format`` for a file object).  Needs Pillow."""
    grid = make_grid(tensor, **kwargs)
    # scale to [0, 255] and add 0.5 so that the cast to uint8 rounds to the nearest integer
    ndarr = grid.mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to("cpu", D.uint8).numpy()
    pil().fromarray(ndarr).save(fp, format=format)
