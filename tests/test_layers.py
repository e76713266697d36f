"""The layers of pedatorch point down: a module imports only modules of its own layer or below.

    0 backend          the array libraries (numpy, cupy)
    1 base             dtypes, devices, layouts, the allocator tuning, hook handles, pytrees
    2 tensor           Tensor, its printing, random generators, the device modules (cuda, cpu, accelerator, backends)
    3 autograd         graph, engine, Function, grad modes
    4 ops              every op (ops/, linalg, special, fft)
    5 library          nn, optim, distributions, func, data, checkpoint, serialization, testing, jit, onnx, amp
                       (with cuda.amp and cpu.amp, its older spellings), vision, signal
    6 pictures         viz, grading

Module-level imports must point down (or stay in their layer) and form no circle. Imports inside functions
are lazy: an upward one is allowed only where listed in LAZY_UPWARD. What still points up is listed
(ROOT_IMPORTERS, LAZY_UPWARD) and the lists may only shrink, so the layering is a fact the test checks,
not a claim."""
import ast
import pathlib
from collections import defaultdict

ROOT = pathlib.Path(__file__).resolve().parents[1] / "pedatorch"

LAYERS = [
    ("backend", 0), ("version", 1), ("_warnings", 1), ("_dtype", 1), ("_device", 1), ("_layout", 1), ("_malloc", 1),
    ("_tensor", 2), ("_tensor_str", 2), ("storage", 2), ("_random", 2), ("cuda", 2), ("cpu", 2), ("accelerator", 2),
    ("backends", 2), ("mps", 2), ("xpu", 2), ("autograd", 3), ("utils.hooks", 1), ("utils._pytree", 1),
    ("ops", 4), ("sparse", 4), ("linalg", 4), ("special", 4), ("fft", 4),
    ("nn", 5), ("optim", 5), ("distributions", 5), ("func", 5), ("utils", 5), ("serialization", 5),
    ("testing", 5), ("jit", 5), ("onnx", 5), ("amp", 5), ("cuda.amp", 5), ("cpu.amp", 5), ("vision", 5),
    ("autograd.profiler", 5),
    ("safetensors", 5),
    ("hub", 5), ("functional", 5), ("types", 2), ("library", 5), ("overrides", 5), ("random", 2), ("compiler", 5), ("multiprocessing", 5),
    ("distributed", 5), ("profiler", 5), ("signal", 5),
    ("viz", 6), ("grading", 6),
]


def layer(module):
    """The layer of a module name relative to pedatorch ('' is the package root: the top)."""
    best = None
    for prefix, n in LAYERS:
        if module == prefix or module.startswith(prefix + "."):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, n)
    return 7 if best is None else best[1]


def _module_name(path):
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _resolve(node, current, is_package):
    """The pedatorch modules an import names (relative to the package), or [] for other libraries."""
    if isinstance(node, ast.Import):
        return [a.name[len("pedatorch."):] if a.name.startswith("pedatorch.") else "" for a in node.names
                if a.name == "pedatorch" or a.name.startswith("pedatorch.")]
    if node.level == 0:
        if not (node.module or "").startswith("pedatorch"):
            return []
        base = node.module[len("pedatorch"):].lstrip(".")
    else:
        pkg = current.split(".") if current else []
        if not is_package:
            pkg = pkg[:-1]
        pkg = pkg[:len(pkg) - (node.level - 1)] if node.level > 1 else pkg
        base = ".".join(pkg + ([node.module] if node.module else []))
    out = []
    for alias in node.names:   # `from . import hooks` names a module; `from .x import f` names x
        candidate = f"{base}.{alias.name}" if base else alias.name
        path = ROOT.joinpath(*candidate.split("."))
        out.append(candidate if path.with_suffix(".py").exists() or path.is_dir() else base)
    return out


def imports():
    """(module, imported module, line, at module level?) for every import of a pedatorch module."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        current = _module_name(path)
        tree = ast.parse(path.read_text())
        lazy = set()
        for n in ast.walk(tree):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for m in ast.walk(n):
                    if isinstance(m, (ast.Import, ast.ImportFrom)):
                        lazy.add(id(m))
        for n in ast.walk(tree):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                for target in _resolve(n, current, path.name == "__init__.py"):
                    found.append((current, target, n.lineno, id(n) not in lazy))
    return found


# What still points up is listed so that nothing new does; a listed import that no longer exists fails the
# test too, so the lists only shrink. No module imports the package root (it imports the library back: a
# circle through the root), so ROOT_IMPORTERS is empty and should stay so.
ROOT_IMPORTERS = set()
# Lazy (inside a function) imports that point up, each deliberate (commented at the import and listed in
# docs/architecture.md): (module, imported module).
LAZY_UPWARD = {
    ("_tensor", "autograd"),                # Tensor.backward runs the engine, which builds on Tensor
    ("_tensor", "autograd.views"),          # Tensor.grad_fn re-links a stale view to its base
    ("autograd", "ops.creation"),           # Variable() and grad seeds go through tensor()'s value checks
    ("autograd.functional", "ops.join"),    # jacobian stacks its rows with the stack op (differentiable)
}


def test_module_level_imports_point_down():
    ups = {(m, t, line) for m, t, line, top in imports() if top and m != "" and layer(t) > layer(m)}
    bad = sorted((m, t, line) for m, t, line in ups if not (t == "" and m in ROOT_IMPORTERS))
    assert not bad, "module-level imports pointing up:\n" + "\n".join(f"  {m}:{line} imports {t}" for m, t, line in bad)
    gone = ROOT_IMPORTERS - {m for m, t, _ in ups if t == ""}
    assert not gone, f"these no longer import the package root: delete them from ROOT_IMPORTERS: {sorted(gone)}"


def test_no_circles_at_module_level():
    graph = defaultdict(set)
    for m, t, _, top in imports():
        if top and t != m and t != "" and not m.startswith(t + "."):   # a package importing its submodules is fine
            graph[m].add(t)
    seen, stack, cycles = set(), [], []

    def visit(node):
        if node in stack:
            cycles.append(stack[stack.index(node):] + [node])
            return
        if node in seen:
            return
        seen.add(node)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            visit(nxt)
        stack.pop()
    for node in sorted(graph):
        visit(node)
    assert not cycles, "circles of module-level imports:\n" + "\n".join("  " + " -> ".join(c) for c in cycles[:10])


def lazy_upward():
    return {(m, t) for m, t, _, top in imports() if not top and m != "" and layer(t) > layer(m)}


def test_lazy_upward_imports_only_shrink():
    found = lazy_upward()
    assert found <= LAZY_UPWARD, "new lazy upward imports:\n" + "\n".join(f"  {m} imports {t or 'pedatorch'}"
                                                                           for m, t in sorted(found - LAZY_UPWARD))
    assert found >= LAZY_UPWARD, f"gone (delete them from LAZY_UPWARD): {sorted(LAZY_UPWARD - found)}"


if __name__ == "__main__":   # python tests/test_layers.py: the lazy upward imports
    for m, t in sorted(lazy_upward()):
        print(f"{layer(m)} {m:40s} -> {layer(t)} {t or 'pedatorch'}")
