# Indexing and the index-based ops as the "Tensor Indexing API" notes and the reference pages of
# index_select / index_add_ / index_copy_ / index_fill_ / index_put_ / index_reduce / gather / scatter /
# scatter_reduce / masked_* / take / put_ / nonzero describe them: basic slicing (steps, negative indices,
# None, Ellipsis), advanced indexing with int / bool tensors and lists (mixed with slices, separated advanced
# indices moving their dims to the front), setitem with broadcasting and repeated indices, every reduce
# (include_self), the views' strides, gradients through these ops (x.grad), and the errors for out-of-range
# indices, wrong index dtypes and shape mismatches.
import torch

torch.manual_seed(0)


def err(fn):
    try:
        out = fn()
        print("no error:", " ".join(str(out).split()))  # (on one line)
    except Exception as e:  # (PyTorch appends a C++ backtrace to a few messages: the text before it)
        print(type(e).__name__, str(e).split("\nException raised from")[0])


def info(t):
    return tuple(t.shape), t.stride(), t.is_contiguous(), t.storage_offset()


# ---- basic slicing: views, steps, negative indices, None, Ellipsis
x = torch.arange(24).reshape(2, 3, 4)
print(x[1], x[-1, -2], x[0, :, 1], x[..., 2], x[:, ::2, 1::2], sep="\n")
print(x[1, 1:, -3:-1], x[:, -1:, ::3], x[0, 5:], x[..., -10:2].shape)
print(x[None].shape, x[:, None, ..., None].shape, x[..., None, 0].shape, x[None, ..., None, :].shape)
print(x[1, ...].shape, x[..., 1, 2], x[...].shape, x[()].shape, x[1][2][3], x[1, 2, 3].dim())
print(info(x[1]), info(x[:, 1]), info(x[..., ::2]), info(x[:, 1:, 1::3]), info(x[None, :, 2]))
print(info(x[0, 1]), info(x[:, :, 0:0]), info(x[1:1]), info(x[-1:, -1:, -1:]))
s = torch.arange(10.0)
print(s[2:8:3], s[-3:], s[:-7], s[8:2], s[100:], s[-100:2], s[::4].stride())
v = s[1:9:2]
v[1] = -1.0
print(s, v.storage_offset(), v._base is s if hasattr(v, "_base") else None)
err(lambda: s[::-1])
err(lambda: x[2])
err(lambda: x[0, -4])
err(lambda: x[0, 0, 0, 0])
err(lambda: s[1.5])
err(lambda: x[..., ...])

# ---- advanced indexing: integer tensors and lists
a = torch.arange(20.0).reshape(4, 5)
print(a[[0, 2]], a[torch.tensor([3, -1, 0])], a[[0, 1], [1, 2]], a[[[0], [3]], [1, 4]])
print(a[torch.tensor([[0, 1], [2, 3]])].shape, a[:, [4, 0]], a[1:3, [0, 0, 2]], a[[1, 2], 1:])
print(a[torch.tensor(2)], a[torch.tensor(2)].shape, a[torch.tensor([2])].shape, a[[2]].shape)
print(a[[0, 1]].is_contiguous(), a[:, [1, 2]].stride(), a[[3, 0], ::2].stride())
y = torch.arange(120).reshape(2, 3, 4, 5)
print(y[:, [0, 2], :, [1, 3]].shape, y[:, [0, 2], [1, 3]].shape, y[0, :, [1, 2], 0].shape)
print(y[[1, 0], :, [2, 3]].shape, y[..., [0, 4]].shape, y[[0], ..., [1]].shape, y[:, [[0, 1], [2, 0]], 1:3].shape)
print(y[:, [0, 2], :, [1, 3]], y[0, :, [1, 2], 0])
print(y[None, [1], 0, [1, 2]].shape, y[:, None, [1, 2]].shape, y[1, [0, 1], None, [2, 3]].shape)
print(y[torch.tensor([0, 1]).view(2, 1), torch.tensor([0, 1, 2]), 0, 0])
print(a[torch.tensor([], dtype=torch.long)].shape, a[[]].shape, a[:, torch.tensor([], dtype=torch.long)].shape)
print(a[torch.tensor([0, 1], dtype=torch.int32)], a[torch.tensor([1, 0, 1, 1], dtype=torch.bool), 2])
err(lambda: a[torch.tensor([1, 3], dtype=torch.int16), 2])

