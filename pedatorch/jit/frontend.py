"""``pedatorch.jit.frontend``: the errors ``script`` raises for source it cannot compile."""
import ast

__all__ = ["FrontendError", "NotSupportedError", "UnsupportedNodeError", "pretty_node_names"]

# the constructs TorchScript refuses, as its errors name them ("try blocks aren't supported")
pretty_node_names = {
    ast.Yield: "Yield", ast.YieldFrom: "YieldFrom", ast.Lambda: "Lambda", ast.Try: "try blocks",
    ast.Global: "global variables", ast.Nonlocal: "nonlocal variables", ast.FunctionDef: "function definitions",
    ast.AsyncFunctionDef: "async function definitions", ast.ClassDef: "class definitions",
    ast.Import: "import statements", ast.ImportFrom: "import statements", ast.Await: "Await",
    ast.AsyncFor: "async for loops", ast.AsyncWith: "async with statements", ast.GeneratorExp: "GeneratorExp",
    ast.Set: "set literals", ast.SetComp: "set comprehensions", ast.NamedExpr: "assignment expressions",
}
if hasattr(ast, "TryStar"):
    pretty_node_names[ast.TryStar] = "try blocks"


class FrontendError(Exception):
    """Source code ``script`` cannot compile: ``source_range`` says where (a text), ``msg`` why."""

    def __init__(self, source_range, msg):
        self.source_range = source_range
        self.msg = msg
        super().__init__(str(self))

    def __str__(self):
        return f"{self.msg}:\n{self.source_range}" if self.source_range else self.msg


class NotSupportedError(FrontendError):
    """A Python construct TorchScript does not support (``*args``, a class, ...)."""


class UnsupportedNodeError(NotSupportedError):
    """A statement or expression kind TorchScript has no equivalent for (``try``, ``lambda``, ``yield``).

    ``ctx``: the function's source (``jit._script._Source``), which points at ``offending_node``."""

    def __init__(self, ctx, offending_node, reason=""):
        feature = pretty_node_names.get(type(offending_node), type(offending_node).__name__)
        where = ctx.where(offending_node) if ctx is not None else None
        super().__init__(where, f"{feature} {reason + ' ' if reason else ''}aren't supported")
