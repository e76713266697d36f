# Sequence decoding as NLP code writes it: a tiny GRU encoder-decoder trained for a few steps on a toy
# "reverse the sequence" task (pack_padded_sequence encoder, teacher forcing, label-smoothed cross-entropy
# with ignore_index padding), then greedy decoding with finished masks, batched beam search (scores of shape
# (batch*beam,), log_softmax, view(batch, -1).topk(beam), div(rounding_mode='floor') / % vocab to recover
# beam and token, index_select / gather to reorder states and sequences, masked_fill / torch.where for EOS,
# the ((5+len)/6)**alpha length penalty), temperature / top-k / top-p sampling with torch.multinomial and a
# seeded Generator, repetition penalty with gather / scatter_, no_repeat_ngram blocking with Python sets,
# a tiny causal Transformer decoder with left-padded prompts, CTC greedy decoding and F.ctc_loss, BLEU-like
# clipped n-gram counts with unfold and unique(dim=0, return_counts=True), and pad_sequence for outputs.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence

torch.manual_seed(0)

PAD, BOS, EOS = 0, 1, 2
V = 10  # tokens 3..9 are "words"
H = 24


def show(name, t):
    print(name, tuple(t.shape), t.tolist())


# ---- toy data: random word sequences of length 3..5, the target is the reversed source
def make_batch(n, gen=None):
    lengths = torch.randint(3, 6, (n,), generator=gen)
    srcs = [torch.randint(3, V, (int(l),), generator=gen) for l in lengths]
    tgts = [s.flip(0) for s in srcs]
    src = pad_sequence(srcs, batch_first=True, padding_value=PAD)
    dec_in = pad_sequence([torch.cat([torch.tensor([BOS]), t]) for t in tgts], batch_first=True,
                          padding_value=PAD)
    dec_out = pad_sequence([torch.cat([t, torch.tensor([EOS])]) for t in tgts], batch_first=True,
                           padding_value=PAD)
    return src, lengths, dec_in, dec_out


src, lengths, dec_in, dec_out = make_batch(4)
print(src, lengths, dec_in, dec_out, sep="\n")
left = pad_sequence([s[:l] for s, l in zip(src, lengths)], batch_first=True, padding_value=-1,
                    padding_side="left")
print(left, left.dtype)
print(pad_sequence([torch.ones(2, 3), torch.zeros(1, 3)], padding_value=7.5).shape)


