# Metric learning, after pytorch/examples' siamese_network and the SimCLR / triplet-loss tutorials, on tiny
# synthetic 2-D clusters lifted to 8 dimensions: a Siamese pair dataset, an embedding net with F.normalize,
# BCEWithLogitsLoss on pair similarity, ContrastiveLoss written by hand with F.pairwise_distance,
# nn.TripletMarginLoss / F.triplet_margin_loss with swap and p=1, TripletMarginWithDistanceLoss with a
# cosine distance, CosineEmbeddingLoss and MarginRankingLoss, hard-negative mining with torch.cdist and
# masked_fill, the NT-Xent loss with a temperature and F.cross_entropy, retrieval with F.cosine_similarity +
# topk for recall@k, and the embeddings' cluster statistics.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)

# ---- data: 5 classes, each a Gaussian blob; a fixed random lift to 8-D
n_classes, per_class = 5, 24
centers = torch.randn(n_classes, 2) * 3
labels = torch.arange(n_classes).repeat_interleave(per_class)
points = centers[labels] + 0.6 * torch.randn(len(labels), 2)
lift = torch.randn(2, 8)
data = torch.tanh(points @ lift) + 0.05 * torch.randn(len(labels), 8)
print("data", data.shape, labels.shape, torch.bincount(labels).tolist())


class SiamesePairs(Dataset):
    """Every other item is a positive pair (same class), the rest negative, drawn from a seeded Generator."""

    def __init__(self, x, y, n_pairs, seed):
        g = torch.Generator().manual_seed(seed)
        self.x, self.pairs, self.targets = x, [], []
        by_class = [torch.nonzero(y == c).flatten() for c in range(n_classes)]
        for i in range(n_pairs):
            a = torch.randint(len(y), (1,), generator=g).item()
            if i % 2 == 0:
                pool = by_class[y[a]]
            else:
                pool = torch.nonzero(y != y[a]).flatten()
            b = pool[torch.randint(len(pool), (1,), generator=g)].item()
            self.pairs.append((a, b))
            self.targets.append(float(y[a] == y[b]))

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, i):
        a, b = self.pairs[i]
        return self.x[a], self.x[b], torch.tensor(self.targets[i])


class EmbeddingNet(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, dim))

    def forward(self, x):
        return F.normalize(self.net(x), p=2, dim=1)


class SiameseNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = EmbeddingNet()
        self.fc = nn.Sequential(nn.Linear(4 * 2, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, input1, input2):
        e1, e2 = self.embed(input1), self.embed(input2)
        # a symmetric pair feature: |e1 - e2| and e1 * e2
        return self.fc(torch.cat([(e1 - e2).abs(), e1 * e2], dim=1)).squeeze(1)


pairs = SiamesePairs(data, labels, 200, seed=1)
print("pairs", len(pairs), "positives", int(sum(pairs.targets)), pairs.pairs[:3])
loader = DataLoader(pairs, batch_size=25, shuffle=True, generator=torch.Generator().manual_seed(2))
model = SiameseNetwork()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.7)
criterion = nn.BCEWithLogitsLoss()
for epoch in range(6):
    total, correct = 0.0, 0
    for x1, x2, target in loader:
        optimizer.zero_grad()
        logits = model(x1, x2)
        loss = criterion(logits, target)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(target)
        correct += ((logits > 0).float() == target).sum().item()
    scheduler.step()
    print(f"siamese epoch {epoch} loss {total / len(pairs):.4f} acc {correct}/{len(pairs)}")


# ---- contrastive loss (Hadsell et al.) by hand
def contrastive_loss(e1, e2, same, margin=1.0):
    d = F.pairwise_distance(e1, e2)
    return (same * d.pow(2) + (1 - same) * F.relu(margin - d).pow(2)).mean() / 2


x1, x2, same = next(iter(DataLoader(pairs, batch_size=8)))
with torch.no_grad():
    e1, e2 = model.embed(x1), model.embed(x2)
print("pairwise_distance", F.pairwise_distance(e1, e2).round(decimals=4))
print("contrastive", round(contrastive_loss(e1, e2, same).item(), 5))
print("cosine_similarity", F.cosine_similarity(e1, e2).round(decimals=4))
print("cosine_embedding", round(F.cosine_embedding_loss(e1, e2, same * 2 - 1, margin=0.2).item(), 5),
      "margin_ranking", round(F.margin_ranking_loss(e1[:, 0], e2[:, 0], same * 2 - 1, margin=0.1).item(), 5))

