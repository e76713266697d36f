"""Fuzzer round 13 and the compat programs 39-46: the fixes, each compared with PyTorch."""
import numpy as np
import pytest

import pedatorch as torch

pt = pytest.importorskip("torch")


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16", "float64"])
def test_group_norm_rstd_adds_a_double_eps(dt):
    """ATen's group-norm kernel takes 1/sqrt(var + eps) in double (eps is a double) and rounds it once; in
    float32 that was an ulp off in about half the groups.  Groups of two quarter-integers have an exact mean
    and variance, so the results must agree bit for bit."""
    rng = np.random.default_rng(0)
    for _ in range(60):
        x = rng.integers(-20, 20, (2, 6, 1)) / 4
        eps = float(rng.choice([1e-5, 1e-3, 0.1]))
        ys = [lib.nn.functional.group_norm(lib.tensor(x, dtype=getattr(lib, dt)), 3, eps=eps).double().numpy()
              for lib in (torch, pt)]
        np.testing.assert_array_equal(*ys)


def test_prod_over_a_size_one_dim_has_no_graph_through_its_input():
    """PyTorch's prod_safe_zeros_backward returns the gradient itself for a one-element product; the
    exclusive cumprods pedatorch built there gave 0 * inf = NaN in a double backward (log2(0) = -inf)."""
    out = []
    for lib in (torch, pt):
        x = lib.tensor([[1.0], [0.0]], requires_grad=True)
        y0 = lib.log2(x)
        for y1 in (lib.prod(y0, dim=1, keepdim=True), lib.prod(y0[1:])):
            g, = lib.autograd.grad((y1 * 1.8).sum() + (y0 * -0.4).sum(), x, create_graph=True)
            g2, = lib.autograd.grad((g * lib.tensor([[1.6], [0.2]])).sum(), x)
            out.append((g.detach().numpy(), g2.numpy()))
    for a, b in zip(out[:2], out[2:]):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])


def test_cosine_similarity_converts_integer_and_bool_inputs():
    """PyTorch converts an integral (or bool) input to the common dtype first; pedatorch handed it to
    vector_norm, which refuses integers."""
    for build in (lambda lib: (lib.tensor(True), lib.tensor([1.0, 2.0], dtype=lib.float64)),
                  lambda lib: (lib.tensor([1, 3]), lib.tensor([1.0, 2.0], dtype=lib.float16)),
                  lambda lib: (lib.tensor([[1, 0], [2, 5]], dtype=lib.uint8), lib.tensor([[1.0, 2.0]]))):
        r = [lib.nn.functional.cosine_similarity(*build(lib), dim=-1) for lib in (torch, pt)]
        assert str(r[0].dtype) == str(r[1].dtype)
        np.testing.assert_allclose(r[0].double().numpy(), r[1].double().numpy(), rtol=1e-3)
    for lib in (torch, pt):
        with pytest.raises(RuntimeError, match="expected common dtype to be floating point, yet common dtype "
                                               "is Long"):
            lib.nn.functional.cosine_similarity(lib.tensor([1, 3]), lib.tensor([1, 2]), dim=0)


def _outcome(f):
    """What f() gives, comparably across the two libraries: its repr and dtype, or its exception."""
    try:
        r = f()
    except Exception as e:   # noqa: BLE001 - the class and message are what is compared
        return type(e).__name__, str(e)
    return repr(r).replace("pedatorch", "torch"), str(getattr(r, "dtype", ""))


def _same(build):
    assert _outcome(lambda: build(torch)) == _outcome(lambda: build(pt))


