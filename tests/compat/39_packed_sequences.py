# Variable-length sequence batches, in the style of the torch.nn.utils.rnn docs, the "packed padded
# sequences" sentiment-analysis tutorials (bentrevett/pytorch-sentiment-analysis) and the PyTorch forum
# recipes: pad_sequence (batch_first, padding_value, padding_side), pack_padded_sequence with
# enforce_sorted True/False, pad_packed_sequence (total_length), pack_sequence, the PackedSequence fields
# (data, batch_sizes, sorted_indices, unsorted_indices), a bidirectional 2-layer GRU and LSTM over packed
# input (h_n / c_n shapes, last valid outputs == final hidden states), a small packed-LSTM sequence
# classifier trained a few steps, and clip_grad_norm_ / clip_grad_value_.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import (PackedSequence, pack_padded_sequence, pack_sequence, pad_packed_sequence,
                                pad_sequence, unpack_sequence, unpad_sequence)

torch.manual_seed(0)

# ---- pad_sequence
a = torch.tensor([1, 2, 3])
b = torch.tensor([4, 5])
c = torch.tensor([6])
padded = pad_sequence([a, b, c])
print("pad_sequence (T, B)", padded.shape, padded.dtype)
print(padded)
print("batch_first, padding_value=-1\n", pad_sequence([a, b, c], batch_first=True, padding_value=-1))
print("padding_side='left'\n", pad_sequence([a, b, c], batch_first=True, padding_side="left"))
feats = [torch.randn(n, 2) for n in (2, 4, 3)]
print("features", pad_sequence(feats, batch_first=True).shape)
lengths = torch.tensor([len(f) for f in feats])
print("unpad_sequence", [t.shape for t in unpad_sequence(pad_sequence(feats, batch_first=True), lengths,
                                                         batch_first=True)])

# ---- pack_padded_sequence, sorted and unsorted
seqs = torch.tensor([[1, 2, 3, 4], [5, 6, 0, 0], [7, 0, 0, 0]])
packed = pack_padded_sequence(seqs, torch.tensor([4, 2, 1]), batch_first=True)
print("is PackedSequence", isinstance(packed, PackedSequence), isinstance(packed, tuple))
print("data", packed.data)
print("batch_sizes", packed.batch_sizes, packed.batch_sizes.dtype)
print("sorted_indices", packed.sorted_indices, "unsorted_indices", packed.unsorted_indices)

try:
    pack_padded_sequence(seqs[[1, 0, 2]], [2, 4, 1], batch_first=True)
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])

unsorted = seqs[[1, 0, 2]]
packed_u = pack_padded_sequence(unsorted, [2, 4, 1], batch_first=True, enforce_sorted=False)
print("unsorted data", packed_u.data.tolist())
print("unsorted batch_sizes", packed_u.batch_sizes.tolist())
print("sorted_indices", packed_u.sorted_indices, "unsorted_indices", packed_u.unsorted_indices)
back, back_lengths = pad_packed_sequence(packed_u, batch_first=True)
print("round trip", torch.equal(back, unsorted), back_lengths, back_lengths.dtype)
back, _ = pad_packed_sequence(packed_u, batch_first=True, padding_value=9, total_length=6)
print("padding_value=9, total_length=6\n", back)
back_tb, lens_tb = pad_packed_sequence(packed_u)
print("time-major", back_tb.shape, lens_tb.tolist())

# pack_sequence straight from a list
ps = pack_sequence([torch.tensor([1., 2., 3.]), torch.tensor([4., 5.]), torch.tensor([6.])])
print("pack_sequence", ps.data.tolist(), ps.batch_sizes.tolist(), ps.sorted_indices)
ps_u = pack_sequence([torch.tensor([4., 5.]), torch.tensor([1., 2., 3.]), torch.tensor([6.])], enforce_sorted=False)
print("pack_sequence unsorted", ps_u.data.tolist(), ps_u.sorted_indices.tolist())
print("unpack_sequence", [t.tolist() for t in unpack_sequence(ps_u)])
print("packed.to(float64)", ps.to(torch.float64).data.dtype, "is_cuda", ps.is_cuda)

try:
    pack_padded_sequence(seqs, torch.tensor([4, 2, 0]), batch_first=True)
except RuntimeError as e:
    print("RuntimeError:", e)

# ---- embeddings + bidirectional 2-layer GRU and LSTM over a packed batch
vocab, emb_dim, hidden = 12, 5, 4
embedding = nn.Embedding(vocab, emb_dim, padding_idx=0)
tokens = torch.tensor([[3, 4, 5, 6, 7], [8, 9, 0, 0, 0], [1, 2, 3, 0, 0], [5, 0, 0, 0, 0]])
lens = torch.tensor([5, 2, 3, 1])
emb = embedding(tokens)
packed_emb = pack_padded_sequence(emb, lens, batch_first=True, enforce_sorted=False)
print("packed emb data", packed_emb.data.shape, packed_emb.batch_sizes.tolist())

gru = nn.GRU(emb_dim, hidden, num_layers=2, bidirectional=True, batch_first=True)
out_packed, h_n = gru(packed_emb)
print("gru output type", type(out_packed).__name__, out_packed.data.shape)
out, out_lens = pad_packed_sequence(out_packed, batch_first=True)
print("gru padded out", out.shape, "h_n", h_n.shape, out_lens.tolist())
print("padding positions are zero", out[1, 2:].abs().sum().item() == 0.0)
# the forward direction's last valid step equals the top layer's forward h_n; backward's step 0 equals its h_n
last_fwd = out[torch.arange(4), lens - 1, :hidden]
print("fwd last == h_n[-2]", torch.allclose(last_fwd, h_n[-2], atol=1e-6))
print("bwd first == h_n[-1]", torch.allclose(out[:, 0, hidden:], h_n[-1], atol=1e-6))
print("h_n", h_n[-1].detach().round(decimals=4))

