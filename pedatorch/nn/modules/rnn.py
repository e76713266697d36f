"""Recurrent layers: ``RNN`` (tanh / relu), ``LSTM`` (optionally with projections), ``GRU``, and their cells.

Every layer and direction runs the same recurrence over time steps t (h_{-1} = h0, c_{-1} = c0):

    RNN    h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)          (or relu)
    LSTM   i, f, g, o = chunk(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh, 4)
           i, f, o = sigmoid(i, f, o);  g = tanh(g)
           c_t = f * c_{t-1} + i * g;   h_t = o * tanh(c_t)              (proj_size: h_t = (o * tanh(c_t)) W_hr^T)
    GRU    r, z, n gates:  gi = x_t W_ih^T + b_ih,  gh = h_{t-1} W_hh^T + b_hh  (each chunked in 3)
           r = sigmoid(gi_r + gh_r);  z = sigmoid(gi_z + gh_z);  n = tanh(gi_n + r * gh_n)
           h_t = (1 - z) * n + z * h_{t-1}

How it is computed (PyTorch's CPU algorithm, ``ATen/native/RNN.cpp``, in numpy):

- each layer and direction is ONE graph node, ``_RNNLayer``: its forward makes the input projection
  ``x W_ih^T + b_ih`` of all time steps as one matmul, then loops over the time steps with one
  hidden-to-hidden matmul per step (an LSTM takes one tanh of all four gates per step:
  sigmoid(x) = 0.5 + 0.5 tanh(x / 2));
- its backward is backpropagation through time written out by hand: one matmul per step again, and the
  weight gradients as one matmul over all steps.  When the backward is itself recorded
  (``create_graph=True``) it recomputes the recurrence with Tensor ops and differentiates that, so
  higher-order gradients are exact too;
- a reverse direction runs the same loop from the last step to the first;
- stacked layers feed the (concatenated) outputs of layer l to layer l + 1, through dropout in training
  (``F.dropout``, so the same seed gives PyTorch's masks);
- a ``PackedSequence`` is processed step by step on the first ``batch_sizes[t]`` rows of the state only:
  a row leaves the state (forward direction) or joins it from ``h0`` (reverse direction) when its
  sequence ends; the final state of each sequence is taken at its last valid step.

The graph seen from outside is PyTorch's: ``h_n`` is a ``StackBackward0``; ``output`` is a
``StackBackward0`` (``MkldnnRnnLayerBackward0`` for float32 LSTMs, ``CatBackward0`` when bidirectional or
packed); those names are given to the fused layer node that plays the part of PyTorch's last op.
"""
import functools
import math
import numbers
import threading
import warnings
import weakref

import numpy as np

from ..._warnings import user_stacklevel
from ..._tensor import Tensor
from ...backend import namespace, to_host, CPU_BACKEND
from ... import _dtype as D
from ..._dtype import _type_word
from ...autograd.function import ArrayFunction
from ...autograd.grad_mode import _state
from ...ops.creation import empty, zeros
from ...ops.join import cat, stack
from ...ops.linalg import addmm
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .. import init
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def _apply_permutation(tensor, permutation, dim=1):
    return tensor.index_select(dim, permutation)


def apply_permutation(tensor, permutation, dim=1):
    warnings.warn("`apply_permutation` is deprecated, please use `tensor.index_select(dim, permutation)` "
                  "instead", FutureWarning, stacklevel=user_stacklevel())
    return _apply_permutation(tensor, permutation, dim)


# ====================================================================== the fused recurrence

def _sigmoid(x, out):
    """out <- 1 / (1 + exp(-x))  (``out`` may be ``x``)."""
    xp = namespace(x)
    xp.negative(x, out=out)
    xp.exp(out, out=out)
    out += 1
    xp.reciprocal(out, out=out)
    return out


_pool = threading.local()


def _scratch(xp, name, shape, dtype):
    """A reusable work array for one backward call (it never leaves it).  Fresh large arrays cost a page
    fault per 4 KiB page on first touch; reusing them keeps the time loop's cost in the arithmetic."""
    d = getattr(_pool, "arrays", None)
    if d is None:
        d = _pool.arrays = {}
    key = (name, shape, dtype, xp)
    a = d.get(key)
    if a is None:
        a = xp.empty(shape, dtype)
        if len(d) >= 48 or sum(v.nbytes for v in d.values()) + a.nbytes > _SCRATCH_BYTES:
            d.clear()
        if a.nbytes <= _SCRATCH_BYTES:
            d[key] = a
    return a


_SCRATCH_BYTES = 1 << 26    # keep at most 64 MiB of work arrays per thread


def _processing_order(steps, reverse):
    return steps[::-1] if reverse else steps


@functools.lru_cache(maxsize=128)
def _prev_index(steps, reverse, N, B):
    """Row r of a step started from state row j: the index of that state in ``concat([Y, init])``, Y holding
    every step's new state (the previous step's row j, or init's row j for a sequence that starts)."""
    host = CPU_BACKEND.xp        # (host indices, cached; _prev_rows moves them to the device)
    idx = host.empty(N, np.intp)
    nb = 0 if reverse else B
    prev = None
    for start, n in _processing_order(steps, reverse):
        m = min(n, nb)
        idx[start:start + m] = (N if prev is None else prev) + host.arange(m)
        if n > m:
            idx[start + m:start + n] = N + host.arange(m, n)
        prev, nb = start, n
    return idx


