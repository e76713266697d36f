"""``pedatorch.nn.functional``: the stateless form of every layer and loss (``import ... as F``).

One file per family; this package re-exports them all:
  activation     relu, gelu, silu, softmax, ...
  conv           conv1d, conv2d, conv_transpose2d, unfold, fold (im2col)
  pooling        max_pool*, avg_pool*, adaptive_*
  normalization  batch_norm, layer_norm, group_norm, normalize
  dropout        dropout, dropout2d, ...
  sparse         embedding, one_hot
  vision         pad, interpolate
  distance       cosine_similarity, pairwise_distance
  attention      scaled_dot_product_attention, multi_head_attention_forward
  loss           mse_loss, cross_entropy, nll_loss, ...
  linear         linear, bilinear
"""
import importlib as _importlib

__all__ = []
for _name in ("activation", "linear", "conv", "pooling", "normalization", "dropout", "sparse", "vision",
              "distance", "attention", "loss"):
    try:
        _mod = _importlib.import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as _e:  # a family not written yet
        if _e.name != f"{__name__}.{_name}":
            raise
        continue
    for _n in getattr(_mod, "__all__", ()):
        globals()[_n] = getattr(_mod, _n)
        __all__.append(_n)
del _importlib, _name
