# Sparse tensors in two real-world settings.
# (1) Graph convolutional networks as Kipf's pygcn and the torch.sparse docs write them: an edge list made
# into a sparse COO adjacency (torch.sparse_coo_tensor and the legacy torch.sparse.FloatTensor), self-loops,
# coalesce / indices / values / _nnz, degrees by torch.sparse.sum and by dense sums, the symmetric
# normalisation D^-1/2 (A + I) D^-1/2 and pygcn's row normalisation, row-normalised bag-of-words features,
# a GraphConvolution layer with torch.spmm / torch.sparse.mm / adj @ x, a 2-layer GCN with dropout,
# log_softmax + nll_loss on train / val masks, Adam with weight_decay, accuracy; to_dense round trips,
# sparse reprs, gradients into the weights, into learnable edge weights and into a sparse leaf; and the
# errors a user meets (view, sparse + dense, indices() of an uncoalesced tensor, numpy(), a shape mismatch).
# (2) A recommender-system chapter: matrix factorisation with nn.Embedding (user / item factors and biases,
# padding_idx, max_norm), BPR loss with F.logsigmoid and negatives drawn with torch.randint /
# torch.multinomial, nn.EmbeddingBag(mode='sum') with per_sample_weights for implicit-feedback profiles,
# torch.isin, top-k recommendations with the seen items masked to -inf, rating buckets with bucketize /
# searchsorted, recall@k and NDCG@k by hand, and Embedding(sparse=True): the sparse weight.grad, SparseAdam
# and SGD (and Adagrad) stepping on sparse gradients, and the optimizers' errors for them.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)


def show_error(fn):
    """Run fn and print its error as a user sees it (the dispatcher's list of backends cut off)."""
    try:
        fn()
        print("no error")
    except Exception as e:
        print(type(e).__name__, str(e).split(" This could be because")[0])


# ====================================================================== (1) GCN on a sparse adjacency
# ---- a two-community graph (stochastic block model) of 30 nodes, as an edge list
N, half = 30, 15
community = (torch.arange(N) >= half).long()
same = community[:, None] == community[None, :]
prob = torch.where(same, torch.tensor(0.3), torch.tensor(0.03))
upper = torch.triu(torch.rand(N, N) < prob, diagonal=1)
edges = upper.nonzero()                                   # (E, 2), each undirected edge once
print("edges", edges.shape, edges[:5].tolist())
edge_index = torch.cat([edges.t(), edges.t().flip(0)], dim=1)   # both directions, as pygcn symmetrises
E = edge_index.size(1)

adj = torch.sparse_coo_tensor(edge_index, torch.ones(E), (N, N))
print("adj", adj.layout, adj.shape, adj.dtype, adj._nnz(), adj.is_coalesced(), adj.is_sparse)
print("sparse_dim / dense_dim", adj.sparse_dim(), adj.dense_dim())
legacy = torch.sparse.FloatTensor(edge_index, torch.ones(E), torch.Size([N, N]))
print("legacy constructor agrees", torch.equal(legacy.to_dense(), adj.to_dense()), legacy.dtype)

# self-loops: A + I as a sum of two sparse tensors, then coalesce (sorted places, repeats added up)
loops = torch.arange(N).repeat(2, 1)
eye = torch.sparse_coo_tensor(loops, torch.ones(N), (N, N))
adj_hat = (adj + eye).coalesce()
print("A + I", adj_hat._nnz(), adj_hat.is_coalesced(), adj_hat.indices()[:, :6].tolist())
print("values", adj_hat.values()[:6].tolist(), adj_hat.values().sum().item())

# duplicate edges add up when coalesced
dup = torch.sparse_coo_tensor(torch.tensor([[0, 1, 0], [1, 0, 1]]), torch.tensor([1.0, 2.0, 3.0]), (2, 2))
print(dup)
print(dup.coalesce())
print(dup.to_dense())

# ---- degrees: torch.sparse.sum over a dim, and dense sums
deg_sparse = torch.sparse.sum(adj_hat, dim=1)
print("sparse degree", deg_sparse.layout, deg_sparse.shape)
deg = deg_sparse.to_dense()
print("degrees", deg.long().tolist())
print("dense degrees agree", torch.equal(deg, adj_hat.to_dense().sum(1)), torch.sparse.sum(adj_hat).item())