def test_linalg_results_print_as_pytorch_return_types():
    """linalg's named results were collections.namedtuple (one line, no ``torch.return_types.``); PyTorch's
    are structseqs, printed over several lines.  They pickle, and collate as plain tuples (no ``_fields``)."""
    import pickle
    for build in (lambda lib: lib.linalg.slogdet(lib.tensor([[1., 5.], [3., 2.]])),
                  lambda lib: lib.linalg.inv_ex(lib.tensor([[2., 0.], [0., 4.]])),
                  lambda lib: lib.linalg.cholesky_ex(lib.tensor([[4., 2.], [2., 3.]])),
                  lambda lib: lib.linalg.lu_factor(lib.tensor([[1., 2.], [3., 4.]])),
                  lambda lib: lib.max(lib.tensor([[1., 5.], [3., 2.]]), 1)):
        _same(build)
    r = torch.linalg.qr(torch.eye(2))
    assert not hasattr(r, "_fields") and pickle.loads(pickle.dumps(r)).R.tolist() == r.R.tolist()
    Q, R = r
    assert Q is r.Q and r[1] is R


def test_linalg_error_class_is_named_as_pytorchs():
    for lib in (torch, pt):
        with pytest.raises(lib.linalg.LinAlgError) as e:
            lib.linalg.inv(lib.zeros(2, 2))
        assert type(e.value).__name__ == "_LinAlgError" and isinstance(e.value, RuntimeError)


def test_det_of_a_singular_matrix_has_lapacks_signed_zero():
    """numpy's det of a singular matrix is +0; PyTorch multiplies out the LU of the transposed matrix (LAPACK
    reads row-major memory as column-major) with the row swaps' sign, so some are -0 (and slogdet's sign)."""
    for m in ([[1., 2.], [2., 4.]], [[0., 1.], [0., 1.]], [[0., 0.], [0., 0.]], [[1., 2.], [1., 2.]],
              [[2., 1.], [4., 2.]], [[1., -1.], [-1., 1.]], [[[1., 2.], [2., 4.]], [[1., 2.], [3., 4.]]]):
        for f in (lambda lib: lib.linalg.det(lib.tensor(m)), lambda lib: lib.det(lib.tensor(m).double()),
                  lambda lib: lib.linalg.slogdet(lib.tensor(m))):
            a, b = f(torch), f(pt)
            for x, y in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
                np.testing.assert_array_equal(np.signbit(x.numpy()), np.signbit(y.numpy()))
                np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-6)


def test_one_element_tensors_in_a_list_are_numbers():
    """torch.tensor([t1, t2]) takes each tensor's item(): a one-element tensor of any shape is a scalar whose
    dtype joins the promotion; a bigger one is refused."""
    for build in (lambda lib: lib.tensor([lib.tensor([1.]), lib.tensor([2.])]),
                  lambda lib: lib.tensor([lib.tensor(1), 2.5]),
                  lambda lib: lib.tensor([lib.tensor(1., dtype=lib.float64), 2]),
                  lambda lib: lib.tensor([lib.tensor([1], dtype=lib.int32), 2]),
                  lambda lib: lib.tensor([lib.tensor(True), 2]),
                  lambda lib: lib.tensor([lib.tensor(1, dtype=lib.int16), lib.tensor(2, dtype=lib.uint8)]),
                  lambda lib: lib.tensor([[lib.tensor(1.5, dtype=lib.float16)]]),
                  lambda lib: lib.tensor([lib.tensor([1., 3]), lib.tensor([2., 4])]),
                  lambda lib: lib.tensor([[lib.tensor([[1.]]), 3], [4, 5]])):
        _same(build)


def test_finfo_iinfo_print_as_pytorch():
    for name in ("float32", "float16", "bfloat16", "float64", "complex64"):
        _same(lambda lib: (str(lib.finfo(getattr(lib, name))), lib.finfo(getattr(lib, name)).resolution))
    for name in ("int32", "uint8", "int64", "int8", "bool", "float32"):
        _same(lambda lib: str(lib.iinfo(getattr(lib, name))))
    _same(lambda lib: lib.finfo(lib.int32))


def test_numpy_returns_a_new_array_over_the_same_memory():
    a = np.ones(3, dtype=np.float32)
    t = torch.from_numpy(a)
    n1, n2 = t.numpy(), t.numpy()
    assert n1 is not a and n1 is not n2
    n1[0] = 5
    assert a[0] == 5 and t[0].item() == 5


