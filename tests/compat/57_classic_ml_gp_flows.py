# Classical machine learning and probabilistic modelling as the textbook chapters and the GP / normalizing-
# flow tutorials write it with PyTorch, on small seeded synthetic data: k-means (k-means++ seeding with
# multinomial, torch.cdist in its compute modes, argmin, index_add_ / scatter_add_ centroid sums, bincount
# with minlength, a torch.allclose convergence loop), PCA (centering, reduced SVD with sign-fixed
# components, explained variance ratio, eigh of the covariance, torch.pca_lowrank), closed-form linear
# regression (lstsq, solve on the normal equations, pinv, ridge with torch.eye), logistic regression by
# full-batch LBFGS and by SGD with BCEWithLogitsLoss(pos_weight), metrics by hand (confusion matrix by
# bincount, precision / recall / F1, AUC by ranks), Gaussian-process regression (RBF kernel, cholesky,
# cholesky_solve, solve_triangular, the log marginal likelihood with the log-determinant from the Cholesky
# diagonal, hyperparameters fitted with Adam, predictive mean and variance, MultivariateNormal with
# scale_tril and with covariance_matrix), a RealNVP flow of affine couplings on two moons
# (Independent(Normal) base, log-det-Jacobian sums, sampling by the inverse), TransformedDistribution with
# Affine / Sigmoid / Compose transforms, a linear flow whose log-likelihood goes through slogdet, and
# slogdet / logdet / matrix_norm / cond on the learned matrices.  Sign-ambiguous factors (singular vectors,
# eigenvectors) are sign-fixed before printing.
import math

import torch
import torch.nn as nn
from torch.distributions import Independent, MultivariateNormal, Normal, TransformedDistribution
from torch.distributions.transforms import AffineTransform, ComposeTransform, SigmoidTransform

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def err(t):
    return f"{t.abs().max().item():.1e}" if t.abs().max().item() > 1e-4 else "ok"


def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as e:
        print(label, type(e).__name__, e)


# ================================================================ k-means
true_centers = torch.tensor([[0.0, 0.0], [4.0, 4.0], [-4.0, 3.0]])
X = torch.cat([c + 0.8 * torch.randn(40, 2) for c in true_centers])
y_true = torch.arange(3).repeat_interleave(40)
perm = torch.randperm(len(X))
X, y_true = X[perm], y_true[perm]
print("blobs", X.shape, X.dtype, X[:3], y_true[:10])

# k-means++ seeding: each next centre drawn with probability proportional to D(x)^2
k = 3
centers = X[torch.randint(len(X), (1,))]
for _ in range(k - 1):
    d2 = torch.cdist(X, centers).min(dim=1).values.pow(2)
    idx = torch.multinomial(d2 / d2.sum(), 1)
    centers = torch.cat([centers, X[idx]])
print("k-means++ init", centers)

for it in range(1, 51):
    dist = torch.cdist(X, centers)  # 120 rows > 25: the matrix-product form
    assign = dist.argmin(dim=1)
    sums = torch.zeros(k, 2).index_add_(0, assign, X)
    counts = torch.bincount(assign, minlength=k)
    new_centers = sums / counts.clamp_min(1).unsqueeze(1)
    if torch.allclose(new_centers, centers, atol=1e-6):
        break
    centers = new_centers
print("converged after", it, "iterations; counts", counts.tolist(), counts.dtype)
print("centers", centers)
inertia = torch.cdist(X, centers).min(dim=1).values.pow(2).sum()
print("inertia", round(inertia.item(), 3))
sums2 = torch.zeros(k, 2).scatter_add_(0, assign.unsqueeze(1).expand(-1, 2), X)
print("scatter_add_ == index_add_", torch.allclose(sums2, sums), sums2.shape)
print("bincount minlength", torch.bincount(torch.tensor([0, 0, 2]), minlength=5),
      torch.bincount(torch.tensor([0, 1, 1]), weights=torch.tensor([0.5, 1.0, 2.0])))