# ---- boolean masks
m = a > 12
print(a[m], a[m].shape, a[a % 3 == 0], a[torch.tensor([True, False, True, False])])
print(a[:, torch.tensor([True, False, False, True, True])], a[[True, False, True, True]].shape)
print(a[torch.tensor(True)].shape, a[torch.tensor(False)].shape, a[True].shape, a[False].shape, a[None, True].shape)
print(a[torch.zeros(4, 5, dtype=torch.bool)], y[y[..., 0] > 60].shape, y[:, torch.tensor([True, False, True]), 1])
print(y[0, torch.tensor([[True, False, True, False]] * 3)])
err(lambda: a[m.tolist()].shape)

# ---- errors for advanced indices
err(lambda: a[[0, 4]])
err(lambda: a[torch.tensor([0, -5])])
err(lambda: a[:, torch.tensor([5])])
err(lambda: a[torch.tensor([0.0, 1.0])])
err(lambda: a[[0, 1], [0, 1, 2]])
err(lambda: a[torch.tensor([True, False])])
err(lambda: a[torch.ones(4, 4, dtype=torch.bool)])
err(lambda: a[[0.5]])
err(lambda: a["a"])

# ---- setitem: scalars, tensors, broadcasting, repeated indices
b = torch.zeros(3, 4)
b[0] = 1
b[1, 1:3] = torch.tensor([2.0, 3.0])
b[:, -1] = torch.tensor([7.0, 8.0, 9.0])
b[2] = torch.tensor([4.0])
b[..., 0] += 10
print(b)
b[b > 5] = -1.0
b[[0, 2], [1, 1]] = torch.tensor([5.0, 6.0])
b[torch.tensor([1, 1, 1]), torch.tensor([0, 0, 0])] = torch.tensor([1.0, 2.0, 3.0])
print(b)
b[:, [0, 3]] = torch.tensor([[100.0], [200.0], [300.0]])
b[1:, None, 2] = 42
b[torch.tensor([True, False, True])] = torch.arange(4.0)
print(b)
c = torch.zeros(5, dtype=torch.long)
c[[0, 0, 2]] += 1
c[c == 0] = torch.tensor(9)
c[1:3] = 3.7
print(c, c.dtype)
d = torch.zeros(2, 3, dtype=torch.float64)
d[0] = torch.tensor([1, 2, 3])
d[1] = torch.tensor(True)
d[:, 0] = torch.tensor([0.5, 1.5], dtype=torch.float16)
print(d)
e = torch.zeros(3, 2, dtype=torch.bool)
e[1] = 1
e[[0, 2], 1] = True
print(e, e.sum())
cx = torch.zeros(2, dtype=torch.complex64)
cx[0] = 1 + 2j
cx[1] = 3
print(cx)
err(lambda: b.__setitem__((slice(None), 0), torch.ones(2)))
err(lambda: b.__setitem__(0, torch.ones(2, 4)))
err(lambda: b.__setitem__(5, 1.0))
err(lambda: b.__setitem__(torch.tensor([0, 9]), 1.0))
err(lambda: c.__setitem__(0, torch.tensor([1.5, 2.5])))
err(lambda: torch.zeros(3, dtype=torch.long).__setitem__(0, 1 + 2j))
err(lambda: torch.ones(2, 2).expand(3, 2, 2).__setitem__(0, 5.0))

