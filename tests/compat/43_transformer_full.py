# The full encoder-decoder nn.Transformer, after the "Language Modeling with nn.Transformer and torchtext"
# tutorial (PositionalEncoding, generate_square_subsequent_mask) and the nn.Transformer /
# nn.TransformerDecoderLayer / nn.MultiheadAttention / F.scaled_dot_product_attention docs examples:
# padding masks for source, target and memory, batch_first True and False, norm_first, activation="gelu"
# and a callable activation, kdim/vdim attention, averaged and per-head weights, SDPA with is_causal,
# bool and float masks and scale=, and a tiny translation-style training loop.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

# ---- generate_square_subsequent_mask
m = nn.Transformer.generate_square_subsequent_mask(4)
print(m, m.dtype)
print(nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64).dtype)

# ---- F.scaled_dot_product_attention
q, k, v = torch.randn(2, 3, 4, 8), torch.randn(2, 3, 6, 8), torch.randn(2, 3, 6, 5)
out = F.scaled_dot_product_attention(q, k, v)
print("sdpa", out.shape, f"{out.sum().item():.4f}")
manual = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(8), dim=-1) @ v
print("sdpa == manual", torch.allclose(out, manual, atol=1e-6))
out2 = F.scaled_dot_product_attention(q, k, v, scale=0.5)
manual2 = torch.softmax(q @ k.transpose(-2, -1) * 0.5, dim=-1) @ v
print("scale=", torch.allclose(out2, manual2, atol=1e-6))
qs = torch.randn(2, 3, 4, 8)
causal = F.scaled_dot_product_attention(qs, qs, qs, is_causal=True)
tri = torch.ones(4, 4, dtype=torch.bool).tril()
bool_mask = F.scaled_dot_product_attention(qs, qs, qs, attn_mask=tri)
float_mask = F.scaled_dot_product_attention(qs, qs, qs, attn_mask=torch.zeros(4, 4).masked_fill(~tri, float("-inf")))
print("is_causal == bool mask == float mask", torch.allclose(causal, bool_mask, atol=1e-6),
      torch.allclose(causal, float_mask, atol=1e-6))
print("first row attends to itself", torch.allclose(causal[..., 0, :], qs[..., 0, :], atol=1e-6))
bias = torch.randn(4, 6)
o = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, dropout_p=0.0)
print("additive bias", torch.allclose(o, torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(8) + bias, -1) @ v, atol=1e-6))
o = F.scaled_dot_product_attention(q[0], k[0], v[0])  # 3-d inputs
print("3-d sdpa", o.shape, o.dtype)
qd = q.double().requires_grad_()
F.scaled_dot_product_attention(qd, k.double(), v.double(), is_causal=True).sum().backward()
print("sdpa grad", qd.grad.shape, qd.grad.dtype, f"{qd.grad.abs().sum().item():.6f}")

# ---- nn.MultiheadAttention with kdim / vdim
mha = nn.MultiheadAttention(embed_dim=8, num_heads=2, kdim=6, vdim=4, batch_first=True)
print(mha)
print([(n, tuple(p.shape)) for n, p in mha.named_parameters()])
print("_qkv_same_embed_dim", mha._qkv_same_embed_dim, mha.in_proj_weight)
query, key, value = torch.randn(2, 3, 8), torch.randn(2, 5, 6), torch.randn(2, 5, 4)
out, w = mha(query, key, value)
print(out.shape, w.shape, torch.allclose(w.sum(-1), torch.ones(2, 3)))
out, w = mha(query, key, value, need_weights=False)
print(out.shape, w)
out, w = mha(query, key, value, average_attn_weights=False)
print("per head", w.shape)
kpm = torch.tensor([[False, False, False, True, True], [False, False, False, False, False]])
out, w = mha(query, key, value, key_padding_mask=kpm)
print("padded keys get 0 weight", w[0, :, 3:].abs().max().item(), f"{w[1].sum().item():.4f}")
float_kpm = torch.zeros(2, 5).masked_fill(kpm, float("-inf"))
out_f, w_f = mha(query, key, value, key_padding_mask=float_kpm)
print("float key_padding_mask", torch.allclose(w, w_f, atol=1e-6))
attn_mask3 = torch.zeros(2 * 2, 3, 5, dtype=torch.bool)
attn_mask3[:, :, -1] = True
_, w3 = mha(query, key, value, attn_mask=attn_mask3)
print("3-d attn_mask", w3[..., -1].abs().max().item())
mha_seq = nn.MultiheadAttention(8, 4, dropout=0.1, bias=False, add_bias_kv=True)
print([(n, tuple(p.shape)) for n, p in mha_seq.named_parameters()])
mha_seq.eval()
o, w = mha_seq(torch.randn(3, 2, 8), torch.randn(5, 2, 8), torch.randn(5, 2, 8))
print("seq-first add_bias_kv", o.shape, w.shape)
try:
    nn.MultiheadAttention(10, 3)