lstm = nn.LSTM(emb_dim, hidden, num_layers=2, bidirectional=True, batch_first=True, dropout=0.0)
h0 = torch.zeros(4, 4, hidden)
c0 = torch.randn(4, 4, hidden) * 0.1
out_packed, (h_n, c_n) = lstm(packed_emb, (h0, c0))
out, _ = pad_packed_sequence(out_packed, batch_first=True, total_length=5)
print("lstm out", out.shape, "h_n", h_n.shape, "c_n", c_n.shape)
print("lstm fwd last == h_n[-2]", torch.allclose(out[torch.arange(4), lens - 1, :hidden], h_n[-2], atol=1e-6))
print("c_n", c_n[-1].detach().round(decimals=4))
# the same per-sequence result when each sequence is run alone
single_out, (single_h, _) = lstm(emb[1:2, :2], (h0[:, 1:2], c0[:, 1:2]))
print("sequence 1 alone matches", torch.allclose(single_h, h_n[:, 1:2], atol=1e-6))

# packed RNN output with proj_size
lstm_p = nn.LSTM(emb_dim, 6, proj_size=3, batch_first=True)
out_p, (h_p, c_p) = lstm_p(packed_emb)
print("proj_size", out_p.data.shape, h_p.shape, c_p.shape)

# a plain RNN with packed input and sorted lengths
rnn = nn.RNN(2, 3, nonlinearity="relu")
ps_f = pack_sequence([torch.randn(3, 2), torch.randn(2, 2)])
o, h = rnn(ps_f)
print("rnn packed", o.data.shape, h.shape, o.batch_sizes.tolist())


# ---- a packed-LSTM sequence classifier (the sentiment tutorial's model, in miniature)
class SeqClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_dim, n_classes, pad_idx=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=pad_idx)
        self.rnn = nn.LSTM(embed_dim, hidden_dim, num_layers=2, bidirectional=True, batch_first=True)
        self.fc = nn.Linear(hidden_dim * 2, n_classes)

    def forward(self, text, text_lengths):
        embedded = self.embedding(text)
        packed = pack_padded_sequence(embedded, text_lengths.cpu(), batch_first=True, enforce_sorted=False)
        _, (hidden, _) = self.rnn(packed)
        hidden = torch.cat((hidden[-2], hidden[-1]), dim=1)
        return self.fc(hidden)


def make_batch(n):
    """Class 1 when the sequence contains token 7, else 0; lengths 2..8, padded with 0."""
    lengths = torch.randint(2, 9, (n,))
    text = torch.zeros(n, int(lengths.max()), dtype=torch.long)
    labels = torch.randint(0, 2, (n,))
    for i in range(n):
        seq = torch.randint(1, 7, (int(lengths[i]),))
        if labels[i] == 1:
            seq[torch.randint(0, int(lengths[i]), (1,))] = 7
        text[i, :lengths[i]] = seq
    return text, lengths, labels


model = SeqClassifier(8, 6, 8, 2)
opt = torch.optim.Adam(model.parameters(), lr=0.02)
print("parameters", sum(p.numel() for p in model.parameters()))
for step in range(30):
    text, lengths, labels = make_batch(16)
    logits = model(text, lengths)
    loss = F.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    total_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    opt.step()
    if step % 10 == 0 or step == 29:
        acc = (logits.argmax(1) == labels).float().mean().item()
        print(f"step {step:2d} loss {loss.item():.3f} acc {acc:.3f} grad norm {total_norm.item():.3f}")
print("embedding pad row grad", model.embedding.weight.grad[0].abs().sum().item())

# ---- gradient clipping utilities on their own
w = nn.Parameter(torch.tensor([3.0, -4.0]))
v = nn.Parameter(torch.tensor([[0.5, -0.25]]))
(w * torch.tensor([1.0, 1.0])).sum().backward()
(v * 10).sum().backward()
print("grads", w.grad.tolist(), v.grad.tolist())
norm = nn.utils.clip_grad_norm_([w, v], max_norm=5.0)
print("total norm", round(norm.item(), 4), norm.dtype, norm.shape)
print("clipped", [round(x, 4) for x in w.grad.tolist()], [round(x, 4) for x in v.grad.flatten().tolist()])
w.grad = torch.tensor([3.0, -4.0])
norm_inf = nn.utils.clip_grad_norm_(w, max_norm=1.0, norm_type="inf")
print("inf norm", norm_inf.item(), w.grad.tolist())
w.grad = torch.tensor([3.0, -4.0])
norm_1 = nn.utils.clip_grad_norm_([w], max_norm=100.0, norm_type=1)
print("1-norm below max leaves grads", norm_1.item(), w.grad.tolist())
nn.utils.clip_grad_value_([w, v], clip_value=2.5)
print("clip_grad_value_", w.grad.tolist(), v.grad.tolist())
print("get_total_norm", nn.utils.get_total_norm([torch.tensor([3.0]), torch.tensor([4.0])]).item())
w.grad = torch.tensor([float("nan"), 1.0])
try:
    nn.utils.clip_grad_norm_([w], 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])
print("no grads ->", nn.utils.clip_grad_norm_([nn.Parameter(torch.ones(2))], 1.0))
