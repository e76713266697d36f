"""Tensors over their storage, drawn: offsets, strides, views and stride 0.

A tensor does not own a grid of numbers.  It owns (or shares) a flat block of
memory, the *storage*, and three numbers say where its elements are in it:

* ``storage_offset()``: where element ``[0, 0, ...]`` is;
* ``stride()``: how many storage cells to step to go one along each dimension;
* ``shape``: how many steps each dimension has.

Element ``[i0, i1, ...]`` is storage cell ``offset + i0*stride[0] + i1*stride[1] + ...``.

Views (``x.t()``, ``x[1:]``, ``x[:, ::2]``, ``x.expand(3, 4)``, ``x.view(...)``)
make a new (shape, stride, offset) over the *same* storage: nothing is copied.
``x.t()`` swaps the strides, so it is no longer contiguous (row-major without
gaps); ``x[1:]`` moves the offset; ``x[:, ::2]`` doubles a stride; ``expand``
sets a stride to 0, so several elements are one and the same storage cell.

:func:`memory` draws the storage as a row of numbered cells and each tensor as a
grid whose cells carry their storage index, coloured like the storage cell they
live in (and, for small pictures, with an arrow to it).

>>> x = pedatorch.arange(12.).reshape(3, 4)          # doctest: +SKIP
>>> viz.memory(x, x.t(), x[1:], names=["x", "x.t()", "x[1:]"])   # doctest: +SKIP
"""
import itertools

import numpy as np

from ._picture import Picture, html, quote

__all__ = ["memory", "MemoryDiagram", "TensorLayout", "StorageLayout"]

# fill colours of storage cells (cycled by storage index) and a darker pen for arrows
_PALETTE = [("#ffd8d8", "#c0392b"), ("#ffe8c4", "#c26a00"), ("#fff5b8", "#9a8400"), ("#dff5cf", "#3c8d1c"),
            ("#cdf0ea", "#16806d"), ("#d6eaff", "#2463a8"), ("#e2dcff", "#5b44b8"), ("#f7dcf2", "#a03a8c"),
            ("#e9e3d6", "#7a6140"), ("#e0e0e0", "#555555"), ("#c9f0ff", "#117a9e"), ("#f2f7c8", "#6f7f10")]
_ZERO_STRIDE = "#c0392b"
_GREEN, _ORANGE, _GREY = "#2e7d32", "#b35900", "#888888"


def _fill(k):
    return _PALETTE[k % len(_PALETTE)][0]


def _pen(k):
    return _PALETTE[k % len(_PALETTE)][1]


def _host(arr):
    """A numpy view of an array (cupy arrays are copied to the host)."""
    if isinstance(arr, np.ndarray):
        return arr
    return arr.get() if hasattr(arr, "get") else np.asarray(arr)