def test_empty_takes_its_memory_format():
    for fmt in ("channels_last", "preserve_format", "contiguous_format", "channels_last_3d"):
        for shape in ((2, 3, 4, 5), (1, 2, 3, 4, 5), (2, 3), (2, 1, 1, 5)):
            _same(lambda lib: lib.empty(*shape, memory_format=getattr(lib, fmt)).stride())


def test_clamp_refuses_a_tensor_bound_with_a_number_bound():
    x = np.arange(5.)
    _same(lambda lib: lib.clamp(lib.tensor(x), min=lib.ones(5, dtype=lib.float64), max=3))
    with pytest.raises(TypeError):
        torch.tensor(x).clamp_(torch.ones(5), 3.0)
    _same(lambda lib: lib.clamp(lib.tensor(x), min=lib.ones(5, dtype=lib.float64), max=None))


@pytest.mark.parametrize("dt", ["int64", "uint8", "bool", "float16", "bfloat16", "int8"])
def test_interpolate_keeps_the_input_dtype_or_refuses_it(dt):
    """float16/bfloat16 were weighed in float32 and returned float32; integer inputs were accepted where
    PyTorch's kernels refuse them (uint8 images only for the nearest modes and 2-d bilinear/bicubic)."""
    import warnings
    for mode, nd in (("nearest", 4), ("nearest-exact", 4), ("bilinear", 4), ("bicubic", 4), ("area", 4),
                     ("linear", 3), ("trilinear", 5), ("nearest", 3), ("nearest", 5), ("area", 3)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _same(lambda lib: lib.nn.functional.interpolate(lib.ones((1, 1) + (2,) * (nd - 2),
                                                                     dtype=getattr(lib, dt)), scale_factor=2,
                                                            mode=mode).dtype)
    _same(lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 4, 4, dtype=getattr(lib, dt)),
                                                    scale_factor=0.5, mode="bilinear", antialias=True).dtype)


def test_interpolate_uint8_bilinear_rounds_halves_up():
    _same(lambda lib: lib.nn.functional.interpolate(lib.arange(16, dtype=lib.uint8).reshape(1, 1, 4, 4) * 13,
                                                    size=(3, 5), mode="bilinear"))


def test_affine_grid_keeps_a_half_theta_dtype():
    for dt in ("bfloat16", "float16"):
        out = []
        for lib in (torch, pt):
            theta = lib.tensor([[[0.9, 0.2, 0.1], [-0.3, 1.1, 0.05]]]).to(getattr(lib, dt))
            g = lib.nn.functional.affine_grid(theta, (1, 1, 4, 5), align_corners=False)
            img = (lib.arange(20.).reshape(1, 1, 4, 5) / 9).to(getattr(lib, dt))
            s = lib.nn.functional.grid_sample(img, g, align_corners=False)
            out.append((str(g.dtype), str(s.dtype), g.float().numpy()))
        assert out[0][:2] == out[1][:2]
        np.testing.assert_array_equal(out[0][2], out[1][2])


def test_bincount_checks_as_pytorch():
    lab, w = [1, 0, 3, 1], [0.5, 1., 2., 3.]
    for build in (lambda lib: lib.bincount(lib.tensor([1., 2.])), lambda lib: lib.bincount(lib.tensor([True])),
                  lambda lib: lib.bincount(lib.tensor([[1, 2]])), lambda lib: lib.bincount(lib.tensor([-1, 2])),
                  lambda lib: lib.bincount(lib.tensor(lab), weights=lib.tensor(w[:3])),
                  lambda lib: lib.bincount(lib.tensor(lab), minlength=-1),
                  lambda lib: lib.bincount(lib.tensor(lab), weights=lib.tensor(w).reshape(2, 2)),
                  lambda lib: lib.bincount(lib.tensor([], dtype=lib.long), weights=lib.tensor([])),
                  lambda lib: lib.bincount(lib.tensor(lab), weights=lib.tensor(w).half())):
        _same(build)


