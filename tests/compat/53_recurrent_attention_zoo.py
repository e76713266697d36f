# The recurrent and attention modules as their reference pages document them: nn.RNN / nn.LSTM / nn.GRU
# (num_layers, nonlinearity, bias=False, batch_first, dropout in train mode, bidirectional, proj_size,
# unbatched inputs, h0 / c0 given or not, packed input sorted and unsorted, parameter names and shapes,
# flatten_parameters, reprs, gradients of inputs and weights, shape errors), the cells nn.RNNCell /
# nn.LSTMCell / nn.GRUCell, nn.MultiheadAttention (kdim / vdim, add_bias_kv with add_zero_attn, bool and
# float masks of every shape, need_weights / average_attn_weights, is_causal, gradients),
# F.scaled_dot_product_attention (masks broadcast over batch and heads, scale, enable_gqa, gradients) and
# the Transformer layers (norm_first, activations, masks, errors).
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence

torch.manual_seed(0)


def show(t, digits=4):
    """A tensor's values with few digits (recurrences amplify float noise a little), flattened."""
    return " ".join(f"{v:.{digits}f}" for v in t.detach().flatten().tolist())


def err(fn):
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0] if str(e) else "")


# ---- nn.RNN: the docs example, reprs, parameter names
rnn = nn.RNN(10, 20, 2)
print(rnn)
input = torch.randn(5, 3, 10)
h0 = torch.randn(2, 3, 20)
output, hn = rnn(input, h0)
print("rnn", output.shape, hn.shape, f"{output.sum().item():.4f}", f"{hn.abs().sum().item():.4f}")
print("last output == top h_n", torch.allclose(output[-1], hn[-1]))
print([(n, tuple(p.shape)) for n, p in rnn.named_parameters()])
print(rnn.all_weights[1][0].shape, len(rnn.all_weights), rnn._flat_weights_names)
rnn.flatten_parameters()
print(nn.RNN(4, 3, nonlinearity="relu", bias=False, batch_first=True, bidirectional=True))
print(nn.RNN(4, 3, 3, dropout=0.5, bidirectional=True))
print(nn.LSTM(4, 3, proj_size=2, batch_first=True), nn.GRU(4, 3, 2, bias=False))
relu_rnn = nn.RNN(4, 3, nonlinearity="relu", bias=False, batch_first=True, bidirectional=True)
print([(n, tuple(p.shape)) for n, p in relu_rnn.named_parameters()])
x = torch.randn(2, 5, 4)
out, h = relu_rnn(x)
print("relu bidirectional", out.shape, h.shape, show(out[:, -1]), show(h))
print("relu outputs >= 0", bool((out >= 0).all()))
print("fwd last == h[0]", torch.allclose(out[:, -1, :3], h[0]), "bwd first == h[1]", torch.allclose(out[:, 0, 3:], h[1]))

# unbatched input: (L, H_in) with h0 (D * num_layers, H_out)
r2 = nn.RNN(4, 3, 2)
o, h = r2(torch.randn(6, 4))
print("unbatched", o.shape, h.shape)
o2, h2 = r2(torch.randn(6, 4), torch.zeros(2, 3))
print("unbatched with h0", o2.shape, h2.shape, show(h2))

# ---- nn.LSTM: the docs example, with and without (h0, c0)
lstm = nn.LSTM(10, 20, 2)
input = torch.randn(5, 3, 10)
h0 = torch.randn(2, 3, 20)
c0 = torch.randn(2, 3, 20)
output, (hn, cn) = lstm(input, (h0, c0))
print("lstm", output.shape, hn.shape, cn.shape, f"{output.sum().item():.4f}", f"{cn.sum().item():.4f}")
out_zero, (hz, cz) = lstm(input)
out_explicit, _ = lstm(input, (torch.zeros(2, 3, 20), torch.zeros(2, 3, 20)))
print("default state is zeros", torch.allclose(out_zero, out_explicit))
print([(n, tuple(p.shape)) for n, p in lstm.named_parameters()][:4])

