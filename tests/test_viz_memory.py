"""viz.memory: tensors drawn over their storage.

Every drawn element's storage index is checked against where numpy really
addresses it, and against the storage's values; strides, offsets and
contiguity are compared with PyTorch's for the same views.
"""
import importlib
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import pedatorch as pt
from pedatorch import viz

M = importlib.import_module(viz.memory.__module__)   # the module (viz.memory is the function)
SVG = "{http://www.w3.org/2000/svg}"


def html_label(dot, node):
    """The HTML-like label of ``node`` in DOT text, parsed as XML."""
    start = dot.index(f"  {node} [label=<") + len(f"  {node} [label=<")
    depth, i = 1, start
    while depth:
        if dot[i] == "<":
            depth += 1
        elif dot[i] == ">":
            depth -= 1
        i += 1
    return ET.fromstring(dot[start:i - 1])


def ported(dot, node):
    """{port: td element} of a node's table."""
    return {td.get("PORT"): td for td in html_label(dot, node).iter("TD") if "PORT" in td.attrib}


def text(el):
    return " ".join(" ".join(el.itertext()).split())


def element_cells(dot, node):
    """{element index tuple: (value text, storage index, td)} from the cells named e<i>_<j>."""
    out = {}
    for port, td in ported(dot, node).items():
        if port.startswith("e"):
            idx = tuple(int(p) for p in port[1:].split("_")) if port != "e" else ()
            value, at = text(td).rsplit(" ", 1)
            assert at.startswith("@")
            out[idx] = (value, int(at[1:]), td)
    return out


def numpy_address(t, idx):
    """The storage index numpy itself uses for element ``idx`` of t (from byte addresses)."""
    arr = t._data
    addr = arr.__array_interface__["data"][0] + sum(i * s for i, s in zip(idx, arr.strides))
    return (addr - t.untyped_storage().data_ptr()) // arr.itemsize


def views():
    x = pt.arange(12.).reshape(3, 4)
    return x, [x, x.t(), x[1:], x[:, ::2], x[0].expand(3, 4)], ["x", "x.t()", "x[1:]", "x[:, ::2]",
                                                                 "x[0].expand(3, 4)"]


def test_every_element_points_at_the_cell_numpy_addresses():
    x, ts, names = views()
    d = viz.memory(*ts, names=names)
    assert d.kind == "MemoryDiagram" and isinstance(d, viz.Picture)
    assert len(d.storages) == 1 and d.storages[0].tensors == names and d.storages[0].size == 12
    storage = d.storages[0].values
    np.testing.assert_array_equal(storage, np.arange(12.0, dtype=np.float32))
    storage_cells = ported(d.source, "storage0")
    assert sorted(int(p[1:]) for p in storage_cells) == list(range(12))
    for k, td in storage_cells.items():
        assert text(td) == f"{int(k[1:])}."            # storage cell k holds the value k
    for n, (t, layout) in enumerate(zip(ts, d.tensors)):
        drawn = element_cells(d.source, f"t{n}")
        assert set(drawn) == set(np.ndindex(*t.shape))
        values = t.numpy()
        # the same addressing as numpy.as_strided over the flat storage
        strided = np.lib.stride_tricks.as_strided(storage[layout.storage_offset:], t.shape,
                                                  [s * 4 for s in t.stride()])
        np.testing.assert_array_equal(strided, values)
        for idx, (value, k, td) in drawn.items():
            assert k == numpy_address(t, idx) == layout.indices[idx] == layout.storage_index(*idx)
            assert storage[k] == values[idx] and value == f"{int(values[idx])}."
            assert td.get("BGCOLOR") == M._fill(k) == storage_cells[f"s{k}"].get("BGCOLOR")
            assert td.get("TOOLTIP") == f"{names[n]}{list(idx)} is storage[{k}]".replace("'", "")


