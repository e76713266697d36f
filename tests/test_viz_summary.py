"""viz.summary: the torchinfo-style table of a model's layers; its totals against the parameters."""
import pytest

import pedatorch
from pedatorch import nn
from pedatorch.viz import summary


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(256, 120), nn.ReLU(), nn.Linear(120, 84),
                                        nn.ReLU(), nn.Linear(84, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


class Unrolled(nn.Module):
    """One cell called three times: three rows, its parameters counted once."""

    def __init__(self):
        super().__init__()
        self.cell, self.head = nn.Linear(4, 4), nn.Linear(4, 2)

    def forward(self, x):
        for _ in range(3):
            x = self.cell(x).tanh()
        return self.head(x)


def test_lenet_rows_and_totals():
    model = LeNet()
    s = summary(model, (1, 1, 28, 28))
    assert s.total_params == sum(p.numel() for p in model.parameters()) == 44426
    assert s.trainable_params == 44426
    names = [type(r.module).__name__ for r in s.rows]
    assert names == ["LeNet", "Sequential", "Conv2d", "ReLU", "MaxPool2d", "Conv2d", "ReLU", "MaxPool2d",
                     "Sequential", "Flatten", "Linear", "ReLU", "Linear", "ReLU", "Linear"]
    assert [r.depth for r in s.rows][:3] == [0, 1, 2]
    text = str(s)
    assert "├─Sequential: 1-1" in text and "│    └─Conv2d: 2-1" in text and "└─Linear: 2-12" in text
    assert "[1, 6, 24, 24]" in text and "Total params: 44,426" in text and "Non-trainable params: 0" in text
    assert "Estimated Total Size (MB)" in text and repr(s) == text


def test_mult_adds_follow_the_documented_rule():
    conv = summary(nn.Conv2d(2, 3, 3), (2, 2, 8, 8), col_names=("mult_adds",))
    assert conv.total_mult_adds == 3 * 2 * 3 * 3 * (2 * 6 * 6)          # weight elements x output positions
    lin = summary(nn.Linear(3, 5), (4, 7, 3))
    assert lin.total_mult_adds == 15 * 4 * 7
    assert summary(nn.Embedding(10, 3), (2, 5), dtypes=[pedatorch.long]).total_mult_adds == 0
    assert "Mult-Adds" in str(conv) and "(M): 0.00" in str(conv)


def test_shared_module_rows_and_frozen_parameters():
    model = Unrolled()
    model.head.requires_grad_(False)
    s = summary(model, pedatorch.zeros(2, 4), col_names=("output_size", "num_params", "trainable"))
    assert [type(r.module).__name__ for r in s.rows] == ["Unrolled", "Linear", "Linear", "Linear", "Linear"]
    assert s.total_params == 20 + 10 and s.trainable_params == 20
    lines = str(s).splitlines()
    cell_lines = [ln for ln in lines if "Linear: 1-" in ln]
    assert "20" in cell_lines[0] and "(recursive)" in cell_lines[1] and "(recursive)" in cell_lines[2]
    assert "False" in cell_lines[3]
    assert "Non-trainable params: 10" in str(s)


def test_depth_hides_rows_not_totals():
    model = LeNet()
    s = summary(model, (1, 1, 28, 28), depth=1)
    assert "Conv2d" not in str(s) and "Sequential: 1-2" in str(s)
    assert s.total_params == 44426


def test_inputs_tuple_dict_and_mode_restored():
    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.drop = nn.Linear(3, 2), nn.Dropout(0.5)

        def forward(self, x, y=None):
            return self.drop(self.a(x)) + (0 if y is None else y)

    m = Two().train()
    s = summary(m, input_data=(pedatorch.ones(4, 3), pedatorch.ones(4, 2)))
    assert s.rows[0].input_shape == [[4, 3], [4, 2]] and s.rows[0].output_shape == [4, 2]
    assert m.training and all(x.training for x in m.modules())    # run in eval mode, then restored
    s2 = summary(m, {"x": pedatorch.ones(1, 3)})
    assert s2.rows[0].output_shape == [1, 2]


def test_summary_draws_no_random_numbers():
    model = nn.Linear(3, 2)
    pedatorch.manual_seed(0)
    a = pedatorch.rand(3)
    pedatorch.manual_seed(0)
    summary(model, (5, 3))
    assert pedatorch.equal(pedatorch.rand(3), a)


def test_errors_are_clear():
    with pytest.raises(TypeError, match="expects an nn.Module"):
        summary(lambda x: x, (1, 3))
    with pytest.raises(ValueError, match="unknown column 'params'"):
        summary(nn.Linear(3, 2), (1, 3), col_names=("params",))
    with pytest.raises(ValueError, match="2 input sizes but 1 dtypes"):
        summary(nn.Linear(3, 2), [(1, 3), (1, 3)], dtypes=[pedatorch.float32])
    m = nn.Linear(3, 2)
    with pytest.raises(RuntimeError):
        summary(m, (1, 4))                          # the model's own error, hooks removed afterwards
    assert not m._forward_hooks and not m._forward_pre_hooks


def test_html_table_and_root_alias():
    s = pedatorch.summary(LeNet(), (1, 1, 28, 28))
    page = s._repr_html_()
    assert page.count("<tr>") == 1 + len(s.rows) and "Total params: 44,426" in page
    assert "<th style='text-align:left'>Output Shape</th>" in page


def test_parameter_counts_equal_pytorch():
    torch = pytest.importorskip("torch")
    ours, theirs = LeNet(), torch.nn.Sequential(
        torch.nn.Conv2d(1, 6, 5), torch.nn.Conv2d(6, 16, 5), torch.nn.Linear(256, 120), torch.nn.Linear(120, 84),
        torch.nn.Linear(84, 10))
    assert summary(ours, (1, 1, 28, 28)).total_params == sum(p.numel() for p in theirs.parameters())
