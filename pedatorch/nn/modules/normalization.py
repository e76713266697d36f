"""LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm, and the legacy CrossMapLRN2d."""
import numbers

from ...autograd.function import Function
from ...ops.creation import empty, zeros
from ..parameter import Parameter
from .. import functional as F, init
from .module import Module

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm", "CrossMapLRN2d"]


class LayerNorm(Module):
    """Normalise over the last ``len(normalized_shape)`` dims, then scale and shift (elementwise)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        kw = {"device": device, "dtype": dtype}
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, **kw))
            if bias:
                self.bias = Parameter(empty(self.normalized_shape, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        kw = {"device": device, "dtype": dtype}
        if affine:
            self.weight = Parameter(empty(num_channels, **kw))
            if bias:
                self.bias = Parameter(empty(num_channels, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class _CrossMapLRN2dFunction(Function):
    """Lua Torch's cross-channel LRN, kept by PyTorch as a Python autograd Function with its own backward:
    out = x * (k + alpha / size * window_sum(x^2))^-beta.  The window sum is a running sum over the channels,
    in PyTorch's order of adds and subtracts; note that it never subtracts channel 0 again (a quirk kept
    here, as the numbers must be PyTorch's).  The backward is PyTorch's hand-written formula too."""
    node_name = "CrossMapLRN2dBackward"

    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        channels = input.size(1)
        square = input.pow(2)
        pre_pad = int((size - 1) / 2 + 1)
        scale = empty(input.shape, dtype=input.dtype, device=input.device)
        first = scale.select(1, 0)
        first.zero_()
        for c in range(min(pre_pad, channels)):
            first.add_(square.select(1, c))
        for c in range(1, channels):   # slide the window: add the channel entering it, drop one leaving it
            current = scale.select(1, c)
            current.copy_(scale.select(1, c - 1))
            if c < channels - pre_pad + 1:
                current.add_(square.select(1, c + pre_pad - 1))
            if c > pre_pad:
                current.sub_(square.select(1, c - pre_pad))
        scale.mul_(alpha / size).add_(k)
        output = scale.pow(-beta).mul_(input)
        ctx.size, ctx.alpha, ctx.beta, ctx.scale = size, alpha, beta, scale
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output = ctx.saved_tensors
        size, scale = ctx.size, ctx.scale
        batch, channels, height, width = input.shape
        grad_input = scale.pow(-ctx.beta).mul_(grad_output)
        # grad_output * output / scale per channel, zero-padded in front; a window of `size` of them is
        # summed for each channel (the offset is PyTorch's, as is the failure of narrow() for size 1)
        padded = zeros(channels + size - 1, height, width, dtype=input.dtype, device=input.device)
        centre = padded.narrow(0, int(size - (size - 1) / 2), channels)
        coef = 2 * ctx.alpha * ctx.beta / size
        for n in range(batch):
            centre.copy_(grad_output[n] * output[n] / scale[n])
            window = padded.narrow(0, 0, size - 1).sum(0)
            for c in range(channels):
                window.add_(padded[c + size - 1])
                grad_input[n][c].addcmul_(input[n][c], window, value=-coef)
                window.sub_(padded[c])
        return grad_input, None, None, None, None


class CrossMapLRN2d(Module):
    """Local response normalization across channels (the legacy Lua Torch layer; see LocalResponseNorm)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return _CrossMapLRN2dFunction.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