def test_searchsorted_places_nan_as_atens_binary_search():
    """ATen halves the range while ``not seq[mid] >= v``: a comparison with NaN moves right, so where a NaN
    lands depends on the search path; numpy sorts NaN last."""
    nan = float("nan")
    for build in (lambda lib: lib.searchsorted(lib.tensor([1., 2., nan]), lib.tensor([nan, 5., 1.5, 2.])),
                  lambda lib: lib.searchsorted(lib.tensor([1., 2., nan]), lib.tensor([nan, 5., 1.5, 2.]), right=True),
                  lambda lib: lib.searchsorted(lib.tensor([nan, nan]), lib.tensor([nan, 5.])),
                  lambda lib: lib.searchsorted(lib.tensor([[1., 2., 3.], [0., nan, nan]]), lib.tensor([[nan], [1.]])),
                  lambda lib: lib.bucketize(lib.tensor([nan, 2.]), lib.tensor([1., 2., nan])),
                  lambda lib: lib.searchsorted(lib.tensor([1, 3, 5]), lib.tensor(3), side="right")):
        _same(build)


def test_histogramdd_and_histogram_as_pytorch():
    def data(lib):
        lib.manual_seed(0)
        return lib.randn(10, 2)
    for build in (lambda lib: lib.histogramdd(data(lib), bins=[3, 4]),
                  lambda lib: lib.histogramdd(data(lib), bins=3, range=[-1., 1., -2., 2.], density=True),
                  lambda lib: lib.histogramdd(data(lib), bins=[lib.tensor([-1., 0., 1.]), lib.tensor([-3., 3.])],
                                              weight=lib.arange(10.)),
                  lambda lib: lib.histogramdd(lib.ones(3, 2), bins=[2, 2, 2]),
                  lambda lib: lib.histogram(lib.ones(3), bins=2, range=(1., 1.)),
                  lambda lib: lib.histogram(lib.tensor([]), bins=2),
                  lambda lib: lib.histogram(lib.tensor([1., 5.]), bins=2, range=(3., 2.)),
                  lambda lib: lib.histogram(lib.tensor([1., float("nan")]), bins=2),
                  lambda lib: lib.histogram(lib.tensor([1., 5.]), bins=2, weight=lib.ones(2).double()),
                  lambda lib: lib.histogram(lib.tensor([1, 2]), bins=2),
                  lambda lib: lib.histogram(lib.tensor([1., 2.]), bins=lib.tensor([0, 1, 3])),
                  lambda lib: lib.histogram(lib.tensor([1., 2.]).half(), bins=2)):
        _same(build)


def test_small_argument_and_message_fixes():
    nan = float("nan")
    for build in (lambda lib: lib.isin(lib.tensor([1, 2]), [1, 2]),
                  lambda lib: lib.isin(lib.tensor([1, 2]), 2),
                  lambda lib: lib.isin(1, lib.tensor([1, 2])),
                  lambda lib: lib.std_mean(lib.tensor([1, 2])),
                  lambda lib: lib.var_mean(lib.tensor([1, 2])),
                  lambda lib: lib.std(lib.tensor([1, 2])),
                  lambda lib: lib.histc(lib.tensor([1., nan]), bins=3),
                  lambda lib: lib.histc(lib.tensor([1., 2.]), bins=3, min=nan, max=2)):
        _same(build)


