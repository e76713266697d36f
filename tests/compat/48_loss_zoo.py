# Every loss of torch.nn.functional / torch.nn as the "Loss Functions" section of the torch.nn docs describes
# them, with their documented arguments: reduction 'none' / 'mean' / 'sum', class weights, ignore_index,
# label_smoothing, class-probability targets, K-dimensional inputs (N, C, d1, d2), kl_div's log_target,
# poisson_nll_loss (log_input, full, eps), gaussian_nll_loss (full, eps, a broadcast variance), huber / smooth
# L1 (delta, beta), the margin losses, triplet losses (p, swap, a custom distance), ctc_loss (blank,
# zero_infinity) and the BCE pair (weight, pos_weight).  Each prints its value and the input's gradient;
# then the loss modules (repr, forward), and the errors for bad shapes and targets.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def show(name, fn, *inputs):
    """Evaluate fn(*inputs) for each reduction, print the loss and the gradients of the inputs that need them."""
    for reduction in ("none", "mean", "sum"):
        for t in inputs:
            t.grad = None
        loss = fn(*inputs, reduction=reduction)
        loss.sum().backward()
        grads = [t.grad for t in inputs if t.requires_grad]
        print(f"{name} [{reduction}]", loss.detach(), loss.grad_fn.name() if reduction != "none" else "")
        for g in grads:
            print("  grad", g)


def err(label, fn):
    try:
        out = fn()
        print(label, "no error:", out)
    except Exception as e:
        print(label, type(e).__name__, e)


# ---------------------------------------------------------------- regression losses
x = torch.randn(3, 4, requires_grad=True)
y = torch.randn(3, 4)
show("l1_loss", F.l1_loss, x, y)
show("mse_loss", F.mse_loss, x, y)
for beta in (1.0, 0.5, 0.0):
    show(f"smooth_l1 beta={beta}", lambda a, b, reduction: F.smooth_l1_loss(a, b, reduction=reduction, beta=beta),
         x, y)
for delta in (1.0, 0.3, 2.5):
    show(f"huber delta={delta}", lambda a, b, reduction: F.huber_loss(a, b, reduction=reduction, delta=delta),
         x, y)

# target needs grad too: both sides get gradients
y2 = torch.randn(3, 4, requires_grad=True)
loss = F.mse_loss(x, y2)
loss.backward()
print("mse target grad", y2.grad)
x.grad = None

# broadcasting warns in PyTorch and still computes; show the value only
import warnings
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print("mse broadcast", F.mse_loss(torch.ones(3, 1), torch.zeros(3, 4)).item(), len(w) > 0)
    print("l1 broadcast", F.l1_loss(torch.ones(2, 3), torch.arange(3.)).item())

# ---------------------------------------------------------------- classification: nll / cross_entropy
logits = torch.randn(5, 4, requires_grad=True)
target = torch.tensor([0, 3, 1, 3, 2])
weight = torch.tensor([1.0, 2.0, 0.5, 1.5])
show("cross_entropy", F.cross_entropy, logits, target)
show("cross_entropy weight", lambda a, b, reduction: F.cross_entropy(a, b, weight=weight, reduction=reduction),
     logits, target)
tgt_ign = torch.tensor([0, -100, 1, 3, -100])
show("cross_entropy ignore -100", F.cross_entropy, logits, tgt_ign)
tgt_ign2 = torch.tensor([0, 3, 1, 3, 2])
show("cross_entropy ignore_index=3",
     lambda a, b, reduction: F.cross_entropy(a, b, ignore_index=3, weight=weight, reduction=reduction),
     logits, tgt_ign2)
for ls in (0.1, 0.5):
    show(f"cross_entropy label_smoothing={ls}",
         lambda a, b, reduction: F.cross_entropy(a, b, label_smoothing=ls, reduction=reduction), logits, target)
    show(f"cross_entropy ls={ls} weight ignore",
         lambda a, b, reduction: F.cross_entropy(a, b, weight=weight, ignore_index=1, label_smoothing=ls,
                                                 reduction=reduction), logits, target)

