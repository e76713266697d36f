# The long tail of tensor methods that real code leans on, after the torch.Tensor / torch reference pages
# and their docs examples: where / masked_* / gather / scatter (reduce=) / index_* / take / put_, splitting
# (narrow, unbind, chunk, split, tensor_split, hsplit / vsplit / dsplit) and joining (stack, hstack,
# vstack, dstack, column_stack, cat with negative dims and empty tensors), flips and rolls, triangles and
# their indices, meshgrid / cartesian_prod / combinations, repeat / repeat_interleave / expand / tile,
# dimension shuffles, new_* factories, memory layout (strides, storage_offset, data_ptr, contiguity,
# memory_format), dtype facts (finfo / iinfo, element_size, itemsize, nbytes), conversions (type, to,
# tolist, item, numpy / from_numpy sharing, as_tensor), and printing with set_printoptions.
import numpy as np
import torch

torch.manual_seed(0)

# ---- where, masked_*
x = torch.tensor([[-1.5, 2.0, 0.0], [3.0, -0.5, 4.0]])
print(torch.where(x > 0, x, 0.0), torch.where(x > 0, 1, -1), torch.where(x > 0, 1.0, 0).dtype)
print(torch.where(x > 0, x, torch.tensor(0.0, dtype=torch.float64)).dtype, torch.where(torch.tensor([True, False]), 2, 3.5))
print(torch.where(x > 0))
mask = x < 0
print(x.masked_fill(mask, float("-inf")), x.masked_fill(mask, torch.tensor(9.0)))
print(torch.masked_select(x, mask), x.masked_select(torch.tensor([True, False, True])))
print(x.masked_scatter(mask, torch.tensor([10.0, 20.0, 30.0])))
print(torch.zeros(2, 3).masked_scatter_(torch.tensor([[1, 0, 1], [0, 1, 1]], dtype=torch.bool), torch.arange(1.0, 7.0).view(2, 3)))

# ---- gather, scatter
t = torch.tensor([[1, 2], [3, 4]])
print(torch.gather(t, 1, torch.tensor([[0, 0], [1, 0]])), t.gather(0, torch.tensor([[1, 0]])))
src = torch.arange(1, 11).reshape((2, 5))
index = torch.tensor([[0, 1, 2, 0]])
print(torch.zeros(3, 5, dtype=src.dtype).scatter_(0, index, src))
index = torch.tensor([[0, 1, 2], [0, 1, 4]])
print(torch.zeros(3, 5, dtype=src.dtype).scatter_(1, index, src))
print(torch.full((2, 4), 2.0).scatter_(1, torch.tensor([[2], [3]]), 1.23, reduce="multiply"))
print(torch.full((2, 4), 2.0).scatter_(1, torch.tensor([[2], [3]]), 1.23, reduce="add"))
print(torch.zeros(3).scatter(0, torch.tensor([0, 0, 2]), torch.tensor([1.0, 2.0, 3.0]), reduce="add"))
print(torch.ones(5).scatter_add(0, torch.tensor([0, 1, 0, 4]), torch.tensor([1.0, 2.0, 3.0, 4.0])))
for reduce in ["sum", "prod", "mean", "amax", "amin"]:
    print(reduce, torch.ones(3).scatter_reduce(0, torch.tensor([0, 0, 2, 2]), torch.tensor([2.0, 4.0, 6.0, -1.0]), reduce=reduce),
          torch.ones(3).scatter_reduce(0, torch.tensor([0, 0, 2, 2]), torch.tensor([2.0, 4.0, 6.0, -1.0]), reduce=reduce, include_self=False))
print(torch.zeros(2, 2).scatter(1, torch.tensor([[1], [0]]), 5))

