"""pedatorch.profiler: ops, record_function ranges and backward nodes as timed events, tabled as PyTorch does."""
import json

import pytest

import pedatorch as torch
import pedatorch.nn as nn
from pedatorch.profiler import profile, record_function, ProfilerActivity, ProfilerAction, schedule


def _model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)), torch.randn(4, 8)


def test_ops_nodes_and_ranges_are_events():
    model, x = _model()
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, profile_memory=True) as prof:
        with record_function("model_inference"):
            model(x).sum().backward()
    averages = {ev.key: ev for ev in prof.key_averages()}
    assert averages["aten::addmm"].count == 2 and averages["aten::relu"].count == 1
    assert averages["autograd::engine::evaluate_function: AddmmBackward0"].count == 2
    assert averages["model_inference"].count == 1
    top = prof.events()[0]
    assert top.name == "model_inference" and top.cpu_parent is None
    # every event lies inside its parent, and self time is what the children leave
    for ev in prof.events():
        if ev.cpu_parent is not None:
            assert ev.cpu_parent.start_ns <= ev.start_ns <= ev.end_ns <= ev.cpu_parent.end_ns
        assert ev.self_cpu_time_total == pytest.approx(ev.cpu_time_total - sum(c.cpu_time_total for c in ev.cpu_children))
    assert top.cpu_time_total == pytest.approx(sum(ev.self_cpu_time_total for ev in prof.events()))
    # memory: addmm's (4, 16) and (4, 2) float32 results
    assert averages["aten::addmm"].cpu_memory_usage == 4 * 16 * 4 + 4 * 2 * 4
    by_shape = prof.key_averages(group_by_input_shape=True)
    assert [[16], [4, 8], [8, 16], [], []] in [ev.input_shapes for ev in by_shape if ev.key == "aten::addmm"]


def test_table_layout_is_pytorchs():
    model, x = _model()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        with record_function("model_inference"):
            model(x)
    text = prof.key_averages().table(sort_by="cpu_time_total", row_limit=3)
    lines = text.rstrip("\n").split("\n")
    assert lines[1].split() == ["Name", "Self", "CPU", "%", "Self", "CPU", "CPU", "total", "%", "CPU", "total", "CPU",
                                "time", "avg", "CPU", "Mem", "Self", "CPU", "Mem", "#", "of", "Calls"]
    assert lines[0] == lines[2] == lines[-2] and set(lines[0]) == {"-", " "}
    assert len(lines) == 3 + 3 + 2 and lines[3].split()[0] == "model_inference" and "100.00%" in lines[3]
    assert lines[-1].startswith("Self CPU time total: ")
    widths = [len(part) for part in lines[0].split("  ") if part]
    assert widths[0] == len("model_inference") + 4 and set(widths[1:]) == {12}
    pt = pytest.importorskip("torch")
    import torch.profiler as pt_profiler
    with pt_profiler.profile(activities=[pt_profiler.ProfilerActivity.CPU], profile_memory=True) as pt_prof:
        with pt_profiler.record_function("model_inference"):
            pt.nn.Linear(8, 16)(pt.randn(4, 8))
    pt_lines = pt_prof.key_averages().table(sort_by="cpu_time_total", row_limit=3).rstrip("\n").split("\n")
    assert pt_lines[1].split() == lines[1].split()


def test_schedule_matches_pytorch():
    pt = pytest.importorskip("torch")
    import warnings
    for kw in (dict(wait=1, warmup=1, active=2), dict(wait=2, warmup=1, active=3, repeat=2, skip_first=1),
               dict(wait=3, warmup=1, active=1, skip_first_wait=1, repeat=1)):
        ours = schedule(**kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = pt.profiler.schedule(**kw)
        assert [ours(i).name for i in range(20)] == [theirs(i).name for i in range(20)], kw
    with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
        schedule(wait=0, warmup=0, active=0)


def test_scheduled_profile_hands_over_each_trace(tmp_path):
    model, x = _model()
    ready = []
    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
                 on_trace_ready=lambda p: ready.append((p.step_num, [ev.key for ev in p.key_averages()]))) as p:
        for _ in range(9):
            model(x)
            p.step()
    assert [step for step, _ in ready] == [4, 8]
    for _, keys in ready:
        assert "ProfilerStep#2" in keys or "ProfilerStep#6" in keys
        assert "aten::addmm" in keys
    handler = torch.profiler.tensorboard_trace_handler(str(tmp_path / "log"), worker_name="w")
    with profile(on_trace_ready=handler):
        model(x)
    files = list((tmp_path / "log").iterdir())
    assert len(files) == 1 and files[0].name.startswith("w.") and files[0].name.endswith(".pt.trace.json")
    trace = json.loads(files[0].read_text())
    assert any(ev["name"] == "aten::addmm" and ev["ph"] == "X" for ev in trace["traceEvents"])


def test_record_function_outside_a_profile_and_as_decorator():
    @record_function("double")
    def double(t):
        return t * 2

    assert double(torch.ones(2)).tolist() == [2.0, 2.0]   # no profiler: just runs
    with profile() as prof:
        double(torch.ones(2))
    names = [ev.name for ev in prof.events()]
    assert names == ["double", "aten::mul"] and prof.events()[1].cpu_parent is prof.events()[0]
    assert ProfilerAction.RECORD_AND_SAVE.value == 3