# proj_size: h has proj_size features, c has hidden_size
lp = nn.LSTM(4, 6, num_layers=2, proj_size=3, bidirectional=True, batch_first=True)
print([(n, tuple(p.shape)) for n, p in lp.named_parameters() if n.endswith("l1_reverse") or "hr" in n])
x = torch.randn(2, 5, 4)
out, (h, c) = lp(x)
print("proj", out.shape, h.shape, c.shape, show(h[-1]))
out_u, (h_u, c_u) = lp(x[0])
print("proj unbatched", out_u.shape, h_u.shape, c_u.shape, torch.allclose(out_u, out[0], atol=1e-6))
err(lambda: nn.LSTM(4, 3, proj_size=3))
err(lambda: nn.LSTM(4, 3, proj_size=-1))
err(lambda: nn.GRU(4, 3, proj_size=2))

# ---- nn.GRU: the docs example, bias=False, 3 layers bidirectional with given h0
gru = nn.GRU(10, 20, 2)
output, hn = gru(torch.randn(5, 3, 10), torch.randn(2, 3, 20))
print("gru", output.shape, hn.shape, f"{output.sum().item():.4f}")
g3 = nn.GRU(3, 4, num_layers=3, bias=False, bidirectional=True)
print([n for n, _ in g3.named_parameters()])
out, h = g3(torch.randn(4, 2, 3), torch.randn(6, 2, 4))
print("gru 3 layers", out.shape, h.shape, show(h[-2:]))

# ---- dropout between layers: only in train mode, and it follows the seeded stream
d = nn.LSTM(3, 4, num_layers=3, dropout=0.5)
x = torch.randn(4, 2, 3)
torch.manual_seed(5)
a, _ = d(x)
torch.manual_seed(5)
b, _ = d(x)
c, _ = d(x)
print("train dropout reproducible", torch.equal(a, b), "differs without reseed", not torch.equal(a, c))
print("dropout out", show(a[-1], 3))
d.eval()
e1, _ = d(x)
e2, _ = d(x)
print("eval deterministic", torch.equal(e1, e2))
print("dropout on one layer warns")
import warnings
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    nn.GRU(3, 4, num_layers=1, dropout=0.3)
print([str(x.message) for x in w])
err(lambda: nn.RNN(3, 4, dropout=1.5))
err(lambda: nn.RNN(3, 4, nonlinearity="sigmoid"))
err(lambda: nn.RNN(3, 0))
err(lambda: nn.RNN(3, 4, num_layers=0))

# ---- gradients of inputs, states and weights
torch.manual_seed(1)
lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True)
x = torch.randn(2, 5, 3, requires_grad=True)
h0 = torch.randn(4, 2, 4, requires_grad=True)
c0 = torch.randn(4, 2, 4, requires_grad=True)
out, (h, c) = lstm(x, (h0, c0))
(out.pow(2).sum() + h.sum() + c.sum()).backward()
print("lstm grads", show(x.grad[0, 0]), show(h0.grad[3, 1]), show(c0.grad[0, 0]))
print("weight grads", f"{lstm.weight_ih_l0.grad.abs().sum().item():.4f}",
      f"{lstm.weight_hh_l1_reverse.grad.abs().sum().item():.4f}", f"{lstm.bias_hh_l1.grad.sum().item():.4f}")
print(out.grad_fn is not None, x.grad.shape, h0.grad.shape)
gru = nn.GRU(3, 4, batch_first=True)
x = torch.randn(2, 3, 3, requires_grad=True)
out, h = gru(x)
out[:, -1].sum().backward()
print("gru grads", show(x.grad[1]), f"{gru.bias_ih_l0.grad.sum().item():.4f}")
rnn = nn.RNN(3, 4, nonlinearity="relu").double()
x = torch.randn(5, 2, 3, dtype=torch.float64, requires_grad=True)
rnn(x)[0].sum().backward()
print("float64 rnn", rnn.weight_hh_l0.dtype, x.grad.dtype, f"{x.grad.sum().item():.6f}")