contingency = torch.bincount(y_true * k + assign, minlength=k * k).view(k, k)
print("contingency (true x cluster)\n", contingency)
purity = contingency.max(dim=1).values.sum().item() / len(X)
print("purity", purity)

# the three compute modes agree; small inputs (<= 25 rows) take the direct path under the default mode
d_mm = torch.cdist(X, centers, compute_mode="use_mm_for_euclid_dist")
d_direct = torch.cdist(X, centers, compute_mode="donot_use_mm_for_euclid_dist")
d_default = torch.cdist(X, centers, compute_mode="use_mm_for_euclid_dist_if_necessary")
print("compute modes agree", err(d_mm - d_direct), torch.allclose(d_mm, d_direct, atol=1e-4),
      torch.equal(d_default, d_mm), d_mm.shape)
print("cdist small", torch.cdist(X[:4], centers, compute_mode="donot_use_mm_for_euclid_dist"))
print("cdist p=1 / inf", torch.cdist(X[:2], centers, p=1), torch.cdist(X[:2], centers, p=float("inf")))
print("cdist batched", torch.cdist(X[:10].expand(2, 10, 2), centers.unsqueeze(0)).shape)
attempt("cdist bad mode", lambda: torch.cdist(X, centers, compute_mode="fast"))
attempt("cdist columns", lambda: torch.cdist(X, torch.randn(3, 3)))
# a differentiable objective: gradient of the inertia with respect to the centres
C = centers.clone().requires_grad_()
torch.cdist(X, C).min(dim=1).values.pow(2).sum().backward()
print("d inertia / d centers (0 at a fixed point)", err(C.grad))
C2 = (centers + 0.5).requires_grad_()
torch.cdist(X, C2, compute_mode="donot_use_mm_for_euclid_dist").pow(2).min(dim=1).values.sum().backward()
print("d inertia / d shifted centers", C2.grad)

# ================================================================ PCA
torch.manual_seed(1)
latent = torch.randn(200, 2)
mixing = torch.tensor([[2.0, 0.5, -1.0, 0.3, 0.0], [0.0, 1.0, 0.5, -0.7, 0.2]])
D = latent @ mixing + 0.1 * torch.randn(200, 5) + torch.tensor([1.0, -2.0, 0.5, 3.0, 0.0])
mean = D.mean(dim=0)
Dc = D - mean
U, S, Vh = torch.linalg.svd(Dc, full_matrices=False)
print("svd shapes", U.shape, S.shape, Vh.shape)
# sign fix as scikit-learn's svd_flip: the largest |entry| of each column of U is positive
max_rows = U.abs().argmax(dim=0)
signs = torch.sign(U[max_rows, torch.arange(U.shape[1])])
U, Vh = U * signs, Vh * signs.unsqueeze(1)
print("singular values", S)
print("components\n", Vh[:2])
explained_var = S.pow(2) / (len(D) - 1)
ratio = explained_var / explained_var.sum()
print("explained variance", explained_var, "ratio", ratio, "cumulative", ratio.cumsum(0))
scores = Dc @ Vh[:2].T
print("scores", scores[:3], "== U S", err(scores - U[:, :2] * S[:2]))
recon = scores @ Vh[:2] + mean
print("reconstruction rmse", round((recon - D).pow(2).mean().sqrt().item(), 4))

cov = Dc.T @ Dc / (len(D) - 1)
print("cov == torch.cov", err(cov - torch.cov(D.T)))
evals, evecs = torch.linalg.eigh(cov)
evals, evecs = evals.flip(0), evecs.flip(1)
print("eigh eigenvalues (descending)", evals, "== S^2/(n-1)", err(evals - explained_var))
evecs = evecs * torch.sign((evecs * Vh.T).sum(0))  # align signs with the SVD's components
print("eigh vectors == components", err(evecs[:, :2] - Vh[:2].T))

