"""Recurrent / attention round p3: the LSTM kernel's own checks of packed input, LSTMCell's hx type;
each compared with PyTorch."""
import pytest

import pedatorch as torch
from conftest import error_of

pt = pytest.importorskip("torch")


_err = error_of


def _packed(lib):
    return lib.nn.utils.rnn.pack_sequence([lib.ones(4, 3), lib.ones(3, 3), lib.ones(2, 3)])


PACKED_LSTM_CASES = [
    ((5, 2), {}, None),                                 # input size: the first matmul fails
    ((3, 2), {}, ((1, 2, 2), (1, 2, 2))),               # state batch != batch_sizes[0]
    ((3, 2), {}, ((2, 3, 2), (2, 3, 2))),               # too many layers of state
    ((3, 2), {"num_layers": 2}, ((1, 3, 2), (1, 3, 2))),
    ((3, 4), {"proj_size": 2}, ((1, 3, 4), (1, 3, 4))),  # h as wide as c: "no projections", wrong count
    ((3, 4), {"proj_size": 2}, ((1, 3, 3), (1, 3, 4))),
    ((3, 4), {"proj_size": 2, "bidirectional": True, "num_layers": 2}, ((4, 3, 4), (4, 3, 4))),
    ((3, 2), {}, ((1, 3, 2), (1, 3, 2), (1, 3, 2))),     # three states
]


@pytest.mark.parametrize("sizes,kwargs,states", PACKED_LSTM_CASES)
def test_packed_lstm_bad_states_fail_in_the_kernel(sizes, kwargs, states):
    """PyTorch's LSTM.forward does not call check_forward_args for packed input: the kernel's messages."""
    def run(lib):
        hx = None if states is None else tuple(lib.zeros(*s) for s in states)
        return _err(lambda: lib.nn.LSTM(*sizes, **kwargs)(_packed(lib), hx))
    assert run(torch) == run(pt)


def test_packed_lstm_dtype_mismatch_and_three_states_unpacked():
    def run(lib):
        return (_err(lambda: lib.nn.LSTM(3, 2)(_packed(lib).to(lib.float64))),
                _err(lambda: lib.nn.GRU(3, 2)(_packed(lib).to(lib.float64))),
                _err(lambda: lib.nn.LSTM(3, 2)(lib.ones(4, 3, 3), (lib.zeros(1, 3, 2),) * 3)))
    assert run(torch) == run(pt)


def test_packed_lstm_good_states_still_run():
    pt.manual_seed(0)
    ref = pt.nn.LSTM(3, 4, proj_size=2, num_layers=2, bidirectional=True)
    mine = torch.nn.LSTM(3, 4, proj_size=2, num_layers=2, bidirectional=True)
    mine.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    h0, c0 = pt.randn(4, 3, 2), pt.randn(4, 3, 4)
    out_r, (h_r, c_r) = ref(_packed(pt), (h0, c0))
    out_m, (h_m, c_m) = mine(_packed(torch), (torch.tensor(h0.numpy()), torch.tensor(c0.numpy())))
    for a, b in ((out_m.data, out_r.data), (h_m, h_r), (c_m, c_r)):
        assert abs(a.detach().numpy() - b.detach().numpy()).max() < 1e-5


def test_lstm_cell_hx_must_be_a_pair():
    def run(lib):
        cell = lib.nn.LSTMCell(4, 2)
        return (_err(lambda: cell(lib.ones(3, 4), lib.zeros(3, 2))),
                _err(lambda: cell(lib.ones(3, 4), lib.zeros(2, 3, 2))),
                tuple(cell(lib.ones(4), (lib.zeros(2), lib.zeros(2)))[0].shape))
    assert run(torch) == run(pt)