# ---- index_select / index_add_ / index_copy_ / index_fill_
a = torch.arange(12.0).reshape(3, 4)
print(torch.index_select(a, 1, torch.tensor([3, 3, 0])), a.index_select(-2, torch.tensor([2])), a.index_select(0, torch.tensor(1)))
err(lambda: torch.index_select(torch.tensor(5.0), 0, torch.tensor([0, 0])))
print(torch.index_select(torch.tensor(5.0), 0, torch.tensor([0])), a.index_select(1, torch.tensor([], dtype=torch.long)).shape)
out = torch.empty(0)
torch.index_select(a, 0, torch.tensor([0, 2]), out=out)
print(out, a.index_select(0, torch.tensor([1, 0], dtype=torch.int32)))
err(lambda: a.index_select(0, torch.tensor([3])))
err(lambda: a.index_select(0, torch.tensor([-1])))
err(lambda: a.index_select(0, torch.tensor([[0, 1]])))
err(lambda: a.index_select(0, torch.tensor([0.0])))
err(lambda: a.index_select(2, torch.tensor([0])))

t = torch.ones(5, 3)
t.index_add_(0, torch.tensor([0, 4, 2, 0]), torch.arange(12.0).reshape(4, 3))
print(t, torch.zeros(2, 3).index_add(1, torch.tensor([2, 2]), torch.ones(2, 2), alpha=-0.5))
print(torch.zeros(4, dtype=torch.long).index_add(0, torch.tensor([1, 1, 3]), torch.tensor([5, 6, 7]), alpha=2))
err(lambda: torch.zeros(5, 3).index_add_(0, torch.tensor([0, 1]), torch.ones(3, 3)))
err(lambda: torch.zeros(5, 3).index_add_(0, torch.tensor([0, 7]), torch.ones(2, 3)))
err(lambda: torch.zeros(5, 3).index_add_(0, torch.tensor([0, 1]), torch.ones(2, 3, dtype=torch.float64)))
err(lambda: torch.zeros(5, 3).index_add_(0, torch.tensor([0.0, 1.0]), torch.ones(2, 3)))
print(torch.zeros(3, 4).index_copy_(1, torch.tensor([3, 0]), torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])))
print(torch.zeros(3).index_copy(0, torch.tensor([2]), torch.tensor([9.0])), torch.zeros(()).index_copy(0, torch.tensor([0]), torch.tensor(4.0)))
err(lambda: torch.zeros(3, 4).index_copy_(0, torch.tensor([0]), torch.ones(2, 4)))
err(lambda: torch.zeros(3, 4).index_copy_(0, torch.tensor([0, 1]), torch.ones(2, 5)))
err(lambda: torch.zeros(3, 4).index_copy_(0, torch.tensor([0, 1], dtype=torch.int32), torch.ones(2, 4)))
print(a.index_fill(0, torch.tensor([0, 2]), float("nan")), a.index_fill(-1, torch.tensor([1, 1]), torch.tensor(-2)))
print(torch.arange(6).view(2, 3).index_fill(1, torch.tensor([0]), 7.9), torch.zeros(2, 2, dtype=torch.bool).index_fill(0, torch.tensor([1]), True))
err(lambda: a.index_fill(0, torch.tensor([0]), torch.tensor([1.0, 2.0])))
err(lambda: a.index_fill(0, torch.tensor([5]), 1.0))

