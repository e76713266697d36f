"""The op table: every op the fuzzer knows, as PyTorch source templates.

An ``Op`` has one or more *forms* (source templates such as ``"torch.exp({0})"`` and
``"{0}.exp()"``; ``{0}``, ``{1}`` are operands, ``{dim}`` a named parameter, ``{kw}`` the
remaining parameters as keyword arguments), and a ``make(g, x)`` that picks the
operands and parameters given the first operand ``x`` (see gen.Gen for ``g``).

Flags: ``kinds`` (the dtypes it is meant for; others are tried rarely, for error
parity), ``grad`` (differentiable: in the double-backward sweep), ``smooth``
(continuous in its inputs: when inputs differ by rounding, outputs still compare;
``floor``, ``argmax`` or ``>`` are not), ``strides`` (compare ``stride()``: views and
layout-producing ops), ``inplace``, ``stmt`` (a statement: ``{0}[idx] = {1}``).
"""
import string

from .gen import skip
from .program import DTYPES, FLOATS, INTS, Code, dt

KINDS = {
    "float": set(FLOATS),
    "int": set(INTS),
    "intbool": set(INTS) | {"bool"},
    "num": set(FLOATS) | set(INTS),
    "any": set(DTYPES),
}


class Op:
    def __init__(self, name, forms, make=None, kinds="any", grad=True, smooth=True, strides=False,
                 inplace=False, stmt=False, weight=1.0, min_dim=0, max_dim=9, group="misc", grad_fn=True):
        self.name = name
        self.forms = [forms] if isinstance(forms, str) else list(forms)
        self._make = make
        self.kinds, self.grad, self.smooth, self.strides = kinds, grad, smooth, strides
        self.inplace, self.stmt, self.weight = inplace, stmt, weight
        self.min_dim, self.max_dim, self.group = min_dim, max_dim, group
        self.check_grad_fn = grad_fn   # False: a documented difference in the recorded node

    def accepts(self, dtype, ndim):
        return dtype in KINDS[self.kinds] and self.min_dim <= ndim <= self.max_dim

    def forms_for(self, n_operands):
        """The indices of the forms that use exactly ``n_operands`` operands (else all forms)."""
        fits = [i for i, f in enumerate(self.forms) if _n_positional(f) == n_operands]
        return fits or list(range(len(self.forms)))

    def make(self, g, x):
        """(operands, params) for first operand ``x``."""
        if self._make is None:
            return [x], {}
        return self._make(g, x)

    def __repr__(self):
        return f"Op({self.name})"


OPS = {}


def _n_positional(template):
    """How many operands a template uses (its highest ``{i}`` + 1)."""
    idx = [int(f) for _, f, _, _ in string.Formatter().parse(template) if f and f.isdigit()]
    return max(idx) + 1 if idx else 0


def add(name, forms, **kw):
    OPS[name] = Op(name, forms, **kw)


# --------------------------------------------------------------------------- helpers for make()

def unary(**params):
    """make() for a one-operand op; ``params`` are callables g, x -> value (or constants)."""
    def make(g, x):
        return [x], {k: (v(g, x) if callable(v) else v) for k, v in params.items()}
    return make


def binary(scalar_p=0.25, dtype=None, **params):
    def make(g, x):
        d = dtype(g, x) if callable(dtype) else dtype
        return [x, g.other(x, dtype=d, scalar_p=scalar_p)], {k: v(g, x) for k, v in params.items()}
    return make


def tensor_binary(dtype=None):
    """Both operands tensors (the second may be 0-dim)."""
    return binary(scalar_p=0.0, dtype=dtype)


def dim_(g, x):
    return g.dim(x)


def keepdim_(g, x):
    return g.coin()


def same_float(g, x):
    d = g.dtype_of(x)
    return d if d in FLOATS else "float32"


def like_float(g, x, shape=None, requires_grad=None, **kw):
    """A new float input with x's float dtype (float32 for non-float x)."""
    return g.fresh(g.shape_of(x) if shape is None else shape, same_float(g, x), requires_grad=requires_grad, **kw)


# --------------------------------------------------------------------------- elementwise unary
FLOAT_MATH = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan",
              "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc",
              "erfinv", "reciprocal", "lgamma", "digamma", "sinc", "deg2rad", "rad2deg", "logit", "i0"]
for _n in FLOAT_MATH:
    add(_n, [f"torch.{_n}({{0}})", f"{{0}}.{_n}()"], kinds="float", group="unary")
add("special.expit", "torch.special.expit({0})", kinds="float", group="unary")
add("special.xlog1py", "torch.special.xlog1py({0}, {1})", make=binary(), kinds="float", group="binary")
add("special.entr", "torch.special.entr({0})", kinds="float", group="unary")
add("special.log_ndtr", "torch.special.log_ndtr({0})", kinds="float", group="unary")
add("special.ndtr", "torch.special.ndtr({0})", kinds="float", group="unary")

for _n in ["abs", "neg", "square", "positive"]:
    add(_n, [f"torch.{_n}({{0}})", f"{{0}}.{_n}()"], kinds="num", group="unary")
add("neg_op", "-{0}", kinds="num", group="unary")
add("abs_builtin", "abs({0})", kinds="num", group="unary")
for _n in ["sign", "sgn", "floor", "ceil", "round", "trunc", "frac", "signbit", "isnan", "isinf", "isfinite",
           "isposinf", "isneginf", "isreal"]:
    add(_n, [f"torch.{_n}({{0}})", f"{{0}}.{_n}()"], kinds="num" if _n not in ("frac",) else "float",
        smooth=False, group="unary")
add("round_decimals", "torch.round({0}, decimals={d})", make=unary(d=lambda g, x: g.int(-1, 2)), kinds="float",
    smooth=False, group="unary")
add("logical_not", ["torch.logical_not({0})", "{0}.logical_not()"], smooth=False, group="unary")
add("bitwise_not", ["torch.bitwise_not({0})", "~{0}"], kinds="intbool", smooth=False, group="unary")
add("nan_to_num", "torch.nan_to_num({0}{kw})", make=unary(nan=lambda g, x: g.choice([0.0, 1.5]),
                                                          posinf=lambda g, x: g.choice([None, 9.0])),
    kinds="float", group="unary")
add("relu", ["torch.relu({0})", "{0}.relu()", "F.relu({0})"], kinds="num", group="unary")
add("clone", ["{0}.clone()", "torch.clone({0})"], strides=True, weight=1.5, group="shape")
add("detach", "{0}.detach()", strides=True, group="shape")
add("contiguous", "{0}.contiguous()", strides=True, group="shape")