def _prev_rows(Y, init, steps, reverse, name):
    """The state each row of Y was computed from (h_{t-1} for h_t): Y shifted by one step, init where a
    sequence starts."""
    N, B = Y.shape[0], init.shape[0]
    xp = namespace(Y)
    buf = _scratch(xp, name, Y.shape, Y.dtype)
    if all(n == B for _, n in steps):    # padded: a shift by one step
        return xp.concatenate([Y[B:], init] if reverse else [init, Y[:N - B]], out=buf)
    both = xp.concatenate([Y, init], out=_scratch(xp, name + "+", (N + B,) + Y.shape[1:], Y.dtype))
    return xp.take(both, xp.asarray(_prev_index(steps, reverse, N, B)), axis=0, out=buf)


def _lstm_scales(xp, H, dt):
    """sigmoid(x) = 0.5 + 0.5 tanh(x / 2): the gates i, f, o are scaled by 0.5 (exactly: a power of two)
    so that one tanh of all four gates gives every activation."""
    s = xp.full(4 * H, 0.5, dt)
    s[2 * H:3 * H] = 1
    shift = xp.full(4 * H, 0.5, dt)
    shift[2 * H:3 * H] = 0
    return s, shift


def _layer_forward(mode, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, steps, reverse, keep):
    """The recurrence on arrays.  ``x``: (N, I) layer inputs, rows grouped by step: ``steps[t] = (start, n)``
    is step t's block of rows.  Returns out (N, Hh), h_n, c_n and what backward needs (``keep``)."""
    N, dt = x.shape[0], x.dtype
    xp = namespace(x)
    Hh = w_hh.shape[1]                          # the size of h (proj_size or hidden_size)
    H = c0.shape[1] if mode == "LSTM" else Hh   # hidden_size
    G = w_hh.shape[0]
    out = xp.empty((N, Hh), dt)
    hn = xp.empty_like(h0)
    cn = xp.empty_like(c0) if mode == "LSTM" else None
    cache = {"out": out}
    if mode == "LSTM":
        s, shift = _lstm_scales(xp, H, dt)
        # T: the gate pre-activations (i, f, o halved), then their tanh, one row block per step
        T_all = xp.matmul(x, (w_ih * s[:, None]).T)
        if b_ih is not None:
            T_all += (b_ih + b_hh) * s
        whT = xp.ascontiguousarray((w_hh * s[:, None]).T)
        whrT = xp.ascontiguousarray(w_hr.T) if w_hr is not None else None
        if keep:
            cache["T"] = T_all
            cache["c"] = c_all = xp.empty((N, H), dt)       # c_t
    elif mode == "GRU":
        # the input projections, overwritten step by step with the gates r, z, n
        acts = xp.matmul(x, w_ih.T)
        if b_ih is not None:
            acts += b_ih
        whT = xp.ascontiguousarray(w_hh.T)
        gh_all = xp.empty((N, G), dt) if keep else None     # h_{t-1} W_hh^T + b_hh
        cache["acts"], cache["gh"] = acts, gh_all
    else:
        xp.matmul(x, w_ih.T, out=out)                       # the pre-activations, then h_t, in place
        if b_ih is not None:
            out += b_ih + b_hh
        whT = xp.ascontiguousarray(w_hh.T)
    h = h0[:0] if reverse else h0
    c = (c0[:0] if reverse else c0) if mode == "LSTM" else None
    n_prev = h.shape[0]
    with np.errstate(over="ignore"):
        for start, n in _processing_order(steps, reverse):
            if n < n_prev:      # sequences that ended: their final state
                hn[n:n_prev] = h[n:]
                h = h[:n]
                if c is not None:
                    cn[n:n_prev] = c[n:]
                    c = c[:n]
            elif n > n_prev:    # sequences that start (reverse direction): their initial state
                h = xp.concatenate([h, h0[n_prev:n]])
                if c is not None:
                    c = xp.concatenate([c, c0[n_prev:n]])
            n_prev = n
            sl = slice(start, start + n)
            hnew = out[sl]
            if mode == "LSTM":
                Tt = T_all[sl]
                Tt += h @ whT
                xp.tanh(Tt, out=Tt)
                a = Tt * s
                a += shift                                   # i, f, o = sigmoid; g = tanh
                cnew = c_all[sl] if keep else xp.empty((n, H), dt)
                xp.multiply(a[:, H:2 * H], c, out=cnew)
                cnew += a[:, :H] * a[:, 2 * H:3 * H]
                t = xp.tanh(cnew)
                if whrT is not None:
                    xp.matmul(a[:, 3 * H:] * t, whrT, out=hnew)
                else:
                    xp.multiply(a[:, 3 * H:], t, out=hnew)
                c = cnew
            elif mode == "GRU":
                gh = gh_all[sl] if keep else xp.empty((n, G), dt)
                xp.matmul(h, whT, out=gh)
                if b_hh is not None:
                    gh += b_hh
                a = acts[sl]
                rz = a[:, :2 * H]
                rz += gh[:, :2 * H]
                _sigmoid(rz, rz)
                nn = a[:, 2 * H:]
                nn += a[:, :H] * gh[:, 2 * H:]
                xp.tanh(nn, out=nn)
                xp.subtract(h, nn, out=hnew)
                hnew *= a[:, H:2 * H]
                hnew += nn
            else:
                hnew += h @ whT
                if mode == "RNN_TANH":
                    xp.tanh(hnew, out=hnew)
                else:
                    xp.maximum(hnew, 0, out=hnew)
            h = hnew
    hn[:n_prev] = h
    if c is not None:
        cn[:n_prev] = c
    return out, hn, cn, cache


