# Self-supervised and contrastive learning as the well-known implementations write them (SimCLR, MoCo, BYOL,
# SimSiam, Barlow Twins, VICReg, batch-hard triplets), on seeded synthetic 1x8x8 "images" of 10 classes:
# augmentations in torch (random crops by slicing at torch.randint offsets, torch.flip, color-jitter-like
# affine scaling, randn_like noise), the NT-Xent loss two ways (z @ z.T with an eye mask and masked_fill,
# F.cosine_similarity with fill_diagonal_; positives by torch.roll and arange), InfoNCE with a MoCo queue
# (register_buffer, einsum, pointer enqueue, momentum encoder, shuffled BN via randperm / argsort), BYOL's
# target network by copy.deepcopy with requires_grad_(False), Barlow Twins' cross-correlation with the
# off-diagonal flatten trick, VICReg's variance / invariance / covariance terms, triplet mining with
# torch.cdist, TripletMarginWithDistanceLoss and CosineEmbeddingLoss, a hand-written LARS on top of SGD with a
# cosine schedule and warmup, then the linear-probe (top-1 / top-5) and kNN (weighted vote, torch.mode)
# evaluations and the errors these APIs raise.
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

# ---- data: 10 classes, each a random 8x8 template plus noise; a train / test split
n_classes, per_class = 10, 12
templates = torch.randn(n_classes, 1, 8, 8)
labels = torch.arange(n_classes).repeat_interleave(per_class)
images = templates[labels] + 0.8 * torch.randn(len(labels), 1, 8, 8)
perm = torch.randperm(len(labels))
train_idx, test_idx = perm[:90], perm[90:]
x_train, y_train, x_test, y_test = images[train_idx], labels[train_idx], images[test_idx], labels[test_idx]
print("data", images.shape, images.dtype, "train", x_train.shape, "test", x_test.shape,
      torch.bincount(y_test, minlength=n_classes).tolist())


def augment(x, pad=1):
    """Two-crop style augmentation: reflect-pad and crop back to 8x8 at random offsets, flip half of the
    batch horizontally, jitter brightness and contrast, add Gaussian noise."""
    n, _, h, w = x.shape
    padded = F.pad(x, (pad, pad, pad, pad), mode="reflect")
    top = torch.randint(0, 2 * pad + 1, (n,))
    left = torch.randint(0, 2 * pad + 1, (n,))
    crops = torch.stack([padded[i, :, top[i]:top[i] + h, left[i]:left[i] + w] for i in range(n)])
    flip = torch.rand(n) < 0.5
    crops = torch.where(flip[:, None, None, None], torch.flip(crops, dims=[3]), crops)
    brightness = torch.empty(n, 1, 1, 1).uniform_(-0.2, 0.2)
    contrast = torch.empty(n, 1, 1, 1).uniform_(0.8, 1.2)
    mean = crops.mean(dim=(1, 2, 3), keepdim=True)
    crops = (crops - mean) * contrast + mean + brightness
    # a random circular translation of the whole batch: the shift is a 0-dim tensor, as torch.randint gives it
    crops = torch.roll(crops, shifts=torch.randint(-1, 2, ()), dims=2)
    return crops + 0.1 * torch.randn_like(crops)


torch.manual_seed(1)
v1, v2 = augment(x_train[:4]), augment(x_train[:4])
print("augment", v1.shape, "view means", v1.mean(dim=(1, 2, 3)), "view-to-view L2",
      (v1 - v2).flatten(1).norm(dim=1))
flipped = x_train[:2].clone()
flipped[torch.tensor([True, False])] = flipped[torch.tensor([True, False])].flip(-1)
print("flip by mask", torch.equal(flipped[0], x_train[0].flip(-1)), torch.equal(flipped[1], x_train[1]),
      "double flip", torch.equal(torch.flip(torch.flip(x_train[:2], [2, 3]), [3, 2]), x_train[:2]))


def make_encoder():
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())


def make_projector(dim_in=16, hidden=32, dim_out=8, last_bias=True):
    return nn.Sequential(nn.Linear(dim_in, hidden, bias=False), nn.BatchNorm1d(hidden), nn.ReLU(),
                         nn.Linear(hidden, dim_out, bias=last_bias))


