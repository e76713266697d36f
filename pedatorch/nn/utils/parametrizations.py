"""Ready-made parametrizations (``torch.nn.utils.parametrizations``), built on ``parametrize``.

* ``weight_norm(m)``: ``weight = g * v / ||v||``, trained as a magnitude ``g`` (``original0``) and a
  direction ``v`` (``original1``) (Salimans & Kingma, 2016).
* ``spectral_norm(m)``: ``weight = W / sigma(W)``, ``sigma`` the largest singular value, estimated by one
  step of power iteration per training forward (Miyato et al., 2018): keeps a layer 1-Lipschitz.
* ``orthogonal(m)``: ``weight`` is an orthogonal (or unitary) matrix, the image of an unconstrained one
  under the matrix exponential, the Cayley map or a product of Householder reflections.
"""
from enum import Enum, auto

import numpy as np

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...backend import namespace
from ...linalg import solve
from ...ops.creation import eye, zeros_like
from ...ops.join import cat
from ...ops.random import randn
from .. import functional as F
from ..modules.conv import _ConvTransposeNd
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---------------------------------------------------------------- weight norm
def _norm_except_dim(v, dim):
    """The 2-norm of ``v`` over every dim but ``dim``, shaped to broadcast against ``v``
    (PyTorch's ``norm_except_dim``).  ``dim=-1`` means the norm of the whole tensor (a 0-dim tensor)."""
    if dim == -1:
        return v.norm()
    dim = dim % v.ndim
    keep_shape = [1] * v.ndim
    keep_shape[dim] = v.shape[dim]
    # move ``dim`` to the front and flatten the rest: one norm per row
    rows = v.movedim(dim, 0).reshape(v.shape[dim], -1)
    return rows.norm(2, dim=1).reshape(keep_shape)


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1  # PyTorch's code for "normalize over the whole tensor"
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight):
        # split the weight into its norm (magnitude) and itself (direction): forward gives it back
        weight_g = _norm_except_dim(weight, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (norms over every dim but ``dim``; ``dim=None``:
    one norm of the whole tensor).  ``g`` and ``v`` are ``parametrizations.<name>.original0`` and
    ``original1``.  State dicts of the older hook-based ``nn.utils.weight_norm`` (keys ``<name>_g`` and
    ``<name>_v``) still load."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)  # g is not weight-shaped

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


# ---------------------------------------------------------------- spectral norm
class _SpectralNorm(Module):
    """``W / sigma``, sigma = u . (W v) with ``u``, ``v`` (buffers ``_u``, ``_v``) the leading singular
    vectors of W (as a matrix), refined by ``n_power_iterations`` power-iteration steps at each training
    forward.  A 1-D weight is simply divided by its norm."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from good estimates rather than random vectors
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        """``dim`` first, the other dims flattened: a (size of dim) x (the rest) matrix."""
        if weight.ndim <= 1:
            raise AssertionError(f"Expected weight to have more than 1 dimension, got {weight.ndim}")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    @no_grad()
    def _power_method(self, weight_mat, n_power_iterations):
        # u <- W v / |W v|,  v <- W^H u / |W^H u|: converges to the leading singular vectors.  Written in
        # place, so the buffers stay the same tensors (and the state dict sees the new values).
        if weight_mat.ndim <= 1:
            raise AssertionError(f"Expected weight_mat to have more than 1 dimension, got {weight_mat.ndim}")
        for _ in range(n_power_iterations):
            self._u.copy_(F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))
            self._v.copy_(F.normalize(weight_mat.H.mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # copies: the next forward's power step writes into the buffers, which autograd may still need
        u, v = self._u.clone(), self._v.clone()
        sigma = u.vdot(weight_mat.mv(v))  # gradients flow through W here, not through u and v
        return weight / sigma

    def right_inverse(self, value):
        # any W / sigma(W) is W scaled: store the value itself (the next forward rescales it)
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Reparametrize ``module.<name>`` as itself divided by its spectral norm (its largest singular value,
    of the weight reshaped to a matrix with ``dim`` first; ``dim=None``: 1 for transposed convolutions,
    whose output channels are dim 1, else 0).  The singular vectors are buffers ``_u``, ``_v`` of
    ``parametrizations.<name>[0]``, updated only in training mode."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, _ConvTransposeNd) else 0  # ConvTranspose1d, 2d, ... (and lazy ones)
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


# ---------------------------------------------------------------- orthogonal
def _geqrf(A):
    """LAPACK's QR in compact form: R on and above the diagonal, the Householder vectors below it, and
    their scales ``tau`` (PyTorch's ``geqrf``).  numpy's ``qr(mode='raw')`` is that same LAPACK call,
    returning the matrix transposed (cupy's ``qr`` has the same mode).  No gradient (used only under no_grad)."""
    xp = namespace(A._data)
    h, tau = xp.linalg.qr(A._data, mode="raw")
    return Tensor._make(xp.ascontiguousarray(xp.swapaxes(h, -1, -2))), Tensor._make(xp.ascontiguousarray(tau))


def _householder_product(A, tau):
    """The first k columns of H_1 H_2 ... H_k, H_i = I - tau_i v_i v_i^H, where v_i is column i of A with
    zeros above row i and a 1 on row i (PyTorch's ``linalg.householder_product``).  Built from ordinary
    ops, so autograd differentiates it."""
    n, k = A.size(-2), A.size(-1)
    rows = namespace(A._data).arange(n)
    Q = eye(n, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], n, n)
    for i in range(k):
        below = Tensor._make((rows > i).astype(np.float64)).to(A.dtype)
        unit = Tensor._make((rows == i).astype(np.float64)).to(A.dtype)
        v = (A[..., :, i] * below + unit).unsqueeze(-1)            # (..., n, 1)
        Q = Q - tau[..., i, None, None] * ((Q @ v) @ v.mH)          # Q H_i
    return Q[..., :, :k]


def _is_orthogonal(Q):
    n, k = Q.size(-2), Q.size(-1)
    Id = eye(k, dtype=Q.dtype, device=Q.device)
    # a tolerance that grows with the size, as rounding errors do
    eps = 10.0 * n * np.finfo(Q._data.dtype).eps
    return Q.mH.matmul(Q).allclose(Id, atol=eps)


def _make_orthogonal(A):
    """The Q of A's QR decomposition, with the signs chosen so that R has a positive diagonal (this
    makes Q unique, and equal to A when A already is orthogonal)."""
    X, tau = _geqrf(A)
    Q = _householder_product(X, tau)
    return Q * X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """Maps an unconstrained (batch of) n x k matrix to one with orthonormal columns (rows if n < k).

    ``matrix_exp`` / ``cayley``: the lower triangle gives a skew-symmetric A = X - X^H, and exp(A) or
    (I - A/2)^-1 (I + A/2) is orthogonal.  ``householder``: the lower triangle holds Householder
    vectors.  With ``use_trivialization`` the result is multiplied by the buffer ``base``, an orthogonal
    matrix set by ``right_inverse`` (so assigning any orthogonal matrix works with every map)."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:  # work with tall matrices
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:  # pad to square; the result's first k columns are kept below
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = A.matrix_exp()
            else:
                Id = eye(n, dtype=A.dtype, device=A.device)
                Q = solve(Id - 0.5 * A, Id + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))  # makes each H_i an exact reflection
            Q = _householder_product(A, tau)
            # the diagonal of X (+-1 after right_inverse) chooses each column's sign
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    @no_grad()
    def right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            # no base to absorb Q: only the Householder form can represent it exactly
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                          "or the Cayley parametrizations when use_trivialization=False.")
            A, tau = _geqrf(Q)
            # forward multiplies column i by int(A[i, i]): store the sign there (a zero tau means the
            # reflection was skipped, which flips the sign convention)
            diag = A.diagonal(dim1=-2, dim2=-1)
            diag.copy_(diag.sign() * (1 - 2 * (tau == 0.0).to(diag.dtype)))
            return A.mT if transpose else A
        # with a base: make Q orthogonal (and square), keep it as the base, and store the X that forward
        # maps to the identity-like matrix -I (so base @ forward(X) = Q up to the columns' signs)
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:  # complete the n x k matrix to a square orthogonal one with random columns
            N = randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        neg_Id = zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrain the matrix (or batch of matrices) ``module.<name>`` to be orthogonal (unitary if
    complex).  ``orthogonal_map``: "matrix_exp" (default for square or complex), "cayley", or
    "householder" (default otherwise)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    # unsafe: skips the registration check, which would only cost one more forward (the map is
    # orthogonal and keeps the shape by construction)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