def _layer_backward(mode, cache, gout, ghn, gcn, h0, c0, w_hh, w_hr, steps, reverse):
    """Backpropagation through time on arrays.  Returns the gradients of the gate pre-activations (dx: input
    side, dgh: hidden side; they differ for the GRU's n gate), of h0 and c0, of the projections (dH), and
    the matrices the weight gradients need: h_{t-1} (hp) and o * tanh(c) (M)."""
    out = cache["out"]
    xp = namespace(out)
    N, Hh = out.shape
    G = w_hh.shape[0]
    H = c0.shape[1] if mode == "LSTM" else Hh
    dt = out.dtype
    dx = _scratch(xp, "dx", (N, G), dt)
    dgh = _scratch(xp, "dgh", (N, G), dt) if mode == "GRU" else dx
    dh0 = xp.zeros_like(h0)
    dc0 = xp.zeros_like(c0) if mode == "LSTM" else None
    order = _processing_order(steps, reverse)
    n_init = 0 if reverse else h0.shape[0]
    n_before = [n_init] + [n for _, n in order[:-1]]
    n_last = order[-1][1] if len(order) else n_init
    hp = _prev_rows(out, h0, steps, reverse, "hp")       # h_{t-1} of every row
    dh = ghn[:n_last]
    dc = gcn[:n_last].copy() if mode == "LSTM" else None
    dH = M = None
    with np.errstate(over="ignore"):
        if mode == "LSTM":
            s, shift = _lstm_scales(xp, H, dt)
            T, c_all = cache["T"], cache["c"]
            A = xp.multiply(T, s, out=_scratch(xp, "A", (N, G), dt))
            A += shift                                      # the gate values
            Dv = xp.multiply(T, T, out=_scratch(xp, "D", (N, G), dt))
            xp.subtract(1, Dv, out=Dv)
            Dv *= s * s                                     # tanh' = 1 - tanh^2; sigmoid' = (1 - T^2) / 4
            tc = xp.tanh(c_all, out=_scratch(xp, "tc", (N, H), dt))
            P = _scratch(xp, "P", (N, G), dt)                   # d pre-activation = [dc, dc, dc, dm] * P
            xp.multiply(A[:, 2 * H:3 * H], Dv[:, :H], out=P[:, :H])
            xp.multiply(_prev_rows(c_all, c0, steps, reverse, "cp"), Dv[:, H:2 * H], out=P[:, H:2 * H])
            xp.multiply(A[:, :H], Dv[:, 2 * H:3 * H], out=P[:, 2 * H:3 * H])
            xp.multiply(tc, Dv[:, 3 * H:], out=P[:, 3 * H:])
            O = xp.multiply(tc, tc, out=_scratch(xp, "O", (N, H), dt))
            xp.subtract(1, O, out=O)
            O *= A[:, 3 * H:]                                # dc_t += dm_t * o_t (1 - tanh^2(c_t))
            Fg = A[:, H:2 * H]
            P3, dx3 = P.reshape(N, 4, H), dx.reshape(N, 4, H)
            if w_hr is not None:
                dH = _scratch(xp, "dH", (N, Hh), dt)
                M = xp.multiply(A[:, 3 * H:], tc, out=_scratch(xp, "M", (N, H), dt))   # o * tanh(c), projected
        elif mode == "GRU":
            acts, gh = cache["acts"], cache["gh"]
            r, z, nn = acts[:, :H], acts[:, H:2 * H], acts[:, 2 * H:]
            Dn = xp.subtract(1, z, out=_scratch(xp, "Dn", (N, H), dt))
            Dn *= 1 - nn * nn                               # d h_t / d (pre-activation of n)
            Qr = xp.subtract(1, r, out=_scratch(xp, "Qr", (N, H), dt))
            Qr *= r
            Qr *= gh[:, 2 * H:]                             # ... of r, through n
            Qz = xp.subtract(1, z, out=_scratch(xp, "Qz", (N, H), dt))
            Qz *= z
            Qz *= hp - nn                                   # ... of z
        else:
            deriv = _scratch(xp, "deriv", (N, Hh), dt)
            if mode == "RNN_TANH":
                xp.multiply(out, out, out=deriv)
                xp.subtract(1, deriv, out=deriv)
            else:
                xp.greater(out, 0, out=deriv)
        for k in range(len(order) - 1, -1, -1):
            start, n = order[k]
            sl = slice(start, start + n)
            dh = dh + gout[sl]
            if mode == "LSTM":
                if dH is not None:
                    dH[sl] = dh
                    dm = dh @ w_hr
                else:
                    dm = dh
                dc += dm * O[sl]
                xp.multiply(dc[:, None, :], P3[sl, :3], out=dx3[sl, :3])   # di, df, dg
                xp.multiply(dm, P3[sl, 3], out=dx3[sl, 3])                  # do
                xp.multiply(dc, Fg[sl], out=dc)                              # d c_{t-1}
                dh = dx[sl] @ w_hh
            elif mode == "GRU":
                dxs, dghs = dx[sl], dgh[sl]
                dan = dxs[:, 2 * H:]
                xp.multiply(dh, Dn[sl], out=dan)
                xp.multiply(dan, r[sl], out=dghs[:, 2 * H:])
                xp.multiply(dan, Qr[sl], out=dxs[:, :H])
                xp.multiply(dh, Qz[sl], out=dxs[:, H:2 * H])
                dghs[:, :2 * H] = dxs[:, :2 * H]
                dh = dh * z[sl]
                dh += dghs @ w_hh
            else:
                xp.multiply(dh, deriv[sl], out=dx[sl])
                dh = dx[sl] @ w_hh
            nb = n_before[k]
            if n < nb:      # rows n..nb left the state before this step: their final-state gradient joins
                dh = xp.concatenate([dh, ghn[n:nb]])
                if dc is not None:
                    dc = xp.concatenate([dc, gcn[n:nb]])
            elif n > nb:    # rows nb..n joined from h0 before this step
                dh0[nb:n] = dh[nb:]
                dh = dh[:nb]
                if dc is not None:
                    dc0[nb:n] = dc[nb:]
                    dc = dc[:nb]
    dh0[:n_init] = dh
    if dc is not None:
        dc0[:n_init] = dc
    return dx, dgh, dh0, dc0, dH, hp, M