def batches(step, batch_size=16):
    """A cyclic walk through a fixed permutation of the training set."""
    start = step * batch_size % (len(x_train) - batch_size)
    return x_train[order[start:start + batch_size]]


order = torch.randperm(len(x_train))


# ---- SimCLR: NT-Xent written two ways
def nt_xent(z1, z2, temperature=0.5):
    """The 2N x 2N similarity matrix by matmul; the diagonal masked with an eye mask; row i's positive is
    i + N (mod 2N), found by torch.roll of the arange."""
    n = z1.size(0)
    z = F.normalize(torch.cat([z1, z2], dim=0), dim=1)
    sim = z @ z.T / temperature
    mask = torch.eye(2 * n, dtype=torch.bool)
    sim = sim.masked_fill(mask, -9e15)
    targets = torch.roll(torch.arange(2 * n), shifts=n)
    return F.cross_entropy(sim, targets)


def nt_xent_cosine(z1, z2, temperature=0.5):
    """The same loss via F.cosine_similarity of broadcast rows, fill_diagonal_, and explicit log-softmax of the
    positives (the positives gathered with an arange-based index)."""
    n = z1.size(0)
    z = torch.cat([z1, z2], dim=0)
    sim = F.cosine_similarity(z.unsqueeze(1), z.unsqueeze(0), dim=2) / temperature
    sim = sim.clone()
    sim.fill_diagonal_(float("-inf"))
    pos = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    log_prob = sim - torch.logsumexp(sim, dim=1, keepdim=True)
    return -log_prob[torch.arange(2 * n), pos].mean()


class LARS(torch.optim.SGD):
    """SGD with layer-wise adaptive rate scaling: each weight matrix's gradient (with weight decay folded in)
    is scaled by the trust ratio eta * ||w|| / ||g||; biases and BatchNorm parameters are left alone."""

    def __init__(self, params, lr, momentum=0.9, weight_decay=1e-4, eta=0.02):
        super().__init__(params, lr=lr, momentum=momentum)
        self.weight_decay, self.eta = weight_decay, eta

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None or p.ndim == 1:
                    continue
                p.grad.add_(p, alpha=self.weight_decay)
                w_norm, g_norm = p.norm(), p.grad.norm()
                trust = torch.where((w_norm > 0) & (g_norm > 0), self.eta * w_norm / g_norm, torch.ones_like(w_norm))
                p.grad.mul_(trust)
        return super().step(closure)


def warmup_cosine(step, warmup=3, total=12):
    if step < warmup:
        return (step + 1) / warmup
    return 0.5 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))


torch.manual_seed(2)
simclr = nn.Sequential(make_encoder(), make_projector())
z1, z2 = simclr(augment(batches(0))), simclr(augment(batches(0)))
a, b = nt_xent(z1, z2), nt_xent_cosine(z1, z2)
print("nt_xent", round(a.item(), 4), "cosine form", round(b.item(), 4), "close", torch.allclose(a, b, atol=1e-5))
(ga,) = torch.autograd.grad(a, z1, retain_graph=True)
(gb,) = torch.autograd.grad(b, z1)
print("grads agree", torch.allclose(ga, gb, atol=1e-6), "grad norm", round(ga.norm().item(), 5))
print("temperature sweep", [round(nt_xent(z1, z2, t).item(), 4) for t in (0.1, 0.2, 1.0)])

optimizer = LARS(simclr.parameters(), lr=0.5)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, warmup_cosine)
print(type(optimizer).__name__, optimizer.defaults["momentum"], "initial lr", scheduler.get_last_lr())
lrs = []
for step in range(12):
    x = batches(step)
    loss = nt_xent(simclr(augment(x)), simclr(augment(x)), temperature=0.2)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    lrs.append(round(scheduler.get_last_lr()[0], 5))
    if step % 4 == 0:
        print(f"simclr step {step:2d} loss {loss.item():.3f}")
print("lr schedule", lrs)
optimizer.zero_grad()
nt_xent(simclr(augment(batches(0))), simclr(augment(batches(0))), temperature=0.2).backward()
print("trust ratios", [round((0.02 * p.norm() / p.grad.norm()).item(), 4) for p in simclr.parameters() if p.ndim > 1])


