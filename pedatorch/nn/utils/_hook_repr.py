"""The ``repr`` of the hook objects nn.utils registers on modules (pruning methods, WeightNorm, SpectralNorm).

They are plain objects, printed by Python's default ``<module.Class object at 0x...>``, as in
``print(module._forward_pre_hooks)``.  Ours live in ``pedatorch.nn.utils.X``; they print the name PyTorch's
classes have (``torch.nn.utils.X``), so that a program prints what it prints under PyTorch."""


def torch_style_repr(obj):
    cls = type(obj)
    module = cls.__module__
    if module == "pedatorch" or module.startswith("pedatorch."):
        module = "torch" + module[len("pedatorch"):]
    return f"<{module}.{cls.__qualname__} object at {id(obj):#x}>"