# ---- index_* / take / put_
a = torch.arange(12.0).view(3, 4)
idx = torch.tensor([0, 2])
print(torch.index_select(a, 0, idx), a.index_select(1, torch.tensor([3, 0])))
print(torch.zeros(3, 4).index_copy(0, idx, torch.ones(2, 4)), a.index_fill(1, idx, -1.0))
print(a.clone().index_fill_(0, torch.tensor([1]), torch.tensor(7.0)), torch.ones(3, 2).index_add(0, torch.tensor([0, 0]), torch.ones(2, 2), alpha=3))
print(torch.take(a, torch.tensor([[0, 5], [11, -1]])), torch.take_along_dim(a, torch.tensor([[1], [0], [3]]), dim=1))
print(torch.take_along_dim(a, a.argmax(1, keepdim=True), dim=1).flatten(), torch.take_along_dim(a, torch.tensor([0, 11])))
print(torch.zeros(2, 3).put_(torch.tensor([0, 4, 4]), torch.tensor([1.0, 2.0, 3.0]), accumulate=True))
print(torch.zeros(2, 3).put(torch.tensor([1, -1]), torch.tensor([9.0, 8.0])))
print(a.index_put((torch.tensor([0, 2]), torch.tensor([1, 1])), torch.tensor(-5.0)))
print(a.index_reduce(0, torch.tensor([0, 0]), torch.full((2, 4), 2.0), "prod"))

# ---- splitting
print(a.narrow(1, 1, 2), torch.narrow(a, 0, -2, 2).shape, a.narrow(0, torch.tensor(1), 1))
print(torch.unbind(a), a.unbind(1)[0])
print([c.shape for c in a.chunk(2, dim=1)], [c.shape for c in torch.arange(5).chunk(3)], [c.shape for c in torch.arange(6).chunk(4)])
print(a.split(2), a.split([1, 3], dim=1)[1].shape, [s.tolist() for s in torch.arange(7).split([2, 5])])
print([s.tolist() for s in torch.arange(8).tensor_split(3)], [s.tolist() for s in torch.arange(7).tensor_split([1, 5])])
print([s.shape for s in a.tensor_split(torch.tensor([1, 3]), dim=1)], [s.tolist() for s in torch.arange(7).tensor_split(torch.tensor(3))])
print([s.shape for s in torch.hsplit(a, 2)], [s.shape for s in torch.vsplit(a, [1])], [s.shape for s in torch.hsplit(torch.arange(6), [2, 4])])
print([s.shape for s in torch.arange(16.0).reshape(2, 2, 4).dsplit([3, 6])], [s.shape for s in torch.dsplit(torch.zeros(2, 2, 4), 2)])
try:
    torch.hsplit(a, 3)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    a.split([1, 1], dim=0)
except RuntimeError as e:
    print("RuntimeError:", e)

# ---- joining
b = torch.tensor([1, 2, 3])
c = torch.tensor([4, 5, 6])
print(torch.stack([b, c]), torch.stack([b, c], dim=-1), torch.stack((b, c), 1).shape)
print(torch.hstack((b, c)), torch.vstack((b, c)), torch.dstack((b, c)), torch.column_stack((b, c)))
print(torch.hstack([a, a]).shape, torch.vstack([a, b.float().repeat(1, 2)[:, :4]]).shape, torch.dstack([a, a]).shape)
print(torch.column_stack((torch.arange(5), torch.arange(10.).reshape(5, 2))), torch.row_stack((b, c)).shape)
print(torch.cat([a, a], dim=-1).shape, torch.cat([a, a], dim=-2).shape, torch.cat([a, torch.empty(0)]).shape)
print(torch.cat([torch.empty(0, 4), a]).shape, torch.cat([b, c.double()]).dtype, torch.cat((b, torch.tensor([True]))).dtype)
print(torch.concat([b, c]), torch.concatenate([b, c], axis=0))
try:
    torch.cat([a, torch.ones(2, 3)])
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.stack([b, torch.tensor([1, 2])])
except RuntimeError as e:
    print("RuntimeError:", e)