def _value_text(v):
    """A short text for one element's value."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (np.integer, int)):
        return str(int(v))
    if isinstance(v, (np.complexfloating, complex)):
        return f"{complex(v):.3g}".strip("()")
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if np.isfinite(f) and f == int(f) and abs(f) < 1e6:
        return f"{int(f)}."          # whole floats print like PyTorch: 3.
    return f"{f:.4g}"


def _fmt(shape):
    return repr(tuple(int(s) for s in shape))


def _index_text(idx):
    return "[" + ", ".join(str(i) for i in idx) + "]"


# --------------------------------------------------------------------- records
class StorageLayout:
    """One storage (a flat block of memory) and the tensors drawn over it.

    ``values`` is the storage as a flat numpy array in the tensors' dtype (None
    where it could not be read as a flat block; then only the cells some element
    uses are known, in ``known``), ``size`` its number of elements, ``dtype`` its
    dtype name, ``tensors`` the names of the tensors over it, ``data_ptr`` its
    address.
    """

    def __init__(self, number, data_ptr, dtype, values, size):
        self.number, self.data_ptr, self.dtype = number, data_ptr, dtype
        self.values, self.size = values, size
        self.tensors = []
        self.known = {}
        self.same_memory_as = None   # an earlier storage at the same address, read as another dtype

    def value(self, k):
        if self.values is not None and 0 <= k < len(self.values):
            return self.values[k]
        return self.known.get(k)

    def __repr__(self):
        return f"StorageLayout(storage of {self.size} {self.dtype}; tensors {self.tensors})"


class TensorLayout:
    """One tensor as :func:`memory` draws it.

    ``name``, ``shape``, ``stride``, ``storage_offset``, ``is_contiguous``,
    ``dtype``; ``storage`` (the :class:`StorageLayout` it lives in);
    ``indices``: a numpy int array of the tensor's shape holding each element's
    storage index, ``storage_offset + sum(i_k * stride_k)``;
    ``zero_stride_dims``: the dimensions with stride 0 (made by ``expand``), where
    several elements are one storage cell.
    """

    def __init__(self, name, tensor, storage):
        self.name = name
        self.shape = tuple(int(s) for s in tensor.shape)
        self.stride = tuple(int(s) for s in tensor.stride())
        self.storage_offset = int(tensor.storage_offset())
        self.is_contiguous = bool(tensor.is_contiguous())
        self.dtype = str(tensor.dtype).replace("torch.", "")
        self.storage = storage
        self.is_view = tensor._base is not None
        self.values = _host(tensor._data)
        self.indices = self.storage_offset + sum(
            (np.arange(n).reshape((n,) + (1,) * (len(self.shape) - d - 1)) * s
             for d, (n, s) in enumerate(zip(self.shape, self.stride))), np.zeros(self.shape, dtype=np.int64))
        self.zero_stride_dims = tuple(d for d, (n, s) in enumerate(zip(self.shape, self.stride)) if s == 0 and n > 1)

    def storage_index(self, *index):
        """The storage cell of element ``index`` (``offset + sum(i_k * stride_k)``)."""
        if len(index) == 1 and isinstance(index[0], tuple):
            index = index[0]
        if len(index) != len(self.shape):
            raise IndexError(f"{self.name} has {len(self.shape)} dims, got index {index}")
        return self.storage_offset + sum(i * s for i, s in zip(index, self.stride))

    @property
    def numel(self):
        return int(np.prod(self.shape, dtype=np.int64))

    def describe(self):
        """``x (3, 4) stride (4, 1) offset 0`` (as in the repr)."""
        return f"{self.name} {_fmt(self.shape)} stride {_fmt(self.stride)} offset {self.storage_offset}"

    def notes(self):
        """Short phrases: contiguity, stride 0."""
        out = ["contiguous" if self.is_contiguous else "not contiguous"]
        for d in self.zero_stride_dims:
            out.append(f"stride 0 in dim {d} (expanded): {self.shape[d]} elements share each storage cell")
        return out

    def __repr__(self):
        return f"TensorLayout({self.describe()})"


def _storage_of(tensor):
    """(key, data_ptr, flat values or None, size in elements) of a pedatorch tensor's storage."""
    from ..backend import storage_root as _storage_root
    arr = tensor._data
    root = _storage_root(arr)
    st = tensor.untyped_storage()
    ptr = st.data_ptr()
    dtype = arr.dtype
    values = None
    host = _host(root)
    if host.flags.c_contiguous or host.flags.f_contiguous:
        raw = host.reshape(-1, order="A").view(np.uint8)
        n = raw.size // dtype.itemsize
        values = raw[: n * dtype.itemsize].view(dtype)
        size = n
    else:
        size = int(st.nbytes()) // dtype.itemsize
    return (ptr, str(dtype)), ptr, values, size