# --------------------------------------------------------------------------- elementwise binary
ARITH = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floor_divide": "//", "remainder": "%", "pow": "**"}
for _n, _o in ARITH.items():
    forms = [f"torch.{_n}({{0}}, {{1}})", f"{{0}}.{_n}({{1}})", f"{{0}} {_o} {{1}}"]
    if _n in ("add", "sub", "mul", "div", "pow", "remainder"):
        forms.append(f"{{1}} {_o} {{0}}")   # reflected: 2.0 - x, 1 / x
    add(_n, forms, make=binary(), kinds="num" if _n != "add" else "any", weight=2.0,
        smooth=_n not in ("floor_divide", "remainder"), group="binary")
add("add_alpha", "torch.add({0}, {1}, alpha={alpha})",
    make=binary(alpha=lambda g, x: g.choice([2, -1, 0.5])), kinds="num", group="binary")
add("sub_alpha", "torch.sub({0}, {1}, alpha={alpha})",
    make=binary(alpha=lambda g, x: g.choice([2, -1, 0.5])), kinds="num", group="binary")
add("div_mode", "torch.div({0}, {1}, rounding_mode={mode})",
    make=binary(mode=lambda g, x: g.choice(["trunc", "floor"])), kinds="num", smooth=False, group="binary")
for _n in ["true_divide", "fmod", "atan2", "maximum", "minimum", "fmax", "fmin", "hypot", "copysign", "xlogy",
           "logaddexp", "logaddexp2", "nextafter", "heaviside", "float_power", "rsub", "ldexp"]:
    add(_n, f"torch.{_n}({{0}}, {{1}})",
        make=binary(scalar_p=0.0 if _n in ("maximum", "minimum", "fmax", "fmin", "nextafter", "heaviside",
                                            "atan2", "hypot", "logaddexp", "logaddexp2", "ldexp") else 0.25),
        kinds="num", smooth=_n not in ("fmod", "copysign", "nextafter", "heaviside"), group="binary")
for _n, _o in {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}.items():
    add(_n, [f"torch.{_n}({{0}}, {{1}})", f"{{0}} {_o} {{1}}", f"{{0}}.{_n}({{1}})"], make=binary(), smooth=False,
        group="compare")
for _n in ["logical_and", "logical_or", "logical_xor"]:
    add(_n, f"torch.{_n}({{0}}, {{1}})", make=tensor_binary(), smooth=False, group="compare")
for _n, _o in {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}.items():
    add(_n, [f"torch.{_n}({{0}}, {{1}})", f"{{0}} {_o} {{1}}"], make=binary(), kinds="intbool", smooth=False,
        group="binary")
add("bitwise_shift", ["{0} << {1}", "{0} >> {1}"],
    make=lambda g, x: ([x, g.int(0, 3) if g.coin(0.6) else g.fresh(g.bshape(g.shape_of(x)), g.dtype_of(x),
                                                                   data=None)], {}),
    kinds="int", smooth=False, group="binary")
add("isclose", "torch.isclose({0}, {1}{kw})", make=lambda g, x: ([x, g.other(x, scalar_p=0)],
                                                                 {"equal_nan": g.coin()}), smooth=False,
    group="compare")
add("clamp", ["torch.clamp({0}{kw})", "{0}.clamp({kw})", "torch.clip({0}{kw})"],
    make=lambda g, x: ([x], {"min": g.choice([None, -0.5, -1, 0]), "max": g.choice([None, 0.5, 1, 2])}),
    kinds="num", group="binary")
add("clamp_tensor", "torch.clamp({0}, min={1}, max={2})",
    make=lambda g, x: ([x, g.other(x, scalar_p=0), g.other(x, scalar_p=0)], {}), kinds="num", group="binary")
add("clamp_min", "torch.clamp_min({0}, {v})", make=unary(v=lambda g, x: g.scalar()), kinds="num", group="binary")
add("where", ["torch.where({2}, {0}, {1})", "{0}.where({2}, {1})"],
    make=lambda g, x: ([x, g.other(x), g.fresh(g.bshape(g.shape_of(x)), "bool")], {}), kinds="num", group="binary")
add("where_cmp", "torch.where({0} > {t}, {0}, {1})", make=binary(t=lambda g, x: g.choice([0, 0.5])), kinds="num",
    group="binary")
add("lerp", "torch.lerp({0}, {1}, {w})",
    make=lambda g, x: ([x, g.fresh(g.bshape(g.shape_of(x)), g.dtype_of(x))], {"w": g.choice([0.25, 0.5, 1.5])}),
    kinds="float", group="binary")
add("addcmul", "torch.addcmul({0}, {1}, {2}, value={v})",
    make=lambda g, x: ([x, g.other(x, scalar_p=0), g.other(x, scalar_p=0)], {"v": g.choice([1, 0.5, -2])}),
    kinds="num", group="binary")
add("addcdiv", "torch.addcdiv({0}, {1}, {2}, value={v})",
    make=lambda g, x: ([x, g.other(x, scalar_p=0), g.other(x, scalar_p=0)], {"v": g.choice([1, 0.5, -2])}),
    kinds="float", group="binary")
add("masked_fill", "{0}.masked_fill({1}, {v})",
    make=lambda g, x: ([x, g.fresh(g.bshape(g.shape_of(x)), "bool")], {"v": g.scalar()}), group="binary")

# --------------------------------------------------------------------------- reductions
def red_params(g, x, dim=True, keepdim=True, dtype=False):
    p = {}
    if dim and g.coin(0.75):
        p["dim"] = g.dim(x) if g.coin(0.6) or not g.val(x).dim() else g.dims(x)
        if keepdim and g.coin(0.5):
            p["keepdim"] = g.coin()
    if dtype and g.coin(0.2):
        p["dtype"] = dt(g.choice(["float64", "float32", "int64", "float16"]))
    return p


add("sum", ["torch.sum({0}{kw})", "{0}.sum({kw})"], make=lambda g, x: ([x], red_params(g, x, dtype=True)),
    weight=2.0, group="reduction")
add("nansum", "torch.nansum({0}{kw})", make=lambda g, x: ([x], red_params(g, x)), kinds="float", group="reduction")
add("mean", ["torch.mean({0}{kw})", "{0}.mean({kw})"], make=lambda g, x: ([x], red_params(g, x, dtype=True)),
    kinds="float", weight=1.5, group="reduction")
add("nanmean", "torch.nanmean({0}{kw})", make=lambda g, x: ([x], red_params(g, x)), kinds="float",
    group="reduction")