# class-probability targets
probs = torch.softmax(torch.randn(5, 4), dim=1)
show("cross_entropy probs", F.cross_entropy, logits, probs)
show("cross_entropy probs weight ls",
     lambda a, b, reduction: F.cross_entropy(a, b, weight=weight, label_smoothing=0.2, reduction=reduction),
     logits, probs)
# a single sample without batch dimension
one = torch.randn(4, requires_grad=True)
print("cross_entropy unbatched", F.cross_entropy(one, torch.tensor(2)))
print("cross_entropy unbatched probs", F.cross_entropy(one, torch.tensor([0.1, 0.2, 0.3, 0.4])))

# nll on log-probabilities, K-dimensional (N, C, d1, d2)
lp = F.log_softmax(torch.randn(2, 3, 2, 3), dim=1).detach().requires_grad_()
tgt4 = torch.tensor([[[0, 1, 2], [2, 1, 0]], [[1, 1, -100], [0, 2, 2]]])
show("nll_loss 4d", F.nll_loss, lp, tgt4)
show("nll_loss 4d weight", lambda a, b, reduction: F.nll_loss(a, b, weight=weight[:3], reduction=reduction),
     lp, tgt4)
show("cross_entropy 4d ls",
     lambda a, b, reduction: F.cross_entropy(a, b, label_smoothing=0.1, reduction=reduction), lp, tgt4)
lp3 = torch.randn(2, 3, 5, requires_grad=True)
tgt3 = torch.randint(0, 3, (2, 5))
show("cross_entropy 3d", F.cross_entropy, lp3, tgt3)
show("cross_entropy 3d probs", F.cross_entropy, lp3, torch.softmax(torch.randn(2, 3, 5), 1))
lpn = F.log_softmax(torch.randn(4, 3), 1).detach().requires_grad_()
show("nll_loss", F.nll_loss, lpn, torch.tensor([2, 0, 1, 1]))
print("nll all ignored mean", F.nll_loss(lpn, torch.full((4,), -100)))
print("ce all ignored mean", F.cross_entropy(lpn, torch.full((4,), -100)))
print("ce all ignored sum", F.cross_entropy(lpn, torch.full((4,), -100), reduction="sum"))
print("ce double", F.cross_entropy(torch.randn(3, 4, dtype=torch.float64), torch.tensor([0, 1, 2])))

# ---------------------------------------------------------------- binary cross entropy
p = torch.rand(3, 4).clamp(0.05, 0.95).requires_grad_()
yb = torch.randint(0, 2, (3, 4)).float()
show("binary_cross_entropy", F.binary_cross_entropy, p, yb)
wb = torch.rand(3, 4)
show("binary_cross_entropy weight",
     lambda a, b, reduction: F.binary_cross_entropy(a, b, weight=wb, reduction=reduction), p, yb)
show("bce weight broadcast", lambda a, b, reduction: F.binary_cross_entropy(a, b, weight=torch.tensor(
    [1.0, 0.5, 2.0, 1.0]), reduction=reduction), p, yb)
print("bce at 0 and 1", F.binary_cross_entropy(torch.tensor([0.0, 1.0, 0.0]), torch.tensor([0.0, 1.0, 1.0]),
                                               reduction="none"))
z = torch.randn(3, 4, requires_grad=True)
show("bce_with_logits", F.binary_cross_entropy_with_logits, z, yb)
pos_weight = torch.tensor([1.0, 3.0, 0.5, 2.0])
show("bce_with_logits pos_weight",
     lambda a, b, reduction: F.binary_cross_entropy_with_logits(a, b, pos_weight=pos_weight, reduction=reduction),
     z, yb)
show("bce_with_logits weight pos_weight",
     lambda a, b, reduction: F.binary_cross_entropy_with_logits(a, b, weight=wb, pos_weight=pos_weight,
                                                                reduction=reduction), z, yb)
soft = torch.rand(3, 4)
show("bce_with_logits soft targets", F.binary_cross_entropy_with_logits, z, soft)
print("bce_with_logits large", F.binary_cross_entropy_with_logits(torch.tensor([100.0, -100.0, 30.0]),
                                                                  torch.tensor([0.0, 1.0, 1.0]), reduction="none"))