# ---- flips and rolls
m = torch.arange(8).view(2, 2, 2)
print(torch.flip(m, [0, 1]), torch.fliplr(m[0]), torch.flipud(m[0]), m.flip(-1)[0])
r = torch.tensor([1, 2, 3, 4, 5, 6, 7, 8]).view(4, 2)
print(torch.roll(r, 1), torch.roll(r, 1, 0), torch.roll(r, -1, 0), torch.roll(r, shifts=(2, 1), dims=(0, 1)))
s = torch.arange(4).view(2, 2)
print(torch.rot90(s, 1, [0, 1]), torch.rot90(s), torch.rot90(s, -1), torch.rot90(s, 2, [1, 0]))

# ---- triangles
sq = torch.arange(1, 17).view(4, 4)
print(torch.tril(sq), sq.triu(1), sq.tril(-1), sq.triu(-1), torch.triu(torch.ones(2, 3), diagonal=2))
print(torch.tril_indices(3, 3), torch.triu_indices(4, 3, 1), torch.tril_indices(4, 3, -1), torch.triu_indices(3, 3, offset=0, dtype=torch.int32).dtype)
r_, c_ = torch.triu_indices(3, 3, 1)
print(sq[:3, :3][r_, c_])

# ---- meshgrid, cartesian_prod, combinations
xs, ys = torch.tensor([1, 2, 3]), torch.tensor([4, 5])
gx, gy = torch.meshgrid(xs, ys, indexing="ij")
print(gx, gy)
gx, gy = torch.meshgrid(xs, ys, indexing="xy")
print(gx.shape, gy)
print(torch.meshgrid([xs, ys, torch.tensor([0])], indexing="ij")[2].shape)
print(torch.cartesian_prod(xs, ys), torch.cartesian_prod(xs))
print(torch.combinations(torch.tensor([1, 2, 3])), torch.combinations(torch.tensor([1, 2, 3]), r=3),
      torch.combinations(torch.tensor([1, 2]), with_replacement=True))

# ---- repeat, repeat_interleave, expand, tile
v = torch.tensor([1, 2, 3])
print(v.repeat(4, 2), v.repeat(2, 1, 2).shape, v.repeat_interleave(2), torch.repeat_interleave(torch.tensor([[1, 2], [3, 4]]), 2))
y = torch.tensor([[1, 2], [3, 4]])
print(torch.repeat_interleave(y, 3, dim=1), torch.repeat_interleave(y, torch.tensor([1, 2]), dim=0))
print(torch.repeat_interleave(y, torch.tensor([1, 2]), dim=0, output_size=3), torch.repeat_interleave(torch.tensor([2, 0, 1])))
print(v.expand(2, 3), v.view(3, 1).expand(-1, 4), torch.tensor([[1], [2]]).expand_as(torch.zeros(2, 3)))
print(v.tile((2,)), torch.tile(y, (2, 2)), y.tile((2,)).shape, torch.tile(v, (2, 1, 1)).shape)
try:
    v.expand(2, 4)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    v.view(3, 1).repeat(2)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    v.repeat()
except TypeError as e:
    print("TypeError:", e)

# ---- moving dims, flatten / unflatten / squeeze
z = torch.zeros(2, 3, 4, 5)
print(torch.movedim(z, 1, 0).shape, z.movedim((1, 2), (0, 1)).shape, torch.moveaxis(z, -1, 0).shape, z.swapaxes(0, 3).shape,
      z.swapdims(1, 2).shape, torch.permute(z, (3, 0, 1, 2)).shape)
print(z.flatten().shape, z.flatten(1).shape, z.flatten(1, 2).shape, z.flatten(-3, -2).shape, torch.tensor(5.0).flatten().shape)
print(z.unflatten(1, (3, 1)).shape, z.flatten(2).unflatten(-1, (2, -1)).shape, torch.nn.Unflatten(1, (3, 4))(torch.zeros(2, 12)).shape)
w = torch.zeros(2, 1, 3, 1)
print(w.squeeze().shape, w.squeeze(1).shape, w.squeeze((1, 3)).shape, w.squeeze(0).shape, torch.squeeze(w, dim=(-1,)).shape)
print(w.unsqueeze(-1).shape, w.unsqueeze(0).shape, torch.atleast_2d(torch.tensor(1.0)).shape, torch.atleast_3d(v).shape)