def _int_dim_params(g, x, dtype=False, keepdim=True):
    p = {}
    if g.coin(0.7):
        p["dim"] = g.dim(x)
        if keepdim and g.coin(0.5):
            p["keepdim"] = g.coin()
    if dtype and g.coin(0.2):
        p["dtype"] = dt(g.choice(["float64", "int64"]))
    return p


add("prod", ["torch.prod({0}{kw})", "{0}.prod({kw})"], make=lambda g, x: ([x], _int_dim_params(g, x, dtype=True)),
    kinds="num", group="reduction")


def _var_params(g, x):
    # PyTorch's var/std backward takes dim=() as N = 1 (a wrong gradient that later steps of a program carry
    # on under other ops' names: known.py's var entries); reduce-all is the same forward, so ask for that.
    p = red_params(g, x)
    if p.get("dim") == ():
        p["dim"] = None
    return p


for _n in ["std", "var"]:
    add(_n, [f"torch.{_n}({{0}}{{kw}})", f"{{0}}.{_n}({{kw}})"],
        make=lambda g, x: ([x], dict(_var_params(g, x), **({"correction": g.choice([0, 1, 2])} if g.coin(0.5)
                                                             else {}))),
        kinds="float", group="reduction")
    add(f"{_n}_mean", f"torch.{_n}_mean({{0}}{{kw}})", make=lambda g, x: ([x], _var_params(g, x)), kinds="float",
        group="reduction")
add("std_unbiased", "{0}.std({dim}, unbiased={u})", make=unary(dim=dim_, u=lambda g, x: g.coin()), kinds="float",
    group="reduction")
add("norm", ["torch.norm({0}{kw})", "{0}.norm({kw})"],
    make=lambda g, x: ([x], dict(red_params(g, x, keepdim=True), p=g.choice([2, 1, 3.0, float("inf")]))),
    kinds="float", group="reduction")
add("vector_norm", "torch.linalg.vector_norm({0}{kw})",
    make=lambda g, x: ([x], dict(red_params(g, x), ord=g.choice([2, 1, 0, 0.5, float("inf"), float("-inf")]))),
    kinds="float", group="reduction")
for _n in ["amax", "amin"]:
    add(_n, f"torch.{_n}({{0}}{{kw}})", make=lambda g, x: ([x], red_params(g, x)), kinds="num",
        group="reduction")
for _n in ["max", "min"]:
    add(_n, [f"torch.{_n}({{0}})", f"{{0}}.{_n}()"], kinds="any", group="reduction")
    add(f"{_n}_dim", f"torch.{_n}({{0}}, {{dim}}{{kw}})", make=lambda g, x: ([x], dict(_int_dim_params(g, x),
                                                                                    dim=g.dim(x))),
        kinds="num", group="reduction")
    add(f"{_n}_binary", f"torch.{_n}({{0}}, {{1}})", make=tensor_binary(), kinds="num", group="binary")
for _n in ["argmax", "argmin"]:
    add(_n, f"torch.{_n}({{0}}{{kw}})", make=lambda g, x: ([x], _int_dim_params(g, x)), kinds="num", smooth=False,
        group="reduction")
add("logsumexp", "torch.logsumexp({0}, {dim}{kw})",
    make=lambda g, x: ([x], dict(red_params(g, x), dim=g.dim(x) if g.coin(0.7) else g.dims(x))), kinds="float",
    group="reduction")
for _n in ["cumsum", "cumprod"]:
    add(_n, [f"torch.{_n}({{0}}, {{dim}}{{kw}})", f"{{0}}.{_n}({{dim}}{{kw}})"],
        make=lambda g, x: ([x], dict(dim=g.dim(x), **({"dtype": dt(g.choice(["float64", "int64"]))}
                                                     if g.coin(0.15) else {}))),
        kinds="num", group="reduction")
for _n in ["cummax", "cummin"]:
    add(_n, f"torch.{_n}({{0}}, {{dim}})", make=unary(dim=dim_), kinds="num", group="reduction")
add("logcumsumexp", "torch.logcumsumexp({0}, {dim})", make=unary(dim=dim_), kinds="float", group="reduction")
for _n in ["all", "any"]:
    add(_n, [f"torch.{_n}({{0}}{{kw}})", f"{{0}}.{_n}({{kw}})"], make=lambda g, x: ([x], _int_dim_params(g, x)),
        smooth=False, group="reduction")
add("count_nonzero", "torch.count_nonzero({0}{kw})",
    make=lambda g, x: ([x], {"dim": g.dim(x)} if g.coin(0.5) else {}), smooth=False, group="reduction")
def _median(g, x):
    # PyTorch's CPU median of an expanded input (a 0 stride) reads memory it never wrote (values like
    # 4.6e-41 or -58 for an all-equal input): no reference to compare with, so such inputs are not generated
    v = g.val(x)
    if any(st == 0 and n > 1 for st, n in zip(v.stride(), v.shape)):
        skip()
    return [x], {"dim": dim_(g, x)}


add("median", ["torch.median({0})", "torch.median({0}, {dim})"], make=_median, kinds="num", group="reduction")
add("aminmax", "torch.aminmax({0}{kw})", make=lambda g, x: ([x], _int_dim_params(g, x)), kinds="num",
    group="reduction")
add("diff", "torch.diff({0}{kw})", make=lambda g, x: ([x], {"dim": g.dim(x)} if g.coin(0.5) else {}), kinds="num",
    min_dim=1, group="reduction")
add("trace", "torch.trace({0})", kinds="num", min_dim=2, max_dim=2, group="reduction")

# --------------------------------------------------------------------------- shape and view ops


