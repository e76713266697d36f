"""``pedatorch.amp``: automatic mixed precision (``torch.amp``).

Two independent tools, usually used together:

- ``autocast`` (``autocast_mode.py``): inside a region, each op runs in the dtype that suits it -- matrix
  products and convolutions in float16/bfloat16, reductions and losses in float32 -- while the model's
  parameters stay float32 (the op lists: ``op_lists.py``);
- ``GradScaler`` (``grad_scaler.py``): multiplies the loss so that float16 gradients do not underflow,
  unscales them before the optimizer step and skips steps whose gradients overflowed.

The functions that read and set autocast's state (``torch.is_autocast_enabled`` and friends) live here too.
"""
from .autocast_mode import (autocast, autocast_decorator, custom_bwd, custom_fwd, is_autocast_available,
                            is_autocast_enabled, set_autocast_enabled, get_autocast_dtype, set_autocast_dtype,
                            is_autocast_cache_enabled, set_autocast_cache_enabled, clear_autocast_cache,
                            autocast_increment_nesting, autocast_decrement_nesting,
                            is_autocast_cpu_enabled, set_autocast_cpu_enabled, get_autocast_cpu_dtype,
                            set_autocast_cpu_dtype, get_autocast_gpu_dtype, set_autocast_gpu_dtype,
                            is_autocast_xla_enabled, set_autocast_xla_enabled, get_autocast_xla_dtype,
                            set_autocast_xla_dtype, is_autocast_ipu_enabled, set_autocast_ipu_enabled,
                            get_autocast_ipu_dtype, set_autocast_ipu_dtype)
from .grad_scaler import GradScaler

# torch.cuda.amp and torch.cpu.amp (the older, deprecated spellings) exist once torch is imported: importing
# them here makes them attributes of pedatorch.cuda and pedatorch.cpu
from ..cuda import amp as _cuda_amp  # noqa: E402,F401
from ..cpu import amp as _cpu_amp  # noqa: E402,F401

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