# --------------------------------------------------------------------- the picture
class MemoryDiagram(Picture):
    """The picture :func:`memory` returns.

    ``tensors``: one :class:`TensorLayout` per tensor; ``storages``: one
    :class:`StorageLayout` per distinct storage; ``max_elements``: how many
    elements (and storage cells) each is drawn with at most.
    ``str()`` gives each tensor's storage indices as text.
    """

    kind = "MemoryDiagram"

    def __init__(self, tensors, names, max_elements=64, arrows=None):
        self.max_elements = int(max_elements)
        self.storages, self.tensors = [], []
        by_key = {}
        for name, t in zip(names, tensors):
            key, ptr, values, size = _storage_of(t)
            if key not in by_key:
                by_key[key] = StorageLayout(len(self.storages), ptr, str(t.dtype).replace("torch.", ""),
                                            values, size)
                same = [s for s in self.storages if s.data_ptr == ptr]
                if same:   # x.view(torch.int32): the same bytes, read as another dtype
                    by_key[key].same_memory_as = same[0].number
                self.storages.append(by_key[key])
            st = by_key[key]
            layout = TensorLayout(name, t, st)
            st.tensors.append(name)
            if st.values is None:   # remember the values elements show, for cells we cannot read
                for idx in itertools.islice(np.ndindex(*layout.shape), self.max_elements):
                    st.known[int(layout.indices[idx])] = layout.values[idx]
            self.tensors.append(layout)
        # arrows read well from rows of cells; over 2-d grids they cross the cells,
        # so by default grids rely on the matching colours and the @k labels
        drawn = sum(min(t.numel, self.max_elements) for t in self.tensors)
        rows_only = all(len(t.shape) < 2 or int(np.prod(t.shape[:-1])) == 1 for t in self.tensors)
        self.arrows = (rows_only and drawn <= 32) if arrows is None else bool(arrows)
        summary = "; ".join(self._summary_parts())
        super().__init__(self._dot(), summary)

    def _summary_parts(self):
        for st in self.storages:
            yield f"storage of {st.size} {st.dtype}"
            for t in self.tensors:
                if t.storage is st:
                    yield t.describe()

    # ..................................................................... which elements are drawn
    def _drawn_elements(self, t):
        """The element indices drawn for ``t`` (row-major, at most max_elements)."""
        return list(itertools.islice(np.ndindex(*t.shape), self.max_elements))

    def _drawn_cells(self, st):
        """The storage cells drawn: all of them when few, else the ones drawn elements use."""
        if st.size <= self.max_elements:
            return list(range(st.size))
        used = set()
        for t in self.tensors:
            if t.storage is st:
                used.update(int(t.indices[i]) for i in self._drawn_elements(t))
        return sorted(k for k in used if 0 <= k < st.size)

    # ..................................................................... text
    def __str__(self):
        lines = []
        for st in self.storages:
            cells = self._drawn_cells(st)
            lines.append(f"storage {st.number}: {st.size} x {st.dtype} (under {', '.join(st.tensors)})"
                         + (f", the same memory as storage {st.same_memory_as}" if st.same_memory_as is not None
                            else ""))
            texts = [(str(k), _value_text(st.value(k)) if st.value(k) is not None else "?") for k in cells]
            cols, prev = [], None
            for k, (i, v) in zip(cells, texts):
                if prev is not None and k > prev + 1:
                    cols.append(("...", "..."))       # cells left out between two shown ones
                cols.append((i, v))
                prev = k
            width = max(len(c) for col in cols for c in col)
            for start in range(0, len(cols), 16):     # 16 cells a line
                chunk = cols[start:start + 16]
                lines.append("  index: " + " ".join(i.rjust(width) for i, _ in chunk))
                lines.append("  value: " + " ".join(v.rjust(width) for _, v in chunk))
            if len(cells) < st.size:
                lines.append(f"  ... {st.size - len(cells)} more storage cells not shown")
            for t in self.tensors:
                if t.storage is not st:
                    continue
                lines.append(f"{t.name}: shape {_fmt(t.shape)}, stride {_fmt(t.stride)}, "
                             f"offset {t.storage_offset}, " + ", ".join(t.notes()))
                lines.append("  storage index of each element:")
                text = np.array2string(t.indices, threshold=self.max_elements, edgeitems=3)
                lines.extend("    " + line for line in text.splitlines())
        return "\n".join(line.rstrip() for line in lines)

    # ..................................................................... DOT
    def _storage_node(self, st):
        cells = self._drawn_cells(st)
        idx_row, val_row = [], []
        prev = None
        for k in cells:
            if prev is not None and k > prev + 1:       # cells left out between two drawn ones
                gap = f"… {k - prev - 1}"
                idx_row.append(f'<TD BORDER="0"><FONT POINT-SIZE="9" COLOR="{_GREY}">{gap}</FONT></TD>')
                val_row.append(f'<TD BORDER="0"><FONT COLOR="{_GREY}">…</FONT></TD>')
            prev = k
            v = st.value(k)
            idx_row.append(f'<TD BORDER="0"><FONT POINT-SIZE="9" COLOR="#555555">{k}</FONT></TD>')
            val_row.append(f'<TD PORT="s{k}" BGCOLOR="{_fill(k)}" TOOLTIP="storage[{k}]">'
                           f'{html(_value_text(v)) if v is not None else "?"}</TD>')
        ncol = len(idx_row) + 1
        title = (f'<B>storage {st.number}</B>: {st.size} × {html(st.dtype)}'
                 f'<BR/><FONT POINT-SIZE="9">shared by {html(", ".join(st.tensors))}</FONT>')
        if st.same_memory_as is not None:
            title += (f'<BR/><FONT POINT-SIZE="9">the same memory as storage {st.same_memory_as}, '
                      f'read as {html(st.dtype)}</FONT>')
        # values on top, where the arrows arrive; the indices and the title below
        rows = [f'<TR><TD BORDER="0" ALIGN="RIGHT"><FONT POINT-SIZE="9" COLOR="#555555">value</FONT></TD>'
                + "".join(val_row) + "</TR>",
                f'<TR><TD BORDER="0" ALIGN="RIGHT"><FONT POINT-SIZE="9" COLOR="#555555">index</FONT></TD>'
                + "".join(idx_row) + "</TR>",
                f'<TR><TD BORDER="0" COLSPAN="{ncol}">{title}</TD></TR>']
        left = st.size - len(cells)
        if left:
            rows.append(f'<TR><TD BORDER="0" COLSPAN="{ncol}"><FONT POINT-SIZE="10" COLOR="{_GREY}">… {left} more storage '
                        f'cells not drawn</FONT></TD></TR>')
        return ('<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4">' + "".join(rows) + "</TABLE>")

    def _header(self, t, ncol):
        stride = ", ".join((f'<FONT COLOR="{_ZERO_STRIDE}"><B>0</B></FONT>' if s == 0 and d in t.zero_stride_dims
                            else str(s)) for d, s in enumerate(t.stride))
        stride = f"({stride}{',' if len(t.stride) == 1 else ''})"
        contig = (f'<FONT COLOR="{_GREEN}">contiguous</FONT>' if t.is_contiguous
                  else f'<FONT COLOR="{_ORANGE}">not contiguous</FONT>')
        lines = [f"<B>{html(t.name)}</B>  <FONT POINT-SIZE='10'>{html(t.dtype)}</FONT>".replace("'", '"'),
                 f'<FONT POINT-SIZE="10">shape {html(_fmt(t.shape))}  stride {stride}  '
                 f'offset {t.storage_offset}</FONT>',
                 f'<FONT POINT-SIZE="10">{contig}{"  (a view)" if t.is_view else ""}</FONT>']
        for d in t.zero_stride_dims:
            lines.append(f'<FONT POINT-SIZE="10" COLOR="{_ZERO_STRIDE}">stride 0 in dim {d} (expanded): '
                         f'{t.shape[d]} elements share each storage cell</FONT>')
        return f'<TR><TD BORDER="0" COLSPAN="{ncol}">{"<BR/>".join(lines)}</TD></TR>'

    def _element_td(self, t, idx):
        k = int(t.indices[idx])
        port = "e" + "_".join(str(i) for i in idx)
        shared = any(idx[d] > 0 for d in t.zero_stride_dims)   # a repeat of an earlier element's cell
        style = ' STYLE="dashed"' if shared else ""
        return (f'<TD PORT="{port}" BGCOLOR="{_fill(k)}"{style} '
                f'TOOLTIP="{html(t.name + _index_text(idx))} is storage[{k}]">'
                f'{html(_value_text(t.values[idx]))}<BR/><FONT POINT-SIZE="9" COLOR="#444444">@{k}</FONT></TD>')

    def _label_td(self, text, zero=False):
        if not text:
            return '<TD BORDER="0"></TD>'     # Graphviz refuses an empty <FONT>
        color = _ZERO_STRIDE if zero else "#666666"
        return f'<TD BORDER="0"><FONT POINT-SIZE="9" COLOR="{color}">{html(text)}</FONT></TD>'

    def _tensor_node(self, t):
        shape = t.shape
        nd = len(shape)
        ncols = 1 if nd == 0 else min(shape[-1], self.max_elements)
        more_col = nd >= 1 and shape[-1] > self.max_elements
        ncol = ncols + 1 + (1 if more_col else 0)
        rows = [self._header(t, ncol)]
        budget = self.max_elements
        if t.numel == 0:
            rows.append(f'<TR><TD BORDER="0" COLSPAN="{ncol}"><FONT COLOR="{_GREY}">(no elements)</FONT></TD></TR>')
        elif nd == 0:
            rows.append("<TR>" + self._label_td("") + self._element_td(t, ()) + "</TR>")
            budget -= 1
        else:
            zero_last = (nd - 1) in t.zero_stride_dims
            col_head = "".join(self._label_td(str(j), zero_last) for j in range(ncols))
            lead_shape = shape[:-2] if nd > 2 else ()
            nrows = shape[-2] if nd >= 2 else 1
            for lead in np.ndindex(*lead_shape):
                if budget <= 0:
                    break
                if nd > 2:
                    where = _index_text(tuple(lead) + (":", ":"))
                    rows.append(f'<TR><TD BORDER="0" COLSPAN="{ncol}" ALIGN="LEFT"><FONT POINT-SIZE="9">'
                                f'{html(t.name)}{html(where)}</FONT></TD></TR>')
                rows.append("<TR>" + self._label_td("") + col_head + (self._label_td("") if more_col else "")
                            + "</TR>")
                for i in range(nrows):
                    if budget <= 0:
                        break
                    zero_row = nd >= 2 and (nd - 2) in t.zero_stride_dims
                    cells = [self._label_td(str(i) if nd >= 2 else "", zero_row)]
                    for j in range(ncols):
                        if budget <= 0:
                            break
                        idx = tuple(lead) + ((i, j) if nd >= 2 else (j,))
                        cells.append(self._element_td(t, idx))
                        budget -= 1
                    if len(cells) - 1 < shape[-1]:
                        cells.append(f'<TD BORDER="0"><FONT COLOR="{_GREY}">…</FONT></TD>')
                    rows.append("<TR>" + "".join(cells) + "</TR>")
        left = t.numel - (self.max_elements - budget)
        if left > 0:
            rows.append(f'<TR><TD BORDER="0" COLSPAN="{ncol}"><FONT POINT-SIZE="10" COLOR="{_GREY}">… {left} more '
                        f'element{"s" if left != 1 else ""} not drawn</FONT></TD></TR>')
        return ('<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4">' + "".join(rows) + "</TABLE>")

    def _dot(self):
        lines = ["digraph memory {",
                 "  graph [fontname=Helvetica nodesep=0.4 ranksep=0.7];",
                 "  node [fontname=Helvetica shape=plaintext];",
                 "  edge [arrowsize=0.5 penwidth=0.8 fontname=\"Helvetica\" fontsize=9];"]
        for n, st in enumerate(self.storages):
            lines.append(f"  storage{n} [label=<{self._storage_node(st)}>];")
        for n, t in enumerate(self.tensors):
            lines.append(f"  t{n} [label=<{self._tensor_node(t)}>];")
        if len(self.tensors) > 1:
            lines.append("  { rank=same; " + " ".join(f"t{n};" for n in range(len(self.tensors))) + " }")
            # invisible edges keep the tensors left to right in the order given
            lines.append("  " + " -> ".join(f"t{n}" for n in range(len(self.tensors))) + " [style=invis];")
        lines.append("  { rank=sink; " + " ".join(f"storage{n};" for n in range(len(self.storages))) + " }")
        for n, t in enumerate(self.tensors):
            s = t.storage.number
            drawn = self._drawn_elements(t)
            if self.arrows:
                for idx in drawn:
                    k = int(t.indices[idx])
                    if 0 <= k < t.storage.size:
                        port = "e" + "_".join(str(i) for i in idx)
                        lines.append(f"  t{n}:{port}:s -> storage{s}:s{k}:n [color=\"{_pen(k)}\"];")
            else:   # one plain edge: this tensor lives in that storage
                lines.append(f"  t{n} -> storage{s} [color=\"#999999\" label={quote('views' if t.is_view else 'owns')} fontsize=9];")
        lines.append("}")
        return "\n".join(lines) + "\n"


