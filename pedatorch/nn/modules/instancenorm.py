"""InstanceNorm1d/2d/3d and their lazy forms: batch norm's statistics taken per sample and channel."""
from .. import functional as F
from .batchnorm import _NormBase, _LazyNormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]


class _InstanceNorm(_NormBase):
    _n = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias)

    def forward(self, input):
        if input.dim() not in (self._n + 1, self._n + 2):
            raise ValueError(f"expected {self._n + 1}D or {self._n + 2}D input (got {input.dim()}D input)")
        unbatched = input.dim() == self._n + 1
        if unbatched:
            input = input.unsqueeze(0)
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats, self.momentum if self.momentum
                              is not None else 0.1, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    _n = 1


class InstanceNorm2d(_InstanceNorm):
    _n = 2


class InstanceNorm3d(_InstanceNorm):
    _n = 3


# PyTorch's lazy instance norms default to affine=True and track_running_stats=True (the eager ones to
# False), and take num_features from input.shape[1] even for an unbatched input, as _LazyNormBase does.
class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    _n = 1
    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    _n = 2
    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    _n = 3
    cls_to_become = InstanceNorm3d