# ---------------------------------------------------------------- divergences and likelihoods
inp = F.log_softmax(torch.randn(3, 5), dim=1).detach().requires_grad_()
tp = torch.softmax(torch.randn(3, 5), dim=1)
show("kl_div", F.kl_div, inp, tp)
show("kl_div batchmean", lambda a, b, reduction: F.kl_div(a, b, reduction="batchmean" if reduction == "mean"
                                                          else reduction), inp, tp)
show("kl_div log_target", lambda a, b, reduction: F.kl_div(a, b, reduction=reduction, log_target=True),
     inp, tp.log())
print("kl_div zero target", F.kl_div(torch.tensor([-1.0, -2.0]), torch.tensor([0.0, 1.0]), reduction="none"))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    v = F.kl_div(inp, tp)
    print("kl_div mean warns", v, [str(m.message)[:60] for m in w])

rate = torch.randn(3, 4, requires_grad=True)
counts = torch.poisson(torch.full((3, 4), 2.0))
show("poisson_nll", F.poisson_nll_loss, rate, counts)
show("poisson_nll full", lambda a, b, reduction: F.poisson_nll_loss(a, b, full=True, reduction=reduction),
     rate, counts)
pos_rate = (rate.detach().abs() + 0.1).requires_grad_()
show("poisson_nll log_input=False",
     lambda a, b, reduction: F.poisson_nll_loss(a, b, log_input=False, reduction=reduction), pos_rate, counts)
show("poisson_nll log_input=False full eps",
     lambda a, b, reduction: F.poisson_nll_loss(a, b, log_input=False, full=True, eps=0.5, reduction=reduction),
     pos_rate, counts)

mu = torch.randn(4, 3, requires_grad=True)
obs = torch.randn(4, 3)
var = (torch.rand(4, 3) + 0.1).requires_grad_()
show("gaussian_nll", F.gaussian_nll_loss, mu, obs, var)
show("gaussian_nll full", lambda a, b, c, reduction: F.gaussian_nll_loss(a, b, c, full=True, reduction=reduction),
     mu, obs, var)
var_col = (torch.rand(4, 1) + 0.1).requires_grad_()
show("gaussian_nll var (N,1)", F.gaussian_nll_loss, mu, obs, var_col)
var_vec = (torch.rand(4) + 0.1).requires_grad_()
show("gaussian_nll var (N,)", F.gaussian_nll_loss, mu, obs, var_vec)
tiny = torch.tensor([1e-9, 0.5, 2.0, 1e-3], requires_grad=True)
show("gaussian_nll eps=1e-2", lambda a, b, c, reduction: F.gaussian_nll_loss(a, b, c, eps=1e-2,
                                                                             reduction=reduction),
     mu[:, 0].detach().requires_grad_(), obs[:, 0], tiny)
err("gaussian_nll scalar var", lambda: F.gaussian_nll_loss(mu, obs, torch.tensor(0.5)))
print("gaussian_nll float var", F.gaussian_nll_loss(mu, obs, 0.5))

# ---------------------------------------------------------------- margin and embedding losses
a1 = torch.randn(6, requires_grad=True)
a2 = torch.randn(6, requires_grad=True)
sign = torch.tensor([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
show("margin_ranking", F.margin_ranking_loss, a1, a2, sign)
show("margin_ranking margin=0.5",
     lambda a, b, c, reduction: F.margin_ranking_loss(a, b, c, margin=0.5, reduction=reduction), a1, a2, sign)

h = torch.randn(2, 3, requires_grad=True)
hs = torch.tensor([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]])
show("hinge_embedding", F.hinge_embedding_loss, h, hs)
show("hinge_embedding margin=2",
     lambda a, b, reduction: F.hinge_embedding_loss(a, b, margin=2.0, reduction=reduction), h, hs)

show("soft_margin", F.soft_margin_loss, h, hs)

ml = torch.randn(3, 4, requires_grad=True)
ml_target = torch.tensor([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 2, 1, 0]])
show("multilabel_margin", F.multilabel_margin_loss, ml, ml_target)
print("multilabel_margin 1d", F.multilabel_margin_loss(torch.tensor([0.1, 0.2, 0.4, 0.8]),
                                                        torch.tensor([3, 0, -1, 1])))
