"""Layers, losses, optimizers and short training runs on every device: the same values on "cuda" (a real GPU,
or the stand-in backend without one) as on the CPU, results and gradients kept on the device.

Each test builds its model on the CPU with a fixed seed, copies it to the device, and runs the same
computation on both; values must agree within 1e-6 (on a real GPU, within float32's rounding)."""
import copy

import numpy as np
import pytest

import pedatorch as pt
import pedatorch.nn as nn
import pedatorch.nn.functional as F
from pedatorch.backend import to_host


def _host(t):
    return np.asarray(to_host(t.detach()._data), dtype=np.float64)


def _close(got, want, atol=1e-6):
    """Within 1e-6; on a real GPU, within float32's rounding of the largest value: cuBLAS and cupy's
    reductions add in another order than numpy (the stand-in computes with numpy: the same order)."""
    assert got.shape == want.shape
    a, b = _host(got), _host(want)
    rtol = 1e-6
    if got.device.type == "cuda" and pt.backend.cuda_backend().name != "stand-in":
        rtol, atol = 2e-5, max(atol, 2e-5 * float(np.abs(b).max(initial=0)))
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _on(device, *arrays, grad=False, dtype=pt.float32):
    return [pt.tensor(a, dtype=dtype, device=device, requires_grad=grad) for a in arrays]


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _check_module(device, make, *inputs, out=lambda y: y, const=()):
    """``make()``'s module on the CPU and a copy on ``device``: forward values, input and parameter grads.
    Inputs listed in ``const`` (targets, indices) need no gradient; integer arrays stay integers."""
    pt.manual_seed(0)
    cpu_model = make()
    dev_model = copy.deepcopy(cpu_model).to(device)
    results = []
    for model, dev in ((cpu_model, "cpu"), (dev_model, device)):
        xs = [pt.tensor(a, device=dev) if a.dtype.kind in "iub" else
              pt.tensor(a, dtype=pt.float32, device=dev, requires_grad=i not in const)
              for i, a in enumerate(inputs)]
        y = out(model(*xs))
        assert y.device.type == dev
        (y * pt.linspace(-1, 1, y.numel(), device=dev).reshape(y.shape)).sum().backward()
        grads = [x.grad for i, x in enumerate(xs) if x.requires_grad and x.grad is not None]
        pgrads = [p.grad for p in model.parameters() if p.grad is not None]
        for g in grads + pgrads:
            assert g.device.type == dev
        results.append((y, grads, pgrads))
    (y0, g0, p0), (y1, g1, p1) = results
    _close(y1, y0)
    assert len(g0) == len(g1) and len(p0) == len(p1)
    for a, b in zip(g1 + p1, g0 + p0):
        _close(a, b)