# ---- new_* and *_like factories
base = torch.tensor([1.5, 2.5], dtype=torch.float64)
print(base.new_zeros(2, 3), base.new_ones((2,), dtype=torch.int32), base.new_full((2,), 7), base.new_empty(3).shape)
print(base.new_tensor([1, 2]), base.new_tensor([1, 2]).dtype, base.new_tensor([True]).dtype, base.new_zeros(()).shape)
print(torch.zeros_like(base, dtype=torch.int64), torch.ones_like(v, dtype=torch.float16), torch.full_like(v, 2.7),
      torch.empty_like(base).shape, torch.rand_like(base).dtype, torch.randn_like(base, dtype=torch.float32).dtype)
print(torch.randint_like(v, 10).dtype, torch.randint_like(base, 3, 5).dtype)

# ---- memory layout
q = torch.arange(24).view(2, 3, 4)
qt = q.transpose(0, 2)
print(q.stride(), qt.stride(), q.stride(1), qt.is_contiguous(), qt.contiguous().is_contiguous(), qt.contiguous().stride())
print(q[1].storage_offset(), q[:, 1:].storage_offset(), q[1, 2, 3].storage_offset(), q.view(-1)[5:].storage_offset())
print(q.data_ptr() == q.view(6, 4).data_ptr(), q[1].data_ptr() == q.data_ptr() + 12 * q.element_size(), q.clone().data_ptr() == q.data_ptr())
print(q.untyped_storage().nbytes(), q.untyped_storage().data_ptr() == q[1].untyped_storage().data_ptr(), len(q[1].untyped_storage()))
img = torch.randn(2, 3, 4, 5)
cl = img.contiguous(memory_format=torch.channels_last)
print(cl.stride(), cl.is_contiguous(), cl.is_contiguous(memory_format=torch.channels_last), torch.equal(cl, img))
print(img.clone(memory_format=torch.channels_last).stride(), cl.clone().stride(), cl.clone(memory_format=torch.contiguous_format).stride())
print(torch.empty(2, 3, 4, 5, memory_format=torch.channels_last).stride(), torch.empty_like(cl).stride(), (cl + 1).stride())
print(torch.empty_strided((2, 3), (1, 2)).stride(), torch.as_strided(torch.arange(9), (2, 2), (3, 1), 1))
print(q.t().shape if q.dim() == 2 else q[0].t().is_contiguous(), q.expand(2, 2, 3, 4).stride(), q[:, ::2].stride())
try:
    qt.view(-1)
except RuntimeError as e:
    print("RuntimeError:", e)
print(qt.reshape(-1)[:4], qt.is_contiguous(), q[..., ::2].is_contiguous(), torch.zeros(1, 3)[:, :2].is_contiguous())

# ---- dtypes: sizes and facts
for dt in [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int8, torch.uint8, torch.int16,
           torch.int32, torch.int64, torch.bool, torch.complex64, torch.complex128]:
    e = torch.zeros(3, dtype=dt)
    print(dt, e.element_size(), e.itemsize, e.nbytes, dt.itemsize, dt.is_floating_point, dt.is_complex, dt.is_signed,
          dt.to_real() if dt.is_complex else "")
print(torch.finfo(torch.float32))
print(torch.finfo(torch.float16).max, torch.finfo(torch.bfloat16).eps, torch.finfo(torch.float64).tiny, torch.finfo().dtype)
print(torch.finfo(torch.float32).resolution, torch.finfo(torch.float32).smallest_normal, torch.finfo(torch.float32).bits,
      torch.finfo(torch.complex64).dtype, torch.finfo(torch.float16).min)