# ---- index_put_ (accumulate=True/False)
p = torch.zeros(3, 3)
p.index_put_((torch.tensor([0, 1, 1]), torch.tensor([0, 2, 2])), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
print(p)
p.index_put_((torch.tensor([2]),), torch.tensor(5.0))
p.index_put_([torch.tensor([0, 2]), torch.tensor([1, 1])], torch.tensor([8.0, 9.0]))
p.index_put_((torch.tensor([[True, False, False], [False, True, False], [False, False, False]]),), torch.tensor(-1.0), accumulate=True)
print(p, torch.index_put(p, (torch.tensor([0]),), torch.tensor([1.0, 1.0, 1.0]), accumulate=True)[0])
print(torch.zeros(2, 3, dtype=torch.long).index_put_((torch.tensor([1, 1, 1]),), torch.tensor([1, 2, 3]), accumulate=True))
err(lambda: p.index_put_((torch.tensor([3]),), torch.tensor(1.0)))
err(lambda: p.index_put_((torch.tensor([0]),), torch.tensor([1.0, 2.0])))
err(lambda: p.index_put_((torch.tensor([0.0]),), torch.tensor(1.0)))
err(lambda: p.index_put_((torch.tensor([0]),), torch.tensor(1.0, dtype=torch.float64)))
err(lambda: p.index_put_((torch.tensor([0]), torch.tensor([0]), torch.tensor([0])), torch.tensor(1.0)))

# ---- index_reduce
src = torch.tensor([[2.0, 3.0], [4.0, -1.0], [0.5, 6.0], [5.0, 5.0]])
idx = torch.tensor([0, 2, 0, 2])
base = torch.tensor([[1.0, 10.0], [7.0, 7.0], [3.0, -3.0]])
for reduce in ["prod", "mean", "amax", "amin"]:
    print(reduce, base.index_reduce(0, idx, src, reduce).tolist(), base.index_reduce(0, idx, src, reduce, include_self=False).tolist())
print(torch.ones(2, 3).index_reduce_(1, torch.tensor([2, 0, 2]), torch.tensor([[2.0, 3.0, 4.0], [1.0, 5.0, 0.5]]), "mean"))
print(torch.tensor([1, 4, 9]).index_reduce(0, torch.tensor([0, 0, 1]), torch.tensor([2, 3, 4]), "mean"))
print(torch.tensor([1, 4, 9]).index_reduce(0, torch.tensor([0, 0, 1]), torch.tensor([2, 3, 4]), "mean", include_self=False))
err(lambda: base.index_reduce(0, idx, src, "sum"))
err(lambda: torch.zeros(3, dtype=torch.bool).index_reduce(0, torch.tensor([0]), torch.ones(1, dtype=torch.bool), "amax"))
err(lambda: torch.zeros(3, 2, dtype=torch.complex64).index_reduce(0, torch.tensor([0]), torch.ones(1, 2, dtype=torch.complex64), "amin"))
err(lambda: base.index_reduce(0, torch.tensor([0, 3, 0, 0]), src, "prod"))

# ---- gather / scatter / scatter_add / scatter_reduce
g = torch.arange(12.0).reshape(3, 4)
print(torch.gather(g, 1, torch.tensor([[3, 0], [1, 1], [2, 0]])), g.gather(0, torch.tensor([[2, 0, 1, 0]])), g.gather(-1, torch.tensor([[0], [3]])))
print(torch.gather(g, 1, torch.empty(3, 0, dtype=torch.long)).shape, torch.gather(torch.tensor(3.0), 0, torch.tensor(0)))
out = torch.empty(2, 2)
torch.gather(g, 1, torch.tensor([[1, 2], [0, 0]]), out=out)
print(out, g.gather(1, torch.tensor([[1], [2], [3]]), sparse_grad=False).flatten())
err(lambda: g.gather(1, torch.tensor([[4]])))
err(lambda: g.gather(1, torch.tensor([[-1]])))
err(lambda: g.gather(1, torch.tensor([[0]], dtype=torch.int32)))
err(lambda: g.gather(1, torch.tensor([0, 1])))
err(lambda: g.gather(1, torch.zeros(4, 1, dtype=torch.long)))
err(lambda: g.gather(2, torch.zeros(1, 1, dtype=torch.long)))

z = torch.zeros(3, 5)
print(z.scatter(1, torch.tensor([[4, 0], [1, 1], [2, 3]]), torch.arange(1.0, 13.0).reshape(3, 4)))
print(z.scatter(0, torch.tensor([[2, 1, 0, 0, 2]]), -3.5), torch.zeros(4, dtype=torch.long).scatter(0, torch.tensor([1, 3]), 7))
print(torch.zeros(2, 4).scatter_(1, torch.tensor([[1, 1], [3, 0]]), torch.tensor([[2.0, 3.0], [4.0, 5.0]]), reduce="add"))
print(torch.ones(2, 4).scatter_(1, torch.tensor([[1, 1], [3, 0]]), torch.tensor([[2.0, 3.0], [4.0, 5.0]]), reduce="multiply"))
print(torch.zeros(3, 2).scatter_add_(0, torch.tensor([[0, 2], [0, 0]]), torch.tensor([[1.0, 2.0], [3.0, 4.0]])),
      torch.scatter_add(torch.zeros(4, dtype=torch.int32), 0, torch.tensor([3, 3, 0]), torch.tensor([1, 2, 3], dtype=torch.int32)))
sr_src = torch.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, -7.0, 0.5]])
sr_idx = torch.tensor([[0, 1, 0, 1], [2, 2, 0, 1]])
for reduce in ["sum", "prod", "mean", "amax", "amin"]:
    full = torch.full((3, 4), 2.0)
    print(reduce, full.scatter_reduce(1, sr_idx, sr_src, reduce).tolist()[:2],
          torch.scatter_reduce(full, 0, sr_idx, sr_src, reduce=reduce, include_self=False).tolist())