def test_view_as_a_dtype_of_another_element_size():
    """view(dtype) refused another element size; PyTorch rescales the last dim (its stride must be 1) and
    keeps the other strides in bytes.  The result is not differentiable and not an autograd view."""
    def u8(lib):
        return lib.arange(24, dtype=lib.uint8).reshape(2, 3, 4)
    for build in (lambda lib: lib.tensor([1, 2], dtype=lib.int16).view(lib.int8),
                  lambda lib: lib.tensor([1, 2, 3, 4], dtype=lib.uint8).view(lib.int32),
                  lambda lib: u8(lib)[0].view(lib.int16),
                  lambda lib: u8(lib)[0, :, 1:3].view(lib.int16),
                  lambda lib: u8(lib)[0, 1:].view(lib.int32).storage_offset(),
                  lambda lib: u8(lib)[0, :, 1:].view(lib.int16),
                  lambda lib: u8(lib)[0].t().view(lib.int16),
                  lambda lib: u8(lib)[:, ::2].view(lib.int32).stride(),
                  lambda lib: lib.arange(8, dtype=lib.uint8)[::2].view(lib.int16),
                  lambda lib: lib.tensor(5, dtype=lib.int32).view(lib.int8),
                  lambda lib: lib.ones(2, 3).view(lib.float16),
                  lambda lib: lib.ones(2, 3).view(lib.float64),
                  lambda lib: lib.ones(2, 2, dtype=lib.complex64).view(lib.float32)):
        _same(build)
    x = torch.ones(2, 2, requires_grad=True)
    y = (x * 1).view(torch.float16)
    assert not y.requires_grad and y.grad_fn is None and not y._is_view()
    base = torch.ones(4)
    v = base.view(torch.int32)
    base.add_(1)
    assert v._version == 1 and v.tolist() == [1073741824] * 4


def test_ldl_factor_and_solve_as_lapack():
    """linalg.ldl_factor/ldl_factor_ex/ldl_solve were missing: LAPACK's Bunch-Kaufman ?sytf2 (its 1x1 and
    2x2 pivots, the packed LD and the signed 1-based pivots) and ?sytrs, compared with PyTorch's values."""
    _same(lambda lib: lib.linalg.ldl_factor(lib.tensor([[4., 1., 2.], [1., -3., 0.], [2., 0., 1.]])))
    _same(lambda lib: lib.linalg.ldl_factor_ex(lib.zeros(2, 2)))
    _same(lambda lib: lib.linalg.ldl_factor(lib.tensor([[1., 2.], [3., 4.]])))   # (reads the lower triangle)
    _same(lambda lib: lib.linalg.ldl_factor(lib.tensor([[2., 1j], [1j, 3.]])))
    _same(lambda lib: lib.linalg.ldl_factor(lib.ones(2, 3)))
    _same(lambda lib: lib.linalg.ldl_factor(lib.ones(2, 2).half()))
    rng = np.random.default_rng(0)
    for n in (4, 6, 9):
        S = rng.standard_normal((3, n, n))
        S = S + S.swapaxes(-1, -2)
        S[0, 0, 0] = 0
        S[1, :2, :2] = 0   # (2x2 pivots)
        B = rng.standard_normal((3, n, 2))
        out = []
        for lib in (torch, pt):
            LD, piv = lib.linalg.ldl_factor(lib.tensor(S))
            out.append((LD.numpy(), piv.numpy(), lib.linalg.ldl_solve(LD, piv, lib.tensor(B)).numpy()))
        np.testing.assert_array_equal(out[0][1], out[1][1])
        np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(out[0][2], out[1][2], rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(S @ out[1][2], B, atol=1e-9)
    x = torch.tensor([[2., 1.], [1., 3.]], requires_grad=True)
    LD, _ = torch.linalg.ldl_factor(x)
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not implemented"):
        LD.sum().backward()


def test_next_functions_and_node_hooks_as_pytorch():
    """A number operand of + - * / is an input in PyTorch (a wrapped 0-dim tensor: its edge is (None, 0));
    a node's post-hook sees one gradient per next_functions entry, fitted to its input (Addmm's bias
    gradient summed to the bias's shape), not the raw backward result."""
    def edges(lib):
        x, y = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        out = []
        for r in (x + 2, 2 + x, x * 2, x / 2, x - 2, 2 - x, x ** 2, 2 / x, lib.mul(x, 3), x.clamp(0, 1),
                  lib.lerp(x, y, 0.5), x.add(y, alpha=2)):
            out.append((type(r.grad_fn).__name__,
                        [(None if n is None else type(n).__name__, i) for n, i in r.grad_fn.next_functions]))
        return out
    _same(edges)

    def hooked(lib):
        log = []
        lin = lib.nn.Linear(3, 2)
        x = lib.ones(4, 3, requires_grad=True)
        y = lin(x)
        y.grad_fn.register_hook(lambda gi, go: log.append(([None if g is None else tuple(g.shape) for g in gi],
                                                           [tuple(g.shape) for g in go])))
        z = x * 2
        z.grad_fn.register_hook(lambda gi, go: log.append([None if g is None else tuple(g.shape) for g in gi]))
        (y.sum() + z.sum()).backward()
        return log
    _same(hooked)


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
def test_binary_cross_entropy_rounds_as_atens_scalar_loop(dt):
    """ATen computes bce (and its input gradient) element by element in the input's dtype: float16/bfloat16
    round after each operation, and the logs are the C library's; then * weight and / numel.  A third of the
    half-precision losses and half of the gradients were an ulp off."""
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(1, 40))
        x, y, w = rng.uniform(0.01, 0.99, n), rng.uniform(0, 1, n), rng.uniform(0, 2, n)
        out = []
        for lib in (torch, pt):
            d = getattr(lib, dt)
            xt, yt = lib.tensor(x, dtype=d).requires_grad_(), lib.tensor(y, dtype=d)
            loss = lib.nn.functional.binary_cross_entropy(xt, yt, weight=lib.tensor(w, dtype=d))
            loss.backward()
            none = lib.nn.functional.binary_cross_entropy(xt.detach(), yt, reduction="none")
            out.append((none.float().numpy(), xt.grad.float().numpy()))
        if dt != "float32":   # (float32's logs: numpy's double log rounded vs glibc's logf, rarely an ulp apart)
            np.testing.assert_array_equal(out[0][0], out[1][0])
        np.testing.assert_array_equal(out[0][1], out[1][1])


