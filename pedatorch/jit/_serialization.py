"""``jit.save`` / ``jit.load``: a traced program in a file, without pickled code.

The file is a zip archive:

    pedatorch_jit/graph.json     the module tree, and each method's graph: its nodes name their op by
                                 its place in pedatorch ("ops.linalg.Addmm"), their arguments as JSON
    pedatorch_jit/tensors/<i>    each tensor (parameters, buffers, constants) as raw bytes; its dtype
                                 and shape are in graph.json
    pedatorch_jit/extra/<name>   the ``_extra_files``

Loading looks every op up in the table of pedatorch's built-in ops and every argument object in a
short list of known classes, so a file can only ever call pedatorch's own ops: opening one runs no code
from it.  PyTorch cannot read these files, and PyTorch's TorchScript archives (``.pt`` files holding
pickled Python and TorchScript code) cannot be read here.
"""
import io
import json
import math
import os
import zipfile

import numpy as np

from .._device import device
from ..backend import CPU_BACKEND, is_array, to_host
from .._dtype import dtype, _dtype_by_name as _any_by_name
from .._tensor import Tensor
from ..nn.parameter import Parameter
from ..utils._pytree import TreeSpec, LeafSpec
from ._ir import Graph, Node, Value, TensorMeta, SymInt, KeyIndex, KeyMask, RnnSteps, op_key, op_table
from ._module import ScriptModule, ScriptFunction, RecursiveScriptModule

__all__ = ["save", "load"]

_ROOT = "pedatorch_jit/"
_host = CPU_BACKEND.xp   # files hold host bytes
_FORMAT_VERSION = 1


# ---------------------------------------------------------------- the tables a file may name

def _object_classes():
    """The argument objects ops take besides plain values: the geometry of convolutions and poolings."""
    from ..nn.functional.conv import _Geom
    from ..nn.functional.pooling import _Pool
    return {"nn.functional.conv._Geom": _Geom, "nn.functional.pooling._Pool": _Pool}


# ---------------------------------------------------------------- writing

class _Writer:
    def __init__(self):
        self.tensors = []      # (array, requires_grad)
        self.by_id = {}
        self.classes = {cls: key for key, cls in _object_classes().items()}

    def tensor(self, t):
        """The index of tensor (or array) ``t`` in the file's tensor list (each tensor once)."""
        key = id(t)
        if key not in self.by_id:
            arr = t._data if isinstance(t, Tensor) else t
            self.by_id[key] = len(self.tensors)
            self.tensors.append((arr, isinstance(t, Tensor) and t.requires_grad, t))
        return self.by_id[key]

    def arg(self, a, where):
        """An argument as JSON."""
        t = type(a)
        if t is Value:
            return {"v": a.index}
        if t is SymInt:
            return {"sym": [a.coef, list(a.symbols)]}
        if t is KeyIndex:
            return {"key_index": a.value.index}
        if t is KeyMask:
            return {"key_mask": [a.value.index, a.j]}
        if t is RnnSteps:
            return {"rnn_steps": a.value.index}
        if t is tuple:
            return {"tuple": [self.arg(x, where) for x in a]}
        if t is list:
            return [self.arg(x, where) for x in a]
        if t is slice:
            return {"slice": [self.arg(x, where) for x in (a.start, a.stop, a.step)]}
        if a is None or t is bool or t is int or t is str:
            return a
        if t is float:
            return a if math.isfinite(a) else {"float": repr(a)}
        if t is complex:
            return {"complex": [self.arg(a.real, where), self.arg(a.imag, where)]}
        if a is Ellipsis:
            return {"ellipsis": True}
        if is_array(a):
            return {"array": self.tensor(a)}
        if isinstance(a, np.dtype):
            return {"np_dtype": a.name}
        if isinstance(a, dtype):
            return {"dtype": a.name}
        if isinstance(a, device):
            return {"device": str(a)}
        if isinstance(a, (np.integer, np.floating, np.bool_)):
            return self.arg(a.item(), where)
        key = self.classes.get(type(a))
        if key is not None:
            return {"object": key, "slots": {s: self.arg(getattr(a, s), where) for s in type(a).__slots__}}
        raise RuntimeError(f"pedatorch.jit.save cannot write the argument {a!r} (of type {type(a).__name__}) of {where}")

    def spec(self, spec):
        if spec.is_leaf():
            return None
        if spec.type in (tuple, list):
            kind = spec.type.__name__
        elif issubclass(spec.type, dict):
            kind = "dict"
        elif issubclass(spec.type, tuple):   # a namedtuple is written as a tuple (its class is code)
            kind = "tuple"
        else:
            raise RuntimeError(f"pedatorch.jit.save cannot write a container of type {spec.type.__name__}")
        return {"type": kind, "context": spec.context, "children": [self.spec(c) for c in spec.children_specs]}

    def graph(self, g, ops):
        nodes = []
        for i, n in enumerate(g.nodes):
            where = f"op #{i} {n.name()}"
            entry = {"kind": n.kind, "outputs": [v.index for v in n.outputs]}
            if n.kind == "op":
                key = op_key(n.op)
                if ops.get(key) is not n.op:
                    raise RuntimeError(f"pedatorch.jit.save cannot write {where}: its op class {n.op.__qualname__} has "
                                       "no unique name among pedatorch's ops")
                entry["op"] = key
            elif n.kind == "param":
                entry["op"] = n.op
            elif n.kind == "const":
                entry["op"] = self.tensor(n.op)
                entry["fresh"] = n in g.fresh_consts
            entry["args"] = self.arg(n.args, where)
            if n.multi:
                entry["multi"] = True
            if n.scope:
                entry["scope"] = n.scope
            if not n.grad:
                entry["grad"] = False
            nodes.append(entry)
        return {
            "values": [{"name": v.name, "meta": _meta_json(v.meta), "shape": self.arg(v.shape, v.name)}
                       for v in g.values],
            "inputs": [v.index for v in g.inputs],
            "in_spec": self.spec(g.in_spec),
            "nodes": nodes,
            "outputs": [self.arg(o, "the outputs") for o in g.outputs],
            "out_spec": self.spec(g.out_spec),
            "symbols": {k: list(v) for k, v in g.symbols.items()},
            "self_type": g.self_type,
        }

    def module(self, m):
        return {
            "name": m._get_name(),
            "training": m.training,
            "parameters": {k: None if p is None else self.tensor(p) for k, p in m._parameters.items()},
            "buffers": {k: None if b is None else self.tensor(b) for k, b in m._buffers.items()},
            "non_persistent": sorted(m._non_persistent_buffers_set),
            "modules": {k: None if c is None else self.module(c) for k, c in m._modules.items()},
        }