print(torch.tensor([10, 20, 30]).scatter_reduce(0, torch.tensor([0, 0, 1, 1]), torch.tensor([1, 2, 4, 7]), "mean"))
print(torch.tensor([10, 20, 30]).scatter_reduce(0, torch.tensor([0, 0, 1, 1]), torch.tensor([1, 2, 4, 7]), "mean", include_self=False))
print(torch.zeros(3).scatter_reduce_(0, torch.tensor([2, 2]), torch.tensor([float("nan"), 1.0]), "amax"))
print(torch.full((3,), 2.0).scatter_reduce(0, torch.tensor([0, 0, 1]), torch.tensor([1.0, 5.0, 3.0]), "max"),
      torch.tensor([4, 2, 1]).scatter_reduce(0, torch.tensor([0, 0, 1]), torch.tensor([1, 5, 3]), "min", include_self=False))
err(lambda: torch.zeros(3).scatter_reduce(0, torch.tensor([0]), torch.ones(1), "add"))
err(lambda: torch.zeros(3, dtype=torch.bool).scatter_reduce(0, torch.tensor([0]), torch.ones(1, dtype=torch.bool), "mean"))
err(lambda: torch.zeros(3, dtype=torch.complex64).scatter_reduce(0, torch.tensor([0]), torch.ones(1, dtype=torch.complex64), "amax"))
err(lambda: torch.zeros(3).scatter(0, torch.tensor([3]), torch.ones(1)))
err(lambda: torch.zeros(3).scatter(0, torch.tensor([0, 1]), torch.ones(1)))
err(lambda: torch.zeros(3).scatter(0, torch.tensor([0]), torch.ones(1, dtype=torch.float64)))
err(lambda: torch.zeros(3).scatter(0, torch.tensor([0.0]), torch.ones(1)))
err(lambda: torch.zeros(3).scatter_add(0, torch.tensor([[0]]), torch.ones(1, 1)))
err(lambda: torch.zeros(3).scatter_(0, torch.tensor([0]), torch.ones(1), reduce="mean"))