# ---- MoCo v2 style InfoNCE with a queue of negatives and a momentum key encoder
class MoCo(nn.Module):
    def __init__(self, dim=8, K=32, m=0.99, T=0.2):
        super().__init__()
        self.K, self.m, self.T = K, m, T
        self.encoder_q = nn.Sequential(make_encoder(), make_projector(dim_out=dim))
        self.encoder_k = nn.Sequential(make_encoder(), make_projector(dim_out=dim))
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data.copy_(param_q.data)
            param_k.requires_grad = False
        self.register_buffer("queue", torch.randn(dim, K))
        self.queue = F.normalize(self.queue, dim=0)
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def _momentum_update_key_encoder(self):
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data.mul_(self.m).add_(param_q.data, alpha=1 - self.m)

    @torch.no_grad()
    def _dequeue_and_enqueue(self, keys):
        batch_size = keys.shape[0]
        ptr = int(self.queue_ptr)
        assert self.K % batch_size == 0
        self.queue[:, ptr:ptr + batch_size] = keys.T
        self.queue_ptr[0] = (ptr + batch_size) % self.K

    def forward(self, im_q, im_k):
        q = F.normalize(self.encoder_q(im_q), dim=1)
        with torch.no_grad():
            self._momentum_update_key_encoder()
            # shuffled BN on one device: permute the batch, encode, undo the permutation
            idx_shuffle = torch.randperm(im_k.shape[0])
            idx_unshuffle = torch.argsort(idx_shuffle)
            k = F.normalize(self.encoder_k(im_k[idx_shuffle]), dim=1)[idx_unshuffle]
        l_pos = torch.einsum("nc,nc->n", [q, k]).unsqueeze(-1)
        l_neg = torch.einsum("nc,ck->nk", [q, self.queue.clone().detach()])
        logits = torch.cat([l_pos, l_neg], dim=1) / self.T
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        self._dequeue_and_enqueue(k)
        return logits, labels


torch.manual_seed(3)
moco = MoCo()
print("moco buffers", [(name, tuple(buf.shape), buf.dtype) for name, buf in moco.named_buffers()
                       if "queue" in name], "trainable", sum(p.numel() for p in moco.parameters() if p.requires_grad),
      "frozen", sum(p.numel() for p in moco.parameters() if not p.requires_grad))
optimizer = torch.optim.SGD(filter(lambda p: p.requires_grad, moco.parameters()), lr=0.05, momentum=0.9,
                            weight_decay=1e-4)
