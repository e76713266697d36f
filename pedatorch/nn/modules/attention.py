"""``MultiheadAttention``: attention over ``num_heads`` subspaces of the embedding (PyTorch's
``torch.nn.MultiheadAttention``, defined there in ``activation.py``, which re-exports it here).

    head_i = softmax((q W_q^i)(k W_k^i)^T / sqrt(head_dim) + mask) (v W_v^i)
    out    = concat(head_1, ..., head_h) W_o^T + b_o

The computation is ``F.multi_head_attention_forward``; this module holds the parameters, with PyTorch's
names, shapes and initialisation:

    in_proj_weight (3E, E)            when kdim == vdim == embed_dim, else
    q_proj_weight (E, E), k_proj_weight (E, kdim), v_proj_weight (E, vdim)
    in_proj_bias (3E), out_proj (a Linear E -> E), bias_k, bias_v (1, 1, E) with add_bias_kv

PyTorch also has an inference "fast path" (a fused kernel for self-attention in eval mode without grad);
pedatorch always takes the general path, which computes the same values.
"""
from ..parameter import Parameter
from ...ops.creation import empty
from ..init import constant_, xavier_normal_, xavier_uniform_
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["MultiheadAttention"]


def _F():
    from .. import functional as F
    return F


def _mask_helpers():
    from ..functional.attention import _canonical_mask, _none_or_dtype
    return _canonical_mask, _none_or_dtype


class MultiheadAttention(Module):
    r"""Allows the model to jointly attend to information from different representation subspaces.

    ``MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O`` where ``head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)``.

    Args:
        embed_dim: Total dimension of the model.
        num_heads: Number of parallel attention heads (``embed_dim`` is split across them: each head has
            dimension ``embed_dim // num_heads``).
        dropout: Dropout probability on ``attn_output_weights``. Default: ``0.0`` (no dropout).
        bias: If specified, adds bias to input / output projection layers. Default: ``True``.
        add_bias_kv: If specified, adds bias to the key and value sequences at dim=0. Default: ``False``.
        add_zero_attn: If specified, adds a new batch of zeros to the key and value sequences at dim=1.
            Default: ``False``.
        kdim: Total number of features for keys. Default: ``None`` (uses ``kdim=embed_dim``).
        vdim: Total number of features for values. Default: ``None`` (uses ``vdim=embed_dim``).
        batch_first: If ``True``, then the input and output tensors are provided as (batch, seq, feature).
            Default: ``False`` (seq, batch, feature).

    Examples::

        >>> multihead_attn = nn.MultiheadAttention(embed_dim, num_heads)
        >>> attn_output, attn_output_weights = multihead_attn(query, key, value)
    """

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim

        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")

        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **factory_kwargs))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **factory_kwargs))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **factory_kwargs))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **factory_kwargs))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)

        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **factory_kwargs))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **factory_kwargs)

        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **factory_kwargs))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **factory_kwargs))
        else:
            self.bias_k = self.bias_v = None

        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            xavier_uniform_(self.in_proj_weight)
        else:
            xavier_uniform_(self.q_proj_weight)
            xavier_uniform_(self.k_proj_weight)
            xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            constant_(self.in_proj_bias, 0.0)
            constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            xavier_normal_(self.bias_v)

    def __setstate__(self, state):
        # Support loading old MultiheadAttention checkpoints generated by v1.1.0
        if "_qkv_same_embed_dim" not in state:
            state["_qkv_same_embed_dim"] = True
        super().__setstate__(state)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        r"""Compute attention outputs using query, key, and value embeddings.

        Args:
            query: ``(L, E_q)`` unbatched, ``(L, N, E_q)``, or ``(N, L, E_q)`` with ``batch_first``.
            key: ``(S, E_k)``, ``(S, N, E_k)`` or ``(N, S, E_k)``.
            value: ``(S, E_v)``, ``(S, N, E_v)`` or ``(N, S, E_v)``.
            key_padding_mask: ``(N, S)`` (``(S)`` unbatched): keys to ignore (bool: ``True`` = ignore; float:
                added to the scores).
            need_weights: also return ``attn_output_weights``. Default: ``True``.
            attn_mask: ``(L, S)`` or ``(N * num_heads, L, S)``: positions not allowed to attend (bool
                ``True``) or added to the scores (float).
            average_attn_weights: average the returned weights over heads. Default: ``True``.
            is_causal: a hint that ``attn_mask`` is the causal mask. Default: ``False``.

        Outputs:
            - **attn_output**: ``(L, E)``, ``(L, N, E)`` or ``(N, L, E)`` with ``batch_first``.
            - **attn_output_weights**: only with ``need_weights=True``: ``(N, L, S)`` averaged over heads, else
              ``(N, num_heads, L, S)`` (without N when unbatched); ``None`` otherwise.
        """
        F = _F()
        canonical_mask, none_or_dtype = _mask_helpers()
        is_batched = query.dim() == 3

        key_padding_mask = canonical_mask(mask=key_padding_mask, mask_name="key_padding_mask",
                                          other_type=none_or_dtype(attn_mask), other_name="attn_mask",
                                          target_type=query.dtype)
        attn_mask = canonical_mask(mask=attn_mask, mask_name="attn_mask", other_type=None, other_name="",
                                   target_type=query.dtype, check_other=False)

        if self.batch_first and is_batched:
            # make sure that the transpose op does not affect the "is" property
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))

        if not self._qkv_same_embed_dim:
            attn_output, attn_output_weights = F.multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
                self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight,
                self.out_proj.bias, training=self.training, key_padding_mask=key_padding_mask,
                need_weights=need_weights, attn_mask=attn_mask, use_separate_proj_weight=True,
                q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
                v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights, is_causal=is_causal)
        else:
            attn_output, attn_output_weights = F.multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
                self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight,
                self.out_proj.bias, training=self.training, key_padding_mask=key_padding_mask,
                need_weights=need_weights, attn_mask=attn_mask, average_attn_weights=average_attn_weights,
                is_causal=is_causal)
        if self.batch_first and is_batched:
            return attn_output.transpose(1, 0), attn_output_weights
        return attn_output, attn_output_weights

    def merge_masks(self, attn_mask, key_padding_mask, query):
        r"""Determine mask type and combine masks if necessary.

        One mask alone is returned with its type (0: ``attn_mask`` (L, L); 1: ``key_padding_mask`` (N, L)); both
        are expanded to ``(N, num_heads, L, L)`` and added, with mask type 2.

        Returns:
            merged_mask, mask_type (``None, None`` without masks)
        """
        mask_type = None
        merged_mask = None
        if key_padding_mask is not None:
            mask_type = 1
            merged_mask = key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                attn_mask_expanded = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                attn_mask_expanded = attn_mask.view(1, 1, seq_len, seq_len).expand(batch_size, self.num_heads, -1,
                                                                                   -1)
            merged_mask = attn_mask_expanded
            if key_padding_mask is not None:
                key_padding_mask_expanded = key_padding_mask.view(batch_size, 1, 1, seq_len).expand(
                    -1, self.num_heads, -1, -1)
                merged_mask = attn_mask_expanded + key_padding_mask_expanded
        return merged_mask, mask_type
