"""Property tests (hypothesis): broadcasting and views on random shapes.

- broadcasting: results equal numpy's; every gradient is the upstream gradient
  summed back to its input's shape ("unbroadcast");
- views: a random chain of view ops gives numpy's values, shares memory with the
  base, and ``stride()``/``storage_offset()`` locate every element in the storage.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import pedatorch as pt

SETTINGS = dict(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def broadcastable_pair(draw):
    out = draw(st.lists(st.integers(1, 4), min_size=0, max_size=4))
    a, b = [], []
    for n in out:
        a.append(draw(st.sampled_from([n, 1])))
        b.append(draw(st.sampled_from([n, 1])))
    a = a[draw(st.integers(0, len(a))):]
    b = b[draw(st.integers(0, len(b))):]
    return tuple(a), tuple(b)


def unbroadcast(g, shape):
    """Sum ``g`` down to ``shape`` with numpy (the reference for the engine's reduce step)."""
    lead = g.ndim - len(shape)
    g = g.sum(axis=tuple(range(lead))) if lead else g
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True) if axes else g


@settings(**SETTINGS)
@given(broadcastable_pair(), st.sampled_from(["add", "sub", "mul", "div", "maximum", "atan2"]),
       st.integers(0, 2**31 - 1))
def test_broadcast_binary_ops(shapes, op, seed):
    sa, sb = shapes
    rng = np.random.default_rng(seed)
    a_np = rng.uniform(0.5, 2.0, sa)
    b_np = rng.uniform(0.5, 2.0, sb)
    a = pt.tensor(a_np, requires_grad=True)
    b = pt.tensor(b_np, requires_grad=True)
    fn = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
          "div": lambda x, y: x / y, "maximum": pt.maximum, "atan2": pt.atan2}[op]
    ref = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "maximum": np.maximum,
           "atan2": np.arctan2}[op]
    out = fn(a, b)
    np.testing.assert_allclose(out.detach().numpy(), ref(a_np, b_np), rtol=1e-12)
    g = rng.standard_normal(out.shape)
    out.backward(pt.tensor(g))
    assert a.grad.shape == a.shape and b.grad.shape == b.shape
    assert a.grad.dtype == a.dtype and b.grad.dtype == b.dtype
    # the local derivative broadcast to the output, times g, then unbroadcast
    full_a, full_b = np.broadcast_arrays(a_np, b_np)
    local_a = {"add": 1.0, "sub": 1.0, "mul": full_b, "div": 1 / full_b, "maximum": (full_a > full_b) * 1.0,
               "atan2": full_b / (full_a ** 2 + full_b ** 2)}[op]
    local_b = {"add": 1.0, "sub": -1.0, "mul": full_a, "div": -full_a / full_b ** 2,
               "maximum": (full_b > full_a) * 1.0, "atan2": -full_a / (full_a ** 2 + full_b ** 2)}[op]
    np.testing.assert_allclose(a.grad.numpy(), unbroadcast(g * local_a, sa).reshape(sa), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), unbroadcast(g * local_b, sb).reshape(sb), rtol=1e-10, atol=1e-12)


@settings(**SETTINGS)
@given(broadcastable_pair())
def test_broadcast_shapes_match_numpy(shapes):
    sa, sb = shapes
    assert tuple(pt.broadcast_shapes(sa, sb)) == np.broadcast_shapes(sa, sb)
    assert tuple((pt.zeros(sa) + pt.zeros(sb)).shape) == np.broadcast_shapes(sa, sb)


def test_broadcast_error_names_the_dimension():
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(4\) at "
                                           r"non-singleton dimension 1"):
        pt.ones(2, 3) + pt.ones(2, 4)


# ---------------------------------------------------------------- views