except AssertionError as e:
    print("AssertionError:", e)


# ---- PositionalEncoding, as in the tutorial (seq-first)
class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[: x.size(0)]
        return self.dropout(x)


# ---- nn.Transformer: the docs example, then batch_first, norm_first, gelu, a callable activation
transformer_model = nn.Transformer(d_model=16, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
                                   dim_feedforward=32, dropout=0.0)
src = torch.rand((10, 4, 16))
tgt = torch.rand((7, 4, 16))
out = transformer_model(src, tgt)
print("transformer", out.shape, f"{out.mean().item():.4f}", f"{out.std().item():.4f}")
print("params", sum(p.numel() for p in transformer_model.parameters()))
print([n for n, _ in transformer_model.named_children()], type(transformer_model.encoder.norm).__name__)
print(transformer_model.decoder.layers[0])

tgt_mask = transformer_model.generate_square_subsequent_mask(7)
src_pad = torch.zeros(4, 10, dtype=torch.bool)
src_pad[0, 8:] = True
tgt_pad = torch.zeros(4, 7, dtype=torch.bool)
tgt_pad[1, 5:] = True
out_m = transformer_model(src, tgt, tgt_mask=tgt_mask, src_key_padding_mask=src_pad,
                          tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=src_pad, tgt_is_causal=True)
print("masked", out_m.shape, f"{out_m.abs().sum().item():.3f}")
# causality: changing the last target token must not change earlier outputs
tgt2 = tgt.clone()
tgt2[-1] += 1.0
out_m2 = transformer_model(src, tgt2, tgt_mask=tgt_mask)
out_m1 = transformer_model(src, tgt, tgt_mask=tgt_mask)
print("causal prefix unchanged", torch.allclose(out_m1[:-1], out_m2[:-1], atol=1e-5),
      "last changed", not torch.allclose(out_m1[-1], out_m2[-1]))
# padding: changing padded source positions must not change the output for that batch element
src2 = src.clone()
src2[8:, 0] = 100.0
a = transformer_model(src, tgt, src_key_padding_mask=src_pad, memory_key_padding_mask=src_pad)
b = transformer_model(src2, tgt, src_key_padding_mask=src_pad, memory_key_padding_mask=src_pad)
print("padding ignored", torch.allclose(a[:, 0], b[:, 0], atol=1e-5))

torch.manual_seed(1)
bf = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16,
                    dropout=0.0, activation="gelu", batch_first=True, norm_first=True)
print("batch_first", bf(torch.randn(3, 5, 8), torch.randn(3, 4, 8)).shape, bf.batch_first,
      bf.encoder.layers[0].norm_first, bf.encoder.layers[0].activation_relu_or_gelu)
# same weights, seq-first: transposing in and out gives the same result
sf = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16,
                    dropout=0.0, activation="gelu", batch_first=False, norm_first=True)
sf.load_state_dict(bf.state_dict())
xs, xt = torch.randn(3, 5, 8), torch.randn(3, 4, 8)
print("batch_first == seq-first", torch.allclose(bf(xs, xt), sf(xs.transpose(0, 1), xt.transpose(0, 1)).transpose(0, 1), atol=1e-6))


def my_act(x):
    return x * torch.sigmoid(1.702 * x)


cl = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, activation=my_act, batch_first=True)
print("callable activation", cl.activation is my_act, cl.activation_relu_or_gelu, f"{cl(torch.randn(2, 3, 8)).sum().item():.4f}")
gl = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, activation=F.gelu)
print("F.gelu activation", gl.activation_relu_or_gelu)
try:
    nn.TransformerEncoderLayer(d_model=8, nhead=2, activation="tanh")
except RuntimeError as e:
    print("RuntimeError:", e)