attempt("pca_lowrank exists", lambda: callable(torch.pca_lowrank))
try:
    torch.manual_seed(2)
    Ul, Sl, Vl = torch.pca_lowrank(D, q=3, center=True, niter=4)
    print("pca_lowrank", Ul.shape, Sl.shape, Vl.shape)
    print("pca_lowrank S", Sl[:2], "vs svd", S[:2])
    print("pca_lowrank |cos| with components", (Vl[:, :2] * Vh[:2].T).sum(0).abs())
    torch.manual_seed(2)
    Us, Ss, Vs = torch.svd_lowrank(Dc, q=2, niter=2)
    print("svd_lowrank", Ss, Us.shape, Vs.shape)
except Exception as e:
    print("pca_lowrank", type(e).__name__, e)

# ================================================================ closed-form linear regression
torch.manual_seed(3)
n = 50
Xr = torch.randn(n, 3, dtype=torch.float64)
w_true = torch.tensor([1.5, -2.0, 0.7], dtype=torch.float64)
yr = Xr @ w_true + 0.3 + 0.1 * torch.randn(n, dtype=torch.float64)
A = torch.cat([Xr, torch.ones(n, 1, dtype=torch.float64)], dim=1)
sol = torch.linalg.lstsq(A, yr.unsqueeze(1))
print("lstsq", sol.solution.squeeze(1), sol.residuals, sol.rank, sol.solution.dtype)
sol_d = torch.linalg.lstsq(A, yr.unsqueeze(1), driver="gelsd")
print("lstsq gelsd", sol_d.residuals, sol_d.rank, sol_d.singular_values)
w_ne = torch.linalg.solve(A.T @ A, A.T @ yr)
w_pinv = torch.linalg.pinv(A) @ yr
print("normal equations", w_ne, "pinv == lstsq", err(w_pinv - sol.solution.squeeze(1)))
pred = A @ w_ne
r2 = 1 - (yr - pred).pow(2).sum() / (yr - yr.mean()).pow(2).sum()
print("R^2", round(r2.item(), 6), "rmse", round((yr - pred).pow(2).mean().sqrt().item(), 5))
for lam in [0.0, 1.0, 10.0]:
    w_ridge = torch.linalg.solve(A.T @ A + lam * torch.eye(4, dtype=torch.float64), A.T @ yr)
    print(f"ridge lambda={lam}", w_ridge, "norm", round(w_ridge.norm().item(), 5))
Xf = Xr.float()
print("float32 lstsq", torch.linalg.lstsq(Xf, yr.float()[:, None]).solution.squeeze(), torch.linalg.pinv(Xf).dtype)
attempt("lstsq rows", lambda: torch.linalg.lstsq(A, yr[:10].unsqueeze(1)))
attempt("solve singular", lambda: torch.linalg.solve(torch.ones(4, 4, dtype=torch.float64), A.T @ yr))

# ================================================================ logistic regression
torch.manual_seed(4)
neg = torch.randn(80, 2) + torch.tensor([-1.0, -0.5])
pos = torch.randn(20, 2) + torch.tensor([1.0, 1.0])
Xl = torch.cat([neg, pos])
yl = torch.cat([torch.zeros(80), torch.ones(20)])

model = nn.Linear(2, 1)
opt = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=100, history_size=10, line_search_fn="strong_wolfe",
                        tolerance_grad=1e-9, tolerance_change=1e-12)
bce = nn.BCEWithLogitsLoss()
evals_lbfgs = 0


def closure():
    global evals_lbfgs
    evals_lbfgs += 1
    opt.zero_grad()
    loss = bce(model(Xl).squeeze(1), yl) + 1e-2 * model.weight.pow(2).sum()
    loss.backward()
    return loss


first = opt.step(closure)
final = closure()
print("LBFGS loss", round(first.item(), 5), "->", round(final.item(), 5))
print("LBFGS weights", model.weight.data.flatten(), model.bias.data,
      "grad norm small", model.weight.grad.norm().item() < 1e-3)
print("LBFGS state keys", sorted(opt.state[opt.param_groups[0]["params"][0]].keys()))


