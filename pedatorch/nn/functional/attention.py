"""Attention: ``scaled_dot_product_attention`` and ``multi_head_attention_forward``.

    attn = softmax(q k^T * scale + mask) (rows where every score is -inf give 0, not NaN);  out = attn v

PyTorch's CPU dispatcher picks one of two implementations, and so does pedatorch (same results, same
visible ``grad_fn``):

* the fused kernel (``ScaledDotProductFlashAttentionForCpuBackward0``) for 4-D inputs without dropout, equal
  head dims, a mask that is 2-D or 4-D (broadcastable over batch/heads) and needs no gradient, unless
  ``sdpa_kernel`` / ``enable_flash_sdp(False)`` switched it off.  Here it is one ``ArrayFunction`` that keeps
  the probabilities P for its backward:

      dV = P^T dO,   dP = dO V^T,   dS = P * (dP - rowsum(dP * P)),   dQ = dS K * scale,   dK = dS^T Q * scale

  (with ``create_graph=True`` P is recomputed from Tensor ops so that second derivatives are exact);
* otherwise the "math" composition: q * sqrt(scale), matmul, + mask, ``_safe_softmax``, dropout, matmul.

float16 / bfloat16 inputs are computed in float32 by both, as PyTorch's kernels do: the math composition
casts q, k, v to float32 and rounds its result once; the fused kernel keeps the scores and the row sums in
float32 but rounds exp(score - max) to the input dtype for its product with V (and, in the backward, P and
dS for theirs).  Rounding each intermediate to bfloat16 instead moves a third of the outputs by a unit.

``multi_head_attention_forward`` is PyTorch's Python function, line by line, on pedatorch ops.
"""
import math
import warnings

import numpy as np

from ..._warnings import user_stacklevel
from ..._tensor import Tensor
from ...autograd.function import ArrayFunction, before_checks
from ...backend import namespace
from ...backends.cuda import _sdp   # the kernel switches of sdpa_kernel / enable_flash_sdp
from ...autograd.grad_mode import _state
from .dropout import dropout
from .vision import pad
from ..._dtype import is_float_np, is_reduced_np, to_opmath
from ...ops.creation import zeros, zeros_like
from ...ops.join import cat
from ...ops.linalg import addmm, baddbmm, bmm, matmul
from ...ops.reduction import softmax

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]

_NEG_INF = float("-inf")


def _exp_rows(s):
    """(exp(s - rowmax), rowsum) over the last axis, the unnormalised softmax; rows that are all -inf give
    zeros with a sum of 1 (on a device the dead rows are masked always, without reading back whether there
    are any)."""
    xp = namespace(s)
    m = xp.max(s, axis=-1, keepdims=True)
    dead = m == -np.inf
    any_dead = xp is not np or dead.any()
    if any_dead:
        m = xp.where(dead, 0, m)
    e = xp.exp(s - m)
    tot = xp.sum(e, axis=-1, keepdims=True)
    if any_dead:
        tot = xp.where(dead, 1, tot)
    return e, tot


def _softmax_rows(s):
    """softmax over the last axis; rows that are all -inf give zeros."""
    e, tot = _exp_rows(s)
    e /= tot
    return e


def _rounded(a, npdt):
    """``a`` (float32) rounded to the reduced dtype ``npdt`` and widened back: the value a kernel that stores an
    intermediate in float16 / bfloat16 goes on with.  Nothing to do for float32 / float64 inputs."""
    return a.astype(npdt).astype(a.dtype) if is_reduced_np(npdt) else a


class SafeSoftmax(ArrayFunction):
    """y = softmax(x, dim), with 0 in rows where every x is -inf;  dx = y * (grad - sum(grad * y, dim))"""
    node_name = "SafeSoftmaxBackward0"

    @staticmethod
    def forward(ctx, x, dim):
        xp = namespace(x)
        xs = xp.moveaxis(x, dim, -1)
        y = xp.moveaxis(_softmax_rows(xs), -1, dim)
        y = xp.ascontiguousarray(y)
        ctx.dim = dim
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        gy = grad * y
        return gy - y * gy.sum(ctx.dim, keepdim=True), None


def _safe_softmax(x, dim):
    return SafeSoftmax.apply(x, dim if dim >= 0 else dim + x.dim())


