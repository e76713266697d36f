# A variational autoencoder on tiny binary 4x4 patterns, written with torch.distributions as in the
# Pyro-free VAE examples: Normal posterior with rsample (reparameterisation), kl_divergence against a
# standard Normal prior, a Bernoulli(logits=...) likelihood, Independent to sum over pixels, and the
# distributions' shapes, reprs and basic methods.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Bernoulli, Categorical, Independent, Normal, kl_divergence
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

# ---- distributions tour
n = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5]))
print(n, n.batch_shape, n.event_shape, n.mean, n.stddev, n.variance)
print(n.sample(), n.sample((3,)).shape, n.log_prob(torch.tensor([0.5, 0.5])), n.entropy())
print(n.cdf(torch.tensor([0.0, 1.0])), n.icdf(torch.tensor([0.975, 0.5])))
ind = Independent(n, 1)
print(ind, ind.batch_shape, ind.event_shape, ind.log_prob(torch.zeros(2)))
b = Bernoulli(logits=torch.tensor([-1.0, 0.0, 2.0]))
print(b, b.probs, b.sample(), b.entropy(), b.log_prob(torch.tensor([1.0, 0.0, 1.0])))
c = Categorical(probs=torch.tensor([0.1, 0.2, 0.7]))
print(c.sample((8,)), c.logits, c.entropy())
print(kl_divergence(Normal(0.0, 1.0), Normal(1.0, 2.0)), kl_divergence(b, Bernoulli(probs=torch.full((3,), 0.5))))
mu = torch.tensor([0.3], requires_grad=True)
sample = Normal(mu, 1.0).rsample((4,))
sample.sum().backward()
print(sample.grad_fn.name(), mu.grad, Normal(mu, 1.0).has_rsample, Bernoulli(0.5).has_rsample)
try:
    Normal(torch.tensor([0.0]), torch.tensor([-1.0]))
except ValueError as e:
    print("ValueError:", str(e).split(" found invalid")[0])

# ---- data: 4x4 binary images, each a noisy version of one of 4 prototypes
protos = torch.tensor([
    [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0],
    [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1],
    [0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0],
], dtype=torch.float32)
which = torch.randint(0, 4, (256,))
flip = torch.rand(256, 16) < 0.05
X = (protos[which] + flip.float()) % 2
print(X.shape, X.mean().item(), X[:2])
loader = DataLoader(TensorDataset(X), batch_size=64, shuffle=True)


class VAE(nn.Module):
    def __init__(self, x_dim=16, h_dim=32, z_dim=2):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(x_dim, h_dim), nn.Tanh())
        self.mu = nn.Linear(h_dim, z_dim)
        self.logvar = nn.Linear(h_dim, z_dim)
        self.dec = nn.Sequential(nn.Linear(z_dim, h_dim), nn.Tanh(), nn.Linear(h_dim, x_dim))

    def encode(self, x):
        h = self.enc(x)
        return Normal(self.mu(h), torch.exp(0.5 * self.logvar(h)))

    def decode(self, z):
        return Independent(Bernoulli(logits=self.dec(z)), 1)

    def forward(self, x):
        q = self.encode(x)
        z = q.rsample()
        px = self.decode(z)
        prior = Normal(torch.zeros_like(q.loc), torch.ones_like(q.scale))
        kl = kl_divergence(q, prior).sum(-1)
        rec = px.log_prob(x)
        return -(rec - kl).mean(), rec.mean(), kl.mean()


vae = VAE()
opt = torch.optim.Adam(vae.parameters(), lr=1e-2)
for epoch in range(15):
    tot = 0.0
    for (xb,) in loader:
        loss, rec, kl = vae(xb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * len(xb)
    if epoch % 3 == 2:
        print(f"epoch {epoch + 1:2d} -elbo {tot / len(X):.3f} rec {rec.item():.3f} kl {kl.item():.3f}")

with torch.no_grad():
    q = vae.encode(protos)
    print("posterior means of the prototypes\n", q.loc.round(decimals=2))
    print("posterior stddevs\n", q.scale.round(decimals=3))
    recon = vae.decode(q.loc).base_dist.probs
    print((recon > 0.5).int().view(4, 4, 4)[0], ((recon > 0.5).float() == protos).float().mean())
    torch.manual_seed(3)
    z = Normal(0.0, 1.0).sample((5, 2))
    samples = vae.decode(z).sample()
    print(z, samples.shape, samples.sum(1))
    # a Monte-Carlo estimate of log p(x) with 64 importance samples
    x0 = protos[:1]
    q0 = vae.encode(x0)
    zs = q0.sample((64,))
    log_w = vae.decode(zs).log_prob(x0) + Normal(0.0, 1.0).log_prob(zs).sum(-1) - q0.log_prob(zs).sum(-1)
    print("log p(x) ~", f"{(torch.logsumexp(log_w, 0) - torch.log(torch.tensor(64.0))).item():.3f}")
