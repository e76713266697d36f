"""The layer and loss modules (one file per family, as in PyTorch)."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Identity, Linear, Bilinear
from .flatten import Flatten, Unflatten
from .activation import *  # noqa: F401,F403
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d
from .pooling import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .sparse import Embedding, EmbeddingBag
from .loss import *  # noqa: F401,F403
from .misc import *  # noqa: F401,F403
from .rnn import *  # noqa
from .attention import *  # noqa
from .transformer import *  # noqa