LAYERS = {
    "linear": (lambda: nn.Linear(5, 3), [(4, 5)]),
    "bilinear": (lambda: nn.Bilinear(3, 4, 2), [(5, 3), (5, 4)]),
    "conv1d": (lambda: nn.Conv1d(2, 3, 3, padding=1), [(2, 2, 7)]),
    "conv2d": (lambda: nn.Conv2d(2, 3, 3, stride=2, padding=1), [(2, 2, 6, 6)]),
    "conv2d_groups": (lambda: nn.Conv2d(4, 4, 3, groups=2, dilation=2), [(1, 4, 7, 7)]),
    "conv3d": (lambda: nn.Conv3d(1, 2, 2), [(1, 1, 3, 3, 3)]),
    "conv_transpose2d": (lambda: nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1),
                         [(1, 2, 4, 4)]),
    "conv_transpose1d": (lambda: nn.ConvTranspose1d(2, 2, 3, stride=2), [(1, 2, 5)]),
    "maxpool1d": (lambda: nn.MaxPool1d(2), [(2, 3, 8)]),
    "maxpool2d": (lambda: nn.MaxPool2d(3, stride=2, padding=1), [(2, 3, 7, 7)]),
    "avgpool2d": (lambda: nn.AvgPool2d(2, ceil_mode=True, count_include_pad=False, padding=1), [(2, 3, 5, 5)]),
    "avgpool1d": (lambda: nn.AvgPool1d(3, stride=2), [(2, 3, 9)]),
    "adaptive_avg": (lambda: nn.AdaptiveAvgPool2d((3, 2)), [(2, 3, 7, 5)]),
    "adaptive_max": (lambda: nn.AdaptiveMaxPool2d(3), [(2, 3, 7, 5)]),
    "adaptive_avg1d": (lambda: nn.AdaptiveAvgPool1d(4), [(2, 3, 9)]),
    "lppool": (lambda: nn.LPPool2d(2, 2), [(1, 2, 4, 4)]),
    "batchnorm1d": (lambda: nn.BatchNorm1d(3), [(6, 3)]),
    "batchnorm2d": (lambda: nn.BatchNorm2d(3), [(4, 3, 5, 5)]),
    "batchnorm2d_eval": (lambda: nn.BatchNorm2d(3).eval(), [(4, 3, 5, 5)]),
    "layernorm": (lambda: nn.LayerNorm(6), [(3, 4, 6)]),
    "groupnorm": (lambda: nn.GroupNorm(2, 4), [(3, 4, 5)]),
    "instancenorm": (lambda: nn.InstanceNorm2d(3, affine=True), [(2, 3, 4, 4)]),
    "rmsnorm": (lambda: nn.RMSNorm(6), [(3, 6)]),
    "localresponse": (lambda: nn.LocalResponseNorm(2), [(2, 4, 3, 3)]),
    "dropout_eval": (lambda: nn.Dropout(0.5).eval(), [(4, 5)]),
    "flatten": (lambda: nn.Sequential(nn.Flatten(), nn.Unflatten(1, (2, 6))), [(2, 3, 4)]),
    "pixelshuffle": (lambda: nn.Sequential(nn.PixelShuffle(2), nn.PixelUnshuffle(2)), [(1, 8, 3, 3)]),
    "upsample_nearest": (lambda: nn.Upsample(scale_factor=2), [(1, 2, 3, 3)]),
    "upsample_bilinear": (lambda: nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
                          [(1, 2, 3, 3)]),
    "upsample_bicubic": (lambda: nn.Upsample(size=(5, 4), mode="bicubic", align_corners=True), [(1, 2, 3, 3)]),
    "pad": (lambda: nn.Sequential(nn.ReflectionPad2d(1), nn.ReplicationPad2d((1, 0, 2, 1)), nn.ZeroPad2d(1),
                                  nn.CircularPad2d(1)), [(1, 2, 3, 3)]),
    "fold": (lambda: nn.Sequential(nn.Unfold(2), nn.Fold((4, 4), 2)), [(1, 2, 4, 4)]),
    "channelshuffle": (lambda: nn.ChannelShuffle(2), [(1, 4, 2, 2)]),
    "cosine_similarity": (lambda: nn.CosineSimilarity(), [(4, 5), (4, 5)]),
    "pairwise_distance": (lambda: nn.PairwiseDistance(), [(4, 5), (4, 5)]),
    "lstm": (lambda: nn.LSTM(3, 4, num_layers=2, bidirectional=True), [(5, 2, 3)]),
    "gru": (lambda: nn.GRU(3, 4, batch_first=True), [(2, 5, 3)]),
    "rnn": (lambda: nn.RNN(3, 4), [(5, 2, 3)]),
    "lstmcell": (lambda: nn.LSTMCell(3, 4), [(2, 3)]),
    "grucell": (lambda: nn.GRUCell(3, 4), [(2, 3)]),
    "mha": (lambda: nn.MultiheadAttention(8, 2), [(4, 2, 8), (5, 2, 8), (5, 2, 8)]),
    "mha_batch_first": (lambda: nn.MultiheadAttention(8, 2, batch_first=True, kdim=6, vdim=4),
                        [(2, 4, 8), (2, 5, 6), (2, 5, 4)]),
    "transformer_encoder_layer": (lambda: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), [(4, 2, 8)]),
    "transformer_decoder_layer": (lambda: nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True),
                                  [(4, 2, 8), (3, 2, 8)]),
    "transformer": (lambda: nn.Transformer(8, 2, 1, 1, 16, dropout=0.0), [(4, 2, 8), (3, 2, 8)]),
}
_FIRST = {"lstm", "gru", "rnn", "mha", "mha_batch_first"}   # modules that return (output, state)
_SUM = {"lstmcell"}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_agrees_across_devices(device, name):
    make, shapes = LAYERS[name]
    inputs = [_rand(*s, seed=i) for i, s in enumerate(shapes)]
    out = (lambda y: y[0]) if name in _FIRST else (lambda y: y[0] + y[1]) if name in _SUM else (lambda y: y)
    _check_module(device, make, *inputs, out=out)


def test_embedding_agrees_across_devices(device):
    idx = np.array([[0, 2, 4, 2], [1, 1, 0, 9]])
    _check_module(device, lambda: nn.Embedding(10, 3, padding_idx=1), idx)
    _check_module(device, lambda: nn.EmbeddingBag(10, 3, mode="mean"), idx)
    _check_module(device, lambda: nn.EmbeddingBag(10, 3, mode="max"), idx)


def test_packed_lstm_agrees_across_devices(device):
    from pedatorch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
    x = _rand(5, 3, 2)

    def run(dev, model):
        seqs = [pt.tensor(x[:n, i], dtype=pt.float32, device=dev) for i, n in enumerate((5, 3, 2))]
        padded = pad_sequence(seqs)
        packed = pack_padded_sequence(padded, [5, 3, 2])
        out, _ = model(packed)
        y, lengths = pad_packed_sequence(out)
        assert y.device.type == dev
        y.sum().backward()
        return y
    pt.manual_seed(0)
    m = nn.LSTM(2, 3)
    m2 = copy.deepcopy(m).to(device)
    _close(run(device, m2), run("cpu", m))
    for p, q in zip(m2.parameters(), m.parameters()):
        _close(p.grad, q.grad)


def test_scaled_dot_product_attention(device):
    q, k, v = _rand(2, 3, 4, 8, seed=0), _rand(2, 3, 5, 8, seed=1), _rand(2, 3, 5, 8, seed=2)
    res = []
    for dev in ("cpu", device):
        ts = _on(dev, q, k, v, grad=True)
        y = F.scaled_dot_product_attention(*ts) + F.scaled_dot_product_attention(*[t[..., :4, :] for t in ts],
                                                                                  is_causal=True).sum()
        y.sum().backward()
        res.append([y] + [t.grad for t in ts])
    for a, b in zip(res[1], res[0]):
        assert a.device.type == device
        _close(a, b)


