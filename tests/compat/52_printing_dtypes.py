# Printing tensors as a user meets it, following the torch.set_printoptions reference and the "Tensors"
# tutorial: repr / str of every dtype, 0-d and empty tensors, summarization of large tensors (threshold,
# edgeitems), scientific-notation switching by magnitude, inf / nan / -0.0, whole-number floats,
# requires_grad and grad_fn suffixes, views, nn.Parameter, every print option and profile, then the things
# printed around tensors: torch.Size, dtype, device, finfo / iinfo, containers of tensors, f-strings of
# 0-d tensors, item() and tolist() of each dtype, complex numbers and float16 / bfloat16 rounding.
import torch
import torch.nn as nn

torch.manual_seed(0)

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128,
          torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.uint16, torch.uint32,
          torch.uint64, torch.bool]

# ---- every dtype: a vector, a matrix, a 0-d tensor
for dt in DTYPES:
    v = torch.tensor([0, 1, 2, 3, 7], dtype=dt)
    print(dt, v)
    print(str(v.reshape(1, 5)) == repr(v.reshape(1, 5)), v.reshape(1, 5))
    print(torch.tensor(5, dtype=dt), torch.zeros((), dtype=dt))
vals = [-1.5, 0.25, 3.0, 100.125]
for dt in [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128]:
    print(torch.tensor(vals, dtype=dt))
    print(torch.tensor(vals, dtype=dt).reshape(2, 2))
for dt in [torch.int8, torch.int16, torch.int32, torch.int64]:
    info = torch.iinfo(dt)
    print(torch.tensor([info.min, -1, 0, info.max], dtype=dt))
print(torch.tensor([0, 255], dtype=torch.uint8), torch.tensor([True, False, True]))
print(torch.tensor([[True], [False]]), torch.tensor(True), torch.tensor(False))

# ---- 0-d and empty
print(torch.tensor(3.5), torch.tensor(-0.0), torch.tensor(1e-10), torch.tensor(1e10), torch.tensor(7))
print(torch.tensor(float("nan")), torch.tensor(float("-inf")), torch.tensor(2 + 3j), torch.tensor(-1 - 0.5j))
for shape in [(0,), (2, 0), (0, 3, 4)]:
    print(torch.empty(shape), torch.empty(shape, dtype=torch.int64), torch.empty(shape, dtype=torch.float16))
    print(torch.zeros(shape, dtype=torch.bool), torch.zeros(shape, dtype=torch.complex64))
print(torch.empty(0, requires_grad=True), torch.empty(2, 0, dtype=torch.float64, requires_grad=True))
print(torch.tensor([]), torch.tensor([[]]), torch.tensor([], dtype=torch.int32))

# ---- large tensors: summarization
print(torch.arange(1001))
print(torch.arange(1000))
print(torch.arange(2000.0).reshape(40, 50))
print(torch.arange(3000).reshape(10, 10, 30))
print(torch.randn(5, 300))
print(torch.linspace(0, 1, 1200, dtype=torch.float64))
print(torch.ones(1001, dtype=torch.bool), torch.zeros(2, 600, dtype=torch.int8))
print(torch.randn(1001, dtype=torch.complex64))

# ---- magnitudes and the switch to scientific notation
print(torch.tensor([1e-5, 1.0]), torch.tensor([1e-4, 1.0]), torch.tensor([1.0, 999.0]))
print(torch.tensor([1.0, 1001.0]), torch.tensor([1e8, 1.0]), torch.tensor([1e9]), torch.tensor([123456789.0]))
print(torch.tensor([0.001, 0.5]), torch.tensor([1e-20, 1e20]), torch.tensor([3.4e38, -3.4e38]))
print(torch.tensor([1e-30, 0.0, 0.5]), torch.tensor([12345.678, 0.5]), torch.tensor([0.1, 0.2, 0.3]))
print(torch.tensor([1e-5, 1.0], dtype=torch.float64), torch.tensor([1.0e-8, 2.0e-8], dtype=torch.float64))
print(torch.tensor([65504.0, 6e-5], dtype=torch.float16), torch.tensor([1e30, 1e-30], dtype=torch.bfloat16))
print(torch.tensor([5e-324, 1.0], dtype=torch.float64), torch.tensor([1e-45, 1.0]))
print(torch.randn(3, 4) * 1e6, torch.randn(3, 4) * 1e-6, sep="\n")