# ---- triplet training: random triplets drawn once, the hardest negatives of each batch reported
embed = EmbeddingNet(dim=3)
opt = torch.optim.Adam(embed.parameters(), lr=0.01)
triplet = nn.TripletMarginLoss(margin=0.3, p=2)
print(triplet, nn.TripletMarginLoss(margin=0.5, p=1, swap=True))
g = torch.Generator().manual_seed(3)
anchors = torch.randint(len(labels), (240,), generator=g)
offsets = torch.randint(1, per_class, (240,), generator=g)
positives = labels[anchors] * per_class + (anchors % per_class + offsets) % per_class
negatives = (anchors + per_class * torch.randint(1, n_classes, (240,), generator=g)) % len(labels)
print("triplet labels ok", bool((labels[positives] == labels[anchors]).all()),
      bool((labels[negatives] != labels[anchors]).all()))
for step in range(60):
    idx = torch.arange(step % 6 * 40, step % 6 * 40 + 40)
    ea, ep, en = embed(data[anchors[idx]]), embed(data[positives[idx]]), embed(data[negatives[idx]])
    loss = triplet(ea, ep, en)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 15 == 0:
        with torch.no_grad():
            e = embed(data[:40])
            dist = torch.cdist(e, e)
            same_class = labels[:40, None] == labels[None, :40]
            hardest_neg = dist.masked_fill(same_class, float("inf")).min(dim=1).values
            hardest_pos = dist.masked_fill(~same_class, 0.0).max(dim=1).values
        print(f"triplet step {step:2d} loss {loss.item():.4f} violating anchors {int((hardest_pos > hardest_neg).sum())}")

with torch.no_grad():
    e = embed(data)
a, p, n = e[:6], e[6:12], e[-6:]
print("functional triplet", round(F.triplet_margin_loss(a, p, n, margin=0.3).item(), 5),
      "p=1 swap", round(F.triplet_margin_loss(a, p, n, margin=0.5, p=1, swap=True).item(), 5),
      "none", F.triplet_margin_loss(a, p, n, reduction="none").shape)
cosine_distance = nn.TripletMarginWithDistanceLoss(distance_function=lambda u, v: 1.0 - F.cosine_similarity(u, v),
                                                   margin=0.2)
print("with cosine distance", round(cosine_distance(a, p, n).item(), 5),
      "default distance == pairwise_distance",
      torch.allclose(nn.TripletMarginWithDistanceLoss()(a, p, n), F.triplet_margin_loss(a, p, n)))

# ---- retrieval: recall@k with cosine similarity and topk (excluding the query itself)
sim = F.cosine_similarity(e[:, None, :], e[None, :, :], dim=-1)
sim.fill_diagonal_(-2.0)
for k in (1, 5):
    top = sim.topk(k, dim=1).indices
    hit = (labels[top] == labels[:, None]).any(dim=1).float().mean().item()
    print(f"recall@{k} {hit:.4f}")
print("top-3 neighbours of item 0", sim[0].topk(3).indices.tolist(), labels[sim[0].topk(3).indices].tolist())
centroids = torch.stack([e[labels == c].mean(0) for c in range(n_classes)])
within = torch.stack([(e[labels == c] - centroids[c]).norm(dim=1).mean() for c in range(n_classes)])
print("within-class spread", within.round(decimals=3), "centroid distances min",
      round(torch.pdist(centroids).min().item(), 3), torch.pdist(centroids).shape)


# ---- NT-Xent (SimCLR) on two noisy views of a batch
def nt_xent(z1, z2, temperature=0.5):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    logits = z @ z.T / temperature
    n = z1.size(0)
    logits.fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(n)])
    return F.cross_entropy(logits, targets)


view1 = data[:16] + 0.05 * torch.randn(16, 8)
view2 = data[:16] + 0.05 * torch.randn(16, 8)
proj = nn.Linear(3, 3)
loss = nt_xent(proj(embed(view1)), proj(embed(view2)))
loss.backward()
print("NT-Xent", round(loss.item(), 4), "grad norm", round(proj.weight.grad.norm().item(), 4))
print("cdist p=1 vs p=2", torch.cdist(a[:2], n[:2], p=1).round(decimals=4),
      torch.cdist(a[:2], n[:2]).round(decimals=4))
