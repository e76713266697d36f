"""``pedatorch.onnx``: ONNX export (``torch.onnx``).

``export(model, args, f)`` traces the model and writes each recorded op as ONNX nodes with the
``onnx`` package (``_export.py``: the table op class -> ONNX nodes).  Besides it: the enums
``TrainingMode``, ``OperatorExportTypes`` and ``TensorProtoDataType``, ``is_in_onnx_export()`` (which
model code asks to take an export-friendly path), the exceptions, and the registry of custom symbolic
functions (kept so that programs registering them run; pedatorch's exporter does not call them).
"""
import enum
import re
from contextlib import contextmanager

from ..version import __version__ as producer_version  # noqa: F401
from . import errors
from .errors import OnnxExporterError

__all__ = ["errors", "export", "is_in_onnx_export", "OnnxExporterError", "ONNXProgram", "TrainingMode",
           "OperatorExportTypes", "TensorProtoDataType"]

producer_name = "pedatorch"


class _Enum(enum.Enum):
    """An enum whose members convert to int (``int(TrainingMode.EVAL) == 0``), as PyTorch's do."""

    def __int__(self):
        return self.value


class TrainingMode(_Enum):
    """Which mode the model is exported in: eval, as it is, or training."""
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(_Enum):
    """How ops without an ONNX equivalent are exported (the older exporter's option)."""
    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


class TensorProtoDataType(_Enum):
    """ONNX's element types, with ONNX's numbers."""
    UNDEFINED = 0
    FLOAT = 1
    UINT8 = 2
    INT8 = 3
    UINT16 = 4
    INT16 = 5
    INT32 = 6
    INT64 = 7
    STRING = 8
    BOOL = 9
    FLOAT16 = 10
    DOUBLE = 11
    UINT32 = 12
    UINT64 = 13
    COMPLEX64 = 14
    COMPLEX128 = 15
    BFLOAT16 = 16
    FLOAT8E4M3FN = 17
    FLOAT8E4M3FNUZ = 18
    FLOAT8E5M2 = 19
    FLOAT8E5M2FNUZ = 20


_IN_EXPORT = [False]


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None, output_names=None,
           opset_version=None, dynamo=True, external_data=True, dynamic_shapes=None, custom_translation_table=None,
           report=False, optimize=True, verify=False, profile=False, dump_exported_program=False, artifacts_dir=".",
           export_params=True, keep_initializers_as_inputs=False, dynamic_axes=None, training=TrainingMode.EVAL,
           operator_export_type=OperatorExportTypes.ONNX, do_constant_folding=True, custom_opsets=None,
           export_modules_as_functions=False, autograd_inlining=True):
    """Write ``model`` (a module or function) run on ``args`` to ``f`` (a path or a binary file) as ONNX.

    The model is traced (see ``pedatorch.jit.trace``) in eval mode (``training``), and each op is written
    as ONNX nodes (``_export.py``); parameters become initializers under their names.  ``dynamic_axes``
    (``{"x": {0: "batch"}}``) leaves sizes free: the graph then computes the sizes that depend on them.
    pedatorch has one exporter: ``dynamo`` chooses only what is returned (an ``ONNXProgram`` when True,
    as PyTorch's default; None otherwise).  Needs the onnx package: pip install 'pedatorch[deploy]'."""
    from ._export import export_model
    if operator_export_type not in (OperatorExportTypes.ONNX, None):
        raise ValueError(f"pedatorch exports with operator_export_type=OperatorExportTypes.ONNX only, not "
                         f"{operator_export_type}")
    if export_modules_as_functions:
        raise ValueError("pedatorch does not export modules as ONNX functions (export_modules_as_functions)")
    if not isinstance(training, TrainingMode):
        raise TypeError(f"'training' should be a torch.onnx.TrainingMode enum, but got '{type(training)}'.")
    if dynamic_axes is None and dynamic_shapes is not None:
        dynamic_axes = _axes_from_shapes(dynamic_shapes, model, args)
    _IN_EXPORT[0] = True
    try:
        with select_model_mode_for_export(model, training):
            proto = export_model(model, args, f, kwargs=kwargs, export_params=export_params, verbose=bool(verbose),
                                 input_names=input_names, output_names=output_names, opset_version=opset_version,
                                 dynamic_axes=dynamic_axes, keep_initializers_as_inputs=keep_initializers_as_inputs)
    finally:
        _IN_EXPORT[0] = False
    return ONNXProgram(proto) if dynamo else None


