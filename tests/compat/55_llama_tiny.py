# A tiny Llama / Mistral-style decoder as the minimal Llama reimplementations and the HuggingFace modeling
# code write it: a @dataclass ModelArgs, RMSNorm, rotary embeddings the Meta way (torch.polar,
# view_as_complex / view_as_real) and the HF "rotate_half" way (cos / sin caches as non-persistent buffers),
# grouped-query attention (repeat_kv by expand + reshape and by repeat_interleave, scaled_dot_product_attention
# with is_causal, with an additive -inf mask, with enable_gqa, and HF's eager attention with a
# torch.finfo(dtype).min mask), a SwiGLU feed-forward, weight tying, building on the meta device then
# to_empty + _init_weights, AdamW with decay / no-decay groups, training under bfloat16 autocast and in
# float32 with clip_grad_norm_ and a warmup + cosine schedule (by hand and by LambdaLR), KV-cache generation
# under inference_mode (greedy, temperature + top-k with a seeded Generator), a state_dict round trip
# through torch.save / torch.load(weights_only=True), half / bfloat16 forwards (Module.to(dtype) casts the
# complex rotary buffer, .half() keeps it), attention in bfloat16 (fused kernel, math kernel, autocast),
# pure bfloat16 training with fused AdamW; then HF-style pieces (LlamaMLP with trunc_normal_, the shifted
# causal-LM loss with -100 labels, which ops autocast runs in bfloat16, get_total_norm /
# clip_grads_with_norm_, per-group LambdaLR with gradient accumulation, top-p and repetition penalty).
import copy
import inspect
import io
import math
from dataclasses import asdict, dataclass
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


@dataclass
class ModelArgs:
    dim: int = 32
    n_layers: int = 2
    n_heads: int = 4
    n_kv_heads: Optional[int] = 2
    vocab_size: int = 48
    multiple_of: int = 16  # make the SwiGLU hidden size a multiple of this
    ffn_dim_multiplier: Optional[float] = None
    norm_eps: float = 1e-5
    rope_theta: float = 10000.0
    max_seq_len: int = 32


args = ModelArgs()
print(args)
print(asdict(args)["n_kv_heads"], args.dim // args.n_heads)


# ---------------------------------------------------------------- RMSNorm
class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        output = self._norm(x.float()).type_as(x)
        return output * self.weight


norm = RMSNorm(8, eps=1e-5)
x = torch.randn(2, 3, 8)
y = norm(x)
print(y.shape, y.dtype, y[0, 0])
print(y.pow(2).mean(-1))
if hasattr(nn, "RMSNorm"):
    ref = nn.RMSNorm(8, eps=1e-5)
    print(ref, torch.allclose(ref(x), y, atol=1e-6))
y.sum().backward()
print(norm.weight.grad)


# ---------------------------------------------------------------- rotary embeddings, the Meta way
def precompute_freqs_cis(dim: int, end: int, theta: float = 10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device, dtype=torch.float32)
    freqs = torch.outer(t, freqs)
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)  # complex64
    return freqs_cis


def reshape_for_broadcast(freqs_cis, x):
    ndim = x.ndim
    assert 0 <= 1 < ndim
    assert freqs_cis.shape == (x.shape[1], x.shape[-1])
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


head_dim = args.dim // args.n_heads
freqs_cis = precompute_freqs_cis(head_dim, args.max_seq_len * 2, args.rope_theta)
print(freqs_cis.shape, freqs_cis.dtype)
print(freqs_cis[1])
print(freqs_cis[5, :2], freqs_cis.abs().max().item() - 1 < 1e-6, torch.view_as_real(freqs_cis).shape)
print(freqs_cis.angle()[3])

xq = torch.randn(2, 5, args.n_heads, head_dim)
xk = torch.randn(2, 5, args.n_kv_heads, head_dim)
q_rot, k_rot = apply_rotary_emb(xq, xk, freqs_cis[:5])
print(q_rot.shape, k_rot.shape, q_rot.dtype, q_rot.is_contiguous())
print(q_rot[0, 1, 0])
# a rotation keeps each pair's length, and position 0 is not rotated
print(torch.allclose(q_rot.norm(dim=-1), xq.norm(dim=-1), atol=1e-5), torch.equal(q_rot[:, 0], xq[:, 0]))
# relative positions: <rot(q, m), rot(k, n)> depends only on m - n
q1 = torch.randn(1, 1, 1, head_dim).expand(1, 8, 1, head_dim)
k1 = torch.randn(1, 1, 1, head_dim).expand(1, 8, 1, head_dim)
qr, kr = apply_rotary_emb(q1, k1, freqs_cis[:8])
dots = (qr[0, :, 0] @ kr[0, :, 0].T)
print(torch.allclose(dots.diagonal(1), dots.diagonal(1)[0].expand(7), atol=1e-5), dots.diagonal(2)[:3])
xq16 = xq.to(torch.bfloat16)
print(apply_rotary_emb(xq16, xq16, freqs_cis[:5])[0].dtype)