# ---- symmetric normalisation D^-1/2 (A + I) D^-1/2, on the values
d_inv_sqrt = deg.pow(-0.5)
d_inv_sqrt[torch.isinf(d_inv_sqrt)] = 0.0
row, col = adj_hat.indices()
norm_values = d_inv_sqrt[row] * adj_hat.values() * d_inv_sqrt[col]
adj_norm = torch.sparse_coo_tensor(adj_hat.indices(), norm_values, adj_hat.shape).coalesce()
A = adj.to_dense() + torch.eye(N)
D_inv_sqrt = torch.diag(A.sum(1).pow(-0.5))
dense_norm = D_inv_sqrt @ A @ D_inv_sqrt
print("sparse == dense normalisation", torch.allclose(adj_norm.to_dense(), dense_norm, atol=1e-6))
print("symmetric", torch.allclose(adj_norm.to_dense(), adj_norm.to_dense().t()))
print("norm values", [round(v, 4) for v in adj_norm.values()[:6].tolist()])
print(adj_norm.to_dense()[:4, :4].to_sparse())

# pygcn's own choice: row normalisation D^-1 (A + I)
row_norm = torch.sparse_coo_tensor(adj_hat.indices(), adj_hat.values() / deg[row], (N, N))
print("row-normalised rows sum to 1", torch.allclose(torch.sparse.sum(row_norm, dim=1).to_dense(), torch.ones(N)))

# ---- features: a sparse bag of words with a community signal, row-normalised as pygcn's normalize()
n_feat = 12
bow = (torch.rand(N, n_feat) < 0.25).float()
bow[:, 0] += (community == 0).float()
bow[:, 1] += (community == 1).float()
bow = bow.clamp(max=1)
rowsum = bow.sum(1)
r_inv = rowsum.pow(-1)
r_inv[torch.isinf(r_inv)] = 0.0
features = r_inv.unsqueeze(1) * bow
features_sp = features.to_sparse()
print("features", features_sp._nnz(), "of", features.numel(), features_sp.is_coalesced())
print("round trip", torch.equal(features_sp.to_dense(), features))
W = torch.randn(n_feat, 3)
print("sparse.mm == mm", torch.allclose(torch.sparse.mm(features_sp, W), features @ W, atol=1e-6))
labels = community


class GraphConvolution(nn.Module):
    """pygcn's layer: output = adj @ (input @ W) + b, the product with adj a sparse-dense mm."""

    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = nn.Parameter(torch.FloatTensor(in_features, out_features))
        if bias:
            self.bias = nn.Parameter(torch.FloatTensor(out_features))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.data.uniform_(-stdv, stdv)

    def forward(self, input, adj):
        support = torch.mm(input, self.weight)
        output = torch.spmm(adj, support)
        if self.bias is not None:
            return output + self.bias
        return output

    def __repr__(self):
        return self.__class__.__name__ + " (" + str(self.in_features) + " -> " + str(self.out_features) + ")"


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout):
        super().__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        x = self.gc2(x, adj)
        return F.log_softmax(x, dim=1)


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    correct = preds.eq(labels).double()
    correct = correct.sum()
    return correct / len(labels)


idx_train = torch.tensor([0, 1, 2, 15, 16, 17])
idx_val = torch.tensor([3, 4, 5, 6, 18, 19, 20, 21])
idx_test = torch.cat([torch.arange(7, 15), torch.arange(22, 30)])
model = GCN(nfeat=n_feat, nhid=16, nclass=2, dropout=0.5)
print(model)
optimizer = optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)

for epoch in range(40):
    model.train()
    optimizer.zero_grad()
    output = model(features, adj_norm)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    acc_train = accuracy(output[idx_train], labels[idx_train])
    loss_train.backward()
    if epoch == 0:
        print("grad gc1.weight", model.gc1.weight.grad.shape, round(model.gc1.weight.grad.abs().sum().item(), 4))
        print("grad gc2.bias", [round(g, 4) for g in model.gc2.bias.grad.tolist()])
    optimizer.step()
    model.eval()
    output = model(features, adj_norm)
    loss_val = F.nll_loss(output[idx_val], labels[idx_val])
    acc_val = accuracy(output[idx_val], labels[idx_val])
    if epoch % 10 == 0 or epoch == 39:
        print(f"Epoch: {epoch + 1:04d} loss_train: {loss_train.item():.4f} acc_train: {acc_train.item():.4f} "
              f"loss_val: {loss_val.item():.4f} acc_val: {acc_val.item():.4f}")

