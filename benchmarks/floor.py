"""The numpy floor: three benchmark steps written out by hand in plain numpy.

``run.py`` times each workload on pedatorch and on PyTorch. To read those times against a limit as
well, this file does the same work for ``overhead``, ``mlp`` and ``lstm`` the way one would without
any framework: the forward pass, a backward pass derived by hand, and the same optimizer update, on
numpy arrays. There is no Tensor class, no graph and no dispatch, so what is left is about the least
time numpy needs for the step: its own per-call cost plus the arithmetic. A framework on numpy
(pedatorch) pays more, for recording and replaying the graph; how much more is the
``pedatorch/numpy`` column of ``run.py``.

The code is written to be read, not to be clever: one numpy call per formula, float32 throughout,
as pedatorch and PyTorch compute. ``tests/test_benchmarks.py`` checks that each program computes
the same loss, gradients and updated parameters as pedatorch on the same inputs.

Each model keeps its parameters in a list, in the order of ``model.parameters()`` in PyTorch, and
has ``loss_and_grads(x, y) -> (loss, grads)``; an optimizer's ``step(grads)`` updates the
parameters in place. ``WORKLOADS`` maps a workload's name to a function building its step.
"""
import numpy as np


def inputs(shape, classes=None, seed=0):
    """The benchmarks' inputs: seeded float32 standard normals of ``shape`` and, when ``classes`` is
    given, also int64 class labels, one per row. run.py builds every library's data from these."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    if classes is None:
        return x
    return x, rng.integers(0, classes, shape[0])


def uniform(rng, bound, *shape):
    """float32 values uniform in [-bound, bound): nn.Linear's and nn.LSTM's default initialisation."""
    return rng.uniform(-bound, bound, shape).astype(np.float32)


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def cross_entropy(logits, labels):
    """Mean cross-entropy of ``logits`` (N, C) against integer ``labels`` (N,), and its gradient.

    loss = mean(logsumexp(z) - z[label]); d loss / d z = (softmax(z) - onehot(label)) / N.
    """
    n = len(labels)
    shifted = logits - logits.max(axis=1, keepdims=True)  # exp cannot overflow
    exp = np.exp(shifted)
    total = exp.sum(axis=1, keepdims=True)
    rows = np.arange(n)
    loss = (np.log(total[:, 0]) - shifted[rows, labels]).mean()
    grad = exp / total
    grad[rows, labels] -= 1
    return loss, grad / n


# --------------------------------------------------------------------------- optimizers


class SGD:
    """torch.optim.SGD with momentum: the first step's buffer is the gradient itself, later ones
    ``buf = momentum * buf + grad``; then ``p -= lr * buf``."""

    def __init__(self, params, lr, momentum=0.0):
        self.params, self.lr, self.momentum = params, lr, momentum
        self.buffers = None

    def step(self, grads):
        if self.buffers is None:
            self.buffers = [g.copy() for g in grads]
        else:
            for buf, g in zip(self.buffers, grads):
                buf *= self.momentum
                buf += g
        for p, buf in zip(self.params, self.buffers):
            p -= self.lr * buf


class Adam:
    """torch.optim.Adam with its defaults: running means of the gradient (m) and of its square (v),
    each corrected for starting at zero, then ``p -= lr * m_hat / (sqrt(v_hat) + eps)``."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        self.params, self.lr, self.betas, self.eps = params, lr, betas, eps
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, grads):
        b1, b2 = self.betas
        self.t += 1
        step_size = self.lr / (1 - b1 ** self.t)
        v_scale = (1 - b2 ** self.t) ** 0.5
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            p -= step_size * m / (np.sqrt(v) / v_scale + self.eps)


class Step:
    """One training step: loss and gradients on the fixed batch, then the optimizer's update."""

    def __init__(self, model, optimizer, x, y):
        self.model, self.optimizer, self.x, self.y = model, optimizer, x, y

    def __call__(self):
        loss, grads = self.model.loss_and_grads(self.x, self.y)
        self.optimizer.step(grads)
        return loss


# --------------------------------------------------------------------------- overhead


class Overhead:
    """``(a * b + c).relu().sum().backward()`` on three small leaves. The workload never zeroes the
    gradients, so they accumulate, as ``.grad`` does in PyTorch."""

    def __init__(self, a, b, c):
        self.params = [a, b, c]
        self.grads = [np.zeros_like(a), np.zeros_like(b), np.zeros_like(c)]

    def __call__(self):
        a, b, c = self.params
        z = a * b + c
        y = np.maximum(z, 0).sum()
        # d y / d z is 1 where z > 0 (ReLU passes it), else 0; then the product rule.
        dz = (z > 0).astype(z.dtype)
        self.grads[0] += dz * b
        self.grads[1] += dz * a
        self.grads[2] += dz
        return y


def overhead():
    vals = [0.5, -1.0, 1.5, -2.0, 2.5, -3.0, 3.5, -4.0]
    return Overhead(np.array(vals, np.float32), np.array(vals[::-1], np.float32), np.full(8, 0.25, np.float32))


# --------------------------------------------------------------------------- mlp