def test_strides_offsets_contiguity_like_torch(torch):
    x, ts, names = views()
    tx = torch.arange(12.).reshape(3, 4)
    tts = [tx, tx.t(), tx[1:], tx[:, ::2], tx[0].expand(3, 4)]
    d = viz.memory(*ts, names=names)
    for layout, tt in zip(d.tensors, tts):
        assert layout.stride == tt.stride()
        assert layout.storage_offset == tt.storage_offset()
        assert layout.is_contiguous == tt.is_contiguous()
    assert [t.is_contiguous for t in d.tensors] == [True, False, True, False, False]
    for n, t in enumerate(d.tensors):
        header = text(html_label(d.source, f"t{n}").find("TR"))
        assert header.startswith(names[n])
        assert ("not contiguous" in header) == (not t.is_contiguous)
        assert f"offset {t.storage_offset}" in header
    assert repr(viz.memory(x, x.t(), names=["x", "x.t()"])) == (
        "<pedatorch.viz.MemoryDiagram: storage of 12 float32; x (3, 4) stride (4, 1) offset 0; "
        "x.t() (4, 3) stride (1, 4) offset 0>")


def test_stride_zero_is_marked():
    x, ts, names = views()
    d = viz.memory(x, x[0].expand(3, 4), x[:, :1].expand(3, 4), names=["x", "row", "col"])
    assert [t.zero_stride_dims for t in d.tensors] == [(), (0,), (1,)]
    for n, dim, share in ((1, 0, 3), (2, 1, 4)):
        header = html_label(d.source, f"t{n}").find("TR").find("TD")
        assert f"stride 0 in dim {dim} (expanded): {share} elements share each storage cell" in text(header)
        reds = [f for f in header.iter("FONT") if f.get("COLOR") == M._ZERO_STRIDE]
        assert any(text(f) == "0" for f in reds)          # the 0 in the stride is red
        cells = element_cells(d.source, f"t{n}")
        by_cell = {}
        for idx, (_, k, td) in cells.items():
            by_cell.setdefault(k, []).append(idx)
            assert (td.get("STYLE") == "dashed") == (idx[dim] > 0)   # repeats of one cell are dashed
        assert all(len(v) == share for v in by_cell.values())
    assert "stride 0" not in text(html_label(d.source, "t0"))
    # a size-1 dim with stride 0 is not an expand
    assert viz.memory(pt.zeros(()).expand(1, 1)).tensors[0].zero_stride_dims == ()
    svg = ET.fromstring(d.svg())
    titles = [a.get("{http://www.w3.org/1999/xlink}title") for a in svg.iter(SVG + "a")]
    if titles:   # an older Graphviz (Debian 12's 2.43) draws no tooltip of a table cell without HREF
        assert "row[2, 1] is storage[1]" in titles and "col[1, 3] is storage[4]" in titles
    assert 'TOOLTIP="row[2, 1] is storage[1]"' in d.source and 'TOOLTIP="col[1, 3] is storage[4]"' in d.source
    texts = [t.text for t in svg.iter(SVG + "text")]
    assert any(t and "stride 0 in dim 0" in t for t in texts)


def test_text_version():
    x = pt.arange(6).reshape(2, 3)
    assert str(viz.memory(x, x.t(), names=["x", "x.t()"])) == "\n".join([
        "storage 0: 6 x int64 (under x, x.t())",
        "  index: 0 1 2 3 4 5",
        "  value: 0 1 2 3 4 5",
        "x: shape (2, 3), stride (3, 1), offset 0, contiguous",
        "  storage index of each element:",
        "    [[0 1 2]",
        "     [3 4 5]]",
        "x.t(): shape (3, 2), stride (1, 3), offset 0, not contiguous",
        "  storage index of each element:",
        "    [[0 3]",
        "     [1 4]",
        "     [2 5]]"])


