"""``DataParallel``: wraps a module as ``self.module`` (so its state_dict keys start with ``module.``).

PyTorch splits each batch across GPUs, runs a replica of the module on each and gathers the outputs.
Without a GPU it keeps no devices (``device_ids == []``) and forward just calls the module; pedatorch
does the same, and with GPUs runs the whole batch on ``device_ids[0]`` (no replicas: the same values,
except that batch-norm statistics see the whole batch rather than each GPU's share).
"""
from ... import cuda
from ..._device import device as _device
from ..._tensor import Tensor
from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


def _device_index(d):
    return d if isinstance(d, int) else _device(d).index


def _move(obj, device):
    """Tensors inside tuples, lists and dicts moved to ``device`` (what PyTorch's scatter/gather carry)."""
    if isinstance(obj, Tensor):
        return obj.to(device)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a namedtuple takes its fields as arguments
        return type(obj)(*(_move(o, device) for o in obj))
    if isinstance(obj, (tuple, list)):
        return type(obj)(_move(o, device) for o in obj)
    if isinstance(obj, dict):
        return type(obj)((k, _move(v, device)) for k, v in obj.items())
    return obj


def _run_on(module, inputs, kwargs, device_ids, output_device):
    """Run ``module`` on ``cuda:device_ids[0]`` (where its tensors must be) and put the output on ``output_device``."""
    src = _device("cuda", device_ids[0])
    for t in (*module.parameters(), *module.buffers()):
        if t.device != src:
            raise RuntimeError(f"module must have its parameters and buffers on device {src} (device_ids[0]) but "
                               f"found one of them on device: {t.device}")
    output = module(*_move(inputs, src), **_move(kwargs, src))
    return _move(output, _device("cpu") if output_device == -1 else _device("cuda", output_device))


class DataParallel(Module):
    """``DataParallel(module, device_ids=None, output_device=None, dim=0)``."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not cuda.is_available():  # PyTorch's CPU form: no devices, forward calls the module
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(cuda.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [_device_index(d) for d in device_ids]
        self.output_device = _device_index(output_device)
        self.src_device_obj = _device("cuda", self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        return _run_on(self.module, inputs, kwargs, self.device_ids, self.output_device)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """The functional form of ``DataParallel`` (as in PyTorch, it needs a GPU)."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    if not cuda.is_available():
        raise RuntimeError("device type could not be determined")
    if device_ids is None:
        device_ids = list(range(cuda.device_count()))
    device_ids = [_device_index(d) for d in device_ids]
    output_device = device_ids[0] if output_device is None else _device_index(output_device)
    return _run_on(module, inputs, module_kwargs or {}, device_ids, output_device)