def _layer_reference(mode, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, steps, reverse):
    """The same recurrence in Tensor ops (differentiable: used when the backward itself is recorded)."""
    x2 = x.reshape(-1, x.shape[-1])
    xproj = x2.matmul(w_ih.t())
    if b_ih is not None:
        xproj = xproj + b_ih
    H = c0.shape[1] if mode == "LSTM" else w_hh.shape[1]
    outs = [None] * len(steps)
    h_parts, c_parts = [], []
    h = h0[:0] if reverse else h0
    c = (c0[:0] if reverse else c0) if mode == "LSTM" else None
    n_prev = h.shape[0]
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    for k in order:
        start, n = steps[k]
        if n < n_prev:
            h_parts.append((n, h[n:]))
            h = h[:n]
            if c is not None:
                c_parts.append((n, c[n:]))
                c = c[:n]
        elif n > n_prev:
            h = cat([h, h0[n_prev:n]])
            if c is not None:
                c = cat([c, c0[n_prev:n]])
        n_prev = n
        xs = xproj[start:start + n]
        gh = h.matmul(w_hh.t())
        if b_hh is not None:
            gh = gh + b_hh
        if mode == "LSTM":
            i, f, g, o = (xs + gh).chunk(4, 1)
            c = f.sigmoid() * c + i.sigmoid() * g.tanh()
            h = o.sigmoid() * c.tanh()
            if w_hr is not None:
                h = h.matmul(w_hr.t())
        elif mode == "GRU":
            r = (xs[:, :H] + gh[:, :H]).sigmoid()
            z = (xs[:, H:2 * H] + gh[:, H:2 * H]).sigmoid()
            nn = (xs[:, 2 * H:] + r * gh[:, 2 * H:]).tanh()
            h = nn + z * (h - nn)
        else:
            h = (xs + gh).tanh() if mode == "RNN_TANH" else (xs + gh).relu()
        outs[k] = h
    h_parts.append((0, h))
    out = cat(outs).reshape(tuple(x.shape[:-1]) + (h.shape[1],))
    hn = cat([p for _, p in sorted(h_parts, key=lambda s: s[0])])
    if c is None:
        return out, hn
    c_parts.append((0, c))
    cn = cat([p for _, p in sorted(c_parts, key=lambda s: s[0])])
    return out, hn, cn


def _wrap(a):
    return None if a is None else Tensor._make(a)