# --------------------------------------------------------------------- entry point
def memory(*tensors, names=None, max_elements=64, arrows=None):
    """Draw tensors over the storage they share.

    Each tensor is drawn as a grid (a row for 1-d, stacked grids labelled
    ``x[i, :, :]`` for more dims); each element shows its value and ``@k``, its
    storage index ``storage_offset + sum(i_k * stride_k)``, and has the colour of
    storage cell ``k``.  The header gives shape, stride, offset, whether it is
    contiguous, and flags stride-0 dimensions (from ``expand``).  Tensors over
    different storages get one storage row each.

    ``names``: labels for the tensors (default ``x``, ``y``, ``z``, … — pass e.g.
    ``names=["x", "x.t()", "x[1:]"]``).  ``max_elements``: at most this many
    elements per tensor (and storage cells) are drawn; the rest are counted in a
    "… N more" note.  ``arrows``: draw an arrow from every element to its storage
    cell (default: only when every tensor is a single row and at most 32 elements
    are drawn; over 2-d grids the matching colours and ``@k`` say it better).
    """
    from .._tensor import Tensor
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        raise TypeError("viz.memory() needs at least one tensor")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"viz.memory() takes pedatorch tensors, got {type(t).__module__}.{type(t).__name__}")
    if names is None:
        letters = ["x", "y", "z", "u", "v", "w"]
        names = [letters[k] if k < len(letters) else f"t{k}" for k in range(len(tensors))]
    names = [str(n) for n in names]
    if len(names) != len(tensors):
        raise ValueError(f"viz.memory(): got {len(tensors)} tensors but {len(names)} names")
    if int(max_elements) < 1:
        raise ValueError(f"viz.memory(): max_elements must be at least 1, got {max_elements}")
    return MemoryDiagram(tensors, names, max_elements=max_elements, arrows=arrows)