# ---- nn.TransformerDecoderLayer / nn.TransformerDecoder (docs example)
decoder_layer = nn.TransformerDecoderLayer(d_model=16, nhead=4, dim_feedforward=32, dropout=0.0, batch_first=True)
print(decoder_layer)
transformer_decoder = nn.TransformerDecoder(decoder_layer, num_layers=2, norm=nn.LayerNorm(16))
memory = torch.rand(2, 10, 16)
tgt = torch.rand(2, 6, 16)
out = transformer_decoder(tgt, memory, tgt_mask=nn.Transformer.generate_square_subsequent_mask(6), tgt_is_causal=True)
print("decoder", out.shape, f"{out.mean().item():.4f}", f"{out.var(unbiased=False).item():.4f}")
print("layers are clones", transformer_decoder.layers[0] is not transformer_decoder.layers[1],
      torch.equal(transformer_decoder.layers[0].linear1.weight, transformer_decoder.layers[1].linear1.weight))
enc_layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32, dropout=0.0)
enc = nn.TransformerEncoder(enc_layer, num_layers=2, enable_nested_tensor=False)
print("encoder", enc(torch.rand(10, 2, 16), src_key_padding_mask=torch.zeros(2, 10, dtype=torch.bool)).shape)

# ---- a tiny translation-style training loop: copy-with-offset of digit sequences
torch.manual_seed(0)
PAD, BOS, EOS, V = 0, 1, 2, 10


class Seq2SeqTransformer(nn.Module):
    def __init__(self, d_model=16, nhead=2, layers=1, ff=32):
        super().__init__()
        self.d_model = d_model
        self.src_emb = nn.Embedding(V, d_model, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(V, d_model, padding_idx=PAD)
        self.pos = PositionalEncoding(d_model, dropout=0.0, max_len=20)
        self.transformer = nn.Transformer(d_model, nhead, layers, layers, ff, dropout=0.0)
        self.generator = nn.Linear(d_model, V)

    def forward(self, src, tgt, src_pad, tgt_pad):
        s = self.pos(self.src_emb(src) * math.sqrt(self.d_model))
        t = self.pos(self.tgt_emb(tgt) * math.sqrt(self.d_model))
        mask = self.transformer.generate_square_subsequent_mask(tgt.size(0))
        h = self.transformer(s, t, tgt_mask=mask, src_key_padding_mask=src_pad,
                             tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=src_pad)
        return self.generator(h)


def make_batch(n=8, length=5):
    src = torch.randint(3, V, (length, n))
    lengths = torch.randint(3, length + 1, (n,))
    pos = torch.arange(length).unsqueeze(1)
    src = src.masked_fill(pos >= lengths, PAD)
    tgt_body = torch.where(src == PAD, src, (src - 3 + 1) % (V - 3) + 3)
    tgt = torch.cat([torch.full((1, n), BOS), tgt_body, torch.full((1, n), PAD)])
    tgt[lengths + 1, torch.arange(n)] = EOS
    return src, tgt


model = Seq2SeqTransformer()
opt = torch.optim.Adam(model.parameters(), lr=5e-3, betas=(0.9, 0.98), eps=1e-9)
loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)
src, tgt = make_batch()
print("batch", src.shape, tgt.shape, tgt[:, 0].tolist())
for step in range(6):
    src, tgt = make_batch()
    tgt_in, tgt_out = tgt[:-1], tgt[1:]
    logits = model(src, tgt_in, (src == PAD).T, (tgt_in == PAD).T)
    loss = loss_fn(logits.reshape(-1, V), tgt_out.reshape(-1))
    opt.zero_grad()
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    print(f"step {step} loss {loss.item():.3f} grad-norm {gn.item():.3f}")

model.eval()
with torch.no_grad():
    src, tgt = make_batch(n=2)
    memory = model.transformer.encoder(model.pos(model.src_emb(src) * 4.0), src_key_padding_mask=(src == PAD).T)
    ys = torch.full((1, 2), BOS)
    for i in range(4):
        t = model.pos(model.tgt_emb(ys) * 4.0)
        h = model.transformer.decoder(t, memory, tgt_mask=nn.Transformer.generate_square_subsequent_mask(ys.size(0)),
                                      memory_key_padding_mask=(src == PAD).T)
        next_tok = model.generator(h[-1]).argmax(-1)
        ys = torch.cat([ys, next_tok.unsqueeze(0)])
    print("greedy", ys.shape, ys.dtype)

