r"""L-BFGS (``torch.optim.LBFGS``): a quasi-Newton method that needs a ``closure``.

L-BFGS treats all parameters as one flat vector ``x`` with gradient ``g``.  Newton's method would step
along ``-H^-1 g``; L-BFGS approximates ``H^-1 g`` from the last ``history_size`` pairs

    s_k = x_{k+1} - x_k   (a step: ``old_stps``)      y_k = g_{k+1} - g_k   (the gradient change: ``old_dirs``)

with the "two-loop recursion" (rho_k = 1 / (y_k . s_k), newest pair first in the first loop)::

    q = -g
    for k newest .. oldest:   al_k = rho_k * (s_k . q);   q = q - al_k * y_k
    r = H_diag * q                              (H_diag = y.s / y.y of the newest pair: a scale guess)
    for k oldest .. newest:   be_k = rho_k * (y_k . r);   r = r + (al_k - be_k) * s_k
    d = r                                       (the search direction)

A pair is kept only when ``y.s > 1e-10`` (the curvature condition that keeps the approximation positive
definite).  The first direction is ``-g``.  Then ``x = x + t * d`` where ``t`` is

- ``lr`` (the very first iteration: ``min(1, 1 / sum|g|) * lr``), with ``line_search_fn=None``;
- the result of a strong-Wolfe line search starting from that guess, with ``"strong_wolfe"``: find
  ``t`` with sufficient decrease ``f(x + t d) <= f(x) + c1 t g.d`` and small slope
  ``|g(x + t d).d| <= -c2 g.d``, by bracketing an interval and shrinking it with cubic interpolation.

One ``step(closure)`` runs up to ``max_iter`` such iterations (at most ``max_eval`` closure calls) and
stops early when the gradient is below ``tolerance_grad`` or progress is below ``tolerance_change``.
It returns the loss of the first closure call.

There is one parameter group; the whole state (``func_evals``, ``n_iter``, ``d``, ``t``, ``old_dirs``,
``old_stps``, ``ro``, ``H_diag``, ``prev_flat_grad``, ``prev_loss``, ``al``) is kept under the first
parameter, as in PyTorch.  Like PyTorch, the line search computes with 0-dim tensors of the
parameters' dtype (``t``, ``gtd``), mixed with Python floats (the losses).
"""
from .._tensor import Tensor
from ..autograd import grad_mode
from .optimizer import Optimizer, _scalar_arg, _to_scalar

__all__ = ["LBFGS"]


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, clipped to ``bounds``
    (default: the interval between x1 and x2); the bounds' midpoint when the cubic has no minimum.

    With d1 = g1 + g2 - 3 (f1 - f2) / (x1 - x2) and d2 = sqrt(d1^2 - g1 g2), for x1 <= x2:
        x_min = x2 - (x2 - x1) (g2 + d2 - d1) / (g2 - g1 + 2 d2)
    """
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)

    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (xmin_bound + xmax_bound) / 2.0
    d2 = d2_square.sqrt()
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, xmin_bound), xmax_bound)


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Line search along ``d`` from ``x`` (loss ``f``, gradient ``g``, slope ``gtd = g.d < 0``) for a step
    ``t`` meeting the strong Wolfe conditions.  ``obj_func(x, t, d)`` returns the loss and the gradient at
    ``x + t d``.  Returns ``(f_new, g_new, t, number of evaluations)``.

    Phase 1 (bracketing) grows ``t`` until an interval [lo, hi] must contain an acceptable step: the loss
    rose too much, or the slope turned positive.  Phase 2 (zoom) shrinks the interval, trying the
    minimiser of the cubic through its ends.  At most ``max_ls`` evaluations in all.
    """
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)

    # ---- phase 1: bracketing.  Each bracket list holds [end 0, end 1]: step, loss, gradient, slope.
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    bracket = None
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            # not enough decrease (or worse than the previous try): a minimum lies between t_prev and t
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            # sufficient decrease and a flat enough slope: t is acceptable
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            # the slope turned positive: we walked past a minimum
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break

        # still going downhill: extrapolate to a longer step, between 1.01 t and 10 t
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        t_prev, t = t, _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
        f_prev, g_prev, gtd_prev = f_new, g_new.clone(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1

    if bracket is None:
        # out of evaluations without a bracket: fall back to [0, t] (no zoom follows)
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # ---- phase 2: zoom.  ``low_pos`` indexes the end with the lower loss.
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break           # the interval is too small to matter

        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])

        # A trial point very close to an end of the interval makes little progress.  The first time,
        # accept it; the next time (or when it is at/after an end) move it to 10% inside the interval.
        hi, lo = max(bracket), min(bracket)
        eps = 0.1 * (hi - lo)
        if min(hi - t, t - lo) < eps:
            if insuf_progress or t >= hi or t <= lo:
                t = hi - eps if abs(t - hi) < abs(t - lo) else lo + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False

        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1

        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            # not enough decrease, or not below the low end: t becomes the new high end
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.clone(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True     # the strong Wolfe conditions hold at t
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                # the slope points at the high end's far side: the old low end becomes the high end
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos], bracket_gtd[high_pos] = bracket_g[low_pos], bracket_gtd[low_pos]
            # t becomes the new low end
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.clone(), gtd_new

    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


