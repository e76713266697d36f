"""Gaps found by the compat programs 31.. (tutorial code run unchanged), each checked against PyTorch.

- nn.EmbeddingBag had no ``from_pretrained`` (the torchtext-style classifier loads pretrained bags with it),
  kept a negative ``padding_idx`` as given (PyTorch stores it counted from the front, and checks its range),
  did not check ``_weight``'s shape and had no ``reset_parameters``.
- embedding_bag's error for offsets with a 2-D input named pedatorch's Tensor class instead of torch.Tensor."""
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
