"""``pedatorch.nn``: Modules, Parameters, layers, losses, init and utils."""
from .parameter import Parameter, Buffer
from . import functional, init  # noqa: F401
