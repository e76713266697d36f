# Sorting, searching and descriptive statistics, in the style of the torch docs examples for each op and of
# the code real projects write with them (percentile clipping, equal-frequency binning, label histograms,
# running maxima, streaming log-sum-exp): sort (stable, descending), argsort, topk, kthvalue, median and
# nanmedian, mode, quantile / nanquantile with every interpolation, searchsorted (right, side, sorter),
# bucketize, unique (sorted, return_inverse, return_counts, dim), unique_consecutive, histc, histogram,
# bincount (weights, minlength), cummax / cummin, logcumsumexp, cumprod, cumsum, diff, count_nonzero, msort,
# var / std / var_mean with correction=, aminmax, nan_to_num, isin; and the dtype of every result.
import torch

torch.manual_seed(0)
nan, inf = float("nan"), float("inf")


def show(name, t):
    """A result and its dtype (the tuple results of sort/topk/... print field by field)."""
    if isinstance(t, tuple):
        print(name, type(t).__name__, [part.dtype for part in t])
        for part in t:
            print("   ", part)
    else:
        print(name, t.dtype if isinstance(t, torch.Tensor) else type(t).__name__)
        print("   ", t)


# ---- sort / argsort / msort
x = torch.tensor([[3, 1, 2, 1, 3], [0, 5, 5, -1, 2]])
show("sort", torch.sort(x))
show("sort descending dim=0", torch.sort(x, dim=0, descending=True))
r = torch.sort(x[0], stable=True)
print("stable ties keep order", r.indices.tolist(), "namedtuple", r.values.tolist() == r[0].tolist())
print("stable descending", torch.sort(x[0], descending=True, stable=True).indices.tolist())
print("argsort", torch.argsort(x, dim=1).tolist(), torch.argsort(x[1], descending=True, stable=True).tolist())
f = torch.tensor([2.0, nan, -inf, 0.0, -0.0, inf, 1.0])
print("sort with nan/inf", torch.sort(f).values.tolist(), torch.sort(f, descending=True).values.tolist())
print("argsort with nan", torch.argsort(f, stable=True).tolist())
print("msort", torch.msort(x).tolist())
print("Tensor.sort", x.sort(1, True).values[0].tolist())
b = torch.tensor([True, False, True])
print("sort bool", torch.sort(b))
vals, idx = torch.empty(0), torch.empty(0, dtype=torch.long)
out = torch.sort(torch.tensor([2.0, 1.0]), out=(vals, idx))
print("sort out=", vals, idx, out.values is vals)

# ---- topk / kthvalue
scores = torch.tensor([[0.1, 0.9, 0.3, 0.9, 0.5], [1.0, -1.0, 0.0, 2.0, 2.0]])
show("topk", torch.topk(scores, 3))
show("topk largest=False", torch.topk(scores, 2, dim=1, largest=False))
print("topk unsorted set", sorted(torch.topk(scores[1], 3, sorted=False).values.tolist()))
show("kthvalue", torch.kthvalue(scores, 2, dim=1))
print("kthvalue with ties", torch.kthvalue(torch.tensor([1.0, 2.0, 2.0, 2.0, 0.0]), 3))
print("topk with ties", torch.topk(torch.tensor([1, 2, 2, 2, 0]), 2).indices.tolist(),
      torch.topk(torch.tensor([1, 2, 2, 2, 0]), 3, largest=False).indices.tolist())
show("kthvalue keepdim", torch.kthvalue(torch.tensor([[4, 1], [2, 3], [0, 9]]), 2, dim=0, keepdim=True))
try:
    torch.topk(scores, 6)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.kthvalue(scores, 0)
except RuntimeError as e:
    print("RuntimeError:", e)

