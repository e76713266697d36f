"""``torch.func``: function transforms (``grad``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``,
``vmap``) and ``functional_call``, built from pedatorch's ordinary autograd.

PyTorch implements these with functorch's "levels" (each transform wraps tensors in its own layer, so
nested transforms never see each other's graphs) and batching rules (``vmap`` runs the batched kernel
once).  pedatorch shows the same ideas with less machinery:

  grad(f)(x)    runs ``f`` on a tracked copy of ``x`` and calls ``autograd.grad`` with ``create_graph=True``,
                so the gradient is itself differentiable and ``grad(grad(f))`` works; a tracked copy of an
                input that already has a graph stays connected to it (``view_as``), so an outer transform
                sees the inner one.  Results are detached when no input was being tracked.
  vmap(f)(x)    calls ``f`` once per slice along the mapped dimension and stacks the results: the
                semantics of vmap, at the speed of a Python loop.
  jacrev        one ``vjp`` per output element (a row of the Jacobian);
  jacfwd        one ``jvp`` per input element (a column).
"""
import functools

from . import _random
from ._tensor import Tensor
from .autograd import grad as _autograd_grad
from .autograd.grad_mode import enable_grad
from .utils._pytree import tree_flatten, tree_unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap", "functional_call",
           "stack_module_state"]


# ------------------------------------------------------------------------------------- helpers

def _track(x):
    """A copy of ``x`` whose gradient can be asked for, still connected to ``x``'s own graph if it has one."""
    if not isinstance(x, Tensor):
        return x
    return x.view_as(x) if x.requires_grad else x.detach().requires_grad_()


def _argnums_inputs(args, argnums, who):
    """The arguments to differentiate: one, or a tuple of them when ``argnums`` is a tuple."""
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if not nums:
        raise RuntimeError(f"{who}: argnums must be non-empty")
    for n in nums:
        if not isinstance(n, int):
            raise RuntimeError(f"{who}: argnums must be int or Tuple[int, ...], got: {type(n)}")
        if not -len(args) <= n < len(args):
            raise RuntimeError(f"Got argnum={n}, but only {len(args)} positional inputs")
    return tuple(n % len(args) for n in nums)


