# Recurrent models, after the "Sequence Models and LSTM Networks" tutorial and the time-sequence-prediction
# example: an LSTM classifier over padded, packed variable-length sequences, a 2-layer GRU forecasting a
# sine wave, and an LSTMCell unrolled by hand to generate the future.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(1)

# ---- shapes of the building blocks
lstm = nn.LSTM(3, 3)
inputs = [torch.randn(1, 3) for _ in range(5)]
hidden = (torch.randn(1, 1, 3), torch.randn(1, 1, 3))
for i in inputs:
    out, hidden = lstm(i.view(1, 1, -1), hidden)
print(out, hidden, sep="\n")
inputs = torch.cat(inputs).view(len(inputs), 1, -1)
hidden = (torch.randn(1, 1, 3), torch.randn(1, 1, 3))
out, hidden = lstm(inputs, hidden)
print(out.shape, hidden[0].shape, out.grad_fn.name())
print([(n, tuple(p.shape)) for n, p in lstm.named_parameters()])
bi = nn.GRU(4, 6, num_layers=2, batch_first=True, bidirectional=True, dropout=0.0)
o, h = bi(torch.randn(2, 7, 4))
print(bi, o.shape, h.shape, sum(p.numel() for p in bi.parameters()))

# ---- task 1: does a sequence of digits 0..9 contain more 7s than 3s?  (LSTM over packed sequences)
VOCAB, EMB, HID = 10, 8, 16


def make_batch(n):
    lengths = torch.randint(3, 12, (n,))
    seqs = [torch.randint(0, VOCAB, (int(L),)) for L in lengths]
    labels = torch.tensor([int((s == 7).sum() > (s == 3).sum()) for s in seqs])
    return seqs, lengths, labels


class SeqClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMB, padding_idx=0)
        self.lstm = nn.LSTM(EMB, HID, batch_first=True)
        self.head = nn.Linear(HID, 2)

    def forward(self, padded, lengths):
        emb = self.embedding(padded)
        packed = pack_padded_sequence(emb, lengths, batch_first=True, enforce_sorted=False)
        packed_out, (h_n, c_n) = self.lstm(packed)
        return self.head(h_n[-1])


seqs, lengths, labels = make_batch(4)
padded = pad_sequence(seqs, batch_first=True)
print(padded, lengths, labels, sep="\n")
packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
print(packed.batch_sizes, packed.sorted_indices, packed.data.shape)
unpacked, unpacked_lengths = pad_packed_sequence(packed, batch_first=True)
print(torch.equal(unpacked, padded), unpacked_lengths)

clf = SeqClassifier()
opt = torch.optim.Adam(clf.parameters(), lr=0.02)
for step in range(60):
    seqs, lengths, labels = make_batch(32)
    logits = clf(pad_sequence(seqs, batch_first=True), lengths)
    loss = F.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    total_norm = nn.utils.clip_grad_norm_(clf.parameters(), max_norm=1.0)
    opt.step()
    if step % 10 == 0:
        acc = (logits.argmax(1) == labels).float().mean().item()
        print(f"step {step:3d} loss {loss.item():.4f} acc {acc:.3f} grad-norm {total_norm.item():.3f}")
with torch.no_grad():
    seqs, lengths, labels = make_batch(200)
    acc = (clf(pad_sequence(seqs, batch_first=True), lengths).argmax(1) == labels).float().mean()
print(f"held-out accuracy {acc.item():.3f}")
print(clf.embedding.weight[0], clf.embedding.weight.grad[0])

# ---- task 2: forecast a sine wave one step ahead with a 2-layer GRU
T = 40
t = torch.arange(0, T + 1, dtype=torch.float32)
phases = torch.rand(16, 1) * 2 * math.pi
waves = torch.sin(0.3 * t + phases)  # (16, T+1)
x, y = waves[:, :-1, None], waves[:, 1:, None]


class Forecaster(nn.Module):
    def __init__(self, hidden=24):
        super().__init__()
        self.gru = nn.GRU(1, hidden, num_layers=2, batch_first=True)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x, h=None):
        y, h = self.gru(x, h)
        return self.out(y), h


net = Forecaster()
opt = torch.optim.RMSprop(net.parameters(), lr=5e-3)
for epoch in range(40):
    pred, _ = net(x)
    loss = F.mse_loss(pred, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 8 == 7:
        print(f"epoch {epoch + 1} mse {loss.item():.5f}")

# free-running generation: feed predictions back in
with torch.no_grad():
    _, h = net(x[:1])
    cur = y[:1, -1:]
    gen = []
    for _ in range(6):
        cur, h = net(cur, h)
        gen.append(cur.item())
print("generated", [f"{g:.2f}" for g in gen])
print("truth    ", [f"{math.sin(0.3 * (T + 1 + k) + phases[0].item()):.2f}" for k in range(6)])

# ---- an LSTMCell unrolled by hand (as in the time-sequence-prediction example)
cell1, cell2, lin = nn.LSTMCell(1, 12), nn.LSTMCell(12, 12), nn.Linear(12, 1)
h1 = c1 = torch.zeros(3, 12)
h2 = c2 = torch.zeros(3, 12)
outputs = []
for input_t in waves[:3, :10].split(1, dim=1):
    h1, c1 = cell1(input_t, (h1, c1))
    h2, c2 = cell2(h1, (h2, c2))
    outputs.append(lin(h2))
outputs = torch.cat(outputs, dim=1)
print(outputs.shape, outputs.grad_fn.name(), f"{outputs.sum().item():.4f}")
outputs.pow(2).mean().backward()
print(f"{cell1.weight_hh.grad.abs().sum().item():.5f}", cell1.weight_ih.grad.shape)
