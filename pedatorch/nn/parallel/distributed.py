"""``DistributedDataParallel``: one process per device, gradients all-reduced over a process group.

pedatorch has no ``torch.distributed``, so no process group can be initialised: constructing one raises
the error PyTorch raises before ``init_process_group``.  The class exists so that programs that import
it (and only use it when launched distributed) run.
"""
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True, init_sync=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None,
                 skip_all_reduce_unused_params=False, bucket_cap_mb_list=None, batched_grad_copy=False,
                 forward_sync_buffers=None):
        super().__init__()
        # PyTorch's checks, in its order, up to the first one that needs torch.distributed
        if (delay_all_reduce_named_params is not None) != (param_to_hook_all_reduce is not None):
            raise ValueError("delay_all_reduce_named_params and param_to_hook_all_reduce need to be set at the "
                             "same time.")
        if process_group and device_mesh is not None:
            raise RuntimeError("Cannot specify both process_group and device_mesh arguments.")
        if process_group is None and device_mesh is None:
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")
        raise NotImplementedError("pedatorch has no torch.distributed: DistributedDataParallel cannot run")