def metrics(logits, y):
    pred = (logits > 0).long()
    cm = torch.bincount(y.long() * 2 + pred, minlength=4).view(2, 2)
    tn, fp, fn, tp = cm.flatten().tolist()
    precision = tp / max(tp + fp, 1)
    recall = tp / max(tp + fn, 1)
    f1 = 2 * precision * recall / max(precision + recall, 1e-12)
    # AUC = probability that a positive outranks a negative (Mann-Whitney U from the ranks)
    ranks = logits.argsort().argsort().double() + 1
    n_pos = int(y.sum().item())
    auc = (ranks[y.bool()].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * (len(y) - n_pos))
    return cm, round(precision, 4), round(recall, 4), round(f1, 4), round(auc.item(), 4)


with torch.no_grad():
    cm, p, r, f, auc = metrics(model(Xl).squeeze(1), yl)
print("confusion [[tn fp] [fn tp]]\n", cm, "\nprecision", p, "recall", r, "f1", f, "auc", auc)

torch.manual_seed(5)
model2 = nn.Linear(2, 1)
opt2 = torch.optim.SGD(model2.parameters(), lr=0.1, momentum=0.9)
weighted = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([4.0]))
for epoch in range(60):
    for i in range(0, 100, 25):
        idx = torch.arange(i, i + 25)
        opt2.zero_grad()
        loss = weighted(model2(Xl[idx]), yl[idx].unsqueeze(1))
        loss.backward()
        opt2.step()
    if epoch % 20 == 0:
        print(f"SGD epoch {epoch} loss {loss.item():.4f}")
with torch.no_grad():
    logits2 = model2(Xl).squeeze(1)
    cm, p, r, f, auc = metrics(logits2, yl)
print("pos_weight=4 weights", model2.weight.data.flatten(), model2.bias.data)
print("confusion\n", cm, "\nprecision", p, "recall", r, "f1", f, "auc", auc)
F = torch.nn.functional
by_hand = -(4 * yl * F.logsigmoid(logits2) + (1 - yl) * F.logsigmoid(-logits2)).mean()
print("weighted loss == by hand", err(weighted(logits2, yl) - by_hand))

# ================================================================ Gaussian-process regression
torch.manual_seed(6)
dt = torch.float64
xt = (torch.rand(20, dtype=dt) * 6 - 3).sort().values.unsqueeze(1)
yt = torch.sin(xt).squeeze(1) + 0.1 * torch.randn(20, dtype=dt)
xs = torch.linspace(-3.5, 3.5, 6, dtype=dt).unsqueeze(1)


def rbf(a, b, log_ls, log_sf):
    sq = (a.unsqueeze(1) - b.unsqueeze(0)).pow(2).sum(-1)
    return torch.exp(2 * log_sf) * torch.exp(-0.5 * sq / torch.exp(2 * log_ls))


log_ls = torch.tensor(0.0, dtype=dt, requires_grad=True)
log_sf = torch.tensor(0.0, dtype=dt, requires_grad=True)
log_noise = torch.tensor(-1.0, dtype=dt, requires_grad=True)
K0 = rbf(xt, xt, log_ls.detach(), log_sf.detach())
print("rbf == via cdist", err(K0 - torch.exp(-0.5 * torch.cdist(xt, xt).pow(2))), K0.shape)


def neg_log_marginal(log_ls, log_sf, log_noise):
    n = len(xt)
    K = rbf(xt, xt, log_ls, log_sf) + torch.exp(2 * log_noise) * torch.eye(n, dtype=dt)
    L = torch.linalg.cholesky(K)
    alpha = torch.cholesky_solve(yt.unsqueeze(1), L)
    return 0.5 * (yt.unsqueeze(1) * alpha).sum() + torch.log(torch.diagonal(L)).sum() + 0.5 * n * math.log(2 * math.pi)


