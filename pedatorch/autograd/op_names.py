"""The ATen name of an op class (``aten::addmm`` for ``Addmm``): what traces, the profiler and errors print."""
import re

__all__ = ["op_name"]

# TorchScript's names where the class name does not give them (the rest: ``NativeBatchNorm`` ->
# ``native_batch_norm``); an in-place op's name ends with "_" (``relu_``)
_NAMES = {
    "SqueezeDim": "squeeze", "SqueezeDims": "squeeze", "FillTensor": "fill", "UnsafeView": "_unsafe_view",
    "ReshapeAlias": "_reshape_alias", "ToCopy": "_to_copy", "SumAll": "sum", "MeanAll": "mean",
    "MaxDim": "max", "MinDim": "min", "MaxAll": "max", "MinAll": "min", "XLogY": "xlogy", "AddCMul": "addcmul",
    "AddCDiv": "addcdiv", "RsubTensor": "rsub", "PowTensor": "pow", "RPow": "pow", "DivRounded": "div",
    "ScaledDotProductFlashAttentionForCpu": "_scaled_dot_product_flash_attention_for_cpu",
    "_RNNLayer": "rnn_layer", "_RNNLayerMkldnn": "mkldnn_rnn_layer", "_RNNLayerPacked": "rnn_layer_packed",
    "Copy": "copy", "Relu": "relu", "VectorNorm": "linalg_vector_norm", "ClampTensor": "clamp", "MaskedFillTensor": "masked_fill",
}


def op_name(cls):
    """``aten::addmm`` for ``Addmm``: the name printed for an op class."""
    name = cls.__name__
    base = name.rstrip("_")
    snake = _NAMES.get(base) or re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", base).lower()
    if cls._inplace_of is not None and not snake.endswith("_"):
        snake += "_"
    return "aten::" + snake