# ---- inf, nan, -0.0
inf, nan = float("inf"), float("nan")
print(torch.tensor([inf, -inf, nan]), torch.tensor([inf, 1.0, nan]), torch.tensor([-0.0, 0.0, 1.5]))
print(torch.tensor([nan, 1e-6, 1.0]), torch.tensor([-inf, 2.0, 3.0]), torch.tensor([-0.0]), torch.tensor([0.0]))
print(torch.tensor([[inf, 0.5], [nan, -0.0]]), torch.tensor([inf, nan], dtype=torch.float16))
print(torch.tensor([nan, 1.0, 1e10]), torch.tensor([-0.0, -0.0]), torch.tensor([-0.0, 1e-8]))
print(torch.tensor([complex(inf, 1), complex(1, nan), complex(-0.0, -0.0)]))

# ---- integers that look like floats
print(torch.tensor([1.0, 2.0]), torch.tensor([1.0, -2.0, 300.0]), torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
print(torch.tensor([1.0, 2.5]), torch.tensor([1e3, 2.0]), torch.tensor([100000.0, 2.0]), torch.tensor([0.0, 0.0]))
print(torch.tensor([1.0, 2.0], dtype=torch.float64), torch.tensor([1.0, 2.0], dtype=torch.float16))
print(torch.tensor([1.0, 2.0 + 1j]), torch.tensor([1.5, 2.0 + 1j]), torch.ones(2, 2) * 3)

# ---- requires_grad, grad_fn, views
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
print(w, w * 2, w.sum(), w.mean(), w.exp(), w[1], w.view(3, 1), w.unsqueeze(0), w.t(), sep="\n")
print(w.detach(), w.data, w[0].item(), w.clone(), w.to(torch.float64), w.reshape(3), sep="\n")
y = (w ** 2).sum()
y.backward()
print(w.grad, w.grad_fn, y.grad_fn, y.grad_fn.name(), type(y.grad_fn).__name__)
z = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
print(z, z.relu(), z.abs() @ z, torch.stack([z, z]), z.int(), sep="\n")
print(torch.zeros(3, requires_grad=True, dtype=torch.float16), torch.ones(2, dtype=torch.complex64, requires_grad=True))
with torch.no_grad():
    print(w * 2)
base = torch.arange(12.0).reshape(3, 4)
print(base[1], base[:, 2], base.t(), base[::2, ::3], base.diagonal(), base.view(2, 6), sep="\n")
print(base.expand(2, 3, 4)[1], base.transpose(0, 1)[0], base.unfold(1, 2, 2), sep="\n")

# ---- nn.Parameter
torch.manual_seed(1)
lin = nn.Linear(3, 2)
print(lin.weight)
print(lin.bias)
print(nn.Parameter(torch.tensor([1.0, 2.0])), nn.Parameter(torch.ones(2, dtype=torch.float64)))
print(nn.Parameter(torch.zeros(2), requires_grad=False), nn.Parameter(torch.empty(0)))
print(nn.Parameter(torch.tensor(3.0)), nn.Parameter(torch.tensor([1, 2]), requires_grad=False))
for name, p in lin.named_parameters():
    print(name, p.shape, p.dtype, p.requires_grad)
    print(p)
print(list(lin.parameters()))
print(lin.state_dict())

# ---- set_printoptions
x = torch.randn(4, 6) * 10
torch.set_printoptions(precision=2)
print(x, torch.tensor([1.23456789, 2.0]), torch.tensor([1e-5, 1.0]), sep="\n")
torch.set_printoptions(precision=8)
print(torch.tensor([1.23456789, 2.0]), torch.tensor([1.23456789], dtype=torch.float64), torch.tensor(0.1))
torch.set_printoptions(precision=0)
print(torch.tensor([1.5, 2.5, 3.7]), torch.tensor([1e-5, 1.0]))
torch.set_printoptions(precision=4)
torch.set_printoptions(threshold=5)
print(torch.arange(6), torch.arange(5), torch.arange(12).reshape(3, 4), sep="\n")
torch.set_printoptions(threshold=5, edgeitems=1)
print(torch.arange(6), torch.arange(24.0).reshape(2, 3, 4), sep="\n")
torch.set_printoptions(threshold=5, edgeitems=0)
print(torch.arange(6), torch.arange(24.0).reshape(2, 3, 4), torch.tensor(2.0), sep="\n")
torch.set_printoptions(threshold=1000, edgeitems=3)
torch.set_printoptions(linewidth=40)
print(torch.arange(30.0), torch.randn(3, 20), sep="\n")
print(torch.arange(10.0, requires_grad=True) * 1.5)
torch.set_printoptions(linewidth=200)
print(torch.arange(60.0), torch.arange(20.0, dtype=torch.float16, requires_grad=True), sep="\n")
torch.set_printoptions(linewidth=80)
torch.set_printoptions(sci_mode=True)
print(torch.tensor([1.0, 2.5]), torch.tensor(3.0), torch.tensor([0.0]), torch.tensor([1, 2]))
print(torch.tensor([1.0 + 2j]), torch.tensor([nan, inf, -0.0, 1.0]))
torch.set_printoptions(sci_mode=False)
print(torch.tensor([1e-8, 1.0, 1e8]), torch.tensor([1e-5]), torch.tensor([123456789.0]))
print(torch.tensor([1e20, 1.0]), torch.tensor([1e-10], dtype=torch.float64))
torch.set_printoptions(precision=3)  # sci_mode left out goes back to automatic
print(torch.tensor([1e-8, 1.0, 1e8]))
torch.set_printoptions(profile="short")
print(torch.randn(3, 3), torch.arange(1500.0), torch.tensor([3.14159]), sep="\n")
torch.set_printoptions(profile="full")
print(torch.arange(1100).reshape(2, 550)[:, :12], torch.arange(1200)[-5:], torch.arange(1001)[990:], sep="\n")
full = torch.arange(1010)
text = str(full)
print(len(text), text.count("\n"), "..." in text, text[:40], text[-30:])
torch.set_printoptions(profile="default")
print(torch.arange(1010), torch.tensor([3.14159265]), sep="\n")
torch.set_printoptions(profile="short", precision=6)
print(torch.tensor([3.14159265]), torch.arange(50.0))
torch.set_printoptions(profile="default")

print(torch._tensor_str.get_printoptions())
with torch._tensor_str.printoptions(precision=1, linewidth=30):
    print(torch._tensor_str.get_printoptions(), torch.arange(12.0) / 3, sep="\n")
print(torch._tensor_str.PRINT_OPTS, torch.tensor([2 / 3]))
torch.set_printoptions(profile="full")
print(torch._tensor_str.get_printoptions())
torch.set_printoptions(profile="default")

# ---- default dtype float64
torch.set_default_dtype(torch.float64)
print(torch.tensor([1.0, 2.5]), torch.tensor([1.0], dtype=torch.float32), torch.tensor([1 + 1j]))
print(torch.tensor([1 + 1j], dtype=torch.complex64), torch.ones(2, dtype=torch.float16))
torch.set_default_dtype(torch.float32)
print(torch.tensor([1 + 1j]), torch.tensor([1 + 1j], dtype=torch.complex128))

# ---- Size, dtype, device, finfo, iinfo
s = torch.randn(2, 3, 4).shape
print(s, str(s), repr(s), s[1:], s.numel(), len(s), tuple(s), list(s), torch.Size([]), torch.Size([0]))
print(torch.Size([5]), s == (2, 3, 4), s + (5,), type(s[1:]).__name__, f"{s}")
for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.bool,
           torch.complex64, torch.uint8, torch.long, torch.float, torch.double, torch.half, torch.cfloat]:
    print(dt, str(dt), repr(dt), dt.is_floating_point, dt.is_complex, dt.is_signed, dt.itemsize)
