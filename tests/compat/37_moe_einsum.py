# A sparse mixture-of-experts layer and einsum-heavy attention, in the style of the Switch Transformer /
# Mixtral reference code and the torch.einsum docs: a top-k softmax router (torch.topk, softmax over the
# chosen logits), experts as batched weight tensors applied with einsum, dispatch with one_hot / nonzero /
# index_add_, the load-balancing auxiliary loss, router z-loss, capacity-limited dispatch with cumsum, and
# multi-head attention written with einsum and rearranged with permute / reshape; then einsum's own features
# (implicit output, ellipsis, repeated indices for traces and diagonals, sublist format, bilinear forms).
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

# ---- einsum, the docs' examples
a, b = torch.randn(3, 4), torch.randn(4, 5)
print("matmul", torch.allclose(torch.einsum("ij,jk->ik", a, b), a @ b))
print("trace", torch.einsum("ii", torch.eye(3) * 2).item(), "diagonal", torch.einsum("ii->i", torch.arange(9.).view(3, 3)))
print("outer", torch.einsum("i,j->ij", torch.arange(3.), torch.arange(2.)).tolist())
batch = torch.randn(2, 3, 4), torch.randn(2, 4, 2)
print("bmm", torch.allclose(torch.einsum("bij,bjk->bik", *batch), torch.bmm(*batch)))
print("implicit output", torch.einsum("ij,jk", a, b).shape, torch.einsum("ba", a).shape)
print("ellipsis", torch.einsum("...ij->...ji", torch.randn(2, 3, 4, 5)).shape)
l, A, r = torch.randn(2, 5), torch.randn(3, 5, 4), torch.randn(2, 4)
print("bilinear", torch.allclose(torch.einsum("bn,anm,bm->ba", l, A, r), F.bilinear(l, r, A)))
print("sublist", torch.allclose(torch.einsum(a, [0, 1], b, [1, 2], [0, 2]), a @ b))
try:
    torch.einsum("ij,jk->ik", a, a)
except RuntimeError as e:
    print("RuntimeError:", e)


# ---- a top-k mixture of experts
class MoE(nn.Module):
    def __init__(self, d_model=8, d_ff=16, num_experts=4, k=2):
        super().__init__()
        self.k, self.num_experts = k, num_experts
        self.router = nn.Linear(d_model, num_experts, bias=False)
        self.w1 = nn.Parameter(torch.randn(num_experts, d_model, d_ff) / math.sqrt(d_model))
        self.w2 = nn.Parameter(torch.randn(num_experts, d_ff, d_model) / math.sqrt(d_ff))

    def forward(self, x):
        tokens = x.reshape(-1, x.size(-1))                  # (T, d)
        logits = self.router(tokens)                        # (T, E)
        top_logits, top_idx = torch.topk(logits, self.k, dim=-1)
        gates = F.softmax(top_logits, dim=-1)               # renormalised over the chosen experts
        out = torch.zeros_like(tokens)
        for e in range(self.num_experts):
            token_ids, slot = torch.nonzero(top_idx == e, as_tuple=True)
            if token_ids.numel() == 0:
                continue
            h = F.gelu(torch.einsum("td,df->tf", tokens[token_ids], self.w1[e]))
            y = torch.einsum("tf,fd->td", h, self.w2[e])
            out.index_add_(0, token_ids, gates[token_ids, slot].unsqueeze(-1) * y)
        # Switch-style load balancing: fraction of tokens per expert times mean router probability
        probs = F.softmax(logits, dim=-1)
        dispatch = F.one_hot(top_idx, self.num_experts).sum(dim=1).float()   # (T, E), k ones per row
        load = dispatch.mean(0) / self.k
        importance = probs.mean(0)
        aux = self.num_experts * (load * importance).sum()
        z_loss = torch.logsumexp(logits, dim=-1).pow(2).mean()
        return out.view_as(x), aux, z_loss, top_idx

    def dense_reference(self, x):
        """Every expert on every token, weighted by the sparse gates (slow but obviously right)."""
        tokens = x.reshape(-1, x.size(-1))
        logits = self.router(tokens)
        top_logits, top_idx = torch.topk(logits, self.k, dim=-1)
        gates = torch.zeros_like(logits).scatter(1, top_idx, F.softmax(top_logits, dim=-1))
        h = F.gelu(torch.einsum("td,edf->tef", tokens, self.w1))
        y = torch.einsum("tef,efd->ted", h, self.w2)
        return torch.einsum("te,ted->td", gates, y).view_as(x)


