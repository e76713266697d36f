"""Which ops autocast runs in which dtype: PyTorch's autocast op lists, as pedatorch's op classes.

PyTorch registers a rule for some ATen ops, separately for the CPU and for CUDA (see the "Autocast Op
Reference" of ``torch.amp``'s documentation); every other op runs in the dtypes it is given.  The rules:

``LOWER``    cast the floating-point tensors to the region's lower-precision dtype (``float16``/``bfloat16``)
             first: the matrix products and convolutions, which are fast and safe in half precision;
``FP32``     cast them to ``float32``: ops whose range or accuracy suffers in half precision (``exp``,
             ``log``, the losses, the linear-algebra decompositions);
``FP32_UNLESS_DTYPE``  (CUDA) ``float32`` unless the call names an output dtype (``softmax``, ``sum``, ...);
``PROMOTE``  cast them to the widest floating type among them (``cat``, ``stack``, ``addcmul``, ...), so
             that ops needing equal dtypes accept a mix of ``float32`` and lower-precision tensors;
``BANNED``   (CUDA) refuse: ``binary_cross_entropy`` after a sigmoid is unsafe in float16.

``float64`` tensors and tensors of other devices are never cast.

pedatorch's ops are ``ArrayFunction`` classes, so most rules belong to a class: autocast sees each call of
``cls.apply``.  Where PyTorch's op is a composite of ops (``linear``, ``einsum``, the RNN cells), pedatorch's
composite reaches the listed products (``Addmm``, ``Mm``, ``Bmm``), so those follow by themselves.  A listed
PyTorch op that pedatorch composes of unlisted ones (``cross_entropy`` is ``log_softmax`` and ``nll_loss``;
``l1_loss`` is ``sub``, ``abs`` and ``mean``) is listed by its name: its front end hands its tensors to
``autograd.function.before_checks(name, ...)`` first, as do front ends that check dtypes before calling
``apply`` (``mm`` refuses a float32 and a bfloat16 matrix): there autocast casts them, so that the checks
see what the op will compute with, as in PyTorch, whose autocast runs at the entry of an op.  One class may
implement several PyTorch ops; where their rules differ, the table picks the common case and says why.
"""
from .._dtype import float32
from .._tensor import Tensor
from ..nn.functional.activation import PreluKernel, Softplus
from ..nn.functional.attention import ScaledDotProductFlashAttentionForCpu
from ..nn.functional.conv import Convolution
from ..nn.functional.distance import Cdist, Pdist
from ..nn.functional.linear import Trilinear
from ..nn.functional.loss import (_Norm, BinaryCrossEntropy, BinaryCrossEntropyWithLogits, CtcLoss, HuberLoss,
                                  MseLoss, MultilabelMarginLoss, MultiMarginLoss, NllLoss, NllLoss2D, SmoothL1Loss,
                                  SoftMarginLoss)
from ..nn.functional.normalization import NativeGroupNorm, NativeLayerNorm
from ..nn.functional.pooling import (AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, MaxPool3d, MaxUnpool2d,
                                     MaxUnpool3d)
from ..nn.functional.vision import GridSampler2D, GridSampler3D, _upsample_class
from ..nn.modules.rnn import _RNNLayer, _RNNLayerMkldnn, _RNNLayerPacked
from ..linalg import (LinalgCholeskyEx, LinalgEigh, LinalgInvEx, LinalgLstsq, LinalgPinv, LinalgQr, LinalgSolveEx,
                      LinalgSvd)
from ..ops.creation import Polar
from ..ops.elementwise import (Acos, AddCDiv, AddCMul, Asin, Atan2, Cosh, Erfinv, Exp, Expm1, Log, Log10, Log1p,
                               Log2, Pow, PowTensor, Reciprocal, RPow, Rsqrt, Sinh, Tan)
from ..ops.indexing import IndexCopy, IndexPut, ScatterAdd
from ..ops.join import Cat, Stack
from ..ops.linalg import Addbmm, Addmm, Addmv, Addr, Baddbmm, Bmm, Dot, Mm, Mv, Vdot
from ..ops.manip import LinalgCross, Trace, _PadGather
from ..ops.reduction import (Cumprod, Cumsum, Dist, LogSoftmax, LogSumExp, ProdAll, ProdDim, Softmax, Sum, SumAll,
                             VectorNorm)
from ..ops.shape import ViewAsComplex

LOWER, FP32, FP32_UNLESS_DTYPE, PROMOTE, BANNED = "lower_precision_fp", "fp32", "fp32_set_opt_dtype", "promote", \
    "banned"
# an RNN layer: its rule depends on the cell (see rnn_rule)
RNN = "rnn"

# FP32_UNLESS_DTYPE ops: the position of the argument that names the output dtype (None where the op has
# none: pedatorch's softmax casts its input before the op, so the op cannot tell)
DTYPE_ARG = {Sum: 3, SumAll: 1, ProdAll: 1, ProdDim: 3, Cumsum: 2, Cumprod: 2, VectorNorm: 4, Softmax: None,
             LogSoftmax: None}


# losses on both fp32 lists that pedatorch composes of other ops (see before_checks above)
_COMPOSITE_LOSSES = ["cross_entropy", "l1_loss", "kl_div", "cosine_embedding_loss", "margin_ranking_loss",
                     "hinge_embedding_loss", "poisson_nll_loss", "triplet_margin_loss"]


def _upsampling(names):
    return [_upsample_class(n) for n in names]


# ---------------------------------------------------------------- AutocastCPU (bfloat16 by default)