# ---- median / nanmedian / mode
even = torch.tensor([4.0, 1.0, 3.0, 2.0])
print("median of even count is the lower", torch.median(even), "quantile 0.5", torch.quantile(even, 0.5))
m = torch.tensor([[2.0, 7.0, 1.0, 7.0], [5.0, 5.0, 3.0, 0.0], [9.0, 4.0, 4.0, 8.0]])
show("median dim=1", torch.median(m, dim=1))
show("median dim=0 keepdim", torch.median(m, 0, keepdim=True))
print("median int", torch.median(torch.tensor([5, 3, 9, 1])), torch.tensor([5, 3, 9, 1]).median().dtype)
with_nan = torch.tensor([[1.0, nan, 3.0, 2.0], [nan, nan, 1.0, 0.5]])
print("median propagates nan", torch.median(with_nan), torch.median(with_nan, dim=1).values)
show("nanmedian dim=1", torch.nanmedian(with_nan, dim=1))
print("nanmedian all", torch.nanmedian(with_nan), torch.nanmedian(torch.tensor([nan, nan])))
show("mode", torch.mode(torch.tensor([[1, 2, 2, 3, 3], [0, 0, 7, 7, 7]])))
print("mode ties pick the smallest", torch.mode(torch.tensor([3.0, 1.0, 3.0, 1.0, 2.0])))
print("mode dim=0", torch.mode(torch.tensor([[1, 2], [1, 3], [4, 3]]), dim=0))
try:
    torch.median(torch.tensor([]), dim=0)
except IndexError as e:
    print("IndexError:", e)

# ---- quantile / nanquantile
q = torch.tensor([0.0, 0.25, 0.4, 0.5, 0.9, 1.0])
data = torch.tensor([1.0, 7.0, 3.0, 10.0, 4.0])
for interpolation in ("linear", "lower", "higher", "midpoint", "nearest"):
    print(f"quantile {interpolation:8s}", torch.quantile(data, q, interpolation=interpolation).tolist())
print("quantile scalar q", torch.quantile(data, 0.3), torch.quantile(data.double(), 0.3).dtype)
qm = torch.quantile(m, torch.tensor([0.25, 0.75]), dim=1, keepdim=True)
print("quantile dim=1 keepdim", qm.shape)
print(qm)
print("quantile nan", torch.quantile(with_nan, 0.5, dim=1).tolist())
for interpolation in ("linear", "lower", "higher", "midpoint", "nearest"):
    print(f"nanquantile {interpolation:8s}",
          torch.nanquantile(with_nan, 0.4, dim=1, interpolation=interpolation).tolist())
print("nanquantile all nan row", torch.nanquantile(torch.tensor([[nan, nan], [1.0, 2.0]]), 0.5, dim=1).tolist())
print("nearest rounds half to even", torch.quantile(torch.arange(4.0), torch.tensor([1 / 6, 0.5, 5 / 6]),
                                                   interpolation="nearest").tolist())
for bad in (lambda: torch.quantile(data, 1.5), lambda: torch.quantile(data.long(), 0.5),
            lambda: torch.quantile(data, 0.5, interpolation="cubic"),
            lambda: torch.quantile(data, torch.tensor([0.5], dtype=torch.float64))):
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError:", e)

# ---- searchsorted / bucketize
sorted_seq = torch.tensor([[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]])
values = torch.tensor([[3, 6, 9], [3, 6, 9]])
print("searchsorted", torch.searchsorted(sorted_seq, values).tolist())
print("right=True", torch.searchsorted(sorted_seq, values, right=True).tolist())
print("side='right'", torch.searchsorted(sorted_seq, values, side="right").tolist())
print("1-D boundaries, N-D values",
      torch.searchsorted(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([[0.5, 2.0], [3.5, 2.5]])))
print("nan sorts last", torch.searchsorted(torch.tensor([1.0, 2.0, nan]), torch.tensor([nan, 5.0])).tolist())
pos = torch.searchsorted(torch.tensor([1, 3, 5]), 4)
print("scalar value", pos, pos.dtype)
print("out_int32", torch.searchsorted(torch.tensor([1, 3, 5]), torch.tensor([0, 6]), out_int32=True))
unsorted = torch.tensor([5.0, 1.0, 9.0, 3.0])
sorter = torch.argsort(unsorted)
print("sorter", torch.searchsorted(unsorted, torch.tensor([2.0, 5.0, 10.0]), sorter=sorter).tolist())
try:
    torch.searchsorted(sorted_seq, values, right=False, side="right")
