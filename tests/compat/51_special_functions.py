# torch.special as its reference page lists it: the error functions (erf, erfc, erfinv, erfcx), the
# logistic pair (expit, logit with eps), xlogy / xlog1py, the gamma family (gammaln, digamma / psi,
# polygamma, multigammaln, gammainc / gammaincc, zeta), the modified Bessel functions (i0, i0e, i1, i1e,
# modified_bessel_i0 / i1 / k0 / k1, scaled_modified_bessel_k0 / k1), the Bessel functions (bessel_j0 / j1
# / y0 / y1, spherical_bessel_j0), airy_ai, the normal distribution (ndtr, ndtri, log_ndtr), sinc, entr,
# the reductions (logsumexp, softmax, log_softmax), and the orthogonal polynomials (Chebyshev T / U / V / W
# and their shifted forms, Hermite H / He, Laguerre L, Legendre P), over float32 and float64 inputs with
# edges (0, -0., negative, large, inf, nan), integer inputs (promoted to the default float), Tensor /
# number overloads, out=, and gradients where PyTorch defines them (the error where it does not).
import torch
import torch.special as sp

torch.set_printoptions(precision=5)

x32 = torch.tensor([0.0, -0.0, 0.3, -0.7, 1.0, 2.5, -4.0, 12.0, 30.0, -100.0, float("inf"), float("-inf"), float("nan")])
x64 = x32.double()
pos = torch.tensor([1e-8, 0.1, 0.5, 1.0, 1.5, 3.0, 7.5, 20.0, 80.0, 500.0, float("inf")])
unit = torch.tensor([0.0, 1e-7, 0.01, 0.25, 0.5, 0.75, 0.99, 1 - 1e-7, 1.0, -0.1, 1.1, float("nan")])
ints = torch.tensor([-3, -1, 0, 1, 2, 5, 10])


def show(name, fn, *inputs):
    """fn on each input: its dtype and values, or the exception's class and message."""
    for v in inputs:
        try:
            r = fn(v)
            print(name, str(v.dtype)[6:], "->", str(r.dtype)[6:], r)
        except Exception as e:
            print(name, str(v.dtype)[6:], type(e).__name__, e)


def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as e:
        print(label, type(e).__name__, e)


def grad(name, fn, x):
    """The gradient of fn(x).sum() at x (float64), or the error of trying."""
    x = x.double().clone().requires_grad_(True)
    try:
        y = fn(x)
        (g,) = torch.autograd.grad(y.sum(), x)
        print("grad", name, y.grad_fn.name() if y.grad_fn else None, g)
    except Exception as e:
        print("grad", name, type(e).__name__, e)


# ---- error functions
for name in ["erf", "erfc", "erfcx", "expit", "ndtr", "log_ndtr", "sinc", "entr", "i0", "i0e", "i1", "i1e",
             "gammaln", "digamma", "psi", "expm1", "exp2", "log1p"]:
    fn = getattr(sp, name)
    show(name, fn, x32, x64, ints)
for name in ["erfinv", "ndtri", "logit"]:
    show(name, getattr(sp, name), unit, unit.double(), torch.tensor([0, 1]))
show("logit eps", lambda v: sp.logit(v, eps=1e-3), unit, unit.double())
show("logit eps=0.6", lambda v: sp.logit(v, 0.6), unit)
show("erfcx big", sp.erfcx, torch.tensor([-30.0, -5.0, 5.0, 50.0, 1e10, 1e20]))
show("log_ndtr tails", sp.log_ndtr, torch.tensor([-40.0, -10.0, -1.0, 0.0, 1.0, 6.0, 10.0]),
     torch.tensor([-1e3, -40.0, 8.5, 40.0], dtype=torch.float64))
show("ndtri tails", sp.ndtri, torch.tensor([1e-30, 1e-10, 0.02425, 0.97575, 1 - 1e-7], dtype=torch.float64))
show("erfinv tails", sp.erfinv, torch.tensor([-1.0, -0.999999, 0.999, 1e-10], dtype=torch.float64))