mls_target = torch.tensor([[1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 0.0]])
show("multilabel_soft_margin", F.multilabel_soft_margin_loss, ml, mls_target)
show("multilabel_soft_margin weight",
     lambda a, b, reduction: F.multilabel_soft_margin_loss(a, b, weight=weight, reduction=reduction),
     ml, mls_target)

mm_target = torch.tensor([3, 0, 2])
show("multi_margin", F.multi_margin_loss, ml, mm_target)
show("multi_margin p=2", lambda a, b, reduction: F.multi_margin_loss(a, b, p=2, reduction=reduction),
     ml, mm_target)
show("multi_margin margin=0.3 weight",
     lambda a, b, reduction: F.multi_margin_loss(a, b, margin=0.3, weight=weight, reduction=reduction),
     ml, mm_target)
print("multi_margin 1d", F.multi_margin_loss(torch.tensor([0.1, 0.2, 0.4, 0.8]), torch.tensor([3])))

c1 = torch.randn(4, 5, requires_grad=True)
c2 = torch.randn(4, 5, requires_grad=True)
csign = torch.tensor([1, -1, -1, 1])
show("cosine_embedding", F.cosine_embedding_loss, c1, c2, csign)
show("cosine_embedding margin=0.2",
     lambda a, b, c, reduction: F.cosine_embedding_loss(a, b, c, margin=0.2, reduction=reduction), c1, c2, csign)
print("cosine_embedding 1d", F.cosine_embedding_loss(torch.randn(5), torch.randn(5), torch.tensor(-1)))

anc = torch.randn(4, 6, requires_grad=True)
pos = torch.randn(4, 6, requires_grad=True)
neg = torch.randn(4, 6, requires_grad=True)
show("triplet_margin", F.triplet_margin_loss, anc, pos, neg)
show("triplet_margin p=1 margin=2",
     lambda a, b, c, reduction: F.triplet_margin_loss(a, b, c, p=1, margin=2.0, reduction=reduction),
     anc, pos, neg)
show("triplet_margin swap", lambda a, b, c, reduction: F.triplet_margin_loss(a, b, c, swap=True,
                                                                             reduction=reduction),
     anc, pos, neg)
show("triplet_margin p=3 eps", lambda a, b, c, reduction: F.triplet_margin_loss(a, b, c, p=3, eps=1e-3,
                                                                                reduction=reduction),
     anc, pos, neg)


def cosine_distance(u, v):
    return 1.0 - F.cosine_similarity(u, v)


show("triplet_with_distance default", F.triplet_margin_with_distance_loss, anc, pos, neg)
show("triplet_with_distance cosine",
     lambda a, b, c, reduction: F.triplet_margin_with_distance_loss(a, b, c, distance_function=cosine_distance,
                                                                    margin=0.5, reduction=reduction),
     anc, pos, neg)
show("triplet_with_distance swap l1",
     lambda a, b, c, reduction: F.triplet_margin_with_distance_loss(
         a, b, c, distance_function=lambda u, v: (u - v).abs().sum(-1), swap=True, reduction=reduction),
     anc, pos, neg)
show("triplet_with_distance pairwise",
     lambda a, b, c, reduction: F.triplet_margin_with_distance_loss(
         a, b, c, distance_function=nn.PairwiseDistance(), reduction=reduction), anc, pos, neg)

# ---------------------------------------------------------------- CTC
T, N, C, S = 12, 3, 5, 4
ctc_in = torch.randn(T, N, C).log_softmax(2).detach().requires_grad_()
ctc_tgt = torch.randint(1, C, (N, S), dtype=torch.long)
in_len = torch.tensor([12, 10, 8])
tg_len = torch.tensor([4, 3, 2])
show("ctc_loss", lambda a, reduction: F.ctc_loss(a, ctc_tgt, in_len, tg_len, reduction=reduction), ctc_in)
flat = torch.cat([ctc_tgt[0, :4], ctc_tgt[1, :3], ctc_tgt[2, :2]])
show("ctc_loss concatenated targets",
     lambda a, reduction: F.ctc_loss(a, flat, (12, 10, 8), (4, 3, 2), reduction=reduction), ctc_in)