# ---- packed sequences through each kind, sorted and unsorted
torch.manual_seed(2)
seqs = [torch.randn(4, 3), torch.randn(2, 3), torch.randn(3, 3)]
padded = torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True)
lengths = torch.tensor([4, 2, 3])
for module in (nn.RNN(3, 2, bidirectional=True, batch_first=True), nn.GRU(3, 2, batch_first=True),
               nn.LSTM(3, 2, num_layers=2, batch_first=True)):
    packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
    out, state = module(packed)
    h = state[0] if isinstance(state, tuple) else state
    unpacked, lens = pad_packed_sequence(out, batch_first=True)
    alone = [module(s.unsqueeze(0))[1] for s in seqs]
    alone_h = torch.cat([a[0] if isinstance(a, tuple) else a for a in alone], dim=1)
    print(type(module).__name__, "packed", unpacked.shape, lens.tolist(), h.shape,
          "matches one at a time", torch.allclose(h, alone_h, atol=1e-6))
sorted_packed = pack_sequence(sorted(seqs, key=len, reverse=True))
gru = nn.GRU(3, 2)
out, h = gru(sorted_packed)
print("enforce_sorted packed", out.batch_sizes.tolist(), out.sorted_indices, h.shape, show(h))
h0 = torch.randn(1, 3, 2)
packed_u = pack_sequence(seqs, enforce_sorted=False)
out, h = gru(packed_u, h0)
print("unsorted packed with h0", out.unsorted_indices.tolist(), show(h))
print("h0 of sequence 1 used for sequence 1", torch.allclose(h[:, 1], gru(seqs[1].unsqueeze(1), h0[:, 1:2])[1][:, 0], atol=1e-6))

# ---- shape errors
lstm = nn.LSTM(3, 4)
err(lambda: lstm(torch.randn(5, 2, 7)))
err(lambda: lstm(torch.randn(5, 2, 3), (torch.zeros(1, 3, 4), torch.zeros(1, 3, 4))))
err(lambda: lstm(torch.randn(5, 2, 3), (torch.zeros(1, 2, 4), torch.zeros(1, 2, 5))))
err(lambda: lstm(torch.randn(5, 2, 3), torch.zeros(1, 2, 4)))
err(lambda: nn.GRU(3, 4)(torch.randn(5, 2, 3), torch.zeros(2, 2, 4)))
err(lambda: nn.RNN(3, 4)(torch.randn(2, 5, 2, 3)))
err(lambda: nn.RNN(3, 4)(torch.randn(5, 3), torch.zeros(1, 2, 4)))
err(lambda: nn.RNN(3, 4)(torch.randn(5, 2, 3, dtype=torch.float64)))

# packed input reaches the LSTM kernel without the module's own checks: the kernel's messages
packed = pack_sequence([torch.randn(4, 3), torch.randn(3, 3), torch.randn(2, 3)])
err(lambda: nn.LSTM(5, 2)(packed))
err(lambda: nn.LSTM(3, 2)(packed, (torch.zeros(1, 2, 2), torch.zeros(1, 2, 2))))
err(lambda: nn.LSTM(3, 2)(packed, (torch.zeros(2, 3, 2), torch.zeros(2, 3, 2))))
err(lambda: nn.LSTM(3, 4, proj_size=2)(packed, (torch.zeros(1, 3, 4), torch.zeros(1, 3, 4))))
err(lambda: nn.LSTM(3, 4, proj_size=2)(packed, (torch.zeros(1, 3, 3), torch.zeros(1, 3, 4))))
err(lambda: nn.LSTM(3, 2)(packed, (torch.zeros(1, 3, 2),) * 3))
err(lambda: nn.LSTM(3, 2)(torch.randn(4, 3, 3), (torch.zeros(1, 3, 2),) * 3))
err(lambda: nn.LSTM(3, 2)(packed.to(torch.float64)))
err(lambda: nn.GRU(3, 2)(packed.to(torch.float64)))
err(lambda: nn.GRU(3, 2)(packed, torch.zeros(1, 2, 2)))