def test_topk_kthvalue_mode_break_ties_as_pytorchs_cpu_kernels():
    """Among equal values (and NaNs) the index PyTorch returns comes from libstdc++'s partial_sort /
    nth_element / sort (topk, mode) and ATen's quickselect (kthvalue); pedatorch took the lowest index.
    With sorted=False topk returns nth_element's arrangement."""
    rng = np.random.default_rng(0)
    for _ in range(150):
        n = int(rng.choice([3, 5, 16, 17, 33, 65, 100, 300]))
        x = rng.integers(0, int(rng.choice([2, 3, 50])), (2, n)).astype(float)
        if rng.random() < 0.3:
            x[0, rng.integers(0, n, 3)] = np.nan
        k = int(rng.integers(1, n + 1)) if rng.random() < 0.5 else int(rng.integers(1, min(n, 5) + 1))
        largest, srt, dim = bool(rng.integers(0, 2)), bool(rng.integers(0, 2)), int(rng.integers(0, 2))
        res = [(lib.topk(lib.tensor(x), k, largest=largest, sorted=srt).indices.numpy(),
                lib.kthvalue(lib.tensor(x), k).indices.numpy(),
                lib.mode(lib.tensor(x), dim).indices.numpy())
               for lib in (torch, pt)]
        for a, b in zip(*res):
            np.testing.assert_array_equal(a, b)
    for rows in ([[1., 2, 2, 1, 3, 3, 1, 2, 3, 4, 4, 4, 2, 1, 3, 5, 5, 5, 4, 2, 1, 3]], [[2., 1, 1, 2, np.nan, 2, 1]],
                 [[np.nan, np.nan, 1.]], [[np.nan, 2., np.nan, 2.], [3., np.nan, np.nan, 3.]]):
        _same(lambda lib: lib.mode(lib.tensor(rows)))