ctc_tgt0 = torch.randint(0, C - 1, (N, S), dtype=torch.long)
show("ctc_loss blank=4",
     lambda a, reduction: F.ctc_loss(a, ctc_tgt0, in_len, tg_len, blank=C - 1, reduction=reduction), ctc_in)
# impossible alignments: targets longer than the input
short_len = torch.tensor([3, 10, 2])
long_tg = torch.tensor([4, 3, 4])
show("ctc_loss infeasible",
     lambda a, reduction: F.ctc_loss(a, ctc_tgt, short_len, long_tg, reduction=reduction), ctc_in)
show("ctc_loss zero_infinity",
     lambda a, reduction: F.ctc_loss(a, ctc_tgt, short_len, long_tg, zero_infinity=True, reduction=reduction),
     ctc_in)
repeat_tgt = torch.tensor([[1, 1, 2, 2], [3, 3, 3, 1], [2, 2, 1, 1]])
show("ctc_loss repeated labels",
     lambda a, reduction: F.ctc_loss(a, repeat_tgt, in_len, torch.tensor([4, 4, 3]), reduction=reduction), ctc_in)
unb = ctc_in[:, 0].detach().requires_grad_()
print("ctc unbatched", F.ctc_loss(unb, ctc_tgt[0], torch.tensor(12), torch.tensor(4)))

# ---------------------------------------------------------------- the modules
modules = [
    nn.L1Loss(), nn.MSELoss(reduction="sum"), nn.SmoothL1Loss(beta=0.5), nn.HuberLoss(delta=2.0),
    nn.CrossEntropyLoss(weight=weight, ignore_index=1, label_smoothing=0.1), nn.NLLLoss(reduction="none"),
    nn.BCELoss(weight=wb), nn.BCEWithLogitsLoss(pos_weight=pos_weight), nn.KLDivLoss(reduction="batchmean",
                                                                                    log_target=True),
    nn.PoissonNLLLoss(log_input=False, full=True), nn.GaussianNLLLoss(full=True, eps=1e-3),
    nn.CosineEmbeddingLoss(margin=0.1), nn.MarginRankingLoss(margin=0.2), nn.HingeEmbeddingLoss(margin=0.5),
    nn.SoftMarginLoss(), nn.MultiLabelSoftMarginLoss(weight=weight), nn.MultiLabelMarginLoss(),
    nn.MultiMarginLoss(p=2, margin=0.5), nn.TripletMarginLoss(margin=0.7, p=1, swap=True),
    nn.TripletMarginWithDistanceLoss(distance_function=cosine_distance, margin=0.3), nn.CTCLoss(blank=0),
]
for m in modules:
    attrs = {k: getattr(m, k) for k in ("reduction", "ignore_index", "label_smoothing", "beta", "delta", "margin",
                                        "p", "swap", "eps", "full", "log_input", "log_target", "blank",
                                        "zero_infinity") if hasattr(m, k)}
    print(m, attrs, [n for n, _ in m.named_buffers()])
print("CE state_dict", list(nn.CrossEntropyLoss(weight=weight).state_dict().keys()))
print("BCEWithLogits state_dict", list(nn.BCEWithLogitsLoss(weight=wb, pos_weight=pos_weight).state_dict()))