# ---------------------------------------------------------------- rotary embeddings, the HF way
class LlamaRotaryEmbedding(nn.Module):
    def __init__(self, dim, max_position_embeddings=2048, base=10000.0, device=None):
        super().__init__()
        self.dim = dim
        self.base = base
        inv_freq = 1.0 / (self.base ** (torch.arange(0, self.dim, 2, dtype=torch.int64).float().to(device) / self.dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self._set_cos_sin_cache(max_position_embeddings, device=self.inv_freq.device, dtype=torch.get_default_dtype())

    def _set_cos_sin_cache(self, seq_len, device, dtype):
        self.max_seq_len_cached = seq_len
        t = torch.arange(self.max_seq_len_cached, device=device, dtype=torch.int64).type_as(self.inv_freq)
        freqs = torch.outer(t, self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos().to(dtype), persistent=False)
        self.register_buffer("sin_cached", emb.sin().to(dtype), persistent=False)

    def forward(self, x, seq_len=None):
        if seq_len > self.max_seq_len_cached:
            self._set_cos_sin_cache(seq_len=seq_len, device=x.device, dtype=x.dtype)
        return (self.cos_cached[:seq_len].to(dtype=x.dtype), self.sin_cached[:seq_len].to(dtype=x.dtype))


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, position_ids, unsqueeze_dim=1):
    cos = cos[position_ids].unsqueeze(unsqueeze_dim)
    sin = sin[position_ids].unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


rope = LlamaRotaryEmbedding(head_dim, max_position_embeddings=16, base=args.rope_theta, device="cpu")
print(rope, [n for n, _ in rope.named_buffers()], list(rope.state_dict().keys()))
print(rope.inv_freq, rope.cos_cached.shape)
cos, sin = rope(xq, seq_len=5)
print(cos.shape, sin.dtype, cos[2])
cos_l, sin_l = rope(xq, seq_len=20)  # grows the cache
print(rope.cos_cached.shape, rope.max_seq_len_cached, cos_l.shape)
position_ids = torch.arange(5).unsqueeze(0).expand(2, -1)
q_hf, k_hf = apply_rotary_pos_emb(xq.transpose(1, 2), xk.transpose(1, 2), cos, sin, position_ids)
print(q_hf.shape, k_hf.shape)
# HF permutes wq / wk when converting Meta checkpoints: interleaved pairs (0, 1), (2, 3) ... become halves
perm = torch.cat([torch.arange(0, head_dim, 2), torch.arange(1, head_dim, 2)])
print(perm)
q_hf2, _ = apply_rotary_pos_emb(xq[..., perm].transpose(1, 2), xk[..., perm].transpose(1, 2), cos, sin,
                                position_ids)
print(torch.allclose(q_hf2.transpose(1, 2), q_rot[..., perm], atol=1e-5))

# the newer HF forward: inv_freq @ position_ids in float32 with autocast switched off
inv_freq_expanded = rope.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
position_ids_expanded = position_ids[:, None, :].float()
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    with torch.autocast(device_type="cpu", enabled=False):
        freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
    print(freqs.dtype, freqs.shape, torch.allclose(emb.cos()[0], cos),
          (inv_freq_expanded @ position_ids_expanded).dtype)


# ---------------------------------------------------------------- grouped-query attention
def repeat_kv(x: torch.Tensor, n_rep: int) -> torch.Tensor:
    """torch.repeat_interleave(x, dim=2, repeats=n_rep), for (bs, seqlen, n_kv_heads, head_dim)"""
    bs, slen, n_kv_heads, head_dim = x.shape
    if n_rep == 1:
        return x
    return (x[:, :, :, None, :].expand(bs, slen, n_kv_heads, n_rep, head_dim)
            .reshape(bs, slen, n_kv_heads * n_rep, head_dim))


def repeat_kv_hf(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


n_rep = args.n_heads // args.n_kv_heads
kr = repeat_kv(xk, n_rep)
print(kr.shape, torch.equal(kr, torch.repeat_interleave(xk, dim=2, repeats=n_rep)),
      torch.equal(kr[:, :, 0], kr[:, :, 1]), torch.equal(kr[:, :, 1], kr[:, :, 2]))
print(torch.equal(repeat_kv_hf(xk.transpose(1, 2), n_rep), kr.transpose(1, 2)),
      xk.transpose(1, 2).repeat_interleave(n_rep, dim=1).shape)

q, k, v = torch.randn(2, 4, 6, 8), torch.randn(2, 2, 6, 8), torch.randn(2, 2, 6, 8)
k_rep, v_rep = repeat_kv_hf(k, 2), repeat_kv_hf(v, 2)
out_causal = F.scaled_dot_product_attention(q, k_rep, v_rep, is_causal=True)
mask = torch.full((6, 6), float("-inf")).triu(1)
print(mask)
out_mask = F.scaled_dot_product_attention(q, k_rep, v_rep, attn_mask=mask)
out_gqa = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
print(out_causal.shape, out_causal[0, 1, :3])
print(torch.allclose(out_causal, out_mask, atol=1e-6), torch.allclose(out_causal, out_gqa, atol=1e-6))

# HF eager attention: softmax in float32, the causal mask filled with finfo(dtype).min
dtype = q.dtype
min_dtype = torch.finfo(dtype).min
print(min_dtype, torch.finfo(torch.bfloat16).min, torch.finfo(torch.float16).min)
causal_mask = torch.full((6, 6), fill_value=min_dtype, dtype=dtype)
causal_mask = torch.triu(causal_mask, diagonal=1)
cache_position = torch.arange(6)
causal_mask *= torch.arange(6) > cache_position.reshape(-1, 1)
causal_mask = causal_mask[None, None, :, :].expand(2, 1, -1, -1)
# left padding in the second sequence, as a batched prompt has it
attention_mask = torch.tensor([[1, 1, 1, 1, 1, 1], [0, 0, 1, 1, 1, 1]])
causal_mask = causal_mask.clone()
padding_mask = causal_mask[:, :, :, :6] + attention_mask[:, None, None, :]
padding_mask = padding_mask == 0
causal_mask[:, :, :, :6] = causal_mask[:, :, :, :6].masked_fill(padding_mask, min_dtype)
print(causal_mask.shape, (causal_mask[1, 0] == min_dtype).sum().item(), (causal_mask == 0).sum().item())
print(causal_mask[1, 0, 3])

scaling = 8 ** -0.5
attn_weights = torch.matmul(q, k_rep.transpose(2, 3)) * scaling
attn_weights = attn_weights + causal_mask
attn_weights = F.softmax(attn_weights, dim=-1, dtype=torch.float32).to(q.dtype)
eager = torch.matmul(attn_weights, v_rep)
print(torch.allclose(eager[0], out_causal[0], atol=1e-6), attn_weights[1, 0, 3])
# the fully masked rows of the padded sequence: finfo.min keeps them finite (uniform), -inf gives nan
print(attn_weights[1, 0, 0], eager.isnan().any().item())
bool_mask = causal_mask == 0
sdpa_bool = F.scaled_dot_product_attention(q, k_rep, v_rep, attn_mask=bool_mask)
print(torch.allclose(sdpa_bool[:, :, 2:], eager[:, :, 2:], atol=1e-6))

# gradients flow through the expanded keys back to the kv heads
kg = k.clone().requires_grad_()
F.scaled_dot_product_attention(q, kg, v, is_causal=True, enable_gqa=True).sum().backward()
kg2 = k.clone().requires_grad_()
F.scaled_dot_product_attention(q, repeat_kv_hf(kg2, 2), v_rep, is_causal=True).sum().backward()
print(kg.grad.shape, torch.allclose(kg.grad, kg2.grad, atol=1e-5), kg.grad[1, 1, 2, :4])


# ---------------------------------------------------------------- the model
class Attention(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.n_kv_heads = args.n_heads if args.n_kv_heads is None else args.n_kv_heads
        self.n_heads = args.n_heads
        self.n_rep = self.n_heads // self.n_kv_heads
        self.head_dim = args.dim // args.n_heads
        self.wq = nn.Linear(args.dim, args.n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(args.n_heads * self.head_dim, args.dim, bias=False)

    def forward(self, x, freqs_cis, mask=None, cache=None):
        bsz, seqlen, _ = x.shape
        xq = self.wq(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        xk = self.wk(x).view(bsz, seqlen, self.n_kv_heads, self.head_dim)
        xv = self.wv(x).view(bsz, seqlen, self.n_kv_heads, self.head_dim)
        xq, xk = apply_rotary_emb(xq, xk, freqs_cis=freqs_cis)
        if cache is not None:  # a growing KV cache: concatenate the past keys and values
            past_k, past_v = cache
            if past_k is not None:
                xk = torch.cat([past_k, xk], dim=1)
                xv = torch.cat([past_v, xv], dim=1)
            cache = (xk, xv)
        keys = repeat_kv(xk, self.n_rep)
        values = repeat_kv(xv, self.n_rep)
        xq, keys, values = xq.transpose(1, 2), keys.transpose(1, 2), values.transpose(1, 2)
        if cache is None:
            output = F.scaled_dot_product_attention(xq, keys, values, is_causal=True)
        else:
            output = F.scaled_dot_product_attention(xq, keys, values, attn_mask=mask)
        output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return self.wo(output), cache


class FeedForward(nn.Module):
    def __init__(self, dim, hidden_dim, multiple_of, ffn_dim_multiplier):
        super().__init__()
        hidden_dim = int(2 * hidden_dim / 3)
        if ffn_dim_multiplier is not None:
            hidden_dim = int(ffn_dim_multiplier * hidden_dim)
        hidden_dim = multiple_of * ((hidden_dim + multiple_of - 1) // multiple_of)
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TransformerBlock(nn.Module):
    def __init__(self, layer_id: int, args: ModelArgs):
        super().__init__()
        self.attention = Attention(args)
        self.feed_forward = FeedForward(args.dim, 4 * args.dim, args.multiple_of, args.ffn_dim_multiplier)
        self.layer_id = layer_id
        self.attention_norm = RMSNorm(args.dim, eps=args.norm_eps)
        self.ffn_norm = RMSNorm(args.dim, eps=args.norm_eps)

    def forward(self, x, freqs_cis, mask=None, cache=None):
        a, cache = self.attention(self.attention_norm(x), freqs_cis, mask, cache)
        h = x + a
        out = h + self.feed_forward(self.ffn_norm(h))
        return out, cache


class Transformer(nn.Module):
    def __init__(self, params: ModelArgs):
        super().__init__()
        self.params = params
        self.vocab_size = params.vocab_size
        self.n_layers = params.n_layers
        self.tok_embeddings = nn.Embedding(params.vocab_size, params.dim)
        self.layers = nn.ModuleList(TransformerBlock(i, params) for i in range(params.n_layers))
        self.norm = RMSNorm(params.dim, eps=params.norm_eps)
        self.output = nn.Linear(params.dim, params.vocab_size, bias=False)
        self.output.weight = self.tok_embeddings.weight  # weight tying
        self.register_buffer("freqs_cis", precompute_freqs_cis(params.dim // params.n_heads,
                                                               params.max_seq_len * 2, params.rope_theta),
                             persistent=False)

    def forward(self, tokens, targets=None, start_pos=0, caches=None):
        _bsz, seqlen = tokens.shape
        h = self.tok_embeddings(tokens)
        freqs_cis = self.freqs_cis[start_pos: start_pos + seqlen]
        mask = None
        if caches is not None and seqlen > 1:
            mask = torch.full((seqlen, seqlen), float("-inf"), device=tokens.device).triu(1)
            # the cached positions are all visible: (seqlen, start_pos + seqlen)
            mask = torch.hstack([torch.zeros((seqlen, start_pos), device=tokens.device), mask]).type_as(h)
        new_caches = []
        for i, layer in enumerate(self.layers):
            h, c = layer(h, freqs_cis, mask, None if caches is None else caches[i])
            new_caches.append(c)
        h = self.norm(h)
        logits = self.output(h)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss, (new_caches if caches is not None else None)


def _init_weights(module):
    if isinstance(module, nn.Linear):
        torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if module.bias is not None:
            torch.nn.init.zeros_(module.bias)
    elif isinstance(module, nn.Embedding):
        torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
    elif isinstance(module, RMSNorm):
        torch.nn.init.ones_(module.weight)


# build without allocating, then materialise on the CPU and initialise
with torch.device("meta"):
    model = Transformer(args)
print(model.output.weight.device, model.output.weight.is_meta, model.freqs_cis.device, model.freqs_cis.dtype)
print(model.layers[0].attention_norm.weight)
print(model.layers[0].feed_forward.w1)
print(model.output.weight is model.tok_embeddings.weight)
model.to_empty(device="cpu")
# to_empty makes a new Parameter per module: the tie is lost, and is made again
print(model.output.weight.device, model.output.weight is model.tok_embeddings.weight, model.freqs_cis.device)
model.output.weight = model.tok_embeddings.weight
model.freqs_cis = precompute_freqs_cis(args.dim // args.n_heads, args.max_seq_len * 2, args.rope_theta)
print(torch.equal(model.freqs_cis, freqs_cis), "freqs_cis" in dict(model.named_buffers()))
torch.manual_seed(1234)
model.apply(_init_weights)
for pn, p in model.named_parameters():
    if pn.endswith("wo.weight") or pn.endswith("w2.weight"):  # scaled residual projections
        torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * args.n_layers))
print(model)
n_params = sum(p.numel() for p in model.parameters())
n_params_all = sum(p.numel() for _, p in model.named_parameters(remove_duplicate=False))
print(f"number of parameters: {n_params:,} ({n_params_all:,} counting the tied head twice)")
print(f"{n_params / 1e3:.2f}K", len(list(model.named_parameters())), len(model.state_dict()))
print(model.tok_embeddings.weight[0, :4], model.layers[1].attention.wo.weight.std().item() < 0.02)
print(model.layers[0].feed_forward.w1.weight[:2, :3])
print(model.layers[1].ffn_norm.weight[:4])

# ---------------------------------------------------------------- a synthetic token dataset
torch.manual_seed(0)
N = 2000
steps = torch.randint(1, 4, (N,))
data = torch.cumsum(steps, 0) % args.vocab_size  # each token is the last one plus 1, 2 or 3
print(data[:16], data.dtype)
block_size, batch_size = 16, 8


def get_batch():
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + 1 + block_size] for i in ix])
    return x, y


xb, yb = get_batch()
print(xb.shape, xb[0])
logits, loss, _ = model(xb, yb)
print(logits.shape, logits.dtype, f"{loss.item():.4f}", f"{math.log(args.vocab_size):.4f}")


def configure_optimizers(model, weight_decay, learning_rate, betas, device_type):
    param_dict = {pn: p for pn, p in model.named_parameters() if p.requires_grad}
    decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
    nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
    optim_groups = [
        {"params": decay_params, "weight_decay": weight_decay},
        {"params": nodecay_params, "weight_decay": 0.0},
    ]
    num_decay_params = sum(p.numel() for p in decay_params)
    num_nodecay_params = sum(p.numel() for p in nodecay_params)
    print(f"num decayed parameter tensors: {len(decay_params)}, with {num_decay_params:,} parameters")
    print(f"num non-decayed parameter tensors: {len(nodecay_params)}, with {num_nodecay_params:,} parameters")
    fused_available = "fused" in inspect.signature(torch.optim.AdamW).parameters
    use_fused = fused_available and device_type == "cuda"
    extra_args = dict(fused=True) if use_fused else dict()
    optimizer = torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, **extra_args)
    print(f"using fused AdamW: {use_fused} (available: {fused_available})")
    return optimizer


# ---------------------------------------------------------------- training under bfloat16 autocast (a copy)
amp_model = copy.deepcopy(model)
print(amp_model.output.weight is amp_model.tok_embeddings.weight)
amp_opt = configure_optimizers(amp_model, 0.1, 1e-3, (0.9, 0.95), "cpu")
torch.manual_seed(1)
for it in range(3):
    X, Y = get_batch()
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        logits, loss, _ = amp_model(X, Y)
    if it == 0:
        print(logits.dtype, loss.dtype, amp_model.tok_embeddings(X).dtype)
    amp_opt.zero_grad(set_to_none=True)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(amp_model.parameters(), 1.0)
    amp_opt.step()
    print(f"bf16 step {it}: loss {loss.item():.3f}, norm {norm.item():.3f}, "
          f"grad dtype {amp_model.output.weight.grad.dtype}")

# ---------------------------------------------------------------- training in float32 with a schedule
learning_rate, min_lr, warmup_iters, max_iters = 3e-3, 3e-4, 4, 24


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * (it + 1) / warmup_iters
    if it > max_iters:
        return min_lr
    decay_ratio = (it - warmup_iters) / (max_iters - warmup_iters)
    assert 0 <= decay_ratio <= 1
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)


