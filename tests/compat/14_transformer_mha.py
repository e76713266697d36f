# nn.MultiheadAttention and nn.Transformer, after the "Language Translation with nn.Transformer" and
# "Language Modeling with nn.TransformerEncoder" tutorials: attention weights and masks, a sinusoidal
# PositionalEncoding buffer, a seq2seq Transformer trained to reverse digit strings with teacher forcing,
# causal and padding masks, greedy decoding, and a TransformerEncoder classifier.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

# ---- MultiheadAttention on its own
mha = nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True)
print(mha, [(n, tuple(p.shape)) for n, p in mha.named_parameters()])
q = torch.randn(2, 3, 8)
kv = torch.randn(2, 5, 8)
out, w = mha(q, kv, kv)
print(out.shape, w.shape, w.sum(-1))
out, w = mha(q, kv, kv, average_attn_weights=False)
print(w.shape, out.grad_fn.name())
pad = torch.tensor([[False, False, False, True, True], [False] * 5])
out, w = mha(q, kv, kv, key_padding_mask=pad)
print(w[0, :, 3:], w[1, 0])
causal = nn.Transformer.generate_square_subsequent_mask(4)
print(causal)
x = torch.randn(1, 4, 8)
_, w = mha(x, x, x, attn_mask=causal)
print(w[0].triu(1).abs().sum(), w[0, 0])
_, w = mha(x, x, x, attn_mask=causal, is_causal=True)
print(w[0, 1])
sdpa = F.scaled_dot_product_attention(q.view(2, 3, 2, 4).transpose(1, 2), kv.view(2, 5, 2, 4).transpose(1, 2),
                                      kv.view(2, 5, 2, 4).transpose(1, 2))
print(sdpa.shape, f"{sdpa.sum().item():.4f}")


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 50):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        """x: Tensor, shape ``[seq_len, batch_size, embedding_dim]``"""
        x = x + self.pe[: x.size(0)]
        return self.dropout(x)


pe = PositionalEncoding(8, dropout=0.0)
print(pe.pe[:3, 0], pe(torch.zeros(3, 2, 8)).shape)

# ---- seq2seq: reverse a string of digits.  tokens: 0 = pad, 1 = bos, 2 = eos, 3..8 = digits
PAD, BOS, EOS, V = 0, 1, 2, 9


def make_batch(n, length=4):
    src = torch.randint(3, V, (n, length))
    tgt = torch.cat([torch.full((n, 1), BOS), src.flip(1), torch.full((n, 1), EOS)], dim=1)
    return src, tgt


class Seq2Seq(nn.Module):
    def __init__(self, d_model=32, nhead=4, layers=1, ff=64, dropout=0.1):
        super().__init__()
        self.src_emb = nn.Embedding(V, d_model)
        self.tgt_emb = nn.Embedding(V, d_model)
        self.pos = PositionalEncoding(d_model, dropout)
        self.transformer = nn.Transformer(d_model, nhead, layers, layers, ff, dropout, batch_first=False)
        self.generator = nn.Linear(d_model, V)
        self.d_model = d_model

    def embed(self, emb, tokens):
        return self.pos(emb(tokens.T) * math.sqrt(self.d_model))

    def forward(self, src, tgt_in):
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt_in.size(1))
        h = self.transformer(self.embed(self.src_emb, src), self.embed(self.tgt_emb, tgt_in), tgt_mask=tgt_mask,
                             src_key_padding_mask=src == PAD, tgt_key_padding_mask=tgt_in == PAD,
                             memory_key_padding_mask=src == PAD)
        return self.generator(h).transpose(0, 1)

    @torch.no_grad()
    def greedy(self, src, max_len=6):
        memory = self.transformer.encoder(self.embed(self.src_emb, src))
        ys = torch.full((src.size(0), 1), BOS)
        for _ in range(max_len - 1):
            mask = nn.Transformer.generate_square_subsequent_mask(ys.size(1))
            out = self.transformer.decoder(self.embed(self.tgt_emb, ys), memory, tgt_mask=mask)
            next_tok = self.generator(out[-1]).argmax(-1, keepdim=True)
            ys = torch.cat([ys, next_tok], dim=1)
        return ys


model = Seq2Seq()
print(model.transformer.encoder.layers[0])
print("parameters:", sum(p.numel() for p in model.parameters()))
opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-9)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / 10, 1.0))
loss_fn = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=0.1)
for step in range(60):
    model.train()
    src, tgt = make_batch(32)
    logits = model(src, tgt[:, :-1])
    loss = loss_fn(logits.reshape(-1, V), tgt[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    if step % 20 == 19:
        print(f"step {step + 1}: loss {loss.item():.3f} lr {sched.get_last_lr()[0]:.5f}")

model.eval()
src, tgt = make_batch(6)
pred = model.greedy(src)
print(src, pred, sep="\n")
print("token accuracy:", f"{(pred[:, 1:] == tgt[:, 1:]).float().mean().item():.3f}")

# ---- a TransformerEncoder classifier: is the sum of the sequence above its median?
enc_layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True,
                                       norm_first=True, activation="gelu")
encoder = nn.TransformerEncoder(enc_layer, num_layers=2, enable_nested_tensor=False)
proj, head = nn.Linear(1, 16), nn.Linear(16, 2)
params = list(encoder.parameters()) + list(proj.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.05, momentum=0.9)
for step in range(30):
    xs = torch.randn(16, 6, 1)
    ys = (xs.sum((1, 2)) > 0).long()
    logits = head(encoder(proj(xs)).mean(1))
    loss = F.cross_entropy(logits, ys)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print(f"classifier step {step + 1}: loss {loss.item():.4f} acc {(logits.argmax(1) == ys).float().mean():.3f}")
print(encoder.layers[1].self_attn.in_proj_weight.grad.norm() > 0, len(encoder.layers), encoder.norm)
