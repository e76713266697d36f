"""torch.utils.data / pad_sequence round p3 (tests/compat/47_data_utilities.py); each compared with PyTorch."""
import numpy as np
import pytest

import pedatorch as torch
import pedatorch.nn.utils.rnn as rnn

pt = pytest.importorskip("torch")
import torch.nn.utils.rnn as pt_rnn  # noqa: E402


def _outcome(fn):
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        return type(e).__name__, str(e)
    return out.tolist()


@pytest.mark.parametrize("case", range(17))
def test_pad_sequence_argument_type_errors(case):
    """pad_sequence checks its arguments as PyTorch's C++ signature does (Tensor[], bool, float, str), in
    that order: a non-tensor element, an int batch_first, a 1-d / grad-requiring tensor or a complex
    padding_value, a None padding_side are TypeErrors; numpy numbers, 0-dim tensors and bytes pass."""
    def run(lib, pad):
        ones = lambda *s: lib.ones(*s)  # noqa: E731
        cases = [
            lambda: pad([[1, 2], [3]]),
            lambda: pad([ones(2), 3]),
            lambda: pad([ones(2), None]),
            lambda: pad([ones(2), np.ones(2)]),
            lambda: pad([[1], 2], batch_first=1),
            lambda: pad([ones(2), ones(1)], batch_first=1),
            lambda: pad([ones(2), ones(1)], batch_first=np.bool_(True)),
            lambda: pad([ones(2), ones(1)], padding_value=None),
            lambda: pad([ones(2), ones(1)], padding_value=1 + 2j),
            lambda: pad([ones(2), ones(1)], padding_value=lib.tensor([3.0])),
            lambda: pad([ones(2), ones(1)], padding_value=lib.tensor(2.0, requires_grad=True)),
            lambda: pad([ones(2), ones(1)], padding_value=np.array(2.0)),
            lambda: pad([ones(2), ones(1)], padding_value=lib.tensor(3)),
            lambda: pad([ones(2), ones(1)], padding_value=np.float32(2.5)),
            lambda: pad([ones(2), ones(1)], padding_side=None),
            lambda: pad([ones(2), ones(1)], True, 0.0, b"left"),
            lambda: pad([], batch_first=1),
        ]
        return _outcome(cases[case])

    assert run(torch, rnn.pad_sequence) == run(pt, pt_rnn.pad_sequence)