# state_dict, deepcopy, dtype conversion, weights changed in place, frozen weights, double backward
import copy
torch.manual_seed(12)
lp = nn.LSTM(3, 4, num_layers=2, proj_size=2)
print(list(lp.state_dict().keys())[-5:])
x = torch.randn(5, 2, 3)
clone = copy.deepcopy(lp)
print("deepcopy", torch.equal(clone(x)[0], lp(x)[0]))
with torch.no_grad():
    lp.weight_ih_l0.mul_(0)
print("zeroed input weights", show(lp(x)[0][0]))
ld = lp.double()
print(ld.weight_ih_l0.dtype, ld(x.double())[0].dtype)
frozen = nn.LSTM(3, 4)
frozen.weight_ih_l0.requires_grad_(False)
xi = x.clone().requires_grad_()
frozen(xi)[0].sum().backward()
print("frozen", frozen.weight_ih_l0.grad, show(frozen.weight_hh_l0.grad.sum(0)), show(xi.grad[0]))
g = nn.GRU(2, 3).double()
x2 = torch.randn(4, 1, 2, dtype=torch.float64, requires_grad=True)
(gx,) = torch.autograd.grad(g(x2)[0].sum(), x2, create_graph=True)
print("double backward", show(torch.autograd.grad(gx.pow(2).sum(), x2)[0]))
print(nn.LSTM(2, 3)(torch.randn(4, 1, 2))[0].grad_fn.name(), nn.GRU(2, 3)(torch.randn(4, 1, 2))[0].grad_fn.name(),
      nn.LSTM(2, 3, proj_size=1)(torch.randn(4, 1, 2))[0].grad_fn.name())
for dt in (torch.float16, torch.bfloat16):
    for M in (nn.RNN, nn.LSTM, nn.GRU):
        print(dt, M.__name__, show(M(3, 4).to(dt)(x.to(dt))[0][-1], 2))
print(nn.RNNBase("LSTM", 3, 4))
err(lambda: nn.RNNBase("FOO", 3, 4))

# ---- the cells: docs examples, defaults, unbatched, bias=False, errors
torch.manual_seed(3)
rnn_cell = nn.RNNCell(10, 20)
input = torch.randn(6, 3, 10)
hx = torch.randn(3, 20)
output = []
for i in range(6):
    hx = rnn_cell(input[i], hx)
    output.append(hx)
print(rnn_cell, "rnn cell", len(output), f"{torch.stack(output).sum().item():.4f}")
cell = nn.LSTMCell(10, 20)
input = torch.randn(2, 3, 10)
hx, cx = torch.randn(3, 20), torch.randn(3, 20)
for i in range(input.size()[0]):
    hx, cx = cell(input[i], (hx, cx))
print(cell, "lstm cell", hx.shape, f"{hx.sum().item():.4f}", f"{cx.sum().item():.4f}")
gcell = nn.GRUCell(10, 20, bias=False)
print(gcell, [(n, tuple(p.shape)) for n, p in gcell.named_parameters()])
hx = gcell(torch.randn(3, 10))
print("gru cell default hx", hx.shape, f"{hx.sum().item():.4f}")
print("unbatched cells", nn.RNNCell(4, 2, nonlinearity="relu")(torch.randn(4)).shape,
      [t.shape for t in nn.LSTMCell(4, 2)(torch.randn(4))], nn.GRUCell(4, 2)(torch.randn(4), torch.zeros(2)).shape)
# a cell and a one-layer module with the same weights agree
lstm1 = nn.LSTM(4, 3)
lcell = nn.LSTMCell(4, 3)
lcell.weight_ih.data.copy_(lstm1.weight_ih_l0.data)
lcell.weight_hh.data.copy_(lstm1.weight_hh_l0.data)
lcell.bias_ih.data.copy_(lstm1.bias_ih_l0.data)
lcell.bias_hh.data.copy_(lstm1.bias_hh_l0.data)
seq = torch.randn(5, 2, 4)
hc = None
for t in range(5):
    hc = lcell(seq[t], hc)
