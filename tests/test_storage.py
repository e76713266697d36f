"""Storages (``pedatorch/storage.py``): ``untyped_storage()`` (bytes) and the deprecated ``storage()``
(TypedStorage: elements), the legacy classes (``torch.FloatStorage``), ``set_`` onto a storage, and storages
saved by themselves -- compared with PyTorch, line by line."""
import io
import warnings

import pytest

import pedatorch as pt

from conftest import error_of


def _cases(lib):
    x = lib.arange(6.).reshape(2, 3)
    s = x.storage()
    return [
        lambda: (type(s).__name__, s.size(), len(s), s.dtype, s.device, s.nbytes(), s.element_size(),
                 s.data_ptr() == x.data_ptr()),
        lambda: s, lambda: s.tolist(), lambda: s[1], lambda: list(s)[:2], lambda: s[1:3], lambda: s[10], lambda: s[-1],
        lambda: (s.__setitem__(0, 7.0), x)[1], lambda: s.fill_(1.0), lambda: s.copy_(lib.arange(6.).storage()),
        lambda: s.float(), lambda: s.double(), lambda: s.type(), lambda: s.is_shared(), lambda: s.pickle_storage_type(),
        lambda: s.clone().data_ptr() == s.data_ptr(), lambda: s.untyped().size(), lambda: s.is_cuda,
        lambda: s.get_device(), lambda: s.bool().tolist(), lambda: lib.tensor([1, 2], dtype=lib.int32).storage(),
        lambda: lib.empty(0).storage(), lambda: x.untyped_storage(), lambda: x.untyped_storage()[4],
        lambda: x.untyped_storage()[0:4], lambda: x.untyped_storage().tolist()[:8], lambda: x[1].storage().size(),
        lambda: x.t().storage().data_ptr() == s.data_ptr(), lambda: lib.FloatStorage(3).size(),
        lambda: lib.FloatStorage([1, 2]).tolist(), lambda: lib.TypedStorage([1.0, 2.0], dtype=lib.float64),
        lambda: lib.LongStorage([5, 6]), lambda: isinstance(s, lib.FloatStorage), lambda: isinstance(s, lib.LongStorage),
        lambda: isinstance(s, lib.TypedStorage), lambda: lib.is_storage(s), lambda: lib.is_storage(x.untyped_storage()),
        lambda: lib.tensor(x.storage()), lambda: lib.empty(0).set_(x.storage(), 1, (2,), (1,)),
        lambda: lib.empty(0).set_(x.untyped_storage(), 2, (2, 2)), lambda: lib.empty(0).set_(x.storage()),
        lambda: lib.empty(0, dtype=lib.float64).set_(x.storage()),
        lambda: lib.empty(0, dtype=lib.int32).set_(x.untyped_storage()),
        lambda: lib.empty(0).set_(x.storage(), storage_offset=1, size=(2,), stride=(2,)),
        lambda: lib.empty(0).set_(x.untyped_storage(), 0, (3,), (1,)).data_ptr() == x.data_ptr(),
        lambda: lib.empty(0, requires_grad=True).set_(x.storage()),
        lambda: lib.empty(2, 3, device="meta").storage(), lambda: lib.empty(2, device="meta").storage()[0],
    ]


def _show(fn):
    try:
        return repr(fn()).replace("pedatorch", "torch")
    except Exception as e:
        return error_of(lambda: (_ for _ in ()).throw(e))


def test_storages_behave_as_pytorchs(torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = [_show(f) for f in _cases(pt)]
        theirs = [_show(f) for f in _cases(torch)]
    assert ours == theirs


def test_storage_warns_once_as_pytorch():
    import pedatorch.storage as st
    st._warned[0] = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pt.ones(2).storage()
        pt.ones(2).storage()
    assert len(caught) == 1 and "TypedStorage is deprecated" in str(caught[0].message)
    assert caught[0].filename == __file__    # (it points at the learner's line)


def test_a_storage_shares_the_tensors_memory():
    x = pt.zeros(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = x.t().storage()
    s[4] = 5.0
    x.untyped_storage()[0] = 0x80      # the lowest byte of element 0
    assert x[1, 1].item() == 5.0 and x[0, 0].item() != 0.0


def test_storages_saved_by_themselves_load_in_both_libraries(torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for lib_save, lib_load in [(pt, torch), (torch, pt), (pt, pt)]:
            x = lib_save.arange(4.0)
            buf = io.BytesIO()
            lib_save.save({"s": x.storage(), "t": x, "u": lib_save.arange(4.0).untyped_storage()}, buf)
            buf.seek(0)
            loaded = lib_load.load(buf)
            assert type(loaded["s"]).__name__ == type(loaded["u"]).__name__ == "TypedStorage"
            assert loaded["s"].tolist() == [0.0, 1.0, 2.0, 3.0] and loaded["u"].size() == 16
            loaded["s"][0] = 9.0          # one storage in the file: the tensor views it
            assert loaded["t"][0].item() == 9.0
    x, tx = pt.arange(4.0), torch.arange(4.0)   # one memory as floats and as bytes: refused, as by PyTorch
    assert error_of(lambda: pt.save([x, x.untyped_storage()], io.BytesIO())) == error_of(
        lambda: torch.save([tx, tx.untyped_storage()], io.BytesIO()))