class ScaledDotProductFlashAttentionForCpu(ArrayFunction):
    """out = P V with P = safe_softmax(Q K^T * scale + mask);
    dV = P^T dO, dP = dO V^T, dS = P * (dP - rowsum(dP * P)), dQ = dS K * scale, dK = dS^T Q * scale"""
    node_name = "ScaledDotProductFlashAttentionForCpuBackward0"

    @staticmethod
    def forward(ctx, q, k, v, mask, scale, rep):
        k0, v0 = k, v
        xp = namespace(q)
        dt = q.dtype
        # float16 / bfloat16 in float32: PyTorch's kernel accumulates in float32 (see the module docstring)
        q32, k, v, mask = to_opmath(q), to_opmath(k), to_opmath(v), to_opmath(mask)
        if rep > 1:
            k = xp.repeat(k, rep, axis=1)
            v = xp.repeat(v, rep, axis=1)
        s = xp.matmul(q32, xp.swapaxes(k, -1, -2))
        s *= s.dtype.type(scale)
        if mask is not None:
            s += mask
        e, tot = _exp_rows(s)
        # the kernel multiplies V by exp(s - max) stored in the input dtype, then divides by the float32 sum
        out = (xp.matmul(_rounded(e, dt), v) * (1 / tot)).astype(dt, copy=False)
        ctx.scale, ctx.rep, ctx.mask = scale, rep, mask
        ctx.save_for_backward(q, k0, v0, out, e / tot)   # P in float32 for a float16 / bfloat16 input
        return out

    @staticmethod
    def backward(ctx, grad):
        q, k, v, out, p = ctx.saved_tensors
        rep, scale = ctx.rep, ctx.scale
        if is_reduced_np(q._data.dtype) and not _state.enabled:
            dq, dk, dv = _flash_backward_reduced(grad._data, q._data, k._data, v._data, out._data, p._data,
                                                 scale, rep)
            return Tensor._make(dq), Tensor._make(dk), Tensor._make(dv), None, None, None
        if rep > 1:
            k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
        if _state.enabled:  # differentiable probabilities for a second derivative
            s = q.matmul(k.mT) * scale
            if ctx.mask is not None:
                s = s + Tensor._make(ctx.mask).to(s.dtype)   # (the mask was widened to float32 for the forward)
            p = _safe_softmax(s, -1)
        dv = p.mT.matmul(grad)
        dp = grad.matmul(v.mT)
        ds = p * (dp - (dp * p).sum(-1, keepdim=True))
        dq = ds.matmul(k) * scale
        dk = ds.mT.matmul(q) * scale
        if rep > 1:
            B, H, S, E = dk.shape
            dk = dk.view(B, H // rep, rep, S, E).sum(2)
            dv = dv.view(B, H // rep, rep, S, dv.shape[-1]).sum(2)
        return dq, dk, dv, None, None, None


def _flash_backward_reduced(grad, q, k, v, out, p, scale, rep):
    """The fused kernel's backward for float16 / bfloat16 arrays (P is float32).  Its products are float32
    with P and dS rounded to the input dtype first; rowsum(dP * P) is computed as rowsum(dO * O) from the
    rounded output; and dK, dV are gemm-accumulated into buffers of the input dtype, one query head of the
    group and one block of query rows after the other, so that every addition rounds."""
    xp = namespace(q)
    dt, f32 = q.dtype, np.float32
    mT = lambda a: xp.swapaxes(a, -1, -2)  # noqa: E731
    q32, g32 = q.astype(f32), grad.astype(f32)
    k32, v32 = xp.repeat(k.astype(f32), rep, axis=1), xp.repeat(v.astype(f32), rep, axis=1)
    dsum = (g32 * out.astype(f32)).sum(-1, keepdims=True)
    ds = _rounded(p * (xp.matmul(g32, mT(v32)) - dsum), dt)
    pr = _rounded(p, dt)
    dq = (xp.matmul(ds, k32) * f32(scale)).astype(dt)
    B, H, L, S = p.shape
    dk = xp.zeros((B, H // rep) + k.shape[2:], dtype=dt)
    dv = xp.zeros((B, H // rep) + v.shape[2:], dtype=dt)
    block = 256 if L >= 768 else 64 if L >= 192 else 32   # the kernel's query rows per step
    for r in range(rep):            # query heads g * rep + r share key / value head g
        heads = slice(r, None, rep)
        for a in range(0, L, block):
            rows = slice(a, a + block)
            dk = (dk.astype(f32) + xp.matmul(mT(ds[:, heads, rows]), q32[:, heads, rows]) * f32(scale)).astype(dt)
            dv = (dv.astype(f32) + xp.matmul(mT(pr[:, heads, rows]), g32[:, heads, rows])).astype(dt)
    return dq, dk, dv


_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
               "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
               "uint8": "unsigned char", "bool": "bool"}


def _tn(t):
    return _TYPE_NAMES.get(t._data.dtype.name, t._data.dtype.name)


def _flash_ok(query, key, value, attn_mask, dropout_p, enable_gqa):
    if not _sdp["flash"]:  # sdpa_kernel(SDPBackend.MATH) or enable_flash_sdp(False): the math composition
        return False
    if dropout_p > 0.0 or query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        return False
    if not is_float_np(query._data.dtype):
        return False
    E = query.shape[-1]
    if key.shape[-1] != E or value.shape[-1] != E:
        return False
    B, H, L = query.shape[0], query.shape[1], query.shape[2]
    S = key.shape[2]
    if L == 0 or S == 0 or key.shape[0] != B or value.shape[0] != B or value.shape[2] != S:
        return False
    if enable_gqa:
        if key.shape[1] != value.shape[1] or H % key.shape[1]:
            return False
    elif key.shape[1] != H or value.shape[1] != H:
        return False
    if attn_mask is not None:
        if attn_mask.requires_grad:
            return False
        ms = attn_mask.shape
        if attn_mask.dim() not in (2, 4) or ms[-2] not in (L, 1) or ms[-1] not in (S, 1):
            return False
        if attn_mask.dim() == 4 and (ms[0] not in (1, B) or ms[1] not in (1, H)):
            return False
    return True


def _bool_to_float(mask, np_dtype):
    return namespace(mask).where(mask, np_dtype.type(0), np_dtype.type(-np.inf)).astype(np_dtype)


def _check_kernel_switches(query):
    """PyTorch refuses to run when ``sdpa_kernel`` (or torch.backends.cuda's switches) left it no kernel it
    has for the device: on the CPU only the math and flash kernels exist.  pedatorch computes the math
    formula whichever is allowed."""
    usable = ("math", "flash") if query.device.type == "cpu" else ("math", "flash", "mem_efficient", "cudnn")
    if not any(_sdp[name] for name in usable):
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                           "turning off both the math kernel and the fused kernels.")


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(Q K^T * scale + mask) V over the last two dims (see the module docstring)."""
    query, key, value, attn_mask = before_checks("scaled_dot_product_attention", query, key, value, attn_mask)
    if query.dtype != key.dtype or query.dtype != value.dtype:
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{_tn(query)} key.dtype: {_tn(key)} and value.dtype: {_tn(value)} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if attn_mask is not None:
        md = attn_mask._data.dtype
        if not (md == np.bool_ or md == np.float32 or md == query._data.dtype):
            raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                               f"attn_mask.dtype: {_tn(attn_mask)} and  query.dtype: {_tn(query)} instead.")
    if enable_gqa:
        hq, hk, hv = query.shape[-3] if query.dim() > 2 else 1, key.shape[-3] if key.dim() > 2 else 1, \
            value.shape[-3] if value.dim() > 2 else 1
        if hq % hk or hq % hv or hk != hv:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    _check_kernel_switches(query)
    E = query.shape[-1]
    sc = scale if scale is not None else 1.0 / math.sqrt(E)
    L, S = query.shape[-2], key.shape[-2]
    np_dt = query._data.dtype
    if _flash_ok(query, key, value, attn_mask, dropout_p, enable_gqa):
        mask = None
        if attn_mask is not None:
            m = attn_mask._data
            mask = _bool_to_float(m, np_dt) if m.dtype == np.bool_ else m
        if is_causal:
            xp = namespace(query._data)
            causal = _bool_to_float(xp.tril(xp.ones((L, S), dtype=bool)), np_dt)
            mask = causal if mask is None else mask + causal
        rep = query.shape[1] // key.shape[1] if enable_gqa else 1
        return ScaledDotProductFlashAttentionForCpu.apply(query, key, value, mask, float(sc), rep)
    return _sdpa_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


def _sdpa_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """ATen's _scaled_dot_product_attention_math: float16 / bfloat16 are computed in float32 and rounded once at
    the end (grad_fn ToCopyBackward0), unless allow_fp16_bf16_reduction_math_sdp(True) asked for the
    low-precision composition."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if not is_reduced_np(query._data.dtype) or _sdp["math_fp16_bf16_reduction"]:
        return _sdpa_composition(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    from ...amp.autocast_mode import autocast_excluded   # (imported here: amp's op lists import this module)
    with autocast_excluded(query.device.type):   # the float32 products stay float32 inside an autocast region
        out = _sdpa_composition(query.float(), key.float(), value.float(), attn_mask, dropout_p, is_causal,
                                scale, enable_gqa)
    return out.to(query.dtype)


def _sdpa_composition(query_, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """The math formula op by op: q * sqrt(scale), matmul, + mask, _safe_softmax, dropout, matmul."""
    E = query_.shape[-1]
    np_dt = query_._data.dtype
    negative = scale is not None and scale < 0.0
    sc = (abs(scale) if negative else scale) if scale is not None else 1.0 / math.sqrt(E)
    scaling_factor = math.sqrt(sc)
    query = query_ * (-scaling_factor if negative else scaling_factor)
    if is_causal:
        L, S = query_.shape[-2], key.shape[-2]
        xp = namespace(query_._data)
        attn_mask = Tensor._make(_bool_to_float(xp.tril(xp.ones((L, S), dtype=bool)), np_dt))
    elif attn_mask is not None and attn_mask._data.dtype == np.bool_:
        attn_mask = Tensor._make(_bool_to_float(attn_mask._data, np_dt))
    if enable_gqa and query.dim() >= 3:
        hq, hk = query.shape[-3], key.shape[-3]
        if hq != hk:
            key = key.repeat_interleave(hq // hk, dim=-3)
            value = value.repeat_interleave(hq // value.shape[-3], dim=-3)
    attn = query.matmul(key.transpose(-2, -1) * scaling_factor)
    if attn_mask is not None:
        attn = attn + attn_mask
    attn = _safe_softmax(attn, -1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return attn.matmul(value)


# ====================================================================== multi-head attention

def _linear(x, w, b=None):
    """x @ w^T + b, as ATen's linear composes it (addmm on the flattened rows)."""
    if b is not None:
        if x.dim() == 2:
            return addmm(b, x, w.t())
        shape = x.shape
        return addmm(b, x.reshape(-1, shape[-1]), w.t()).view(*shape[:-1], w.shape[0])
    return matmul(x, w.t())


def _in_projection_packed(q, k, v, w, b=None):
    E = q.size(-1)
    if k is v:
        if q is k:
            proj = _linear(q, w, b)
            proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        if b is None:
            b_q = b_kv = None
        else:
            b_q, b_kv = b.split([E, E * 2])
        q_proj = _linear(q, w_q, b_q)
        kv_proj = _linear(k, w_kv, b_kv)
        kv_proj = kv_proj.unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return q_proj, kv_proj[0], kv_proj[1]
    w_q, w_k, w_v = w.chunk(3)
    if b is None:
        b_q = b_k = b_v = None
    else:
        b_q, b_k, b_v = b.chunk(3)
    return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    if w_q.shape != (Eq, Eq):
        raise AssertionError(f"expecting query weights shape of {(Eq, Eq)}, but got {w_q.shape}")
    if w_k.shape != (Eq, Ek):
        raise AssertionError(f"expecting key weights shape of {(Eq, Ek)}, but got {w_k.shape}")
    if w_v.shape != (Eq, Ev):
        raise AssertionError(f"expecting value weights shape of {(Eq, Ev)}, but got {w_v.shape}")
    if b_q is not None and b_q.shape != (Eq,):
        raise AssertionError(f"expecting query bias shape of {(Eq,)}, but got {b_q.shape}")
    if b_k is not None and b_k.shape != (Eq,):
        raise AssertionError(f"expecting key bias shape of {(Eq,)}, but got {b_k.shape}")
    if b_v is not None and b_v.shape != (Eq,):
        raise AssertionError(f"expecting value bias shape of {(Eq,)}, but got {b_v.shape}")
    return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    if query.dim() == 3:
        is_batched = True
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
    elif query.dim() == 2:
        is_batched = False
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected_shape = (num_heads, query.shape[0], key.shape[0])
                if attn_mask.shape != expected_shape:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected_shape} but got "
                                         f"{attn_mask.shape}")
    else:
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                             "tensor")
    return is_batched


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    if mask is not None:
        _mask_dtype = mask.dtype
        _mask_is_float = mask.is_floating_point()
        if mask._data.dtype != np.bool_ and not _mask_is_float:
            raise AssertionError(f"only bool and floating types of {mask_name} are supported")
        if check_other and other_type is not None:
            if _mask_dtype != other_type:
                warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type "
                              "for both instead.", stacklevel=user_stacklevel())
        if not _mask_is_float:
            mask = zeros_like(mask, dtype=target_type).masked_fill_(mask, _NEG_INF)
    return mask


def _none_or_dtype(input):
    if input is None:
        return None
    elif isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """PyTorch's multi-head attention forward: (L, N, E) or unbatched (L, E) inputs; returns
    (attn_output, attn_weights or None)."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query = query.unsqueeze(1)
        key = key.unsqueeze(1)
        value = value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)

    tgt_len, bsz, embed_dim = query.shape
    src_len, _, _ = key.shape

    key_padding_mask = _canonical_mask(mask=key_padding_mask, mask_name="key_padding_mask",
                                       other_type=_none_or_dtype(attn_mask), other_name="attn_mask",
                                       target_type=query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(mask=attn_mask, mask_name="attn_mask", other_type=None, other_name="",
                                    target_type=query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False

    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    # in-projection
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        if q_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but q_proj_weight is None")
        if k_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but k_proj_weight is None")
        if v_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but v_proj_weight is None")
        if in_proj_bias is None:
            b_q = b_k = b_v = None
        else:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)

    # attention mask
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            correct_2d_size = (tgt_len, src_len)
            if attn_mask.shape != correct_2d_size:
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{correct_2d_size}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            correct_3d_size = (bsz * num_heads, tgt_len, src_len)
            if attn_mask.shape != correct_3d_size:
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{correct_3d_size}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    # bias along the batch dim
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    else:
        if bias_k is not None:
            raise AssertionError("bias_k is set but bias_v is None")
        if bias_v is not None:
            raise AssertionError("bias_v is set but bias_k is None")

    # heads: (L, N, E) -> (N * H, L, head_dim)
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_k.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_k.size(0) of {bsz * num_heads}, but got {static_k.size(0)}")
        if static_k.size(2) != head_dim:
            raise AssertionError(f"expecting static_k.size(2) of {head_dim}, but got {static_k.size(2)}")
        k = static_k
    if static_v is None:
        v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_v.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_v.size(0) of {bsz * num_heads}, but got {static_v.size(0)}")
        if static_v.size(2) != head_dim:
            raise AssertionError(f"expecting static_v.size(2) of {head_dim}, but got {static_v.size(2)}")
        v = static_v

    if add_zero_attn:
        zero_attn_shape = (bsz * num_heads, 1, head_dim)
        k = cat([k, zeros(zero_attn_shape, dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, zeros(zero_attn_shape, dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))

    src_len = k.size(1)

    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(
            bsz * num_heads, 1, src_len)
        if attn_mask is None:
            attn_mask = key_padding_mask
        else:
            attn_mask = attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        _B, _Nt, E = q.shape
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            attn_output_weights = baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            attn_output_weights = bmm(q_scaled, k.transpose(-2, -1))
        attn_output_weights = softmax(attn_output_weights, dim=-1)
        if dropout_p > 0.0:
            attn_output_weights = dropout(attn_output_weights, p=dropout_p)
        attn_output = bmm(attn_output_weights, v)
        attn_output = attn_output.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        attn_output = _linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
        attn_output_weights = attn_output_weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            attn_output_weights = attn_output_weights.mean(dim=1)
        if not is_batched:
            attn_output = attn_output.squeeze(1)
            attn_output_weights = attn_output_weights.squeeze(0)
        return attn_output, attn_output_weights

    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    attn_output = attn_output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    attn_output = _linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None
