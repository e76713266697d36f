"""pedatorch.save / pedatorch.load in PyTorch's zip format, safe loading, and pedatorch.safetensors.

Round trips per dtype and layout; files going both ways between pedatorch and PyTorch (skipped without
torch); views sharing a storage; a malicious pickle that must not run; crashes in the middle of a save;
corrupted files; map_location; optimizer state; load_state_dict's messages; safetensors interchange.
"""
import collections
import io
import mmap
import os
import pickle
import pickletools
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

import pedatorch as pt
from pedatorch import serialization
from pedatorch import safetensors as pst
from pedatorch.backend import cuda_available, standin

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64", "bool", "complex64", "complex128"]


def grid(dtype, lib=pt):
    """A 3x4 tensor of ``dtype`` (a name) with distinct values, from pedatorch or torch."""
    arr = np.arange(12).reshape(3, 4)
    arr = arr % 2 == 1 if dtype == "bool" else arr + 1j * arr if dtype.startswith("complex") else arr
    if lib is pt:
        return pt.tensor(arr).to(getattr(pt, dtype))
    return lib.tensor(arr.tolist()).to(getattr(lib, dtype))


def views(x):
    """Views of one storage in several layouts: whole, transposed, a row (offset), a 0-d element, empty."""
    return {"x": x, "t": x.t(), "row": x[1], "el": x[2, 3], "empty": x[:0], "step": x[:, ::2]}