criterion = nn.CrossEntropyLoss()
for step in range(6):
    x = batches(step)
    logits, targets = moco(augment(x), augment(x))
    loss = criterion(logits, targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    acc = (logits.argmax(dim=1) == targets).float().mean().item()
    print(f"moco step {step} loss {loss.item():.3f} logits {tuple(logits.shape)} ptr {int(moco.queue_ptr)}"
          f" pos-acc {acc:.2f}")
print("queue column norms", moco.queue.norm(dim=0)[:4].round(decimals=4), "key grads", moco.encoder_k[1][3].weight.grad)
drift = sum((pq - pk).abs().sum() for pq, pk in zip(moco.encoder_q.parameters(), moco.encoder_k.parameters()))
print("query-key drift", round(drift.item(), 3))


# ---- BYOL: online network + predictor, EMA target network with stop-gradient
def byol_loss(p, z):
    p = F.normalize(p, dim=-1, p=2)
    z = F.normalize(z, dim=-1, p=2)
    return 2 - 2 * (p * z).sum(dim=-1)


torch.manual_seed(4)
# no bias on the projector's output: the predictor's BatchNorm cancels it, so its gradient is float noise that
# Adam would normalise into real updates (and the EMA would carry into the target)
online = nn.Sequential(make_encoder(), make_projector(last_bias=False))
predictor = make_projector(dim_in=8, hidden=16, dim_out=8)
target = copy.deepcopy(online)
target.requires_grad_(False)
print("target frozen", all(not p.requires_grad for p in target.parameters()),
      "online trainable", all(p.requires_grad for p in online.parameters()),
      "same init", all(torch.equal(p, q) for p, q in zip(online.parameters(), target.parameters())))
optimizer = torch.optim.Adam(list(online.parameters()) + list(predictor.parameters()), lr=1e-3)
base_tau, total = 0.9, 6
for step in range(total):
    x = batches(step)
    view_a, view_b = augment(x), augment(x)
    p_a, p_b = predictor(online(view_a)), predictor(online(view_b))
    with torch.no_grad():
        t_a, t_b = target(view_a), target(view_b)
    loss = (byol_loss(p_a, t_b.detach()) + byol_loss(p_b, t_a.detach())).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    tau = 1 - (1 - base_tau) * (math.cos(math.pi * step / total) + 1) / 2
    with torch.no_grad():
        for po, pt in zip(online.parameters(), target.parameters()):
            pt.data.mul_(tau).add_(po.data, alpha=1 - tau)
    print(f"byol step {step} loss {loss.item():.4f} tau {tau:.4f} target grad {target[1][0].weight.grad}")
print("target BN running mean", target[1][1].running_mean[:4], "num_batches_tracked",
      target[1][1].num_batches_tracked.item(), online[1][1].num_batches_tracked.item())

# SimSiam: the negative cosine with stop-gradient on the other branch
torch.manual_seed(5)
x = batches(0)
view_a, view_b = augment(x), augment(x)
z_a, z_b = online(view_a), online(view_b)
p_a, p_b = predictor(z_a), predictor(z_b)
p_a.retain_grad()
z_b.retain_grad()
sim_siam = -(F.cosine_similarity(p_a, z_b.detach(), dim=-1).mean()
             + F.cosine_similarity(p_b, z_a.detach(), dim=-1).mean()) / 2
sim_siam.backward()
print("simsiam", round(sim_siam.item(), 4), "p_a grad norm", round(p_a.grad.norm().item(), 5),
      "z_b grad norm (through p_b only)", round(z_b.grad.norm().item(), 5), z_b.detach().requires_grad)


# ---- Barlow Twins: the cross-correlation of batch-normalized embeddings
def off_diagonal(x):
    n, m = x.shape
    assert n == m
    return x.flatten()[:-1].view(n - 1, n + 1)[:, 1:].flatten()


m4 = torch.arange(16.).view(4, 4)
print("off_diagonal", off_diagonal(m4), "count", off_diagonal(m4).numel(),
      torch.equal(off_diagonal(m4), m4[~torch.eye(4, dtype=torch.bool)]))

torch.manual_seed(6)
backbone, projector = make_encoder(), make_projector(dim_out=16)
bn = nn.BatchNorm1d(16, affine=False)
print(bn, "parameters", len(list(bn.parameters())), "buffers", [n for n, _ in bn.named_buffers()])
optimizer = torch.optim.SGD(list(backbone.parameters()) + list(projector.parameters()), lr=0.02, momentum=0.9)
lambd = 0.005
for step in range(6):
    x = batches(step, batch_size=32)
    y1, y2 = augment(x), augment(x)
    z1, z2 = projector(backbone(y1)), projector(backbone(y2))
    c = bn(z1).T @ bn(z2)
    c.div_(x.size(0))
    on_diag = torch.diagonal(c).add_(-1).pow_(2).sum()
    off_diag = off_diagonal(c).pow_(2).sum()
    loss = on_diag + lambd * off_diag
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 2 == 0:
        print(f"barlow step {step} on_diag {on_diag.item():.4f} off_diag {off_diag.item():.4f} loss {loss.item():.4f}"
              f" grad_fn {c.grad_fn.name()}")
print("cross-correlation diag (after -1, squared)", torch.diagonal(c.detach())[:4], "running_var", bn.running_var[:3])


# ---- VICReg: invariance + variance + covariance
def vicreg(x, y, sim_coeff=25.0, std_coeff=25.0, cov_coeff=1.0):
    batch_size, num_features = x.shape
    repr_loss = F.mse_loss(x, y)
    x = x - x.mean(dim=0)
    y = y - y.mean(dim=0)
    std_x = torch.sqrt(x.var(dim=0) + 0.0001)
    std_y = torch.sqrt(y.var(dim=0) + 0.0001)
    std_loss = torch.mean(F.relu(1 - std_x)) / 2 + torch.mean(F.relu(1 - std_y)) / 2
    cov_x = (x.T @ x) / (batch_size - 1)
    cov_y = (y.T @ y) / (batch_size - 1)
    cov_loss = off_diagonal(cov_x).pow_(2).sum().div(num_features) + off_diagonal(cov_y).pow_(2).sum().div(num_features)
    loss = sim_coeff * repr_loss + std_coeff * std_loss + cov_coeff * cov_loss
    return loss, repr_loss, std_loss, cov_loss, cov_x


torch.manual_seed(7)
emb = nn.Sequential(make_encoder(), make_projector(dim_out=16))
optimizer = torch.optim.Adam(emb.parameters(), lr=2e-3)
for step in range(5):
    x = batches(step, batch_size=32)
    parts = vicreg(emb(augment(x)), emb(augment(x)))
    optimizer.zero_grad()
    parts[0].backward()
    optimizer.step()
    print("vicreg step", step, " ".join(f"{t.item():.4f}" for t in parts[:4]))
za = emb(augment(batches(0, batch_size=32))).detach()
print("hand covariance == torch.cov", torch.allclose(
    (za - za.mean(0)).T @ (za - za.mean(0)) / (za.size(0) - 1), torch.cov(za.T), atol=1e-5),
    "var unbiased vs biased", round(za.var(dim=0)[0].item() / za.var(dim=0, unbiased=False)[0].item(), 5),
    "std hinge zero at", F.relu(1 - torch.tensor([0.5, 1.0, 1.5])))

# ---- triplet losses: batch-hard mining with cdist, then the library losses
torch.manual_seed(8)
net = nn.Sequential(make_encoder(), nn.Linear(16, 8))
optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)