print(torch.device("cpu"), repr(torch.device("cpu")), torch.device("cuda", 1), repr(torch.device("cuda:0")))
print(torch.device("cpu").type, torch.device("cuda:1").index, torch.device("cpu").index, f"{torch.device('cpu')}")
for dt in [torch.float16, torch.bfloat16, torch.float32, torch.float64]:
    fi = torch.finfo(dt)
    print(dt, fi.bits, fi.eps, fi.max, fi.min, fi.tiny, fi.smallest_normal, fi.resolution, fi.dtype)
print(torch.finfo(), torch.finfo(torch.float16).eps, torch.finfo(torch.complex64).eps)
for dt in [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]:
    ii = torch.iinfo(dt)
    print(dt, ii.bits, ii.min, ii.max, ii.dtype)
print(torch.iinfo(torch.int32))
try:
    torch.iinfo(torch.float32)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.finfo(torch.int32)
except Exception as e:
    print(type(e).__name__, e)

for dt in [torch.uint16, torch.uint32, torch.uint64]:
    print(torch.iinfo(dt))
print(torch.finfo(torch.complex128), torch.finfo(torch.float32).eps == torch.finfo(torch.float).eps)
print(torch.tensor([1, 2]).layout, torch.tensor([1.0]).type(), torch.tensor([1]).type(), torch.get_default_dtype())
print(torch.float32.to_complex(), torch.complex128.to_real(), torch.float16.is_signed, torch.uint8.is_signed)

