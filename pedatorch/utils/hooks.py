"""Removable hook handles (``torch.utils.hooks.RemovableHandle``)."""
import itertools
import weakref

_ids = itertools.count()


class RemovableHandle:
    """Returned by every ``register_*hook``; ``handle.remove()`` unregisters the hook."""

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(_ids)

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _HookDict(dict):
    """A dict that can be weakly referenced (plain dicts cannot)."""
    __slots__ = ("__weakref__",)


def add_hook(hooks_dict, fn):
    handle = RemovableHandle(hooks_dict)
    hooks_dict[handle.id] = fn
    return handle