# ---- masked_fill / masked_select / masked_scatter
q = torch.arange(6.0).reshape(2, 3)
mask = torch.tensor([[True, False, True], [False, False, True]])
print(q.masked_fill(mask, -1), q.masked_fill(torch.tensor([False, True, False]), float("inf")), q.masked_fill(torch.tensor(True), torch.tensor(0.5)))
print(torch.masked_select(q, mask), q.masked_select(torch.tensor([True, False, True])), torch.masked_select(q, torch.tensor(False)).shape)
print(q.masked_scatter(mask, torch.tensor([10.0, 20.0, 30.0, 40.0])), q.masked_scatter(torch.tensor([[True], [False]]), torch.arange(100.0, 106.0).view(3, 2)))
print(torch.arange(4).masked_fill(torch.tensor([True, False, True, False]), 2.7), torch.zeros(2, dtype=torch.bool).masked_fill(torch.tensor([True, False]), 1))
err(lambda: q.masked_fill(mask.int(), 0.0))
err(lambda: q.masked_fill(mask, torch.tensor([1.0, 2.0])))
err(lambda: q.masked_fill(torch.ones(3, 3, dtype=torch.bool), 0.0))
err(lambda: q.masked_select(mask.float()))
err(lambda: q.masked_scatter(mask, torch.tensor([1.0])))
err(lambda: q.masked_fill_(torch.ones(2, 2, 3, dtype=torch.bool), 0.0))
err(lambda: torch.arange(3).masked_fill(torch.tensor([True, False, False]), 1.5j))

# ---- take / take_along_dim / put_
h = torch.arange(12).reshape(3, 4) * 10
print(torch.take(h, torch.tensor([[0, 11], [-12, 5]])), h.take(torch.tensor(7)), torch.take(h, torch.tensor([], dtype=torch.long)).shape)
print(torch.take_along_dim(h, torch.tensor([[3], [0], [1]]), 1), torch.take_along_dim(h, torch.tensor([[2, 0, 1, 0]]), dim=0))
print(torch.take_along_dim(h, torch.tensor([[0, 1]]), dim=1), torch.take_along_dim(h, torch.tensor([11, 0, 3])))
print(torch.take_along_dim(h.float(), h.float().argsort(dim=1, descending=True), dim=-1)[0], h.take_along_dim(torch.tensor([[1]]), 0))
err(lambda: torch.take(h, torch.tensor([12])))
err(lambda: torch.take(h, torch.tensor([-13])))
err(lambda: torch.take(h, torch.tensor([0.0])))
err(lambda: torch.take_along_dim(h, torch.tensor([[0]], dtype=torch.int32), dim=1))
err(lambda: torch.take_along_dim(h, torch.tensor([[0, 1], [1, 0]]), dim=1))
err(lambda: torch.take_along_dim(h, torch.tensor([0]), dim=1))
w = torch.zeros(2, 3)
w.put_(torch.tensor([5, 0, -1]), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
w.put_(torch.tensor([[1], [2]]), torch.tensor([[7.0], [8.0]]))
print(w, torch.zeros(4, dtype=torch.long).put(torch.tensor([0, 0]), torch.tensor([2, 3]), accumulate=True))
err(lambda: w.put_(torch.tensor([6]), torch.tensor([1.0])))
err(lambda: w.put_(torch.tensor([0, 1]), torch.tensor([1.0])))
err(lambda: w.put_(torch.tensor([0]), torch.tensor([1], dtype=torch.long)))

# ---- nonzero / argwhere / where(cond)
n = torch.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0]])
print(torch.nonzero(n), n.nonzero().dtype, torch.nonzero(n, as_tuple=True), torch.argwhere(n))
print(torch.nonzero(torch.tensor(5)), torch.nonzero(torch.tensor(0)).shape, torch.nonzero(torch.tensor(5), as_tuple=True))
print(torch.nonzero(n).stride(), torch.nonzero(torch.zeros(2, 3)).stride(), torch.nonzero(torch.tensor(1)).stride())
print(torch.nonzero(torch.zeros(2, 0)).shape, torch.nonzero(torch.tensor([0, 0])).shape, torch.tensor([True, False, True]).nonzero(as_tuple=True))
print(torch.where(n), torch.where(torch.tensor([0, 3, 0, 1]))[0], torch.where(torch.tensor(0.5)))
print(n[torch.where(n > 0)], n[n.nonzero(as_tuple=True)], torch.tensor([float("nan"), 0.0, -0.0]).nonzero().flatten())