def _reshape(g, x):
    shape = g.shape_of(x)
    n = 1
    for s in shape:
        n *= s
    divs = [d for d in range(1, n + 1) if n % d == 0] or [0]
    r = g.rng.random()
    if r < 0.3:
        new = (n,)
    elif r < 0.6 and n:
        a = g.choice(divs)
        new = (a, n // a)
    elif r < 0.75 and n:
        a = g.choice(divs)
        new = (n // a, -1) if g.coin() else (-1, a)
    elif r < 0.85:
        new = tuple(reversed(shape))
    else:
        new = shape + (1,)
    return new


add("view", ["{0}.view({shape})", "{0}.view(*{shape})"], make=unary(shape=_reshape), strides=True,
    group="shape")
add("reshape", ["{0}.reshape({shape})", "torch.reshape({0}, {shape})"], make=unary(shape=_reshape), strides=True,
    group="shape")
add("flatten", "{0}.flatten({kw})",
    make=lambda g, x: ([x], {} if g.coin(0.3) else {"start_dim": g.dim(x), "end_dim": g.dim(x)}), strides=True,
    group="shape")
add("unsqueeze", ["{0}.unsqueeze({d})", "torch.unsqueeze({0}, {d})", "{0}[..., None]", "{0}[None]"],
    make=lambda g, x: ([x], {"d": g.int(-g.val(x).dim() - 1, g.val(x).dim())}), strides=True, group="shape")
add("squeeze", ["{0}.squeeze()", "{0}.squeeze({d})", "torch.squeeze({0}, {d})"], make=unary(d=dim_), strides=True,
    group="shape")
add("transpose", ["{0}.transpose({a}, {b})", "torch.transpose({0}, {a}, {b})", "{0}.swapaxes({a}, {b})"],
    make=unary(a=dim_, b=dim_), strides=True, group="shape")
add("t", ["{0}.t()", "torch.t({0})"], strides=True, max_dim=2, group="shape")
add("mT", "{0}.mT", strides=True, min_dim=2, group="shape")
add("T2d", "{0}.T", strides=True, max_dim=2, group="shape")
add("permute", ["{0}.permute({p})", "torch.permute({0}, {p})"],
    make=unary(p=lambda g, x: tuple(int(i) for i in g.rng.permutation(g.val(x).dim()))), strides=True,
    group="shape")


def _expand(g, x):
    shape = g.shape_of(x)
    new = [g.int(2, 3) if s == 1 and g.coin(0.7) else (-1 if g.coin(0.2) else s) for s in shape]
    if g.coin(0.4):
        new = [g.int(1, 3)] + new
    return tuple(new)


add("expand", ["{0}.expand({shape})", "{0}.expand(*{shape})"], make=unary(shape=_expand), strides=True,
    group="shape")
add("expand_as", "{0}.expand_as({1})",
    make=lambda g, x: ([x, g.fresh(tuple(_expand(g, x)), g.dtype_of(x), layout="contiguous")], {}) if -1 not in
    _expand(g, x) else skip(), strides=True, group="shape")


def _narrow(g, x):
    if g.val(x).dim() == 0:
        skip()
    d = g.dim(x, bad=0)
    n = g.shape_of(x)[d]
    start = g.int(0, n)
    return [x], {"d": d, "start": start, "length": g.int(0, n - start)}


add("narrow", "{0}.narrow({d}, {start}, {length})", make=_narrow, strides=True, min_dim=1, group="shape")


def _select(g, x):
    d = g.dim(x)
    n = g.shape_of(x)[d] if -g.val(x).dim() <= d < g.val(x).dim() else 1
    return [x], {"d": d, "i": g.int(-n, n - 1) if n and g.coin(0.95) else n}


add("select", ["{0}.select({d}, {i})", "torch.select({0}, {d}, {i})"], make=_select, strides=True, min_dim=1,
    group="shape")


def basic_index(g, x):
    """A tuple of ints, slices, None and Ellipsis valid for x (rarely an out-of-range int)."""
    shape = g.shape_of(x)
    idx, used_ellipsis = [], False
    for n in shape:
        r = g.rng.random()
        if r < 0.25 and n:
            idx.append(g.int(-n, n - 1) if g.coin(0.97) else n)
        elif r < 0.6:
            a, b = sorted(g.int(-n - 1, n + 1) for _ in range(2))
            idx.append(slice(g.choice([None, a]), g.choice([None, b]), g.choice([None, None, 2, 3])))
        elif r < 0.7:
            idx.append(None)
            idx.append(slice(None))
        elif r < 0.8 and not used_ellipsis:
            idx.append(Ellipsis)
            used_ellipsis = True
            break
        else:
            idx.append(slice(None))
    if g.coin(0.15):
        idx.append(None)
    return tuple(idx)


def tensor_index(g, x):
    """An advanced index: an int64 index tensor, a bool mask, or a list, maybe with slices."""
    shape = g.shape_of(x)
    if not shape:
        return (Code("torch.tensor(True)") if g.coin() else None,)
    d = g.int(0, len(shape) - 1)
    n = shape[d]
    r = g.rng.random()
    if r < 0.35:
        k = g.int(0, 4)
        vals = [g.int(-n, n - 1) if n else 0 for _ in range(k)]
        if n and g.coin(0.04):
            vals.append(n)
        entry = Code(f"torch.tensor({vals!r}, dtype=torch.int64)")
    elif r < 0.5:
        k = g.int(1, 3)
        vals = [[g.int(0, max(n - 1, 0)) for _ in range(k)] for _ in range(2)]
        entry = Code(f"torch.tensor({vals!r})")
    elif r < 0.8:
        mask = [bool(b) for b in g.rng.random(n) < 0.5]
        entry = Code(f"torch.tensor({mask!r}, dtype=torch.bool)")
    else:
        entry = [g.int(-n, n - 1) for _ in range(g.int(1, 3))] if n else [0]
    idx = [slice(None)] * d + [entry]
    if g.coin(0.3) and d + 1 < len(shape):
        m = shape[d + 1]
        idx.append(Code(f"torch.tensor({[g.int(0, max(m - 1, 0))]!r})") if g.coin() else 0)
    return tuple(idx)


def full_mask(g, x):
    """A bool mask of x's whole shape (x[mask])."""
    shape = g.shape_of(x)
    return (Code(f"torch.tensor({(g.rng.random(shape) < 0.5).tolist()!r}, dtype=torch.bool)"),)


add("getitem", "{0}[{idx}]", make=unary(idx=basic_index), strides=True, weight=2.0, group="index")
add("getitem_adv", "{0}[{idx}]", make=unary(idx=tensor_index), weight=2.0, group="index")
add("getitem_mask", "{0}[{idx}]", make=unary(idx=full_mask), group="index")


def _setitem(idx_fn):
    def make(g, x):
        idx = idx_fn(g, x)
        try:
            target = tuple(g.val(x)[idx_eval(g, idx)].shape)
        except Exception:
            target = g.shape_of(x)
        value = g.scalar() if g.coin(0.4) else g.fresh(g.bshape(target), g.dtype_of(x) if g.coin(0.8)
                                                        else g.choice(DTYPES), layout="contiguous")
        return [x, value], {"idx": idx}
    return make


def idx_eval(g, idx):
    """The index tuple evaluated with PyTorch (Code entries are source)."""
    from .program import index_src
    return eval(f"_i[{index_src(idx)}]", {"torch": g.ns["torch"], "_i": _Indexer()})


class _Indexer:
    def __getitem__(self, k):
        return k


add("setitem", "{0}[{idx}] = {1}", make=_setitem(basic_index), stmt=True, inplace=True, weight=1.5,
    group="index")
add("setitem_adv", "{0}[{idx}] = {1}", make=_setitem(tensor_index), stmt=True, inplace=True, group="index")


def _diag(g, x):
    return [x], {"offset": g.int(-1, 1), "dim1": g.dim(x), "dim2": g.dim(x)}


add("diagonal", ["{0}.diagonal({kw})", "torch.diagonal({0}{kw})"], make=_diag, strides=True, min_dim=2,
    group="shape")
add("movedim", "torch.movedim({0}, {a}, {b})", make=unary(a=dim_, b=dim_), strides=True, group="shape")
add("flip", "torch.flip({0}, {dims})", make=unary(dims=lambda g, x: g.dims(x)), group="shape")
add("roll", "torch.roll({0}, {s}, {d})", make=unary(s=lambda g, x: g.int(-2, 3), d=dim_), min_dim=1, group="shape")
add("repeat", "{0}.repeat({r})",
    make=unary(r=lambda g, x: tuple(g.int(1, 2) for _ in range(g.val(x).dim() + g.int(0, 1)))), group="shape")
add("tile", "torch.tile({0}, {r})", make=unary(r=lambda g, x: tuple(g.int(1, 2) for _ in range(g.int(1, 2)))),
    group="shape")
for _n in ["tril", "triu"]:
    add(_n, f"torch.{_n}({{0}}, {{k}})", make=unary(k=lambda g, x: g.int(-1, 1)), min_dim=2, group="shape")


def _cat(g, x):
    shape = list(g.shape_of(x))
    if not shape:
        skip()
    d = g.dim(x)
    other = list(shape)
    if -len(shape) <= d < len(shape):
        other[d] = g.int(0, 2)
    return [x, g.fresh(tuple(other), g.dtype_of(x) if g.coin(0.8) else g.choice(DTYPES))], {"d": d}


add("cat", ["torch.cat([{0}, {1}], {d})", "torch.cat(({0}, {1}), dim={d})", "torch.concat([{0}, {1}], {d})"],
    make=_cat, min_dim=1, group="join")
add("stack", "torch.stack([{0}, {1}], {d})",
    make=lambda g, x: ([x, g.fresh(g.shape_of(x), g.dtype_of(x))], {"d": g.int(-g.val(x).dim() - 1,
                                                                            g.val(x).dim())}),
    group="join")
add("split", ["torch.split({0}, {s}, {d})", "{0}.split({s}, dim={d})"],
    make=lambda g, x: ([x], {"s": g.int(1, 3), "d": g.dim(x)}), strides=True, min_dim=1, group="join")
add("chunk", "torch.chunk({0}, {c}, {d})", make=lambda g, x: ([x], {"c": g.int(1, 3), "d": g.dim(x)}), strides=True,
    min_dim=1, group="join")
add("unbind", "torch.unbind({0}, {d})", make=unary(d=dim_), strides=True, min_dim=1, group="join")
add("unfold", "{0}.unfold({d}, {size}, {step})",
    make=lambda g, x: ([x], {"d": g.dim(x), "size": g.int(1, 2), "step": g.int(1, 2)}), strides=True, min_dim=1,
    group="shape")
for _n in ["float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8", "bool", "int8"]:
    add(f"to_{_n}", f"{{0}}.to(torch.{_n})", weight=0.3, smooth=_n in FLOATS, group="convert")
add("float", ["{0}.float()", "{0}.double()", "{0}.half()", "{0}.long()", "{0}.int()", "{0}.bool()"],
    smooth=False, group="convert")
add("type_as", "{0}.type_as({1})", make=lambda g, x: ([x, g.fresh((), g.choice(DTYPES))], {}), smooth=False,
    group="convert")
add("item", ["{0}.item()", "{0}.tolist()", "float({0})", "int({0})", "bool({0})"], smooth=False, max_dim=1,
    group="convert")

# --------------------------------------------------------------------------- indexing ops with index tensors


def _index_op(src_kind):
    def make(g, x):
        if g.val(x).dim() == 0:
            skip()
        d = g.dim(x, bad=0.02)
        shape = g.shape_of(x)
        n = shape[d] if -len(shape) <= d < len(shape) else 1
        if src_kind == "select":
            vals = [g.int(0, max(n - 1, 0)) for _ in range(g.int(0, 4))]
            return [x], {"d": d, "idx": Code(f"torch.tensor({vals!r}, dtype=torch.int64)")}
        ishape = list(shape)
        ishape[d % len(shape) if -len(shape) <= d < len(shape) else 0] = g.int(0 if n else 0, 3)
        vals = g.rng.integers(0, max(n, 1), ishape).tolist()
        idx = Code(f"torch.tensor({vals!r}, dtype=torch.int64)" if vals else
                   f"torch.zeros({tuple(ishape)!r}, dtype=torch.int64)")
        if src_kind == "gather":
            return [x], {"d": d, "idx": idx}
        src = g.fresh(tuple(ishape), g.dtype_of(x), layout="contiguous")
        return [x, src], {"d": d, "idx": idx}
    return make


add("index_select", ["torch.index_select({0}, {d}, {idx})", "{0}.index_select({d}, {idx})"],
    make=_index_op("select"), min_dim=1, group="index")
add("gather", "torch.gather({0}, {d}, {idx})", make=_index_op("gather"), min_dim=1, group="index")
add("scatter", "torch.scatter({0}, {d}, {idx}, {1})", make=_index_op("scatter"), min_dim=1, group="index")
add("scatter_add", "torch.scatter_add({0}, {d}, {idx}, {1})", make=_index_op("scatter"), min_dim=1, group="index")
add("index_add", "torch.index_add({0}, {d}, {idx}, {1})",
    make=lambda g, x: _index_add(g, x), min_dim=1, group="index")


def _index_add(g, x):
    d = g.dim(x, bad=0)
    shape = list(g.shape_of(x))
    n = shape[d]
    k = g.int(0, 3)
    vals = [g.int(0, max(n - 1, 0)) for _ in range(k)]
    shape[d] = k
    return [x, g.fresh(tuple(shape), g.dtype_of(x), layout="contiguous")], {
        "d": d, "idx": Code(f"torch.tensor({vals!r}, dtype=torch.int64)")}


add("masked_select", "torch.masked_select({0}, {1})",
    make=lambda g, x: ([x, g.fresh(g.bshape(g.shape_of(x)), "bool")], {}), group="index")
add("take", "torch.take({0}, {idx})",
    make=lambda g, x: ([x], {"idx": Code(f"torch.tensor({[g.int(0, max(g.val(x).numel() - 1, 0)) for _ in range(3)]!r})")})
    if g.val(x).numel() else skip(), group="index")
add("nonzero", ["torch.nonzero({0})", "{0}.nonzero(as_tuple=True)", "torch.where({0})"], smooth=False,
    group="index")
add("sort", "torch.sort({0}{kw}, stable=True)",
    make=lambda g, x: ([x], {"dim": g.dim(x), "descending": g.coin()}), kinds="num", group="sort")
add("argsort", "torch.argsort({0}{kw}, stable=True)",
    make=lambda g, x: ([x], {"dim": g.dim(x), "descending": g.coin()}), kinds="num", smooth=False, group="sort")
add("topk_values", "torch.topk({0}, {k}, {d}).values",
    make=lambda g, x: ([x], {"k": g.int(0, 2), "d": g.dim(x)}), kinds="num", group="sort")

# --------------------------------------------------------------------------- in-place ops
for _n in ["add_", "sub_", "mul_", "div_"]:
    add(_n, [f"{{0}}.{_n}({{1}})"], make=binary(), inplace=True, kinds="num", group="inplace")
add("iadd", "{0} += {1}", make=binary(), inplace=True, stmt=True, kinds="num", group="inplace")
add("imul", "{0} *= {1}", make=binary(), inplace=True, stmt=True, kinds="num", group="inplace")
for _n in ["exp_", "neg_", "sigmoid_", "abs_", "sqrt_", "tanh_", "zero_", "relu_"]:
    add(_n, f"{{0}}.{_n}()", inplace=True, kinds="float" if _n not in ("zero_", "neg_", "abs_") else "num",
        group="inplace")
add("clamp_", "{0}.clamp_({lo}, {hi})", make=unary(lo=lambda g, x: -0.5, hi=lambda g, x: g.choice([0.5, 1.0])),
    inplace=True, kinds="num", group="inplace")
add("fill_", "{0}.fill_({v})", make=unary(v=lambda g, x: g.scalar()), inplace=True, group="inplace")
add("copy_", "{0}.copy_({1})", make=lambda g, x: ([x, g.other(x, scalar_p=0)], {}), inplace=True,
    group="inplace")
add("masked_fill_", "{0}.masked_fill_({1}, {v})",
    make=lambda g, x: ([x, g.fresh(g.bshape(g.shape_of(x)), "bool")], {"v": g.scalar()}), inplace=True,
    group="inplace")
add("pow_", "{0}.pow_({v})", make=unary(v=lambda g, x: g.choice([2, 0.5, 3])), inplace=True, kinds="num",
    group="inplace")
add("view_inplace", ["{0}[{idx}].mul_({1})", "{0}[{idx}].add_({1})", "{0}[{idx}].zero_()"],
    make=lambda g, x: ([x, g.scalar()], {"idx": basic_index(g, x)}), inplace=True, kinds="num", group="inplace")
add("t_inplace", ["{0}.t().mul_({1})", "{0}.diagonal().add_({1})"],
    make=lambda g, x: ([x, g.scalar("float")], {}), inplace=True, kinds="float", min_dim=2, max_dim=2,
    group="inplace")
add("F_relu_inplace", "F.relu({0}, inplace=True)", inplace=True, kinds="float", group="inplace")

# --------------------------------------------------------------------------- matmul family


def _mm_partner(g, x, kind):
    shape = g.shape_of(x)
    d = same_float(g, x) if g.dtype_of(x) in FLOATS or g.coin(0.8) else g.dtype_of(x)
    if g.coin(0.15):
        d = g.dtype_of(x)
    k = shape[-1] if shape else 1
    m = g.int(0, 3) if g.coin(0.1) else g.int(1, 3)
    if g.coin(0.03):
        k += 1
    if kind == "matmul":
        if len(shape) <= 1:
            pshape = g.choice([(k,), (k, m), (2, k, m)])
        else:
            pshape = g.choice([(k,), (k, m), (shape[0] if len(shape) == 3 else 2, k, m)])
    elif kind == "mm":
        pshape = (k, m)
    elif kind == "bmm":
        pshape = (shape[0] if shape else 1, k, m)
    elif kind == "mv" or kind == "dot":
        pshape = (k,)
    else:
        pshape = (m,)
    return g.fresh(pshape, d)


for _n, _forms, _kind, _dims in [
        ("matmul", ["torch.matmul({0}, {1})", "{0} @ {1}", "torch.linalg.matmul({0}, {1})"], "matmul", (1, 3)),
        ("mm", ["torch.mm({0}, {1})", "{0}.mm({1})"], "mm", (2, 2)),
        ("bmm", "torch.bmm({0}, {1})", "bmm", (3, 3)),
        ("mv", "torch.mv({0}, {1})", "mv", (2, 2)),
        ("dot", ["torch.dot({0}, {1})", "torch.inner({0}, {1})", "torch.vdot({0}, {1})"], "dot", (1, 1)),
        ("outer", ["torch.outer({0}, {1})", "torch.ger({0}, {1})"], "outer", (1, 1))]:
    add(_n, _forms, make=lambda g, x, _k=_kind: ([x, _mm_partner(g, x, _k)], {}), kinds="float",
        min_dim=_dims[0], max_dim=_dims[1], weight=1.5, group="matmul")


def _addmm(g, x):
    shape = g.shape_of(x)
    k = g.int(1, 3)
    a = g.fresh((shape[0], k), g.dtype_of(x))
    b = g.fresh((k, shape[1]), g.dtype_of(x))
    return [x, a, b], {"beta": g.choice([1, 0.5, 0]), "alpha": g.choice([1, 2.0])}


add("addmm", "torch.addmm({0}, {1}, {2}{kw})", make=_addmm, kinds="float", min_dim=2, max_dim=2, group="matmul")


def _einsum(g, x):
    shape = g.shape_of(x)
    n = len(shape)
    letters = "ijkl"[:n]
    eq = g.choice(["plain", "sum", "trans"]) if n else "plain"
    if eq == "plain":
        k = g.int(1, 3)
        other = g.fresh((shape[-1] if n else 1, k), g.dtype_of(x)) if n else g.fresh((k,), g.dtype_of(x))
        spec = f"{letters},{letters[-1]}z->{letters[:-1]}z" if n else ",z->z"
        return [x, other], {"eq": spec}
    if eq == "sum":
        return [x], {"eq": f"{letters}->{letters[0]}"}
    return [x], {"eq": f"{letters}->{letters[::-1]}"}


# grad_fn=False: pedatorch records one EinsumBackward0 node (documented in docs/architecture.md)
add("einsum", ["torch.einsum({eq}, {0})", "torch.einsum({eq}, {0}, {1})"], make=_einsum, kinds="float",
    group="matmul", grad_fn=False)
add("tensordot", "torch.tensordot({0}, {1}, dims={nd})",
    make=lambda g, x: ([x, g.fresh(g.shape_of(x)[-1:] + (2,), g.dtype_of(x))], {"nd": 1}), kinds="float",
    min_dim=1, group="matmul")
add("baddbmm", "torch.baddbmm({0}, {1}, {2})",
    make=lambda g, x: ([x, g.fresh(g.shape_of(x)[:2] + (2,), g.dtype_of(x)),
                        g.fresh((g.shape_of(x)[0], 2, g.shape_of(x)[2]), g.dtype_of(x))], {}),
    kinds="float", min_dim=3, max_dim=3, group="matmul")
add("linear", "F.linear({0}, {1}{b})",
    make=lambda g, x: ([x, g.fresh((g.int(1, 3), g.shape_of(x)[-1] if g.shape_of(x) else 1), g.dtype_of(x))],
                       {"b": Code("") if g.coin(0.4) else Code(", None")}), kinds="float", min_dim=1,
    group="matmul")


# --------------------------------------------------------------------------- nn.functional
ACTS = {"relu6": {}, "elu": {"alpha": [1.0, 0.5]}, "selu": {}, "celu": {"alpha": [1.0, 2.0]},
        "gelu": {"approximate": ["none", "tanh"]}, "silu": {}, "mish": {}, "softplus": {"beta": [1, 2.0],
                                                                                        "threshold": [20, 1.0]},
        "softsign": {}, "tanhshrink": {}, "hardtanh": {"min_val": [-1.0, -0.5], "max_val": [1.0, 2.0]},
        "hardsigmoid": {}, "hardswish": {}, "hardshrink": {"lambd": [0.5, 1.0]},
        "softshrink": {"lambd": [0.5, 1.0]}, "logsigmoid": {}, "leaky_relu": {"negative_slope": [0.01, 0.2]},
        "sigmoid": {}, "tanh": {}}
for _n, _ps in ACTS.items():
    add(f"F.{_n}", f"F.{_n}({{0}}{{kw}})",
        make=lambda g, x, _ps=_ps: ([x], {k: g.choice(v) for k, v in _ps.items() if g.coin(0.6)}), kinds="float",
        group="activation")
add("F.threshold", "F.threshold({0}, {th}, {v})", make=unary(th=lambda g, x: g.choice([0.0, 0.5]),
                                                             v=lambda g, x: g.choice([0.0, -1.0])),
    kinds="float", group="activation")
add("F.rrelu_eval", "F.rrelu({0}, training=False)", kinds="float", group="activation")
add("F.glu", "F.glu({0}, {d})", make=unary(d=dim_), kinds="float", min_dim=1, group="activation")
add("F.prelu", "F.prelu({0}, {1})",
    make=lambda g, x: ([x, g.fresh((1,) if g.val(x).dim() < 2 or g.coin(0.5) else (g.shape_of(x)[1],),
                                   g.dtype_of(x))], {}), kinds="float", group="activation")
for _n in ["softmax", "log_softmax", "softmin"]:
    add(f"F.{_n}", [f"F.{_n}({{0}}, dim={{d}}{{kw}})", f"torch.{_n}({{0}}, {{d}}{{kw}})"
                    if _n != "softmin" else f"F.{_n}({{0}}, {{d}}{{kw}})"],
        make=lambda g, x: ([x], dict(d=g.dim(x), **({"dtype": dt("float64")} if g.coin(0.1) else {}))),
        kinds="float", weight=1.5, group="activation")
add("F.normalize", "F.normalize({0}{kw})", make=lambda g, x: ([x], {"p": g.choice([2.0, 1.0]), "dim": g.dim(x)}),
    kinds="float", group="activation")
add("F.dropout_eval", ["F.dropout({0}, p=0.5, training=False)", "F.dropout({0}, p=0.0)"], kinds="float",
    group="activation")


def _layer_norm(g, x):
    shape = g.shape_of(x)
    k = g.int(1, len(shape)) if shape else 0
    ns = shape[len(shape) - k:]
    ops = [x]
    if g.coin(0.6):
        ops += [g.fresh(ns, g.dtype_of(x)), g.fresh(ns, g.dtype_of(x))]
        return ops, {"ns": ns}
    return ops, {"ns": ns}


add("F.layer_norm", ["F.layer_norm({0}, {ns})", "F.layer_norm({0}, {ns}, {1}, {2})"], make=_layer_norm,
    kinds="float", min_dim=1, group="norm")
add("F.rms_norm", "F.rms_norm({0}, {ns})", make=lambda g, x: ([x], {"ns": g.shape_of(x)[-1:]}), kinds="float",
    min_dim=1, group="norm")


def _batch_norm(g, x):
    shape = g.shape_of(x)
    c = shape[1]
    d = g.dtype_of(x)
    rm = g.fresh((c,), d, requires_grad=False, layout="contiguous")
    rv = g.fresh((c,), d, requires_grad=False, layout="contiguous", data=g.rng.uniform(0.5, 2, c))
    # contiguous: PyTorch 2.13's eval-mode batch-norm double backward reads garbage for a stride-0 weight
    w = g.fresh((c,), d, layout="contiguous")
    b = g.fresh((c,), d, layout="contiguous")
    return [x, rm, rv, w, b], {"training": g.coin()}


add("F.batch_norm", "F.batch_norm({0}, {1}, {2}, {3}, {4}{kw})", make=_batch_norm, kinds="float", min_dim=2,
    max_dim=3, group="norm")
add("F.group_norm", "F.group_norm({0}, 1)", kinds="float", min_dim=2, group="norm")
add("F.instance_norm", "F.instance_norm({0})", kinds="float", min_dim=3, max_dim=3, group="norm")

REDUCTIONS = ["mean", "sum", "none"]


def _loss2(target="same", float_target=True):
    def make(g, x):
        shape = g.shape_of(x)
        t = g.fresh(shape if g.coin(0.9) else g.bshape(shape), g.dtype_of(x), requires_grad=g.coin(0.3))
        return [x, t], {"reduction": g.choice(REDUCTIONS)}
    return make


for _n in ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss"]:
    add(f"F.{_n}", f"F.{_n}({{0}}, {{1}}{{kw}})", make=_loss2(), kinds="float", group="loss")
add("F.binary_cross_entropy", "F.binary_cross_entropy(torch.sigmoid({0}), torch.sigmoid({1}).detach(){kw})",
    make=_loss2(), kinds="float", group="loss")
add("F.binary_cross_entropy_with_logits", "F.binary_cross_entropy_with_logits({0}, torch.sigmoid({1}){kw})",
    make=_loss2(), kinds="float", group="loss")
add("F.kl_div", "F.kl_div({0}, {1}{kw})",
    make=lambda g, x: ([x, g.fresh(g.shape_of(x), g.dtype_of(x))], {"reduction": g.choice(["batchmean", "sum",
                                                                                           "none"]),
                                                                     "log_target": True}),
    kinds="float", group="loss")
add("F.poisson_nll_loss", "F.poisson_nll_loss({0}, {1}.abs(){kw})", make=_loss2(), kinds="float", group="loss")
add("F.cosine_similarity", "F.cosine_similarity({0}, {1}, dim={d})",
    make=lambda g, x: ([x, g.fresh(g.shape_of(x), g.dtype_of(x))], {"d": g.dim(x)}), kinds="float", min_dim=1,
    group="loss")
add("F.pairwise_distance", "F.pairwise_distance({0}, {1})",
    make=lambda g, x: ([x, g.fresh(g.shape_of(x), g.dtype_of(x))], {}), kinds="float", min_dim=1, max_dim=2,
    group="loss")


def _class_target(g, x):
    shape = g.shape_of(x)
    n, c = (shape[0], shape[1]) if len(shape) >= 2 else (None, shape[0])
    if n is None:
        return Code(f"torch.tensor({g.int(0, max(c - 1, 0))})")
    vals = [g.int(0, max(c - 1, 0)) for _ in range(n)]
    if c and g.coin(0.03):
        vals[0] = c
    return Code(f"torch.tensor({vals!r}, dtype=torch.int64)" if vals else "torch.zeros(0, dtype=torch.int64)")


add("F.cross_entropy", "F.cross_entropy({0}, {t}{kw})",
    make=lambda g, x: ([x], dict(t=_class_target(g, x), reduction=g.choice(REDUCTIONS),
                                 **({"label_smoothing": 0.1} if g.coin(0.2) else {}))),
    kinds="float", min_dim=1, max_dim=2, group="loss")
add("F.cross_entropy_probs", "F.cross_entropy({0}, torch.softmax({1}, -1){kw})",
    make=lambda g, x: ([x, g.fresh(g.shape_of(x), g.dtype_of(x))], {"reduction": g.choice(REDUCTIONS)}),
    kinds="float", min_dim=1, max_dim=2, group="loss")
add("F.nll_loss", "F.nll_loss({0}, {t}{kw})",
    make=lambda g, x: ([x], dict(t=_class_target(g, x), reduction=g.choice(REDUCTIONS))),
    kinds="float", min_dim=1, max_dim=2, group="loss")
add("F.embedding", "F.embedding({idx}, {0})",
    make=lambda g, x: ([x], {"idx": Code(f"torch.tensor({[g.int(0, g.shape_of(x)[0] - 1) for _ in range(3)]!r})")})
    if g.shape_of(x)[0] else skip(), kinds="float", min_dim=2, max_dim=2, group="nn")
add("F.one_hot", "F.one_hot({0}.abs().long(){kw})",
    make=lambda g, x: ([x], {"num_classes": 10} if g.coin(0.5) else {}), kinds="int", smooth=False, group="nn")


def _conv(nd):
    def make(g, x):
        shape = g.shape_of(x)
        if len(shape) != nd + 2:
            x = g.fresh((g.int(1, 2), g.int(1, 2)) + tuple(g.int(2, 4) for _ in range(nd)), same_float(g, x))
            shape = g.shape_of(x)
        cin = shape[1]
        k = g.int(1, 2)
        w = g.fresh((g.int(1, 2), cin) + (k,) * nd, g.dtype_of(x))
        b = g.fresh((g.val(w).shape[0],), g.dtype_of(x))
        padding = g.int(0, 1)
        # an inf in the input or weight meets the zero padding: im2col multiplies 0 * inf = NaN there, PyTorch's
        # oneDNN kernel skips padded positions (a documented difference, docs/architecture.md)
        if padding and not all(bool(g.val(t).isfinite().all()) for t in (x, w)):
            skip()
        return [x, w, b], {"stride": g.int(1, 2), "padding": padding}
    return make


add("F.conv1d", "F.conv1d({0}, {1}, {2}{kw})", make=_conv(1), kinds="float", group="nn")
add("F.conv2d", "F.conv2d({0}, {1}, {2}{kw})", make=_conv(2), kinds="float", group="nn")


def _pool(nd):
    def make(g, x):
        if g.val(x).dim() != nd + 2 or min(g.shape_of(x)[2:]) < 2:
            x = g.fresh((1, g.int(1, 2)) + tuple(g.int(2, 4) for _ in range(nd)), same_float(g, x))
        return [x], {"k": 2}
    return make


add("F.max_pool1d", "F.max_pool1d({0}, {k})", make=_pool(1), kinds="float", group="nn")
add("F.max_pool2d", "F.max_pool2d({0}, {k})", make=_pool(2), kinds="float", group="nn")
add("F.avg_pool1d", "F.avg_pool1d({0}, {k})", make=_pool(1), kinds="float", group="nn")
add("F.avg_pool2d", "F.avg_pool2d({0}, {k})", make=_pool(2), kinds="float", group="nn")
add("F.adaptive_avg_pool1d", "F.adaptive_avg_pool1d({0}, 1)", make=_pool(1), kinds="float", group="nn")
add("F.pad", "F.pad({0}, {p}{kw})",
    make=lambda g, x: ([x], dict(p=(g.int(0, 2), g.int(0, 1)), **({"value": 1.5} if g.coin(0.3) else {}))),
    min_dim=1, group="nn")

# --------------------------------------------------------------------------- for the sweeps only (weight 0)
add("result_type", "torch.result_type({0}, {1})", make=binary(), weight=0.3, smooth=False, group="types")
add("code", "{src}", weight=0, group="raw")          # a hand-written line (sweeps: bad inputs)