except RuntimeError as e:
    print("RuntimeError:", e)
boundaries = torch.tensor([1, 3, 5, 7, 9])
v = torch.tensor([[3, 6, 9], [3, 6, 9]])
print("bucketize", torch.bucketize(v, boundaries).tolist(), torch.bucketize(v, boundaries, right=True).tolist())
print("bucketize dtype", torch.bucketize(torch.tensor([0.5, 8.0]), torch.tensor([1.0, 5.0]), out_int32=True).dtype,
      torch.bucketize(2.5, torch.tensor([1.0, 2.0, 3.0])))
# equal-frequency binning: boundaries at the quantiles
samples = torch.randn(200)
edges = torch.quantile(samples, torch.linspace(0, 1, 5)[1:-1])
print("equal-frequency bins", torch.bincount(torch.bucketize(samples, edges)).tolist())

# ---- unique / unique_consecutive
u = torch.tensor([2, 1, 3, 2, 1, 2])
print("unique", torch.unique(u))
out, inverse, counts = torch.unique(u, return_inverse=True, return_counts=True)
print("unique inverse counts", out.tolist(), inverse.tolist(), counts.tolist(), inverse.dtype, counts.dtype)
print("unique sorted=False as a set", sorted(torch.unique(u, sorted=False).tolist()))
rows = torch.tensor([[1, 2], [3, 4], [1, 2], [0, 9]])
out, inverse, counts = torch.unique(rows, dim=0, return_inverse=True, return_counts=True)
print("unique dim=0", out.tolist(), inverse.tolist(), counts.tolist())
print("unique dim=1", torch.unique(torch.tensor([[1, 0, 1], [2, 5, 2]]), dim=1).tolist())
print("unique float with nan", torch.unique(torch.tensor([1.0, nan, 1.0, nan])))
print("Tensor.unique", u.unique(return_counts=True))
print("unique 2-D flattens", torch.unique(rows).tolist())
c = torch.tensor([1, 1, 2, 2, 3, 1, 1, 2])
out, inverse, counts = torch.unique_consecutive(c, return_inverse=True, return_counts=True)
print("unique_consecutive", out.tolist(), inverse.tolist(), counts.tolist())
print("unique_consecutive dim=0",
      torch.unique_consecutive(torch.tensor([[1, 1], [1, 1], [2, 2], [1, 1]]), dim=0).tolist())
print("unique bool", torch.unique(torch.tensor([True, False, True])))

# ---- histc / histogram / bincount
h = torch.tensor([1.0, 2.0, 1.0, 4.0, 2.5, -1.0, 9.0])
print("histc", torch.histc(h, bins=4, min=0, max=3))
print("histc min=max=0 uses data range", torch.histc(h, bins=5))
print("histc int bins edge", torch.histc(torch.tensor([0.0, 1.0, 2.0, 3.0]), bins=3, min=0, max=3))
hist, bin_edges = torch.histogram(h, bins=4, range=(0.0, 4.0))
print("histogram", hist, bin_edges)
hist, bin_edges = torch.histogram(h, bins=torch.tensor([-2.0, 0.0, 2.0, 10.0]), weight=torch.ones(7) * 0.5)
print("histogram custom edges, weight", hist.tolist(), bin_edges.tolist())
hist, bin_edges = torch.histogram(h, bins=3, density=True)
print("histogram density", [round(v, 5) for v in hist.tolist()], [round(v, 5) for v in bin_edges.tolist()])
print("histogram namedtuple", type(torch.histogram(h, 2)).__name__, torch.histogram(h, 2).bin_edges.dtype)
print("histogramdd", [t.shape for t in torch.histogramdd(torch.randn(10, 2), bins=[3, 4])[1]])
labels = torch.tensor([0, 2, 2, 5, 1, 2])
print("bincount", torch.bincount(labels), torch.bincount(labels).dtype)
print("bincount minlength", torch.bincount(labels, minlength=8).tolist())
w = torch.tensor([0.5, 1.0, 1.0, 2.0, 0.25, 1.5])
print("bincount weights", torch.bincount(labels, weights=w), torch.bincount(labels, weights=w.double()).dtype)
print("bincount int weights", torch.bincount(labels, weights=torch.tensor([1, 2, 3, 4, 5, 6])).dtype)
empty = torch.tensor([], dtype=torch.long)
print("bincount empty", torch.bincount(empty), torch.bincount(empty, minlength=3))
print("class weights", (labels.numel() / (6 * torch.bincount(labels, minlength=6).clamp(min=1).float())).tolist())
for bad in (lambda: torch.bincount(torch.tensor([1, -1])), lambda: torch.bincount(torch.tensor([1.0, 2.0])),
            lambda: torch.bincount(torch.tensor([[1, 2]])), lambda: torch.bincount(labels, weights=w[:3]),
            lambda: torch.bincount(labels, minlength=-1)):
    try:
        bad()
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__ + ":", e)

