# Graph neural networks written by hand, as in the PyTorch Geometric "Creating Message Passing Networks" and
# GCN / GAT introductions but without the library: a random two-community graph (stochastic block model) as an
# edge_index, self-loops, degrees with bincount / index_add_, symmetric normalisation, message passing with
# index_add_ and scatter_add_, a 2-layer GCN trained on a few labelled nodes with masks, a GAT-style layer whose
# softmax over each node's neighbours uses scatter_reduce(amax) / index_add_, mean / max neighbourhood pooling
# (GraphSAGE-style), graph-level readout with index_add_ over a batch vector, and the same propagation as a
# dense normalised adjacency built with index_put_(accumulate=True).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

# ---- a stochastic block model: two communities of 12 nodes, dense inside, sparse across
num_nodes, half = 24, 12
community = (torch.arange(num_nodes) >= half).long()
same = community[:, None] == community[None, :]
prob = torch.where(same, torch.tensor(0.35), torch.tensor(0.04))
upper = torch.triu(torch.rand(num_nodes, num_nodes) < prob, diagonal=1)
adj = upper | upper.T
edge_index = adj.nonzero().t().contiguous()  # (2, E), both directions
print("edge_index", edge_index.shape, edge_index.dtype, edge_index[:, :6].tolist())
print("edges inside / across", int(adj[same].sum()) // 2, int(adj[~same].sum()) // 2)

# node features: a noisy community signal in 2 of 8 channels
x = torch.randn(num_nodes, 8) * 0.8
x[:, 0] += community.float() - 0.5
x[:, 1] -= community.float() - 0.5
y = community


def add_self_loops(edge_index, num_nodes):
    loops = torch.arange(num_nodes).unsqueeze(0).repeat(2, 1)
    return torch.cat([edge_index, loops], dim=1)


def degree(index, num_nodes, dtype=torch.float32):
    out = torch.zeros(num_nodes, dtype=dtype)
    return out.index_add_(0, index, torch.ones(index.size(0), dtype=dtype))


ei = add_self_loops(edge_index, num_nodes)
row, col = ei
deg = degree(col, num_nodes)
print("degrees", deg.long().tolist())
print("bincount agrees", torch.equal(deg.long(), torch.bincount(col, minlength=num_nodes)))
deg_inv_sqrt = deg.pow(-0.5)
deg_inv_sqrt[deg_inv_sqrt == float("inf")] = 0
norm = deg_inv_sqrt[row] * deg_inv_sqrt[col]
print("norm", norm.shape, round(norm.sum().item(), 4))


class GCNConv(nn.Module):
    """x' = D^-1/2 (A + I) D^-1/2 x W + b, with the sum over neighbours done by index_add_."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_channels))
        nn.init.xavier_uniform_(self.lin.weight)

    def forward(self, x, edge_index, norm):
        x = self.lin(x)
        row, col = edge_index
        messages = norm.view(-1, 1) * x[row]  # message from source row to target col
        out = torch.zeros_like(x).index_add_(0, col, messages)
        return out + self.bias


class GCN(nn.Module):
    def __init__(self, in_channels, hidden, classes):
        super().__init__()
        self.conv1 = GCNConv(in_channels, hidden)
        self.conv2 = GCNConv(hidden, classes)

    def forward(self, x, edge_index, norm):
        x = F.relu(self.conv1(x, edge_index, norm))
        x = F.dropout(x, p=0.5, training=self.training)
        return self.conv2(x, edge_index, norm)


# the semi-supervised split: 3 labelled nodes per community
train_mask = torch.zeros(num_nodes, dtype=torch.bool)
train_mask[torch.tensor([0, 1, 2, 12, 13, 14])] = True
test_mask = ~train_mask
model = GCN(8, 16, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
for epoch in range(60):
    model.train()
    optimizer.zero_grad()
    out = model(x, ei, norm)
    loss = F.cross_entropy(out[train_mask], y[train_mask])
    loss.backward()
    optimizer.step()
    if epoch % 15 == 0 or epoch == 59:
        model.eval()
        with torch.no_grad():
            pred = model(x, ei, norm).argmax(dim=1)
        acc = (pred[test_mask] == y[test_mask]).float().mean().item()
        print(f"epoch {epoch:2d} loss {loss.item():.4f} test acc {acc:.4f}")
print("grad of conv1.bias", model.conv1.bias.grad.shape, model.conv1.lin.weight.grad.abs().sum().item() > 0)

# ---- the same propagation as a dense matrix product: the normalised adjacency built with index_put_
a_hat = torch.zeros(num_nodes, num_nodes).index_put_((col, row), norm, accumulate=True)
print("a_hat", a_hat.shape, int((a_hat != 0).sum()), "symmetric", torch.allclose(a_hat, a_hat.T))
h = model.conv1.lin(x).detach()
print("a_hat @ h == index_add_", torch.allclose(torch.zeros_like(h).index_add_(0, col, norm.view(-1, 1) * h[row]),
                                                  a_hat @ h, atol=1e-6))
eigenvalues = torch.linalg.eigvalsh(a_hat)
print("spectrum of a_hat within [-1, 1]", round(eigenvalues.min().item(), 4), round(eigenvalues.max().item(), 4))

# ---- a GAT-style layer: attention logits per edge, softmax over each target's incoming edges
class GATConv(nn.Module):
    def __init__(self, in_channels, out_channels, negative_slope=0.2):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.att_src = nn.Parameter(torch.randn(out_channels) * 0.3)
        self.att_dst = nn.Parameter(torch.randn(out_channels) * 0.3)
        self.negative_slope = negative_slope

    def forward(self, x, edge_index):
        h = self.lin(x)
        src, dst = edge_index
        logits = F.leaky_relu((h * self.att_src).sum(-1)[src] + (h * self.att_dst).sum(-1)[dst],
                              self.negative_slope)
        # a numerically stable softmax per target node: subtract each group's max first
        group_max = torch.full((x.size(0),), float("-inf")).scatter_reduce(0, dst, logits, reduce="amax",
                                                                            include_self=True)
        e = (logits - group_max[dst]).exp()
        denom = torch.zeros(x.size(0)).index_add_(0, dst, e)
        alpha = e / denom[dst]
        out = torch.zeros_like(h).index_add_(0, dst, alpha.unsqueeze(-1) * h[src])
        return out, alpha


gat = GATConv(8, 4)
out, alpha = gat(x, ei)
alpha_sum = torch.zeros(num_nodes).scatter_add_(0, col, alpha)
print("GAT out", out.shape, "alpha sums to 1 per node", torch.allclose(alpha_sum, torch.ones(num_nodes)))
print("alpha of node 0's edges", [round(a, 4) for a in alpha[col == 0].tolist()])
out.pow(2).sum().backward()
print("att grads", gat.att_src.grad.shape, [round(g, 4) for g in gat.att_dst.grad.tolist()])

# ---- GraphSAGE-style neighbourhood aggregation: mean and max with scatter_reduce
src, dst = edge_index
feat = x[:, :3]
idx3 = dst.unsqueeze(1).expand(-1, 3)
mean_agg = torch.zeros(num_nodes, 3).scatter_reduce(0, idx3, feat[src], reduce="mean", include_self=False)
max_agg = torch.zeros(num_nodes, 3).scatter_reduce(0, idx3, feat[src], reduce="amax", include_self=False)
sum_agg = torch.zeros(num_nodes, 3).scatter_add(0, idx3, feat[src])
in_deg = torch.bincount(dst, minlength=num_nodes).clamp(min=1).unsqueeze(1)
print("mean == sum / degree", torch.allclose(mean_agg, sum_agg / in_deg, atol=1e-6))
print("max aggregation of node 5", [round(v, 4) for v in max_agg[5].tolist()])
prod_agg = torch.ones(num_nodes, 3).scatter_reduce(0, idx3, feat[src].sign(), reduce="prod")
print("sign products", prod_agg[:4].tolist())

# ---- graph-level readout: a batch of 3 small graphs, mean pooling with index_add_
batch = torch.tensor([0, 0, 0, 1, 1, 2, 2, 2, 2])
node_feat = torch.arange(9 * 2, dtype=torch.float32).view(9, 2)
counts = torch.bincount(batch).float()
pooled = torch.zeros(3, 2).index_add_(0, batch, node_feat) / counts.unsqueeze(1)
print("mean pool", pooled.tolist())
print("segment max", torch.zeros(3, 2).index_reduce_(0, batch, node_feat, "amax", include_self=False).tolist())
print("unique_consecutive", torch.unique_consecutive(batch, return_counts=True))