model.eval()
output = model(features, adj_norm)
print("Test set results:", f"loss= {F.nll_loss(output[idx_test], labels[idx_test]).item():.4f}",
      f"accuracy= {accuracy(output[idx_test], labels[idx_test]).item():.4f}", accuracy(output, labels).dtype)

# ---- the same propagation four ways: spmm, sparse.mm, adj @ x, and the dense matrix
h = features @ model.gc1.weight.detach()
outs = [torch.spmm(adj_norm, h), torch.sparse.mm(adj_norm, h), adj_norm @ h, adj_norm.to_dense() @ h]
print("four products agree", all(torch.allclose(o, outs[3], atol=1e-6) for o in outs))
print("addmm", torch.allclose(torch.sparse.addmm(h, adj_norm, h, beta=0.5, alpha=2.0), 0.5 * h + 2 * outs[3],
                              atol=1e-5))
print("matrix-vector", (adj_norm @ torch.ones(N))[:5])
print("transpose", torch.equal(adj_norm.t().to_dense(), adj_norm.to_dense().t()), adj_norm.t().is_coalesced())
print("scaled", (adj_norm * 2).values()[:3], (-adj_norm).values()[:3], (adj_norm / 2).values()[:3])
print("double", adj_norm.double().dtype, adj_norm.to(torch.float64).values().dtype)

# the normalised Laplacian I - D^-1/2 (A + I) D^-1/2 (dense minus sparse is dense): spectrum in [0, 2)
laplacian = torch.eye(N) - adj_norm
print("laplacian", laplacian.layout, torch.allclose(laplacian, torch.eye(N) - dense_norm, atol=1e-6))
lam = torch.linalg.eigvalsh(laplacian)
print("spectrum", round(lam.min().abs().item(), 4), round(lam.max().item(), 4))

# ---- gradients through the sparse product: into learnable edge weights, and into a sparse leaf
edge_weight = torch.ones(adj_hat._nnz(), requires_grad=True)
adj_w = torch.sparse_coo_tensor(adj_hat.indices(), edge_weight * adj_norm.values(), (N, N))
print("grad_fn", adj_w.grad_fn.name())
torch.sparse.mm(adj_w, h).pow(2).sum().backward()
print("edge weight grads", [round(g, 4) for g in edge_weight.grad[:6].tolist()])

small_i = torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]])
small = torch.sparse_coo_tensor(small_i, torch.tensor([0.5, 0.5, 0.25, 0.25]), (3, 3), requires_grad=True)
x3 = torch.arange(6.0).view(3, 2)
y = torch.sparse.mm(small, x3)
print(y, y.grad_fn.name())
y.sum().backward()
print("sparse leaf grad", small.grad)
small.grad = None
small.to_dense().mul(torch.arange(9.0).view(3, 3)).sum().backward()
print("to_dense grad", small.grad)

# ---- errors a user meets
show_error(lambda: adj.view(-1))
show_error(lambda: adj + torch.ones(N, N))
print("dense + sparse", (torch.ones(3, 3) + small.detach())[0])
print("update in place", torch.zeros(3, 3).add_(small.detach(), alpha=2)[1])
show_error(lambda: adj.indices())
show_error(lambda: adj.numpy())
show_error(lambda: torch.sparse.mm(adj_norm, torch.ones(5, 2)))
show_error(lambda: adj.exp())
show_error(lambda: torch.sparse_coo_tensor(edge_index, torch.ones(E - 1), (N, N)))
print("float indices become", torch.sparse_coo_tensor(edge_index.float(), torch.ones(E), (N, N))._indices().dtype)

# ====================================================================== (2) a recommender system
torch.manual_seed(1)
n_users, n_items = 10, 16      # item 0 is padding: real items are 1..15
# each user prefers one of two genres (items 1-7 or 8-15) and rated some items 1..5
genre_of_user = torch.arange(n_users) % 2
item_genre = (torch.arange(n_items) >= 8).long()
affinity = (genre_of_user[:, None] == item_genre[None, :]).float()
seen = torch.rand(n_users, n_items) < 0.35
seen[:, 0] = False
users, items = seen.nonzero(as_tuple=True)
ratings = (1 + 3 * affinity[users, items] + torch.randint(0, 2, users.shape)).clamp(max=5).float()
print("interactions", users.numel(), "ratings", torch.bincount(ratings.long(), minlength=6).tolist())