def _differentiate(outputs, inputs, grad_outputs):
    """d(outputs)/d(inputs), seeded with ``grad_outputs``; zeros for inputs the outputs don't depend on."""
    outs = [o for o in outputs if o.requires_grad]
    seeds = [g for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not outs:
        return tuple(x.new_zeros(x.shape) for x in inputs)
    grads = _autograd_grad(outs, inputs, seeds, create_graph=True, allow_unused=True)
    return tuple(x.new_zeros(x.shape) if g is None else g for x, g in zip(inputs, grads))


def _untrack(tree, keep):
    """Detach the tensors of ``tree`` unless an outer transform (``keep``) needs their graph."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([l.detach() if isinstance(l, Tensor) and not keep else l for l in leaves], spec)


def _regroup(leaves, flat):
    """Flat ``leaves`` cut back into one tree per argument; ``flat`` is each argument's (leaves, spec)."""
    trees, start = [], 0
    for arg_leaves, spec in flat:
        trees.append(tree_unflatten(leaves[start:start + len(arg_leaves)], spec))
        start += len(arg_leaves)
    return trees


def _only_argnums(func, args, kwargs, nums):
    """``func`` as a function of the arguments ``nums`` alone, the others fixed at ``args``/``kwargs``."""
    def partial(*diff):
        full = list(args)
        for n, d in zip(nums, diff):
            full[n] = d
        return func(*full, **kwargs)
    return partial


def _any_tracked(args):
    return any(isinstance(l, Tensor) and l.requires_grad for l in tree_flatten(args)[0])


def _split_aux(out, has_aux, who):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{who}: output of function should be a tuple: (output, aux) if has_aux is True")
    return out


# ------------------------------------------------------------------------------------- gradients

def grad_and_value(func, argnums=0, has_aux=False):
    """``(gradient, value)`` of a function returning a one-element tensor (``((g, (value, aux))`` with aux)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _argnums_inputs(args, argnums, "grad_and_value(f)(*args)")
        keep = _any_tracked(args)
        with enable_grad():
            args = list(args)
            for n in nums:
                leaves, spec = tree_flatten(args[n])
                args[n] = tree_unflatten([_track(l) for l in leaves], spec)
            out, aux = _split_aux(func(*args, **kwargs), has_aux, "grad_and_value(f)(*args)")
            if not isinstance(out, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(out)}")
            if out.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {out.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs "
                                   "instead?")
            flat = [tree_flatten(args[n]) for n in nums]
            inputs = [l for leaves, _ in flat for l in leaves]
            grads = list(_differentiate([out], inputs, [out.new_ones(())]))
        per_arg = _regroup(grads, flat)
        g = tuple(per_arg) if isinstance(argnums, tuple) else per_arg[0]
        g, out = _untrack(g, keep), _untrack(out, keep)
        return (g, (out, _untrack(aux, keep))) if has_aux else (g, out)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of ``func`` (which returns a one-element tensor) w.r.t. argument(s) ``argnums``."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` gives a tuple with v^T J for each primal."""
    return _vjp(func, primals, has_aux, keep=_any_tracked(primals))


def _vjp(func, primals, has_aux, keep):
    """vjp; with ``keep`` its results stay connected to the graphs of their inputs (for jvp's trick)."""
    flat = [tree_flatten(p) for p in primals]
    with enable_grad():
        tracked = [tree_unflatten([_track(l) for l in leaves], spec) for leaves, spec in flat]
        out, aux = _split_aux(func(*tracked), has_aux, "vjp(f, *primals)")
    out_leaves, out_spec = tree_flatten(out)
    for o in out_leaves:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"vjp(f, *primals): Expected f(*primals) to return only tensors, got unsupported "
                               f"type {type(o)}")
    inputs = [l for p in tracked for l in tree_flatten(p)[0]]

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        cot_leaves, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {cot_spec}, primal output: {out_spec}")
        for o, c in zip(out_leaves, cot_leaves):
            if tuple(o.shape) != tuple(c.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {tuple(c.shape)} and "
                                   f"output[0] has a shape of {tuple(o.shape)}.")
        with enable_grad():
            grads = list(_differentiate(out_leaves, inputs, cot_leaves))
        return tuple(_untrack(g, keep) for g in _regroup(grads, flat))

    out = _untrack(out, keep)
    return (out, vjp_fn, _untrack(aux, keep)) if has_aux else (out, vjp_fn)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J @ tangents)``, by the double-vjp trick (see autograd.functional)."""
    if not isinstance(primals, (tuple, list)):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    if not isinstance(tangents, (tuple, list)) or len(tangents) != len(primals):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           f"structure. For example, if primals is a tuple of 3 tensors, tangents also must be. "
                           f"Got primals with structure {tree_flatten(tuple(primals))[1]} and tangents with "
                           f"structure {tree_flatten(tuple(tangents))[1]}")
    keep = _any_tracked((primals, tangents))
    res = _vjp(func, tuple(primals), has_aux, keep=True)
    out, vjp_fn = res[0], res[1]
    with enable_grad():
        out_leaves, out_spec = tree_flatten(out)
        # u -> vjp_fn(u) is linear in u; its vjp seeded with the tangents is J @ tangents
        u = [o.detach().new_zeros(o.shape).requires_grad_() for o in out_leaves]
        back = tree_flatten(vjp_fn(tree_unflatten(u, out_spec)))[0]
        tan = tree_flatten(tuple(tangents))[0]
        jv = _differentiate(back, u, tan)
    jv = _untrack(tree_unflatten(list(jv), out_spec), keep)
    out = _untrack(out, keep)
    return (out, jv, _untrack(res[2], keep)) if has_aux else (out, jv)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` w.r.t. argument(s) ``argnums``: shape ``output.shape + input.shape``."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _argnums_inputs(args, argnums, "jacrev(f)(*args)")
        partial = _only_argnums(func, args, kwargs, nums)
        res = vjp(partial, *[args[n] for n in nums], has_aux=has_aux)
        out, vjp_fn = res[0], res[1]
        out_leaves, out_spec = tree_flatten(out)
        in_flat = [tree_flatten(args[n]) for n in nums]
        # jac[o][i]: d out_leaves[o] / d input leaf i, one vjp per output element
        per_out = []
        for k, o in enumerate(out_leaves):
            rows = []
            for j in range(max(o.numel(), 0)):
                seeds = [q.new_zeros(q.shape) for q in out_leaves]
                seeds[k].view(-1)[j] = 1
                rows.append([l for g in vjp_fn(tree_unflatten(seeds, out_spec)) for l in tree_flatten(g)[0]])
            jac_leaves = []
            for i, leaf in enumerate(l for leaves, _ in in_flat for l in leaves):
                stacked = (_stack([r[i] for r in rows]) if rows else leaf.new_zeros((0,) + tuple(leaf.shape)))
                jac_leaves.append(stacked.reshape(tuple(o.shape) + tuple(leaf.shape)))
            per_arg = _regroup(jac_leaves, in_flat)
            per_out.append(tuple(per_arg) if isinstance(argnums, tuple) else per_arg[0])
        jac = tree_unflatten(per_out, out_spec)
        return (jac, res[2]) if has_aux else jac
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian built column by column: one ``jvp`` per input element (PyTorch's forward mode; here each
    jvp is the double-vjp trick, so the numbers are those of forward mode up to the sign of zeros)."""
    _check_randomness(randomness)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _argnums_inputs(args, argnums, "jacfwd(f)(*args)")
        partial = _only_argnums(func, args, kwargs, nums)

        primals = tuple(args[n] for n in nums)
        flat = [tree_flatten(p) for p in primals]
        in_leaves = [l for leaves, _ in flat for l in leaves]
        columns, out, aux = [], None, None  # columns[i][j]: J @ e_j of input leaf i, as output leaves
        for i, leaf in enumerate(in_leaves):
            cols = []
            for j in range(leaf.numel()):
                tangent = [q.new_zeros(q.shape) for q in in_leaves]
                tangent[i].view(-1)[j] = 1
                res = jvp(partial, primals, tuple(_regroup(tangent, flat)), has_aux=has_aux)
                out, aux = res[0], (res[2] if has_aux else None)
                cols.append(tree_flatten(res[1])[0])
            columns.append(cols)
        if out is None:  # no input elements at all: still need the output's structure
            res = vjp(partial, *primals, has_aux=has_aux)
            out, aux = res[0], (res[2] if has_aux else None)
        out_leaves, out_spec = tree_flatten(out)
        per_out = []
        for k, o in enumerate(out_leaves):
            jac_leaves = []
            for leaf, cols in zip(in_leaves, columns):
                jac = (_stack([c[k] for c in cols], dim=-1) if cols
                       else o.new_zeros(tuple(o.shape) + (0,)))
                jac_leaves.append(jac.reshape(tuple(o.shape) + tuple(leaf.shape)))
            per_arg = _regroup(jac_leaves, flat)
            per_out.append(tuple(per_arg) if isinstance(argnums, tuple) else per_arg[0])
        jac = tree_unflatten(per_out, out_spec)
        return (jac, aux) if has_aux else jac
    return wrapper