# ---- two-argument functions with number overloads
show("xlogy", lambda v: sp.xlogy(v, torch.tensor(2.5)), x32, x64, ints)
show("xlogy y", lambda v: sp.xlogy(torch.tensor([0.0, 1.0, 2.0]).to(v.dtype if v.is_floating_point() else torch.float32), v[:3]),
     torch.tensor([0.0, -1.0, float("nan")]), torch.tensor([0.0, 0.0, 3.0], dtype=torch.float64))
print("xlogy numbers", sp.xlogy(2.0, torch.tensor([3.0, 0.0])), sp.xlogy(torch.tensor([0.0, 2.0]), 0.0),
      sp.xlogy(torch.tensor([1, 2]), torch.tensor([3, 4])), sp.xlogy(torch.tensor([0.0]), torch.tensor([float("nan")])))
show("xlog1py", lambda v: sp.xlog1py(v, torch.tensor(0.5)), x32, x64, ints)
print("xlog1py numbers", sp.xlog1py(2.0, torch.tensor([3.0, -1.0])), sp.xlog1py(torch.tensor([0.0, 2.0]), -1.0),
      sp.xlog1py(torch.tensor([1, 2]), torch.tensor([3, 4])), sp.xlog1py(torch.tensor([0.0, 1.0]), torch.tensor([-1.0, -2.0])))
q = torch.tensor([0.5, 1.0, 2.0, 10.0, -1.5, -2.0, 0.0])
show("zeta s=2", lambda v: sp.zeta(2.0, v), q, q.double())
show("zeta s varies", lambda v: sp.zeta(v, torch.tensor(1.0)), torch.tensor([1.0, 1.5, 2.0, 3.0, 0.5, -1.0, 20.0, float("inf")]))
print("zeta ints", sp.zeta(torch.tensor([2, 3]), torch.tensor([1, 2])), sp.zeta(torch.tensor([2.0, 4.0]), 1))
a = torch.tensor([0.5, 1.0, 2.0, 10.0, 100.0, 0.0, -1.0, 3.0, 3.0])
xg = torch.tensor([0.3, 1.0, 5.0, 9.0, 110.0, 1.0, 1.0, 0.0, float("inf")])
for dt in (torch.float32, torch.float64):
    print("gammainc", dt, sp.gammainc(a.to(dt), xg.to(dt)), sp.gammaincc(a.to(dt), xg.to(dt)))
attempt("gammainc ints", lambda: sp.gammainc(torch.tensor([1, 2]), torch.tensor([1, 3])))
attempt("gammainc mixed", lambda: sp.gammainc(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 3.0], dtype=torch.float64)))

# ---- polygamma / multigammaln
for n in range(4):
    show(f"polygamma n={n}", lambda v: sp.polygamma(n, v), torch.tensor([0.25, 1.0, 2.5, 10.0, -0.5, 0.0, -2.0, 1e4]),
         torch.tensor([0.25, 1.0, 2.5, 10.0, -0.5, 0.0, -2.0, 1e4], dtype=torch.float64))
for p in (1, 2, 3):
    show(f"multigammaln p={p}", lambda v: sp.multigammaln(v, p), torch.tensor([1.5, 2.0, 5.5, 40.0]),
         torch.tensor([1.5, 2.0, 5.5, 40.0], dtype=torch.float64))
show("multigammaln bad", lambda v: sp.multigammaln(v, 3), torch.tensor([0.5, 2.0]))

# ---- Bessel and Airy functions (computed, no gradient)
bx = torch.tensor([0.0, 1e-3, 0.5, 1.0, 2.25, 5.0, 8.0, 15.0, 30.0, 80.0, -3.0, float("inf"), float("nan")])
for name in ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
             "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
             "spherical_bessel_j0", "airy_ai"]:
    fn = getattr(sp, name, None)
    if fn is None:
        print(name, "missing")
        continue
    show(name, fn, bx, bx.double(), ints)
show("airy_ai range", sp.airy_ai, torch.tensor([-20.0, -8.0, -2.5, -1.0, 0.0, 0.5, 2.0, 5.0, 10.0, 30.0, 105.0],
                                               dtype=torch.float64))