# every loss: (module, input shapes, target maker)
def _cls(n, c, seed=3):
    return np.random.default_rng(seed).integers(0, c, n)


LOSSES = {
    "l1": (lambda: nn.L1Loss(), (4, 3), lambda: _rand(4, 3, seed=5)),
    "mse": (lambda: nn.MSELoss(), (4, 3), lambda: _rand(4, 3, seed=5)),
    "smooth_l1": (lambda: nn.SmoothL1Loss(beta=0.5), (4, 3), lambda: _rand(4, 3, seed=5)),
    "huber": (lambda: nn.HuberLoss(delta=0.7), (4, 3), lambda: _rand(4, 3, seed=5)),
    "cross_entropy": (lambda: nn.CrossEntropyLoss(weight=pt.tensor([1., 2., .5])), (4, 3), lambda: _cls(4, 3)),
    "cross_entropy_smooth": (lambda: nn.CrossEntropyLoss(label_smoothing=0.1, ignore_index=1), (5, 3, 2),
                             lambda: _cls(10, 3).reshape(5, 2)),
    "cross_entropy_probs": (lambda: nn.CrossEntropyLoss(), (4, 3), lambda: np.abs(_rand(4, 3, seed=5))),
    "nll": (lambda: nn.NLLLoss(reduction="sum"), (4, 3), lambda: _cls(4, 3)),
    "bce": (lambda: _AfterSigmoid(nn.BCELoss(weight=pt.tensor([1., 2., 3.]))), (4, 3),
            lambda: np.random.default_rng(5).random((4, 3))),
    "bce_logits": (lambda: nn.BCEWithLogitsLoss(pos_weight=pt.tensor([1., 2., 3.])), (4, 3),
                   lambda: np.random.default_rng(5).random((4, 3))),
    "kl_div": (lambda: nn.KLDivLoss(reduction="batchmean", log_target=True), (4, 3), lambda: _rand(4, 3, seed=5)),
    "poisson_nll": (lambda: nn.PoissonNLLLoss(), (4, 3), lambda: np.abs(_rand(4, 3, seed=5))),
    "gaussian_nll": (lambda: _Triple(nn.GaussianNLLLoss(), np.abs(_rand(4, 3, seed=7)) + 0.1), (4, 3),
                     lambda: _rand(4, 3, seed=5)),
    "hinge_embedding": (lambda: nn.HingeEmbeddingLoss(), (4, 3), lambda: np.sign(_rand(4, 3, seed=5))),
    "soft_margin": (lambda: nn.SoftMarginLoss(), (4, 3), lambda: np.sign(_rand(4, 3, seed=5))),
    "multilabel_soft_margin": (lambda: nn.MultiLabelSoftMarginLoss(), (4, 3),
                               lambda: (_rand(4, 3, seed=5) > 0).astype(np.float64)),
    "multilabel_margin": (lambda: nn.MultiLabelMarginLoss(), (2, 4),
                          lambda: np.array([[3, 0, -1, 1], [1, 2, 3, -1]])),
    "multi_margin": (lambda: nn.MultiMarginLoss(p=2, margin=0.5, weight=pt.tensor([1., 2., .5])), (4, 3),
                     lambda: _cls(4, 3)),
    "margin_ranking": (lambda: _Triple(nn.MarginRankingLoss(0.2), _rand(4, seed=8)), (4,),
                       lambda: np.sign(_rand(4, seed=5))),
    "cosine_embedding": (lambda: _Triple(nn.CosineEmbeddingLoss(0.1), _rand(4, 3, seed=8)), (4, 3),
                         lambda: np.sign(_rand(4, seed=5))),
    "triplet_margin": (lambda: _Triple(nn.TripletMarginLoss(), _rand(4, 3, seed=8), _rand(4, 3, seed=9)), (4, 3),
                       None),
    "triplet_margin_distance": (lambda: _Triple(nn.TripletMarginWithDistanceLoss(swap=True), _rand(4, 3, seed=8),
                                                _rand(4, 3, seed=9)), (4, 3), None),
    "ctc": (lambda: _CTC(), (6, 2, 4), None),
}


class _Pair(nn.Module):
    """A loss on (input, target) as a one-input module (the target is the second input)."""

    def __init__(self, loss):
        super().__init__()
        self.loss = loss

    def forward(self, x, t):
        return self.loss(x, t)


class _AfterSigmoid(_Pair):
    """A loss on (sigmoid(input), target)."""

    def forward(self, x, t):
        return self.loss(x.sigmoid(), t)


class _Triple(nn.Module):
    """A loss that takes an extra tensor argument (held as a buffer, so ``.to`` moves it)."""

    def __init__(self, loss, *extra):
        super().__init__()
        self.loss = loss
        for i, e in enumerate(extra):
            self.register_buffer(f"e{i}", pt.tensor(e, dtype=pt.float32))
        self.n = len(extra)

    def forward(self, x, t=None):
        extra = [getattr(self, f"e{i}") for i in range(self.n)]
        if t is None:
            return self.loss(x, *extra)
        if isinstance(self.loss, nn.GaussianNLLLoss):
            return self.loss(x, t, *extra)
        return self.loss(x, *extra, t)


