"""LeNet-5 (LeCun et al., 1998), the first convolutional network to read handwritten digits, in its modern form:
ReLU and max pooling where the original had scaled tanh and trainable sub-sampling.

    input 1 x 28 x 28 (MNIST)
    conv1 5x5, 6 channels, padding 2 -> 6 x 28 x 28 -> ReLU -> max pool 2 -> 6 x 14 x 14
    conv2 5x5, 16 channels           -> 16 x 10 x 10 -> ReLU -> max pool 2 -> 16 x 5 x 5
    flatten -> fc1 400 -> 120 -> ReLU -> fc2 84 -> ReLU -> fc3 -> num_classes

With ``padding=0`` conv1 takes the paper's 32 x 32 inputs (e.g. CIFAR-10 with ``in_channels=3``) to the same
sizes.  torchvision has no LeNet; the layer names here follow the paper's C1, C3, F5, F6, output.
"""
from ... import nn

__all__ = ["LeNet5", "lenet5"]


class LeNet5(nn.Module):
    """LeNet-5 for 28x28 (padding=2) or 32x32 (padding=0) images with ``in_channels`` channels."""

    def __init__(self, num_classes=10, in_channels=1, padding=2):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, 6, kernel_size=5, padding=padding), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(6, 16, kernel_size=5), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=2, stride=2),
        )
        self.classifier = nn.Sequential(
            nn.Linear(16 * 5 * 5, 120), nn.ReLU(inplace=True),
            nn.Linear(120, 84), nn.ReLU(inplace=True),
            nn.Linear(84, num_classes),
        )

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def lenet5(*, num_classes=10, in_channels=1, padding=2):
    """LeNet-5 with PyTorch's default initialisation (there are no pretrained weights)."""
    return LeNet5(num_classes=num_classes, in_channels=in_channels, padding=padding)
