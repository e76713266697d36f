"""The objects ``trace``, ``script`` and ``load`` return: modules and functions that run a graph.

``TracedModule`` mirrors the traced module's tree (same submodule names, the *same* parameter and
buffer tensors, as in PyTorch: training the traced module trains the original), and its ``forward``
runs the recorded graph, which fetches the parameters from it by name on every call.  So
``state_dict``/``load_state_dict``/``to``/``train``/``eval`` work as on any module.
"""
import functools
from collections import OrderedDict

from ..nn.modules.module import Module

__all__ = ["ScriptModule", "RecursiveScriptModule", "TracedModule", "TopLevelTracedModule", "ScriptFunction"]


class ScriptModule(Module):
    """A module whose methods are graphs (traced), or checked Python (scripted), not Python alone."""

    _graphs = None

    @property
    def graph(self):
        """The graph of ``forward`` (print it to read it, in TorchScript's IR layout)."""
        return self._method_graph("forward")

    @property
    def inlined_graph(self):
        return self._method_graph("forward")

    @property
    def code(self):
        """``forward`` as Python-like code."""
        return self._method_graph("forward").code_text("forward")

    def _method_graph(self, name):
        graphs = self.__dict__.get("_graphs") or {}
        if name not in graphs:
            raise RuntimeError(f"Method '{name}' is not defined")
        return graphs[name]

    def _set_graph(self, name, graph):
        graphs = self.__dict__.setdefault("_graphs", {})
        graphs[name] = graph
        if name != "forward":
            # another traced method (trace_module): callable by its name
            self.__dict__[name] = functools.partial(_run_method, self, name)

    def forward(self, *args, **kwargs):
        graphs = self.__dict__.get("_graphs")
        if not graphs:
            raise RuntimeError(f"'{self._get_name()}' was traced as part of the module that holds it: only the "
                               "methods of the traced module itself run as graphs. Call the traced module, or trace "
                               "this submodule on its own.")
        return graphs["forward"].run(self, args, kwargs)

    def save(self, f, **kwargs):
        """Write the module to ``f`` (a path or a binary file): see ``pedatorch.jit.save``."""
        from ._serialization import save
        save(self, f, _extra_files=kwargs.get("_extra_files"))

    def _get_name(self):
        return self.__dict__.get("original_name") or type(self).__name__

    def extra_repr(self):
        return f"original_name={self._get_name()}"


class RecursiveScriptModule(ScriptModule):
    """What ``script`` and ``load`` return for a module."""

    def __init__(self, name=None):
        super().__init__()
        if name is not None:
            self.__dict__["original_name"] = name


class TracedModule(ScriptModule):
    """A traced module: the original's tree of parameters, and a graph per traced method."""

    def __init__(self, orig=None, name=None):
        super().__init__()
        if orig is None:
            return
        self.__dict__["original_name"] = name or type(orig).__name__
        self.training = orig.training
        # the same tensors: the traced module and the original share their parameters (as in PyTorch)
        self._parameters = OrderedDict(orig._parameters)
        self._buffers = OrderedDict(orig._buffers)
        self._non_persistent_buffers_set = set(getattr(orig, "_non_persistent_buffers_set", ()))
        for key, child in orig._modules.items():
            self._modules[key] = None if child is None else TracedModule(child)



class TopLevelTracedModule(TracedModule):
    """The object ``trace(module, ...)`` returns."""


def _run_method(module, name, *args, **kwargs):
    return module._graphs[name].run(module, args, kwargs)


class ScriptFunction:
    """A traced (or loaded) function: calling it runs its graph."""

    def __init__(self, graph, name):
        self.graph = graph
        self.name = name
        self.qualified_name = "__torch__." + name

    @property
    def inlined_graph(self):
        return self.graph

    @property
    def code(self):
        return self.graph.code_text(self.name, method=False)

    def __call__(self, *args, **kwargs):
        return self.graph.run(None, args, kwargs)

    def save(self, f, **kwargs):
        from ._serialization import save
        save(self, f, _extra_files=kwargs.get("_extra_files"))

    def __repr__(self):
        return f"<pedatorch.jit.ScriptFunction object '{self.name}'>"