class _CTC(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss = nn.CTCLoss()

    def forward(self, x):
        dev = x.device
        targets = pt.tensor([[1, 2, 1], [3, 3, 0]], device=dev)
        return self.loss(x.log_softmax(-1), targets, pt.tensor([6, 5], device=dev), pt.tensor([3, 2], device=dev))


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_agrees_across_devices(device, name):
    make, shape, target = LOSSES[name]
    x = _rand(*shape, seed=1)
    if target is None:
        _check_module(device, make, x)
        return

    def wrap():
        loss = make()
        return loss if isinstance(loss, (_Pair, _Triple)) else _Pair(loss)
    _check_module(device, wrap, x, target(), const=(1,))


def test_functional_losses_with_reductions(device):
    x, t = _rand(4, 3, seed=1), _rand(4, 3, seed=2)
    for reduction in ("none", "sum", "mean"):
        res = []
        for dev in ("cpu", device):
            a, b = _on(dev, x, t, grad=True)
            y = F.mse_loss(a, b, reduction=reduction).sum() + F.l1_loss(a, b, reduction=reduction).sum() + \
                F.smooth_l1_loss(a, b, reduction=reduction).sum() + F.huber_loss(a, b, reduction=reduction).sum()
            y.backward()
            res.append((y, a.grad, b.grad))
        for g, w in zip(res[1], res[0]):
            assert g.device.type == device
            _close(g, w)


def test_functional_misc(device):
    x = _rand(2, 3, 5, 5, seed=1)
    res = []
    for dev in ("cpu", device):
        (a,) = _on(dev, x, grad=True)
        theta = pt.tensor([[[1., .1, 0.], [-.1, 1., .2]]] * 2, device=dev)
        grid = F.affine_grid(theta, (2, 3, 4, 4), align_corners=False)
        ys = [F.grid_sample(a, grid, align_corners=False), F.grid_sample(a, grid, mode="nearest", align_corners=False),
              F.interpolate(a, scale_factor=1.5, mode="bilinear"), F.interpolate(a, size=(3, 7), mode="area"),
              F.pad(a, (1, 2, 0, 1), mode="reflect"), F.normalize(a, dim=1), F.unfold(a, 3, padding=1),
              F.pdist(a.reshape(6, -1)), F.cdist(a.reshape(6, -1), a.reshape(6, -1)[:3]),
              F.one_hot(pt.tensor([0, 2, 1], device=dev), 4).float(),
              F.embedding(pt.tensor([1, 0], device=dev), a.detach().reshape(10, -1) * 1, max_norm=1.0),
              F.linear(a.reshape(6, 25), a.reshape(6, 25)[:2], a.reshape(-1)[:2]),
              F.dropout(a, 0.3, training=False), F.alpha_dropout(a, 0.3, training=False)]
        y = sum(v.sum() for v in ys)
        y.backward()
        for v in ys:
            assert v.device.type == dev
        res.append([*ys, a.grad])
    for g, w in zip(res[1], res[0]):
        assert g.device.type == device
        _close(g, w, atol=1e-5)


def test_dropout_training_stays_on_device(device):
    x = pt.ones(50, 40, device=device, requires_grad=True)
    for fn in (F.dropout, F.dropout1d, F.alpha_dropout, F.feature_alpha_dropout):
        y = fn(x.reshape(50, 40, 1) if fn is F.dropout1d else x, 0.5, training=True)
        assert y.device.type == device
        y.sum().backward()
        assert x.grad.device.type == device
        frac = float((to_host(y.detach()._data) == 0).mean())
        assert 0.3 < frac < 0.7 or fn in (F.alpha_dropout, F.feature_alpha_dropout)
    y = F.dropout2d(pt.ones(4, 8, 3, 3, device=device), 0.5)
    assert y.device.type == device


# optimizers: one model, a few steps, same parameters afterwards
OPTIMIZERS = {
    "sgd": lambda p: pt.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "sgd_plain": lambda p: pt.optim.SGD(p, lr=0.1),
    "adam": lambda p: pt.optim.Adam(p, lr=0.01, amsgrad=True),
    "adam_foreach": lambda p: pt.optim.Adam(p, lr=0.01, foreach=True),
    "adamw": lambda p: pt.optim.AdamW(p, lr=0.01, weight_decay=0.1),
    "adamw_foreach": lambda p: pt.optim.AdamW(p, lr=0.01, foreach=True),
    "rmsprop": lambda p: pt.optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True),
    "adagrad": lambda p: pt.optim.Adagrad(p, lr=0.1),
    "adadelta": lambda p: pt.optim.Adadelta(p),
    "adamax": lambda p: pt.optim.Adamax(p, lr=0.01),
    "nadam": lambda p: pt.optim.NAdam(p, lr=0.01),
    "radam": lambda p: pt.optim.RAdam(p, lr=0.01),
    "asgd": lambda p: pt.optim.ASGD(p, lr=0.01),
    "rprop": lambda p: pt.optim.Rprop(p, lr=0.01),
    "lbfgs": lambda p: pt.optim.LBFGS(p, lr=0.5, max_iter=4),
}