def _meta_json(m):
    if m is None:
        return None
    return {"shape": list(m.shape), "dtype": m.dtype.name, "strides": list(m.strides),
            "requires_grad": m.requires_grad, "device": str(m.device)}


def save(m, f, _extra_files=None):
    """Write a traced module or function to ``f`` (a path or a binary file).

    pedatorch's format, not PyTorch's: PyTorch cannot read the file, and ``pedatorch.jit.load`` reads it
    without running any code from it."""
    if not isinstance(m, (ScriptModule, ScriptFunction)):
        raise AttributeError(f"'{type(m).__name__}' object has no attribute 'save'" if not hasattr(m, "save") else
                             "pedatorch.jit.save expects a traced (or loaded) ScriptModule or ScriptFunction")
    graphs = m.__dict__.get("_graphs") if isinstance(m, ScriptModule) else {"forward": getattr(m, "graph", None)}
    if not graphs or any(not isinstance(g, Graph) for g in graphs.values()):
        raise RuntimeError("pedatorch.jit.save writes traced programs only: a scripted function or module runs its "
                           "Python source, which pedatorch does not write into files (that would make loading run "
                           "code). Trace it (pedatorch.jit.trace) to save it, or save its state_dict.")
    ops = op_table()
    w = _Writer()
    doc = {"format": "pedatorch.jit", "version": _FORMAT_VERSION}
    if isinstance(m, ScriptModule):
        doc["kind"] = "module"
        doc["module"] = w.module(m)
    else:
        doc["kind"] = "function"
        doc["name"] = m.name
    doc["methods"] = {name: w.graph(g, ops) for name, g in graphs.items()}
    doc["tensors"] = []
    files = []
    for i, (arr, requires_grad, t) in enumerate(w.tensors):
        host = _host.ascontiguousarray(to_host(arr))
        doc["tensors"].append({"dtype": _dtype_name(host.dtype), "shape": list(host.shape),
                               "requires_grad": bool(requires_grad), "parameter": isinstance(t, Parameter),
                               "array": not isinstance(t, Tensor),
                               "device": str(t.device) if isinstance(t, Tensor) else "cpu"})
        files.append((f"{_ROOT}tensors/{i}", host.tobytes()))
    if _extra_files:
        doc["extra_files"] = sorted(_extra_files)
        for name, content in _extra_files.items():
            files.append((f"{_ROOT}extra/{name}", content.encode() if isinstance(content, str) else bytes(content)))
    own = isinstance(f, (str, os.PathLike))
    handle = open(f, "wb") if own else f
    try:
        with zipfile.ZipFile(handle, "w", zipfile.ZIP_STORED) as z:
            z.writestr(_ROOT + "graph.json", json.dumps(doc, indent=1))
            for name, data in files:
                z.writestr(name, data)
    finally:
        if own:
            handle.close()


