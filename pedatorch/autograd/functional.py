"""``autograd.functional``: Jacobians and Hessians of Python functions, built from ``autograd.grad``.

    vjp(f, x, v)   v^T J          one backward pass
    jvp(f, x, v)   J v            the "double-vjp trick": u -> vjp(f, x, u) is linear in u,
                                  so differentiating it w.r.t. u (seeded with v) gives J v
    jacobian(f, x) J              one backward pass per output element
    hessian(f, x)  H              the jacobian of the gradient
    vhp / hvp      v^T H, H v     a backward of the gradient (hvp: plus the double-vjp trick)

Signatures, return structures (a tuple where the inputs/outputs were a tuple)
and the ``strict``/``create_graph`` behaviour follow ``torch.autograd.functional``.
"""
from .._tensor import Tensor
from ..backend import namespace
from .engine import run_backward, zeros_like

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# ---------------------------------------------------------------------- helpers (as in PyTorch)

def _as_tuple_nocheck(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _as_tuple(inp, arg_name=None, fn_name=None):
    """(whether ``inp`` was a tuple, ``inp`` as a tuple of Tensors)."""
    if arg_name is None and fn_name is None:
        return _as_tuple_nocheck(inp)
    is_inp_tuple = True
    if not isinstance(inp, tuple):
        inp = (inp,)
        is_inp_tuple = False
    for i, el in enumerate(inp):
        if not isinstance(el, Tensor):
            if is_inp_tuple:
                raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                                f"but the value at index {i} has type {type(el)}.")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"the given {arg_name} has type {type(el)}.")
    return is_inp_tuple, inp


def _tuple_postprocess(res, to_unpack):
    """Undo ``_as_tuple``: unwrap the tuples the user did not pass (one flag, or (outputs, inputs))."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    """Fresh Tensor objects for the inputs (so that we differentiate w.r.t. these exactly)."""
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))      # differentiable shallow copy: gradients reach the original
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs, create_graph):
    if isinstance(inputs[0], Tensor):
        if not create_graph:
            return tuple(inp.detach() for inp in inputs)
        return inputs
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


def _check_requires_grad(inputs, input_type, strict):
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is not "
                               f"allowed in strict mode.")
        if not inp.requires_grad:
            if input_type == "hessian":
                raise RuntimeError(f"The hessian of the user-provided function with respect to input {i} is "
                                   f"independent of the input. This is not allowed in strict mode. You should ensure "
                                   f"that your function is thrice differentiable and that the hessian depends on the "
                                   f"inputs.")
            if input_type == "jacobian":
                raise RuntimeError(f"While computing the hessian, found that the jacobian of the user-provided "
                                   f"function with respect to input {i} is independent of the input. This is not "
                                   f"allowed in strict mode. You should ensure that your function is twice "
                                   f"differentiable and that the jacobian depends on the inputs (this would be "
                                   f"violated by a linear function for example).")
            if input_type == "grad_inputs":
                raise RuntimeError(f"The gradient with respect to input {i} is independent of the inputs of the "
                                   f"user-provided function. This is not allowed in strict mode.")
            raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs "
                               f"must be computed in a differentiable manner from the input when running in strict "
                               f"mode.")


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` that skips outputs needing no gradient (and returns None for unused inputs)."""
    from . import grad
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_outputs, new_grad_outputs = (), ()
    for out, g in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            new_outputs += (out,)
            new_grad_outputs += (g,)
    if not new_outputs:
        return (None,) * len(inputs)
    return grad(new_outputs, inputs, new_grad_outputs, allow_unused=True, create_graph=create_graph,
                retain_graph=retain_graph)


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Missing gradients are zeros (or, with ``strict``, an error naming what did not depend on what)."""
    res = ()
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                if stage == "back":
                    raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This "
                                       f"is not allowed in strict mode.")
                if stage == "back_trick":
                    raise RuntimeError(f"The gradient with respect to the input is independent of entry {i} in the "
                                       f"grad_outputs when using the double backward trick to compute forward mode "
                                       f"gradients. This is not allowed in strict mode.")
                if stage == "double_back":
                    raise RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. "
                                       f"This is not allowed in strict mode.")
                raise RuntimeError(f"The hessian of the user-provided function is independent of entry {i} in the "
                                   f"grad_jacobian. This is not allowed in strict mode as it prevents from using the "
                                   f"double backward trick to replace forward mode AD.")
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            if "double" not in stage:
                raise RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. This is "
                                   f"not allowed in strict mode when create_graph=True.")
            raise RuntimeError(f"The hessian of the user-provided function is independent of input {i}. This is not "
                               f"allowed in strict mode when create_graph=True.")
        res += (g,)
    return res


# ---------------------------------------------------------------------- vjp, jvp

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): one backward pass seeded with ``v``."""
    from .grad_mode import enable_grad, set_grad_enabled, is_grad_enabled
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single Tensor "
                               "with a single element.")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v) by the double-vjp trick.

    ``g(u) = u^T J`` (a vjp) is linear in ``u``; its vjp with ``v`` is ``(J v)^T``.
    So: seed the first backward with a dummy ``u`` that requires grad, keep its
    graph, and differentiate the result w.r.t. ``u``.
    """
    from .grad_mode import enable_grad
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                               "Tensor with a single element.")
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        # the value of u does not matter (the backward is linear in it); zeros contain no inf/nan
        grad_outputs = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    if create_graph:
        with enable_grad():
            grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
            result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    else:
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_outputs_tuple)


# ---------------------------------------------------------------------- jacobian, hessian

def _one_hot(out, j):
    """grad_output selecting element j of ``out`` (the row of the Jacobian for that element)."""
    seed = namespace(out._data).zeros(out._data.shape, dtype=out._data.dtype)
    seed.reshape(-1)[j] = 1
    return Tensor._make(seed)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: out.shape + in.shape per (output, input) pair.

    One backward pass per output element (``vectorize=True`` computes the same
    thing the same way here: there is no vmap).
    """
    from .grad_mode import enable_grad
    # deliberate upward import (autograd -> ops): the rows of the Jacobian are stacked by the op, so that
    # with create_graph the result stays differentiable
    from ..ops.join import stack
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and '
                                      '`strategy="forward-mode"` are not supported together (yet). Please either set '
                                      '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
                               'not supported together (yet). Please either set `strict=False` or '
                               '`strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")
        # no forward-mode AD here: the reverse-mode Jacobian is the same matrix
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        jac = ()
        for i, out in enumerate(outputs):
            jac_i = tuple([] for _ in inputs)
            for j in range(out.nelement()):
                vj = _autograd_grad((out,), inputs, (_one_hot(out, j),), retain_graph=True,
                                    create_graph=create_graph)
                for el_idx, (jac_i_el, vj_el, inp_el) in enumerate(zip(jac_i, vj, inputs)):
                    if vj_el is not None:
                        if strict and create_graph and not vj_el.requires_grad:
                            raise RuntimeError(f"The jacobian of the user-provided function is independent of input "
                                               f"{i}. This is not allowed in strict mode when create_graph=True.")
                        jac_i_el.append(vj_el)
                    else:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of input "
                                               f"{el_idx}. This is not allowed in strict mode.")
                        jac_i_el.append(zeros_like(inp_el))
            jac += (tuple(_stack_rows(jac_i_el, out, inputs[el_idx], stack)
                          for el_idx, jac_i_el in enumerate(jac_i)),)
        jac = _grad_postprocess(jac, create_graph)
        return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def _stack_rows(rows, out, inp, stack):
    shape = tuple(out.shape) + tuple(inp.shape)
    if not rows:   # an output with no elements
        return Tensor._make(namespace(inp._data).zeros(shape, dtype=inp._data.dtype))
    return stack(rows, dim=0).view(shape)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: the Jacobian of its gradient (tuple of tuples for tuple inputs)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


