"""``script``: check that code stays in TorchScript's subset, then run it as Python.

PyTorch's ``torch.jit.script`` compiles a function's Python source into TorchScript, a statically
typed subset of Python in which ``if``/``for``/``while`` on tensor values stay control flow in the
graph (``prim::If``, ``prim::Loop``), unlike a trace, which records one path.  pedatorch does the
checking part: it parses the source with ``ast`` and refuses what TorchScript refuses (``try``,
``lambda``, ``yield``, nested ``def``, ``import``, ``global``, ``*args``/``**kwargs``, names it cannot
resolve), with PyTorch's exception classes and messages pointing at the line; it checks the
argument types TorchScript would check on each call (unannotated arguments are Tensors).  The
function then runs as the Python it is, which TorchScript's semantics agree with on this subset.
``graph`` shows the function in TorchScript's IR layout -- the control flow as ``prim::If``/
``prim::Loop`` blocks -- built from the source (without types: every value is shown as the type
the source makes evident, else ``Tensor``); ``code`` is the checked source.

Methods called on ``self`` and plain Python functions the code calls are checked too, as PyTorch
compiles them recursively; pedatorch's own modules and functions are taken as scriptable.  Methods
marked ``@jit.ignore`` or ``@jit.unused`` are not checked (Python runs them).  A scripted program
cannot be saved (``jit.save`` writes graphs, and a file holding code would run it when loaded): trace
it to save it.
"""
import ast
import builtins
import functools
import inspect
import textwrap
import typing

from .._warnings import user_stacklevel
from ..nn.modules.module import Module
from .._tensor import Tensor
from .frontend import NotSupportedError, UnsupportedNodeError, pretty_node_names
from ._module import ScriptModule, RecursiveScriptModule, ScriptFunction

__all__ = ["script", "is_scripting", "ScriptWarning"]

_IGNORE_ATTR = "_torchscript_modifier"   # set by jit.ignore / jit.unused / jit.export

_SCRIPTING = [0]   # scripted functions running right now


class ScriptWarning(Warning):
    """A warning about scripting."""


def is_scripting():
    """True inside a scripted function or module (code may take a TorchScript-only path there)."""
    return _SCRIPTING[0] > 0


# ====================================================================== the subset check

_TOKENS = {ast.Try: "try", ast.Global: "global", ast.Nonlocal: "nonlocal", ast.FunctionDef: "def",
           ast.Import: "import", ast.ImportFrom: "from", ast.ClassDef: "class", ast.Lambda: "lambda"}


class _Source:
    """A function's source, for error messages that point at a line as PyTorch's do."""

    def __init__(self, fn):
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError):
            raise OSError(f"Can't get source for {fn}. TorchScript requires source access in order to carry out "
                          "compilation, make sure original .py files are available.") from None
        self.fn = fn
        self.file = inspect.getsourcefile(fn) or "<unknown>"
        self.first = first
        self.text = textwrap.dedent("".join(lines))
        self.lines = self.text.splitlines()
        self.indent = len(lines[0]) - len(lines[0].lstrip())
        tree = ast.parse(self.text)
        self.node = tree.body[0]

    def where(self, node, length=None):
        """PyTorch's source range: the file and line, the def line, the line with a ``~~~ <--- HERE`` marker."""
        line = node.lineno - 1
        col = node.col_offset
        if length is None:
            length = len(_TOKENS.get(type(node), "~"))
        out = [f'  File "{self.file}", line {self.first + line}']
        defline = getattr(self.node, "lineno", 1) - 1
        shown = sorted({defline, line})
        for i in shown:
            out.append(" " * self.indent + self.lines[i] if i < len(self.lines) else "")
        out.append(" " * (self.indent + col) + "~" * max(length, 1) + " <--- HERE")
        if line + 1 < len(self.lines):
            out.append(" " * self.indent + self.lines[line + 1])
        return "\n".join(out) + "\n"