# ---- cumulative ops
s = torch.tensor([[1.0, 3.0, 2.0, 5.0, 4.0], [0.0, -1.0, 0.0, -2.0, 3.0]])
show("cummax", torch.cummax(s, dim=1))
show("cummin", torch.cummin(s, dim=1))
print("cummax ties take the last index", torch.cummax(torch.tensor([1, 3, 3, 2, 3]), 0).indices.tolist())
print("cummax nan", torch.cummax(torch.tensor([1.0, nan, 3.0]), 0))
print("logcumsumexp", torch.logcumsumexp(torch.tensor([0.0, 1.0, -inf, 2.0]), dim=0))
print("logcumsumexp big", torch.logcumsumexp(torch.tensor([1000.0, 1000.0]), 0).tolist())
print("cumprod", torch.cumprod(torch.tensor([1, 2, 3, 4]), 0),
      torch.cumprod(torch.tensor([1, 2], dtype=torch.int32), 0).dtype)
print("cumprod dtype=", torch.cumprod(torch.tensor([1, 2, 3]), 0, dtype=torch.float32))
print("cumsum bool -> int64", torch.cumsum(torch.tensor([True, False, True]), 0))
print("cumsum uint8 -> int64", torch.tensor([200, 100], dtype=torch.uint8).cumsum(0))
p = torch.tensor([2.0, 0.0, 3.0], requires_grad=True)
torch.cumprod(p, 0).sum().backward()
print("cumprod grad through a zero", p.grad.tolist())
p = torch.tensor([1.0, 3.0, 2.0], requires_grad=True)
torch.cummax(p, 0).values.sum().backward()
print("cummax grad", p.grad.tolist())
p.grad = None
torch.logcumsumexp(p, 0).sum().backward()
print("logcumsumexp grad", [round(g, 4) for g in p.grad.tolist()])

# ---- diff
d = torch.tensor([1, 4, 9, 16, 25])
print("diff", torch.diff(d), "n=2", torch.diff(d, n=2), "n=5", torch.diff(d, n=5))
print("prepend/append", torch.diff(d, prepend=torch.tensor([0]), append=torch.tensor([30, 40])).tolist())
print("diff dim=0", torch.diff(torch.tensor([[1, 2], [4, 8], [9, 3]]), dim=0).tolist())
print("diff bool is xor", torch.diff(torch.tensor([True, True, False, True])))
print("diff float", torch.diff(torch.tensor([0.5, 0.25, 1.0]), n=1, dim=-1))

# ---- count_nonzero / aminmax / nan_to_num / isin
z = torch.tensor([[0, 1, 7, 0], [2, 0, 0, 3]])
print("count_nonzero", torch.count_nonzero(z), torch.count_nonzero(z, dim=1), torch.count_nonzero(z, dim=(0, 1)))
print("count_nonzero float", torch.count_nonzero(torch.tensor([0.0, -0.0, nan, 1e-30])))
show("aminmax", torch.aminmax(m))
show("aminmax dim", torch.aminmax(m, dim=1, keepdim=True))
print("aminmax int", torch.aminmax(z.int()), "nan", torch.aminmax(with_nan))
try:
    torch.aminmax(torch.tensor([]))