# ---- narrow / select / unbind / split / chunk / tensor_split / unflatten / movedim
r = torch.arange(24.0).reshape(2, 3, 4)
print(info(r.narrow(2, 1, 2)), info(r.narrow(-1, -3, 3)), info(torch.narrow(r, 0, 1, 0)), info(r.narrow(1, torch.tensor(2), 1)))
print(info(r.select(1, 2)), info(torch.select(r, -1, -1)), info(r.select(0, 1)), r.select(2, 0))
print([info(u) for u in r.unbind(2)][:2], [u.shape for u in torch.unbind(r, dim=-2)], len(torch.unbind(torch.zeros(0, 3))))
print([info(u) for u in r.split(1, dim=1)], [u.shape for u in r.split([1, 3], -1)], [u.shape for u in r.split(3, 2)])
print([info(u) for u in r.chunk(3, dim=2)], [u.shape for u in torch.chunk(r, 5, 1)], [u.shape for u in torch.zeros(0).chunk(2)])
print([info(u) for u in r.tensor_split(3, dim=2)], [u.shape for u in r.tensor_split([1, 1, 9], dim=2)], [u.shape for u in torch.tensor_split(r, (0,), 1)])
print([u.shape for u in r.tensor_split(torch.tensor([2]), 2)], [u.shape for u in r.tensor_split(4, 1)])
print(info(r.unflatten(2, (2, 2))), r.unflatten(-1, (-1, 2)).shape, torch.unflatten(r, 1, (1, 3, 1)).shape, r.unflatten(0, torch.Size([1, 2])).shape)
print(info(r.movedim(0, -1)), info(torch.movedim(r, (0, 1), (2, 0))), r.moveaxis(-1, 0).shape, torch.movedim(r, [2, 0], [0, 1]).shape, r.movedim(1, 1).shape)
err(lambda: r.narrow(2, 3, 2))
err(lambda: r.narrow(3, 0, 1))
err(lambda: r.narrow(0, 0, -1))
err(lambda: r.select(1, 3))
err(lambda: r.select(3, 0))
err(lambda: r.unbind(3))
err(lambda: r.split([1, 1], 1))
err(lambda: r.split(0, 1))
err(lambda: r.chunk(0))
err(lambda: r.tensor_split(0, dim=1))
err(lambda: r.tensor_split(torch.tensor([1.0]), 1))
err(lambda: r.unflatten(2, (3, 2)))
err(lambda: r.unflatten(2, (-1, -1)))
err(lambda: r.movedim((0, 1), (1, 1)))
err(lambda: r.movedim((0, 1), (1,)))
err(lambda: r.movedim(3, 0))

