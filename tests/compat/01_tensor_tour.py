# A tour of tensors, in the order of the "Tensors" and "Broadcasting semantics" pages of the docs:
# creation, attributes, indexing and slicing, views that share memory, broadcasting, dtype promotion,
# reductions, joining, the numpy bridge and printing options.
import numpy as np
import torch

torch.manual_seed(0)

# ---- creation
data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
x_np = torch.from_numpy(np.array(data))
x_ones = torch.ones_like(x_data)
x_rand = torch.rand_like(x_data, dtype=torch.float)
print(x_data, x_np, x_ones, x_rand, sep="\n")
print(torch.zeros(2, 3), torch.full((2, 2), 7.5), torch.eye(3, dtype=torch.int32), sep="\n")
print(torch.arange(5), torch.arange(1, 2.5, 0.5), torch.linspace(-1, 1, steps=5), sep="\n")
print(torch.empty(0, 3).shape, torch.randn(2, 3).dtype, torch.randint(0, 10, (2, 4)))

# ---- attributes
t = torch.rand(3, 4)
print(f"Shape of tensor: {t.shape}")
print(f"Datatype of tensor: {t.dtype}")
print(f"Device tensor is stored on: {t.device}")
print(t.ndim, t.numel(), t.size(1), t.stride(), t.is_contiguous(), t.requires_grad, t.is_leaf)

# ---- indexing and slicing
t = torch.arange(24).reshape(2, 3, 4)
print(t[0], t[:, 1], t[..., -1], t[1, :, ::2], sep="\n")
print(t[t % 5 == 0])
print(t[[0, 1], [2, 0]])
print(t[:, [0, 2]][..., 1:3])
print(t[None, 1, None].shape, t[:, None].shape)
m = torch.zeros(3, 4)
m[:, 1] = 1
m[m.sum(1) > 0, 2:] = torch.tensor([5.0, 6.0])
m[0] += 0.5
print(m)
idx = torch.tensor([2, 0])
print(torch.gather(t[0], 1, torch.tensor([[0], [3], [1]])), t[0].index_select(1, idx), sep="\n")

# ---- views share memory
base = torch.arange(12.0)
v = base.view(3, 4)
v[1, 1] = 100.0
print(base[5].item(), v.data_ptr() == base.data_ptr(), v.is_contiguous())
tt = v.t()
print(tt.shape, tt.stride(), tt.is_contiguous(), tt.contiguous().stride())
print(v.unsqueeze(0).shape, v.permute(1, 0).shape, v[:, 1:3].stride(), v.flatten().shape)
try:
    tt.view(12)
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])
print(tt.reshape(12))
print(v.narrow(1, 1, 2), v.unbind(0)[2], v.chunk(2, dim=1)[1], sep="\n")
e = torch.tensor([1.0, 2.0, 3.0]).expand(2, 3)
print(e, e.stride())

# ---- broadcasting
a = torch.arange(3.0).reshape(3, 1)
b = torch.arange(4.0)
print(a + b)
print((a * b).shape, torch.broadcast_shapes((5, 1, 4), (3, 1)))
try:
    torch.ones(2, 3) + torch.ones(4)
except RuntimeError as e:
    print("RuntimeError:", e)

# ---- dtype promotion
i = torch.tensor([1, 2, 3])
f = torch.tensor([0.5, 1.5, 2.5])
print((i + f).dtype, (i * 2).dtype, (i * 2.5).dtype, (i / 2).dtype, (i // 2).dtype)
print((torch.tensor([1], dtype=torch.uint8) + 1000).dtype, torch.tensor(2.0, dtype=torch.float64) * f)
print(torch.promote_types(torch.int32, torch.float16), torch.result_type(i, 1.0))
print(i > 1, (i > 1).dtype, (i > 1).sum(), torch.tensor([True, False]) + 1)
print(i.to(torch.float16), f.double(), f.int(), f.long().dtype, i.bool())
print(torch.tensor([1.5, -2.5, 3.7]).round(), torch.tensor(7) // torch.tensor(-2), torch.tensor(-7) % 3)

# ---- reductions
r = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
print(r.sum(), r.sum(dim=0), r.mean(1, keepdim=True), r.max(), r.argmax(), sep="\n")
vals, inds = r.max(dim=1)
print(vals, inds, r.min(0).indices, r.std(), r.var(dim=1, unbiased=False))
print(r.prod(1), r.cumsum(1), r.norm(), r.logsumexp(1), torch.median(r), r.sort(dim=1, descending=True))
print(r.topk(2, dim=1), r.all(), (r > 2).any(1), r.count_nonzero())

# ---- joining
print(torch.cat([r, r], dim=1).shape, torch.stack([r, r]).shape, torch.hstack([r, r]).shape)
print(torch.vstack([r, r]), torch.where(r > 3, r, torch.zeros_like(r)), sep="\n")

# ---- arithmetic and in-place
y1 = r @ r.T
y2 = r.matmul(r.T)
y3 = torch.rand_like(y1)
torch.matmul(r, r.T, out=y3)
z1 = r * r
print(y1, y2.equal(y3), z1, r.mul(r).equal(z1), sep="\n")
r.add_(5)
print(r, r.clamp_(max=9.0), sep="\n")

# ---- numpy bridge
n = np.ones(5)
tn = torch.from_numpy(n)
np.add(n, 1, out=n)
print(tn, n, torch.ones(3).numpy(), tn.tolist(), sep="\n")

# ---- printing
big = torch.randn(4, 4) * 1000
print(big)
print(torch.tensor([1e-8, 1.0, 1e8]))
print(torch.tensor([[1, -20, 300], [4000, 5, 6]]))
print(torch.arange(2000.0))
torch.set_printoptions(precision=2)
print(torch.randn(2, 3))
torch.set_printoptions(profile="default")
print(torch.tensor([float("nan"), float("inf"), -float("inf"), 0.1]))
print(torch.tensor(3.14159), torch.tensor([]), torch.zeros(2, 0), torch.tensor([1, 2], dtype=torch.int16))
print(torch.tensor([1.0, 2.0], dtype=torch.float64), torch.tensor([0.1, 0.2], dtype=torch.bfloat16))
print(torch.complex(torch.tensor([1.0, 2.0]), torch.tensor([-0.5, 3.0])))
print(repr(torch.Size([2, 3])), torch.float32, torch.device("cpu"), torch.tensor([1.0]).dtype.is_floating_point)
