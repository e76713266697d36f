"""The backend floor holds: outside pedatorch/backend/, no code creates arrays with numpy or asks whether
something is a numpy array (``isinstance(x, np.ndarray)``, ``type(x) is np.ndarray``): such code would put
a CUDA tensor's values on the host, or take the wrong branch for it. Ops ask ``backend.namespace(...)``
(or ``device_namespace``) for ``xp`` and call ``xp.zeros``; type checks use ``backend.is_array``.
dtype names and constants (``np.float32``, ``np.inf``) are the same in cupy and may be used anywhere.

Modules that only ever hold host data (printing, saving, the data loader, pictures, the CPU's mt19937
stream) are listed in HOST_ONLY with the reason."""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "pedatorch"

# numpy calls that make a new array without an input array to take the device from
CREATORS = {"array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "zeros", "ones", "empty",
            "full", "arange", "linspace", "logspace", "geomspace", "eye", "identity", "tri", "frombuffer",
            "fromiter", "fromfunction", "indices"}

HOST_ONLY = {
    "backend": "the floor itself",
    "_tensor_str.py": "printing works on a host copy of the values",
    "serialization.py": "files hold host bytes",
    "utils/data": "the data loader collates host arrays (pin_memory is the transfer)",
    "viz": "pictures are drawn from host copies",
    "_random.py": "PyTorch's CPU generator (mt19937) makes host arrays; CUDA tensors use the device's generator",
    "testing.py": "assert_close compares host copies",
    "autograd/gradcheck.py": "finite-difference Jacobians are assembled on the host (values come over with to_host)",
}


def _host_only(path):
    rel = path.relative_to(ROOT).as_posix()
    return any(rel == k or rel.startswith(k + "/") for k in HOST_ONLY)


def _violations(path):
    tree = ast.parse(path.read_text(), str(path))
    names = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
             for alias in node.names if alias.name == "numpy"}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in names:
            if node.attr == "ndarray":
                out.append((node.lineno, f"{node.value.id}.ndarray"))
            elif node.attr in CREATORS:
                out.append((node.lineno, f"{node.value.id}.{node.attr}"))
    return sorted(out)


FILES = sorted(p for p in ROOT.rglob("*.py") if not _host_only(p))


def test_the_checker_finds_what_it_should(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("import numpy as np\nx = np.zeros(3)\nok = np.float32\nif isinstance(x, np.ndarray): pass\n")
    assert _violations(f) == [(2, "np.zeros"), (4, "np.ndarray")]


def _report():
    bad = {p.relative_to(ROOT).as_posix(): _violations(p) for p in FILES}
    return {k: v for k, v in bad.items() if v}


def test_no_numpy_arrays_outside_the_backend():
    bad = _report()
    lines = [f"{f}:{line}: {what}" for f, vs in bad.items() for line, what in vs]
    assert not lines, f"{len(lines)} numpy array creations / type checks outside the backend:\n" + "\n".join(lines)


if __name__ == "__main__":   # python tests/test_backend_floor.py: the count per file
    for f, vs in sorted(_report().items(), key=lambda kv: -len(kv[1])):
        print(f"{len(vs):4d} {f}")