def _train(device, make_model, make_opt, x, y, steps=3, loss_fn=None, clip=False, scheduler=None):
    pt.manual_seed(0)
    model = make_model().to(device)
    opt = make_opt(model.parameters())
    sched = scheduler(opt) if scheduler else None
    xs = pt.tensor(x, dtype=pt.float32, device=device)
    ys = pt.tensor(y, device=device) if y.dtype.kind == "i" else pt.tensor(y, dtype=pt.float32, device=device)
    loss_fn = loss_fn or nn.MSELoss()
    losses = []
    for _ in range(steps):
        def closure():
            opt.zero_grad()
            loss = loss_fn(model(xs), ys)
            loss.backward()
            if clip:
                nn.utils.clip_grad_norm_(model.parameters(), 0.5)
                nn.utils.clip_grad_value_(model.parameters(), 0.1)
            return loss
        loss = opt.step(closure)
        if sched:
            sched.step()
        losses.append(float(loss))
    for p in model.parameters():
        assert p.device.type == device and p.grad.device.type == device
    for state in opt.state.values():
        for v in state.values():
            if isinstance(v, pt.Tensor) and v.dim() > 0:
                assert v.device.type == device
    return losses, [p.detach() for p in model.parameters()]


def _check_training(device, *args, atol=1e-6, **kw):
    l0, p0 = _train("cpu", *args, **kw)
    l1, p1 = _train(device, *args, **kw)
    np.testing.assert_allclose(l1, l0, rtol=1e-6, atol=atol)
    for a, b in zip(p1, p0):
        _close(a, b, atol=atol)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_step_agrees_across_devices(device, name):
    x, y = _rand(8, 4, seed=1), _rand(8, 2, seed=2)
    _check_training(device, lambda: nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2)),
                    OPTIMIZERS[name], x, y)


@pytest.mark.parametrize("sched", ["step", "cosine", "onecycle", "plateau_free", "cyclic"])
def test_scheduler_and_clipping_on_device(device, sched):
    make = {"step": lambda o: pt.optim.lr_scheduler.StepLR(o, 1, 0.5),
            "cosine": lambda o: pt.optim.lr_scheduler.CosineAnnealingLR(o, 5),
            "onecycle": lambda o: pt.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=10),
            "plateau_free": lambda o: pt.optim.lr_scheduler.LinearLR(o),
            "cyclic": lambda o: pt.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=2)}[sched]
    x, y = _rand(8, 4, seed=1), _rand(8, 2, seed=2)
    _check_training(device, lambda: nn.Linear(4, 2), lambda p: pt.optim.SGD(p, lr=0.1, momentum=0.9), x, y,
                    clip=True, scheduler=make)


def test_plateau_scheduler_and_swa_on_device(device):
    from pedatorch.optim.swa_utils import AveragedModel, SWALR
    pt.manual_seed(0)
    model = nn.Linear(3, 1).to(device)
    opt = pt.optim.SGD(model.parameters(), lr=0.1)
    plateau = pt.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    swa = AveragedModel(model)
    swalr = SWALR(opt, swa_lr=0.05)
    x = pt.ones(4, 3, device=device)
    for _ in range(3):
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        plateau.step(loss)
        swa.update_parameters(model)
        swalr.step()
    for p in swa.parameters():
        assert p.device.type == device


def test_mlp_training_agrees_across_devices(device):
    x, y = _rand(16, 10, seed=1), _cls(16, 4)
    _check_training(device, lambda: nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Dropout(0.0),
                                                  nn.Linear(32, 32), nn.GELU(), nn.LayerNorm(32),
                                                  nn.Linear(32, 4)),
                    lambda p: pt.optim.Adam(p, lr=0.01), x, y, steps=5, loss_fn=nn.CrossEntropyLoss())


def test_cnn_training_agrees_across_devices(device):
    x, y = _rand(4, 1, 12, 12, seed=1), _cls(4, 3)
    _check_training(device, lambda: nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(),
                                                  nn.MaxPool2d(2), nn.Conv2d(4, 6, 3, padding=1), nn.ReLU(),
                                                  nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(24, 3)),
                    lambda p: pt.optim.SGD(p, lr=0.05, momentum=0.9), x, y, steps=4,
                    loss_fn=nn.CrossEntropyLoss(), atol=1e-5)


def test_module_moves_and_utils_on_device(device):
    from pedatorch.nn.utils import parameters_to_vector, vector_to_parameters
    from pedatorch.nn.utils.parametrizations import weight_norm, spectral_norm, orthogonal
    pt.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)).to(device)
    for t in list(m.parameters()) + list(m.buffers()):
        assert t.device.type == device
    v = parameters_to_vector(m.parameters())
    assert v.device.type == device
    vector_to_parameters(v * 2, m.parameters())
    sd = m.state_dict()
    m2 = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    m2.load_state_dict(sd)
    assert m2[0].weight.device.type == "cpu"
    assert m.cpu()[0].weight.device.type == "cpu"
    x = pt.ones(2, 3, device=device)
    for wrap in (weight_norm, spectral_norm, orthogonal):
        layer = wrap(nn.Linear(3, 3)).to(device)
        y = layer(x)
        assert y.device.type == device
        y.sum().backward()


# functional ops of conv/pooling/vision/sparse/attention/loss/normalization/distance, forward and backward
def _ctc_1d(x):
    dev = x.device
    return F.ctc_loss(x.log_softmax(-1), pt.tensor([1, 2, 1, 3, 3], device=dev), [6, 5], [3, 2], reduction="sum",
                      zero_infinity=True)


