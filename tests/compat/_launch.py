"""Run a compat program with ``torch`` bound to PyTorch or to pedatorch.

    python tests/compat/_launch.py torch     PROGRAM.py
    python tests/compat/_launch.py pedatorch PROGRAM.py

With ``pedatorch``, an import hook answers every ``import torch`` / ``import torch.X.Y`` /
``from torch.X import Y`` with the module ``pedatorch.X.Y`` itself (the same object under both names),
so the program runs unchanged.  A submodule pedatorch lacks fails as it would in PyTorch:
``ModuleNotFoundError: No module named 'torch.X'``.
"""
import importlib
import importlib.abc
import importlib.util
import runpy
import sys


class _TorchIsPedatorch(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Meta-path finder + loader: ``torch[.X]`` is the already imported ``pedatorch[.X]``."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch" and not name.startswith("torch."):
            return None
        real = "pedatorch" + name[len("torch"):]
        try:
            if importlib.util.find_spec(real) is None:
                return None
        except ModuleNotFoundError:
            return None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        return importlib.import_module("pedatorch" + spec.name[len("torch"):])

    def exec_module(self, module):
        pass  # already executed as pedatorch.X


def main():
    lib, program = sys.argv[1], sys.argv[2]
    if lib == "pedatorch":
        import pedatorch
        sys.meta_path.insert(0, _TorchIsPedatorch())
        # the submodules pedatorch has already imported get their torch.* names right away
        for name, module in list(sys.modules.items()):
            if name == "pedatorch" or name.startswith("pedatorch."):
                sys.modules["torch" + name[len("pedatorch"):]] = module
        assert importlib.import_module("torch") is pedatorch
    elif lib != "torch":
        raise SystemExit(f"unknown library {lib!r}: torch or pedatorch")
    sys.argv = [program]
    runpy.run_path(program, run_name="__main__")


if __name__ == "__main__":
    main()