except RuntimeError as e:
    print("RuntimeError:", e)
bad = torch.tensor([nan, inf, -inf, 1.5])
print("nan_to_num", torch.nan_to_num(bad))
print("nan_to_num values", torch.nan_to_num(bad, nan=0.0, posinf=1e4, neginf=-1e4))
print("nan_to_num float16", torch.nan_to_num(bad.half()), torch.nan_to_num(bad.double()).tolist())
print("nan_to_num int", torch.nan_to_num(torch.tensor([1, 2])))
print("isin", torch.isin(torch.tensor([[1, 2], [3, 4]]), torch.tensor([2, 3])))
print("isin invert", torch.isin(torch.tensor([1, 2, 3, 4]), torch.tensor([2, 3]), invert=True).tolist())
print("isin scalar", torch.isin(torch.tensor([1.0, 2.5]), 2.5), torch.isin(3, torch.tensor([1, 3])))
print("isin assume_unique", torch.isin(torch.tensor([5, 1, 4]), torch.tensor([4, 5]), assume_unique=True).tolist())
print("isin mixed dtypes", torch.isin(torch.tensor([1, 2]), torch.tensor([1.0, 2.5])).tolist())

# ---- var / std with correction, the *_mean variants, and their dtypes
t = torch.tensor([[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 10.0]])
print("var", torch.var(t), torch.var(t, unbiased=False), torch.var(t, correction=0))
print("var correction=2", torch.var(t, dim=1, correction=2).tolist())
print("std dim=1 keepdim", torch.std(t, dim=1, keepdim=True))
print("std correction=0", torch.std(t, 1, correction=0).tolist())
print("var_mean", torch.var_mean(t, dim=1))
print("std_mean correction=0", torch.std_mean(t, dim=0, correction=0))
print("Tensor.var", t.var(1, unbiased=True).tolist(), t.std(dim=(0, 1)).item())
with __import__("warnings").catch_warnings(record=True) as caught:
    __import__("warnings").simplefilter("always")
    print("var of one element", torch.var(torch.tensor([3.0])), torch.std(torch.tensor([[1.0], [2.0]]), dim=1))
print("warned", [str(c.message).split(" (")[0] for c in caught][:1])
print("var float64", torch.var(t.double(), 1).dtype, "complex", torch.var(torch.tensor([1 + 1j, 1 - 1j])))
try:
    torch.var(torch.tensor([1, 2, 3]))
except RuntimeError as e:
    print("RuntimeError:", e)
print("nanmean", torch.nanmean(with_nan, dim=1).tolist(), "nansum", torch.nansum(with_nan).item())

# ---- a robust scaler: percentile clipping + standardisation, as in preprocessing code
feats = torch.randn(100, 3) * torch.tensor([1.0, 5.0, 0.1]) + torch.tensor([0.0, 10.0, -1.0])
feats[3, 1] = 1000.0
lo, hi = torch.quantile(feats, torch.tensor([0.01, 0.99]), dim=0)
clipped = feats.clamp(min=lo, max=hi)
med = clipped.median(dim=0).values
iqr = torch.quantile(clipped, 0.75, dim=0) - torch.quantile(clipped, 0.25, dim=0)
scaled = (clipped - med) / iqr
print("robust scaler", [round(v, 3) for v in med.tolist()], [round(v, 3) for v in iqr.tolist()])
print("scaled median ~0", [round(v, 4) for v in scaled.median(0).values.tolist()], "max", round(scaled.max().item(), 3))
ranks = feats[:, 0].argsort().argsort()
print("ranks", ranks[:8].tolist(), "top-3 rows", feats[:, 0].topk(3).indices.tolist())