def test_cap_on_drawn_elements_and_storage():
    big = pt.arange(100.)
    d = viz.memory(big, big[50:53], names=["big", "v"], max_elements=10)
    assert len(element_cells(d.source, "t0")) == 10
    assert "… 90 more elements not drawn" in text(html_label(d.source, "t0"))
    cells = sorted(int(p[1:]) for p in ported(d.source, "storage0"))
    assert cells == list(range(10)) + [50, 51, 52]       # the cells drawn elements use
    storage_text = text(html_label(d.source, "storage0"))
    assert "… 87 more storage cells not drawn" in storage_text and "… 40" in storage_text
    assert "... 87 more storage cells not shown" in str(d)
    grid = viz.memory(pt.zeros(20, 20), max_elements=30)
    drawn = element_cells(grid.source, "t0")
    assert len(drawn) == 30 and set(drawn) == set(list(np.ndindex(20, 20))[:30])
    assert "… 370 more elements not drawn" in text(html_label(grid.source, "t0"))


def test_higher_dims_several_storages_and_arrows():
    y = pt.arange(24.).reshape(2, 3, 4)
    p = y.permute(2, 0, 1)
    other = pt.ones(3, dtype=pt.int32)
    d = viz.memory(y, p, other, names=["y", "p", "o"])
    assert [s.tensors for s in d.storages] == [["y", "p"], ["o"]]
    assert repr(d).endswith("storage of 3 int32; o (3,) stride (1,) offset 0>")
    cells = element_cells(d.source, "t1")
    assert len(cells) == 24
    for idx, (value, k, _) in cells.items():
        assert k == numpy_address(p, idx) and float(value) == p.numpy()[idx] == d.storages[0].values[k]
    label = text(html_label(d.source, "t1"))
    assert "p[0, :, :]" in label and "p[3, :, :]" in label
    # grids: no per-element arrows by default, one edge per tensor; rows: an arrow per element
    assert "t1 -> storage0" in d.source and "t2 -> storage1" in d.source
    assert not re.search(r"t\d:e", d.source)
    x = pt.arange(4.)
    rows = viz.memory(x, x[1].expand(3), names=["x", "x[1].expand(3)"])
    assert rows.arrows
    edges = re.findall(r"t(\d):e(\d+):s -> storage0:s(\d+):n", rows.source)
    assert sorted(edges) == sorted([("0", str(i), str(i)) for i in range(4)] + [("1", str(i), "1") for i in range(3)])
    forced = viz.memory(y, arrows=True)
    assert len(re.findall(r"t0:e\d+_\d+_\d+:s -> storage0:s\d+:n", forced.source)) == 24
    # a 0-d tensor is one cell
    s = viz.memory(y[1, 2, 3], names=["y[1, 2, 3]"])
    assert element_cells(s.source, "t0")[()][1] == 23 and s.tensors[0].storage_offset == 23
    svg = ET.fromstring(d.svg())
    assert [g.find(SVG + "title").text for g in svg.iter(SVG + "g") if g.get("class") == "node"] == \
        ["storage0", "storage1", "t0", "t1", "t2"]


def test_bad_input():
    x = pt.zeros(2)
    with pytest.raises(TypeError, match="numpy.ndarray"):
        viz.memory(np.zeros(2))
    with pytest.raises(TypeError, match="at least one tensor"):
        viz.memory()
    with pytest.raises(ValueError, match="2 tensors but 1 names"):
        viz.memory(x, x, names=["x"])
    with pytest.raises(ValueError, match="max_elements"):
        viz.memory(x, max_elements=0)
    assert [t.name for t in viz.memory([x, x[1:]]).tensors] == ["x", "y"]
    x = pt.arange(4.)
    reread = viz.memory(x, x.view(pt.int32), names=["x", "bits"])
    assert [s.dtype for s in reread.storages] == ["float32", "int32"] and reread.storages[1].same_memory_as == 0
    assert "the same memory as storage 0, read as int32" in text(html_label(reread.source, "storage1"))
    assert reread.storages[1].values[1] == np.float32(1).view(np.int32)
    empty = viz.memory(pt.zeros(0, 3))
    assert "(no elements)" in text(html_label(empty.source, "t0"))
    empty.svg()