nlml = neg_log_marginal(log_ls, log_sf, log_noise)
nlml.backward()
print("initial nlml", round(nlml.item(), 6), "grads", [round(p.grad.item(), 6) for p in (log_ls, log_sf, log_noise)])
K = K0 + math.exp(-2.0) * torch.eye(20, dtype=dt)
print("logdet: cholesky diag == torch.logdet == slogdet",
      round(2 * torch.log(torch.linalg.cholesky(K).diagonal()).sum().item(), 6), round(torch.logdet(K).item(), 6),
      torch.slogdet(K))
mvn_cov = MultivariateNormal(torch.zeros(20, dtype=dt), covariance_matrix=K)
mvn_tril = MultivariateNormal(torch.zeros(20, dtype=dt), scale_tril=torch.linalg.cholesky(K))
print("MVN log_prob == -nlml", round(mvn_cov.log_prob(yt).item(), 6), round(mvn_tril.log_prob(yt).item(), 6))
print("MVN", mvn_tril, mvn_tril.batch_shape, mvn_tril.event_shape, "entropy", round(mvn_tril.entropy().item(), 6))

params = [log_ls, log_sf, log_noise]
adam = torch.optim.Adam(params, lr=0.05)
for step in range(60):
    adam.zero_grad()
    loss = neg_log_marginal(*params)
    loss.backward()
    adam.step()
    if step % 15 == 0 or step == 59:
        print(f"GP step {step:2d} nlml {loss.item():.5f} ls {log_ls.exp().item():.4f} sf {log_sf.exp().item():.4f} "
              f"noise {log_noise.exp().item():.4f}")

with torch.no_grad():
    noise_var = torch.exp(2 * log_noise)
    Kf = rbf(xt, xt, log_ls, log_sf) + noise_var * torch.eye(20, dtype=dt)
    L = torch.linalg.cholesky(Kf)
    alpha = torch.cholesky_solve(yt.unsqueeze(1), L)
    Ks = rbf(xs, xt, log_ls, log_sf)
    mu = (Ks @ alpha).squeeze(1)
    v = torch.linalg.solve_triangular(L, Ks.T, upper=False)
    var = torch.exp(2 * log_sf) - v.pow(2).sum(0)
    print("predictive mean", mu, "\nsin(x*)", torch.sin(xs).squeeze(1))
    print("predictive var", var, "+ noise", var + noise_var)
    print("solve_triangular == cholesky_solve route", err(v.T @ v - Ks @ torch.cholesky_solve(Ks.T, L)))
    print("cholesky_solve upper", err(torch.cholesky_solve(yt.unsqueeze(1), L.T, upper=True) - alpha))
    cov_post = rbf(xs, xs, log_ls, log_sf) - v.T @ v
    post = MultivariateNormal(mu, covariance_matrix=cov_post + 1e-6 * torch.eye(6, dtype=dt))
    torch.manual_seed(7)
    draws = post.rsample((3,))
    print("posterior draws", draws.shape, draws)
    print("posterior log_prob", post.log_prob(draws), post.variance)

# ================================================================ transformed distributions
base1 = Normal(torch.tensor(0.0), torch.tensor(1.0))
logit_normal = TransformedDistribution(base1, ComposeTransform([AffineTransform(0.5, 2.0), SigmoidTransform()]))
u = torch.tensor([0.1, 0.5, 0.9])
print("logit-normal log_prob", logit_normal.log_prob(u))
z = (torch.log(u / (1 - u)) - 0.5) / 2.0
by_hand = base1.log_prob(z) - math.log(2.0) - torch.log(u * (1 - u))
print("== by hand", err(logit_normal.log_prob(u) - by_hand), "support", logit_normal.support)
torch.manual_seed(8)
print("logit-normal samples", logit_normal.sample((4,)), logit_normal.rsample((2, 2)).shape)
t = ComposeTransform([AffineTransform(0.5, 2.0), SigmoidTransform()])
x01 = torch.tensor([-1.0, 0.0, 1.0])
print("transform", t(x01), "inv", err(t.inv(t(x01)) - x01), "log|det J|", t.log_abs_det_jacobian(x01, t(x01)))
print(logit_normal.batch_shape, logit_normal.event_shape, t.domain, t.codomain)