class MLP:
    """Linear layers with ReLU between them; ``params`` is [W1, b1, W2, b2, ...], each W shaped
    (out, in) as in nn.Linear."""

    def __init__(self, params):
        self.params = params

    def loss_and_grads(self, x, labels):
        layers = list(zip(self.params[0::2], self.params[1::2]))
        # Forward, keeping each layer's input for the backward pass.
        inputs = []
        h = x
        for i, (w, b) in enumerate(layers):
            inputs.append(h)
            h = h @ w.T + b
            if i < len(layers) - 1:
                h = np.maximum(h, 0)
        loss, d = cross_entropy(h, labels)
        # Backward, last layer first: d is d loss / d (this layer's output).
        grads = []
        for i in reversed(range(len(layers))):
            w, _ = layers[i]
            h_in = inputs[i]
            grads[:0] = [d.T @ h_in, d.sum(axis=0)]
            if i > 0:
                # Through the layer, then through the ReLU that made h_in (h_in > 0 where it passed).
                d = (d @ w) * (h_in > 0)
        return loss, grads


def mlp():
    """The MLP workload: 784-256-256-10, batch 128, SGD with momentum."""
    rng = np.random.default_rng(0)
    sizes = [784, 256, 256, 10]
    params = []
    for n_in, n_out in zip(sizes, sizes[1:]):
        bound = 1 / n_in ** 0.5
        params += [uniform(rng, bound, n_out, n_in), uniform(rng, bound, n_out)]
    model = MLP(params)
    return Step(model, SGD(model.params, lr=0.01, momentum=0.9), *inputs((128, 784), 10))


# --------------------------------------------------------------------------- lstm


class LSTMClassifier:
    """One LSTM layer over (batch, time, features) and a linear head on the last time step.

    ``params`` is [W_ih, W_hh, b_ih, b_hh, W_head, b_head] as nn.LSTM and nn.Linear hold them; the
    gates are stacked in PyTorch's order: input, forget, cell, output.
    """

    def __init__(self, params):
        self.params = params

    def loss_and_grads(self, x, labels):
        w_ih, w_hh, b_ih, b_hh, w_head, b_head = self.params
        batch, steps, _ = x.shape
        n = w_hh.shape[1]
        g_cols = slice(2 * n, 3 * n)  # the cell gate's columns: tanh, where the other three take sigmoid
        # The input part of every gate, for all time steps in one matmul.
        x_part = x @ w_ih.T + (b_ih + b_hh)
        h = np.zeros((batch, n), np.float32)
        c = np.zeros((batch, n), np.float32)
        h_prevs = np.empty((batch, steps, n), np.float32)  # every h_{t-1}, for d W_hh in one matmul
        saved = []
        for t in range(steps):
            gates = x_part[:, t] + h @ w_hh.T
            act = sigmoid(gates)
            act[:, g_cols] = np.tanh(gates[:, g_cols])
            i, f, g, o = act[:, :n], act[:, n:2 * n], act[:, g_cols], act[:, 3 * n:]
            h_prevs[:, t], c_prev = h, c
            c = f * c_prev + i * g
            tanh_c = np.tanh(c)
            h = o * tanh_c
            saved.append((c_prev, act, tanh_c))
        loss, d_logits = cross_entropy(h @ w_head.T + b_head, labels)

        # Backward through time: dh, dc are d loss / d h_t, d c_t; d_gates collects d loss / d gates.
        d_w_head, d_b_head = d_logits.T @ h, d_logits.sum(axis=0)
        dh = d_logits @ w_head
        dc = np.zeros_like(c)
        d_gates = np.empty_like(x_part)
        for t in reversed(range(steps)):
            c_prev, act, tanh_c = saved[t]
            i, f, g, o = act[:, :n], act[:, n:2 * n], act[:, g_cols], act[:, 3 * n:]
            dc = dc + dh * o * (1 - tanh_c * tanh_c)  # h_t = o tanh(c_t)
            d_act = np.concatenate([dc * g, dc * c_prev, dc * i, dh * tanh_c], axis=1)  # d i, d f, d g, d o
            # Through the activations: sigmoid' = s (1 - s), tanh' = 1 - tanh^2.
            slope = act * (1 - act)
            slope[:, g_cols] = 1 - g * g
            d_gates[:, t] = d_act * slope
            dc = dc * f  # c_t = f c_{t-1} + i g
            dh = d_gates[:, t] @ w_hh
        d_gates_2d = d_gates.reshape(-1, 4 * n)
        d_w_ih = d_gates_2d.T @ x.reshape(-1, x.shape[2])
        d_w_hh = d_gates_2d.T @ h_prevs.reshape(-1, n)
        d_b = d_gates.sum(axis=(0, 1))
        return loss, [d_w_ih, d_w_hh, d_b, d_b.copy(), d_w_head, d_b_head]


def lstm():
    """The LSTM workload: LSTM(32 -> 64) over 35 steps, batch 32, a linear head to 10 classes, Adam."""
    rng = np.random.default_rng(0)
    n_in, n, classes = 32, 64, 10
    bound = 1 / n ** 0.5
    params = [uniform(rng, bound, 4 * n, n_in), uniform(rng, bound, 4 * n, n),
              uniform(rng, bound, 4 * n), uniform(rng, bound, 4 * n),
              uniform(rng, bound, classes, n), uniform(rng, bound, classes)]
    model = LSTMClassifier(params)
    return Step(model, Adam(model.params), *inputs((32, 35, n_in), classes))


WORKLOADS = {"overhead": overhead, "mlp": mlp, "lstm": lstm}
