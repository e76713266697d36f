"""Gaps found by the compat programs 31.. (tutorial code run unchanged), each checked against PyTorch.

- nn.EmbeddingBag had no ``from_pretrained`` (the torchtext-style classifier loads pretrained bags with it),
  kept a negative ``padding_idx`` as given (PyTorch stores it counted from the front, and checks its range),
  did not check ``_weight``'s shape and had no ``reset_parameters``.
- embedding_bag's error for offsets with a 2-D input named pedatorch's Tensor class instead of torch.Tensor.
- once_differentiable only turned the graph off: under create_graph=True the backward's outputs came out without
  history, so differentiating them again gave zeros or "does not require grad" instead of PyTorch's error from
  its ``Error`` node.
- A learner's Function was called with None, not zeros, for the gradient of an output it marked
  non-differentiable (the docs promise a zero tensor).
- A learner's Function returning an input unchanged whose memory had been written in place before: the output
  (an alias, a view) took the earlier write for a write after it, regenerated its grad_fn as AsStridedBackward0
  and skipped the Function's backward (a wrong gradient)."""
import numpy as np
import pytest

import pedatorch as pt

torch = pytest.importorskip("torch")


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 -- the class and message are what is compared
        return type(e).__name__, str(e)
    return None


# ---- nn.EmbeddingBag

@pytest.mark.parametrize("kwargs", [{}, {"freeze": False}, {"mode": "max"}, {"mode": "sum", "padding_idx": -1},
                                    {"include_last_offset": True, "mode": "sum"}, {"max_norm": 1.0}])
def test_embedding_bag_from_pretrained(kwargs):
    w_np = np.random.default_rng(0).standard_normal((6, 3)).astype(np.float32)
    idx, off = [1, 5, 2, 0, 4, 3], [0, 2, 6] if kwargs.get("include_last_offset") else [0, 2, 3]

    def run(lib):
        w = lib.tensor(w_np)
        bag = lib.nn.EmbeddingBag.from_pretrained(w, **kwargs)
        out = bag(lib.tensor(idx), lib.tensor(off))
        if bag.weight.requires_grad:
            out.sum().backward()
        return (out.detach().numpy(), bag.weight.requires_grad, bag.padding_idx, bag.mode,
                bag.include_last_offset, repr(bag), bag.weight.data_ptr() == w.data_ptr(),
                None if bag.weight.grad is None else bag.weight.grad.numpy())

    got, want = run(pt), run(torch)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    assert got[1:7] == want[1:7]
    if want[7] is not None:
        np.testing.assert_allclose(got[7], want[7], rtol=1e-6)


def test_embedding_bag_from_pretrained_needs_2d():
    assert _error(lambda: pt.nn.EmbeddingBag.from_pretrained(pt.zeros(3))) == \
        _error(lambda: torch.nn.EmbeddingBag.from_pretrained(torch.zeros(3)))


@pytest.mark.parametrize("padding_idx", [None, 0, 3, -1, -4])
def test_embedding_bag_padding_idx_is_stored_non_negative(padding_idx):
    def run(lib):
        lib.manual_seed(0)
        bag = lib.nn.EmbeddingBag(4, 2, mode="sum", padding_idx=padding_idx)
        return bag.padding_idx, repr(bag), bag.weight.detach().numpy()

    got, want = run(pt), run(torch)
    assert got[:2] == want[:2]
    np.testing.assert_array_equal(got[2], want[2])


@pytest.mark.parametrize("padding_idx", [4, -5])
def test_embedding_bag_padding_idx_out_of_range(padding_idx):
    assert _error(lambda: pt.nn.EmbeddingBag(4, 2, padding_idx=padding_idx)) == \
        _error(lambda: torch.nn.EmbeddingBag(4, 2, padding_idx=padding_idx))


def test_embedding_bag_weight_shape_and_reset_parameters():
    assert _error(lambda: pt.nn.EmbeddingBag(4, 2, _weight=pt.zeros(3, 2))) == \
        _error(lambda: torch.nn.EmbeddingBag(4, 2, _weight=torch.zeros(3, 2)))

    def run(lib):
        bag = lib.nn.EmbeddingBag(5, 3, padding_idx=2, _weight=lib.ones(5, 3))
        lib.manual_seed(1)
        bag.reset_parameters()
        return bag.weight.detach().numpy()

    np.testing.assert_array_equal(run(pt), run(torch))


def test_embedding_bag_2d_input_with_offsets_error_names_torch_tensor():
    def run(lib):
        return _error(lambda: lib.nn.functional.embedding_bag(lib.tensor([[0, 1]]), lib.ones(3, 2), lib.tensor([0])))

    assert run(pt) == run(torch)


# ---- autograd.Function

def _custom_functions(lib):
    from_od = lib.autograd.function.once_differentiable

    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            return x * 2 * scale

        @staticmethod
        @from_od
        def backward(ctx, g):
            return g * 2, None

    class Sort(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            values, indices = lib.sort(x)
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices)
            return values, indices

        @staticmethod
        def backward(ctx, grad_values, grad_indices):
            ctx.seen = grad_indices
            (indices,) = ctx.saved_tensors
            return lib.zeros_like(grad_values).scatter(0, indices, grad_values)

    class Identity(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return Double, Sort, Identity


def test_once_differentiable_twice_raises():
    def run(lib):
        Double = _custom_functions(lib)[0]
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        g, = lib.autograd.grad(Double.apply(x, 3.0).pow(2).sum(), x, create_graph=True)
        node = g.grad_fn
        facts = (g.requires_grad, type(node).__name__, node.name(), [n is None for n, _ in node.next_functions],
                 g.detach().tolist())
        return facts, _error(lambda: g.sum().backward())

    assert run(pt) == run(torch)


def test_once_differentiable_without_create_graph_is_plain():
    def run(lib):
        Double = _custom_functions(lib)[0]
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        g, = lib.autograd.grad(Double.apply(x, 3.0).pow(2).sum(), x)
        g2, = lib.autograd.grad(Double.apply(x, 3.0).sum(), x, create_graph=True)  # grad_output is a constant
        return g.tolist(), g.requires_grad, g2.requires_grad, g2.grad_fn is None

    assert run(pt) == run(torch)


def test_non_differentiable_output_gets_zero_gradient():
    def run(lib):
        Sort = _custom_functions(lib)[1]
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        values, indices = Sort.apply(x)
        (values * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        seen = values.grad_fn.seen
        return x.grad.tolist(), indices.requires_grad, seen.tolist(), str(seen.dtype)

    assert run(pt) == run(torch)


def test_function_returning_an_input_written_in_place_before():
    def run(lib):
        Identity = _custom_functions(lib)[2]
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1
        b.add_(1)   # b's version is 1 before the Function sees it
        y = Identity.apply(b)
        name = type(y.grad_fn).__name__
        y.sum().backward()
        leaf = lib.zeros(2)
        leaf.add_(1)
        z = Identity.apply(leaf.detach().requires_grad_())
        return name, a.grad.tolist(), y._is_view(), type(z.grad_fn).__name__
    assert run(pt) == run(torch)