# ---- rating buckets: bucketize and searchsorted
boundaries = torch.tensor([1.5, 2.5, 3.5, 4.5])
buckets = torch.bucketize(ratings, boundaries)
print("buckets", buckets[:10].tolist(), torch.equal(buckets, torch.searchsorted(boundaries, ratings)))
print("right=True", torch.bucketize(torch.tensor([1.5, 2.0, 4.5]), boundaries, right=True).tolist(),
      torch.searchsorted(boundaries, torch.tensor([1.5, 2.0, 4.5]), side="right").tolist())


class MatrixFactorization(nn.Module):
    """r(u, i) = <p_u, q_i> + b_u + b_i + mu, with the padding item's factor fixed at zero."""

    def __init__(self, n_users, n_items, dim, max_norm=None):
        super().__init__()
        self.user = nn.Embedding(n_users, dim, max_norm=max_norm)
        self.item = nn.Embedding(n_items, dim, padding_idx=0, max_norm=max_norm)
        self.user_bias = nn.Embedding(n_users, 1)
        self.item_bias = nn.Embedding(n_items, 1, padding_idx=0)
        self.mu = nn.Parameter(torch.tensor(3.0))
        for emb in (self.user, self.item):
            nn.init.normal_(emb.weight, std=0.1)
        nn.init.zeros_(self.user_bias.weight)
        nn.init.zeros_(self.item_bias.weight)
        with torch.no_grad():
            self.item.weight[0].zero_()

    def forward(self, u, i):
        dot = (self.user(u) * self.item(i)).sum(-1)
        return dot + self.user_bias(u).squeeze(-1) + self.item_bias(i).squeeze(-1) + self.mu


mf = MatrixFactorization(n_users, n_items, 4)
print(mf)
opt = optim.Adam(mf.parameters(), lr=0.05)
for epoch in range(30):
    opt.zero_grad()
    loss = F.mse_loss(mf(users, items), ratings)
    loss.backward()
    opt.step()
    if epoch % 10 == 0 or epoch == 29:
        print(f"mf epoch {epoch:2d} rmse {loss.sqrt().item():.4f}")
print("padding row stays zero", mf.item.weight[0].tolist(), mf.item.weight.grad[0].tolist())
print("predictions", [round(p, 3) for p in mf(torch.tensor([0, 1]), torch.tensor([1, 9])).tolist()])

# max_norm renormalises the looked-up rows in place, in the forward pass
capped = nn.Embedding(5, 3, max_norm=1.0)
before = capped.weight.norm(dim=1).clone()
capped(torch.tensor([1, 3]))
print("norms before", [round(v, 4) for v in before.tolist()])
print("norms after ", [round(v, 4) for v in capped.weight.norm(dim=1).tolist()])

# ---- BPR: a positive item should outscore a sampled negative; negatives drawn two ways
pos_users, pos_items = users, items
neg_uniform = torch.randint(1, n_items, pos_items.shape)
popularity = torch.bincount(items, minlength=n_items).float()
popularity[0] = 0
neg_pop = torch.multinomial(popularity.pow(0.75), pos_items.numel(), replacement=True)
print("negatives", neg_uniform[:8].tolist(), neg_pop[:8].tolist())
# negatives that are in fact positives for that user (isin on each user's seen list, then a mask)
user0_items = items[users == 0]
print("user 0 seen", user0_items.tolist(), "neg isin", torch.isin(neg_uniform[users == 0], user0_items).tolist())
false_neg = seen[pos_users, neg_uniform]
print("false negatives", int(false_neg.sum()), torch.isin(torch.tensor([1, 4, 9]), user0_items, invert=True).tolist())

bpr = MatrixFactorization(n_users, n_items, 4)
opt = optim.Adam(bpr.parameters(), lr=0.05)
for epoch in range(20):
    neg = torch.randint(1, n_items, pos_items.shape)
    opt.zero_grad()
    diff = bpr(pos_users, pos_items) - bpr(pos_users, neg)
    loss = -F.logsigmoid(diff).mean()
    loss.backward()
    opt.step()
    if epoch % 5 == 0 or epoch == 19:
        print(f"bpr epoch {epoch:2d} loss {loss.item():.4f}")