FUNCTIONAL = {
    "max_pool_indices_unpool": lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2, output_size=(5, 5)),
    "max_pool_dilated_nan": lambda x: F.max_pool2d(x.masked_fill(x > 1.5, float("nan")), 3, 1, 1, dilation=2),
    "max_pool_ceil": lambda x: F.max_pool2d(x, 3, 2, ceil_mode=True),
    "max_pool3d": lambda x: F.max_pool3d(x.unsqueeze(2).expand(-1, -1, 3, -1, -1), 2, padding=1),
    "avg_pool3d": lambda x: F.avg_pool3d(x.unsqueeze(2).expand(-1, -1, 3, -1, -1), 2, ceil_mode=True),
    "avg_pool_divisor": lambda x: F.avg_pool2d(x, 3, 2, 1, divisor_override=4),
    "adaptive3d": lambda x: F.adaptive_max_pool3d(x.unsqueeze(2), (1, 3, 2)) + F.adaptive_avg_pool3d(x.unsqueeze(2),
                                                                                                    (1, 3, 2)),
    "adaptive_max1d": lambda x: F.adaptive_max_pool1d(x.flatten(2), 7),
    "lp_pool1d": lambda x: F.lp_pool1d(x.flatten(2).abs() + 0.1, 3, 4),
    "max_pool1d": lambda x: F.max_pool1d(x.flatten(2), 4, 3),
    "conv3d_transpose": lambda x: F.conv_transpose3d(x.unsqueeze(2), x[0, :, :2, :2].unsqueeze(1).unsqueeze(2), stride=2),
    "conv_padding_same": lambda x: F.conv2d(x, x[:2, :, :3, :2], padding="same", dilation=2),
    "conv1d_groups": lambda x: F.conv1d(x.flatten(2), x[0, :, 0, :3].unsqueeze(1), groups=3),
    "fold": lambda x: F.fold(F.unfold(x, 2, stride=1, padding=1), (5, 5), 2, stride=1, padding=1),
    "interp_area": lambda x: F.interpolate(x, size=(2, 3), mode="area"),
    "interp_nearest_exact": lambda x: F.interpolate(x, scale_factor=1.7, mode="nearest-exact"),
    "interp_bicubic_aa": lambda x: F.interpolate(x, size=(3, 2), mode="bicubic", antialias=True),
    "interp_bilinear_aa": lambda x: F.interpolate(x, size=(2, 4), mode="bilinear", antialias=True),
    "interp_linear": lambda x: F.interpolate(x.flatten(2), size=11, mode="linear", align_corners=True),
    "interp_trilinear": lambda x: F.interpolate(x.unsqueeze(2), size=(2, 3, 4), mode="trilinear"),
    "grid_sample_bicubic": lambda x: F.grid_sample(x, x[:, :2].permute(0, 2, 3, 1).tanh() * 1.2, mode="bicubic",
                                                   padding_mode="reflection", align_corners=True),
    "grid_sample_border": lambda x: F.grid_sample(x, x[:, 1:3].permute(0, 2, 3, 1) * 0.8, padding_mode="border",
                                                  align_corners=False),
    "grid_sample_3d": lambda x: F.grid_sample(x.unsqueeze(2).expand(-1, -1, 2, -1, -1),
                                              x[:, :3, :1].permute(0, 2, 3, 1).unsqueeze(1).tanh(),
                                              align_corners=False),
    "affine_grid_3d": lambda x: F.affine_grid(x[:, 0, :3, :4], (2, 1, 2, 3, 2), align_corners=True),
    "pad_modes": lambda x: F.pad(x, (1, 1, 2, 0), mode="replicate") .sum() + F.pad(x, (2, 1, 1, 0), mode="circular").sum()
    + F.pad(x, (1, 1), value=2.5).sum(),
    "pixel_shuffle": lambda x: F.pixel_unshuffle(F.pixel_shuffle(x[:, :3].repeat(1, 4, 1, 1), 2), 2),
    "normalize_layer_group": lambda x: F.layer_norm(x, (5,)) + F.group_norm(x, 3) + F.normalize(x, p=1, dim=2)
    + F.instance_norm(x) + F.rms_norm(x, (5, 5)) + F.local_response_norm(x, 2),
    "batch_norm_train": lambda x: F.batch_norm(x, pt.zeros(3, device=x.device, dtype=x.dtype), pt.ones(3, device=x.device, dtype=x.dtype),
                                               training=True, momentum=0.3),
    "pdist_p": lambda x: F.pdist(x.flatten(1), p=1) + F.pdist(x.flatten(1), p=3) + F.pdist(x.flatten(1), p=0.5),
    "cdist": lambda x: F.cdist(x.flatten(2), x.flatten(2)[:, :2], p=float("inf")).sum()
    + F.cdist(x.flatten(2), x.flatten(2)).sum(),
    "cosine_pairwise": lambda x: F.cosine_similarity(x, x.flip(0), dim=1).sum() + F.pairwise_distance(x, x.flip(0), p=3).sum(),
    "bilinear": lambda x: F.bilinear(x[0, 0], x[1, 0], x.flatten()[:75].reshape(3, 5, 5), x[0, 0, 0, :3]),
    "sdpa_mask_gqa": lambda x: F.scaled_dot_product_attention(
        x[:, :2].reshape(1, 4, 5, 5)[:, :4], x[:, 1:2].reshape(1, 2, 5, 5), x[:, 2:3].reshape(1, 2, 5, 5),
        attn_mask=pt.tril(pt.ones(5, 5, dtype=pt.bool, device=x.device)), enable_gqa=True),
    "sdpa_float_mask": lambda x: F.scaled_dot_product_attention(x, x, x, attn_mask=x[0, 0] * 0.1),
    "embedding_bag_offsets": lambda x: F.embedding_bag(pt.tensor([1, 2, 4, 5, 4, 3, 2, 9], device=x.device),
                                                       x.reshape(10, 15),
                                                       pt.tensor([0, 2, 2, 5], device=x.device), mode="sum",
                                                       per_sample_weights=x.flatten()[:8]),
    "embedding_bag_max_pad": lambda x: F.embedding_bag(pt.tensor([[1, 2, 4], [5, 0, 0]], device=x.device),
                                                       x.reshape(10, 15), mode="max", padding_idx=0),
    "embedding_scale_grad": lambda x: F.embedding(pt.tensor([[1, 2, 1], [0, 2, 9]], device=x.device),
                                                  x.reshape(10, 15), padding_idx=2, scale_grad_by_freq=True),
    "one_hot": lambda x: F.one_hot(pt.tensor([3, 0, 1], device=x.device)).float() * x.sum(),
    "losses_misc": lambda x: F.nll_loss(x.flatten(2).log_softmax(1), pt.tensor([[0, 1] * 12 + [2]] * 2,
                                                                                device=x.device), ignore_index=1)
    + F.cross_entropy(x.flatten(2), x.flatten(2).softmax(1).detach(), label_smoothing=0.2)
    + F.binary_cross_entropy(x.sigmoid(), (x > 0).to(x.dtype), reduction="sum")
    + F.poisson_nll_loss(x, x.abs(), log_input=False, full=True)
    + F.gaussian_nll_loss(x, x.flip(0), x.abs() + 0.5, full=True)
    + F.kl_div(x.log_softmax(1), x.flip(0).softmax(1), reduction="sum")
    + F.multilabel_soft_margin_loss(x.flatten(1), (x.flatten(1) > 0).to(x.dtype), weight=x.flatten(1)[0].detach()),
    "ctc_1d_targets": lambda x: _ctc_1d(x.flatten()[:48].reshape(6, 2, 4)),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONAL))