class _RNNLayer(ArrayFunction):
    """One layer and direction of an RNN over all its time steps (see the module docstring).

    forward(x, h0, c0, W_ih, W_hh, b_ih, b_hh, W_hr, mode, steps, reverse) -> output, h_n (, c_n for LSTM)
    x: (T, B, I) or, packed, (N, I); ``steps``: the (start, n) rows of each time step in the flattened x.
    Backward: backpropagation through time (``_layer_backward``) gives the gate gradients dA (N, G); then
    dx = dA W_ih;  dW_ih = dA^T x;  db_ih = sum dA;  dW_hh = dA_h^T h_prev;  db_hh = sum dA_h
    (dA_h = dA but for the GRU's n gate, r * dA_n);  dW_hr = dh^T (o * tanh(c));  dh0, dc0 at the start."""
    node_name = "StackBackward0"

    @staticmethod
    def forward(ctx, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, mode, steps, reverse):
        keep = bool(ctx.needs_input_grad)
        x2 = x.reshape(-1, x.shape[-1])
        out, hn, cn, cache = _layer_forward(mode, x2, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, steps, reverse, keep)
        if keep:
            ctx.save_for_backward(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr)
            ctx.cache, ctx.mode, ctx.steps, ctx.reverse = cache, mode, steps, reverse
        out = out.reshape(x.shape[:-1] + (out.shape[1],))
        return (out, hn, cn) if mode == "LSTM" else (out, hn)

    @staticmethod
    def backward(ctx, gout, ghn, gcn=None):
        inputs = ctx.saved_tensors
        x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr = inputs
        need = ctx.needs_input_grad
        mode, steps, reverse = ctx.mode, ctx.steps, ctx.reverse
        if _state.enabled:      # create_graph: differentiate the recurrence written in Tensor ops
            from ... import autograd
            wanted = [i for i in range(8) if need[i]]
            outs = _layer_reference(mode, *inputs, steps, reverse)
            grads = (gout, ghn, gcn)[:len(outs)]
            got = autograd.grad(outs, [inputs[i] for i in wanted], grads, create_graph=True, allow_unused=True)
            res = [None] * 11
            for i, g in zip(wanted, got):
                res[i] = g if g is not None else inputs[i].new_zeros(inputs[i].shape)
            return tuple(res)
        xd = x._data
        x2 = xd.reshape(-1, xd.shape[-1])
        go = gout._data.reshape(-1, gout.shape[-1])
        dA, dAh, dh0, dc0, dH, hp, M = _layer_backward(
            mode, ctx.cache, go, ghn._data, None if gcn is None else gcn._data, h0._data,
            None if c0 is None else c0._data, w_hh._data, None if w_hr is None else w_hr._data, steps, reverse)
        return (_wrap((dA @ w_ih._data).reshape(xd.shape)) if need[0] else None,
                _wrap(dh0) if need[1] else None,
                _wrap(dc0) if need[2] else None,
                _wrap(dA.T @ x2) if need[3] else None,
                _wrap(dAh.T @ hp) if need[4] else None,
                _wrap(dA.sum(0)) if need[5] else None,
                _wrap(dAh.sum(0)) if need[6] else None,
                _wrap(dH.T @ M) if need[7] else None,
                None, None, None)


class _RNNLayerPacked(_RNNLayer):
    __doc__ = _RNNLayer.__doc__
    node_name = "CatBackward0"


class _RNNLayerMkldnn(_RNNLayer):
    __doc__ = _RNNLayer.__doc__
    node_name = "MkldnnRnnLayerBackward0"


_warned_proj = [False]


def _rnn_impl(mode, input, batch_sizes, hx, cx, weights, has_biases, num_layers, dropout_p, train,
              bidirectional, batch_first, proj):
    """PyTorch's ``_VF.rnn_tanh / rnn_relu / lstm / gru`` (padded or packed input); returns
    output, h_n (, c_n)."""
    from .. import functional as F
    packed = batch_sizes is not None
    if not packed and batch_first:
        input = input.transpose(0, 1)
    num_dir = 2 if bidirectional else 1
    if packed:
        bs = [int(b) for b in to_host(batch_sizes._data)]   # (the step sizes steer the loop: host ints)
        starts = np.concatenate([[0], np.cumsum(bs)[:-1]]).astype(int).tolist()
        steps = tuple(zip(starts, bs))
        cls = _RNNLayerPacked
    else:
        T, B = input.shape[0], input.shape[1]
        if T == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        steps = tuple((t * B, B) for t in range(T))
        cls = _RNNLayer
        if mode == "LSTM" and input.dtype in (D.float32, D.bfloat16):
            if proj:
                if not _warned_proj[0]:
                    _warned_proj[0] = True
                    warnings.warn("LSTM with projections is not supported with oneDNN. Using default "
                                  "implementation. (Triggered internally at "
                                  "/__w/pytorch/pytorch/aten/src/ATen/native/RNN.cpp:1512.)", UserWarning,
                                  stacklevel=user_stacklevel())
            else:
                cls = _RNNLayerMkldnn
    per = 2 + (2 if has_biases else 0) + (1 if proj else 0)
    layer_input = input
    hs, cs = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(num_dir):
            idx = layer * num_dir + d
            w = weights[idx * per:(idx + 1) * per]
            w_ih, w_hh = w[0], w[1]
            b_ih, b_hh = (w[2], w[3]) if has_biases else (None, None)
            w_hr = w[-1] if proj else None
            res = cls.apply(layer_input, hx[idx], cx[idx] if cx is not None else None, w_ih, w_hh, b_ih, b_hh,
                            w_hr, mode, steps, d == 1)
            outs.append(res[0])
            hs.append(res[1])
            if mode == "LSTM":
                cs.append(res[2])
        layer_output = outs[0] if num_dir == 1 else cat(outs, -1)
        if dropout_p != 0 and train and layer < num_layers - 1:
            layer_output = F.dropout(layer_output, dropout_p, True)
        layer_input = layer_output
    output = layer_input
    if not packed and batch_first:
        output = output.transpose(0, 1) if mode == "LSTM" else output.transpose_(0, 1)
    if mode == "LSTM":
        return output, stack(hs, 0), stack(cs, 0)
    return output, stack(hs, 0)


# ====================================================================== modules

