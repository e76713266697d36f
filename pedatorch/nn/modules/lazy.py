"""``LazyModuleMixin``: layers that learn their input size from the first batch (``nn.LazyLinear(10)``).

A lazy layer is its ordinary layer built with size 0, whose parameters and buffers are then replaced
by ``UninitializedParameter``/``UninitializedBuffer`` placeholders.  Two hooks do the rest:

  forward pre-hook   on the first call: ``initialize_parameters(input)`` infers the size, materialises
                     the placeholders (same objects, now with memory) and calls ``reset_parameters``
                     (the same random draws as the ordinary layer); then both hooks are removed and the
                     object's class becomes ``cls_to_become`` (``LazyLinear`` -> ``Linear``).
  load pre-hook      ``load_state_dict`` materialises each placeholder with the checkpoint's shape first.

Each lazy class writes only ``__init__`` and ``initialize_parameters``; the layer code is its parent's.
"""
import itertools

from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mix in before the layer class: ``class LazyLinear(LazyModuleMixin, Linear)``."""

    cls_to_become = None  # the class the module turns into once its parameters are materialised

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # as Module's, but a placeholder is saved as itself: detach() would make it an ordinary empty tensor
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs):
        """Before loading: give each placeholder the shape of the tensor the checkpoint has for it."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if param is not None and key in state_dict and is_lazy(param) and not is_lazy(state_dict[key]):
                param.materialize(state_dict[key].shape)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        """The forward pre-hook: materialise from the first input, then stop being lazy."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        del module._initialize_hook, module._load_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. Run a "
                           "dummy forward pass to correctly initialize the modules")
