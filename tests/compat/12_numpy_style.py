# Code ported from numpy to torch by changing "np." to "torch.": axis= / keepdims= keywords, .T,
# np arrays and numpy scalars mixed with tensors, and three classic algorithms written that way --
# standardisation + PCA by SVD, k-means, and logistic regression with hand-derived gradients.
import numpy as np
import torch

torch.manual_seed(0)

X = torch.randn(60, 4) * torch.tensor([3.0, 1.0, 0.5, 0.1]) + torch.tensor([1.0, -2.0, 0.0, 5.0])
print(X.shape, X.ndim, X.T.shape, X.size(0), len(X))
print(X.sum(axis=0), X.mean(axis=0, keepdims=True).shape)
print(X.max(axis=1).values[:4], X.argmax(axis=0), X.std(axis=0), X.var(axis=0, keepdims=True))
print(torch.sum(X, axis=1, keepdims=True).shape, torch.mean(X, axis=(0, 1)), X.amin(axis=0))
print(torch.cat([X[:2], X[-2:]], axis=0).shape, torch.concatenate([X[:1], X[:1]], axis=1).shape)
print(X.clip(-1, 1)[0], X[:3].argsort(axis=1), X[:2].cumsum(axis=1))
print((X[:, 3] > 4.0).all(), (X > 6).any(axis=1).sum(), X[:5].prod(axis=0).shape)

# numpy values meeting tensors
a = np.arange(6, dtype=np.float32).reshape(2, 3)
t = torch.from_numpy(a)
print(t * np.float32(2.0), (t * np.float64(2.0)).dtype, (t + np.int64(1)).dtype, torch.tensor(np.float64(3.5)))
print(torch.as_tensor(a) is not t, torch.as_tensor(a).data_ptr() == t.data_ptr(), np.asarray(t).dtype)
print(torch.tensor(a.T).is_contiguous(), torch.from_numpy(a.T.copy()).stride(), torch.from_numpy(a.T).stride())
print(t.numpy().sum(axis=0), t.numpy().dtype, torch.tensor([np.int32(1), np.int32(2)]).dtype)
print(float(t.sum()), int(t.max()), t.mean().item(), t.tolist(), t[0, 1].item().__class__.__name__)
print(np.array(torch.arange(3)), np.exp(torch.tensor([0.0, 1.0])))

# standardise, then PCA through the SVD
mu = X.mean(axis=0, keepdims=True)
sd = X.std(axis=0, keepdims=True)
Z = (X - mu) / sd
print(Z.mean(axis=0).abs().max() < 1e-5, torch.allclose(Z.std(axis=0), torch.ones(4)))
U, S, Vh = torch.linalg.svd(Z, full_matrices=False)
explained = S**2 / (S**2).sum()
print(U.shape, S.shape, Vh.shape, [f"{e:.3f}" for e in explained.tolist()])
proj = Z @ Vh.T[:, :2]
print(proj.shape, f"{proj.var(axis=0)[0].item():.3f}", torch.allclose(proj.var(axis=0), S[:2] ** 2 / 59, rtol=1e-4))
cov = Z.T @ Z / (len(Z) - 1)
evals = torch.linalg.eigvalsh(cov)
print([f"{v:.4f}" for v in evals.flip(0).tolist()])

# k-means with broadcasting
centers_true = torch.tensor([[0.0, 0.0], [5.0, 5.0], [0.0, 6.0]])
pts = torch.cat([c + torch.randn(30, 2) for c in centers_true], axis=0)
C = pts[torch.tensor([0, 30, 60])].clone()
for it in range(10):
    d2 = ((pts[:, None, :] - C[None, :, :]) ** 2).sum(axis=-1)
    assign = d2.argmin(axis=1)
    newC = torch.stack([pts[assign == k].mean(axis=0) for k in range(3)])
    shift = (newC - C).abs().max()
    C = newC
    if shift < 1e-6:
        break
print(f"k-means stopped after {it + 1} iterations")
print(C.round(decimals=3), torch.bincount(assign), d2.min(axis=1).values.sum().round(decimals=2))

# logistic regression by hand-derived gradients, numpy style
y = (X[:, 0] + 0.5 * X[:, 1] > -0.5).float()
Xb = torch.cat([Z, torch.ones(len(Z), 1)], axis=1)
w = torch.zeros(Xb.shape[1])


def sigmoid(v):
    return 1.0 / (1.0 + torch.exp(-v))


for epoch in range(200):
    p = sigmoid(Xb @ w)
    grad = Xb.T @ (p - y) / len(y)
    w -= 0.5 * grad
    if epoch % 50 == 0:
        loss = -(y * torch.log(p + 1e-9) + (1 - y) * torch.log(1 - p + 1e-9)).mean()
        print(f"epoch {epoch:3d} loss {loss:.4f} acc {((p > 0.5) == (y > 0.5)).float().mean():.3f}")
print("w =", np.round(w.numpy(), 2), w.dtype)
print(np.allclose(sigmoid(Xb @ w).numpy(), torch.sigmoid(Xb @ w).numpy(), atol=1e-6))