class RNNBase(Module):
    r"""Base class for RNN modules (RNN, LSTM, GRU).

    Implements aspects of RNNs shared by the RNN, LSTM, and GRU classes, such as module initialization
    and utility methods for parameter storage management.

    .. note::
        The forward method is not implemented by the RNNBase class.

    .. note::
        LSTM and GRU classes override some methods implemented by RNNBase.
    """

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]
    __jit_unused_properties__ = ["all_weights"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        self._flat_weight_refs = []
        num_directions = 2 if bidirectional else 1

        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=user_stacklevel())
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")

        if mode == "LSTM":
            gate_size = 4 * hidden_size
        elif mode == "GRU":
            gate_size = 3 * hidden_size
        elif mode in ("RNN_TANH", "RNN_RELU"):
            gate_size = hidden_size
        else:
            raise ValueError("Unrecognized RNN mode: " + mode)

        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                real_hidden_size = proj_size if proj_size > 0 else hidden_size
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                w_ih = Parameter(empty((gate_size, layer_input_size), **factory_kwargs))
                w_hh = Parameter(empty((gate_size, real_hidden_size), **factory_kwargs))
                b_ih = Parameter(empty(gate_size, **factory_kwargs))
                # Second bias vector included for CuDNN compatibility (only one is needed in the standard
                # definition)
                b_hh = Parameter(empty(gate_size, **factory_kwargs))
                if self.proj_size == 0:
                    layer_params = (w_ih, w_hh, b_ih, b_hh) if bias else (w_ih, w_hh)
                else:
                    w_hr = Parameter(empty((proj_size, hidden_size), **factory_kwargs))
                    layer_params = (w_ih, w_hh, b_ih, b_hh, w_hr) if bias else (w_ih, w_hh, w_hr)

                suffix = "_reverse" if direction == 1 else ""
                param_names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    param_names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if self.proj_size > 0:
                    param_names += ["weight_hr_l{}{}"]
                param_names = [x.format(layer, suffix) for x in param_names]

                for name, param in zip(param_names, layer_params, strict=True):
                    setattr(self, name, param)
                self._flat_weights_names.extend(param_names)
                self._all_weights.append(param_names)

        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self):
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None for wn in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None for w in self._flat_weights]
        self.flatten_parameters()

    def __setattr__(self, attr, value):
        if hasattr(self, "_flat_weights_names") and attr in self._flat_weights_names:
            # keep self._flat_weights up to date if you do self.weight = ...
            idx = self._flat_weights_names.index(attr)
            self._flat_weights[idx] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self):
        """Reset parameter data pointer so that they can use faster code paths.

        Right now, this works only if the module is on the GPU and cuDNN is enabled.
        Otherwise, it's a no-op.
        """
        return

    def _apply(self, fn, recurse=True):
        self._flat_weight_refs = []
        ret = super()._apply(fn, recurse)
        # Resets _flat_weights
        self._init_flat_weights()
        return ret

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input, batch_sizes):
        # (under autocast the layer's op casts input and weights itself, so PyTorch skips this check there)
        from ...amp.autocast_mode import _is_any_autocast_enabled   # lazy: amp's op lists import this module
        if input.dtype != self._flat_weights[0].dtype and not _is_any_autocast_enabled():
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({self._flat_weights[0].dtype}). Convert input: "
                             f"input.to({self._flat_weights[0].dtype}), or convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        if self.proj_size > 0:
            return (self.num_layers * num_directions, mini_batch, self.proj_size)
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def _weights_have_changed(self):
        # True if the weight tensors have changed since the last forward pass
        for ref, name in zip(self._flat_weight_refs, self._flat_weights_names, strict=True):
            weight = getattr(self, name) if hasattr(self, name) else None
            if weight is not None and ref is not None and ref() is not weight:
                return True
        return False

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        expected_hidden_size = self.get_expected_hidden_size(input, batch_sizes)
        self.check_hidden_size(hidden, expected_hidden_size)

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _update_flat_weights(self):
        if self._weights_have_changed():
            self._init_flat_weights()

    def __getstate__(self):
        self._update_flat_weights()
        state = self.__dict__.copy()
        del state["_flat_weight_refs"]
        return state

    def __setstate__(self, d):
        super().__setstate__(d)
        if "all_weights" in d:
            self._all_weights = d["all_weights"]
        if "proj_size" not in d:
            self.proj_size = 0
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None for w in self._flat_weights]

    @property
    def all_weights(self):
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    def _run(self, input, batch_sizes, hx, cx):
        return _rnn_impl(self.mode, input, batch_sizes, hx, cx, self._flat_weights, self.bias, self.num_layers,
                         self.dropout, self.training, self.bidirectional, self.batch_first, self.proj_size > 0)


def _zeros_state(n, batch, size, input):
    return zeros(n, batch, size, dtype=input.dtype, device=input.device)