# ---- tensor subclasses, custom contents, forward-mode tangents, grad_fn graphs


class Tagged(torch.Tensor):
    pass


class ScaledParameter(nn.Parameter):
    pass


print(torch.tensor([1.0, 2.0]).as_subclass(Tagged), torch.tensor([[1, 2]]).as_subclass(Tagged))
print(ScaledParameter(torch.tensor([1.0, 2.0])), ScaledParameter(torch.ones(2, dtype=torch.float16)))
print(torch.tensor([1.0, 2.0]).__repr__(tensor_contents="[...]"))
print(torch.ones(2, requires_grad=True).__repr__(tensor_contents="<hidden>"))
import torch.autograd.forward_ad as fwAD  # noqa: E402

with fwAD.dual_level():
    dual = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([0.5, 0.25]))
    print(dual, dual * 3, dual.sin(), sep="\n")
u = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (u * 2).sum()
print(loss.grad_fn.next_functions[0][0].next_functions[0][0], u.grad)

# ---- containers of tensors
a, b = torch.tensor([1.0, 2.0]), torch.tensor([[1, 2], [3, 4]])
print((a, b))
print([a, b, torch.tensor(0.5)])
print({"a": a, "b": b})
print([[a], (b,)], (a,), [torch.tensor(1)], {"x": [torch.zeros(2, 2)]})
print(torch.randn(2, 2).max(dim=1), torch.randn(4).sort())
print(torch.randn(3, 3).split(2), torch.arange(6).chunk(3))

# ---- f-strings and format
t0 = torch.tensor(3.14159265)
print(f"{t0:.3f}", f"{t0:.2e}", f"{t0:10.4f}|", f"{t0}", f"{torch.tensor(7):04d}", f"{torch.tensor(7):>5}")
print(f"{t0!r}", f"{t0!s}", "{:.1f}".format(torch.tensor(2.25)), "%.2f" % torch.tensor(1.005), f"{t0:}")
print(f"{torch.tensor(1.5, dtype=torch.float16):.4f}", f"{torch.tensor(True)}", f"{torch.tensor(2 + 1j):.1f}")
print(f"{torch.tensor(0.1, dtype=torch.bfloat16):.6f}", f"{torch.tensor(1.0, requires_grad=True):.2f}")
print(f"{torch.tensor([1.0, 2.0])}", f"{torch.tensor([1.0, 2.0])!r}", f"{torch.tensor([[1]])}")
for spec in [".2f", "d", ">10"]:
    try:
        print(f"{{:{spec}}}".format(torch.tensor([1.0, 2.0])))
    except Exception as e:
        print(type(e).__name__, e)
try:
    print(f"{torch.tensor(3.5):d}")
except Exception as e:
    print(type(e).__name__, e)
print(format(torch.tensor(2.5), ".2f"), format(torch.tensor(2.5)), f"{nn.Parameter(torch.tensor(2.5))}")
try:
    print(f"{nn.Parameter(torch.tensor(2.5)):.2f}")
except Exception as e:
    print(type(e).__name__, e)