def _axes_from_shapes(dynamic_shapes, model, args):
    """``dynamic_shapes`` ({"x": {0: "batch"}} or one entry per input) as ``dynamic_axes``."""
    import inspect

    def axes(spec, key):
        if not spec:
            return {}
        return {int(a): d if isinstance(d, str) else getattr(d, "__name__", f"{key}_dim_{a}") for a, d in spec.items()}
    if isinstance(dynamic_shapes, dict):
        return {k: axes(v, k) for k, v in dynamic_shapes.items()}
    fn = getattr(model, "forward", model)
    names = list(inspect.signature(fn).parameters)
    return {names[i] if i < len(names) else f"input_{i}": axes(v, i) for i, v in enumerate(dynamic_shapes)}


class ONNXProgram:
    """What ``export`` returns (``dynamo=True``): the ONNX model, to save or to run."""

    def __init__(self, model_proto):
        self.model_proto = model_proto
        self._session = None

    @property
    def model(self):
        return self.model_proto

    def save(self, destination, *, include_initializers=True, keep_initializers_as_inputs=False,
             external_data=None):
        """Write the model to ``destination`` (a path or a binary file)."""
        data = self.model_proto.SerializeToString()
        if hasattr(destination, "write"):
            destination.write(data)
        else:
            with open(destination, "wb") as fh:
                fh.write(data)

    def __call__(self, *args, **kwargs):
        """Run the model with onnxruntime on tensors (or arrays); returns a list of tensors."""
        try:
            import onnxruntime
        except ImportError:
            raise ModuleNotFoundError("ONNXProgram needs onnxruntime to run: pip install 'pedatorch[deploy]'") \
                from None
        from ..backend import CPU_BACKEND
        from ..ops.creation import from_numpy
        if self._session is None:
            self._session = onnxruntime.InferenceSession(self.model_proto.SerializeToString(),
                                                         providers=["CPUExecutionProvider"])
        names = [i.name for i in self._session.get_inputs()]
        values = list(args) + [kwargs[k] for k in names[len(args):]]
        feeds = {n: CPU_BACKEND.xp.asarray(v.detach().cpu().numpy() if hasattr(v, "detach") else v)
                 for n, v in zip(names, values)}
        return [from_numpy(o) for o in self._session.run(None, feeds)]

    def __repr__(self):
        return f"ONNXProgram(opset {self.model_proto.opset_import[0].version}, " \
               f"{len(self.model_proto.graph.node)} nodes)"


def is_in_onnx_export():
    """Is ``export`` running right now?  Model code asks this to take an export-friendly path."""
    return _IN_EXPORT[0]


# ---------------------------------------------------------------- custom symbolic functions
# The older exporter lets a program say how to write an op in ONNX.  The registry is kept, so
# that programs registering functions at import time run; the exporter will read it.

_custom_symbolics = {}


def register_custom_op_symbolic(symbolic_name, symbolic_fn, opset_version):
    """Use ``symbolic_fn`` to export op ``symbolic_name`` ("namespace::op") from ``opset_version`` on."""
    if symbolic_name.startswith("::"):
        symbolic_name = "aten" + symbolic_name
    if not re.match(r"^[a-zA-Z0-9-_]+::[a-zA-Z-_]+[a-zA-Z0-9-_]*$", symbolic_name):
        raise OnnxExporterError(f"Failed to register operator {symbolic_name}. The symbolic name must match the "
                                "format domain::name, and should start with a letter and contain only "
                                "alphanumeric characters")
    if symbolic_name.startswith("onnx::"):
        raise ValueError(f"Failed to register operator {symbolic_name}. onnx domain cannot be modified.")
    _custom_symbolics.setdefault(symbolic_name, {})[opset_version] = symbolic_fn


def unregister_custom_op_symbolic(symbolic_name, opset_version):
    """Forget the function registered for ``symbolic_name`` at ``opset_version``."""
    if symbolic_name.startswith("::"):
        symbolic_name = "aten" + symbolic_name
    _custom_symbolics.get(symbolic_name, {}).pop(opset_version, None)


@contextmanager
def select_model_mode_for_export(model, mode):
    """Deprecated: put ``model`` in ``mode`` (a TrainingMode) inside the ``with`` block."""
    if not isinstance(mode, TrainingMode):
        raise TypeError(f"'mode' should be a torch.onnx.TrainingMode enum, but got '{type(mode)}'.")
    was_training = getattr(model, "training", False)
    if hasattr(model, "training") and mode != TrainingMode.PRESERVE:
        model.train(mode == TrainingMode.TRAINING)
    try:
        yield
    finally:
        if hasattr(model, "training") and mode != TrainingMode.PRESERVE:
            model.train(was_training)
