"""Deterministic sweeps (no randomness beyond fixed seeds): every case is a one-step program.

- ``grad_cases``: every differentiable float op x shapes {0-d, [1], [3], [2, 3]}, float64
  inputs that require grad: values, first- and second-order gradients.
- ``dtype_cases``: every op x every dtype: the output dtype and values, or the same error.
- ``result_type_cases``: every pair of operands among {tensor, 0-dim tensor} x dtypes and
  Python int/float/bool, for ``torch.result_type`` and the arithmetic/comparison ops.
- ``bad_input_cases``: wrong shapes, wrong dtypes, out-of-range dims ...: the same error class.

Each generator yields (name, Program); ``run(cases)`` yields (name, Mismatch) for the
cases that differ.
"""
import warnings
import zlib

import numpy as np

from .compare import check
from .gen import Gen, make_data
from .ops import OPS
from .program import DTYPES, FLOATS, Code, Input, Program, Step

SHAPES = [(), (1,), (3,), (2, 3)]


def _seed(*parts):
    return zlib.crc32(repr(parts).encode())


def one_step(name, x_shape, x_dtype, seed, requires_grad, tries=6, fresh_dtype=None):
    """A one-step program of op ``name`` on a first input of ``x_shape``/``x_dtype`` whose
    parameters PyTorch accepts (several parameter draws are tried), or None."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return _one_step(name, x_shape, x_dtype, seed, requires_grad, tries, fresh_dtype)


def _one_step(name, x_shape, x_dtype, seed, requires_grad, tries, fresh_dtype):
    op = OPS[name]
    last = None
    for attempt in range(tries):
        g = Gen(np.random.default_rng(seed + attempt))
        g.force_dtype = fresh_dtype
        g.force_grad = requires_grad
        x = g.fresh(x_shape, x_dtype, requires_grad=requires_grad and x_dtype in FLOATS, layout="contiguous")
        try:
            operands, params = op.make(g, x)
        except Exception:  # noqa: BLE001 - the op cannot take this operand
            continue
        forms = op.forms_for(len(operands))
        prog = Program(seed, g.inputs, [Step(name, operands, params, forms[attempt % len(forms)])])
        last = prog
        try:
            from .execute import run_line
            for line in prog.step_line(0).split("\n"):
                run_line(line, g.ns)
            return prog
        except Exception:  # noqa: BLE001 - PyTorch refuses these parameters: draw again
            continue
    return last


def grad_cases():
    for name, op in sorted(OPS.items()):
        if not op.grad or op.kinds not in ("float", "num", "any") or op.inplace or op.weight == 0:
            continue
        for shape in SHAPES:
            if not op.min_dim <= len(shape) <= op.max_dim:
                continue
            prog = one_step(name, shape, "float64", _seed(name, shape), requires_grad=True)
            if prog is not None:
                yield f"grad:{name}:{list(shape)}", prog


def dtype_cases():
    for name, op in sorted(OPS.items()):
        if op.weight == 0:
            continue
        nd = max(op.min_dim, min(2, op.max_dim))
        shape = [(), (3,), (2, 3), (2, 3, 2)][nd] if nd < 4 else (2,) * nd
        for dtype in DTYPES:
            prog = one_step(name, shape, dtype, _seed(name, dtype), requires_grad=False, fresh_dtype=dtype)
            if prog is not None:
                yield f"dtype:{name}:{dtype}", prog


SCALARS = {"int": 2, "float": 2.5, "bool": True, "negint": -3}
RT_OPS = {"result_type": 0, "add": 2, "sub": 2, "mul": 2, "div": 2, "floor_divide": 2, "remainder": 2,
          "pow": 2, "eq": 1, "lt": 1, "maximum": 0, "where": 0}


def _operand(kind, dtype, inputs, rng):
    """A tensor ([2] or 0-dim) input of ``dtype``, or a Python scalar."""
    if kind == "scalar":
        return SCALARS[dtype]
    shape = (2,) if kind == "tensor" else ()
    inputs.append(Input(make_data(rng, shape, dtype), dtype))
    return f"x{len(inputs) - 1}"


def result_type_cases():
    kinds = [("tensor", d) for d in DTYPES] + [("zerodim", d) for d in DTYPES] + \
            [("scalar", s) for s in SCALARS]
    for op_name, form in RT_OPS.items():
        for ka, da in kinds:
            for kb, db in kinds:
                if ka == "scalar" and (kb == "scalar" or op_name in ("maximum", "where")):
                    continue
                if kb == "scalar" and op_name in ("maximum",):
                    continue
                rng = np.random.default_rng(_seed(op_name, ka, da, kb, db))
                inputs = []
                a = _operand(ka, da, inputs, rng)
                b = _operand(kb, db, inputs, rng)
                if op_name == "where":
                    inputs.append(Input(np.array([True, False]), "bool"))
                    operands = [a, b, f"x{len(inputs) - 1}"]
                else:
                    operands = [a, b]
                prog = Program(0, inputs, [Step(op_name, operands, {}, form)])
                yield f"types:{op_name}:{ka}-{da}:{kb}-{db}", prog


# Hand-written bad inputs: (name, input shapes/dtypes, source of the failing line).
BAD = [
    ("add_shapes", [((2, 3), "float32"), ((4,), "float32")], "x0 + x1"),
    ("mul_shapes", [((2, 3), "float32"), ((3, 2), "float32")], "torch.mul(x0, x1)"),
    ("matmul_inner", [((2, 3), "float32"), ((4, 2), "float32")], "x0 @ x1"),
    ("matmul_0d", [((), "float32"), ((3,), "float32")], "torch.matmul(x0, x1)"),
    ("mm_1d", [((3,), "float32"), ((3, 2), "float32")], "torch.mm(x0, x1)"),
    ("mm_dtypes", [((2, 3), "float32"), ((3, 2), "float64")], "torch.mm(x0, x1)"),
    ("bmm_batch", [((2, 2, 3), "float32"), ((3, 3, 2), "float32")], "torch.bmm(x0, x1)"),
    ("dot_lengths", [((3,), "float32"), ((4,), "float32")], "torch.dot(x0, x1)"),
    ("dot_dtypes", [((3,), "float32"), ((3,), "float64")], "torch.dot(x0, x1)"),
    ("mv_shapes", [((2, 3), "float32"), ((2,), "float32")], "torch.mv(x0, x1)"),
    ("linear_in", [((2, 3), "float32"), ((4, 2), "float32")], "F.linear(x0, x1)"),
    ("sum_dim", [((2, 3), "float32")], "x0.sum(2)"),
    ("sum_dim_neg", [((2, 3), "float32")], "x0.sum(-3)"),
    ("sum_dim_repeat", [((2, 3), "float32")], "x0.sum((0, 0))"),
    ("mean_int", [((2, 3), "int64")], "x0.mean()"),
    ("std_int", [((2, 3), "int64")], "x0.std()"),
    ("softmax_dim", [((2, 3), "float32")], "F.softmax(x0, dim=2)"),
    ("softmax_int", [((2, 3), "int64")], "F.softmax(x0, dim=1)"),
    ("argmax_dim", [((2, 3), "float32")], "x0.argmax(dim=5)"),
    ("max_dim", [((2, 3), "float32")], "x0.max(dim=-3)"),
    ("max_empty", [((0,), "float32")], "x0.max()"),
    ("amax_empty_dim", [((0, 3), "float32")], "x0.amax(0)"),
    ("argmax_empty", [((0,), "float32")], "x0.argmax()"),
    ("prod_dim_tuple", [((2, 3), "float32")], "x0.prod((0, 1))"),
    ("cumsum_dim", [((2, 3), "float32")], "x0.cumsum(2)"),
    ("cumsum_nodim", [((2, 3), "float32")], "torch.cumsum(x0)"),
    ("view_numel", [((2, 3), "float32")], "x0.view(4, 2)"),
    ("view_two_minus1", [((2, 3), "float32")], "x0.view(-1, -1)"),
    ("view_noncontig", [((2, 3), "float32")], "x0.t().view(6)"),
    ("reshape_numel", [((2, 3), "float32")], "x0.reshape(5)"),
    ("expand_bad", [((2, 3), "float32")], "x0.expand(2, 4)"),
    ("expand_fewer", [((2, 3), "float32")], "x0.expand(3)"),
    ("permute_len", [((2, 3), "float32")], "x0.permute(0)"),
    ("permute_repeat", [((2, 3), "float32")], "x0.permute(0, 0)"),
    ("transpose_dim", [((2, 3), "float32")], "x0.transpose(0, 2)"),
    ("t_3d", [((2, 3, 4), "float32")], "x0.t()"),
    ("squeeze_dim", [((2, 3), "float32")], "x0.squeeze(2)"),
    ("unsqueeze_dim", [((2, 3), "float32")], "x0.unsqueeze(4)"),
    ("narrow_len", [((2, 3), "float32")], "x0.narrow(1, 2, 2)"),
    ("select_index", [((2, 3), "float32")], "x0.select(1, 3)"),
    ("select_0d", [((), "float32")], "x0.select(0, 0)"),
    ("getitem_int", [((2, 3), "float32")], "x0[2]"),
    ("getitem_neg", [((2, 3), "float32")], "x0[-3]"),
    ("getitem_too_many", [((2, 3), "float32")], "x0[0, 0, 0]"),
    ("getitem_tensor_oob", [((2, 3), "float32")], "x0[torch.tensor([0, 5])]"),
    ("getitem_float_index", [((2, 3), "float32")], "x0[torch.tensor([0.0])]"),
    ("getitem_mask_shape", [((2, 3), "float32")], "x0[torch.tensor([True, False, True])]"),
    ("getitem_two_ellipsis", [((2, 3), "float32")], "x0[..., ...]"),
    ("getitem_step0", [((2, 3), "float32")], "x0[::0]"),
    ("getitem_negstep", [((2, 3), "float32")], "x0[::-1]"),
    ("setitem_shape", [((2, 3), "float32"), ((4,), "float32")], "x0[0] = x1"),
    ("setitem_list", [((2, 3), "float32")], "x0[0] = [1.0, 2.0, 3.0]"),
    ("cat_ndim", [((2, 3), "float32"), ((3,), "float32")], "torch.cat([x0, x1])"),
    ("cat_shapes", [((2, 3), "float32"), ((2, 4), "float32")], "torch.cat([x0, x1], 0)"),
    ("cat_dim", [((2, 3), "float32"), ((2, 3), "float32")], "torch.cat([x0, x1], 2)"),
    ("cat_empty_list", [], "torch.cat([])"),
    ("cat_0d", [((), "float32"), ((), "float32")], "torch.cat([x0, x1])"),
    ("stack_shapes", [((2, 3), "float32"), ((3, 2), "float32")], "torch.stack([x0, x1])"),
    ("split_zero", [((2, 3), "float32")], "x0.split(0)"),
    ("chunk_zero", [((2, 3), "float32")], "x0.chunk(0)"),
    ("gather_ndim", [((2, 3), "float32")], "torch.gather(x0, 1, torch.tensor([0, 1]))"),
    ("gather_oob", [((2, 3), "float32")], "torch.gather(x0, 1, torch.tensor([[0], [3]]))"),
    ("gather_float_index", [((2, 3), "float32")], "torch.gather(x0, 1, torch.tensor([[0.0], [1.0]]))"),
    ("index_select_2d", [((2, 3), "float32")], "x0.index_select(0, torch.tensor([[0]]))"),
    ("index_select_oob", [((2, 3), "float32")], "x0.index_select(1, torch.tensor([3]))"),
    ("masked_fill_float_mask", [((2, 3), "float32")], "x0.masked_fill(x0, 0.0)"),
    ("masked_fill_tensor_value", [((2, 3), "float32"), ((2,), "float32")], "x0.masked_fill(x0 > 0, x1)"),
    ("where_cond_float", [((2, 3), "float32")], "torch.where(x0, x0, x0)"),
    ("clamp_none", [((2, 3), "float32")], "torch.clamp(x0)"),
    ("bitwise_float", [((2, 3), "float32")], "x0 & x0"),
    ("bitwise_not_float", [((2, 3), "float32")], "~x0"),
    ("neg_bool", [((2, 3), "bool")], "-x0"),
    ("sub_bool", [((2, 3), "bool")], "x0 - x0"),
    ("lshift_float", [((2, 3), "float32")], "x0 << 1"),
    ("int_pow_negative", [((2, 3), "int64")], "x0 ** -1"),
    ("int_div_zero", [((2, 3), "int64")], "x0 // 0"),
    ("int_rem_zero", [((2, 3), "int64")], "x0 % 0"),
    ("add_alpha_bool", [((2, 3), "int64")], "torch.add(x0, x0, alpha=0.5)"),
    ("inplace_broadcast", [((3,), "float32"), ((2, 3), "float32")], "x0.add_(x1)"),
    ("inplace_int_float", [((2, 3), "int64"), ((2, 3), "float32")], "x0.add_(x1)"),
    ("inplace_leaf", [((2, 3), "float32", True)], "x0.mul_(2)"),
    ("inplace_expanded", [((1, 3), "float32")], "x0.expand(2, 3).add_(1)"),
    ("requires_grad_int", [((2, 3), "int64")], "x0.requires_grad_()"),
    ("backward_nonscalar", [((2, 3), "float32", True)], "(x0 * 2).backward()"),
    ("backward_no_grad", [((2, 3), "float32")], "x0.sum().backward()"),
    ("grad_twice", [((2, 3), "float32", True)], "(lambda y: (y.backward(), y.backward()))((x0.exp()).sum())"),
    ("item_many", [((2, 3), "float32")], "x0.item()"),
    ("bool_many", [((2, 3), "float32")], "bool(x0)"),
    ("int_many", [((2,), "float32")], "int(x0)"),
    ("numpy_grad", [((2, 3), "float32", True)], "x0.numpy()"),
    ("len_0d", [((), "float32")], "len(x0)"),
    ("iter_0d", [((), "float32")], "list(x0)"),
    ("cross_entropy_float_target", [((2, 3), "float32")], "F.cross_entropy(x0, torch.tensor([0.0, 1.0]))"),
    ("cross_entropy_oob", [((2, 3), "float32")], "F.cross_entropy(x0, torch.tensor([0, 3]))"),
    ("cross_entropy_batch", [((2, 3), "float32")], "F.cross_entropy(x0, torch.tensor([0, 1, 2]))"),
    ("nll_loss_3d_target", [((2, 3), "float32")], "F.nll_loss(x0, torch.tensor([[0, 1]]))"),
    ("mse_shapes", [((2, 3), "float32"), ((4,), "float32")], "F.mse_loss(x0, x1)"),
    ("bce_range", [((2, 3), "float32")], "F.binary_cross_entropy(x0 * 3, torch.ones(2, 3))"),
    ("layer_norm_shape", [((2, 3), "float32")], "F.layer_norm(x0, (2,))"),
    ("layer_norm_weight", [((2, 3), "float32"), ((2,), "float32")], "F.layer_norm(x0, (3,), x1)"),
    ("conv2d_channels", [((1, 2, 4, 4), "float32"), ((1, 3, 2, 2), "float32")], "F.conv2d(x0, x1)"),
    ("conv2d_3d_input", [((2, 4), "float32"), ((1, 1, 2, 2), "float32")], "F.conv2d(x0, x1)"),
    ("conv1d_kernel_big", [((1, 1, 2), "float32"), ((1, 1, 3), "float32")], "F.conv1d(x0, x1)"),
    ("max_pool_big", [((1, 1, 2), "float32")], "F.max_pool1d(x0, 3)"),
    ("embedding_float_idx", [((4, 2), "float32")], "F.embedding(torch.tensor([0.0]), x0)"),
    ("embedding_oob", [((4, 2), "float32")], "F.embedding(torch.tensor([4]), x0)"),
    ("one_hot_float", [((3,), "float32")], "F.one_hot(x0)"),
    ("one_hot_negative", [], "F.one_hot(torch.tensor([-1, 0]))"),
    ("softmax_nodim", [((2, 3), "float32")], "F.softmax(x0)"),
    ("dropout_p", [((2, 3), "float32")], "F.dropout(x0, p=1.5)"),
    ("tensor_ragged", [], "torch.tensor([[1, 2], [3]])"),
    ("tensor_str", [], "torch.tensor('abc')"),
    ("zeros_negative", [], "torch.zeros(-1)"),
    ("arange_step0", [], "torch.arange(0, 3, 0)"),
    ("arange_wrong_sign", [], "torch.arange(0, 3, -1)"),
    ("full_bad_dtype", [], "torch.full((2,), 1.5, dtype=torch.int64) + torch.full((2,), True)"),
    ("to_bad", [((2, 3), "float32")], "x0.to('float99')"),
    ("topk_k", [((3,), "float32")], "x0.topk(4)"),
    ("kthvalue_k", [((3,), "float32")], "x0.kthvalue(0)"),
    ("sort_dim", [((3,), "float32")], "x0.sort(dim=1)"),
    ("flip_dim", [((2, 3), "float32")], "x0.flip(2)"),
    ("roll_dims", [((2, 3), "float32")], "x0.roll((1, 2), (0,))"),
    ("repeat_fewer", [((2, 3), "float32")], "x0.repeat(2)"),
    ("tril_1d", [((3,), "float32")], "x0.tril()"),
    ("diagonal_same", [((2, 3), "float32")], "x0.diagonal(0, 0, 0)"),
    ("trace_1d", [((3,), "float32")], "torch.trace(x0)"),
    ("einsum_bad", [((2, 3), "float32")], "torch.einsum('ij,jk->ik', x0)"),
    ("einsum_shapes", [((2, 3), "float32"), ((2, 3), "float32")], "torch.einsum('ij,jk->ik', x0, x1)"),
    ("unfold_size", [((3,), "float32")], "x0.unfold(0, 4, 1)"),
    ("flatten_dims", [((2, 3), "float32")], "x0.flatten(1, 0)"),
    ("movedim_repeat", [((2, 3), "float32")], "torch.movedim(x0, (0, 0), (0, 1))"),
    ("std_correction", [((1,), "float32")], "x0.std(correction=-1)"),
    ("norm_p_str", [((2, 3), "float32")], "x0.norm(p='fro', dim=(0, 1, 2))"),
    ("vector_norm_int", [((2, 3), "int64")], "torch.linalg.vector_norm(x0)"),
    ("logsumexp_nodim", [((2, 3), "float32")], "torch.logsumexp(x0)"),
    ("type_bad", [((2, 3), "float32")], "x0 + 'a'"),
    ("add_none", [((2, 3), "float32")], "x0 + None"),
    ("mul_list", [((2, 3), "float32")], "torch.mul(x0, [1, 2, 3])"),
    ("cmp_shapes", [((2, 3), "float32"), ((2,), "float32")], "x0 < x1"),
    ("lerp_dtypes", [((2,), "float32"), ((2,), "float64")], "torch.lerp(x0, x1, 0.5)"),
    ("addmm_shapes", [((2, 2), "float32"), ((2, 3), "float32"), ((2, 2), "float32")], "torch.addmm(x0, x1, x2)"),
    ("scatter_src_small", [((2, 3), "float32"), ((1, 1), "float32")],
     "torch.scatter(x0, 1, torch.tensor([[0, 1]]), x1)"),
    ("index_add_dtype", [((2, 3), "float32"), ((1, 3), "float64")], "x0.index_add(0, torch.tensor([0]), x1)"),
    ("masked_select_shapes", [((2, 3), "float32")], "torch.masked_select(x0, torch.tensor([True, False]))"),
]


def bad_input_cases():
    rng = np.random.default_rng(0)
    for name, specs, src in BAD:
        inputs = []
        for spec in specs:
            shape, dtype = spec[0], spec[1]
            rg = len(spec) > 2 and spec[2]
            inputs.append(Input(make_data(rng, shape, dtype), dtype, requires_grad=rg))
        yield f"bad:{name}", Program(0, inputs, [Step("code", [], {"src": Code(src), "label": f"bad:{name}"})])
    # every op with a dim parameter, given an out-of-range dim
    for name, op in sorted(OPS.items()):
        if op.weight == 0:
            continue
        shape = (2, 3) if op.min_dim <= 2 <= op.max_dim else (2, 3, 2)[:max(op.min_dim, 1)]
        prog = one_step(name, shape, "float32", _seed("bad", name), requires_grad=False)
        if prog is None:
            continue
        step = prog.steps[0]
        for key in ("dim", "d", "a", "dim1"):
            if isinstance(step.params.get(key), int) and not isinstance(step.params.get(key), bool):
                for bad in (len(shape), -len(shape) - 1):
                    params = dict(step.params, **{key: bad})
                    yield f"bad:{name}:{key}={bad}", Program(0, prog.inputs, [Step(name, step.operands, params,
                                                                                    step.form)])


SWEEPS = {"grad": grad_cases, "dtype": dtype_cases, "types": result_type_cases, "bad": bad_input_cases}


def run(cases):
    """(case name, Mismatch) for every case that differs."""
    for name, prog in cases:
        m = check(prog)
        if m is not None:
            yield name, m


def all_sweeps():
    """(Program, Mismatch) for every mismatching case of every sweep."""
    for sweep in SWEEPS.values():
        for name, prog in sweep():
            m = check(prog)
            if m is not None:
                yield prog, m