class RNN(RNNBase):
    r"""__init__(input_size,hidden_size,num_layers=1,nonlinearity='tanh',bias=True,batch_first=False,dropout=0.0,bidirectional=False,device=None,dtype=None)

    Apply a multi-layer Elman RNN with tanh or ReLU non-linearity to an input sequence:
    ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)``.

    Inputs: ``input`` (L, N, H_in) / (N, L, H_in) with ``batch_first`` / (L, H_in) unbatched / a
    PackedSequence; ``hx`` (D * num_layers, N, H_out), zeros by default.
    Outputs: ``output`` (L, N, D * H_out) (a PackedSequence for packed input), ``h_n`` (D * num_layers, N, H_out).
    All weights and biases are drawn from U(-sqrt(k), sqrt(k)), k = 1 / hidden_size.
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        """Runs the forward pass."""
        self._update_flat_weights()
        num_directions = 2 if self.bidirectional else 1
        orig_input = input
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(batch_sizes[0])
            if hx is None:
                hx = _zeros_state(self.num_layers * num_directions, max_batch_size, self.hidden_size, input)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            batch_sizes = None
            if input.dim() not in (2, 3):
                raise ValueError(f"RNN: Expected input to be 2D or 3D, got {input.dim()}D tensor instead")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
                if hx is not None:
                    if hx.dim() != 2:
                        raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D "
                                           "tensor")
                    hx = hx.unsqueeze(1)
            else:
                if hx is not None and hx.dim() != 3:
                    raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = None
            unsorted_indices = None
            if hx is None:
                hx = _zeros_state(self.num_layers * num_directions, max_batch_size, self.hidden_size, input)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        output, hidden = self._run(input, batch_sizes, hx, None)
        if isinstance(orig_input, PackedSequence):
            output_packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            return output_packed, self.permute_hidden(hidden, unsorted_indices)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, self.permute_hidden(hidden, unsorted_indices)


class LSTM(RNNBase):
    r"""__init__(input_size,hidden_size,num_layers=1,bias=True,batch_first=False,dropout=0.0,bidirectional=False,proj_size=0,device=None,dtype=None)

    Apply a multi-layer long short-term memory (LSTM) RNN to an input sequence (gates i, f, g, o):
    ``c_t = f_t * c_{t-1} + i_t * g_t``, ``h_t = o_t * tanh(c_t)`` (times ``W_hr^T`` with ``proj_size > 0``).

    Inputs: ``input``, ``(h_0, c_0)`` (zeros by default).  Outputs: ``output, (h_n, c_n)``.
    All weights and biases are drawn from U(-sqrt(k), sqrt(k)), k = 1 / hidden_size.
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def _check_packed_states(self, input, hx, batch_sizes):
        """PyTorch's LSTM.forward skips ``check_forward_args`` for packed input: the states reach the
        ``_VF.lstm`` kernel unchecked, and a wrong one fails there, with the kernel's messages."""
        h, c = hx
        # the kernel infers projections from the states (h narrower than c), not from the module
        per = 2 + (2 if self.bias else 0) + (1 if h.size(2) != c.size(2) else 0)
        if len(self._flat_weights) % per:
            raise RuntimeError("got an incorrect number of RNN parameters")
        if self.bidirectional and (len(self._flat_weights) // per) % 2:
            raise RuntimeError("Odd number of params or hiddens given to a bidirectional RNN")
        if h.size(0) != self.num_layers * (2 if self.bidirectional else 1):
            raise RuntimeError("Expected more hidden states in stacked_rnn")
        w_ih, w_hh = self._flat_weights[0], self._flat_weights[1]
        if input.dtype != w_ih.dtype:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_type_word(input._data.dtype)} "
                               f"and {_type_word(w_ih._data.dtype)}")
        if input.size(-1) != w_ih.size(1):  # the first layer's input projection
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({input.size(0)}x{input.size(-1)} "
                               f"and {w_ih.size(1)}x{w_ih.size(0)})")
        if h.size(2) != w_hh.size(1):  # the recurrent projection of the first step
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({h.size(1)}x{h.size(2)} "
                               f"and {w_hh.size(1)}x{w_hh.size(0)})")
        batch = int(batch_sizes[0])
        for state in (h, c):
            if state.size(1) != batch:
                raise RuntimeError(f"The size of tensor a ({state.size(1)}) must match the size of tensor b "
                                   f"({batch}) at non-singleton dimension 0")

    def forward(self, input, hx=None):
        self._update_flat_weights()
        orig_input = input
        batch_sizes = None
        num_directions = 2 if self.bidirectional else 1
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(batch_sizes[0])
            if hx is None:
                h_zeros = _zeros_state(self.num_layers * num_directions, max_batch_size, real_hidden_size, input)
                c_zeros = _zeros_state(self.num_layers * num_directions, max_batch_size, self.hidden_size, input)
                hx = (h_zeros, c_zeros)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            if input.dim() not in (2, 3):
                raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = None
            unsorted_indices = None
            if hx is None:
                h_zeros = _zeros_state(self.num_layers * num_directions, max_batch_size, real_hidden_size, input)
                c_zeros = _zeros_state(self.num_layers * num_directions, max_batch_size, self.hidden_size, input)
                hx = (h_zeros, c_zeros)
                self.check_forward_args(input, hx, batch_sizes)
            else:
                if is_batched:
                    if hx[0].dim() != 3 or hx[1].dim() != 3:
                        raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                           f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                else:
                    if hx[0].dim() != 2 or hx[1].dim() != 2:
                        raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                           f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
                self.check_forward_args(input, hx, batch_sizes)
                hx = self.permute_hidden(hx, sorted_indices)
        if len(hx) != 2:
            raise RuntimeError("lstm expects two hidden states")
        if batch_sizes is not None:
            self._check_packed_states(input, hx, batch_sizes)
        output, h_n, c_n = self._run(input, batch_sizes, hx[0], hx[1])
        hidden = (h_n, c_n)
        if isinstance(orig_input, PackedSequence):
            output_packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            return output_packed, self.permute_hidden(hidden, unsorted_indices)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, self.permute_hidden(hidden, unsorted_indices)