class _Checker(ast.NodeVisitor):
    """Walks one function's AST: refuses what TorchScript refuses, resolves every name."""

    def __init__(self, source, scope, on_call):
        self.src = source
        self.scope = scope          # name -> object, for the names the code does not assign itself
        self.on_call = on_call      # called with each Python function / self method the code calls
        self.local = set()

    def check(self):
        fn = self.src.node
        if not isinstance(fn, ast.FunctionDef):
            raise NotSupportedError(None, "pedatorch.jit.script compiles functions, modules and methods only")
        a = fn.args
        for bad in ([a.vararg] if a.vararg else []) + ([a.kwarg] if a.kwarg else []) + \
                [k for k, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]:
            raise NotSupportedError(self.src.where(bad, len(bad.arg)),
                                    "Compiled functions can't take variable number of arguments or use keyword-only "
                                    "arguments with defaults")
        self.local = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
        for node in ast.walk(fn):   # every name the function binds is local to it
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self.local.add(node.id)
            elif isinstance(node, ast.alias):
                self.local.add((node.asname or node.name).split(".")[0])
            elif isinstance(node, ast.ExceptHandler) and node.name:
                self.local.add(node.name)
        for stmt in fn.body:
            self.visit(stmt)

    def generic_visit(self, node):
        if type(node) in pretty_node_names:
            raise UnsupportedNodeError(self.src, node)
        super().generic_visit(node)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id not in self.local:
            if node.id in self.scope:
                return
            if not hasattr(builtins, node.id):
                raise RuntimeError(f"\nundefined value {node.id}:\n{self.src.where(node, len(node.id))}")

    def visit_Call(self, node):
        self.generic_visit(node)
        target = self._resolve(node.func)
        if target is not None:
            self.on_call(target)

    def _resolve(self, expr):
        """The object a call goes to, when the source names it plainly (``helper(x)``, ``self.helper(x)``)."""
        if isinstance(expr, ast.Name) and expr.id not in self.local:
            return self.scope.get(expr.id)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
            owner = self.scope.get("self")
            if owner is not None:
                return getattr(type(owner), expr.attr, None)
        return None


def _scope_of(fn, owner=None):
    """The names a function can see besides its own: its globals, closure and builtins (and ``self``)."""
    scope = dict(getattr(fn, "__globals__", {}))
    closure = getattr(fn, "__closure__", None) or ()
    for name, cell in zip(fn.__code__.co_freevars, closure):
        try:
            scope[name] = cell.cell_contents
        except ValueError:
            pass
    if owner is not None:
        scope["self"] = owner
    return scope


def _is_own(obj):
    """pedatorch's own code (taken as scriptable, as PyTorch's library is) or a builtin."""
    module = getattr(obj, "__module__", None) or ""
    return module == "builtins" or module.split(".")[0] in ("pedatorch", "torch", "math", "numpy", "typing")


def _check_function(fn, owner, seen):
    """Check ``fn`` and, recursively, the Python functions and ``self`` methods it calls."""
    fn = inspect.unwrap(getattr(fn, "__func__", fn))
    if fn in seen or _is_own(fn) or getattr(fn, _IGNORE_ATTR, None) in ("ignore", "unused"):
        return
    seen.add(fn)
    src = _Source(fn)

    def on_call(target):
        target = inspect.unwrap(getattr(target, "__func__", target))
        if inspect.isfunction(target) and not _is_own(target):
            _check_function(target, owner if _is_method_of(target, owner) else None, seen)

    _Checker(src, _scope_of(fn, owner), on_call).check()
    return src


def _is_method_of(fn, owner):
    return owner is not None and any(getattr(c, fn.__name__, None) is fn for c in type(owner).__mro__)


# ====================================================================== argument types at call time

def _type_name(ann):
    if ann is inspect.Parameter.empty:
        return "Tensor"
    if ann is Tensor:
        return "Tensor"
    return getattr(ann, "__name__", None) or str(ann).replace("typing.", "")


def _accepts(ann, value):
    """Does ``value`` pass as TorchScript type ``ann``?  (Containers: their outer type.)"""
    if ann is inspect.Parameter.empty or ann is Tensor:
        return isinstance(value, Tensor)
    if ann is typing.Any:
        return True
    origin = typing.get_origin(ann)
    if origin is typing.Union:
        return any(_accepts(a, value) for a in typing.get_args(ann))
    if ann is type(None):
        return value is None
    if ann is float:
        return isinstance(value, (float, int)) and not isinstance(value, bool)
    if ann is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin is not None:
        return isinstance(value, origin)
    return isinstance(value, ann) if isinstance(ann, type) else True