ce = nn.CrossEntropyLoss(weight=weight, ignore_index=1, label_smoothing=0.1)
out = ce(logits, target)
logits.grad = None
out.backward()
print("CrossEntropyLoss", out, logits.grad)
print("NLLLoss none", nn.NLLLoss(reduction="none")(lpn, torch.tensor([2, 0, 1, 1])))
print("BCEWithLogitsLoss", nn.BCEWithLogitsLoss(pos_weight=pos_weight)(z, yb))
print("KLDivLoss", nn.KLDivLoss(reduction="batchmean", log_target=True)(inp, tp.log()))
print("GaussianNLLLoss", nn.GaussianNLLLoss(full=True, eps=1e-3)(mu, obs, var))
print("MultiMarginLoss", nn.MultiMarginLoss(p=2, margin=0.5)(ml, mm_target))
print("TripletMarginLoss", nn.TripletMarginLoss(margin=0.7, p=1, swap=True)(anc, pos, neg))
print("CTCLoss", nn.CTCLoss(zero_infinity=True)(ctc_in, ctc_tgt, short_len, long_tg))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    legacy = nn.MSELoss(size_average=False)
    print("legacy size_average", legacy.reduction, [str(m.message) for m in w])
    legacy2 = nn.L1Loss(reduce=False)
    print("legacy reduce", legacy2.reduction)

# ---------------------------------------------------------------- errors
err("ce bad target class", lambda: F.cross_entropy(torch.randn(3, 4), torch.tensor([0, 4, 1])))
err("ce negative target", lambda: F.cross_entropy(torch.randn(3, 4), torch.tensor([0, -1, 1])))
err("ce batch mismatch", lambda: F.cross_entropy(torch.randn(3, 4), torch.tensor([0, 1])))
err("ce float target wrong shape", lambda: F.cross_entropy(torch.randn(3, 4), torch.rand(3, 5)))
err("ce float target ignore_index", lambda: F.cross_entropy(torch.randn(3, 4), torch.rand(3, 4), ignore_index=1))
err("ce int target float dtype", lambda: F.cross_entropy(torch.randn(3, 4), torch.tensor([0, 1, 2]).int()))
err("ce weight wrong size", lambda: F.cross_entropy(torch.randn(3, 4), torch.tensor([0, 1, 2]),
                                                    weight=torch.ones(3)))
err("ce label_smoothing 1.5", lambda: F.cross_entropy(torch.randn(3, 4), torch.tensor([0, 1, 2]),
                                                      label_smoothing=1.5))
err("nll 4d target shape", lambda: F.nll_loss(torch.randn(2, 3, 4, 4), torch.zeros(2, 4, 3, dtype=torch.long)))
err("nll target 2d for 2d input", lambda: F.nll_loss(torch.randn(2, 3), torch.zeros(2, 3, dtype=torch.long)))
err("nll 0-d input", lambda: F.nll_loss(torch.tensor(1.0), torch.tensor(0)))
err("bad reduction", lambda: F.mse_loss(torch.ones(2), torch.ones(2), reduction="avg"))
err("mse shape mismatch", lambda: F.mse_loss(torch.ones(2, 3), torch.ones(4)))
err("bce shape", lambda: F.binary_cross_entropy(torch.rand(3), torch.rand(4)))
err("bce out of range", lambda: F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0])))
err("bce_with_logits shape", lambda: F.binary_cross_entropy_with_logits(torch.rand(3), torch.rand(3, 1)))
err("gaussian var negative", lambda: F.gaussian_nll_loss(torch.ones(3), torch.ones(3), -torch.ones(3)))
err("gaussian var shape", lambda: F.gaussian_nll_loss(torch.ones(3, 2), torch.ones(3, 2), torch.ones(2, 3)))
err("kl_div bad reduction", lambda: F.kl_div(torch.ones(2), torch.ones(2), reduction="bad"))
err("multi_margin p=3", lambda: F.multi_margin_loss(torch.randn(2, 3), torch.tensor([0, 1]), p=3))
err("MultiMarginLoss p=3", lambda: nn.MultiMarginLoss(p=3))
err("multi_margin target range", lambda: F.multi_margin_loss(torch.randn(2, 3), torch.tensor([0, 3])))
err("multilabel_margin shape", lambda: F.multilabel_margin_loss(torch.randn(2, 3), torch.zeros(2, 4,
                                                                                              dtype=torch.long)))