print("logsigmoid", F.logsigmoid(torch.tensor([-20.0, 0.0, 20.0])))

# ---- implicit feedback: a user profile as a weighted bag of items (EmbeddingBag, mode='sum')
counts = seen.sum(1)
offsets = torch.cat([torch.zeros(1, dtype=torch.long), counts.cumsum(0)[:-1]])
confidence = 1 + 0.5 * ratings                            # a weight per interaction
bag = nn.EmbeddingBag(n_items, 4, mode="sum", padding_idx=0)
with torch.no_grad():
    bag.weight.copy_(bpr.item.weight)
profiles = bag(items, offsets, per_sample_weights=confidence)
print("profiles", profiles.shape, profiles.grad_fn.name())
by_hand = torch.stack([(bpr.item.weight[items[users == u]] * confidence[users == u, None]).sum(0)
                       for u in range(n_users)])
print("bag == loop", torch.allclose(profiles, by_hand, atol=1e-5))
profiles.pow(2).sum().backward()
print("bag grad rows", bag.weight.grad.abs().sum(1).gt(0).long().tolist())
show_error(lambda: nn.EmbeddingBag(n_items, 4, mode="mean")(items, offsets, per_sample_weights=confidence))

# ---- top-k recommendations without the seen items, then recall@k and NDCG@k against held-out items
with torch.no_grad():
    scores = bpr.user.weight @ bpr.item.weight.t() + bpr.item_bias.weight.t()
scores[:, 0] = float("-inf")                             # padding is never recommended
held_out = torch.rand(n_users, n_items) < 0.2            # a pretend test set among the unseen items
held_out &= ~seen
held_out[:, 0] = False
masked = scores.masked_fill(seen, float("-inf"))
k = 3
top_scores, top_items = torch.topk(masked, k, dim=1)
print("top-3 of user 0", top_items[0].tolist(), "seen?", seen[0, top_items[0]].tolist())
print("masked row 0", torch.isinf(masked[0]).sum().item(), "inf entries")
hits = held_out.gather(1, top_items).float()
recall = hits.sum(1) / held_out.sum(1).clamp(min=1)
discounts = 1.0 / torch.log2(torch.arange(2, k + 2).float())
dcg = (hits * discounts).sum(1)
ideal = torch.stack([discounts[:int(min(n, k))].sum() for n in held_out.sum(1).tolist()])
ndcg = torch.where(ideal > 0, dcg / ideal.clamp(min=1e-12), torch.zeros(()))
print("hits", hits.long().tolist())
print(f"recall@{k} {recall.mean().item():.4f} ndcg@{k} {ndcg.mean().item():.4f}")

# ---- sparse gradients: Embedding(sparse=True)
torch.manual_seed(2)
user_emb = nn.Embedding(n_users, 3, sparse=True)
item_emb = nn.Embedding(n_items, 3, padding_idx=0, sparse=True)
print(user_emb, item_emb)
u = torch.tensor([0, 2, 0])
i = torch.tensor([3, 0, 5])
pred = (user_emb(u) * item_emb(i)).sum(1)
loss = (pred - torch.tensor([1.0, 0.0, -1.0])).pow(2).mean()
loss.backward()
g = user_emb.weight.grad
print("grad layout", g.layout, g.is_sparse, g.is_coalesced(), g._nnz(), g.shape, g.dtype)
print(g)
print(g.coalesce())
print("item grad (padding row left out)", item_emb.weight.grad._indices().tolist())
print("dense view of the grad", g.to_dense()[:3])

# the same gradient from a dense embedding
dense_u = nn.Embedding.from_pretrained(user_emb.weight.detach().clone(), freeze=False)
dense_i = nn.Embedding.from_pretrained(item_emb.weight.detach().clone(), freeze=False, padding_idx=0)
((dense_u(u) * dense_i(i)).sum(1) - torch.tensor([1.0, 0.0, -1.0])).pow(2).mean().backward()
print("sparse grad == dense grad", torch.allclose(g.to_dense(), dense_u.weight.grad),
      torch.allclose(item_emb.weight.grad.to_dense(), dense_i.weight.grad))

# a second backward adds into the sparse gradient
(user_emb(torch.tensor([4])).sum()).backward()
print("accumulated", user_emb.weight.grad._nnz(), user_emb.weight.grad.coalesce()._indices().tolist())