def batch_hard_triplet(emb, lab, margin=0.3):
    dist = torch.cdist(emb, emb, p=2)
    same = lab.unsqueeze(0) == lab.unsqueeze(1)
    eye = torch.eye(len(lab), dtype=torch.bool)
    pos_mask = same & ~eye
    hardest_pos = (dist * pos_mask.float()).max(dim=1)
    hardest_neg = dist.masked_fill(same, float("inf")).min(dim=1)
    loss = F.relu(hardest_pos.values - hardest_neg.values + margin)
    return loss.mean(), hardest_pos.indices, hardest_neg.indices, (loss > 0).sum()


def batch_all_triplet(emb, lab, margin=0.3):
    dist = torch.cdist(emb, emb)
    same = lab.unsqueeze(0) == lab.unsqueeze(1)
    eye = torch.eye(len(lab), dtype=torch.bool)
    valid = (same & ~eye).unsqueeze(2) & (~same).unsqueeze(1)
    triplet = F.relu(dist.unsqueeze(2) - dist.unsqueeze(1) + margin) * valid
    positive = (triplet > 1e-16).float()
    return triplet.sum() / (positive.sum() + 1e-16), int(valid.sum()), int(positive.sum())


sel = torch.cat([torch.nonzero(y_train == c).flatten()[:3] for c in range(6)])
xb, yb = x_train[sel], y_train[sel]
for step in range(8):
    e = F.normalize(net(augment(xb)), dim=1)
    loss, pos_idx, neg_idx, active = batch_hard_triplet(e, yb)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 2 == 0:
        print(f"batch-hard step {step} loss {loss.item():.4f} active {int(active)} grads finite",
              all(torch.isfinite(p.grad).all().item() for p in net.parameters()))
with torch.no_grad():
    e = F.normalize(net(xb), dim=1)
loss_all, n_valid, n_pos = batch_all_triplet(e, yb)
# the k hardest negatives of every anchor, k = the fewest negatives any anchor has (a 0-dim tensor)
d_all = torch.cdist(e, e)
neg_mask = yb[:, None] != yb[None, :]
k_neg = neg_mask.sum(dim=1).min()
hard = d_all.masked_fill(~neg_mask, float("inf")).topk(k_neg, dim=1, largest=False)
print("k hardest negatives: k", k_neg, hard.values.shape, "mean", round(hard.values.mean().item(), 4),
      "all negatives", bool((yb[hard.indices] != yb[:, None]).all()),
      "5th nearest negative", d_all.masked_fill(~neg_mask, float("inf")).kthvalue(torch.tensor(5), dim=1).values[:4])
