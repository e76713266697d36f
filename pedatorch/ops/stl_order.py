"""Where PyTorch's CPU selection kernels leave equal elements: libstdc++'s ``std::sort``,
``std::nth_element`` and ``std::partial_sort``, and ATen's own quickselect, replayed on one row.

``topk``, ``kthvalue`` and ``mode`` return an index as well as a value. Among equal values (and NaNs, which
their comparisons treat as incomparable or largest), which index comes out is decided by how these
algorithms move elements: none of them is stable. With distinct values the answer does not depend on the
algorithm, so ``ops/sorting.py`` and ``ops/reduction.py`` use a stable numpy sort then and call these only
for the rows that have ties. They work on Python lists, one comparison at a time, as the C++ does.

``less(a, b)`` is the comparator: true when ``a`` must come before ``b``.
"""

_THRESHOLD = 16   # libstdc++'s _S_threshold: shorter ranges are left to insertion sort


def _lg(n):
    return n.bit_length() - 1


# ------------------------------------------------------------------ insertion sort

def _linear_insert(a, i, less):
    """Move a[i] left past every element it is less than (the caller knows one stops it)."""
    val = a[i]
    j = i - 1
    while less(val, a[j]):
        a[j + 1] = a[j]
        j -= 1
    a[j + 1] = val


def _insertion_sort(a, first, last, less):
    for i in range(first + 1, last):
        if less(a[i], a[first]):   # a new smallest: shift the whole prefix
            val = a[i]
            a[first + 1:i + 1] = a[first:i]
            a[first] = val
        else:
            _linear_insert(a, i, less)


def _final_insertion_sort(a, first, last, less):
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(a, i, less)
    else:
        _insertion_sort(a, first, last, less)


# ------------------------------------------------------------------ heap (for partial_sort and the depth limit)

def _push_heap(a, first, hole, top, val, less):
    parent = (hole - 1) // 2
    while hole > top and less(a[first + parent], val):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = val


def _adjust_heap(a, first, hole, length, val, less):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    _push_heap(a, first, hole, top, val, less)


def _make_heap(a, first, last, less):
    length = last - first
    if length < 2:
        return
    for parent in range((length - 2) // 2, -1, -1):
        _adjust_heap(a, first, parent, length, a[first + parent], less)


def _pop_heap(a, first, last, result, less):
    val = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, val, less)


def _heap_select(a, first, middle, last, less):
    _make_heap(a, first, middle, less)
    for i in range(middle, last):
        if less(a[i], a[first]):
            _pop_heap(a, first, middle, i, less)


def _sort_heap(a, first, last, less):
    while last - first > 1:
        last -= 1
        _pop_heap(a, first, last, last, less)


# ------------------------------------------------------------------ quicksort partition

def _median_to_first(a, result, i, j, k, less):
    if less(a[i], a[j]):
        m = j if less(a[j], a[k]) else k if less(a[i], a[k]) else i
    else:
        m = i if less(a[i], a[k]) else k if less(a[j], a[k]) else j
    a[result], a[m] = a[m], a[result]


def _partition_pivot(a, first, last, less):
    """Median of three moved to the front as the pivot, then Hoare's partition of the rest."""
    mid = first + (last - first) // 2
    _median_to_first(a, first, first + 1, mid, last - 1, less)
    lo, hi = first + 1, last
    while True:
        while less(a[lo], a[first]):
            lo += 1
        hi -= 1
        while less(a[first], a[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


# ------------------------------------------------------------------ the three algorithms

def stl_sort(a, first, last, less):
    """std::sort of a[first:last]: introsort (quicksort, heapsort past a depth limit), then insertion sort."""
    if last - first < 2:
        return

    def loop(first, last, depth):
        while last - first > _THRESHOLD:
            if depth == 0:
                _heap_select(a, first, last, last, less)
                _sort_heap(a, first, last, less)
                return
            depth -= 1
            cut = _partition_pivot(a, first, last, less)
            loop(cut, last, depth)
            last = cut

    loop(first, last, 2 * _lg(last - first))
    _final_insertion_sort(a, first, last, less)


def stl_nth_element(a, nth, less):
    """std::nth_element: a[nth] becomes what a sort would put there, smaller ones before it (introselect)."""
    first, last = 0, len(a)
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, less)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, less)


def stl_partial_sort(a, middle, less):
    """std::partial_sort: the ``middle`` smallest, sorted, at the front (heap select, then heap sort)."""
    _heap_select(a, 0, middle, len(a), less)
    _sort_heap(a, 0, middle, less)


def aten_quick_select(a, k, greater):
    """ATen's quick_select_template (kthvalue): median-of-three quickselect until a[k] is in place.
    ``greater(x, y)`` is its gt_or_nan."""
    lo, hi = 0, len(a) - 1
    while True:
        if hi <= lo:
            return
        if hi == lo + 1:
            if greater(a[lo], a[hi]):
                a[lo], a[hi] = a[hi], a[lo]
            return
        p = lo + (hi - lo) // 2
        a[p], a[lo + 1] = a[lo + 1], a[p]
        if greater(a[lo + 1], a[hi]):
            a[lo + 1], a[hi] = a[hi], a[lo + 1]
        if greater(a[lo], a[hi]):
            a[lo], a[hi] = a[hi], a[lo]
        if greater(a[lo + 1], a[lo]):
            a[lo + 1], a[lo] = a[lo], a[lo + 1]
        i, j = lo + 1, hi
        pivot = a[lo]
        while True:
            i += 1
            while greater(pivot, a[i]):
                i += 1
            j -= 1
            while greater(a[j], pivot):
                j -= 1
            if j < i:
                break
            a[i], a[j] = a[j], a[i]
        a[lo], a[j] = a[j], a[lo]
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