def _dtype_by_name(name):
    """The dtype called ``name`` in a file (and nothing else of the dtype module)."""
    try:
        d = _any_by_name(name)
    except (KeyError, TypeError):
        d = None
    if not isinstance(d, dtype):
        raise RuntimeError(f"pedatorch.jit.load: unknown dtype '{name}' in the file")
    return d


def _dtype_name(npdt):
    return "bfloat16" if npdt.name == "bfloat16" else npdt.name


# ---------------------------------------------------------------- reading

class _Reader:
    def __init__(self, doc, z, map_location):
        self.doc, self.z = doc, z
        self.map_location = map_location
        self.cache = {}
        self.ops = op_table()
        self.classes = _object_classes()

    def array(self, i):
        info = self.doc["tensors"][i]
        npdt = _dtype_by_name(info["dtype"]).np
        data = self.z.read(f"{_ROOT}tensors/{i}")
        return _host.frombuffer(data, dtype=npdt).reshape(info["shape"]).copy()

    def tensor(self, i):
        """Tensor ``i`` (one object per index: shared parameters stay shared)."""
        if i not in self.cache:
            info = self.doc["tensors"][i]
            arr = self.array(i)
            if info["array"]:
                self.cache[i] = arr
            else:
                t = Tensor._make(arr)
                dev = self.map_location if self.map_location is not None else info["device"]
                if str(dev) != "cpu":
                    t = t.to(dev)
                if info["parameter"]:
                    t = Parameter(t, requires_grad=info["requires_grad"])
                elif info["requires_grad"]:
                    t.requires_grad_()
                self.cache[i] = t
        return self.cache[i]

    def arg(self, a, values):
        if isinstance(a, list):
            return [self.arg(x, values) for x in a]
        if not isinstance(a, dict):
            return a
        (kind, x), = a.items() if len(a) == 1 else [(next(iter(a)), None)]
        if kind == "v":
            return values[x]
        if kind == "sym":
            return SymInt(x[0], x[1])
        if kind == "key_index":
            return KeyIndex(values[x])
        if kind == "key_mask":
            return KeyMask(values[x[0]], x[1])
        if kind == "rnn_steps":
            return RnnSteps(values[x])
        if kind == "tuple":
            return tuple(self.arg(y, values) for y in x)
        if kind == "slice":
            return slice(*(self.arg(y, values) for y in x))
        if kind == "float":
            return float(x)
        if kind == "complex":
            return complex(self.arg(x[0], values), self.arg(x[1], values))
        if kind == "ellipsis":
            return Ellipsis
        if kind == "array":
            return self.tensor(x)
        if kind == "np_dtype":
            return _dtype_by_name(x).np
        if kind == "dtype":
            return _dtype_by_name(x)
        if kind == "device":
            return device(x)
        if kind == "object":
            x = a["object"]
            cls = self.classes.get(x)
            if cls is None:
                raise RuntimeError(f"pedatorch.jit.load: the file names an unknown argument class '{x}'")
            obj = object.__new__(cls)
            for s, v in a["slots"].items():
                if s not in cls.__slots__:
                    raise RuntimeError(f"pedatorch.jit.load: '{x}' has no field '{s}'")
                setattr(obj, s, self.arg(v, values))
            return obj
        raise RuntimeError(f"pedatorch.jit.load: unknown argument kind '{kind}' in the file")

    def spec(self, s):
        if s is None:
            return LeafSpec()
        kind = {"tuple": tuple, "list": list, "dict": dict}[s["type"]]
        context = s["context"]
        return TreeSpec(kind, context, [self.spec(c) for c in s["children"]])

    def graph(self, gd):
        g = Graph()
        values = []
        for vd in gd["values"]:
            meta = None
            if vd["meta"] is not None:
                meta = object.__new__(TensorMeta)
                md = vd["meta"]
                meta.shape, meta.strides = tuple(md["shape"]), tuple(md["strides"])
                meta.dtype, meta.requires_grad, meta.device = _dtype_by_name(md["dtype"]), md["requires_grad"], \
                    device(md["device"])
            values.append(g.new_value(vd["name"], meta))
        for v, vd in zip(values, gd["values"]):
            v.shape = self.arg(vd["shape"], values)
        g.inputs = [values[i] for i in gd["inputs"]]
        g.in_spec = self.spec(gd["in_spec"])
        for nd in gd["nodes"]:
            kind = nd["kind"]
            if kind == "op":
                op = self.ops.get(nd["op"])
                if op is None:
                    raise RuntimeError(f"pedatorch.jit.load: the file uses the op '{nd['op']}', which this version of "
                                       "pedatorch does not have")
            elif kind == "param":
                op = nd["op"]
            elif kind == "const":
                op = self.tensor(nd["op"])
            elif kind in ("full", "detach"):
                op = None
            else:
                raise RuntimeError(f"pedatorch.jit.load: unknown node kind '{kind}' in the file")
            node = Node(kind, op, self.arg(nd["args"], values), [values[i] for i in nd["outputs"]],
                        multi=nd.get("multi", False), scope=nd.get("scope", ""), grad=nd.get("grad", True))
            if nd.get("fresh"):
                g.fresh_consts.add(node)
            g.nodes.append(node)
        g.outputs = [self.arg(o, values) for o in gd["outputs"]]
        g.out_spec = self.spec(gd["out_spec"])
        g.symbols = {k: tuple(v) for k, v in gd["symbols"].items()}
        g.self_type = gd.get("self_type")
        return g

    def module(self, md):
        m = RecursiveScriptModule(md["name"])
        m.training = md["training"]
        for k, i in md["parameters"].items():
            m._parameters[k] = None if i is None else self.tensor(i)
        for k, i in md["buffers"].items():
            m._buffers[k] = None if i is None else self.tensor(i)
        m._non_persistent_buffers_set = set(md["non_persistent"])
        for k, c in md["modules"].items():
            m._modules[k] = None if c is None else self.module(c)
        return m