print("batch-all", round(loss_all.item(), 4), "valid triplets", n_valid, "positive", n_pos,
      "same-label positives", bool((yb[pos_idx] == yb).all()), "different-label negatives",
      bool((yb[neg_idx] != yb).all()))
d = torch.cdist(e, e)
print("cdist diag max", d.diagonal().max().item() < 1e-3, "symmetric", torch.allclose(d, d.T, atol=1e-6),
      "p=1", torch.cdist(e[:2], e[2:4], p=1), "p=inf", torch.cdist(e[:2], e[2:4], p=float("inf")))

# cdist's gradient at a zero distance is zero, not nan
pts = torch.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 0.0]], requires_grad=True)
torch.cdist(pts, pts).sum().backward()
print("cdist grad with coincident points", pts.grad)
anchor, positive, negative = e[:6].clone().requires_grad_(), e[6:12], e[12:18]
triplet_l2 = nn.TripletMarginWithDistanceLoss(distance_function=nn.PairwiseDistance(), margin=0.5)
triplet_cos = nn.TripletMarginWithDistanceLoss(
    distance_function=lambda u, v: 1.0 - F.cosine_similarity(u, v), margin=0.2, swap=True, reduction="sum")
print(triplet_l2, nn.TripletMarginWithDistanceLoss(margin=0.3).distance_function,
      triplet_cos.distance_function.__name__)
for name, crit in (("l2", triplet_l2), ("cosine swap sum", triplet_cos)):
    anchor.grad = None
    out = crit(anchor, positive, negative)
    out.backward()
    print(f"TripletMarginWithDistanceLoss {name}", round(out.item(), 5), "grad", anchor.grad[0])
print("vs TripletMarginLoss", torch.allclose(triplet_l2(anchor, positive, negative),
                                             nn.TripletMarginLoss(margin=0.5)(anchor, positive, negative)))
cos_emb = nn.CosineEmbeddingLoss(margin=0.1)
partner = torch.tensor([1, 0, 3, 9, 12, 2])
pair_target = torch.where(yb[:6] == yb[partner], 1, -1)
anchor.grad = None
out = cos_emb(anchor, e[partner], pair_target)
out.backward()
print(cos_emb, "target", pair_target.tolist(), "loss", round(out.item(), 5), "grad", anchor.grad[0])
print("cosine_embedding none", F.cosine_embedding_loss(anchor, negative, -torch.ones(6), margin=-0.5,
                                                         reduction="none").detach())

# ---- evaluation: freeze the SimCLR encoder, linear probe and kNN
encoder = simclr[0]
encoder.requires_grad_(False)
encoder.eval()
with torch.no_grad():
    f_train, f_test = encoder(x_train), encoder(x_test)
print("features", f_train.shape, "requires_grad", f_train.requires_grad, "mean", round(f_train.mean().item(), 3))


def accuracy(output, target, topk=(1,)):
    """Computes the accuracy over the k top predictions, as the ImageNet example does."""
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        res = []
        for k in topk:
            correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


torch.manual_seed(9)
probe = nn.Linear(16, n_classes)
probe.weight.data.normal_(mean=0.0, std=0.01)
probe.bias.data.zero_()
optimizer = torch.optim.SGD(probe.parameters(), lr=0.5, momentum=0.9, weight_decay=0.0)
mean, std = f_train.mean(0), f_train.std(0) + 1e-6
for epoch in range(30):
    logits = probe((f_train - mean) / std)
    loss = F.cross_entropy(logits, y_train)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 10 == 0:
        print(f"probe epoch {epoch} loss {loss.item():.3f}")
top1, top5 = accuracy(probe((f_test - mean) / std), y_test, topk=(1, 5))
print("linear probe top1", round(top1.item(), 1), "top5", round(top5.item(), 1), top1.shape, top1.dtype)