# ---- gradients through indexing
x = torch.arange(12.0).reshape(3, 4).requires_grad_()
(x[1:, ::2] * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
print(x.grad)
x.grad = None
x[[0, 0, 2], [1, 1, 3]].sum().backward()
print(x.grad)
x.grad = None
(x[x > 5] ** 2).sum().backward()
print(x.grad)
x.grad = None
x[..., None, 1].sum().backward()
print(x.grad)
x.grad = None
(x.index_select(1, torch.tensor([0, 0, 3])) * torch.arange(9.0).view(3, 3)).sum().backward()
print(x.grad)
x.grad = None
(x.gather(1, torch.tensor([[0, 0], [1, 3], [2, 2]])) * torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
print(x.grad)
x.grad = None
torch.take(x, torch.tensor([0, 0, 11])).sum().backward()
print(x.grad)
x.grad = None
torch.take_along_dim(x, torch.tensor([[3], [0], [0]]), 1).sum().backward()
print(x.grad)
x.grad = None
(x.masked_select(x > 8) * 2).sum().backward()
print(x.grad)
x.grad = None
x.masked_fill(x < 4, 0.0).sum().backward()
print(x.grad)
x.grad = None
(x.narrow(1, 1, 2).sum() + x.select(0, 2).sum() + sum(c.sum() * i for i, c in enumerate(x.unbind(1)))).backward()
print(x.grad)
x.grad = None
(sum(c.sum() * (i + 1) for i, c in enumerate(x.split([1, 3], 1))) + x.tensor_split(3)[2].sum() + x.movedim(0, 1)[0].sum()).backward()
print(x.grad)

# gradients into both the destination and the source
src = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
dst = torch.ones(3, 2, requires_grad=True)
ws = torch.arange(1.0, 7.0).view(3, 2)
(dst.index_add(0, torch.tensor([0, 0]), src, alpha=2) * ws).sum().backward()
print(dst.grad, src.grad)
dst.grad, src.grad = None, None
(dst.index_copy(0, torch.tensor([2, 0]), src) * ws).sum().backward()
print(dst.grad, src.grad)
dst.grad, src.grad = None, None
(dst.scatter(0, torch.tensor([[2, 0], [1, 2]]), src) * ws).sum().backward()
print(dst.grad, src.grad)
dst.grad, src.grad = None, None
(dst.scatter_add(0, torch.tensor([[2, 0], [2, 2]]), src) * ws).sum().backward()
print(dst.grad, src.grad)
dst.grad, src.grad = None, None
(dst.index_put((torch.tensor([1, 1]),), src, accumulate=True) * ws).sum().backward()
print(dst.grad, src.grad)
dst.grad, src.grad = None, None
(dst.index_put((torch.tensor([0, 2]),), src) * ws).sum().backward()
print(dst.grad, src.grad)
dst.grad, src.grad = None, None
(dst.masked_scatter(torch.tensor([[True, False], [False, True], [True, True]]), src) * ws).sum().backward()
print(dst.grad, src.grad)
dst.grad, src.grad = None, None
(dst.index_fill(0, torch.tensor([1]), 5.0) * ws).sum().backward()
print(dst.grad)
dst.grad = None
(dst.put(torch.tensor([0, 5]), src[0]) * ws).sum().backward()
print(dst.grad, src.grad)
dst.grad, src.grad = None, None

val = torch.tensor([3.0, 1.0, 4.0, 1.0, 5.0], requires_grad=True)
base = torch.tensor([2.0, 2.0, 2.0], requires_grad=True)
ri = torch.tensor([0, 0, 1, 1, 2])
for reduce in ["sum", "prod", "mean", "amax", "amin"]:
    for include_self in [True, False]:
        base.grad, val.grad = None, None
        (base.scatter_reduce(0, ri, val, reduce, include_self=include_self) * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
        print(reduce, include_self, base.grad.tolist(), val.grad.tolist())
for reduce in ["prod", "mean", "amax", "amin"]:
    base.grad, val.grad = None, None
    (base.index_reduce(0, ri, val, reduce, include_self=False) * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    print("index_reduce", reduce, base.grad.tolist(), val.grad.tolist())

# setitem in autograd: the overwritten part gets no gradient, the value its share
leaf = torch.ones(2, 3, requires_grad=True)
vals = torch.tensor([5.0, 6.0], requires_grad=True)
h = leaf * 2
h[:, 1] = vals
h[0, 2] = vals[0] * 3
(h * torch.arange(6.0).view(2, 3)).sum().backward()
print(leaf.grad, vals.grad, h.grad_fn.name() if h.grad_fn is not None else None)
err(lambda: leaf.__setitem__(0, 1.0))
err(lambda: torch.ones(3, requires_grad=True).scatter_reduce(0, torch.tensor([0]), torch.ones(1), "max").sum().backward())