class LBFGS(Optimizer):
    """Implements the L-BFGS algorithm (after minFunc).  ``step`` needs a closure.

    Args: params (real or complex, one group only), lr (default 1), max_iter (iterations per step, 20),
    max_eval (closure calls per step, default ``max_iter * 5 // 4``), tolerance_grad (1e-7),
    tolerance_change (1e-9), history_size (100), line_search_fn (None or ``"strong_wolfe"``).

    Memory: ``history_size + 1`` extra copies of all the parameters.
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval, "tolerance_grad": tolerance_grad,
                    "tolerance_change": tolerance_change, "history_size": history_size,
                    "line_search_fn": line_search_fn}
        super().__init__(params, defaults)

        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")

        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    # ---------------------------------------------------------------- the parameters as one flat vector

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = sum(2 * p.numel() if p.is_complex() else p.numel() for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        """All gradients in one new 1-D tensor (zeros for a parameter without one; complex as pairs)."""
        from ..ops.creation import zeros
        from ..ops.join import cat
        from ..ops.shape import view_as_real
        views = []
        for p in self._params:
            if p.grad is None:
                view = zeros(p.numel(), dtype=p.dtype, device=p.device)
            elif p.grad.is_sparse:
                view = p.grad.to_dense().view(-1)
            else:
                view = p.grad.view(-1)
            if view.is_complex():
                view = view_as_real(view).view(-1)
            views.append(view)
        return cat(views, 0)

    def _add_grad(self, step_size, update):
        """x = x + step_size * update, each parameter taking its slice of the flat ``update``."""
        from ..ops.shape import view_as_real
        offset = 0
        for p in self._params:
            if p.is_complex():
                p = view_as_real(p)
            numel = p.numel()
            p.add_(update[offset:offset + numel].view_as(p), alpha=_scalar_arg(step_size))
            offset += numel
        if offset != self._numel():
            raise AssertionError(f"Expected offset {offset} to equal {self._numel()}")

    def _clone_param(self):
        return [p.clone() for p in self._params]

    def _set_param(self, params_data):
        for p, pdata in zip(self._params, params_data, strict=True):
            p.copy_(pdata)

    def _directional_evaluate(self, closure, x, t, d):
        """Loss and flat gradient at ``x + t d``; the parameters are put back to ``x`` afterwards."""
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    # ---------------------------------------------------------------- the step

    @grad_mode.no_grad()
    def step(self, closure):
        """Run up to ``max_iter`` L-BFGS iterations; ``closure`` zeroes the gradients, computes the loss,
        calls ``backward()`` and returns the loss.  Returns the loss of the first call."""
        if len(self.param_groups) != 1:
            raise AssertionError(f"Expected exactly one param_group, but got {len(self.param_groups)}")

        closure = grad_mode.enable_grad()(closure)     # the closure always needs grad mode

        group = self.param_groups[0]
        lr = _to_scalar(group["lr"])
        max_iter = group["max_iter"]
        max_eval = group["max_eval"]
        tolerance_grad = group["tolerance_grad"]
        tolerance_change = group["tolerance_change"]
        line_search_fn = group["line_search_fn"]
        history_size = group["history_size"]

        # the state is global; it is kept under the first parameter so that load_state_dict casts it
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1

        flat_grad = self._gather_flat_grad()
        opt_cond = flat_grad.abs().max() <= tolerance_grad
        if opt_cond:
            return orig_loss        # already at a stationary point

        # what the previous step() left
        d = state.get("d")
        t = state.get("t")
        old_dirs = state.get("old_dirs")
        old_stps = state.get("old_stps")
        ro = state.get("ro")
        H_diag = state.get("H_diag")
        prev_flat_grad = state.get("prev_flat_grad")
        prev_loss = state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # ---- the search direction d
            if state["n_iter"] == 1:
                d = flat_grad.neg()     # steepest descent to start
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:          # curvature condition: keep this pair
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)     # forget the oldest pair
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)

                # the two-loop recursion: d = -H^-1 g from the kept pairs
                num_old = len(old_dirs)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]

                q = flat_grad.neg()
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q.add_(old_dirs[i], alpha=_scalar_arg(-al[i]))

                d = r = q.mul(H_diag)      # r is updated in place, so d is too
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r.add_(old_stps[i], alpha=_scalar_arg(al[i] - be_i))

            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss

            # ---- the step length t: a cautious first guess, then lr
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr
            else:
                t = lr

            gtd = flat_grad.dot(d)      # the slope along d
            if gtd > -tolerance_change:
                break                   # d is not (enough of) a descent direction

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(obj_func, x_init, t, d, loss, flat_grad, gtd,
                                                                  max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)    # a fixed step
                if n_iter != max_iter:
                    # evaluate at the new point, except after the last iteration (the next step() will)
                    with grad_mode.enable_grad():
                        loss = closure()
                    loss = float(loss)
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1

            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            # ---- stop?
            if n_iter == max_iter:
                break
            if current_evals >= max_eval:
                break
            if opt_cond:
                break                               # gradient small enough
            if d.mul(t).abs().max() <= tolerance_change:
                break                               # the step barely moved x
            if abs(loss - prev_loss) < tolerance_change:
                break                               # the loss barely changed

        state["d"] = d
        state["t"] = t
        state["old_dirs"] = old_dirs
        state["old_stps"] = old_stps
        state["ro"] = ro
        state["H_diag"] = H_diag
        state["prev_flat_grad"] = prev_flat_grad
        state["prev_loss"] = prev_loss
        return orig_loss