@st.composite
def view_chain(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    steps = draw(st.lists(st.tuples(st.sampled_from(
        ["t", "transpose", "unsqueeze", "narrow", "select", "expand", "permute", "squeeze", "flatten_view",
         "diagonal"]), st.integers(0, 10**6)), min_size=1, max_size=5))
    return shape, steps


def _apply(step, x, a):
    """Apply one view op to pedatorch tensor x and the same to numpy array a (if it applies)."""
    name, r = step
    n = x.dim()
    if 0 in tuple(x.shape):
        return x, a
    if name == "t" and n == 2:
        return x.t(), a.T
    if name == "transpose" and n >= 2:
        d0, d1 = r % n, (r // 7) % n
        return x.transpose(d0, d1), np.swapaxes(a, d0, d1)
    if name == "unsqueeze" and n < 6:
        d = r % (n + 1)
        return x.unsqueeze(d), np.expand_dims(a, d)
    if name == "narrow" and n >= 1:
        d = r % n
        size = x.shape[d]
        start = r % size
        length = 1 + (r // 3) % (size - start)
        return x.narrow(d, start, length), a[(slice(None),) * d + (slice(start, start + length),)]
    if name == "select" and n >= 1:
        d = r % n
        i = r % x.shape[d]
        return x.select(d, i), a[(slice(None),) * d + (i, Ellipsis)]
    if name == "expand" and n >= 1:
        shape = tuple(3 if s == 1 and (r >> k) & 1 else s for k, s in enumerate(x.shape))
        return x.expand(*shape), np.broadcast_to(a, shape)
    if name == "permute" and n >= 1:
        perm = tuple(np.random.default_rng(r).permutation(n).tolist())
        return x.permute(*perm), np.transpose(a, perm)
    if name == "squeeze":
        return x.squeeze(), np.squeeze(a)
    if name == "flatten_view" and x.is_contiguous():
        return x.view(-1), a.reshape(-1)
    if name == "diagonal" and n >= 2:
        off = r % 3 - 1
        return x.diagonal(off), np.diagonal(a, off)
    return x, a


@settings(**SETTINGS)
@given(view_chain())
def test_random_view_chains(chain):
    shape, steps = chain
    base_np = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    base = pt.from_numpy(base_np)  # shares memory, so numpy's views see writes through the base
    x, a = base, base_np
    for step in steps:
        x, a = _apply(step, x, a)
    # values equal numpy's
    np.testing.assert_array_equal(x.numpy(), a)
    # memory is shared with the base
    assert x.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    # stride() and storage_offset() locate every element in the flat storage
    flat = base_np.reshape(-1)
    idx = np.indices(x.shape).reshape(x.dim(), -1) if x.dim() else np.zeros((0, 1), dtype=int)
    pos = x.storage_offset() + (np.array(x.stride()).reshape(-1, 1) * idx).sum(axis=0) if x.dim() else \
        np.array([x.storage_offset()])
    np.testing.assert_array_equal(flat[pos].reshape(x.shape), a)
    # and a write through the base is visible in the view
    with pt.no_grad():
        base.add_(1000)
    np.testing.assert_array_equal(x.numpy(), a)


@settings(**SETTINGS)
@given(view_chain())
def test_random_view_chains_match_torch_strides(chain):
    torch = pytest.importorskip("torch")
    shape, steps = chain
    x = pt.arange(float(np.prod(shape))).view(shape)
    y = torch.arange(float(np.prod(shape))).view(shape)
    for step in steps:
        x2, _ = _apply(step, x, np.zeros(tuple(x.shape)))
        if x2 is x:
            continue
        name, r = step
        y = _torch_apply(step, y)
        x = x2
        assert tuple(x.shape) == tuple(y.shape)
        assert x.stride() == y.stride(), (step, x.stride(), y.stride())
        assert x.storage_offset() == y.storage_offset()
        assert x.is_contiguous() == y.is_contiguous()


def _torch_apply(step, y):
    class Shim:  # reuse _apply's choices of arguments on the torch tensor
        pass
    name, r = step
    n = y.dim()
    if name == "t":
        return y.t()
    if name == "transpose":
        return y.transpose(r % n, (r // 7) % n)
    if name == "unsqueeze":
        return y.unsqueeze(r % (n + 1))
    if name == "narrow":
        d = r % n
        size = y.shape[d]
        start = r % size
        return y.narrow(d, start, 1 + (r // 3) % (size - start))
    if name == "select":
        d = r % n
        return y.select(d, r % y.shape[d])
    if name == "expand":
        return y.expand(*tuple(3 if s == 1 and (r >> k) & 1 else s for k, s in enumerate(y.shape)))
    if name == "permute":
        return y.permute(*np.random.default_rng(r).permutation(n).tolist())
    if name == "squeeze":
        return y.squeeze()
    if name == "flatten_view":
        return y.view(-1)
    if name == "diagonal":
        return y.diagonal(r % 3 - 1)
    return y


@settings(**SETTINGS)
@given(view_chain(), st.integers(0, 2**31 - 1))
def test_view_chain_gradients_are_scatter_of_upstream(chain, seed):
    shape, steps = chain
    x = pt.tensor(np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape), requires_grad=True)
    y, ref = x * 1, np.arange(int(np.prod(shape))).reshape(shape)
    for step in steps:
        y, ref = _apply(step, y, ref)
    g = np.random.default_rng(seed).standard_normal(tuple(y.shape))
    y.backward(pt.tensor(g))
    # reference: add g into the positions the view's elements came from
    expected = np.zeros(int(np.prod(shape)))
    np.add.at(expected, np.asarray(ref).reshape(-1), g.reshape(-1))
    np.testing.assert_allclose(x.grad.numpy().reshape(-1), expected, rtol=1e-12, atol=1e-12)
