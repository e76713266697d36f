"""Losses, convolutions and pooling round p3 (compat programs 48_loss_zoo / 49_conv_pool_zoo): each compared
with PyTorch."""
import pytest

import pedatorch as torch

pt = pytest.importorskip("torch")

LIBS = [torch, pt]


def _err(fn):
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        return type(e).__name__, str(e)
    return tuple(out.shape) if hasattr(out, "shape") else out


# ---------------------------------------------------------------- ctc_loss: unbatched targets

def test_ctc_loss_unbatched_targets_are_not_given_a_batch_dim():
    """Only the (T, C) log-probs gain a batch of one: a 1-D target is the concatenated form (its length must
    equal the target length), a (1, S) one the padded form, and (2, S) targets do not fit a batch of one."""
    def run(lib):
        F = lib.nn.functional
        lib.manual_seed(0)
        lp = lib.randn(8, 5).log_softmax(1).requires_grad_()
        out = []
        for tg, tl in (([1, 2, 3, 4, 1], 4), ([[1, 2, 3]], 3), ([1, 2, 3], [3]), ([1, 2, 3, 4], 4)):
            try:
                loss = F.ctc_loss(lp, lib.tensor(tg), lib.tensor(8), lib.tensor(tl), reduction="sum")
            except RuntimeError as e:
                out.append(str(e))
                continue
            lp.grad = None
            loss.backward()
            out.append((round(loss.item(), 4), [round(v, 4) for v in lp.grad.sum(1).tolist()]))
        out.append(_err(lambda: F.ctc_loss(lp, lib.tensor([[1, 2], [1, 2]]), lib.tensor([8, 8]),
                                           lib.tensor([2, 2]))))
        return out
    assert run(torch) == run(pt)


# ---------------------------------------------------------------- conv modules

def test_reversed_padding_repeated_twice_is_a_tuple_for_numeric_padding():
    """PyTorch's _reverse_repeat_tuple gives a tuple; the 'same'/'valid' paddings give a list."""
    def attrs(lib):
        nn = lib.nn
        return [repr(m._reversed_padding_repeated_twice) for m in
                (nn.Conv1d(2, 2, 3), nn.Conv2d(2, 2, 3, padding=(1, 2), padding_mode="circular"),
                 nn.Conv3d(2, 2, 3, padding=1), nn.ConvTranspose2d(2, 2, 3, padding=1),
                 nn.Conv2d(2, 2, 4, padding="same"), nn.Conv1d(2, 2, 3, padding="valid"))]
    assert attrs(torch) == attrs(pt)


@pytest.mark.parametrize("size", [[13, 15], (2, 2, 14, 16), "Size2", [20, 20], (20, 20), "Size4big", [1, 13, 15],
                                  [13]])
def test_conv_transpose_output_size_checks_and_messages(size):
    """output_size: the spatial sizes or all of them (sliced as given, so a tuple or torch.Size prints as one);
    a wrong length and an unreachable size raise PyTorch's ValueErrors, naming input.size()[2:]."""
    def run(lib):
        lib.manual_seed(0)
        ct = lib.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1)
        x = lib.randn(2, 4, 7, 8)
        s = {"Size2": lib.Size([13, 16]), "Size4big": lib.Size([2, 2, 20, 20])}.get(size, size) \
            if isinstance(size, str) else size
        batched = _err(lambda: ct(x, output_size=s))
        unbatched = _err(lambda: ct(x[0], output_size=s))
        return batched, unbatched
    assert run(torch) == run(pt)


def test_conv_transpose1d_output_size_values():
    def run(lib):
        lib.manual_seed(0)
        ct = lib.nn.ConvTranspose1d(4, 2, 3, stride=3)
        x = lib.randn(1, 4, 5)
        return [round(v, 4) for v in ct(x, output_size=[17]).sum((0, 1)).tolist()]
    assert run(torch) == run(pt)


def test_conv_transpose_string_padding_is_tupled_like_pytorch():
    """ConvTranspose has no 'same': PyTorch's _pair turns the string into a tuple of its letters."""
    def run(lib):
        return repr(lib.nn.ConvTranspose2d(4, 6, 3, padding="same")), repr(lib.nn.ConvTranspose1d(2, 2, 3,
                                                                                                  padding="ab"))
    assert run(torch) == run(pt)


# ---------------------------------------------------------------- pooling

def test_max_unpool_reports_the_last_invalid_index():
    """PyTorch's (single-threaded) kernel overwrites the reported index at each bad one: the last one wins."""
    def run(lib):
        F = lib.nn.functional
        lib.set_num_threads(1) if lib is pt else None
        return [_err(lambda: F.max_unpool1d(lib.ones(1, 2, 3), lib.tensor([[[0, 9, 7], [8, 1, 6]]]), 2)),
                _err(lambda: F.max_unpool2d(lib.ones(1, 1, 2, 2), lib.tensor([[[[0, 30], [-2, 3]]]]), 2)),
                _err(lambda: F.max_unpool3d(lib.ones(1, 2, 1, 1, 3), lib.tensor([[[[[0, 99, 7]]], [[[8, -1, 3]]]]]),
                                            2))]
    torch_threads = pt.get_num_threads()
    try:
        assert run(torch) == run(pt)
    finally:
        pt.set_num_threads(torch_threads)


def test_fractional_max_pool2d_output_ratio_forms():
    """The functional 2-d form takes len() of output_ratio (a plain number is a TypeError in PyTorch); the 3-d
    form and the modules accept a number."""
    def run(lib):
        F, nn = lib.nn.functional, lib.nn
        lib.manual_seed(0)
        x = lib.randn(1, 2, 9, 10)
        x3 = lib.randn(1, 2, 5, 6, 4)
        out = [_err(lambda: F.fractional_max_pool2d(x, 2, output_ratio=0.5)),
               _err(lambda: F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.7))),
               _err(lambda: F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5, 0.5))),
               _err(lambda: F.fractional_max_pool3d(x3, 2, output_ratio=0.5)),
               _err(lambda: nn.FractionalMaxPool2d(2, output_ratio=0.5)(x))]
        lib.manual_seed(1)
        out.append([round(v, 4) for v in F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.7)).flatten().tolist()])
        return out
    assert run(torch) == run(pt)