print("cell == module", torch.allclose(hc[0], lstm1(seq)[1][0][0], atol=1e-6))
xg = torch.randn(2, 4, requires_grad=True)
hg = torch.randn(2, 3, requires_grad=True)
nn.GRUCell(4, 3)(xg, hg).sum().backward()
print("gru cell grads", show(xg.grad), show(hg.grad))
err(lambda: nn.RNNCell(4, 2)(torch.randn(3, 5)))
err(lambda: nn.RNNCell(4, 2)(torch.randn(3, 4), torch.zeros(2, 2)))
err(lambda: nn.LSTMCell(4, 2)(torch.randn(3, 4), (torch.zeros(3, 3), torch.zeros(3, 2))))
err(lambda: nn.GRUCell(4, 2)(torch.randn(1, 3, 4)))
err(lambda: nn.RNNCell(4, 2, nonlinearity="gelu"))
err(lambda: nn.LSTMCell(4, 2)(torch.randn(3, 4), torch.zeros(3, 2)))
err(lambda: nn.RNNCell(4, 2)(torch.ones(3, 4, dtype=torch.long)))

# ---- nn.MultiheadAttention: masks of every documented kind
torch.manual_seed(4)
mha = nn.MultiheadAttention(8, 2, batch_first=True)
q, k = torch.randn(2, 3, 8), torch.randn(2, 4, 8)
bool_kpm = torch.tensor([[False, False, True, True], [False, False, False, True]])
float_kpm = torch.zeros(2, 4).masked_fill(bool_kpm, float("-inf"))
o_b, w_b = mha(q, k, k, key_padding_mask=bool_kpm)
o_f, w_f = mha(q, k, k, key_padding_mask=float_kpm)
print("kpm bool == float", torch.allclose(o_b, o_f, atol=1e-6), show(w_b[0]))
am2 = torch.tensor([[False, True, True, True], [False, False, True, True], [False, False, False, True]])
o, w = mha(q, k, k, attn_mask=am2)
print("2-d bool attn_mask", show(w[1]))
o2, w2 = mha(q, k, k, attn_mask=torch.zeros(3, 4).masked_fill(am2, float("-inf")))
print("2-d float attn_mask same", torch.allclose(o, o2, atol=1e-6))
bias = torch.randn(4, 3, 4)  # (N * num_heads, L, S): an additive float bias per head
o, w = mha(q, k, k, attn_mask=bias, average_attn_weights=False)
print("3-d float attn_mask", w.shape, show(w[1, 0]))
o, w = mha(q, k, k, attn_mask=am2, key_padding_mask=bool_kpm)
print("both masks", show(w[0]))
o, w = mha(q, k, k, attn_mask=am2.float().masked_fill(am2, float("-inf")), key_padding_mask=float_kpm)
print("both float masks", show(w[0]))
err(lambda: mha(q, k, k, attn_mask=am2, key_padding_mask=float_kpm))
# a fully masked row gives nan in the math path
o, w = mha(q, k, k, key_padding_mask=torch.ones(2, 4, dtype=torch.bool))
print("all keys masked", o.isnan().all().item(), w.isnan().all().item())
x = torch.randn(2, 4, 8)
causal = nn.Transformer.generate_square_subsequent_mask(4)
o1, w1 = mha(x, x, x, attn_mask=causal)
o2, w2 = mha(x, x, x, attn_mask=causal, is_causal=True, need_weights=False)
print("is_causal", torch.allclose(o1, o2, atol=1e-6), w2)
err(lambda: mha(x, x, x, is_causal=True))
o3, w3 = mha(x, x, x, need_weights=True, average_attn_weights=False)
print("per head", w3.shape, torch.allclose(w3.mean(1), mha(x, x, x)[1], atol=1e-6))