moe = MoE()
x = torch.randn(2, 6, 8)
out, aux, z_loss, top_idx = moe(x)
print("moe out", out.shape, "aux", round(aux.item(), 4), "z", round(z_loss.item(), 4))
print("routing", top_idx.tolist()[:4], "tokens per expert", torch.bincount(top_idx.flatten(), minlength=4).tolist())
print("sparse == dense reference", torch.allclose(out, moe.dense_reference(x), atol=1e-6))

# train the MoE (with a residual and a linear head) to imitate a fixed random teacher
teacher = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
head = nn.Linear(8, 8)
params = list(moe.parameters()) + list(head.parameters())
opt = torch.optim.AdamW(params, lr=3e-3, weight_decay=0.01)
for step in range(80):
    xb = torch.randn(4, 6, 8)
    with torch.no_grad():
        target = teacher(xb)
    out, aux, z_loss, top_idx = moe(xb)
    mse = F.mse_loss(head(xb + out), target)
    loss = mse + 0.01 * aux + 1e-3 * z_loss
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    if step % 20 == 0 or step == 79:
        counts = torch.bincount(top_idx.flatten(), minlength=4).tolist()
        print(f"step {step:2d} mse {mse.item():.4f} aux {aux.item():.4f} z {z_loss.item():.4f} load {counts}")
print("expert grads", [round(g, 4) for g in moe.w1.grad.flatten(1).norm(dim=1).tolist()])

# ---- capacity-limited top-1 dispatch (Switch Transformer): positions by cumsum, overflow dropped
tokens = torch.randn(10, 8)
logits = moe.router(tokens).detach()
expert = logits.argmax(-1)
mask = F.one_hot(expert, 4)                               # (T, E)
position = torch.cumsum(mask, dim=0) * mask - 1           # 0-based slot within the chosen expert
capacity = 2
kept = (position < capacity) & (mask == 1)
print("experts", expert.tolist())
print("slots", position.max(dim=1).values.tolist(), "kept", kept.any(1).int().tolist())
dispatch = torch.zeros(4, capacity, 8)
t_ids, e_ids = kept.nonzero(as_tuple=True)
dispatch[e_ids, position[t_ids, e_ids]] = tokens[t_ids]
print("dispatch", dispatch.shape, "filled slots", (dispatch.abs().sum(-1) > 0).sum(1).tolist())


# ---- multi-head attention with einsum, checked against F.scaled_dot_product_attention
def einsum_attention(q, k, v, heads, causal=False):
    B, T, D = q.shape
    split = lambda t: t.reshape(B, T, heads, D // heads).permute(0, 2, 1, 3)  # noqa: E731
    q, k, v = split(q), split(k), split(v)
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(D // heads)
    if causal:
        scores = scores.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf"))
    weights = scores.softmax(-1)
    out = torch.einsum("bhqk,bhkd->bhqd", weights, v)
    return out.permute(0, 2, 1, 3).reshape(B, T, D), weights


q, k, v = torch.randn(3, 2, 5, 8).unbind(0)
out, w = einsum_attention(q, k, v, heads=2, causal=True)
ref = F.scaled_dot_product_attention(*(t.view(2, 5, 2, 4).transpose(1, 2) for t in (q, k, v)), is_causal=True)
print("einsum attention == sdpa", torch.allclose(out, ref.transpose(1, 2).reshape(2, 5, 8), atol=1e-6))
print("causal weights row 1", w[0, 0, 1].tolist()[:3], "rows sum to 1", torch.allclose(w.sum(-1), torch.ones(2, 2, 5)))
print("einsum grad", torch.autograd.functional.jacobian(lambda m: torch.einsum("ij,j->i", m, torch.ones(2)),
                                                        torch.ones(2, 2)).shape)
