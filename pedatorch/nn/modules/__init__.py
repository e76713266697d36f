"""The layer and loss modules, one file per family under PyTorch's file names
(``pedatorch.nn.modules.conv.Conv2d`` is ``torch.nn.modules.conv.Conv2d``)."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Identity, Linear, Bilinear, LazyLinear
from .flatten import Flatten, Unflatten
from .activation import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .sparse import Embedding, EmbeddingBag
from .loss import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .channelshuffle import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .rnn import *  # noqa
from .attention import *  # noqa
from .transformer import *  # noqa
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: F401