# add_bias_kv and add_zero_attn: one extra key and value each
torch.manual_seed(5)
m = nn.MultiheadAttention(6, 3, add_bias_kv=True, add_zero_attn=True, kdim=4, vdim=5)
print(m, [(n, tuple(p.shape)) for n, p in m.named_parameters()])
q, k, v = torch.randn(3, 2, 6), torch.randn(4, 2, 4), torch.randn(4, 2, 5)
o, w = m(q, k, v, key_padding_mask=torch.tensor([[False] * 3 + [True], [False] * 4]), attn_mask=torch.zeros(3, 4))
print("bias_kv + zero_attn", o.shape, w.shape, show(w[0, 0]), f"{o.sum().item():.4f}")
o, w = m(q, k, v, average_attn_weights=False)
print("per head", w.shape)
q.requires_grad_(True)
o, _ = m(q, k, v)
o.sum().backward()
print("mha grads", show(q.grad[0, 0]), f"{m.bias_k.grad.abs().sum().item():.4f}",
      f"{m.q_proj_weight.grad.abs().sum().item():.4f}", f"{m.out_proj.bias.grad.sum().item():.4f}")
m.eval()
print("eval", m.training, m(q, k, v)[0].shape)
# dropout on the attention weights, seeded, in train mode
torch.manual_seed(6)
md = nn.MultiheadAttention(4, 1, dropout=0.5)
x = torch.randn(3, 1, 4)
torch.manual_seed(7)
_, wa = md(x, x, x)
print("attn dropout", show(wa[0], 3))
err(lambda: nn.MultiheadAttention(8, 2)(torch.randn(3, 2, 6), torch.randn(3, 2, 8), torch.randn(3, 2, 8)))
err(lambda: nn.MultiheadAttention(8, 2)(torch.randn(3, 2, 8), torch.randn(3, 2, 8), torch.randn(3, 2, 8),
                                        attn_mask=torch.zeros(2, 3, 3)))
err(lambda: nn.MultiheadAttention(8, 2)(torch.randn(3, 2, 8), torch.randn(3, 2, 8), torch.randn(3, 2, 8),
                                        attn_mask=torch.zeros(3, 3, dtype=torch.long)))

# the functional form, with static_k / static_v, and mask dtypes that do not match the query
torch.manual_seed(13)
m = nn.MultiheadAttention(4, 2)
q = torch.randn(3, 2, 4)
o, w = F.multi_head_attention_forward(q, q, q, 4, 2, m.in_proj_weight, m.in_proj_bias, None, None, False, 0.0,
                                      m.out_proj.weight, m.out_proj.bias, training=False)
print("functional mha", show(o[0]), show(w[0, 0]))
static = torch.randn(2 * 2, 3, 2)
o, w = F.multi_head_attention_forward(q, q, q, 4, 2, m.in_proj_weight, m.in_proj_bias, None, None, True, 0.0,
                                      m.out_proj.weight, m.out_proj.bias, static_k=static, static_v=static,
                                      average_attn_weights=False)
print("static_k/v + add_zero_attn", show(o[0]), w.shape)
err(lambda: F.multi_head_attention_forward(q, q, q, 4, 2, m.in_proj_weight, m.in_proj_bias, None, None, False, 0.0,
                                           m.out_proj.weight, m.out_proj.bias, static_k=torch.randn(3, 3, 2)))
err(lambda: m(q, q, q, attn_mask=torch.zeros(3, 3, dtype=torch.float64)))
err(lambda: m(q, q, q, key_padding_mask=torch.zeros(2, 3, dtype=torch.float64)))