err("margin_ranking sizes", lambda: F.margin_ranking_loss(torch.ones(3), torch.ones(4), torch.ones(3)))
err("cosine_embedding dims", lambda: F.cosine_embedding_loss(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2, 1)))
err("triplet dims", lambda: F.triplet_margin_loss(torch.ones(2, 3), torch.ones(2, 3), torch.ones(3)))
err("TripletMarginLoss margin", lambda: nn.TripletMarginLoss(margin=0.0))
err("triplet_with_distance margin", lambda: F.triplet_margin_with_distance_loss(
    torch.ones(2, 3), torch.ones(2, 3), torch.ones(2, 3), margin=-1.0))
err("ctc input lengths", lambda: F.ctc_loss(ctc_in, ctc_tgt, torch.tensor([13, 10, 8]), tg_len))
err("ctc target lengths count", lambda: F.ctc_loss(ctc_in, ctc_tgt, in_len, torch.tensor([4, 3])))
err("ctc 2d log_probs with batch targets", lambda: F.ctc_loss(ctc_in[:, 0], ctc_tgt, in_len, tg_len))
err("hinge bad reduction", lambda: F.hinge_embedding_loss(torch.ones(2), torch.ones(2), reduction="mea"))
err("poisson shape", lambda: F.poisson_nll_loss(torch.ones(2, 3), torch.ones(3, 2)))
err("huber target grad only", lambda: F.huber_loss(torch.ones(2), torch.ones(2, requires_grad=True)).backward())
err("bce weight requires grad", lambda: F.binary_cross_entropy(torch.rand(3), torch.rand(3),
                                                                weight=torch.ones(3, requires_grad=True)))

# ---------------------------------------------------------------- edge cases: empty batches, dtypes, unbatched CTC
print("ce empty mean", F.cross_entropy(torch.randn(0, 3), torch.zeros(0, dtype=torch.long)))
print("ce empty sum", F.cross_entropy(torch.randn(0, 3), torch.zeros(0, dtype=torch.long), reduction="sum"))
print("ce empty none", F.cross_entropy(torch.randn(0, 3), torch.zeros(0, dtype=torch.long), reduction="none"))
print("mse empty", F.mse_loss(torch.ones(0), torch.ones(0)), F.l1_loss(torch.ones(0), torch.ones(0), reduction="sum"))
print("bce empty", F.binary_cross_entropy(torch.ones(0), torch.ones(0)))
print("ce uint8 target", F.cross_entropy(logits.detach(), target.to(torch.uint8)))
xd = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
yd = torch.randn(3, 4, dtype=torch.float64)
for fn in (F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.huber_loss, F.soft_margin_loss,
           F.binary_cross_entropy_with_logits):
    xd.grad = None
    out = fn(xd, yd.sign() if fn is F.soft_margin_loss else yd.sigmoid())
    out.backward()
    print(fn.__name__, "float64", out.dtype, out.item(), xd.grad.dtype, xd.grad.sum().item())
lpd = torch.randn(3, 4, dtype=torch.float64).log_softmax(1).requires_grad_()
print("nll float64", F.nll_loss(lpd, torch.tensor([0, 1, 3]), weight=weight.double()))
ctc1 = torch.randn(8, 5).log_softmax(1).requires_grad_()
print("ctc unbatched padded (1, S)", F.ctc_loss(ctc1, torch.tensor([[1, 2, 3]]), torch.tensor(8), torch.tensor(3)))
print("ctc unbatched none", F.ctc_loss(ctc1, torch.tensor([1, 2, 3]), torch.tensor([8]), torch.tensor([3]),
                                       reduction="none"))
err("ctc unbatched concatenated too long", lambda: F.ctc_loss(ctc1, torch.tensor([1, 2, 3, 4, 1]), torch.tensor(8),
                                                              torch.tensor(4)))
err("ctc unbatched two sequences", lambda: F.ctc_loss(ctc1, torch.tensor([[1, 2], [1, 2]]), torch.tensor([8, 8]),
                                                      torch.tensor([2, 2])))
err("ctc blank out of range", lambda: F.ctc_loss(ctc_in, ctc_tgt, in_len, tg_len, blank=5))
l = F.ctc_loss(ctc1, torch.tensor([1, 2, 3]), torch.tensor(8), torch.tensor(3))
l.backward()
print("ctc unbatched grad", ctc1.grad)