# ---- edge cases: unbatched inputs, shape / dtype errors, GQA, add_zero_attn, bias=False
mha = nn.MultiheadAttention(8, 2)
x = torch.randn(3, 8)
o, w = mha(x, x, x)
print("unbatched", o.shape, w.shape)
o, w = mha(x, x, x, average_attn_weights=False)
print("unbatched per-head", w.shape)
t = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16, dropout=0.0)
for args in [(torch.randn(5, 2, 8), torch.randn(4, 3, 8)), (torch.randn(5, 2, 8), torch.randn(4, 2, 6))]:
    try:
        t(*args)
    except RuntimeError as e:
        print("RuntimeError:", e)
print("unbatched transformer", t(torch.randn(5, 8), torch.randn(4, 8)).shape)
print("memory_mask", t(torch.randn(5, 2, 8), torch.randn(4, 2, 8), memory_mask=torch.zeros(4, 5)).shape)
print("src_is_causal", t(torch.randn(5, 2, 8), torch.randn(4, 2, 8), src_mask=t.generate_square_subsequent_mask(5), src_is_causal=True).shape)
q = torch.randn(2, 4, 3, 8); kk = torch.randn(2, 2, 3, 8)
o = F.scaled_dot_product_attention(q, kk, kk, enable_gqa=True)
print("gqa", o.shape, torch.allclose(o, F.scaled_dot_product_attention(q, kk.repeat_interleave(2, 1), kk.repeat_interleave(2, 1)), atol=1e-6))
try:
    F.scaled_dot_product_attention(q, kk, kk)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    F.scaled_dot_product_attention(q, q.double(), q)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    F.scaled_dot_product_attention(q, q, q, attn_mask=torch.ones(3, 3, dtype=torch.bool), is_causal=True)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    mha(torch.randn(3, 2, 8), torch.randn(5, 2, 8), torch.randn(5, 2, 8), key_padding_mask=torch.zeros(2, 4, dtype=torch.bool))
except Exception as e:
    print(type(e).__name__, e)
try:
    mha(torch.randn(3, 2, 8), torch.randn(5, 2, 8), torch.randn(5, 2, 8), attn_mask=torch.zeros(3, 4))
except Exception as e:
    print(type(e).__name__, e)
try:
    mha(torch.randn(3, 2, 8), torch.randn(5, 2, 8), torch.randn(4, 2, 8))
except Exception as e:
    print(type(e).__name__, e)
el = nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True)
print(el)
print(el.self_attn.batch_first, el.linear1.weight.shape)
print(nn.Transformer.generate_square_subsequent_mask(3, device="cpu"))
half = F.scaled_dot_product_attention(q.half(), q.half(), q.half())
print(half.dtype)
bf = F.scaled_dot_product_attention(q.bfloat16(), q.bfloat16(), q.bfloat16())
print(bf.dtype)
lin = nn.modules.linear.NonDynamicallyQuantizableLinear(3, 4)
print(lin)
dl = nn.TransformerDecoderLayer(8, 2, 16, 0.0, norm_first=True, bias=False, layer_norm_eps=1e-6)
print(dl.norm1, dl.linear1)
print(sum(p.numel() for p in dl.parameters()))
torch.manual_seed(0)
mha = nn.MultiheadAttention(8, 2, add_zero_attn=True)
o, w = mha(torch.randn(3, 2, 8), torch.randn(5, 2, 8), torch.randn(5, 2, 8))
print("add_zero_attn", w.shape, f"{o.sum().item():.4f}")

# ---- inference: the eval() fast path zeroes padded positions of a batch_first encoder (nested tensors)
torch.manual_seed(2)
layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
enc = nn.TransformerEncoder(layer, 2)
enc.eval()
x = torch.randn(2, 4, 8)
pad = torch.tensor([[False, False, True, True], [False] * 4])
with torch.no_grad():
    out = enc(x, src_key_padding_mask=pad)
print(out[0, 2:], out.shape)
with torch.inference_mode():
    out2 = enc(x, src_key_padding_mask=pad)
print(out2[0, 2:].abs().sum())
out3 = enc(x, src_key_padding_mask=pad)
print(out3[0, 2:].abs().sum() > 0)
print(enc(x, mask=nn.Transformer.generate_square_subsequent_mask(4), is_causal=True).shape)
mha = nn.MultiheadAttention(8, 2, batch_first=True).eval()
with torch.no_grad():
    o, w = mha(x, x, x, key_padding_mask=pad, need_weights=False)
print(o[0, 2:].abs().sum() > 0, w)