class Seq2Seq(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.src_emb = nn.Embedding(vocab, hidden, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(vocab, hidden, padding_idx=PAD)
        self.encoder = nn.GRU(hidden, hidden, batch_first=True)
        self.decoder = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def encode(self, src, lengths):
        packed = pack_padded_sequence(self.src_emb(src), lengths, batch_first=True, enforce_sorted=False)
        _, h = self.encoder(packed)
        return h  # (1, batch, hidden)

    def step(self, tokens, h):
        """One decoder step: tokens (n,) -> logits (n, vocab), new hidden."""
        out, h = self.decoder(self.tgt_emb(tokens).unsqueeze(1), h)
        return self.out(out.squeeze(1)), h

    def forward(self, src, lengths, dec_in):
        out, _ = self.decoder(self.tgt_emb(dec_in), self.encode(src, lengths))
        return self.out(out)


model = Seq2Seq(V, H)
opt = torch.optim.Adam(model.parameters(), lr=0.02)
data_gen = torch.Generator().manual_seed(1)
criterion = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=0.1)
for step in range(1, 41):
    src, lengths, dec_in, dec_out = make_batch(16, data_gen)
    logits = model(src, lengths, dec_in)
    loss = criterion(logits.reshape(-1, V), dec_out.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")

# label smoothing written out: (1 - eps) * nll + eps * mean(-log p) over non-pad positions
logp = F.log_softmax(logits.detach(), dim=-1)
nll = -logp.gather(-1, dec_out.unsqueeze(-1)).squeeze(-1)
smooth = -logp.mean(dim=-1)
keep = dec_out != PAD
manual = ((0.9 * nll + 0.1 * smooth) * keep).sum() / keep.sum()
print(f"{manual.item():.4f} {criterion(logits.detach().reshape(-1, V), dec_out.reshape(-1)).item():.4f}",
      keep.sum().item())
print(f"{F.cross_entropy(logits.detach().transpose(1, 2), dec_out, ignore_index=PAD, reduction='sum').item():.3f}")

model.eval()
test_src = torch.tensor([[3, 4, 5, 6, 0], [7, 8, 9, 0, 0], [9, 3, 8, 4, 5]])
test_len = torch.tensor([4, 3, 5])


# ---- greedy decoding with a finished mask
@torch.no_grad()
def greedy(model, src, lengths, max_len=7):
    h = model.encode(src, lengths)
    n = src.size(0)
    tokens = torch.full((n,), BOS, dtype=torch.long)
    finished = torch.zeros(n, dtype=torch.bool)
    out, total = [], torch.zeros(n)
    for _ in range(max_len):
        logits, h = model.step(tokens, h)
        lp = F.log_softmax(logits, dim=-1)
        best_lp, tokens = lp.max(dim=-1)
        tokens = torch.where(finished, torch.full_like(tokens, PAD), tokens)
        total += best_lp.masked_fill(finished, 0.0)
        out.append(tokens)
        finished |= tokens == EOS
        if finished.all():
            break
    return torch.stack(out, dim=1), total


seqs, total = greedy(model, test_src, test_len)
show("greedy", seqs)
print("greedy logp", [round(v, 3) for v in total.tolist()])


# ---- batched beam search
@torch.no_grad()
def beam_search(model, src, lengths, beam=3, max_len=7, alpha=0.6, verbose=False):
    batch = src.size(0)
    h = model.encode(src, lengths)                        # (1, batch, H)
    h = h.repeat_interleave(beam, dim=1)                  # (1, batch*beam, H)
    seqs = torch.full((batch * beam, 1), BOS, dtype=torch.long)
    scores = torch.zeros(batch, beam)
    scores[:, 1:] = float("-inf")                         # only the first beam is alive at the start
    scores = scores.view(-1)
    finished = torch.zeros(batch * beam, dtype=torch.bool)
    lengths_out = torch.zeros(batch * beam, dtype=torch.long)
    pad_row = torch.full((V,), float("-inf"))
    pad_row[PAD] = 0.0                                     # a finished beam can only append PAD, for free
    base = (torch.arange(batch) * beam).unsqueeze(1)      # (batch, 1)
    for t in range(max_len):
        logits, h = model.step(seqs[:, -1], h)
        lp = F.log_softmax(logits, dim=-1)
        lp = torch.where(finished.unsqueeze(1), pad_row, lp)
        cand = scores.unsqueeze(1) + lp                   # (batch*beam, V)
        top_scores, top_idx = cand.view(batch, -1).topk(beam, dim=1)
        beam_idx = torch.div(top_idx, V, rounding_mode="floor")
        tok = top_idx % V
        flat = (base + beam_idx).view(-1)
        if verbose and t < 2:
            print("t", t, "beam", beam_idx.tolist(), "tok", tok.tolist())
            print("  scores", [[round(v, 3) for v in row] for row in top_scores.tolist()])
        # reorder the sequences two ways: index_select on the flat rows, gather on (batch, beam, len)
        reordered = seqs.index_select(0, flat)
        via_gather = seqs.view(batch, beam, -1).gather(
            1, beam_idx.unsqueeze(-1).expand(-1, -1, seqs.size(1))).view(batch * beam, -1)
        assert torch.equal(reordered, via_gather)
        seqs = torch.cat([reordered, tok.view(-1, 1)], dim=1)
        h = h.index_select(1, flat)
        was_finished = finished.index_select(0, flat)
        lengths_out = lengths_out.index_select(0, flat) + (~was_finished).long()
        finished = was_finished | (tok.view(-1) == EOS)
        scores = top_scores.view(-1)
        if finished.all():
            break
    penalty = ((5.0 + lengths_out.float()) / 6.0) ** alpha
    normed = (scores / penalty).view(batch, beam)
    best = normed.argmax(dim=1)
    best_rows = seqs.view(batch, beam, -1)[torch.arange(batch), best]
    return best_rows[:, 1:], normed, lengths_out.view(batch, beam), seqs


best, normed, lens, all_seqs = beam_search(model, test_src, test_len, verbose=True)
show("beam best", best)
print("normed", [[round(v, 3) for v in row] for row in normed.tolist()])
print("lengths", lens.tolist(), all_seqs.shape)
best1, normed1, _, _ = beam_search(model, test_src, test_len, beam=1)
print("beam=1 equals greedy:", torch.equal(best1[:, :seqs.size(1)], seqs), best1.shape, seqs.shape)
# strip at EOS and pad the hypotheses (lists of varying lengths) back into a batch
hyps = []
for row in best:
    row = row[row != PAD]
    stop = (row == EOS).nonzero()
    hyps.append(row[: int(stop[0]) if len(stop) else len(row)])
print([h.tolist() for h in hyps])
print(pad_sequence(hyps, batch_first=True, padding_value=PAD, padding_side="left"))


# ---- sampling: temperature, top-k, top-p, repetition penalty, no_repeat_ngram
def top_k_top_p_filtering(logits, top_k=0, top_p=1.0, filter_value=float("-inf")):
    if top_k > 0:
        kth = torch.topk(logits, top_k)[0][..., -1, None]
        logits = logits.masked_fill(logits < kth, filter_value)
    if top_p < 1.0:
        sorted_logits, sorted_idx = torch.sort(logits, descending=True)
        cum_probs = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
        remove = cum_probs > top_p
        remove[..., 1:] = remove[..., :-1].clone()         # keep the first token above the threshold
        remove[..., 0] = False
        mask = remove.scatter(-1, sorted_idx, remove)      # back to vocabulary order
        logits = logits.masked_fill(mask, filter_value)
    return logits


def apply_repetition_penalty(logits, prev, penalty):
    score = torch.gather(logits, 1, prev)
    score = torch.where(score < 0, score * penalty, score / penalty)
    return logits.scatter_(1, prev, score)


def banned_ngram_tokens(prev, n):
    banned = []
    for row in prev.tolist():
        seen = {}
        for i in range(len(row) - n + 1):
            key = tuple(row[i:i + n - 1])
            seen.setdefault(key, set()).add(row[i + n - 1])
        banned.append(sorted(seen.get(tuple(row[len(row) - n + 1:]), set())))
    return banned


torch.manual_seed(3)
logits = torch.randn(2, V) * 2
print("filtered k=3", top_k_top_p_filtering(logits.clone(), top_k=3))
print("filtered p=0.8", top_k_top_p_filtering(logits.clone(), top_p=0.8))
print("filtered both", top_k_top_p_filtering(logits.clone(), top_k=5, top_p=0.7))
sorted_logits, sorted_idx = torch.sort(logits, descending=True)
print(sorted_idx, torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1))
prev = torch.tensor([[3, 4, 3, 4, 5], [6, 6, 7, 8, 6]])
print("rep", apply_repetition_penalty(logits.clone(), prev, 1.3))
print("banned", banned_ngram_tokens(prev, 2), banned_ngram_tokens(torch.tensor([[3, 4, 5, 3, 4]]), 3))


@torch.no_grad()
def sample(model, src, lengths, gen, temperature=1.0, top_k=0, top_p=1.0, rep=1.0, no_repeat=0, max_len=7):
    h = model.encode(src, lengths)
    n = src.size(0)
    seqs = torch.full((n, 1), BOS, dtype=torch.long)
    finished = torch.zeros(n, dtype=torch.bool)
    for _ in range(max_len):
        logits, h = model.step(seqs[:, -1], h)
        logits = logits / temperature
        if rep != 1.0:
            logits = apply_repetition_penalty(logits, seqs, rep)
        if no_repeat > 0 and seqs.size(1) >= no_repeat:
            for i, toks in enumerate(banned_ngram_tokens(seqs, no_repeat)):
                logits[i, toks] = float("-inf")
        logits = top_k_top_p_filtering(logits, top_k=top_k, top_p=top_p)
        probs = F.softmax(logits, dim=-1)
        nxt = torch.multinomial(probs, num_samples=1, generator=gen).squeeze(1)
        nxt = torch.where(finished, torch.full_like(nxt, PAD), nxt)
        seqs = torch.cat([seqs, nxt.unsqueeze(1)], dim=1)
        finished |= nxt == EOS
        if finished.all():
            break
    return seqs[:, 1:]


for kw in [dict(temperature=1.0), dict(temperature=0.5, top_k=3), dict(temperature=1.5, top_p=0.9),
           dict(top_k=4, top_p=0.8, rep=1.5), dict(temperature=2.0, no_repeat=2)]:
    g = torch.Generator().manual_seed(42)
    show(" ".join(f"{k}={v}" for k, v in kw.items()), sample(model, test_src, test_len, g, **kw))
g = torch.Generator().manual_seed(7)
probs = F.softmax(torch.tensor([[2.0, 1.0, 0.5, -1.0], [0.0, 0.0, 3.0, 0.0]]), dim=-1)
print(torch.multinomial(probs, 3, generator=g), torch.multinomial(probs, 6, replacement=True, generator=g))


# ---- a tiny causal Transformer decoder (decoder-only), left-padded prompts, greedy decoding
class TinyLM(nn.Module):
    def __init__(self, vocab, d=16, max_len=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_len, d)
        self.block = nn.TransformerEncoderLayer(d, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.head = nn.Linear(d, vocab)

    def forward(self, x, pad_mask):
        L = x.size(1)
        # positions count only real tokens, so left padding does not shift them
        pos = (pad_mask.logical_not().long().cumsum(1) - 1).clamp(min=0)
        h = self.tok(x) + self.pos(pos)
        causal = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
        mask = causal.unsqueeze(0) | pad_mask.unsqueeze(1)          # (B, L, L): True = not allowed
        mask = mask & ~torch.eye(L, dtype=torch.bool)               # every query sees itself (no NaN rows)
        mask = mask.repeat_interleave(2, dim=0)                      # (B * nhead, L, L)
        return self.head(self.block(h, src_mask=mask))


torch.manual_seed(5)
lm = TinyLM(V).eval()
prompts = [torch.tensor([BOS, 3, 4]), torch.tensor([BOS, 5]), torch.tensor([BOS, 6, 7, 8])]
x = pad_sequence(prompts, batch_first=True, padding_value=PAD, padding_side="left")
pad_mask = x == PAD
print(x, pad_mask.sum(1))
with torch.no_grad():
    for _ in range(4):
        logits = lm(x, pad_mask)[:, -1]
        nxt = logits.argmax(-1, keepdim=True)
        x = torch.cat([x, nxt], dim=1)
        pad_mask = torch.cat([pad_mask, torch.zeros_like(nxt, dtype=torch.bool)], dim=1)
    print(x)
    print([round(v, 3) for v in F.log_softmax(logits, -1).max(-1).values.tolist()])


# ---- CTC: greedy decoding (argmax, collapse repeats, drop blanks) and ctc_loss
torch.manual_seed(11)
T, N, C = 8, 3, 5  # blank = 0
ctc_logits = torch.randn(T, N, C, requires_grad=True)
log_probs = ctc_logits.log_softmax(2)
best_path = log_probs.argmax(-1).t()                 # (N, T)
print(best_path)
decoded = []
for path in best_path:
    collapsed = torch.unique_consecutive(path)
    decoded.append(collapsed[collapsed != 0])
print([d.tolist() for d in decoded])
print(pad_sequence(decoded, batch_first=True, padding_value=-1))
path = torch.tensor([0, 3, 3, 0, 0, 3, 1, 1, 1, 0, 2])
u, inv, cnt = torch.unique_consecutive(path, return_inverse=True, return_counts=True)
print(u, inv, cnt, u[u != 0])
print(torch.unique_consecutive(best_path, dim=1))
targets = torch.tensor([[1, 2, 2], [3, 1, 0], [4, 0, 0]])
input_lengths = torch.tensor([8, 7, 5])
target_lengths = torch.tensor([3, 2, 1])
for red in ["none", "mean", "sum"]:
    l = F.ctc_loss(log_probs, targets, input_lengths, target_lengths, reduction=red)
    print(red, [round(v, 4) for v in l.reshape(-1).tolist()])
loss = F.ctc_loss(log_probs, targets, input_lengths, target_lengths)
loss.backward()
print(ctc_logits.grad[:, 0].round(decimals=4))
print(ctc_logits.grad[5:, 2].abs().sum().item() == 0.0)
flat_targets = torch.cat([targets[i, :target_lengths[i]] for i in range(N)])
print(round(F.ctc_loss(log_probs.detach(), flat_targets, input_lengths, target_lengths,
                       reduction="sum").item(), 4))
print(nn.CTCLoss(blank=0, zero_infinity=True)(log_probs.detach(), torch.tensor([[1, 1, 1, 1, 1, 1]] * 3),
                                              torch.tensor([8, 5, 3]), torch.tensor([6, 6, 6])))


# ---- BLEU-like clipped n-gram precision with unfold and unique(dim=0, return_counts=True)
def ngram_counts(seq, n):
    if seq.numel() < n:
        return {}
    grams, counts = torch.unique(seq.unfold(0, n, 1), dim=0, return_counts=True)
    return {tuple(g.tolist()): int(c) for g, c in zip(grams, counts)}


def bleu(hyp, ref, max_n=4):
    log_p = 0.0
    for n in range(1, max_n + 1):
        h, r = ngram_counts(hyp, n), ngram_counts(ref, n)
        clipped = sum(min(c, r.get(g, 0)) for g, c in h.items())
        total = max(sum(h.values()), 1)
        log_p += math.log(max(clipped, 1e-9) / total) / max_n
    bp = min(1.0, math.exp(1 - ref.numel() / max(hyp.numel(), 1)))
    return bp * math.exp(log_p)


seq = torch.tensor([3, 4, 3, 4, 3, 5])
print(seq.unfold(0, 2, 1))
grams, inverse, counts = torch.unique(seq.unfold(0, 2, 1), dim=0, return_inverse=True, return_counts=True)
print(grams, inverse, counts)
print(ngram_counts(seq, 3))
refs = [s[:l].flip(0) for s, l in zip(test_src, test_len)]
print([r.tolist() for r in refs])
for name, outs in [("greedy", seqs), ("beam", best)]:
    scores = []
    for out, ref in zip(outs, refs):
        out = out[(out != PAD) & (out != EOS)]
        scores.append(round(bleu(out, ref, max_n=2), 4))
    print(name, "bleu-2", scores)
print(round(bleu(torch.tensor([3, 4, 5, 6]), torch.tensor([3, 4, 5, 6, 7])), 4))


# ---- rescoring hypotheses with teacher forcing: gather the token log-probs, mask the padding, backward
model.train()
hyp_out = pad_sequence([torch.cat([h, torch.tensor([EOS])]) for h in hyps], batch_first=True, padding_value=PAD)
hyp_in = torch.cat([torch.full((hyp_out.size(0), 1), BOS), hyp_out[:, :-1]], dim=1).masked_fill(hyp_out == PAD, PAD)
print(hyp_in, hyp_out, sep="\n")
token_lp = model(test_src, test_len, hyp_in).log_softmax(-1).gather(2, hyp_out.unsqueeze(-1)).squeeze(-1)
token_lp = token_lp.masked_fill(hyp_out == PAD, 0.0)
seq_lp = token_lp.sum(1)
print("seq logp", [round(v, 3) for v in seq_lp.tolist()])
model.zero_grad()
(-seq_lp / (hyp_out != PAD).sum(1)).mean().backward()
print("grad norms", round(model.out.bias.grad.norm().item(), 4), round(model.tgt_emb.weight.grad[PAD].abs().sum().item(), 4))

# ---- an LSTM state (h, c) reordered as a beam search reorders it
lstm = nn.LSTM(4, 5, num_layers=2)
_, (h, c) = lstm(torch.randn(3, 2, 4))
beam_origin = torch.tensor([1, 1, 0, 1])
h, c = (s.index_select(1, beam_origin) for s in (h, c))
out, (h, c) = lstm(torch.randn(1, 4, 4), (h, c))
print(h.shape, c.shape, out[0, :, :3].round(decimals=3))

# ---- what goes wrong
def err(fn):
    try:
        out = fn()
        print("no error:", " ".join(str(out).split()))
    except Exception as e:
        print(type(e).__name__, str(e).split("\nException raised from")[0])


scores = torch.randn(2, 6)
err(lambda: scores.topk(7))
err(lambda: scores.view(4, -1).topk(2, dim=2))
err(lambda: scores.gather(1, torch.tensor([[0, 6]])))
err(lambda: scores.index_select(0, torch.tensor([2])))
err(lambda: torch.div(torch.tensor([7, -7]), 3, rounding_mode="round"))
err(lambda: torch.multinomial(torch.tensor([[0.5, -0.1, 0.6]]), 1))
err(lambda: torch.multinomial(torch.tensor([0.0, 0.0]), 1))
err(lambda: torch.multinomial(torch.tensor([0.2, 0.8]), 3))
err(lambda: F.ctc_loss(log_probs.detach(), targets, torch.tensor([8, 7, 9]), target_lengths))
err(lambda: pad_sequence([torch.ones(2), torch.ones(3, 1)]))
err(lambda: torch.unique_consecutive(torch.tensor([1, 1, 2]), dim=1))
err(lambda: torch.tensor([3, 4, 5]).unfold(0, 4, 1))