# ---------------------------------------------------------------------- vhp, hvp

def _scalar_function_outputs(func, inputs, v, create_graph, strict, fn_name):
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                           "Tensor with a single element.")
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H): the backward of the gradient, seeded with ``v``."""
    from .grad_mode import enable_grad, set_grad_enabled, is_grad_enabled
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs = _scalar_function_outputs(
            func, inputs, v, create_graph, strict, "vhp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v): ``v^T H`` differentiated w.r.t. a dummy seed (the double-vjp trick again)."""
    from .grad_mode import enable_grad, set_grad_enabled, is_grad_enabled
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs = _scalar_function_outputs(
            func, inputs, v, create_graph, strict, "hvp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        grad_jac = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def batched_vjps(roots, seeds, retain_graph, create_graph, inputs):
    """``grad(..., is_grads_batched=True)``: one backward pass per row ``b`` of the seeds (every seed's
    first dimension is the batch), each input's gradients stacked along a new first dimension -- one row
    of a Jacobian per pass when the seeds are the rows of an identity.  PyTorch vmaps a single pass over the
    batch; the loop gives the same numbers."""
    sizes = []
    for s in seeds:
        if s.dim() == 0:
            raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but that input is "
                             "a Tensor of dimensionality 0 so expected in_dim to satisfy 0 <= in_dim < 0.")
        sizes.append(s.shape[0])
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    n = sizes[0]
    rows = []
    for b in range(n):
        # every pass but the last needs the graph again; the last frees it unless asked to retain it
        keep = retain_graph or b < n - 1
        rows.append(run_backward(roots, [s[b] for s in seeds], keep, create_graph, inputs=inputs, accumulate=False))
    from ..ops.join import stack   # (lazy, as for jacobian: the rows are joined by the differentiable stack op)
    return [None if column[0] is None else stack(column) for column in zip(*rows)]