def load(f, map_location=None, _extra_files=None):
    """Read a program written by ``pedatorch.jit.save`` (see the module docstring for what it cannot read)."""
    if isinstance(f, (str, os.PathLike)):
        if not os.path.exists(f):
            raise ValueError(f"The provided filename {f} does not exist")
        if os.path.isdir(f):
            raise ValueError(f"The provided filename {f} is a directory")
        with open(f, "rb") as fh:
            data = fh.read()
    else:
        data = f.read()
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise RuntimeError("PytorchStreamReader failed reading zip archive: failed finding central directory "
                           "(pedatorch.jit.load reads the zip files pedatorch.jit.save writes)") from None
    names = z.namelist()
    if _ROOT + "graph.json" not in names:
        if any(n.endswith("data.pkl") or "/code/" in n for n in names):
            raise RuntimeError(
                "This is a TorchScript archive written by PyTorch (torch.jit.save): its program is pickled Python "
                "and TorchScript code, which pedatorch does not read (loading it would mean running that code). "
                "In PyTorch, load it and save its weights (torch.save(m.state_dict(), ...)) to load into the same "
                "model written with pedatorch, or export it with torch.onnx.export.")
        raise RuntimeError("pedatorch.jit.load: the file is not a program written by pedatorch.jit.save "
                           "(a file of pedatorch.save is read with pedatorch.load)")
    doc = json.loads(z.read(_ROOT + "graph.json"))
    if doc.get("format") != "pedatorch.jit" or doc.get("version", 0) > _FORMAT_VERSION:
        raise RuntimeError(f"pedatorch.jit.load: unsupported file version {doc.get('version')}")
    if map_location is not None and not isinstance(map_location, (str, device)):
        raise ValueError("pedatorch.jit.load: map_location must be a string or a device")
    r = _Reader(doc, z, None if map_location is None else device(map_location))
    if doc["kind"] == "module":
        m = r.module(doc["module"])
        for name, gd in doc["methods"].items():
            m._set_graph(name, r.graph(gd))
    else:
        m = ScriptFunction(r.graph(doc["methods"]["forward"]), doc["name"])
    if _extra_files is not None:
        for name in _extra_files:
            path = f"{_ROOT}extra/{name}"
            if path in names:
                _extra_files[name] = z.read(path)
    return m