print(torch.iinfo(torch.int32), torch.iinfo(torch.uint8).max, torch.iinfo(torch.int64).min, torch.iinfo(torch.int8).bits,
      torch.iinfo(torch.int16).dtype)
try:
    torch.finfo(torch.int32)
except TypeError as e:
    print("TypeError:", e)
try:
    torch.iinfo(torch.float32)
except TypeError as e:
    print("TypeError:", e)
print(torch.get_default_dtype(), torch.is_floating_point(v), torch.is_complex(torch.zeros(1, dtype=torch.cfloat)),
      torch.is_tensor(v), torch.is_nonzero(torch.tensor([1.5])), torch.numel(z))
print(torch.promote_types(torch.int32, torch.float16), torch.result_type(v, 2.5), torch.can_cast(torch.float64, torch.int32),
      torch.can_cast(torch.int32, torch.float64))

# ---- type() and to()
print(v.type(), v.float().type(), base.type(), torch.zeros(1, dtype=torch.bool).type(), torch.zeros(1, dtype=torch.float16).type())
print(v.type(torch.float64), v.type("torch.DoubleTensor").dtype, v.type(torch.DoubleTensor).dtype)
print(v.to(torch.float32, non_blocking=True), v.to("cpu", torch.int8), v.to(base).dtype, v.to(dtype=torch.int32, copy=True))
print(v.to(torch.int64) is v, v.to(torch.int64, copy=True) is v, v.to("cpu") is v, v.cpu() is v, v.long() is v, v.int() is v)
print(v.double().dtype, v.half().dtype, v.bfloat16().dtype, v.bool(), v.byte().dtype, v.char().dtype, v.short().dtype, v.cfloat().dtype)

# ---- tolist, item, numpy, from_numpy, as_tensor
print(a.tolist(), torch.tensor(3.5).tolist(), torch.tensor([True, False]).tolist(), torch.tensor([1 + 2j]).tolist())
print(torch.tensor(7).item(), type(torch.tensor(7).item()).__name__, type(torch.tensor(7.0).item()).__name__,
      type(torch.tensor(True).item()).__name__, torch.tensor([[2.5]]).item(), torch.tensor(1, dtype=torch.uint8).item())
try:
    a.item()
except RuntimeError as e:
    print("RuntimeError:", e)
arr = np.arange(6, dtype=np.float32).reshape(2, 3)
tn = torch.from_numpy(arr)
arr[0, 0] = 100.0
print(tn[0, 0], tn.dtype, tn.numpy() is arr, np.shares_memory(tn.numpy(), arr))
tn[1, 1] = -1.0
print(arr[1, 1], type(tn.numpy()).__name__, tn.numpy().dtype)
at = torch.as_tensor(arr)
at[0, 1] = 42.0
print(arr[0, 1], torch.as_tensor(arr, dtype=torch.float64)[0, 1], torch.as_tensor([1, 2]).dtype, torch.as_tensor(v) is v)
print(torch.tensor(arr).data_ptr() == tn.data_ptr(), torch.from_numpy(np.array([1, 2], dtype=np.int16)).dtype,
      torch.from_numpy(np.array(True)).shape, torch.from_numpy(np.zeros((2, 2))[:, ::-1].copy()).stride())
print(torch.asarray([1.0, 2.0]).dtype, torch.asarray(arr).data_ptr() == tn.data_ptr(), torch.asarray(arr, copy=True).data_ptr() == tn.data_ptr())
print(np.asarray(v), np.array(torch.ones(2, dtype=torch.float16)).dtype, torch.ones(2, requires_grad=True).detach().numpy())
try:
    torch.ones(2, requires_grad=True).numpy()
except RuntimeError as e:
    print("RuntimeError:", e)
print(torch.ones(2, requires_grad=True).numpy(force=True))
try:
    torch.from_numpy(np.zeros(3, dtype=np.float32)[::-1])
except ValueError as e:
    print("ValueError:", e)