def test_functional_agrees_across_devices(device, name):
    data = _rand(2, 3, 5, 5, seed=4)
    res = []
    for dev in ("cpu", device):
        (x,) = _on(dev, data, grad=True, dtype=pt.float64)
        y = FUNCTIONAL[name](x)
        assert y.device.type == dev
        (y * pt.linspace(-1, 1, y.numel(), device=dev, dtype=y.dtype).reshape(y.shape)).sum().backward()
        assert x.grad is None or x.grad.device.type == dev
        res.append((y, x.grad))
    _close(res[1][0], res[0][0], atol=1e-9)
    if res[0][1] is not None:
        _close(res[1][1], res[0][1], atol=1e-9)


@pytest.mark.parametrize("name", ["sgd", "adam", "adamw", "rmsprop", "adagrad", "adadelta", "adamax", "nadam",
                                  "radam", "asgd", "rprop"])
def test_foreach_optimizers_agree_across_devices(device, name):
    cls = {"sgd": pt.optim.SGD, "adam": pt.optim.Adam, "adamw": pt.optim.AdamW, "rmsprop": pt.optim.RMSprop,
           "adagrad": pt.optim.Adagrad, "adadelta": pt.optim.Adadelta, "adamax": pt.optim.Adamax,
           "nadam": pt.optim.NAdam, "radam": pt.optim.RAdam, "asgd": pt.optim.ASGD, "rprop": pt.optim.Rprop}[name]
    kw = {"lr": 0.01, "maximize": True} if name != "sgd" else {"lr": 0.01, "momentum": 0.9, "maximize": True}
    if name != "rprop":
        kw["weight_decay"] = 0.01
    x, y = _rand(8, 4, seed=1), _rand(8, 2, seed=2)
    _check_training(device, lambda: nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2)),
                    lambda p: cls(p, foreach=True, **kw), x, y)


def test_sparse_adam_and_lbfgs_line_search_on_device(device):
    idx = np.array([[0, 2, 4], [1, 1, 3]])
    res = []
    for dev in ("cpu", device):
        pt.manual_seed(0)
        emb = nn.Embedding(6, 3, sparse=False).to(dev)
        opt = pt.optim.LBFGS(emb.parameters(), lr=1, max_iter=5, line_search_fn="strong_wolfe")
        t = pt.tensor(idx, device=dev)

        def closure():
            opt.zero_grad()
            loss = (emb(t) ** 2).sum() + emb.weight.sum()
            loss.backward()
            return loss
        for _ in range(2):
            opt.step(closure)
        assert emb.weight.device.type == dev
        res.append(emb.weight.detach())
    _close(res[1], res[0], atol=1e-5)