def _check_args(name, sig, args, kwargs, skip_self):
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:
        raise RuntimeError(f"{name}() {e}") from None
    params = list(sig.parameters.values())[1 if skip_self else 0:]
    decl = f"{name}(" + ", ".join(f"{_type_name(p.annotation)} {p.name}" for p in params) + ")"
    for pos, p in enumerate(params):
        if p.name not in bound.arguments:
            continue
        value = bound.arguments[p.name]
        if not _accepts(p.annotation, value):
            inferred = p.annotation is inspect.Parameter.empty
            msg = (f"{name}() Expected a value of type '{_type_name(p.annotation)}{' (inferred)' if inferred else ''}' "
                   f"for argument '{p.name}' but instead found type '{type(value).__name__}'.\n")
            if inferred:
                msg += (f"Inferred '{p.name}' to be of type 'Tensor' because it was not annotated with an explicit "
                        "type.\n")
            raise RuntimeError(msg + f"Position: {pos}\nValue: {value!r}\nDeclaration: {decl}")


# ====================================================================== the graph, shown from the source

class _GraphWriter:
    """Writes a function's AST in TorchScript's IR layout: SSA values, ``prim::If``/``prim::Loop`` blocks."""

    _BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.MatMult: "matmul",
               ast.Pow: "pow", ast.FloorDiv: "floordiv", ast.Mod: "remainder", ast.BitAnd: "__and__",
               ast.BitOr: "__or__", ast.BitXor: "__xor__", ast.LShift: "__lshift__", ast.RShift: "__rshift__"}
    _CMPOPS = {ast.Gt: "gt", ast.Lt: "lt", ast.GtE: "ge", ast.LtE: "le", ast.Eq: "eq", ast.NotEq: "ne",
               ast.Is: "__is__", ast.IsNot: "__isnot__", ast.In: "__contains__", ast.NotIn: "__not_contains__"}

    def __init__(self, src, is_method, module=None):
        self.src = src
        self.lines = []
        self.count = 0
        self.versions = {}
        self.is_method = is_method   # the class name of ``self``, for a method
        self.module = module         # the scripted module (its submodules are called by "forward")

    def new(self, name=None):
        if name is None:
            self.count += 1
            return f"%{self.count}"
        n = self.versions.get(name, 0)
        self.versions[name] = n + 1
        return f"%{name}" if n == 0 else f"%{name}.{n}"

    def emit(self, depth, out, typ, call):
        self.lines.append("  " * depth + f"{out} : {typ} = {call}")

    def write(self):
        fn = self.src.node
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        env = {}
        head = []
        for i, p in enumerate(params):
            env[p] = f"%{p}.1" if not (i == 0 and self.is_method) else "%self"
            ann = fn.args.args[i].annotation if i < len(fn.args.args) else None
            typ = (f"__torch__.{self.is_method}" if i == 0 and self.is_method else
                   ast.unparse(ann) if ann is not None else "Tensor")
            head.append(f"{env[p]} : {typ}")
        result = self.block(fn.body, env, 1)
        out = "graph(" + ",\n      ".join(head) + "):\n" + "\n".join(self.lines)
        return out + f"\n  return ({result or ''})\n"

    def block(self, body, env, depth):
        """Write statements; the value returned (when the block returns), else None."""
        for stmt in body:
            if isinstance(stmt, ast.Return):
                return self.expr(stmt.value, env, depth) if stmt.value is not None else "%none"
            self.stmt(stmt, env, depth)
        return None

    def assign(self, target, value, env, depth):
        if isinstance(target, ast.Name):
            env[target.id] = self.rename_last(value, target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            outs = [self.new(t.id) if isinstance(t, ast.Name) else self.new() for t in target.elts]
            self.emit(depth, ", ".join(outs), "Tensor", f"prim::TupleUnpack({value})")
            for t, o in zip(target.elts, outs):
                if isinstance(t, ast.Name):
                    env[t.id] = o
        else:   # x[i] = v, self.a = v
            obj = self.expr(target.value, env, depth)
            if isinstance(target, ast.Subscript):
                idx = self.expr(target.slice, env, depth)
                self.emit(depth, self.new(), "Tensor", f"aten::index_put_({obj}, {idx}, {value})")
            else:
                self.lines.append("  " * depth + f'= prim::SetAttr[name="{target.attr}"]({obj}, {value})')

    def rename_last(self, value, var):
        """Name the value just written after the variable it is stored in (``%h.1`` rather than ``%7``); a
        value written earlier (``y = x``) keeps its name."""
        if self.lines and self.lines[-1].lstrip().startswith(value + " :"):
            new = self.new(var)
            self.lines[-1] = self.lines[-1].replace(value + " :", new + " :", 1)
            return new
        return value

    def stmt(self, s, env, depth):
        if isinstance(s, ast.Assign):
            value = self.expr(s.value, env, depth)
            for t in s.targets:
                self.assign(t, value, env, depth)
        elif isinstance(s, ast.AnnAssign) and s.value is not None:
            self.assign(s.target, self.expr(s.value, env, depth), env, depth)
        elif isinstance(s, ast.AugAssign):
            op = ast.BinOp(left=ast.Name(id=s.target.id, ctx=ast.Load()) if isinstance(s.target, ast.Name)
                           else s.target, op=s.op, right=s.value)
            ast.copy_location(op, s)
            self.assign(s.target, self.expr(op, env, depth), env, depth)
        elif isinstance(s, ast.Expr):
            if not isinstance(s.value, ast.Constant):   # (a docstring is no op)
                self.expr(s.value, env, depth)
        elif isinstance(s, ast.If):
            self.if_(s, env, depth)
        elif isinstance(s, (ast.For, ast.While)):
            self.loop(s, env, depth)
        elif isinstance(s, ast.Assert):
            cond = self.expr(s.test, env, depth)
            self.lines.append("  " * depth + f'= prim::If({cond})  # assert: raises AssertionError when false')
        elif isinstance(s, ast.Raise):
            self.lines.append("  " * depth + "= prim::RaiseException(...)")
        elif isinstance(s, ast.With):
            for item in s.items:
                self.expr(item.context_expr, env, depth)
            self.block(s.body, env, depth)
        elif isinstance(s, (ast.Pass, ast.Break, ast.Continue, ast.Delete)):
            pass

    def if_(self, s, env, depth):
        cond = self.expr(s.test, env, depth)
        start = len(self.lines)
        envs = []
        for body in (s.body, s.orelse):
            e = dict(env)
            self.lines.append("  " * (depth + 1) + f"block{len(envs)}():")
            self.block(body, e, depth + 2)
            envs.append(e)
        changed = sorted(k for k in set(envs[0]) | set(envs[1]) if envs[0].get(k) != env.get(k) or
                         envs[1].get(k) != env.get(k))
        changed = [k for k in changed if k in envs[0] and k in envs[1]]
        # each block ends with the values it gives the variables assigned in either branch
        blocks = [i for i, line in enumerate(self.lines[start:], start) if line.strip().startswith("block")]
        for b, e in zip(reversed(blocks), reversed(envs)):
            end = blocks[blocks.index(b) + 1] if b != blocks[-1] else len(self.lines)
            self.lines.insert(end, "  " * (depth + 2) + f"-> ({', '.join(e[k] for k in changed)})")
        outs = [self.new(k) for k in changed]
        self.lines.insert(start, "  " * depth + f"{', '.join(outs) + ' : Tensor = ' if outs else '= '}"
                                               f"prim::If({cond})")
        for k, o in zip(changed, outs):
            env[k] = o

    def loop(self, s, env, depth):
        assigned = sorted({n.id for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                          & set(env))
        if isinstance(s, ast.For):
            it = s.iter
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and \
                    len(it.args) == 1:
                count = self.expr(it.args[0], env, depth)
            else:   # for x in xs: as many trips as xs has entries
                count = self.op(depth, "aten::len", [self.expr(it, env, depth)], "int")
            cond = self.const(depth, True)
        else:   # while: TorchScript's loop with an unbounded trip count
            count = self.const(depth, 9223372036854775807)
            cond = self.expr(s.test, env, depth)
        carried_in = [env[k] for k in assigned]
        start = len(self.lines)
        inner = dict(env)
        params = []
        target = s.target.id if isinstance(s, ast.For) and isinstance(s.target, ast.Name) else None
        params.append(self.new(target) + " : int" if target else self.new() + " : int")
        if target:
            inner[target] = params[0].split(" :")[0]
        for k in assigned:
            inner[k] = self.new(k)
            params.append(inner[k] + " : Tensor")
        self.lines.append("  " * (depth + 1) + f"block0({', '.join(params)}):")
        self.block(s.body, inner, depth + 2)
        next_cond = cond if isinstance(s, ast.For) else self.expr(s.test, inner, depth + 2)
        self.lines.append("  " * (depth + 2) + f"-> ({', '.join([next_cond] + [inner[k] for k in assigned])})")
        outs = [self.new(k) for k in assigned]
        self.lines.insert(start, "  " * depth + f"{', '.join(outs) + ' : Tensor = ' if outs else '= '}prim::Loop("
                                               f"{', '.join([count, cond] + carried_in)})")
        for k, o in zip(assigned, outs):
            env[k] = o

    def expr(self, e, env, depth):
        """Write an expression; the name of its value."""
        if isinstance(e, ast.Name):
            if e.id in env:
                return env[e.id]
            return f"%{e.id}"
        if isinstance(e, ast.Constant):
            return self.const(depth, e.value)
        if isinstance(e, ast.Attribute):
            obj = self.expr(e.value, env, depth)
            out = self.new(e.attr)
            typ = "Tensor"
            if isinstance(e.value, ast.Name) and e.value.id == "self" and self.module is not None:
                value = getattr(self.module, e.attr, None)   # (the attribute's Python type, when it is no tensor)
                if value is not None and not isinstance(value, Tensor):
                    typ = type(value).__name__
            self.emit(depth, out, typ, f'prim::GetAttr[name="{e.attr}"]({obj})')
            return out
        if isinstance(e, ast.BinOp):
            a, b = self.expr(e.left, env, depth), self.expr(e.right, env, depth)
            return self.op(depth, "aten::" + self._BINOPS.get(type(e.op), type(e.op).__name__.lower()), [a, b])
        if isinstance(e, ast.UnaryOp):
            a = self.expr(e.operand, env, depth)
            name = {ast.USub: "neg", ast.Not: "__not__", ast.Invert: "bitwise_not", ast.UAdd: "pos"}[type(e.op)]
            return self.op(depth, "aten::" + name, [a])
        if isinstance(e, ast.BoolOp):
            vals = [self.expr(v, env, depth) for v in e.values]
            name = "__and__" if isinstance(e.op, ast.And) else "__or__"
            out = vals[0]
            for v in vals[1:]:
                out = self.op(depth, "aten::" + name, [out, v], "bool")
            return out
        if isinstance(e, ast.Compare):
            left = self.expr(e.left, env, depth)
            out = None
            for op, right in zip(e.ops, e.comparators):
                r = self.expr(right, env, depth)
                c = self.op(depth, "aten::" + self._CMPOPS[type(op)], [left, r])
                out = c if out is None else self.op(depth, "aten::__and__", [out, c], "bool")
                left = r
            return out
        if isinstance(e, ast.Call):
            args = [self.expr(a, env, depth) for a in e.args] + \
                   [f"{k.arg}={self.expr(k.value, env, depth)}" for k in e.keywords]
            f = e.func
            if isinstance(f, ast.Attribute):
                owner = f.value
                if isinstance(owner, ast.Name) and owner.id in ("torch", "F", "nn", "math") or \
                        isinstance(owner, ast.Attribute) and ast.unparse(owner) in ("torch.nn.functional", "nn.functional"):
                    return self.op(depth, f"aten::{f.attr}", args)
                obj = self.expr(owner, env, depth)
                if isinstance(owner, ast.Name) and owner.id == "self" and self.module is not None and \
                        f.attr in self.module._modules:   # self.fc(x): the submodule's forward
                    sub = self.new(f.attr)
                    self.emit(depth, sub, f"__torch__.{self.module._modules[f.attr]._get_name()}",
                              f'prim::GetAttr[name="{f.attr}"]({obj})')
                    return self.op(depth, 'prim::CallMethod[name="forward"]', [sub] + args)
                if isinstance(owner, ast.Name) and owner.id == "self" or isinstance(owner, ast.Attribute):
                    return self.op(depth, f'prim::CallMethod[name="{f.attr}"]', [obj] + args)
                return self.op(depth, f"aten::{f.attr}", [obj] + args)
            if isinstance(f, ast.Name):
                if f.id in env:   # a module stored in a variable, or a callable argument
                    return self.op(depth, 'prim::CallMethod[name="forward"]', [env[f.id]] + args)
                kind = "aten" if hasattr(builtins, f.id) else "prim::CallFunction"
                return self.op(depth, f"aten::{f.id}" if kind == "aten" else f"prim::CallFunction[name=\"{f.id}\"]",
                               args)
            return self.op(depth, "prim::CallFunction", [self.expr(f, env, depth)] + args)
        if isinstance(e, ast.Subscript):
            obj = self.expr(e.value, env, depth)
            idx = self.expr(e.slice, env, depth)
            return self.op(depth, "aten::__getitem__", [obj, idx])
        if isinstance(e, ast.Slice):
            parts = [self.expr(p, env, depth) if p is not None else "%none" for p in (e.lower, e.upper, e.step)]
            return self.op(depth, "prim::Slice", parts, "slice")
        if isinstance(e, (ast.Tuple, ast.List)):
            vals = [self.expr(v, env, depth) for v in e.elts]
            return self.op(depth, "prim::TupleConstruct" if isinstance(e, ast.Tuple) else "prim::ListConstruct",
                           vals, "Tuple" if isinstance(e, ast.Tuple) else "List")
        if isinstance(e, ast.Dict):
            vals = [v for k, x in zip(e.keys, e.values) for v in (self.expr(k, env, depth), self.expr(x, env, depth))]
            return self.op(depth, "prim::DictConstruct", vals, "Dict")
        if isinstance(e, ast.IfExp):
            return self.op(depth, "prim::If", [self.expr(e.test, env, depth), self.expr(e.body, env, depth),
                                               self.expr(e.orelse, env, depth)])
        if isinstance(e, (ast.ListComp, ast.DictComp)):
            return self.op(depth, "prim::ListComprehension" if isinstance(e, ast.ListComp) else
                           "prim::DictComprehension", [], "List")
        if isinstance(e, ast.JoinedStr):
            return self.op(depth, "aten::format", [], "str")
        return self.op(depth, "prim::" + type(e).__name__, [])

    def const(self, depth, value):
        out = self.new()
        typ = {bool: "bool", int: "int", float: "float", str: "str", type(None): "NoneType"}.get(type(value), "Any")
        shown = "" if value is None else f"[value={int(value) if isinstance(value, bool) else repr(value)}]"
        self.emit(depth, out, typ, f"prim::Constant{shown}()")
        return out

    def op(self, depth, kind, args, typ="Tensor"):
        out = self.new()
        self.emit(depth, out, typ, f"{kind}({', '.join(args)})")
        return out


# ====================================================================== the scripted objects

class ScriptedFunction(ScriptFunction):
    """A scripted function: checked source, run as Python (see the module docstring)."""

    def __init__(self, fn, source):
        self._fn = fn
        self._source = source
        self._signature = inspect.signature(fn)
        self.name = fn.__name__
        self.qualified_name = "__torch__." + fn.__qualname__
        functools.update_wrapper(self, fn)

    @property
    def graph(self):
        return _GraphText(_GraphWriter(self._source, None).write())

    @property
    def code(self):
        return self._source.text

    def __call__(self, *args, **kwargs):
        _check_args(self.name, self._signature, args, kwargs, skip_self=False)
        _SCRIPTING[0] += 1
        try:
            return self._fn(*args, **kwargs)
        finally:
            _SCRIPTING[0] -= 1

    def save(self, f, **kwargs):
        from ._serialization import save
        save(self, f)

    def __repr__(self):
        return f"<pedatorch.jit.ScriptFunction object '{self.name}'>"


class _GraphText(str):
    """A graph shown from source: prints as TorchScript IR."""


class _ScriptedMethod:
    """``module.method`` of a scripted module: argument checks, then the Python method."""

    def __init__(self, module, fn, source):
        self._module, self._fn, self._source = module, fn, source
        self._signature = inspect.signature(fn)
        self.name = fn.__name__

    @property
    def graph(self):
        return _GraphText(_GraphWriter(self._source, self._module._python_class.__qualname__,
                                       self._module).write())

    @property
    def code(self):
        return self._source.text

    def __call__(self, *args, **kwargs):
        _check_args(self.name, self._signature, (self._module,) + args, kwargs, skip_self=True)
        _SCRIPTING[0] += 1
        try:
            return self._fn(self._module, *args, **kwargs)
        finally:
            _SCRIPTING[0] -= 1


def _script_module(mod, seen):
    """A RecursiveScriptModule over ``mod``: the same parameters, buffers and attributes; its methods
    checked and run as ``mod``'s class defines them."""
    cls = type(mod)
    methods = {"forward"} | {n for n, f in inspect.getmembers(cls, callable)
                             if getattr(f, _IGNORE_ATTR, None) == "export"}
    sources = {}
    if not _is_own(cls):
        for name in sorted(methods):
            fn = getattr(cls, name, None)
            if fn is None or getattr(fn, _IGNORE_ATTR, None) in ("ignore", "unused"):
                continue
            src = _check_function(fn, mod, seen)
            if src is not None:
                sources[name] = src
    # a class of its own per scripted class: it names PyTorch's type and knows the Python class
    shell_cls = type("RecursiveScriptModule", (_ScriptedModule,), {"_python_class": cls})
    shell = shell_cls()
    d = shell.__dict__
    for k, v in mod.__dict__.items():
        if k not in ("_modules", "_parameters", "_buffers", "_graphs") and not k.startswith("_forward") and \
                not k.startswith("_backward") and not k.startswith("_state_dict") and not k.startswith("_load"):
            d[k] = v
    d["_parameters"] = mod._parameters.__class__(mod._parameters)
    d["_buffers"] = mod._buffers.__class__(mod._buffers)
    d["_non_persistent_buffers_set"] = set(mod._non_persistent_buffers_set)
    d["original_name"] = cls.__name__
    d["_sources"] = sources
    for k, child in mod._modules.items():
        shell._modules[k] = None if child is None else script(child, _seen=seen)
    return shell


class _ScriptedModule(RecursiveScriptModule):
    """A scripted module: its class's methods, checked, running on this module's state."""

    _python_class = None

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            pass
        fn = getattr(self._python_class, name, None)
        if fn is None or name.startswith("__"):
            raise AttributeError(f"'{self._get_name()}' object has no attribute '{name}'")
        if isinstance(fn, property):
            return fn.fget(self)
        if callable(fn) and not isinstance(fn, type):
            return self._method(name)
        return fn

    def forward(self, *args, **kwargs):
        return self._method("forward")(*args, **kwargs)

    def _method(self, name):
        fn = getattr(self._python_class, name)
        if _is_own(self._python_class) or getattr(fn, _IGNORE_ATTR, None) in ("ignore", "unused") or \
                not inspect.isfunction(fn):
            return functools.partial(fn, self)   # pedatorch's own module, or a method left to Python
        sources = self.__dict__.setdefault("_sources", {})
        if name not in sources:
            sources[name] = _Source(fn)
        return _ScriptedMethod(self, fn, sources[name])

    @property
    def graph(self):
        sources = self.__dict__.get("_sources", {})
        if "forward" not in sources:
            return _GraphText(f"graph(%self : __torch__.{self._get_name()}, ...):\n"
                              "  # pedatorch's own module: its forward is pedatorch's code\n")
        return _GraphText(_GraphWriter(sources["forward"], self._python_class.__qualname__, self).write())

    @property
    def inlined_graph(self):
        return self.graph

    @property
    def code(self):
        sources = self.__dict__.get("_sources", {})
        return sources["forward"].text if "forward" in sources else f"# {self._get_name()}.forward: pedatorch's code\n"


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None, _seen=None):
    """Check a function, module or method against TorchScript's subset; return it as a ScriptFunction or
    RecursiveScriptModule that runs it (see the module docstring)."""
    if _seen is None:
        import warnings
        warnings.warn("`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`.",
                      DeprecationWarning, stacklevel=user_stacklevel())
        _seen = set()
    if isinstance(obj, (ScriptModule, ScriptFunction)):
        return obj
    if isinstance(obj, Module):
        return _script_module(obj, _seen)
    if isinstance(obj, type):
        raise NotSupportedError(None, f"pedatorch.jit.script compiles functions and modules; scripting the class "
                                      f"{obj.__name__} (a TorchScript class) is not supported. Script a function or "
                                      "an nn.Module instead.")
    if inspect.ismethod(obj) and isinstance(obj.__self__, Module):
        return getattr(script(obj.__self__, _seen=_seen), obj.__name__)
    if not callable(obj) or not (inspect.isfunction(obj) or inspect.ismethod(obj)):
        raise RuntimeError(f"Type '{type(obj).__name__}' cannot be compiled since it is not a function or an "
                           "nn.Module")
    if getattr(obj, _IGNORE_ATTR, None) in ("ignore", "unused"):
        return obj
    src = _Source(obj)
    _check_function(obj, None, _seen)
    return ScriptedFunction(obj, src)