# ---- printing
print(torch.tensor([1, -20, 300]), torch.tensor([True, False]), torch.tensor([0.5, 1.0], dtype=torch.float16))
print(torch.tensor([1 + 2j, -0.5j]), torch.tensor([1.0, 2.0], dtype=torch.bfloat16), torch.tensor([], dtype=torch.int64))
print(torch.tensor([1e-8, 1.0, 1e8]), torch.tensor([1.0, float("nan"), float("inf"), -float("inf")]), torch.tensor(1e10))
print(torch.tensor([0.1, 2.0], requires_grad=True), torch.tensor([1.0, 2.0], requires_grad=True) * 2)
print(torch.zeros(2, 0, 3), torch.tensor([[1.123456789, 22.5], [333.0, 0.0001]]), torch.tensor([123456789.0]))
print(repr(torch.tensor(3)), str(torch.tensor([1.0])), f"{torch.tensor(2.5):.2f}", format(torch.tensor(1), "03d"))
torch.set_printoptions(precision=2)
print(torch.tensor([1.23456, 2.5, -0.001]))
torch.set_printoptions(sci_mode=True)
print(torch.tensor([1.23456, 2.5, -0.001]))
torch.set_printoptions(sci_mode=False, precision=6)
print(torch.tensor([1e-8, 1.0, 1e8]))
torch.set_printoptions(linewidth=40)
print(torch.arange(20.0))
torch.set_printoptions(threshold=10, edgeitems=2)
print(torch.arange(30), torch.arange(100).view(10, 10))
torch.set_printoptions(profile="default")
print(torch.arange(2000.0).view(40, 50))
print(torch.arange(1500), torch.randn(3, 1001).shape)
torch.set_printoptions(profile="short")
print(torch.tensor([1.123456, 2.0]), torch.arange(1000.0) / 7)
torch.set_printoptions(profile="full")
print(torch.arange(1005)[-3:], len(str(torch.arange(1005))))
torch.set_printoptions(profile="default")
print(torch.tensor([[1e-5, 1.0], [100.0, 1e5]]), torch.tensor([1e-5, 1e5], dtype=torch.float64))
print(torch.tensor([2.0, 3.0], dtype=torch.float64), torch.tensor([1, 2], dtype=torch.int32), torch.tensor([1, 2], dtype=torch.uint8))
print(torch.randn(2, 2, 2, 2).round(decimals=1))

# ---- a few more corners: reinterpreting bytes, one-element tensors as scalars, lazy conjugation,
# mixed Tensor / number clamp bounds, and layout-aware factories
print(torch.tensor([1.0]).view(torch.int32), torch.tensor([1, 2], dtype=torch.int16).view(torch.int8),
      torch.tensor([1, 2, 3, 4], dtype=torch.uint8).view(torch.int32).shape)
print(torch.tensor([torch.tensor([1.0]), torch.tensor([2.0])]), torch.tensor([torch.tensor(1.0), torch.tensor(2.0)]))
zc = torch.tensor([1 + 2j, 3 - 1j])
print(zc.conj(), zc.conj().is_conj(), zc.conj().resolve_conj().is_conj(), zc.conj_physical().is_conj(), zc.is_conj())
try:
    torch.clamp(torch.arange(5.0), min=torch.ones(5), max=3)
    print("clamp with a Tensor min and a number max accepted")
except TypeError as e:
    print("TypeError:", str(e).splitlines()[0])
print(torch.empty(2, 3, 4, 5, memory_format=torch.channels_last).stride(),
      torch.empty(1, 2, 3, 4, 5, memory_format=torch.channels_last_3d).stride())
arr2 = np.ones(3, dtype=np.float32)
shared = torch.from_numpy(arr2)
print("numpy() gives a new view each call", shared.numpy() is arr2, shared.numpy() is shared.numpy(),
      np.shares_memory(shared.numpy(), arr2))
print(torch.finfo(torch.float16), torch.finfo(torch.bfloat16).resolution, torch.iinfo(torch.int64))