def same_storage(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def roundtrip(obj, **load_kwargs):
    buf = io.BytesIO()
    pt.save(obj, buf)
    buf.seek(0)
    return pt.load(buf, **load_kwargs)


def write_zip(path, records, prefix="archive"):
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in records.items():
            zf.writestr(f"{prefix}/{name}", data)


def rezip(data, replace):
    """The archive ``data`` (bytes) with some records' contents replaced (name -> function of old bytes)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            body = src.read(info)
            short = info.filename.split("/", 1)[1]
            dst.writestr(info.filename, replace[short](body) if short in replace else body)
    return out.getvalue()


# ================================================================ round trips within pedatorch
@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_every_dtype_and_layout(dtype):
    vs = views(grid(dtype))
    back = roundtrip(vs)
    for k, v in vs.items():
        b = back[k]
        assert b.dtype == v.dtype and b.shape == v.shape and b.tolist() == v.tolist(), k
        if v.numel():
            assert b.stride() == v.stride() and b.storage_offset() == v.storage_offset(), k
    assert all(same_storage(back["x"], back[k]) for k in ("t", "row", "el", "step"))
    back["x"][1, 0] = back["x"][0, 0]   # the views see writes through the base, as before saving
    assert back["row"][0].item() == back["x"][0, 0].item() and back["t"][0, 1].item() == back["x"][0, 0].item()


def test_one_record_per_storage_and_the_file_layout(tmp_path):
    x = pt.arange(12.0).reshape(3, 4)
    path = tmp_path / "ckpt.pt"
    pt.save({"x": x, "t": x.t(), "row": x[1], "y": pt.zeros(2, dtype=pt.int64)}, path)
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        assert names == ["ckpt/data.pkl", "ckpt/.format_version", "ckpt/.storage_alignment", "ckpt/byteorder",
                         "ckpt/data/0", "ckpt/data/1", "ckpt/version", "ckpt/.data/serialization_id"]
        assert zf.read("ckpt/version") == b"3\n" and zf.read("ckpt/.format_version") == b"1"
        assert zf.read("ckpt/.storage_alignment") == b"64" and zf.read("ckpt/byteorder") == sys.byteorder.encode()
        assert np.frombuffer(zf.read("ckpt/data/0"), np.float32).tolist() == list(range(12))
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())
        raw = path.read_bytes()
        for info in zf.infolist():   # every record's bytes start at a multiple of 64, as torch writes them
            n, m = struct.unpack_from("<HH", raw, info.header_offset + 26)
            assert (info.header_offset + 30 + n + m) % 64 == 0
        ops = list(pickletools.genops(zf.read("ckpt/data.pkl")))
    assert ops[0][0].name == "PROTO" and ops[0][1] == 2
    globals_ = {arg for op, arg, _ in ops if op.name == "GLOBAL"}
    assert globals_ == {"torch._utils _rebuild_tensor_v2", "torch FloatStorage", "torch LongStorage",
                        "collections OrderedDict"}
    strings = [arg for op, arg, _ in ops if op.name == "BINUNICODE"]   # (each written once, then memoized)
    assert {"storage", "0", "1", "cpu"} <= set(strings) and "2" not in strings


def test_containers_parameters_and_state_dicts():
    lin = pt.nn.Linear(2, 3)
    w = pt.ones(2, requires_grad=True)
    obj = {"sd": lin.state_dict(), "param": lin.weight, "frozen": pt.nn.Parameter(pt.zeros(1), requires_grad=False),
           "leaf": w, "nonleaf": w * 2, "list": [1, 2.5, "s", None, True], "tuple": (pt.tensor(1), 3),
           "od": collections.OrderedDict(a=1), "set": {1, 2}, "size": pt.Size([2, 3]), "dtype": pt.bfloat16,
           "device": pt.device("cpu"), "cdev": pt.device("cuda", 1), "complex": 1 + 2j, "bytes": b"\x00\xff",
           "nested": {"deep": [{"t": pt.arange(3)}]}}
    back = roundtrip(obj)
    assert isinstance(back["sd"], collections.OrderedDict) and back["sd"]._metadata == lin.state_dict()._metadata
    assert back["sd"]["weight"].tolist() == lin.weight.tolist() and not back["sd"]["weight"].requires_grad
    assert type(back["param"]) is pt.nn.Parameter and back["param"].requires_grad
    assert type(back["frozen"]) is pt.nn.Parameter and not back["frozen"].requires_grad
    assert back["leaf"].requires_grad and back["leaf"].is_leaf
    assert back["nonleaf"].requires_grad and back["nonleaf"].is_leaf and back["nonleaf"].grad_fn is None
    for k in ("list", "od", "set", "size", "dtype", "device", "cdev", "complex", "bytes"):
        assert back[k] == obj[k] and type(back[k]) is type(obj[k]), k
    assert back["dtype"] is pt.bfloat16 and back["tuple"][0].tolist() == 1
    assert back["nested"]["deep"][0]["t"].tolist() == [0, 1, 2]


@pytest.mark.parametrize("kind", ["str", "path", "file", "bytesio"])
def test_destinations(tmp_path, kind):
    x = pt.randn(3)
    path = tmp_path / "w.pt"
    if kind == "bytesio":
        buf = io.BytesIO()
        pt.save(x, buf)
        buf.seek(0)
        assert pt.load(buf).tolist() == x.tolist()
        return
    if kind == "file":
        with open(path, "wb") as f:
            pt.save(x, f)
        with open(path, "rb") as f:
            assert pt.load(f).tolist() == x.tolist()
        return
    target = str(path) if kind == "str" else path
    pt.save(x, target)
    assert pt.load(target).tolist() == x.tolist()


def test_bad_arguments(tmp_path):
    with pytest.raises(AttributeError, match="expected 'f' to be string, path, or a file-like object"):
        pt.save(pt.zeros(1), 3)
    with pytest.raises(RuntimeError, match="Parent directory .*nowhere does not exist"):
        pt.save(pt.zeros(1), tmp_path / "nowhere" / "x.pt")
    buf = io.BytesIO()
    pt.save(pt.zeros(1), buf)
    buf.seek(0)
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap argument"):
        pt.load(buf, mmap=True)
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module is specified"):
        pt.load(buf, pickle_module=pickle, weights_only=True)
    buf.seek(0)
    assert pt.load(buf, pickle_module=pickle).tolist() == [0.0]   # a pickle_module means weights_only=False
    x = pt.zeros(4)
    with pytest.raises(RuntimeError, match="Cannot save multiple tensors or storages that view the same data as "
                                           "different types"):
        pt.save([x, x.view(pt.int32)], io.BytesIO())


def test_other_pickle_protocols_and_subclasses():
    buf = io.BytesIO()
    pt.save({"x": pt.arange(3)}, buf, pickle_protocol=4)
    buf.seek(0)
    assert pt.load(buf)["x"].tolist() == [0, 1, 2]
    b = roundtrip(pt.nn.Buffer(pt.ones(2)))   # a Tensor subclass other than Parameter: saved as a tensor
    assert type(b) is pt.Tensor and b.tolist() == [1.0, 1.0]


def test_mmap_private_and_shared(tmp_path):
    path = tmp_path / "m.pt"
    x = pt.arange(6.0).reshape(2, 3)
    pt.save({"x": x, "t": x.t()}, path)
    m = pt.load(path, mmap=True)
    assert m["x"].tolist() == x.tolist() and same_storage(m["x"], m["t"])
    m["x"][0, 0] = 100.0                         # copy on write: the file stays as it was
    assert m["t"][0, 0].item() == 100.0 and pt.load(path)["x"][0, 0].item() == 0.0
    with serialization.set_default_mmap_options(mmap.MAP_SHARED):
        s = pt.load(path, mmap=True)
        s["x"][0, 0] = 7.0                       # shared: the write goes to the file
        del s
    # (its checksum no longer matches: only a mapped load, which checks none, reads it now)
    assert pt.load(path, mmap=True)["x"][0, 0].item() == 7.0
    with pytest.raises(RuntimeError, match="Bad CRC-32"):
        pt.load(path)


def test_big_endian_files_are_byteswapped():
    values = {"f": pt.tensor([1.5, -2.0]), "i": pt.tensor([1, -300], dtype=pt.int16),
              "c": pt.tensor([1 + 2j], dtype=pt.complex64), "b": pt.tensor([1, 2], dtype=pt.uint8)}
    buf = io.BytesIO()
    pt.save(values, buf)
    swapped = {"byteorder": lambda _: b"big"}
    with zipfile.ZipFile(buf) as zf:
        pkl = zf.read("archive/data.pkl")
    order = [arg for op, arg, _ in pickletools.genops(pkl) if op.name == "GLOBAL" and arg.endswith("Storage")]
    np_types = {"torch FloatStorage": ">f4", "torch ShortStorage": ">i2", "torch ComplexFloatStorage": ">c8",
                "torch ByteStorage": "u1"}
    for key, name in enumerate(order):
        big = np_types[name]
        swapped[f"data/{key}"] = lambda raw, t=big: np.frombuffer(raw, t.replace(">", "<")).astype(t).tobytes()
    back = pt.load(io.BytesIO(rezip(buf.getvalue(), swapped)))
    assert {k: v.tolist() for k, v in back.items()} == {k: v.tolist() for k, v in values.items()}


# ================================================================ safe loading
class _Evil:
    def __init__(self, call, *args):
        self.call, self.args = call, args

    def __reduce__(self):
        return self.call, self.args


class Config:   # a user class that a checkpoint may hold (allowed only on request)
    def __init__(self, lr):
        self.lr = lr

    def __eq__(self, other):
        return type(other) is Config and other.lr == self.lr


def _file_with(path, obj):
    """A zip archive whose data.pkl is ``obj`` pickled by pickle itself (what an attacker would write)."""
    write_zip(path, {"data.pkl": pickle.dumps(obj, protocol=2), "version": b"3\n"})
    return path


def test_malicious_pickle_does_not_run(tmp_path):
    marker = tmp_path / "pwned"
    path = _file_with(tmp_path / "evil.pt", {"w": [1.5], "x": _Evil(os.system, f"touch {marker}")})
    with pytest.raises(pickle.UnpicklingError) as e:
        pt.load(path)
    assert not marker.exists()
    assert f"GLOBAL {os.system.__module__}.system whose module {os.system.__module__} is blocked" in str(e.value)
    assert "Weights only load failed" in str(e.value)

    path = _file_with(tmp_path / "evil2.pt", [_Evil(exec, f"open({str(marker)!r}, 'w').close()")])
    with pytest.raises(pickle.UnpicklingError) as e:
        pt.load(path, weights_only=True)
    assert not marker.exists()
    msg = str(e.value)
    assert "Unsupported global: GLOBAL exec was not an allowed global by default" in msg
    assert "`torch.serialization.add_safe_globals([exec])`" in msg and "weights_only` set to `False`" in msg


def test_weights_only_checks_calls_and_attribute_writes(tmp_path):
    programs = {  # hand-written pickles (protocol 2 opcodes) that misuse allowed objects
        # BUILD on the shared dtype object: torch.float32.itemsize = 8 (would make later views overrun)
        "build": (b"\x80\x02ctorch\nfloat32\nN}X\x08\x00\x00\x00itemsizeK\x08s\x86b.",
                  "Can only build Tensor, Parameter, OrderedDict or types allowlisted"),
        # REDUCE calling an object that is not an allowed function (a Size made by the file)
        "reduce": (b"\x80\x02ctorch\nSize\n]\x85R)R.", "Trying to call reduce for unrecognized function"),
        # NEWOBJ with an object that is not an allowed class
        "newobj": (b"\x80\x02ctorch\nSize\n]\x85R)\x81.", "Can only create new object for nn.Parameter"),
    }
    for name, (program, words) in programs.items():
        path = tmp_path / f"{name}.pt"
        write_zip(path, {"data.pkl": program})
        with pytest.raises(pickle.UnpicklingError, match=words):
            pt.load(path)
    assert pt.float32.itemsize == 4


def test_allow_listed_globals(tmp_path):
    path = tmp_path / "cfg.pt"
    pt.save({"cfg": Config(0.1), "w": pt.ones(2)}, path)
    with pytest.raises(pickle.UnpicklingError, match=f"GLOBAL {__name__}.Config was not an allowed global"):
        pt.load(path)
    with serialization.safe_globals([Config]):
        assert pt.load(path)["cfg"] == Config(0.1)
    with pytest.raises(pickle.UnpicklingError):   # only inside the block
        pt.load(path)
    serialization.add_safe_globals([(Config, f"{__name__}.Config")])
    try:
        assert pt.load(path)["cfg"] == Config(0.1)
    finally:
        serialization.clear_safe_globals()
    assert pt.load(path, weights_only=False)["cfg"] == Config(0.1)


def test_weights_only_false_loads_a_whole_module(tmp_path):
    pt.manual_seed(0)
    model = pt.nn.Sequential(pt.nn.Linear(3, 4), pt.nn.ReLU(), pt.nn.Linear(4, 1))
    path = tmp_path / "model.pt"
    pt.save(model, path)
    with pytest.raises(pickle.UnpicklingError, match="pedatorch.nn.modules.container.Sequential was not an allowed"):
        pt.load(path)
    back = pt.load(path, weights_only=False)
    x = pt.randn(5, 3)
    assert type(back) is pt.nn.Sequential and back(x).tolist() == model(x).tolist()
    assert type(back[0].weight) is pt.nn.Parameter


def test_out_of_bounds_views_and_bad_references_are_refused(tmp_path):
    def tensor_file(size, stride, offset=0, numel=4, record_bytes=16):
        # data.pkl naming a view of a 4-float storage, written with pedatorch's pickler and torch's names
        class View:
            def __reduce__(self):
                return (serialization._TorchName("torch._utils._rebuild_tensor_v2"),
                        (record, offset, size, stride, False, collections.OrderedDict()))
        record = serialization._StorageRecord("0", np.zeros(record_bytes // 4, np.float32),
                                              serialization._TorchName("torch.FloatStorage"), numel, "cpu")
        data = io.BytesIO()
        serialization._Pickler(data, 2).dump(View())
        out = io.BytesIO()
        serialization._write_archive(out, "archive", data.getvalue(), [record])
        out.seek(0)
        return out

    assert pt.load(tensor_file((2, 2), (2, 1))).tolist() == [[0, 0], [0, 0]]
    with pytest.raises(RuntimeError, match=r"setStorage: sizes \[2, 3\], strides \[3, 1\], storage offset 0, and "
                                           r"itemsize 4 requiring a storage size of 24 are out of bounds for "
                                           r"storage of size 16"):
        pt.load(tensor_file((2, 3), (3, 1)))
    with pytest.raises(RuntimeError, match="out of bounds"):
        pt.load(tensor_file((2,), (1,), offset=3))
    with pytest.raises(RuntimeError, match="out of bounds"):
        pt.load(tensor_file((2,), (-1,), offset=1))
    with pytest.raises(RuntimeError, match="record data/0 holds 16 bytes, but data.pkl describes a storage of 40"):
        pt.load(tensor_file((2,), (1,), numel=10))
    with pytest.raises(pickle.UnpicklingError, match="Only persistent_load of storage is allowed"):
        class Pid(pickle.Pickler):
            def persistent_id(self, obj):
                return ("module", "os") if obj == "x" else None
        data = io.BytesIO()
        Pid(data, 2).dump(["x"])
        path = tmp_path / "pid.pt"
        write_zip(path, {"data.pkl": data.getvalue()})
        pt.load(path)


# ================================================================ crashes and broken files
def test_crash_while_pickling_keeps_the_old_file(tmp_path):
    path = tmp_path / "ckpt.pt"
    pt.save({"step": 1}, path)
    with pytest.raises(Exception):
        pt.save({"w": pt.ones(3), "z": lambda: 0}, path)   # a lambda cannot be pickled: fails halfway
    assert pt.load(path) == {"step": 1} and os.listdir(tmp_path) == ["ckpt.pt"]


def test_crash_while_writing_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.pt"
    pt.save({"step": 1}, path)
    real = serialization._write_record

    def failing(zf, name, data):
        if "/data/" in name:
            raise OSError("disk full")
        real(zf, name, data)
    monkeypatch.setattr(serialization, "_write_record", failing)
    with pytest.raises(OSError, match="disk full"):
        pt.save({"w": pt.ones(3)}, path)
    assert pt.load(path) == {"step": 1} and os.listdir(tmp_path) == ["ckpt.pt"]


def test_broken_files_raise_clear_errors(tmp_path):
    good = io.BytesIO()
    pt.save({"w": pt.arange(100.0)}, good)
    good = good.getvalue()
    cases = {"empty.pt": (b"", EOFError, "empty"),
             "random.pt": (bytes(range(7, 107)), pickle.UnpicklingError, "not a file written by torch.save"),
             "plain.pkl": (pickle.dumps({"a": 1}), pickle.UnpicklingError, "not a file written by torch.save"),
             "w.safetensors": (pst.save({"w": pt.ones(1)}), pickle.UnpicklingError, "pedatorch.safetensors.load_file"),
             "legacy.pt": (pickle.dumps(0x1950a86a20f9469cfc6c, protocol=2) + b"rest", RuntimeError, "legacy format"),
             "truncated.pt": (good[:len(good) // 2], RuntimeError, "PytorchStreamReader failed reading zip archive"),
             "nodata.pt": (None, RuntimeError, "failed locating file data.pkl")}
    write_zip(tmp_path / "nodata.pt", {"version": b"3\n"})
    info = zipfile.ZipFile(io.BytesIO(good)).getinfo("archive/data/0")
    n, m = struct.unpack_from("<HH", good, info.header_offset + 26)
    start = info.header_offset + 30 + n + m
    cases["bitflip.pt"] = (good[:start + 8] + bytes([good[start + 8] ^ 1]) + good[start + 9:], RuntimeError,
                           "failed reading file data/0")
    for name, (data, error, words) in cases.items():
        if data is not None:
            (tmp_path / name).write_bytes(data)
        for weights_only in (True, False):
            with pytest.raises(error) as e:
                pt.load(tmp_path / name, weights_only=weights_only)
            assert words in str(e.value) and name in str(e.value), (name, str(e.value))


# ================================================================ map_location
@pytest.fixture
def cuda_file(tmp_path):
    """A file saved from cuda:0 (on the stand-in CUDA backend where there is no GPU)."""
    real = cuda_available()
    if not real:
        standin.enable()
    try:
        x = pt.arange(6.0).reshape(2, 3).to("cuda")
        pt.save({"x": x, "t": x.t()}, tmp_path / "cuda.pt")
    finally:
        if not real:
            standin.disable()
    return tmp_path / "cuda.pt"


def test_map_location_forms(cuda_file, monkeypatch):
    with zipfile.ZipFile(cuda_file) as zf:
        assert "cuda:0" in [a for op, a, _ in pickletools.genops(zf.read("cuda/data.pkl")) if op.name == "BINUNICODE"]
    seen = []

    def keep_on_cpu(storage, location):
        seen.append(location)
        return storage
    for ml in ("cpu", b"cpu", pt.device("cpu"), {"cuda:0": "cpu"}, keep_on_cpu):
        d = pt.load(cuda_file, map_location=ml)
        assert d["x"].device == pt.device("cpu") and d["t"].tolist() == [[0, 3], [1, 4], [2, 5]]
        assert same_storage(d["x"], d["t"])
    assert seen == ["cuda:0"]   # once per storage
    monkeypatch.setattr(serialization, "_cuda_is_available", lambda: False)
    for ml in (None, {"cuda:1": "cpu"}, lambda storage, location: None, "cuda"):
        with pytest.raises(RuntimeError, match=r"Attempting to deserialize object on a CUDA device but "
                                               r"torch.cuda.is_available\(\) is False"):
            pt.load(cuda_file, map_location=ml)
    with pytest.raises(RuntimeError, match="don't know how to restore data location"):
        pt.load(cuda_file, map_location="xla:0")


def test_cuda_round_trip(device):
    x = pt.arange(6.0, device=device).reshape(2, 3)
    back = roundtrip({"x": x, "t": x.t()})
    assert back["x"].device == x.device and back["t"].tolist() == x.t().tolist()
    assert same_storage(back["x"], back["t"])
    onto = roundtrip({"x": pt.arange(3.0)}, map_location=device)["x"]
    assert onto.device == pt.device(device if device == "cpu" else "cuda:0") and onto.tolist() == [0, 1, 2]
    moved = roundtrip(x, map_location=lambda storage, location: storage.cpu())
    assert moved.device == pt.device("cpu") and moved.tolist() == x.tolist()
    if device == "cuda":
        up = roundtrip(pt.arange(3.0), map_location=lambda storage, location: storage.cuda(0))
        assert up.device == pt.device("cuda:0") and up.tolist() == [0, 1, 2]


# ================================================================ training state
def _train(model, opt, sched, steps):
    pt.manual_seed(1)
    for _ in range(steps):
        x, y = pt.randn(8, 3), pt.randn(8, 2)
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()


def _setup(seed):
    pt.manual_seed(seed)
    model = pt.nn.Linear(3, 2)
    opt = pt.optim.Adam(model.parameters(), lr=0.05, weight_decay=0.01)
    return model, opt, pt.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)


def test_optimizer_state_round_trip_continues_training_identically():
    model, opt, sched = _setup(0)
    _train(model, opt, sched, 3)
    ckpt = roundtrip({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()})
    _train(model, opt, sched, 3)
    model2, opt2, sched2 = _setup(5)   # other weights, fresh optimizer state
    model2.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["opt"])
    sched2.load_state_dict(ckpt["sched"])
    _train(model2, opt2, sched2, 3)
    assert model2.weight.tolist() == model.weight.tolist() and model2.bias.tolist() == model.bias.tolist()
    assert opt2.param_groups[0]["lr"] == opt.param_groups[0]["lr"]


# ================================================================ load_state_dict's messages, as torch's
def _load_state_dict_outcomes(lib):
    lib.manual_seed(0)
    nn = lib.nn
    lin = nn.Linear(2, 3)
    sd = lin.state_dict()
    bad = dict(sd)
    bad.pop("bias")
    bad.update({"extra": lib.zeros(1), "extra2.x": lib.zeros(1)})
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Sequential(nn.Linear(2, 1)))
    s2 = seq.state_dict()
    s2.pop("2.0.bias")
    s2.update({"2.0.foo": lib.zeros(1), "3.weight": lib.zeros(1)})
    bn = nn.BatchNorm1d(3)
    s3 = bn.state_dict()
    s3.pop("num_batches_tracked")
    cases = [(lin, bad, {}), (lin, bad, {"strict": False}),
             (lin, {"weight": lib.zeros(4, 2), "bias": lib.zeros(3)}, {}),
             (lin, {"weight": lib.zeros(4, 2), "bias": lib.zeros(5)}, {"strict": False}),
             (lin, {"weight": 3, "bias": lib.zeros(3)}, {}), (lin, sd, {}), (seq, s2, {}), (bn, s3, {}), (lin, [1], {})]
    out = []
    for module, state, kwargs in cases:
        try:
            r = module.load_state_dict(state, **kwargs)
            out.append(("ok", repr(r), type(r).__name__, r.missing_keys, r.unexpected_keys))
        except Exception as e:
            out.append((type(e).__name__, str(e)))
    return out


def test_load_state_dict_messages_equal_torchs(torch):
    assert _load_state_dict_outcomes(pt) == _load_state_dict_outcomes(torch)


# ================================================================ files between pedatorch and PyTorch
def _torch_views(torch, dtype):
    x = grid(dtype, torch)
    return {"x": x, "t": x.t(), "row": x[1], "el": x[2, 3], "empty": x[:0], "step": x[:, ::2]}


def _assert_same(ours, theirs, torch):
    for k, v in theirs.items():
        o = ours[k]
        assert str(o.dtype) == str(v.dtype) and tuple(o.shape) == tuple(v.shape), k
        assert o.tolist() == v.tolist(), k
        if v.numel():
            assert o.stride() == v.stride() and o.storage_offset() == v.storage_offset(), k


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_loads_pedatorch_files(torch, tmp_path, dtype):
    vs = views(grid(dtype))
    pt.save(vs, tmp_path / "ours.pt")
    theirs = torch.load(tmp_path / "ours.pt", weights_only=True)
    _assert_same(vs, theirs, torch)
    assert all(same_storage(theirs["x"], theirs[k]) for k in ("t", "row", "el", "step"))
    m = torch.load(tmp_path / "ours.pt", weights_only=True, mmap=True)   # torch maps our aligned records
    assert m["t"].tolist() == theirs["t"].tolist()


@pytest.mark.parametrize("dtype", DTYPES)
def test_pedatorch_loads_torch_files(torch, tmp_path, dtype):
    vs = _torch_views(torch, dtype)
    torch.save(vs, tmp_path / "theirs.pt")
    for use_mmap in (False, True):
        ours = pt.load(tmp_path / "theirs.pt", mmap=use_mmap)
        _assert_same(ours, vs, torch)
        assert all(same_storage(ours["x"], ours[k]) for k in ("t", "row", "el", "step"))


def test_objects_both_ways(torch, tmp_path):
    lin = torch.nn.Linear(2, 3)
    w = torch.ones(2, requires_grad=True)
    theirs = {"sd": lin.state_dict(), "param": lin.weight, "leaf": w, "size": torch.Size([2, 3]),
              "dtype": torch.float16, "device": torch.device("cuda", 1), "set": {1, 2}, "complex": 1 + 2j,
              "bytes": b"ab", "none": None, "conj": torch.tensor([1 + 2j]).conj()}
    torch.save(theirs, tmp_path / "t.pt")
    ours = pt.load(tmp_path / "t.pt")
    assert ours["sd"]._metadata == theirs["sd"]._metadata and ours["sd"]["bias"].tolist() == lin.bias.tolist()
    assert type(ours["param"]) is pt.nn.Parameter and ours["leaf"].requires_grad
    assert ours["size"] == pt.Size([2, 3]) and type(ours["size"]) is pt.Size and ours["dtype"] is pt.float16
    assert ours["device"] == pt.device("cuda", 1) and ours["set"] == {1, 2} and ours["complex"] == 1 + 2j
    assert ours["bytes"] == b"ab" and ours["none"] is None and ours["conj"].tolist() == [1 - 2j]
    pt.save(ours, tmp_path / "o.pt")
    again = torch.load(tmp_path / "o.pt", weights_only=True)
    assert type(again["param"]) is torch.nn.Parameter and again["leaf"].requires_grad
    assert again["sd"]._metadata == theirs["sd"]._metadata and again["size"] == torch.Size([2, 3])
    assert again["dtype"] is torch.float16 and again["device"] == torch.device("cuda", 1)
    assert again["conj"].tolist() == [1 - 2j]


def test_trusted_torch_pickles(torch, tmp_path):
    p = torch.nn.Parameter(torch.ones(2))
    p.note = "kept"   # a Parameter with attributes: torch writes _rebuild_parameter_with_state
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Tanh())
    torch.save({"p": p, "model": model}, tmp_path / "m.pt")
    with pytest.raises(pickle.UnpicklingError, match="torch.nn.modules.container.Sequential was not an allowed"):
        pt.load(tmp_path / "m.pt")
    back = pt.load(tmp_path / "m.pt", weights_only=False)   # torch's classes become pedatorch's
    assert type(back["p"]) is pt.nn.Parameter and back["p"].note == "kept"
    assert type(back["model"]) is pt.nn.Sequential and type(back["model"][0]) is pt.nn.Linear
    x = [[0.5, -1.0]]
    np.testing.assert_allclose(back["model"](pt.tensor(x)).tolist(), model(torch.tensor(x)).tolist(), rtol=1e-6)


def test_optimizer_state_both_ways(torch, tmp_path):
    model, opt, sched = _setup(0)
    _train(model, opt, sched, 3)
    pt.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}, tmp_path / "c.pt")
    ckpt = torch.load(tmp_path / "c.pt", weights_only=True)
    tmodel = torch.nn.Linear(3, 2)
    topt = torch.optim.Adam(tmodel.parameters(), lr=0.05, weight_decay=0.01)
    tsched = torch.optim.lr_scheduler.StepLR(topt, step_size=2, gamma=0.5)
    tmodel.load_state_dict(ckpt["model"])
    topt.load_state_dict(ckpt["opt"])
    tsched.load_state_dict(ckpt["sched"])
    torch.save({"opt": topt.state_dict(), "sched": tsched.state_dict()}, tmp_path / "t.pt")
    back = pt.load(tmp_path / "t.pt")
    opt.load_state_dict(back["opt"])   # torch's state in pedatorch's optimizer: training goes on the same
    sched.load_state_dict(back["sched"])
    torch.manual_seed(1)
    pt.manual_seed(1)
    for _ in range(3):
        x, y = pt.randn(8, 3), pt.randn(8, 2)
        for m, o, s, xx, yy in ((model, opt, sched, x, y),
                                (tmodel, topt, tsched, torch.tensor(x.tolist()), torch.tensor(y.tolist()))):
            loss = ((m(xx) - yy) ** 2).mean()
            o.zero_grad()
            loss.backward()
            o.step()
            s.step()
    np.testing.assert_allclose(model.weight.tolist(), tmodel.weight.tolist(), rtol=1e-5, atol=1e-6)


def test_torch_and_pedatorch_refuse_the_same(torch, tmp_path):
    path = _file_with(tmp_path / "evil.pt", [_Evil(exec, "1")])
    for load in (torch.load, pt.load):
        with pytest.raises(pickle.UnpicklingError, match="GLOBAL exec was not an allowed global by default"):
            load(path, weights_only=True)


def test_torch_files_without_checksums(torch, tmp_path):
    torch.serialization.set_crc32_options(False)
    try:
        torch.save({"x": torch.arange(5.0)}, tmp_path / "nocrc.pt")
    finally:
        torch.serialization.set_crc32_options(True)
    assert pt.load(tmp_path / "nocrc.pt")["x"].tolist() == [0, 1, 2, 3, 4]


_NO_TORCH = """
import sys
sys.modules["torch"] = None   # any import of torch fails
import pedatorch as pt
d = pt.load(sys.argv[1])
assert d["x"].tolist() == [[0.0, 1.0], [2.0, 3.0]] and d["x"].untyped_storage().data_ptr() == \\
    d["t"].untyped_storage().data_ptr() and type(d["p"]) is pt.nn.Parameter and d["bf"].dtype is pt.bfloat16
pt.save(d, sys.argv[1] + ".again")
assert pt.load(sys.argv[1] + ".again")["t"].tolist() == [[0.0, 2.0], [1.0, 3.0]]
print("ok")
"""


def test_torch_files_load_without_torch(torch, tmp_path):
    x = torch.arange(4.0).reshape(2, 2)
    torch.save({"x": x, "t": x.t(), "p": torch.nn.Parameter(torch.ones(1)), "bf": torch.ones(2, dtype=torch.bfloat16)},
               tmp_path / "t.pt")
    env = dict(os.environ, PYTHONPATH=str(Path(pt.__file__).parents[1]))
    run = subprocess.run([sys.executable, "-c", _NO_TORCH, str(tmp_path / "t.pt")], capture_output=True, text=True,
                         env=env, timeout=120)
    assert run.stdout.strip() == "ok", run.stderr


# ================================================================ safetensors
def _safetensors_sample():
    return {name: grid(name) for name in DTYPES if name != "complex128"} | \
        {"scalar": pt.tensor(2.5), "empty": pt.zeros(0, 3), "big": pt.randn(5, 7)}


def test_safetensors_round_trip(tmp_path, device):
    tensors = _safetensors_sample()
    back = pst.load(pst.save(tensors, metadata={"epoch": "3"}))
    assert list(back) == list(tensors) or set(back) == set(tensors)
    for k, v in tensors.items():
        assert back[k].dtype == v.dtype and back[k].shape == v.shape and back[k].tolist() == v.tolist(), k
        assert back[k].is_contiguous()
    pst.save_file(tensors, tmp_path / "m.safetensors")
    loaded = pst.load_file(tmp_path / "m.safetensors", device=device)
    assert all(loaded[k].tolist() == v.tolist() and loaded[k].device.type == device for k, v in tensors.items())
    assert not same_storage(loaded["float32"], loaded["int64"])   # each tensor has memory of its own
    data = pst.save(tensors)
    header_len = struct.unpack("<Q", data[:8])[0]
    assert header_len % 8 == 0 and data[8:9] == b"{"


def test_safetensors_refusals():
    x = pt.zeros(4)
    with pytest.raises(RuntimeError, match=r"Some tensors share memory.*\[\{'[ab]', '[ab]'\}\]"):
        pst.save({"a": x, "b": x[:2]})
    assert pst.load(pst.save({"a": x[:2], "b": x[2:]}))["b"].tolist() == [0.0, 0.0]   # no overlap: fine
    with pytest.raises(ValueError, match="You are trying to save a non contiguous tensor: `a`"):
        pst.save({"a": pt.zeros(2, 3).t()})
    with pytest.raises(ValueError, match="Expected a dict of"):
        pst.save([x])
    with pytest.raises(ValueError, match="Key `b` is invalid, expected torch.Tensor"):
        pst.save({"a": x, "b": None})
    with pytest.raises(ValueError, match="complex128"):
        pst.save({"c": pt.zeros(1, dtype=pt.complex128)})
    with pytest.raises(TypeError, match="metadata"):
        pst.save({"a": x}, metadata={"k": 1})

    def header(h, body=b""):
        text = str(h).replace("'", '"').encode()
        return struct.pack("<Q", len(text)) + text + body
    bad = {b"abc": "header too small", struct.pack("<Q", 10 ** 9) + b"{}": "header too large",
           struct.pack("<Q", 100) + b"{}": "invalid header length", struct.pack("<Q", 2) + b"{x": "invalid JSON",
           header({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, bytes(4)): "incomplete metadata",
           header({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, bytes(8)): "invalid shape",
           header({"a": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, bytes(12)): "invalid offset",
           header({"a": {"dtype": "F99", "shape": [2], "data_offsets": [0, 8]}}, bytes(8)): "unknown variant `F99`"}
    for data, words in bad.items():
        with pytest.raises(pst.SafetensorError, match=words):
            pst.load(data)


def test_safetensors_numpy_interchange(tmp_path):
    snp = pytest.importorskip("safetensors.numpy")
    arrays = {"f": np.arange(6, dtype=np.float32).reshape(2, 3), "i": np.array([1, -2], np.int64),
              "h": np.array([0.5], np.float16), "b": np.array([True, False]), "c": np.array([1 + 1j], np.complex64),
              "u": np.array([7], np.uint16)}
    snp.save_file(arrays, tmp_path / "np.safetensors", metadata={"k": "v"})
    ours = pst.load_file(tmp_path / "np.safetensors")
    assert {k: v.tolist() for k, v in ours.items()} == {k: v.tolist() for k, v in arrays.items()}
    pst.save_file(ours, tmp_path / "ours.safetensors")
    theirs = snp.load_file(tmp_path / "ours.safetensors")
    assert {k: v.tolist() for k, v in theirs.items()} == {k: v.tolist() for k, v in arrays.items()}
    assert all(theirs[k].dtype == arrays[k].dtype for k in arrays)


def test_safetensors_torch_interchange(torch, tmp_path):
    st = pytest.importorskip("safetensors.torch")
    ours = _safetensors_sample()
    theirs = {k: grid(k, torch) for k in DTYPES if k != "complex128"} | \
        {"scalar": torch.tensor(2.5), "empty": torch.zeros(0, 3), "big": torch.tensor(ours["big"].tolist())}
    assert pst.save(ours, metadata={"a": "b"}) == st.save(theirs, metadata={"a": "b"})   # the very same bytes
    st.save_file(theirs, tmp_path / "t.safetensors")
    back = pst.load_file(tmp_path / "t.safetensors")
    assert all(back[k].tolist() == v.tolist() and str(back[k].dtype) == str(v.dtype) for k, v in theirs.items())
    pst.save_file(back, tmp_path / "o.safetensors")
    again = st.load_file(tmp_path / "o.safetensors")
    assert all(again[k].tolist() == v.tolist() and again[k].dtype == v.dtype for k, v in theirs.items())