def test_embedding_weight_dims_checked_in_pytorchs_order():
    for build in (lambda lib: lib.nn.functional.embedding(lib.tensor([0]), lib.tensor(1.)),
                  lambda lib: lib.nn.functional.embedding(lib.tensor([0]), lib.tensor(1., requires_grad=True)),
                  lambda lib: lib.nn.functional.embedding(lib.tensor([0]), lib.ones(3), max_norm=1.),
                  lambda lib: lib.nn.functional.embedding(lib.tensor([0]), lib.ones(2, 3, 4))):
        _same(build)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_pairwise_distance_of_half_inputs_accumulates_in_float32(dt):
    """pairwise_distance's norm squared float16 values in float16 (59040^2 overflowed to inf); ATen's norm
    accumulates in float32 and rounds once."""
    rng = np.random.default_rng(0)
    _same(lambda lib: lib.nn.functional.pairwise_distance(lib.tensor([-0.0, 0.0, -59040.0], dtype=getattr(lib, dt)),
                                                          lib.tensor([-0.0], dtype=getattr(lib, dt))))
    for _ in range(30):
        a = rng.standard_normal((3, int(rng.integers(1, 30)))) * rng.choice([1, 1000, 30000])
        b = rng.standard_normal(a.shape[1:])
        p = float(rng.choice([1, 2, 3, 0.5]))
        _same(lambda lib: lib.nn.functional.pairwise_distance(lib.tensor(a, dtype=getattr(lib, dt)),
                                                              lib.tensor(b, dtype=getattr(lib, dt)), p=p))


def test_fractional_max_pool_as_pytorch():
    """F.fractional_max_pool2d/3d and nn.FractionalMaxPool2d/3d were missing: ATen's generate_intervals
    (one uniform sample per plane and dim, drawn with PyTorch's rand), its max loop (NaN wins, ties keep the
    first), indices, errors and the gradient."""
    def run(lib):
        F = lib.nn.functional
        out = []
        x = lib.arange(2 * 10 * 10.).reshape(1, 2, 10, 10)
        out.append(F.fractional_max_pool2d(x, 3, output_size=(4, 5), return_indices=True,
                                           _random_samples=lib.tensor([[[0.1, 0.9], [0.7, 0.3]]])))
        x3 = lib.arange(8 * 9 * 10.).reshape(1, 1, 8, 9, 10)
        out.append(F.fractional_max_pool3d(x3, 2, output_size=(3, 4, 5), return_indices=True,
                                           _random_samples=lib.tensor([[[0.1, 0.5, 0.9]]]))[1])
        lib.manual_seed(0)
        y = lib.randn(3, 4, 13, 11, requires_grad=True)
        o = F.fractional_max_pool2d(y, (3, 2), output_ratio=(0.5, 0.6))
        (o * lib.arange(o.numel()).reshape(o.shape)).sum().backward()
        out += [o.detach(), type(o.grad_fn).__name__, y.grad]
        m = lib.nn.FractionalMaxPool3d(2, output_ratio=0.5)
        out += [repr(m), m(lib.randn(2, 3, 7, 8, 9).half())]
        w = lib.tensor([[[[1., float("nan"), 2., 3.], [float("nan"), 0., 5., 5.]]]])
        out.append(F.fractional_max_pool2d(w, 2, output_size=(1, 2), return_indices=True,
                                           _random_samples=lib.tensor([[[0.3, 0.2]]])))
        for bad in (lambda: F.fractional_max_pool2d(x, 3), lambda: F.fractional_max_pool2d(x, 6, output_size=6),
                    lambda: lib.nn.FractionalMaxPool2d(3), lambda: lib.nn.FractionalMaxPool2d(3, output_ratio=1.5)):
            try:
                bad()
            except Exception as e:   # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        return repr(out).replace("pedatorch", "torch")
    assert run(torch) == run(pt)
    x = torch.randn(2, 2, 7, 6, dtype=torch.float64, requires_grad=True)
    s = torch.rand(2, 2, 2, dtype=torch.float64)
    assert torch.autograd.gradcheck(lambda t: torch.nn.functional.fractional_max_pool2d(t, 2, output_size=(3, 3),
                                                                                       _random_samples=s), (x,))
