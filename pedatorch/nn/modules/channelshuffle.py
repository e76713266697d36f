"""ChannelShuffle: interleave the channels of ``groups`` groups."""
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        n, c = input.shape[:2]
        g = self.groups
        return input.reshape(n, g, c // g, *input.shape[2:]).transpose(1, 2).reshape(input.shape)

    def extra_repr(self):
        return f"groups={self.groups}"
