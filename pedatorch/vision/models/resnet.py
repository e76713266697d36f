"""ResNet (He et al., 2015, "Deep Residual Learning for Image Recognition"), as torchvision builds it.

A residual block computes relu(x + F(x)): the layers learn a correction F to the identity, so a very deep
network starts out close to one that passes its input through, and gradients reach the first layers along the
identity path.  ``BasicBlock`` (two 3x3 convolutions: ResNet-18/34) and ``Bottleneck`` (1x1 down, 3x3, 1x1 up
by 4: ResNet-50 and deeper) are the two kinds of F.  Where a block changes the resolution or the width, the
identity path becomes a strided 1x1 convolution + batch norm (``downsample``).

The module names, parameter shapes and initialisation are torchvision's, so a torchvision state_dict loads
with ``load_state_dict(strict=True)`` and ``manual_seed(s); resnet18()`` has the weights torchvision's has:

    conv1 bn1 relu maxpool  layer1..layer4 (each an nn.Sequential of blocks: conv1 bn1 conv2 bn2 [conv3 bn3]
    [downsample.0 downsample.1])  avgpool fc
"""
from ... import nn
from ._api import WeightsEnum, _imagenet_weights, _weights_arg

__all__ = ["ResNet", "BasicBlock", "Bottleneck", "ResNet18_Weights", "ResNet34_Weights", "ResNet50_Weights",
           "ResNet101_Weights", "ResNet152_Weights", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152"]


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    """3x3 convolution with padding (no bias: a batch norm follows)."""
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation, groups=groups, bias=False,
                     dilation=dilation)


def conv1x1(in_planes, out_planes, stride=1):
    """1x1 convolution (no bias)."""
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    """relu(x + bn2(conv2(relu(bn1(conv1(x))))))."""
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class Bottleneck(nn.Module):
    """relu(x + bn3(conv3(relu(bn2(conv2(relu(bn1(conv1(x))))))))): 1x1 to ``width``, 3x3 (strided: "ResNet
    v1.5", as torchvision), 1x1 to 4 x ``planes``."""
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet(nn.Module):
    """The stem (7x7 stride-2 convolution, batch norm, relu, 3x3 stride-2 max pool), four stages of ``layers``
    blocks (64, 128, 256, 512 planes; stride 2 from the second stage on), global average pool, linear classifier.

    zero_init_residual: start each block's last batch norm at weight 0, so that each block begins as the
    identity; replace_stride_with_dilation: per stage 2..4, keep the resolution and dilate instead.
    """

    def __init__(self, block, layers, num_classes=1000, zero_init_residual=False, groups=1, width_per_group=64,
                 replace_stride_with_dilation=None, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self._norm_layer = norm_layer
        self.inplanes = 64
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError("replace_stride_with_dilation should be None or a 3-element tuple, got "
                             f"{replace_stride_with_dilation}")
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2, dilate=replace_stride_with_dilation[0])
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2, dilate=replace_stride_with_dilation[1])
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2, dilate=replace_stride_with_dilation[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)

        # torchvision's initialisation, in its order (the layers above drew their defaults first)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        if zero_init_residual:
            for m in self.modules():
                if isinstance(m, Bottleneck) and m.bn3.weight is not None:
                    nn.init.constant_(m.bn3.weight, 0)
                elif isinstance(m, BasicBlock) and m.bn2.weight is not None:
                    nn.init.constant_(m.bn2.weight, 0)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        """One stage: a first block that may change resolution and width (with a downsample on its identity
        path), then blocks - 1 that keep them."""
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(conv1x1(self.inplanes, planes * block.expansion, stride),
                                       norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width, previous_dilation,
                        norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                                dilation=self.dilation, norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = self.avgpool(x).flatten(1)
        return self.fc(x)


_RECIPE = "https://github.com/pytorch/vision/tree/main/references/classification#resnet"


class ResNet18_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet_weights("https://download.pytorch.org/models/resnet18-f37072fd.pth", 11689512,
                                      recipe=_RECIPE)
    DEFAULT = IMAGENET1K_V1


class ResNet34_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet_weights("https://download.pytorch.org/models/resnet34-b627a593.pth", 21797672,
                                      recipe=_RECIPE)
    DEFAULT = IMAGENET1K_V1


class ResNet50_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet_weights("https://download.pytorch.org/models/resnet50-0676ba61.pth", 25557032,
                                      recipe=_RECIPE)
    IMAGENET1K_V2 = _imagenet_weights("https://download.pytorch.org/models/resnet50-11ad3fa6.pth", 25557032,
                                      resize_size=232)
    DEFAULT = IMAGENET1K_V2


class ResNet101_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet_weights("https://download.pytorch.org/models/resnet101-63fe2227.pth", 44549160,
                                      recipe=_RECIPE)
    IMAGENET1K_V2 = _imagenet_weights("https://download.pytorch.org/models/resnet101-cd907fc2.pth", 44549160,
                                      resize_size=232)
    DEFAULT = IMAGENET1K_V2


class ResNet152_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet_weights("https://download.pytorch.org/models/resnet152-394f9c45.pth", 60192808,
                                      recipe=_RECIPE)
    IMAGENET1K_V2 = _imagenet_weights("https://download.pytorch.org/models/resnet152-f82ba261.pth", 60192808,
                                      resize_size=232)
    DEFAULT = IMAGENET1K_V2


def _resnet(block, layers, weights_enum, weights, progress, kwargs):
    _weights_arg(weights_enum, weights, kwargs)
    return ResNet(block, layers, **kwargs)


def resnet18(*, weights=None, progress=True, **kwargs):
    """ResNet-18: BasicBlocks [2, 2, 2, 2] (11.7 M parameters for 1000 classes)."""
    return _resnet(BasicBlock, [2, 2, 2, 2], ResNet18_Weights, weights, progress, kwargs)


def resnet34(*, weights=None, progress=True, **kwargs):
    """ResNet-34: BasicBlocks [3, 4, 6, 3]."""
    return _resnet(BasicBlock, [3, 4, 6, 3], ResNet34_Weights, weights, progress, kwargs)


def resnet50(*, weights=None, progress=True, **kwargs):
    """ResNet-50: Bottlenecks [3, 4, 6, 3]."""
    return _resnet(Bottleneck, [3, 4, 6, 3], ResNet50_Weights, weights, progress, kwargs)


def resnet101(*, weights=None, progress=True, **kwargs):
    """ResNet-101: Bottlenecks [3, 4, 23, 3]."""
    return _resnet(Bottleneck, [3, 4, 23, 3], ResNet101_Weights, weights, progress, kwargs)


def resnet152(*, weights=None, progress=True, **kwargs):
    """ResNet-152: Bottlenecks [3, 8, 36, 3]."""
    return _resnet(Bottleneck, [3, 8, 36, 3], ResNet152_Weights, weights, progress, kwargs)