def hessian(func, argnums=0):
    """The Hessian: the Jacobian of the gradient, ``jacfwd(jacrev(func))``."""
    return jacfwd(jacrev(func, argnums), argnums)


def _stack(tensors, dim=0):
    from .ops.join import stack
    return stack(tensors, dim)


# ------------------------------------------------------------------------------------- vmap

def _check_randomness(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                           f"{randomness}")


def _per_leaf_dims(in_dims, args, fname):
    """One in_dim (int or None) for each leaf of ``args``: an int/None applies to everything under it."""
    if isinstance(in_dims, int) or in_dims is None:
        return [in_dims] * len(tree_flatten(args)[0])
    if not isinstance(in_dims, tuple):
        raise ValueError(f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(in_dims) != len(args):
        raise ValueError(f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but inputs has "
                         f"structure {tree_flatten(args)[1]}.")
    dims = []
    for d, a in zip(in_dims, args):
        if isinstance(d, int) or d is None:
            dims += [d] * len(tree_flatten(a)[0])
        else:
            d_leaves, d_spec = tree_flatten(d)
            if d_spec != tree_flatten(a)[1]:
                raise ValueError(f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible "
                                 f"with the structure of `inputs`.")
            dims += d_leaves
    return dims


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over a dimension of its inputs: slice, call once per slice, stack the results."""
    _check_randomness(randomness)
    fname = getattr(func, "__name__", repr(func))

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        leaves, spec = tree_flatten(args)
        dims = _per_leaf_dims(in_dims, args, fname)
        sizes = []
        for leaf, d in zip(leaves, dims):
            if d is None:
                continue
            if not isinstance(leaf, Tensor):
                raise ValueError(f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input "
                                 f"but the input is of type {type(leaf)}. We cannot vmap over non-Tensor "
                                 "arguments, please use None as the respective in_dim")
            if not -leaf.dim() <= d < max(leaf.dim(), 1) or leaf.dim() == 0:
                raise ValueError(f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some "
                                 f"input, but that input is a Tensor of dimensionality {leaf.dim()} so expected "
                                 f"in_dim to satisfy -{leaf.dim()} <= in_dim < {leaf.dim()}.")
            sizes.append(leaf.shape[d])
        if not sizes:
            raise ValueError(f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): at least one input must be a Tensor "
                             "with a batch dimension (in_dims not None)")
        if len(set(sizes)) > 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sizes} for the mapped dimension")
        state = _random.default_generator.get_state()
        results = []
        for i in range(sizes[0]):
            if randomness == "same":  # every slice draws the same random numbers
                _random.default_generator.set_state(state)
            sliced = [l.select(d, i) if d is not None else l for l, d in zip(leaves, dims)]
            with _random.refusing(None if randomness != "error" else
                                  "vmap: called random operation while in randomness error mode. Please either use "
                                  "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                                  "operation out of vmap"):
                results.append(func(*tree_unflatten(sliced, spec), **kwargs))
        return _stack_results(results, out_dims, fname)
    return wrapper


def _stack_results(results, out_dims, fname):
    out_leaves, out_spec = tree_flatten(results[0])
    dims = ([out_dims] * len(out_leaves) if isinstance(out_dims, int) or out_dims is None
            else tree_flatten(out_dims)[0])
    if len(dims) != len(out_leaves):
        raise ValueError(f"vmap({fname}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                         "structure of `outputs`.")
    per_result = [tree_flatten(r)[0] for r in results]
    stacked = []
    for k, d in enumerate(dims):
        column = [r[k] for r in per_result]
        if d is None:
            stacked.append(column[0])
            continue
        if not isinstance(column[0], Tensor):
            raise ValueError(f"vmap({fname}, ...): `{fname}` must only return Tensors, got type "
                             f"{type(column[0])}. Did you mean to set out_dims= to None for output?")
        stacked.append(_stack(column, d))
    return tree_unflatten(stacked, out_spec)


# ------------------------------------------------------------------------------------- modules

def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    """Call ``module`` with some of its parameters and buffers replaced by the given tensors (by dotted
    name, as in ``state_dict``); the module itself is left as it was."""
    if isinstance(parameter_and_buffer_dicts, dict):
        replace = dict(parameter_and_buffer_dicts)
    else:
        replace = {}
        for d in parameter_and_buffer_dicts:
            dup = set(replace) & set(d)
            if dup:
                raise ValueError(f"{sorted(dup)} appeared in multiple dictionaries; behavior of functional call "
                                 "is ambiguous")
            replace.update(d)
    if tie_weights:  # a tensor shared by two names (tied weights) is replaced under both names
        by_id = {}
        for name, t in list(module.named_parameters(remove_duplicate=False)) + list(
                module.named_buffers(remove_duplicate=False)):
            by_id.setdefault(id(t), []).append(name)
        for names in by_id.values():
            given = [n for n in names if n in replace]
            if given:
                for n in names:
                    replace.setdefault(n, replace[given[0]])
    if strict:
        known = {n for n, _ in module.named_parameters(remove_duplicate=False)} | {
            n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing, unexpected = sorted(known - set(replace)), sorted(set(replace) - known)
        if missing or unexpected:
            msg = []
            if unexpected:
                msg.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
            if missing:
                msg.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(msg)))
    saved = []
    try:
        for name, value in replace.items():
            owner_name, _, attr = name.rpartition(".")
            owner = module.get_submodule(owner_name)
            table = owner._parameters if attr in owner._parameters else owner._buffers
            if attr not in table and attr not in owner.__dict__:
                # a name the module doesn't have: set it as a plain attribute for the call (as PyTorch)
                saved.append((owner.__dict__, attr, owner.__dict__.get(attr, _MISSING)))
                owner.__dict__[attr] = value
                continue
            saved.append((table, attr, table.get(attr, _MISSING)))
            table[attr] = value  # straight into the table: no Parameter type check, no copy
        args = () if args is None else args if isinstance(args, tuple) else (args,)
        return module(*args, **(kwargs or {}))
    finally:
        for table, attr, old in reversed(saved):
            if old is _MISSING:
                table.pop(attr, None)
            else:
                table[attr] = old


_MISSING = object()


def stack_module_state(models):
    """``(params, buffers)``: each name's tensors from ``models`` stacked on a new leading dimension (for
    ``vmap(functional_call)`` over an ensemble).  Parameters are new leaves; buffers are stacked as they are."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = {n: _stack([dict(m.named_parameters())[n].detach() for m in models]).requires_grad_(p.requires_grad)
              for n, p in models[0].named_parameters()}
    buffers = {n: _stack([dict(m.named_buffers())[n] for m in models]) for n, _ in models[0].named_buffers()}
    return params, buffers