def knn_predict(feature, feature_bank, feature_labels, classes, knn_k, knn_t):
    """Weighted kNN as in InstDisc: cosine similarity, top-k neighbours, one-hot votes by scatter."""
    sim_matrix = torch.mm(feature, feature_bank)
    sim_weight, sim_indices = sim_matrix.topk(k=knn_k, dim=-1)
    sim_labels = torch.gather(feature_labels.expand(feature.size(0), -1), dim=-1, index=sim_indices)
    sim_weight = (sim_weight / knn_t).exp()
    one_hot_label = torch.zeros(feature.size(0) * knn_k, classes)
    one_hot_label = one_hot_label.scatter(dim=-1, index=sim_labels.view(-1, 1), value=1.0)
    pred_scores = torch.sum(one_hot_label.view(feature.size(0), -1, classes) * sim_weight.unsqueeze(dim=-1), dim=1)
    return pred_scores.argsort(dim=-1, descending=True), sim_labels


bank = F.normalize(f_train, dim=1).t().contiguous()
query = F.normalize(f_test, dim=1)
for k in (1, 5, 10):
    pred_labels, neighbour_labels = knn_predict(query, bank, y_train, n_classes, k, 0.1)
    top1 = (pred_labels[:, 0] == y_test).float().sum().item()
    majority = torch.mode(neighbour_labels, dim=1)
    print(f"kNN k={k} weighted top1 {int(top1)}/{len(y_test)} majority {int((majority.values == y_test).sum())}"
          f" mode shapes {tuple(majority.values.shape)} {majority.indices.dtype}")
print("torch.mode ties", torch.mode(torch.tensor([[2, 1, 1, 2, 3], [4, 4, 0, 0, 9]]), dim=1),
      torch.tensor([3, 1, 3, 1, 2]).mode())

# ---- errors
def err(label, fn):
    try:
        out = fn()
        print(label, "no error:", out)
    except Exception as ex:
        print(label, type(ex).__name__, ex)


err("cross_entropy batch mismatch", lambda: F.cross_entropy(torch.randn(4, 5), torch.tensor([0, 1, 2])))
err("cross_entropy float target shape", lambda: F.cross_entropy(torch.randn(4, 5), torch.rand(4, 4)))
err("cdist columns", lambda: torch.cdist(torch.randn(3, 4), torch.randn(3, 5)))
err("cdist p<0", lambda: torch.cdist(torch.randn(3, 4), torch.randn(3, 4), p=-1))
err("cdist 1-D", lambda: torch.cdist(torch.randn(3), torch.randn(3)))
err("triplet margin 0", lambda: nn.TripletMarginWithDistanceLoss(margin=0.0))
err("triplet shapes", lambda: F.triplet_margin_with_distance_loss(torch.randn(3, 4), torch.randn(3, 4),
                                                                  torch.randn(2, 4)))
err("cosine_embedding target", lambda: F.cosine_embedding_loss(torch.randn(3, 4), torch.randn(3, 4), torch.ones(2)))
err("cosine_embedding 3-D", lambda: F.cosine_embedding_loss(torch.randn(2, 3, 4), torch.randn(2, 3, 4),
                                                            torch.ones(2)))
err("roll shifts/dims", lambda: torch.roll(torch.arange(4), shifts=(1, 2), dims=0))
err("topk k too large", lambda: torch.randn(3, 4).topk(5, dim=1))
err("diagonal same dims", lambda: torch.diagonal(torch.ones(3, 3), dim1=0, dim2=0))
err("fill_diagonal_ 1-D", lambda: torch.ones(3).fill_diagonal_(0))
err("off_diagonal non-square view", lambda: torch.ones(3, 4).flatten()[:-1].view(2, 4))
err("masked_fill float mask", lambda: torch.ones(2, 2).masked_fill(torch.eye(2), -9e15))
err("mode dim", lambda: torch.mode(torch.ones(2, 3), dim=2))
err("flip repeated dim", lambda: torch.flip(torch.ones(2, 3), dims=[1, 1]))
err("einsum shapes", lambda: torch.einsum("nc,ck->nk", torch.randn(2, 3), torch.randn(4, 5)))