def test_packed_sequences_unsorted_on_device(device):
    from pedatorch.nn.utils.rnn import pack_sequence, pad_packed_sequence, unpack_sequence, unpad_sequence
    data = [_rand(n, 3, seed=n) for n in (2, 5, 3)]
    res = []
    for dev in ("cpu", device):
        seqs = [pt.tensor(a, dtype=pt.float32, device=dev, requires_grad=True) for a in data]
        packed = pack_sequence(seqs, enforce_sorted=False)
        assert packed.data.device.type == dev
        pt.manual_seed(0)
        gru = nn.GRU(3, 2, bidirectional=True).to(dev)
        out, h = gru(packed)
        padded, lengths = pad_packed_sequence(out, batch_first=True, padding_value=-1.0)
        assert lengths.device.type == "cpu"    # (PyTorch: lengths stay on the CPU)
        back = unpack_sequence(out)
        unp = unpad_sequence(padded, lengths, batch_first=True)
        (padded.sum() + h.sum() + sum(b.sum() for b in back) + sum(u.sum() for u in unp)).backward()
        res.append([padded, h] + [s.grad for s in seqs])
    for a, b in zip(res[1], res[0]):
        assert a.device.type == device
        _close(a, b)


def test_transformer_masks_on_device(device):
    src, tgt = _rand(2, 5, 8, seed=1), _rand(2, 4, 8, seed=2)
    res = []
    for dev in ("cpu", device):
        pt.manual_seed(0)
        model = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, batch_first=True).to(dev)
        mha = nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True).to(dev)
        s, t = _on(dev, src, tgt, grad=True)
        mask = nn.Transformer.generate_square_subsequent_mask(4, device=dev)
        kpm = pt.tensor([[False] * 5, [False] * 3 + [True] * 2], device=dev)
        y = model(s, t, tgt_mask=mask, src_key_padding_mask=kpm, memory_key_padding_mask=kpm, tgt_is_causal=True)
        a, w = mha(t.transpose(0, 1), s.transpose(0, 1), s.transpose(0, 1), key_padding_mask=kpm,
                   average_attn_weights=False)
        (y.sum() + a.sum() + w.sum()).backward()
        res.append([y, a, w, s.grad, t.grad] + [p.grad for p in model.parameters()])
    for a, b in zip(res[1], res[0]):
        assert a.device.type == device
        _close(a, b, atol=1e-5)


def test_module_utils_clip_foreach_and_norms(device):
    res = []
    for dev in ("cpu", device):
        pt.manual_seed(0)
        m = nn.Sequential(nn.Linear(4, 5), nn.Linear(5, 3)).to(dev)
        m(pt.ones(2, 4, device=dev)).pow(2).sum().backward()
        n1 = nn.utils.clip_grad_norm_(m.parameters(), 0.1, norm_type=3.0, foreach=True)
        n2 = nn.utils.get_total_norm([p.grad for p in m.parameters()], norm_type=float("inf"))
        nn.utils.clip_grads_with_norm_(m.parameters(), 0.05, n2)
        assert n1.device.type == dev and n2.device.type == dev
        res.append([n1, n2] + [p.grad for p in m.parameters()])
    for a, b in zip(res[1], res[0]):
        _close(a, b)


def test_autocast_gradscaler_and_checkpoint_on_device(device):
    """Mixed precision (autocast to float16, GradScaler) and activation checkpointing on the device: the same
    training steps as on the CPU (float16 rounds differently on a GPU: compared to float16's precision)."""
    from pedatorch.utils.checkpoint import checkpoint

    def run(dev):
        pt.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).to(dev)
        opt = pt.optim.SGD(model.parameters(), lr=0.1)
        scaler = pt.amp.GradScaler(dev, init_scale=2.0 ** 10)
        x = pt.tensor(_rand(6, 8, seed=1), dtype=pt.float32, device=dev)
        y = pt.tensor([0, 1, 2, 3, 0, 1], device=dev)
        kinds = []
        for _ in range(3):
            opt.zero_grad()
            with pt.autocast(device_type=dev, dtype=pt.float16):
                h = model[0](x)
                kinds.append(h.dtype)
                out = checkpoint(lambda t: model[2](model[1](t)), h, use_reentrant=False)
                loss = F.cross_entropy(out, y)
            kinds.append(loss.dtype)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        assert all(p.device.type == dev and p.dtype == pt.float32 and p.grad.device.type == dev
                   for p in model.parameters())
        return kinds, model[0].weight, loss
    (k_cpu, w_cpu, l_cpu), (k_dev, w_dev, l_dev) = run("cpu"), run(device)
    assert k_cpu == k_dev == [pt.float16, pt.float32] * 3
    np.testing.assert_allclose(_host(w_dev), _host(w_cpu), rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(_host(l_dev), _host(l_cpu), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("reentrant", [False, True])
def test_checkpoint_replays_the_devices_random_numbers(device, reentrant):
    """A dropout inside a checkpoint draws the same mask when it is recomputed, on the device's generator."""
    from pedatorch.utils.checkpoint import checkpoint

    def grads(use_checkpoint):
        pt.manual_seed(3)
        x = pt.tensor(_rand(4, 8), dtype=pt.float32, device=device, requires_grad=True)
        f = lambda t: F.dropout(t.sin(), 0.5, training=True) * 2   # noqa: E731
        y = checkpoint(f, x, use_reentrant=reentrant) if use_checkpoint else f(x)
        y.pow(2).sum().backward()
        return y, x.grad
    (y1, g1), (y2, g2) = grads(True), grads(False)
    assert g1.device.type == device
    np.testing.assert_array_equal(_host(y1), _host(y2))
    np.testing.assert_array_equal(_host(g1), _host(g2))
