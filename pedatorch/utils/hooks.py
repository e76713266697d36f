"""Removable hook handles (``torch.utils.hooks.RemovableHandle``)."""
import weakref
from collections import OrderedDict


def _no_dict():
    return None


class RemovableHandle:
    """Returned by every ``register_*hook``; ``handle.remove()`` unregisters the hook."""

    next_id = 0

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]

    # pickling and deepcopy keep the dict itself (a weak reference can't be copied): a deep-copied
    # module's stored handle then removes the copy's hook, not the original's
    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id)

    def __setstate__(self, state):
        hooks_dict, self.id = state
        self.hooks_dict_ref = weakref.ref(hooks_dict) if hooks_dict is not None else _no_dict
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)  # no later id collides

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _HookDict(dict):
    """A dict that can be weakly referenced (plain dicts cannot).  PyTorch keeps hooks in OrderedDicts;
    a dict keeps insertion order too, and prints as the OrderedDict would (``print(m._forward_pre_hooks)``)."""
    __slots__ = ("__weakref__",)

    def __repr__(self):
        return repr(OrderedDict(self))


def add_hook(hooks_dict, fn):
    handle = RemovableHandle(hooks_dict)
    hooks_dict[handle.id] = fn
    return handle