CPU = {}
CPU.update(dict.fromkeys([
    Convolution,                    # conv1d/2d/3d, conv_transpose1d/2d/3d, _convolution, conv_tbc
    Mm, Bmm, Addmm, Addbmm, Baddbmm,  # mm, bmm, addmm, addbmm, baddbmm; linear reaches them
    "matmul",                       # (also of vectors: torch.mv and torch.dot are not on the CPU list)
    "linalg_vecdot", "scaled_dot_product_attention",
    PreluKernel,                    # prelu
    ScaledDotProductFlashAttentionForCpu,   # scaled_dot_product_attention
    _RNNLayerMkldnn,                # mkldnn_rnn_layer: nn.LSTM
], LOWER))
CPU.update(dict.fromkeys([
    AvgPool3d, MaxPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d, MaxUnpool2d, MaxUnpool3d,
    *_upsampling(["AdaptiveAvgPool3D"]),        # interpolate(mode="area") of a volume: adaptive_avg_pool3d
    _PadGather,                     # reflection_pad1d/2d, replication_pad1d/2d/3d
    GridSampler2D, GridSampler3D, Polar, ProdAll, ProdDim, Cdist, Trace, ViewAsComplex,
    LinalgCholeskyEx, LinalgInvEx, LinalgSolveEx, LinalgQr, LinalgSvd, LinalgEigh, LinalgLstsq,
    LinalgPinv,                     # pinverse
    MseLoss, NllLoss, NllLoss2D, SmoothL1Loss, HuberLoss, SoftMarginLoss, MultiMarginLoss, MultilabelMarginLoss,
    CtcLoss, BinaryCrossEntropy, BinaryCrossEntropyWithLogits,
    *_COMPOSITE_LOSSES,
    # the Fourier transforms (their front ends call before_checks; PyTorch's CPU list has no hfft2, ihfft2,
    # hfftn, ihfftn: those refuse a bfloat16 input there)
    "fft_fft", "fft_ifft", "fft_fft2", "fft_ifft2", "fft_fftn", "fft_ifftn", "fft_rfft", "fft_irfft", "fft_rfft2",
    "fft_irfft2", "fft_rfftn", "fft_irfftn", "fft_hfft", "fft_ihfft", "stft",
], FP32))
CPU.update(dict.fromkeys([Cat, Stack, IndexCopy], PROMOTE))
# nn.RNN/GRU and a packed or projected nn.LSTM: PyTorch runs their cells as ops (see rnn_rule)
CPU.update(dict.fromkeys([_RNNLayer, _RNNLayerPacked], RNN))


# ---------------------------------------------------------------- AutocastCUDA (float16 by default)

CUDA = {}
CUDA.update(dict.fromkeys([
    Convolution, PreluKernel, Addmm, Addmv, Addr, Mm, Mv, Bmm, Baddbmm, Addbmm, "matmul", "linalg_vecdot",
    "scaled_dot_product_attention",
    _RNNLayer, _RNNLayerPacked, _RNNLayerMkldnn,    # cudnn's RNNs (and the cells, through addmm)
], LOWER))
CUDA.update(dict.fromkeys([
    Acos, Asin, Cosh, Erfinv, Exp, Expm1, Log, Log10, Log2, Log1p, Reciprocal, Rsqrt, Sinh, Tan,
    Pow, PowTensor, RPow,           # pow (and 2 / x, which is reciprocal(x) * 2)
    Softplus, NativeLayerNorm, NativeGroupNorm,
    _Norm,                          # norm(x, p, dim) of pairwise_distance and the triplet loss
    NllLoss, NllLoss2D, SmoothL1Loss, HuberLoss, MseLoss, MultilabelMarginLoss, SoftMarginLoss, MultiMarginLoss,
    BinaryCrossEntropyWithLogits, Dist, Pdist, Cdist, LogSumExp, *_COMPOSITE_LOSSES, "cosine_similarity",
    *_upsampling(["UpsampleNearest1D", "UpsampleNearest2D", "UpsampleNearest3D", "UpsampleNearestExact1D",
                  "UpsampleNearestExact2D", "UpsampleNearestExact3D", "UpsampleLinear1D", "UpsampleBilinear2D",
                  "UpsampleBilinear2DAa", "UpsampleTrilinear3D", "UpsampleBicubic2D", "UpsampleBicubic2DAa"]),
], FP32))
CUDA.update(dict.fromkeys([Sum, SumAll, ProdAll, ProdDim, Softmax, LogSoftmax, Cumsum, Cumprod, VectorNorm],
                          FP32_UNLESS_DTYPE))
CUDA.update(dict.fromkeys([
    AddCDiv, AddCMul, Atan2, Trilinear, LinalgCross, Dot, Vdot, GridSampler2D, GridSampler3D, IndexPut, ScatterAdd,
], PROMOTE))
CUDA[BinaryCrossEntropy] = BANNED

POLICIES = {"cpu": CPU, "cuda": CUDA}


def rnn_rule(args):
    """The rule for an RNN layer that PyTorch's CPU runs cell by cell (nn.RNN, nn.GRU, a packed or projected
    nn.LSTM): the products go to the lower dtype; a tanh/relu cell's output is theirs, but a GRU blends in
    the hidden state and an LSTM adds up its cell state, so the layer computes in float32 when the initial
    state is float32 (the default zeros take the input's dtype)."""
    mode, h0, c0 = args[8], args[1], args[2]
    if mode in ("RNN_TANH", "RNN_RELU"):
        return LOWER
    return FP32 if any(isinstance(s, Tensor) and s.dtype is float32 for s in (h0, c0)) else LOWER