# SparseAdam for the embeddings, Adam for the dense rest (the usual pairing)
w_before = user_emb.weight.detach().clone()
sparse_opt = optim.SparseAdam(list(user_emb.parameters()) + list(item_emb.parameters()), lr=0.1)
sparse_opt.step()
changed = (user_emb.weight.detach() != w_before).any(1)
print("SparseAdam moved rows", changed.nonzero().flatten().tolist())
print("rows", user_emb.weight[[0, 2, 4]])
state = sparse_opt.state[user_emb.weight]
print("state", state["step"], state["exp_avg"][[0, 1, 2]], state["exp_avg_sq"].sum().item() > 0)

for step in range(3):
    sparse_opt.zero_grad()
    loss = (((user_emb(u) * item_emb(i)).sum(1) - torch.tensor([1.0, 0.0, -1.0])).pow(2)).mean()
    loss.backward()
    sparse_opt.step()
    print(f"SparseAdam step {step} loss {loss.item():.4f}")
print("item rows after", item_emb.weight[[0, 3, 5]])

# plain SGD consumes sparse gradients too: only the looked-up rows move
emb = nn.Embedding(6, 2, sparse=True)
sgd = optim.SGD(emb.parameters(), lr=0.5)
w0 = emb.weight.detach().clone()
emb(torch.tensor([1, 1, 4])).sum().backward()
sgd.step()
print("SGD step", (emb.weight.detach() - w0))
sgd.zero_grad(set_to_none=False)                          # the old default: the sparse grad is emptied
print("zeroed", emb.weight.grad)
emb(torch.tensor([2])).sum().backward()
print("after zero_grad(set_to_none=False)", emb.weight.grad._indices().tolist(), emb.weight.grad.is_coalesced())

# Adagrad too (its state_sum grows at the touched rows only)
emb_a = nn.Embedding(6, 2, sparse=True)
adagrad = optim.Adagrad(emb_a.parameters(), lr=0.1)
for _ in range(2):
    adagrad.zero_grad()
    emb_a(torch.tensor([2, 5, 2])).pow(2).sum().backward()
    adagrad.step()
print("Adagrad sum", adagrad.state[emb_a.weight]["sum"], adagrad.state[emb_a.weight]["step"])
print("Adagrad weight", emb_a.weight)

# EmbeddingBag(sparse=True): the gradient has one entry per looked-up index
sbag = nn.EmbeddingBag(6, 2, mode="sum", sparse=True)
weights = torch.tensor([1.0, 0.5, 2.0, 1.0])
sbag(torch.tensor([1, 2, 4, 1]), torch.tensor([0, 2]), per_sample_weights=weights).sum().backward()
print(sbag.weight.grad)

# ---- the optimizers' and layers' errors with sparse gradients
show_error(lambda: optim.Adam(emb.parameters()).step())
show_error(lambda: optim.SGD(emb.parameters(), lr=0.1, weight_decay=1e-4).step())
show_error(lambda: optim.Adagrad(emb.parameters(), weight_decay=1e-4).step())
lin = nn.Linear(2, 1)
lin(torch.ones(1, 2)).sum().backward()
show_error(lambda: optim.SparseAdam(lin.parameters()).step())
show_error(lambda: nn.Embedding(4, 2, sparse=True, scale_grad_by_freq=True)(torch.tensor([1, 1])).sum().backward())
show_error(lambda: nn.EmbeddingBag(4, 2, mode="max", sparse=True)(torch.tensor([[1, 2]])))
show_error(lambda: nn.utils.clip_grad_norm_(emb.parameters(), 1.0))
show_error(lambda: emb.weight.grad.view(-1))

# SGD with momentum keeps a sparse momentum buffer (updated in place: buf.mul_(momentum).add_(grad))
emb_m = nn.Embedding(6, 2, sparse=True)
sgd_m = optim.SGD(emb_m.parameters(), lr=0.1, momentum=0.9)
try:
    for _ in range(2):
        sgd_m.zero_grad()
        emb_m(torch.tensor([3, 1])).sum().backward()
        sgd_m.step()
    print("momentum buffer", sgd_m.state[emb_m.weight]["momentum_buffer"])
    print("momentum weight", emb_m.weight)
except Exception as e:
    print(type(e).__name__, e)