class GRU(RNNBase):
    r"""__init__(input_size,hidden_size,num_layers=1,bias=True,batch_first=False,dropout=0.0,bidirectional=False,device=None,dtype=None)

    Apply a multi-layer gated recurrent unit (GRU) RNN to an input sequence (gates r, z, n):
    ``n_t = tanh(W_in x_t + b_in + r_t * (W_hn h_{t-1} + b_hn))``, ``h_t = (1 - z_t) * n_t + z_t * h_{t-1}``.

    Inputs: ``input``, ``h_0`` (zeros by default).  Outputs: ``output, h_n``.
    All weights and biases are drawn from U(-sqrt(k), sqrt(k)), k = 1 / hidden_size.
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        self._update_flat_weights()
        orig_input = input
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(batch_sizes[0])
            if hx is None:
                num_directions = 2 if self.bidirectional else 1
                hx = _zeros_state(self.num_layers * num_directions, max_batch_size, self.hidden_size, input)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            batch_sizes = None
            if input.dim() not in (2, 3):
                raise ValueError(f"GRU: Expected input to be 2D or 3D, got {input.dim()}D instead")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
                if hx is not None:
                    if hx.dim() != 2:
                        raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D "
                                           "tensor")
                    hx = hx.unsqueeze(1)
            else:
                if hx is not None and hx.dim() != 3:
                    raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = None
            unsorted_indices = None
            if hx is None:
                num_directions = 2 if self.bidirectional else 1
                hx = _zeros_state(self.num_layers * num_directions, max_batch_size, self.hidden_size, input)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        output, hidden = self._run(input, batch_sizes, hx, None)
        if isinstance(orig_input, PackedSequence):
            output_packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            return output_packed, self.permute_hidden(hidden, unsorted_indices)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, self.permute_hidden(hidden, unsorted_indices)


# ====================================================================== cells

def _linear(x, w, b):
    return addmm(b, x, w.t()) if b is not None else x.mm(w.t())


def _cell_dims_check(input, hx, input_size, hidden_size, hx_name="hidden0"):
    if input.size(1) != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected {input_size}")
    if input.size(0) != hx.size(0):
        raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{hx_name[-1]} batch size "
                           f"{hx.size(0)}")
    if hx.size(1) != hidden_size:
        raise RuntimeError(f"hidden{hx_name[-1]} has inconsistent hidden_size: got {hx.size(1)}, expected "
                           f"{hidden_size}")


class RNNCellBase(Module):
    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **factory_kwargs))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **factory_kwargs))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)


class RNNCell(RNNCellBase):
    r"""An Elman RNN cell with tanh or ReLU non-linearity: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(input_size, hidden_size, bias, num_chunks=1, **factory_kwargs)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
        else:
            hx = hx.unsqueeze(0) if not is_batched else hx
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        _cell_dims_check(input, hx, self.input_size, self.hidden_size)
        pre = _linear(input, self.weight_ih, self.bias_ih) + _linear(hx, self.weight_hh, self.bias_hh)
        ret = pre.tanh() if self.nonlinearity == "tanh" else pre.relu()
        if not is_batched:
            ret = ret.squeeze(0)
        return ret


class LSTMCell(RNNCellBase):
    r"""A long short-term memory (LSTM) cell: gates i, f, g, o; ``c' = f * c + i * g``, ``h' = o * tanh(c')``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(input_size, hidden_size, bias, num_chunks=4, **factory_kwargs)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            z = zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
            hx = (z, z)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        elif not isinstance(hx, (tuple, list)):
            # iterating a Tensor passed the checks above; the kernel wants the pair (h, c)
            raise TypeError(f"lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not "
                            f"{type(hx).__name__}")
        h, c = hx
        _cell_dims_check(input, h, self.input_size, self.hidden_size, "hidden0")
        _cell_dims_check(input, c, self.input_size, self.hidden_size, "hidden1")
        gates = _linear(input, self.weight_ih, self.bias_ih) + _linear(h, self.weight_hh, self.bias_hh)
        i, f, g, o = gates.chunk(4, 1)
        cy = f.sigmoid() * c + i.sigmoid() * g.tanh()
        hy = o.sigmoid() * cy.tanh()
        ret = (hy, cy)
        if not is_batched:
            ret = (ret[0].squeeze(0), ret[1].squeeze(0))
        return ret


class GRUCell(RNNCellBase):
    r"""A gated recurrent unit (GRU) cell: gates r, z, n; ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``,
    ``h' = (1 - z) * n + z * h``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(input_size, hidden_size, bias, num_chunks=3, **factory_kwargs)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
        else:
            hx = hx.unsqueeze(0) if not is_batched else hx
        _cell_dims_check(input, hx, self.input_size, self.hidden_size)
        ir, iz, in_ = _linear(input, self.weight_ih, self.bias_ih).chunk(3, 1)
        hr, hz, hn = _linear(hx, self.weight_hh, self.bias_hh).chunk(3, 1)
        reset = (ir + hr).sigmoid()
        update = (iz + hz).sigmoid()
        new = (in_ + reset * hn).tanh()
        ret = new + update * (hx - new)
        if not is_batched:
            ret = ret.squeeze(0)
        return ret