# ---- F.scaled_dot_product_attention
torch.manual_seed(8)
q, k, v = torch.randn(2, 2, 3, 4), torch.randn(2, 2, 5, 4), torch.randn(2, 2, 5, 6)
bias = torch.randn(2, 1, 3, 5)  # broadcast over heads
o = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=0.3)
ref = torch.softmax(q @ k.transpose(-1, -2) * 0.3 + bias, -1) @ v
print("broadcast float mask + scale", o.shape, torch.allclose(o, ref, atol=1e-6), f"{o.sum().item():.4f}")
bm = torch.rand(3, 5) > 0.3
o = F.scaled_dot_product_attention(q, k, v, attn_mask=bm)
print("bool mask", f"{o.sum().item():.4f}")
o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print("is_causal non-square (top-left)", f"{o.sum().item():.4f}", torch.allclose(o[..., 0, :], v[..., 0, :], atol=1e-6))
o = F.scaled_dot_product_attention(q, k, v, dropout_p=0.0)
print("dropout_p=0", f"{o.sum().item():.4f}")
qg, kg, vg = torch.randn(1, 4, 3, 4), torch.randn(1, 2, 5, 4), torch.randn(1, 2, 5, 4)
print("gqa", F.scaled_dot_product_attention(qg, kg, vg, enable_gqa=True).shape)
qd = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)
kd = torch.randn(2, 5, 4, dtype=torch.float64, requires_grad=True)
vd = torch.randn(2, 5, 3, dtype=torch.float64, requires_grad=True)
mask = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
F.scaled_dot_product_attention(qd, kd, vd, attn_mask=mask).pow(2).sum().backward()
print("sdpa grads", f"{qd.grad.sum().item():.6f}", f"{kd.grad.sum().item():.6f}", f"{vd.grad.sum().item():.6f}",
      f"{mask.grad.abs().sum().item():.6f}")
print("fully masked rows give zeros", show(F.scaled_dot_product_attention(q, q, q, attn_mask=torch.full((3, 3), float("-inf")))[0]))
print("empty", F.scaled_dot_product_attention(torch.randn(2, 0, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 3)).shape)
err(lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=torch.zeros(4, 5)))
err(lambda: F.scaled_dot_product_attention(q, torch.randn(2, 2, 5, 3), v))

# ---- Transformer layers: activations, norm_first, masks, gradients
torch.manual_seed(9)
for act in ("relu", "gelu", F.silu, nn.GELU(approximate="tanh")):
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=act, batch_first=True, norm_first=True)
    x = torch.randn(2, 3, 8)
    print("encoder layer", act if isinstance(act, str) else type(act).__name__, layer.activation_relu_or_gelu,
          f"{layer(x).sum().item():.4f}")
print(nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU(approximate="tanh")))
dec = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, activation="gelu", norm_first=True)
tgt, memory = torch.randn(4, 2, 8, requires_grad=True), torch.randn(5, 2, 8)
out = dec(tgt, memory, tgt_mask=nn.Transformer.generate_square_subsequent_mask(4),
          memory_mask=torch.zeros(4, 5, dtype=torch.bool), tgt_key_padding_mask=torch.tensor([[False] * 3 + [True]] * 2),
          memory_key_padding_mask=torch.zeros(2, 5), tgt_is_causal=True)
out.sum().backward()
print("decoder layer", out.shape, f"{out.abs().sum().item():.4f}", f"{tgt.grad.abs().sum().item():.4f}",
      f"{dec.multihead_attn.in_proj_weight.grad.abs().sum().item():.4f}")
torch.manual_seed(10)
enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1), num_layers=2, norm=nn.LayerNorm(8),
                            enable_nested_tensor=False)
x = torch.randn(4, 2, 8)
torch.manual_seed(11)
y = enc(x, mask=nn.Transformer.generate_square_subsequent_mask(4), is_causal=True)
print("encoder train dropout", show(y[0, 0], 2))
print(nn.Transformer.generate_square_subsequent_mask(0), nn.Transformer.generate_square_subsequent_mask(2, dtype=torch.float16))
tr = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, custom_encoder=None)
print([n for n, _ in tr.named_modules()][:6])
err(lambda: nn.Transformer(8, 2, 1, 1, 16, batch_first=True)(torch.randn(2, 3, 8), torch.randn(3, 3, 6)))
err(lambda: nn.TransformerEncoderLayer(8, 3))
err(lambda: enc(torch.randn(4, 2, 8), src_key_padding_mask=torch.zeros(2, 5, dtype=torch.bool)))
