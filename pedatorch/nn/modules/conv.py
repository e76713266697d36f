"""Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d and their lazy forms (PyTorch's initialisation and
repr)."""
import collections.abc
import math

from ...ops.creation import empty
from ..parameter import Parameter, UninitializedParameter
from .. import functional as F, init
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d",
           "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]


def _ntuple(n):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):  # as PyTorch's _pair: any iterable, a string included
            return tuple(x)
        return (x,) * n
    return parse


class _ConvNd(Module):
    _n = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                 output_padding, groups, bias, padding_mode, device=None, dtype=None):
        super().__init__()
        tup = _ntuple(self._n)
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in tup(stride)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = tup(kernel_size)
        self.stride = tup(stride)
        self.padding = padding if isinstance(padding, str) else tup(padding)
        self.dilation = tup(dilation)
        self.transposed = transposed
        self.output_padding = tup(output_padding)
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(self.padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(self.kernel_size)
            if padding == "same":
                for d, k, i in zip(self.dilation, self.kernel_size, range(len(self.kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    self._reversed_padding_repeated_twice[2 * i] = left
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - left
        else:
            # a tuple here (PyTorch's _reverse_repeat_tuple), a list for the string paddings above
            self._reversed_padding_repeated_twice = tuple(p for p in reversed(self.padding) for _ in range(2))
        kw = {"device": device, "dtype": dtype}
        if transposed:
            self.weight = Parameter(empty((in_channels, out_channels // groups, *self.kernel_size), **kw))
        else:
            self.weight = Parameter(empty((out_channels, in_channels // groups, *self.kernel_size), **kw))
        if bias:
            self.bias = Parameter(empty(out_channels, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def _padded(self, input):
        return F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)


class Conv1d(_ConvNd):
    _n = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, False, 0, groups, bias,
                         padding_mode, device, dtype)

    def forward(self, input):
        if self.padding_mode != "zeros":
            return F.conv1d(self._padded(input), self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv2d(_ConvNd):
    _n = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, False, 0, groups, bias,
                         padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            return F.conv2d(self._padded(input), weight, bias, self.stride, 0, self.dilation, self.groups)
        return F.conv2d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv3d(_ConvNd):
    _n = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, False, 0, groups, bias,
                         padding_mode, device, dtype)

    def forward(self, input):
        if self.padding_mode != "zeros":
            return F.conv3d(self._padded(input), self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return F.conv3d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        # PyTorch tuples the padding first (no 'same'/'valid' here): a string becomes a tuple of its letters
        padding = _ntuple(self._n)(padding)
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, True, output_padding,
                         groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size):
        """The output_padding that makes the output ``output_size`` (its spatial sizes, or with the batch and
        channel sizes in front), checked against the sizes the stride allows."""
        if output_size is None:
            return self.output_padding
        n = self._n
        non_spatial = 2 if input.dim() == n + 2 else 1
        if len(output_size) == non_spatial + n:
            output_size = output_size[non_spatial:]  # sliced as given: a list stays a list, a Size a Size
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or "
                             f"{non_spatial + n} elements (got {len(output_size)})")
        min_sizes = [(input.shape[non_spatial + d] - 1) * self.stride[d] - 2 * self.padding[d] + self.dilation[d]
                     * (self.kernel_size[d] - 1) + 1 for d in range(n)]
        max_sizes = [m + s - 1 for m, s in zip(min_sizes, self.stride)]
        for size, lo, hi in zip(output_size, min_sizes, max_sizes):
            if size < lo or size > hi:
                # PyTorch names the input's sizes from dim 2 on, even for an unbatched input
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from "
                                 f"{min_sizes} to {max_sizes} (for an input of {input.size()[2:]})")
        return [size - lo for size, lo in zip(output_size, min_sizes)]


class ConvTranspose1d(_ConvTransposeNd):
    _n = 1

    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size)
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                                  self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    _n = 2

    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                                  self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    _n = 3

    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size)
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                                  self.dilation)


# ---------------------------------------------------------------------------- lazy convolutions
class _LazyConvXdMixin(LazyModuleMixin):
    """``in_channels`` from the first input: dim 1 of a batch, dim 0 of an unbatched input."""

    def _make_lazy(self, out_channels, bias, device, dtype):
        # the conv was built with 0 channels and no bias; the placeholders take the weight's and bias's place
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                self.weight.materialize((self.in_channels, self.out_channels // self.groups, *self.kernel_size))
            else:
                self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        unbatched, batched = self._n + 1, self._n + 2
        if input.dim() not in (unbatched, batched):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {batched}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == batched else input.shape[0]


class _LazyConvNd(_LazyConvXdMixin):
    """``LazyConv1d(out_channels, kernel_size, ...)``: Conv's arguments without ``in_channels``."""

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                         device=device, dtype=dtype)
        self._make_lazy(out_channels, bias, device, dtype)


class _LazyConvTransposeNd(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                         padding_mode, device=device, dtype=dtype)
        self._make_lazy(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConvNd, Conv1d):
    cls_to_become = Conv1d


class LazyConv2d(_LazyConvNd, Conv2d):
    cls_to_become = Conv2d


class LazyConv3d(_LazyConvNd, Conv3d):
    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTransposeNd, ConvTranspose1d):
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTransposeNd, ConvTranspose2d):
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTransposeNd, ConvTranspose3d):
    cls_to_become = ConvTranspose3d