# ---- item() and tolist() of each dtype
for dt in DTYPES:
    t = torch.tensor([0, 1, 3], dtype=dt)
    it = t[2].item()
    print(dt, it, type(it).__name__, t.tolist(), type(t.tolist()[0]).__name__, torch.tensor(1, dtype=dt).tolist())
print(torch.tensor([[1.5, 2.0], [3.25, -4.0]]).tolist(), torch.tensor(2.5).tolist(), torch.empty(2, 0).tolist())
print(torch.tensor([0.1, 0.2]).tolist(), torch.tensor([0.1], dtype=torch.float64).tolist())
print(torch.tensor([0.1], dtype=torch.float16).tolist(), torch.tensor([0.1], dtype=torch.bfloat16).tolist())
print(torch.tensor([1 - 2j], dtype=torch.complex64).tolist(), torch.tensor([nan, inf, -0.0]).tolist())
print(torch.arange(8).reshape(2, 2, 2).tolist(), torch.tensor([[]]).tolist(), torch.tensor(1e20).item())
print(torch.tensor(-0.0).item(), torch.tensor(16777217.0).item(), torch.tensor(2**62).item())
try:
    torch.tensor([1, 2]).item()
except Exception as e:
    print(type(e).__name__, e)

# ---- complex numbers
print(torch.tensor([1 - 2j, -3 + 0.5j, 0 - 1j]), torch.tensor([1 - 2j], dtype=torch.complex128))
print(torch.tensor([[1 + 1j, -1 - 1j], [0.5 - 0.25j, 2j]]), torch.tensor([-0.0 - 0.0j, 0.0 + 0.0j]))
print(torch.tensor([1e-5 + 1j, 1 - 1e5j]), torch.tensor([1 + 1e-8j]), torch.tensor([123.456 - 0.001j]))
print(torch.complex(torch.randn(3), torch.randn(3)), torch.randn(2, 2, dtype=torch.complex128), sep="\n")
print(torch.polar(torch.tensor([1.0, 2.0]), torch.tensor([3.0, -1.0])), torch.view_as_complex(torch.ones(2, 2)))
print(torch.tensor([2 - 3j]).conj(), torch.tensor([2 - 3j]).real, torch.tensor([2 - 3j]).imag, sep="\n")
print(torch.tensor([1 + 2j], requires_grad=True) * 2)

# ---- float16 / bfloat16 values that round
print(torch.tensor([0.1, 0.2, 0.3], dtype=torch.float16), torch.tensor([0.1, 0.2, 0.3], dtype=torch.bfloat16))
print(torch.tensor([1.0001, 2049.0, 65519.0], dtype=torch.float16), torch.tensor([257.0, 1.00390625], dtype=torch.bfloat16))
print(torch.tensor([1 / 3], dtype=torch.float16), torch.tensor([1 / 3], dtype=torch.bfloat16), torch.tensor([1 / 3]))
print(torch.tensor([70000.0], dtype=torch.float16), torch.tensor([1e-8], dtype=torch.float16), torch.tensor([3.0e38], dtype=torch.bfloat16))
print(torch.tensor([2.5, 3.5, -2.5]).half(), torch.tensor([1234.5678]).bfloat16(), torch.randn(3).half())
print(torch.tensor(0.1, dtype=torch.float16).item(), torch.tensor(0.1, dtype=torch.bfloat16).item(), torch.tensor(0.1).item())

# ---- nested lists
print(torch.tensor([[[1, 2], [3, 4]], [[5, 6], [7, 8]]]))
print(torch.tensor([[[1.5]], [[2.5]]]), torch.tensor([[[[1]]]]), torch.zeros(2, 1, 2, 1))
print(torch.tensor([[1, 2.5], [True, 4]]), torch.tensor([[True, False]]), torch.tensor([[1, 2], [3, 4]]).float())
print(torch.arange(16.0).reshape(2, 2, 2, 2), torch.arange(4).reshape(1, 1, 1, 4), sep="\n")
try:
    torch.tensor([[1, 2], [3]])
except Exception as e:
    print(type(e).__name__, e)

# ---- printing inside a device context manager
try:
    with torch.device("cpu"):
        print(torch.tensor([1.0]))
except Exception as e:
    print(type(e).__name__, e)