optimizer = configure_optimizers(model, 0.1, learning_rate, (0.9, 0.95), "cpu")
print(len(optimizer.param_groups), [g["weight_decay"] for g in optimizer.param_groups],
      optimizer.param_groups[0]["fused"], optimizer.defaults["eps"])
torch.manual_seed(2)
for it in range(max_iters):
    lr = get_lr(it)
    for param_group in optimizer.param_groups:
        param_group["lr"] = lr
    X, Y = get_batch()
    logits, loss, _ = model(X, Y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    if it % 4 == 0 or it == max_iters - 1:
        print(f"step {it:2d} | loss {loss.item():.4f} | lr {lr:.4e} | norm {norm:.4f}")
print(len(optimizer.state), sorted(optimizer.state[model.output.weight].keys()),
      optimizer.state[model.output.weight]["step"])

# the same schedule by LambdaLR: a multiplier of the base learning rate
sched_opt = torch.optim.AdamW([nn.Parameter(torch.zeros(2))], lr=learning_rate)
scheduler = torch.optim.lr_scheduler.LambdaLR(sched_opt, lr_lambda=lambda it: get_lr(it) / learning_rate)
lrs = []
for it in range(max_iters + 2):
    lrs.append(scheduler.get_last_lr()[0])
    sched_opt.step()
    scheduler.step()
print([f"{lr:.6f}" for lr in lrs[::3]])
print(all(math.isclose(a, get_lr(i)) for i, a in enumerate(lrs)), scheduler.last_epoch)
print(scheduler.state_dict()["base_lrs"], scheduler.state_dict()["_last_lr"])


# ---------------------------------------------------------------- KV-cache generation
@torch.inference_mode()
def generate(model, prompt, max_new_tokens, temperature=1.0, top_k=None, generator=None):
    caches = [(None, None)] * model.n_layers
    tokens, start_pos = prompt, 0
    out = prompt
    for _ in range(max_new_tokens):
        logits, _, caches = model(tokens, start_pos=start_pos, caches=caches)
        start_pos += tokens.size(1)
        logits = logits[:, -1, :]
        if temperature == 0.0:
            next_token = torch.argmax(logits, dim=-1, keepdim=True)
        else:
            logits = logits / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            next_token = torch.multinomial(probs, num_samples=1, generator=generator)
        out = torch.cat((out, next_token), dim=1)
        tokens = next_token
    return out, caches


model.eval()
prompt = data[100:106].unsqueeze(0)
print(prompt)
greedy, caches = generate(model, prompt, 10, temperature=0.0)
print(greedy[0, 6:], caches[0][0].shape, caches[0][0].is_inference(), caches[0][0].requires_grad)
g = torch.Generator().manual_seed(42)
sampled, _ = generate(model, prompt.expand(3, -1), 10, temperature=0.8, top_k=5, generator=g)
print(sampled[:, 6:])
g.manual_seed(42)
print(torch.equal(generate(model, prompt.expand(3, -1), 10, temperature=0.8, top_k=5, generator=g)[0], sampled))

# the cached decoding computes what a full forward computes
with torch.inference_mode():
    full_logits, _, _ = model(greedy[:, :-1])
    caches = [(None, None)] * model.n_layers
    pre, _, caches = model(greedy[:, :8], caches=caches)
    # a chunked prefill: the mask has the cached positions as zeros on its left
    nxt, _, caches = model(greedy[:, 8:11], start_pos=8, caches=caches)
    one, _, caches = model(greedy[:, 11:12], start_pos=11, caches=caches)
print(torch.allclose(full_logits[:, :8], pre, atol=1e-5), torch.allclose(full_logits[:, 8:11], nxt, atol=1e-5),
      torch.allclose(full_logits[:, 11:12], one, atol=1e-5), caches[1][1].shape)
print(full_logits.is_inference(), full_logits.requires_grad, full_logits[0, -1, :4])
mask = torch.full((3, 3), float("-inf")).triu(1)
print(torch.hstack([torch.zeros((3, 2)), mask]))

# ---------------------------------------------------------------- a state_dict round trip
sd = model.state_dict()
print(list(sd.keys())[:4], len(sd), "freqs_cis" in sd, "output.weight" in sd)
buf = io.BytesIO()
torch.save({"model": sd, "model_args": asdict(args), "iter_num": max_iters,
            "optimizer": optimizer.state_dict()}, buf)
buf.seek(0)
checkpoint = torch.load(buf, map_location="cpu", weights_only=True)
print(sorted(checkpoint.keys()), checkpoint["model_args"]["dim"], checkpoint["iter_num"])
print(checkpoint["model"]["output.weight"].data_ptr() == checkpoint["model"]["tok_embeddings.weight"].data_ptr())
model2 = Transformer(ModelArgs(**checkpoint["model_args"]))
print(model2.load_state_dict(checkpoint["model"]))
print(model2.output.weight is model2.tok_embeddings.weight)
model2.eval()
with torch.no_grad():
    print(torch.equal(model2(prompt)[0], model(prompt)[0]))
opt2 = configure_optimizers(model2, 0.1, learning_rate, (0.9, 0.95), "cpu")
opt2.load_state_dict(checkpoint["optimizer"])
print(opt2.param_groups[1]["weight_decay"], opt2.param_groups[0]["lr"] == optimizer.param_groups[0]["lr"],
      torch.equal(opt2.state[model2.output.weight]["exp_avg"], optimizer.state[model.output.weight]["exp_avg"]))
unexpected = dict(checkpoint["model"], **{"freqs_cis": model.freqs_cis})
try:
    model2.load_state_dict(unexpected)
except Exception as e:
    print(type(e).__name__, e)
print(model2.load_state_dict(unexpected, strict=False))

# ---------------------------------------------------------------- half and bfloat16 forwards
with torch.no_grad():
    ref_logits = model(prompt)[0]
    for dt in (torch.float16, torch.bfloat16):
        m = copy.deepcopy(model).to(dt)
        out = m(prompt)[0]
        print(dt, m.tok_embeddings.weight.dtype, m.freqs_cis.dtype, out.dtype, out.shape,
              (out.float() - ref_logits).abs().max().item() < 0.05)
    mh = copy.deepcopy(model).half()
    print(mh.layers[0].attention_norm(torch.randn(1, 2, args.dim).half()).dtype,
          mh.output.weight is mh.tok_embeddings.weight)

# pure bfloat16 training (no float32 master weights) with the fused AdamW kernel, which computes each
# element's update in float32 and stores it in bfloat16
# (a freshly initialised model: the trained one's float32 noise would round differently to bfloat16)
torch.manual_seed(6)
mb = Transformer(args)
mb.apply(_init_weights)
mb = mb.to(torch.bfloat16)
mb.freqs_cis = precompute_freqs_cis(args.dim // args.n_heads, args.max_seq_len * 2, args.rope_theta)
opt_bf16 = torch.optim.AdamW(mb.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.1, fused=True)
torch.manual_seed(5)
for it in range(3):
    X, Y = get_batch()
    _, loss, _ = mb(X, Y)
    opt_bf16.zero_grad(set_to_none=True)
    loss.backward()
    opt_bf16.step()
    print(f"pure bf16 step {it}: loss {loss.item():.1f}", loss.dtype, mb.output.weight.grad.dtype)
st = opt_bf16.state[mb.output.weight]
print(st["step"], st["step"].dtype, st["exp_avg"].dtype, opt_bf16.param_groups[0]["fused"])

# ---------------------------------------------------------------- HF-style pieces
class LlamaMLP(nn.Module):
    def __init__(self, hidden_size, intermediate_size):
        super().__init__()
        self.gate_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.up_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, x):
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


torch.manual_seed(3)
mlp = LlamaMLP(8, 24)
for name, p in mlp.named_parameters():
    nn.init.trunc_normal_(p, mean=0.0, std=0.02, a=-0.06, b=0.06)
print(mlp.gate_proj.weight[0, :4], mlp.down_proj.weight.abs().max().item() <= 0.06)
h = torch.randn(2, 3, 8, requires_grad=True)
out = mlp(h)
print(out[0, 0, :4])
out.pow(2).sum().backward()
print(h.grad[0, 0, :4], mlp.up_proj.weight.grad[0, :4])
# F.rms_norm and nn.RMSNorm with a learnable scale
print(F.rms_norm(h, (8,), eps=1e-6)[0, 0, :4])
print(nn.RMSNorm([3, 8])(h).shape, nn.RMSNorm(8, elementwise_affine=False).weight)

# the causal-LM loss with labels padded by -100, shifted with F.pad
labels = torch.tensor([[5, 6, 7, -100], [1, 2, -100, -100]])
lm_logits = torch.randn(2, 4, 10, requires_grad=True)
padded = F.pad(labels, (0, 1), value=-100)
shift_labels = padded[..., 1:].contiguous()
print(shift_labels)
num_items_in_batch = (shift_labels != -100).sum()
loss_sum = F.cross_entropy(lm_logits.float().view(-1, 10), shift_labels.view(-1), ignore_index=-100,
                           reduction="sum")
loss_mean = F.cross_entropy(lm_logits.view(-1, 10), shift_labels.view(-1))
print(num_items_in_batch, f"{(loss_sum / num_items_in_batch).item():.5f}", f"{loss_mean.item():.5f}")
(loss_sum / num_items_in_batch).backward()
print(lm_logits.grad[1, 1:].abs().sum().item(), lm_logits.grad[0, 0, :3])

# autocast: which ops run in bfloat16 and which stay in float32
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    print(torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
    hb = mlp(h)
    qb = torch.randn(1, 4, 5, 8)
    att = F.scaled_dot_product_attention(qb, qb, qb, is_causal=True)
    sm = F.softmax(qb @ qb.transpose(-1, -2), dim=-1, dtype=torch.float32)
    print(hb.dtype, att.dtype, sm.dtype, F.silu(hb).dtype, torch.rsqrt(hb.float().pow(2).mean(-1)).dtype)
    print(RMSNorm(8)(hb).dtype, RMSNorm(8)(h).dtype,
          F.cross_entropy(hb.view(-1, 8).float(), torch.zeros(6).long()).dtype)
print(torch.is_autocast_enabled("cpu"), torch.is_autocast_enabled())

# is_causal with fewer queries than keys is aligned top-left: not what a cached decoding step wants
qd, kd = torch.randn(1, 1, 2, 4), torch.randn(1, 1, 5, 4)
a_causal = F.scaled_dot_product_attention(qd, kd, kd, is_causal=True)
a_bottom = F.scaled_dot_product_attention(qd, kd, kd, attn_mask=torch.ones(2, 5, dtype=torch.bool).tril(3))
print(a_causal[0, 0, 0], torch.allclose(a_causal[0, 0, 0], kd[0, 0, 0]), a_bottom[0, 0, 1])
from torch.nn.attention import SDPBackend, sdpa_kernel
with sdpa_kernel(SDPBackend.MATH):
    out_math = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    print(torch.allclose(out_math, out_gqa, atol=1e-6), out_math.grad_fn is None)
# attention in bfloat16: the fused kernel and the math composition both accumulate in float32
qb, kb, vb = (t.to(torch.bfloat16).requires_grad_() for t in (q, k, v))
ob = F.scaled_dot_product_attention(qb, kb, vb, is_causal=True, enable_gqa=True)
print(ob.dtype, ob.grad_fn.name(), ob[0, 0, 2])
ob.float().pow(2).sum().backward()
print(qb.grad[0, 0, 2], kb.grad.dtype)
with sdpa_kernel(SDPBackend.MATH):
    om = F.scaled_dot_product_attention(qb, kb, vb, is_causal=True, enable_gqa=True)
print(om.grad_fn.name(), om[0, 0, 2], (om.float() - out_gqa).abs().max().item() < 0.02)
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    o3 = F.scaled_dot_product_attention(q[0], k_rep[0], v_rep[0], is_causal=True)
print(o3.dtype, o3.grad_fn, o3[1, 3])
print(F.scaled_dot_product_attention(q, k_rep, v_rep, scale=0.5)[0, 0, 0, :3])

# the newer clipping API in two steps, and the norm it returns
grads = [p.grad for p in mlp.parameters()]
total = torch.nn.utils.get_total_norm(grads, norm_type=2.0)
torch.nn.utils.clip_grads_with_norm_(mlp.parameters(), max_norm=0.1, total_norm=total)
print(f"{total.item():.5f}", f"{torch.nn.utils.get_total_norm([p.grad for p in mlp.parameters()]).item():.5f}")
print(f"{torch.nn.utils.clip_grad_norm_(mlp.parameters(), 0.05, norm_type='inf').item():.6f}")

# LambdaLR with one lambda per param group; gradient accumulation over micro-batches
opt = torch.optim.AdamW([{"params": mlp.gate_proj.parameters()},
                         {"params": list(mlp.up_proj.parameters()) + list(mlp.down_proj.parameters()),
                          "lr": 1e-2}], lr=1e-3, weight_decay=0.01, fused=False)
sch = torch.optim.lr_scheduler.LambdaLR(opt, [lambda s: min(1.0, (s + 1) / 3), lambda s: 0.5 ** s])
opt.zero_grad()
for micro in range(4):
    xm = torch.randn(2, 3, 8)
    (mlp(xm).pow(2).mean() / 4).backward()
print(f"{mlp.gate_proj.weight.grad.norm().item():.6f}")
for _ in range(3):
    opt.step()
    sch.step()
print([f"{g['lr']:.6f}" for g in opt.param_groups], sch.get_last_lr()[1], opt.param_groups[0]["initial_lr"])
print(mlp.gate_proj.weight[0, :4])

# top-p (nucleus) filtering as HF's TopPLogitsWarper writes it, and a repetition penalty
scores = torch.randn(2, 10)
top_p = 0.8
sorted_logits, sorted_indices = torch.sort(scores, descending=False)
cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
sorted_indices_to_remove = cumulative_probs <= (1 - top_p)
sorted_indices_to_remove[..., -1:] = 0
indices_to_remove = sorted_indices_to_remove.scatter(1, sorted_indices, sorted_indices_to_remove)
filtered = scores.masked_fill(indices_to_remove, -float("Inf"))
print(indices_to_remove.sum(-1), filtered.softmax(-1)[0])
input_ids = torch.tensor([[1, 2, 2], [3, 4, 9]])
penalty = 1.3
score = torch.gather(scores, 1, input_ids)
score = torch.where(score < 0, score * penalty, score / penalty)
print(scores.scatter(1, input_ids, score)[1])
g2 = torch.Generator().manual_seed(7)
print(torch.multinomial(filtered.softmax(-1), num_samples=4, replacement=True, generator=g2))

# ---------------------------------------------------------------- errors
for fn in (
    lambda: torch.view_as_complex(torch.randn(2, 3)),
    lambda: F.scaled_dot_product_attention(q, k_rep, v_rep, attn_mask=mask, is_causal=True),
    lambda: model(torch.randint(0, args.vocab_size, (1, 4)).float()),
    lambda: RMSNorm(8)(torch.randn(2, 4)),
    lambda: F.scaled_dot_product_attention(q, k, v),
    lambda: F.scaled_dot_product_attention(q, k[:, :1].expand(2, 3, 6, 8), v, enable_gqa=True),
    lambda: nn.init.trunc_normal_(torch.empty(3), std=0.02, a=0.1, b=-0.1),
    lambda: torch.optim.lr_scheduler.LambdaLR(opt, [lambda s: 1.0]),
    lambda: torch.optim.AdamW(mlp.parameters(), lr=-1.0),
    lambda: torch.optim.AdamW(mlp.parameters(), betas=(0.9, 1.5)),
    lambda: torch.autocast(device_type="cpu", dtype=torch.float64),
    lambda: torch.nn.utils.clip_grad_norm_([nn.Parameter(torch.ones(1) * float("nan"))], 1.0,
                                           error_if_nonfinite=True),
):
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, e)

# HF's default device=None goes through tensor.to(None)
try:
    rope_default = LlamaRotaryEmbedding(head_dim, max_position_embeddings=16, base=args.rope_theta)
    print(rope_default.inv_freq.device, torch.equal(rope_default.cos_cached, rope.cos_cached[:16]))
except Exception as e:
    print(type(e).__name__, e)