# a learnable diagonal affine flow on a 2-D Gaussian, by maximum likelihood
torch.manual_seed(9)
data = torch.randn(256, 2) * torch.tensor([2.0, 0.5]) + torch.tensor([1.0, -1.0])
loc = torch.zeros(2, requires_grad=True)
log_scale = torch.zeros(2, requires_grad=True)
opt_a = torch.optim.Adam([loc, log_scale], lr=0.1)
base2 = Independent(Normal(torch.zeros(2), torch.ones(2)), 1)
for step in range(40):
    flow = TransformedDistribution(base2, [AffineTransform(loc, log_scale.exp(), event_dim=1)])
    loss = -flow.log_prob(data).mean()
    opt_a.zero_grad()
    loss.backward()
    opt_a.step()
print("affine flow nll", round(loss.item(), 4), "loc", loc.data, "scale", log_scale.exp().data)
print("affine flow", flow.batch_shape, flow.event_shape, flow.log_prob(data[:3]))

# ================================================================ RealNVP on two moons
torch.manual_seed(10)
m = 256
theta = torch.rand(m) * math.pi
upper = torch.stack([torch.cos(theta[: m // 2]), torch.sin(theta[: m // 2])], 1)
lower = torch.stack([1 - torch.cos(theta[m // 2:]), 0.5 - torch.sin(theta[m // 2:])], 1)
moons = torch.cat([upper, lower]) + 0.05 * torch.randn(m, 2)
moons = (moons - moons.mean(0)) / moons.std(0)
print("moons", moons.shape, err(moons.mean(0)), moons.std(0))


class Coupling(nn.Module):
    """x -> z: the masked coordinates pass through and condition a scale and shift of the others."""

    def __init__(self, mask, hidden=32):
        super().__init__()
        self.register_buffer("mask", mask)
        self.s = nn.Sequential(nn.Linear(2, hidden), nn.ReLU(), nn.Linear(hidden, 2), nn.Tanh())
        self.t = nn.Sequential(nn.Linear(2, hidden), nn.ReLU(), nn.Linear(hidden, 2))

    def forward(self, x):
        xm = x * self.mask
        s = self.s(xm) * (1 - self.mask)
        t = self.t(xm) * (1 - self.mask)
        z = xm + (1 - self.mask) * (x * torch.exp(s) + t)
        return z, s.sum(dim=1)

    def inverse(self, z):
        zm = z * self.mask
        s = self.s(zm) * (1 - self.mask)
        t = self.t(zm) * (1 - self.mask)
        return zm + (1 - self.mask) * (z - t) * torch.exp(-s)


class RealNVP(nn.Module):
    def __init__(self, n_layers=4):
        super().__init__()
        masks = [torch.tensor([1.0, 0.0]) if i % 2 == 0 else torch.tensor([0.0, 1.0]) for i in range(n_layers)]
        self.layers = nn.ModuleList(Coupling(mk) for mk in masks)
        self.base = Independent(Normal(torch.zeros(2), torch.ones(2)), 1)

    def forward(self, x):
        log_det = torch.zeros(x.shape[0])
        for layer in self.layers:
            x, ld = layer(x)
            log_det = log_det + ld
        return x, log_det

    def log_prob(self, x):
        z, log_det = self(x)
        return self.base.log_prob(z) + log_det

    def sample(self, n):
        z = self.base.sample((n,))
        for layer in reversed(self.layers):
            z = layer.inverse(z)
        return z


flow = RealNVP()
print("flow parameters", sum(p.numel() for p in flow.parameters()), "buffers", [n for n, _ in flow.named_buffers()])
print("initial log_prob", flow.log_prob(moons[:3]))
opt_f = torch.optim.Adam(flow.parameters(), lr=1e-3)
for step in range(30):
    opt_f.zero_grad()
    loss = -flow.log_prob(moons).mean()
    loss.backward()
    opt_f.step()
    if step % 10 == 0 or step == 29:
        print(f"flow step {step:2d} nll {loss.item():.4f}")
with torch.no_grad():
    z, ld = flow(moons[:4])
    x_rec = z
    for layer in reversed(flow.layers):
        x_rec = layer.inverse(x_rec)
    print("z", z, "log|det J|", ld)
    print("inverse(forward(x)) == x", err(x_rec - moons[:4]))
    torch.manual_seed(11)
    samples = flow.sample(5)
    print("samples", samples, "log_prob", flow.log_prob(samples))
print("first coupling s-net grad norm", round(flow.layers[0].s[0].weight.grad.norm().item(), 3))

# MMD^2 between flow samples and data with an RBF kernel on cdist, as a generator's loss: cdist(a, a) has a
# zero diagonal, and 64 rows take the matrix-product form
flow.zero_grad()
torch.manual_seed(13)
gen = flow.sample(64)


def rbf_kernel(a, b):
    return torch.exp(-torch.cdist(a, b).pow(2) / 0.5)


real = moons[:64]
mmd = rbf_kernel(gen, gen).mean() + rbf_kernel(real, real).mean() - 2 * rbf_kernel(gen, real).mean()
mmd.backward()
g = flow.layers[3].t[2].weight.grad
print("MMD^2", round(mmd.item(), 5), "last t-net grad finite", bool(g.isfinite().all()), "norm", round(g.norm().item(), 4))

# ================================================================ a linear flow through slogdet
torch.manual_seed(12)
mix = torch.tensor([[1.0, 0.8], [-0.3, 0.5]])
obs = torch.randn(300, 2) @ mix.T
W = torch.eye(2, requires_grad=True)
opt_w = torch.optim.Adam([W], lr=0.05)
base3 = Independent(Normal(torch.zeros(2), torch.ones(2)), 1)
for step in range(50):
    sign, logabsdet = torch.linalg.slogdet(W)
    nll = -(base3.log_prob(obs @ W.T) + logabsdet).mean()
    opt_w.zero_grad()
    nll.backward()
    opt_w.step()
    if step % 25 == 0 or step == 49:
        print(f"linear flow step {step:2d} nll {nll.item():.4f} sign {sign.item():.0f}")
Wd = W.detach()
print("learned W", Wd)
print("slogdet", torch.slogdet(Wd), "logdet(W W^T)", torch.logdet(Wd @ Wd.T), "det", torch.linalg.det(Wd))
print("matrix_norm fro / nuc / 2 / -2",
      [round(torch.linalg.matrix_norm(Wd, o).item(), 4) for o in ["fro", "nuc", 2, -2]])
print("cond 2 / fro / 1 / inf", [round(torch.linalg.cond(Wd, o).item(), 4) for o in [None, "fro", 1, float("inf")]])
print("|W^T W - inv(cov)|", round(torch.linalg.matrix_norm(Wd.T @ Wd - torch.linalg.inv(torch.cov(obs.T))).item(), 2))
print("GP kernel cond", round(torch.linalg.cond(Kf).item(), 2),
      "ridge Gram cond", round(torch.linalg.cond(A.T @ A).item(), 4))
print("PCA cov slogdet", torch.linalg.slogdet(cov), "logdet", torch.logdet(cov))
print("norms batched", torch.linalg.matrix_norm(torch.stack([Wd, 2 * Wd]), ord=2),
      torch.linalg.cond(torch.stack([Wd, Wd.T])))
attempt("logdet negative det", lambda: torch.logdet(torch.tensor([[0.0, 1.0], [1.0, 0.0]])))
attempt("cond non-square fro", lambda: torch.linalg.cond(torch.randn(2, 3), "fro"))
attempt("matrix_norm 1-d", lambda: torch.linalg.matrix_norm(torch.randn(3)))
attempt("cholesky not pd", lambda: torch.linalg.cholesky(torch.tensor([[1.0, 2.0], [2.0, 1.0]])))
attempt("MVN bad cov", lambda: MultivariateNormal(torch.zeros(2),
                                                   covariance_matrix=torch.tensor([[1.0, 2.0], [2.0, 1.0]])))