# ---- orthogonal polynomials: (x, n) with tensor / number n, and their ranges
px = torch.tensor([-1.5, -1.0, -0.5, 0.0, 0.3, 0.5, 1.0, 2.0])
pn = torch.tensor([0, 1, 2, 3, 5, 8, 10, 6])
for name in ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
             "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
             "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
             "laguerre_polynomial_l", "legendre_polynomial_p"]:
    fn = getattr(sp, name, None)
    if fn is None:
        print(name, "missing")
        continue
    try:
        print(name, fn(px, pn), fn(px.double(), 3), fn(px, torch.tensor(4.0)), fn(0.5, pn), fn(px.double(), -1),
              fn(px, 30).dtype, fn(px.double(), 12), fn(torch.tensor([1, 2, 3]), 2))
    except Exception as e:
        print(name, type(e).__name__, e)

# ---- reductions
r = torch.tensor([[1.0, 2.0, 3.0], [-1e4, 0.0, 1e4], [float("-inf"), float("-inf"), 0.0]])
print("logsumexp", sp.logsumexp(r, 1), sp.logsumexp(r, 0, keepdim=True), sp.logsumexp(r.double(), (0, 1)))
print("softmax", sp.softmax(r, 1), sp.softmax(r, 0, dtype=torch.float64))
print("log_softmax", sp.log_softmax(r, 1), sp.log_softmax(torch.tensor([1, 2, 3]).float(), 0))
print("logsumexp ints", sp.logsumexp(torch.tensor([1, 2, 3]), 0), sp.logsumexp(torch.empty(0, 3), 0))

# ---- out= and dtype rules
o = torch.empty(3)
sp.erf(torch.tensor([0.1, 0.2, 0.3]), out=o)
print("out", o, sp.i0e(torch.tensor([1.0, 2.0, 3.0]), out=torch.empty(3, dtype=torch.float64)))
o = torch.empty(2)
print("out xlogy", sp.xlogy(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]), out=o), o)
for name, fn in [("erf half", sp.erf), ("i0e half", sp.i0e), ("ndtri half", sp.ndtri), ("log_ndtr half", sp.log_ndtr),
                 ("erfcx half", sp.erfcx), ("bessel_j0 half", sp.bessel_j0), ("digamma half", sp.digamma),
                 ("expit bf16", lambda v: sp.expit(v.bfloat16())), ("entr half", sp.entr), ("sinc half", sp.sinc)]:
    # (64 elements: PyTorch's vectorised loop computes float16 in float32; a short tensor's scalar tail would
    # compute some of them in float16 arithmetic)
    show(name, lambda v: fn(v)[:2], torch.tensor([0.5, 1.5] * 32, dtype=torch.float16))
show("erf bool", sp.erf, torch.tensor([True, False]))
show("erf complex", sp.erf, torch.tensor([1 + 1j]))
show("i0 complex", sp.i0, torch.tensor([1 + 1j]))
for name, call in [("erf number", lambda: sp.erf(0.5)), ("ndtr list", lambda: sp.ndtr([0.5])),
                   ("zeta numbers", lambda: sp.zeta(2.0, 1.0)), ("gammainc number", lambda: sp.gammainc(1.0, torch.tensor(1.0))),
                   ("polygamma negative", lambda: sp.polygamma(-1, torch.tensor(1.0))),
                   ("multigammaln p=0", lambda: sp.multigammaln(torch.tensor(2.0), 0)),
                   ("logit int out", lambda: sp.logit(torch.tensor([0.5]), out=torch.empty(1, dtype=torch.long))),
                   ("xlogy shapes", lambda: sp.xlogy(torch.ones(2), torch.ones(3)))]:
    try:
        print(name, call())
    except Exception as e:
        print(name, type(e).__name__, e)

# ---- gradients
gx = torch.tensor([0.2, 0.9, 2.5, -1.5])
for name in ["erf", "erfc", "erfcx", "expit", "ndtr", "log_ndtr", "sinc", "entr", "i0", "i0e", "i1", "i1e",
             "gammaln", "digamma", "expm1", "exp2", "log1p"]:
    grad(name, getattr(sp, name), gx)
