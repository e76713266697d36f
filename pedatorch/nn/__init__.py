"""``pedatorch.nn``: Modules, Parameters, layers, losses, init and utils."""
from .parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer
from . import functional, init  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module, Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict  # noqa: F401
from .modules.module import (register_module_forward_pre_hook, register_module_forward_hook,  # noqa: F401
                             register_module_full_backward_hook)
from . import utils  # noqa: F401,E402
from . import parallel, attention  # noqa: F401,E402
from .parallel import DataParallel  # noqa: F401,E402