grad("sinc at 0", sp.sinc, torch.tensor([0.0, 1.0]))
grad("entr at 0", sp.entr, torch.tensor([0.0, 1.0]))
grad("i1e at 0", sp.i1e, torch.tensor([0.0, 1.0]))
grad("erfinv", sp.erfinv, torch.tensor([0.1, -0.5, 0.9]))
grad("ndtri", sp.ndtri, torch.tensor([0.1, 0.5, 0.9]))
grad("logit", sp.logit, torch.tensor([0.1, 0.5, 0.9]))
grad("logit eps", lambda v: sp.logit(v, eps=0.2), torch.tensor([0.1, 0.5, 0.9]))
grad("polygamma 1", lambda v: sp.polygamma(1, v), torch.tensor([0.5, 2.0]))
grad("multigammaln", lambda v: sp.multigammaln(v, 2), torch.tensor([1.5, 3.0]))
grad("xlogy x", lambda v: sp.xlogy(v, torch.tensor([2.0, 0.0, 3.0], dtype=torch.float64)), torch.tensor([1.0, 0.0, 0.0]))
grad("xlogy y", lambda v: sp.xlogy(torch.tensor([1.0, 0.0, 2.0], dtype=torch.float64), v), torch.tensor([2.0, 0.0, 3.0]))
grad("xlog1py x", lambda v: sp.xlog1py(v, torch.tensor([2.0, -1.0], dtype=torch.float64)), torch.tensor([1.0, 0.0]))
grad("xlog1py y", lambda v: sp.xlog1py(torch.tensor([1.0, 2.0], dtype=torch.float64), v), torch.tensor([2.0, 0.5]))
grad("zeta q", lambda v: sp.zeta(torch.tensor([2.0, 3.0], dtype=torch.float64), v), torch.tensor([1.0, 2.5]))
grad("zeta x", lambda v: sp.zeta(v, torch.tensor([2.0, 3.0], dtype=torch.float64)), torch.tensor([2.0, 2.5]))
grad("gammainc x", lambda v: sp.gammainc(torch.tensor([2.0, 0.5], dtype=torch.float64), v), torch.tensor([1.0, 3.0]))
grad("gammaincc x", lambda v: sp.gammaincc(torch.tensor([2.0, 0.5], dtype=torch.float64), v), torch.tensor([1.0, 3.0]))
grad("gammainc a", lambda v: sp.gammainc(v, torch.tensor([2.0, 0.5], dtype=torch.float64)), torch.tensor([1.0, 3.0]))
grad("logsumexp", lambda v: sp.logsumexp(v, 0), torch.tensor([1.0, 2.0, 3.0]))
grad("softmax", lambda v: sp.softmax(v, 0) * torch.tensor([1.0, 0.0, 0.0], dtype=torch.float64), torch.tensor([1.0, 2.0, 3.0]))
grad("log_softmax", lambda v: sp.log_softmax(v, 0)[0], torch.tensor([1.0, 2.0, 3.0]))
for name in ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_k1",
             "scaled_modified_bessel_k0", "spherical_bessel_j0", "airy_ai"]:
    if hasattr(sp, name):
        grad(name, getattr(sp, name), torch.tensor([0.5, 2.0]))
if hasattr(sp, "chebyshev_polynomial_t"):
    grad("chebyshev_polynomial_t", lambda v: sp.chebyshev_polynomial_t(v, 3), torch.tensor([0.5, 2.0]))
    grad("hermite_polynomial_h", lambda v: sp.hermite_polynomial_h(v, torch.tensor(2.0)), torch.tensor([0.5, 2.0]))
# second derivatives of the smooth ones
x = torch.tensor([0.3, 1.7], dtype=torch.float64, requires_grad=True)
for name in ["erf", "erfcx", "gammaln", "log_ndtr", "i0e", "expit"]:
    (g,) = torch.autograd.grad(getattr(sp, name)(x).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    print("second", name, g.detach(), h)
