# The convolution, pooling and resampling layers of torch.nn as their reference pages describe them:
# conv1d/2d/3d and conv_transpose1d/2d/3d with stride, padding (ints, tuples, 'same', 'valid'), padding_mode
# zeros / reflect / replicate / circular, dilation, groups, output_padding, bias=False and output_size;
# max pooling with return_indices, ceil_mode and dilation, and max_unpool; avg pooling with ceil_mode,
# count_include_pad and divisor_override; lp_pool; adaptive avg / max pools with sizes that do not divide;
# F.unfold / F.fold; pixel_shuffle / pixel_unshuffle; F.pad and the padding modules; Upsample / interpolate
# in every mode.  Each prints values and the gradients of inputs and weights; then the module reprs and the
# errors for bad shapes.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def summary(name, out, *leaves):
    """Print an output's shape, a few statistics and the gradients of the leaves (of out's weighted sum)."""
    for t in leaves:
        t.grad = None
    w = torch.linspace(-1, 1, out.numel()).view(out.shape)
    (out * w).sum().backward(retain_graph=True)
    print(name, tuple(out.shape), f"sum={out.sum().item():.4f} abs={out.abs().sum().item():.4f}")
    for t in leaves:
        print("   grad", tuple(t.grad.shape), f"sum={t.grad.sum().item():.4f} abs={t.grad.abs().sum().item():.4f}")


def err(label, fn):
    try:
        out = fn()
        print(label, "no error:", tuple(out.shape) if isinstance(out, torch.Tensor) else out)
    except Exception as e:
        print(label, type(e).__name__, e)


# ---------------------------------------------------------------- functional convolutions
x1 = torch.randn(2, 4, 11, requires_grad=True)
w1 = torch.randn(6, 2, 3, requires_grad=True)
b1 = torch.randn(6, requires_grad=True)
summary("conv1d groups=2", F.conv1d(x1, w1, b1, groups=2), x1, w1, b1)
w1b = torch.randn(6, 4, 4, requires_grad=True)
for kw in (dict(stride=2), dict(padding=3), dict(padding=(1,)), dict(dilation=2, padding=2), dict(padding="same"),
           dict(padding="valid"), dict(padding="same", dilation=3), dict(stride=3, padding=1, dilation=2)):
    summary(f"conv1d {kw}", F.conv1d(x1, w1b, None, **kw), x1, w1b)
out = F.conv1d(torch.arange(5.).view(1, 1, 5), torch.tensor([[[1.0, 0.0, -1.0]]]), padding="same")
print("conv1d same values", out)
out = F.conv1d(torch.arange(6.).view(1, 1, 6), torch.tensor([[[1.0, 2.0, 3.0, 4.0]]]), padding="same")
print("conv1d same even kernel", out)

x2 = torch.randn(2, 4, 7, 8, requires_grad=True)
w2 = torch.randn(6, 4, 3, 2, requires_grad=True)
b2 = torch.randn(6, requires_grad=True)
for kw in (dict(), dict(stride=(2, 1)), dict(padding=(1, 2)), dict(padding=1, dilation=(2, 1)),
           dict(padding="same"), dict(padding="same", dilation=2), dict(stride=2, padding=(2, 0), dilation=(1, 3))):
    summary(f"conv2d {kw}", F.conv2d(x2, w2, b2, **kw), x2, w2, b2)
wg = torch.randn(8, 1, 3, 3, requires_grad=True)
summary("conv2d depthwise groups=4", F.conv2d(x2, wg, None, padding=1, groups=4), x2, wg)
wg2 = torch.randn(6, 2, 1, 1, requires_grad=True)
summary("conv2d 1x1 groups=2", F.conv2d(x2, wg2, groups=2), x2, wg2)
summary("conv2d unbatched", F.conv2d(x2[0].detach().requires_grad_(), w2, b2), w2)

x3 = torch.randn(1, 2, 5, 6, 4, requires_grad=True)
w3 = torch.randn(4, 2, 2, 3, 2, requires_grad=True)
b3 = torch.randn(4, requires_grad=True)
for kw in (dict(), dict(stride=(1, 2, 1), padding=1), dict(padding="same"), dict(dilation=(2, 1, 1), padding=(1, 0, 1))):
    summary(f"conv3d {kw}", F.conv3d(x3, w3, b3, **kw), x3, w3, b3)
w3g = torch.randn(4, 1, 3, 3, 3, requires_grad=True)
summary("conv3d groups=2", F.conv3d(x3, w3g, padding=1, groups=2), x3, w3g)

# ---------------------------------------------------------------- transposed convolutions
wt1 = torch.randn(4, 3, 3, requires_grad=True)
bt1 = torch.randn(3, requires_grad=True)
for kw in (dict(), dict(stride=2), dict(stride=2, output_padding=1), dict(padding=1, dilation=2),
           dict(stride=3, padding=2, output_padding=2, dilation=2)):
    summary(f"conv_transpose1d {kw}", F.conv_transpose1d(x1, wt1, bt1, **kw), x1, wt1, bt1)
wt1g = torch.randn(4, 3, 3, requires_grad=True)
summary("conv_transpose1d groups=2", F.conv_transpose1d(x1, wt1g, None, stride=2, groups=2), x1, wt1g)
print("conv_transpose1d values", F.conv_transpose1d(torch.tensor([[[1.0, 2.0, 3.0]]]), torch.tensor([[[1.0, 10.0]]]),
                                                    stride=2))

wt2 = torch.randn(4, 2, 3, 3, requires_grad=True)
bt2 = torch.randn(2, requires_grad=True)
for kw in (dict(), dict(stride=2, padding=1, output_padding=1), dict(stride=(2, 3), output_padding=(1, 2)),
           dict(padding=(1, 0), dilation=(1, 2)), dict(stride=2, groups=2)):
    wt = torch.randn(4, 2 if "groups" not in kw else 3, 3, 3, requires_grad=True)
    summary(f"conv_transpose2d {kw}", F.conv_transpose2d(x2, wt, None, **kw), x2, wt)
summary("conv_transpose2d bias", F.conv_transpose2d(x2, wt2, bt2, stride=2), x2, wt2, bt2)

wt3 = torch.randn(2, 3, 2, 2, 3, requires_grad=True)
for kw in (dict(), dict(stride=2, output_padding=1), dict(stride=(1, 2, 2), padding=(0, 1, 1), dilation=(2, 1, 1))):
    summary(f"conv_transpose3d {kw}", F.conv_transpose3d(x3, wt3, None, **kw), x3, wt3)

# ---------------------------------------------------------------- conv modules
torch.manual_seed(1)
mods = [
    nn.Conv1d(4, 6, 3),
    nn.Conv1d(4, 4, 3, padding="same", padding_mode="reflect", bias=False),
    nn.Conv1d(4, 8, 5, stride=2, padding=2, padding_mode="circular", groups=4),
    nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 1), padding_mode="replicate"),
    nn.Conv2d(4, 6, 3, padding="same", dilation=2, padding_mode="reflect"),
    nn.Conv2d(4, 4, 4, padding="same", padding_mode="circular", groups=2),
    nn.Conv2d(4, 6, 3, padding="valid"),
    nn.Conv2d(4, 6, 3, padding=2, padding_mode="circular", dilation=2),
    nn.Conv3d(2, 4, 3, padding=1, padding_mode="replicate", bias=False),
    nn.Conv3d(2, 4, (1, 3, 3), padding="same", padding_mode="reflect"),
    nn.ConvTranspose1d(4, 2, 3, stride=2, output_padding=1),
    nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, bias=False),
    nn.ConvTranspose2d(4, 2, (2, 3), stride=(1, 2), dilation=(2, 1)),
    nn.ConvTranspose3d(2, 2, 2, stride=2),
]
inputs = {1: x1, 2: x2, 3: x3}
for m in mods:
    print(m)
    print("   weight", tuple(m.weight.shape), "bias", None if m.bias is None else tuple(m.bias.shape),
          "padding", m.padding, m._reversed_padding_repeated_twice if hasattr(m, "_reversed_padding_repeated_twice")
          else "")
    x = inputs[m.weight.dim() - 2]
    leaves = [x, m.weight] + ([m.bias] if m.bias is not None else [])
    summary("   out", m(x), *leaves)
ct = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1)
for size in ([13, 15], [14, 16], (2, 2, 14, 15)):
    print("ConvTranspose2d output_size", size, tuple(ct(x2, output_size=size).shape))
ct1 = nn.ConvTranspose1d(4, 2, 3, stride=3)
print("ConvTranspose1d output_size", tuple(ct1(x1, output_size=[34]).shape))
err("ConvTranspose2d bad output_size", lambda: ct(x2, output_size=[20, 20]))
print("conv state_dict", list(mods[1].state_dict().keys()), list(mods[0].state_dict().keys()))
print("Conv2d init weight", mods[3].weight[0, 0], mods[3].bias)
mods[0].reset_parameters()
print("reset", mods[0].weight.mean().item() != 0)

# ---------------------------------------------------------------- max pooling and unpooling
xp = torch.randn(2, 3, 9, 10, requires_grad=True)
for kw in (dict(kernel_size=2), dict(kernel_size=3, stride=2), dict(kernel_size=3, stride=2, ceil_mode=True),
           dict(kernel_size=(3, 2), stride=(2, 3), padding=1), dict(kernel_size=2, dilation=2),
           dict(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True)):
    summary(f"max_pool2d {kw}", F.max_pool2d(xp, **kw), xp)
out, idx = F.max_pool2d(xp, 3, stride=2, padding=1, return_indices=True)
print("max_pool2d indices", idx[0, 0], idx.dtype)
un = F.max_unpool2d(out, idx, 3, stride=2, padding=1, output_size=xp.shape[-2:])
summary("max_unpool2d", un, xp)
err("max_unpool2d default size too small", lambda: F.max_unpool2d(out, idx, 3, stride=2, padding=1))
print("max_unpool2d output_size", tuple(F.max_unpool2d(out, idx, 3, stride=2, padding=1, output_size=(10, 10)).shape))
xs = torch.tensor([[[1.0, 5.0, 2.0, 2.0, 0.0, 7.0, 7.0]]], requires_grad=True)
o, i = F.max_pool1d(xs, 2, return_indices=True)
print("max_pool1d", o, i)
o2, i2 = F.max_pool1d(xs, 2, ceil_mode=True, return_indices=True)
print("max_pool1d ceil", o2, i2)
print("max_unpool1d", F.max_unpool1d(o2, i2, 2))
print("max_unpool1d output_size", F.max_unpool1d(o, i, 2, output_size=[7]))
summary("max_pool1d stride dilation", F.max_pool1d(x1, 3, stride=2, dilation=2, padding=1), x1)
o3, i3 = F.max_pool3d(x3, (2, 2, 1), return_indices=True)
summary("max_pool3d", o3, x3)
print("max_pool3d indices", i3[0, 0, 0])
summary("max_unpool3d", F.max_unpool3d(o3, i3, (2, 2, 1)), x3)
summary("max_pool3d ceil dilation", F.max_pool3d(x3, 2, stride=2, ceil_mode=True, dilation=(1, 2, 1)), x3)
print("ties", F.max_pool2d(torch.ones(1, 1, 4, 4), 2, return_indices=True)[1])
print("-inf padding", F.max_pool2d(-torch.ones(1, 1, 3, 3) * 5, 2, stride=2, padding=1))

# ---------------------------------------------------------------- average and power-average pooling
for kw in (dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
           dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
           dict(kernel_size=3, stride=2, ceil_mode=True), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
           dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
           dict(kernel_size=(2, 3), divisor_override=2), dict(kernel_size=3, padding=1, divisor_override=5)):
    summary(f"avg_pool2d {kw}", F.avg_pool2d(xp, **kw), xp)
print("avg_pool1d values", F.avg_pool1d(torch.arange(7.).view(1, 1, 7), 3, stride=2, padding=1, ceil_mode=True))
print("avg_pool1d no pad count", F.avg_pool1d(torch.arange(7.).view(1, 1, 7), 3, stride=2, padding=1,
                                              ceil_mode=True, count_include_pad=False))
summary("avg_pool1d", F.avg_pool1d(x1, 4, stride=3, padding=2, ceil_mode=True), x1)
summary("avg_pool3d", F.avg_pool3d(x3, 2, stride=(1, 2, 2), padding=1, count_include_pad=False), x3)
summary("avg_pool3d divisor", F.avg_pool3d(x3, (3, 2, 2), ceil_mode=True, divisor_override=3), x3)
xpos = (xp.detach().abs() + 0.1).requires_grad_()
for p in (1, 2, 3.5):
    summary(f"lp_pool2d p={p}", F.lp_pool2d(xpos, p, 3, stride=2), xpos)
summary("lp_pool2d ceil", F.lp_pool2d(xpos, 2, (2, 3), ceil_mode=True), xpos)
x1p = (x1.detach().abs() + 0.1).requires_grad_()
summary("lp_pool1d", F.lp_pool1d(x1p, 2, 3), x1p)
summary("lp_pool1d stride ceil", F.lp_pool1d(x1p, 3, 4, stride=3, ceil_mode=True), x1p)
print("lp_pool1d values", F.lp_pool1d(torch.tensor([[[1.0, -2.0, 3.0, 4.0]]]), 2, 2))

# ---------------------------------------------------------------- adaptive pooling
for size in (3, (4, 3), (5, 7), (None, 4), 1, (9, 10), (12, 13)):
    summary(f"adaptive_avg_pool2d {size}", F.adaptive_avg_pool2d(xp, size), xp)
    summary(f"adaptive_max_pool2d {size}", F.adaptive_max_pool2d(xp, size), xp)
o, i = F.adaptive_max_pool2d(xp, (4, 3), return_indices=True)
print("adaptive_max_pool2d indices", i[0, 0])
print("adaptive_avg_pool1d", F.adaptive_avg_pool1d(torch.arange(7.).view(1, 1, 7), 3))
o, i = F.adaptive_max_pool1d(torch.tensor([[[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0]]]), 4, return_indices=True)
print("adaptive_max_pool1d", o, i)
summary("adaptive_avg_pool1d grad", F.adaptive_avg_pool1d(x1, 4), x1)
summary("adaptive_avg_pool3d", F.adaptive_avg_pool3d(x3, (2, 4, 3)), x3)
o, i = F.adaptive_max_pool3d(x3, (3, None, 3), return_indices=True)
summary("adaptive_max_pool3d", o, x3)
print("adaptive_max_pool3d idx", i[0, 0, :, 0])
summary("adaptive unbatched", F.adaptive_avg_pool2d(xp[0], 4), xp)

# ---------------------------------------------------------------- unfold / fold
xi = torch.randn(2, 3, 6, 7, requires_grad=True)
for kw in (dict(kernel_size=2), dict(kernel_size=(2, 3), stride=2), dict(kernel_size=3, padding=1, dilation=2),
           dict(kernel_size=(3, 2), stride=(1, 3), padding=(1, 0))):
    u = F.unfold(xi, **kw)
    summary(f"unfold {kw}", u, xi)
    blocks = u.detach().requires_grad_()
    f = F.fold(blocks, (6, 7), **kw)
    summary(f"fold {kw}", f, blocks)
print("fold counts", F.fold(F.unfold(torch.ones(1, 1, 4, 4), 2, stride=1), (4, 4), 2, stride=1)[0, 0])
print("unfold unbatched", tuple(F.unfold(xi[0], 3).shape))
uf, fd = nn.Unfold(kernel_size=(2, 3), dilation=1, padding=1, stride=2), nn.Fold(output_size=(4, 5), kernel_size=2)
print(uf, fd, tuple(uf(xi).shape), tuple(fd(torch.randn(2, 12, 12)).shape))

# ---------------------------------------------------------------- pixel shuffle
xs4 = torch.arange(2 * 8 * 2 * 3.).view(2, 8, 2, 3).requires_grad_()
ps = F.pixel_shuffle(xs4, 2)
print("pixel_shuffle", tuple(ps.shape), ps[0, 0], ps[1, 1])
pu = F.pixel_unshuffle(ps, 2)
print("pixel_unshuffle roundtrip", torch.equal(pu, xs4))
summary("pixel_shuffle grad", ps, xs4)
print(nn.PixelShuffle(2), nn.PixelUnshuffle(3), tuple(nn.PixelUnshuffle(3)(torch.randn(1, 2, 6, 9)).shape))
print("pixel_shuffle batch dims", tuple(F.pixel_shuffle(torch.randn(2, 3, 9, 2, 2), 3).shape))

# ---------------------------------------------------------------- padding
xq = torch.arange(12.).view(1, 1, 3, 4).requires_grad_()
for mode, pad in (("constant", (1, 2)), ("constant", (1, 0, 2, 1)), ("reflect", (2, 1, 1, 2)),
                  ("replicate", (3, 1, 0, 2)), ("circular", (1, 3, 2, 1)), ("constant", (-1, 1, 0, -1))):
    out = F.pad(xq, pad, mode=mode)
    print(f"pad {mode} {pad}", out[0, 0])
    summary(f"pad {mode} grad", out, xq)
print("pad value", F.pad(torch.ones(2, 2), (1, 1), value=-3.5))
print("pad 3d reflect", tuple(F.pad(x3, (1, 1, 2, 0, 1, 1), mode="reflect").shape))
print("pad 1d circular", F.pad(torch.arange(4.).view(1, 1, 4), (2, 3), mode="circular"))
print("pad int", F.pad(torch.arange(3), (1, 1)))
pads = [nn.ZeroPad1d(2), nn.ZeroPad2d((1, 0, 2, 1)), nn.ConstantPad1d((1, 2), 0.5), nn.ConstantPad2d(1, -1.0),
        nn.ConstantPad3d((1, 0, 0, 1, 1, 0), 2.0), nn.ReflectionPad1d(2), nn.ReflectionPad2d((1, 1, 2, 0)),
        nn.ReflectionPad3d(1), nn.ReplicationPad1d((0, 3)), nn.ReplicationPad2d(2), nn.ReplicationPad3d((1, 0, 1, 0, 0, 2)),
        nn.CircularPad1d(1), nn.CircularPad2d((2, 0, 1, 1)), nn.CircularPad3d(1), nn.ZeroPad3d(1)]
for m in pads:
    nd = type(m).__name__[-2]
    inp = {"1": x1, "2": x2, "3": x3}[nd]
    print(m, m.padding, tuple(m(inp).shape))
print("ReflectionPad1d values", nn.ReflectionPad1d((3, 1))(torch.arange(5.).view(1, 1, 5)))

# ---------------------------------------------------------------- interpolate / Upsample
xu = torch.randn(1, 2, 3, 4, requires_grad=True)
for kw in (dict(scale_factor=2, mode="nearest"), dict(size=(5, 7), mode="nearest"),
           dict(size=(5, 7), mode="nearest-exact"), dict(scale_factor=1.7, mode="nearest"),
           dict(scale_factor=(1.5, 2.2), mode="bilinear"), dict(size=(6, 5), mode="bilinear", align_corners=True),
           dict(size=(6, 5), mode="bilinear", align_corners=False), dict(size=(7, 9), mode="bicubic"),
           dict(size=(7, 9), mode="bicubic", align_corners=True), dict(size=(2, 3), mode="area"),
           dict(scale_factor=0.6, mode="area"), dict(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True),
           dict(scale_factor=1.7, mode="bilinear", recompute_scale_factor=False),
           dict(scale_factor=2.5, mode="nearest", recompute_scale_factor=True),
           dict(size=(2, 3), mode="bilinear", antialias=True), dict(scale_factor=0.5, mode="bicubic", antialias=True)):
    summary(f"interpolate {kw}", F.interpolate(xu, **kw), xu)
xl = torch.tensor([[[1.0, 2.0, 4.0]]], requires_grad=True)
print("linear", F.interpolate(xl, size=5, mode="linear"))
print("linear align", F.interpolate(xl, scale_factor=2, mode="linear", align_corners=True))
print("linear scale recompute", F.interpolate(xl, scale_factor=1.5, mode="linear", recompute_scale_factor=True))
print("linear scale keep", F.interpolate(xl, scale_factor=1.5, mode="linear"))
print("nearest 1d", F.interpolate(xl, scale_factor=2.5), F.interpolate(xl, size=4, mode="nearest-exact"))
print("area 1d", F.interpolate(torch.arange(7.).view(1, 1, 7), size=3, mode="area"))
summary("trilinear", F.interpolate(x3, scale_factor=(1.5, 0.5, 2), mode="trilinear"), x3)
summary("trilinear align", F.interpolate(x3, size=(3, 4, 5), mode="trilinear", align_corners=True), x3)
summary("nearest 3d", F.interpolate(x3, size=(7, 3, 5)), x3)
summary("area 3d", F.interpolate(x3, size=(2, 4, 3), mode="area"), x3)
ups = [nn.Upsample(scale_factor=2), nn.Upsample(size=(5, 6), mode="bilinear"),
       nn.Upsample(scale_factor=1.5, mode="bicubic", align_corners=True), nn.Upsample(size=7, mode="nearest-exact"),
       nn.Upsample(scale_factor=(2, 3), mode="bilinear", recompute_scale_factor=True),
       nn.UpsamplingNearest2d(scale_factor=2), nn.UpsamplingBilinear2d(size=(4, 6))]
for m in ups:
    print(m)
    summary("   out", m(xu), xu)
print("bilinear values", F.interpolate(torch.arange(4.).view(1, 1, 2, 2), scale_factor=2, mode="bilinear"))
print("bilinear align values", nn.UpsamplingBilinear2d(scale_factor=2)(torch.arange(4.).view(1, 1, 2, 2)))

# ---------------------------------------------------------------- pooling modules
pmods = [nn.MaxPool1d(3, stride=2, padding=1, dilation=2, return_indices=True, ceil_mode=True),
         nn.MaxPool2d((3, 2), stride=(2, 1)), nn.MaxPool3d(2, ceil_mode=True), nn.AvgPool1d(3, count_include_pad=False),
         nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, divisor_override=4), nn.AvgPool3d((1, 2, 2)),
         nn.LPPool1d(2, 3), nn.LPPool2d(1.5, (2, 3), stride=1, ceil_mode=True), nn.LPPool3d(2, 2),
         nn.AdaptiveAvgPool1d(4), nn.AdaptiveAvgPool2d((None, 3)), nn.AdaptiveAvgPool3d(2),
         nn.AdaptiveMaxPool1d(5, return_indices=True), nn.AdaptiveMaxPool2d((3, 4)), nn.AdaptiveMaxPool3d((1, 2, 3)),
         nn.MaxUnpool1d(2), nn.MaxUnpool2d((2, 3), stride=1, padding=(0, 1)), nn.MaxUnpool3d(2, stride=2)]
for m in pmods:
    print(m)
for m, x in ((pmods[1], xp), (pmods[4], xp), (pmods[7], xpos), (pmods[10], xp), (pmods[13], xp)):
    summary(f"{type(m).__name__}", m(x), x)
o, i = pmods[0](x1)
print("MaxPool1d return_indices", tuple(o.shape), i[0, 0])
print("LPPool3d", tuple(pmods[8](x3.abs()).shape))
pool, unpool = nn.MaxPool2d(2, return_indices=True), nn.MaxUnpool2d(2)
o, i = pool(xp)
print("MaxUnpool2d", tuple(unpool(o, i).shape), tuple(unpool(o, i, output_size=xp.size()).shape))

# ---------------------------------------------------------------- errors
err("conv2d channels", lambda: F.conv2d(torch.randn(1, 3, 5, 5), torch.randn(4, 2, 3, 3)))
err("conv2d kernel too big", lambda: F.conv2d(torch.randn(1, 1, 2, 2), torch.randn(1, 1, 3, 3)))
err("conv2d 5d input", lambda: F.conv2d(torch.randn(1, 1, 2, 5, 5), torch.randn(1, 1, 3, 3)))
err("conv2d groups", lambda: F.conv2d(torch.randn(1, 4, 5, 5), torch.randn(3, 2, 3, 3), groups=2))
err("conv1d same stride", lambda: F.conv1d(torch.randn(1, 1, 5), torch.randn(1, 1, 3), padding="same", stride=2))
err("conv1d bad padding string", lambda: F.conv1d(torch.randn(1, 1, 5), torch.randn(1, 1, 3), padding="full"))
err("conv2d bias size", lambda: F.conv2d(torch.randn(1, 1, 5, 5), torch.randn(2, 1, 3, 3), torch.randn(3)))
err("conv2d negative padding", lambda: F.conv2d(torch.randn(1, 1, 5, 5), torch.randn(1, 1, 3, 3), padding=-1))
err("conv2d zero stride", lambda: F.conv2d(torch.randn(1, 1, 5, 5), torch.randn(1, 1, 3, 3), stride=0))
err("conv2d dtype mismatch", lambda: F.conv2d(torch.randn(1, 1, 5, 5), torch.randn(1, 1, 3, 3, dtype=torch.float64)))
err("conv_transpose2d output_padding", lambda: F.conv_transpose2d(torch.randn(1, 2, 3, 3), torch.randn(2, 1, 3, 3),
                                                                  stride=2, output_padding=2))
err("conv_transpose2d channels", lambda: F.conv_transpose2d(torch.randn(1, 3, 3, 3), torch.randn(2, 1, 3, 3)))
err("Conv2d groups", lambda: nn.Conv2d(4, 6, 3, groups=4))
err("Conv2d padding_mode", lambda: nn.Conv2d(4, 6, 3, padding_mode="mirror"))
err("Conv2d same stride", lambda: nn.Conv2d(4, 6, 3, padding="same", stride=2))
err("Conv2d bad string", lambda: nn.Conv2d(4, 6, 3, padding="full"))
err("ConvTranspose2d padding_mode", lambda: nn.ConvTranspose2d(4, 6, 3, padding_mode="reflect"))
err("ConvTranspose2d padding same", lambda: nn.ConvTranspose2d(4, 6, 3, padding="same"))
err("Conv2d wrong input", lambda: nn.Conv2d(3, 6, 3)(torch.randn(1, 4, 8, 8)))
err("max_pool2d pad too big", lambda: F.max_pool2d(torch.randn(1, 1, 5, 5), 2, padding=2))
err("max_pool2d output too small", lambda: F.max_pool2d(torch.randn(1, 1, 2, 2), 3))
err("max_pool1d 4d", lambda: F.max_pool1d(torch.randn(1, 1, 2, 8), 2))
err("max_pool2d zero stride", lambda: F.max_pool2d(torch.randn(1, 1, 5, 5), 2, stride=0))
err("avg_pool2d pad too big", lambda: F.avg_pool2d(torch.randn(1, 1, 5, 5), 2, padding=2))
err("avg_pool2d divisor 0", lambda: F.avg_pool2d(torch.randn(1, 1, 5, 5), 2, divisor_override=0))
err("avg_pool1d kernel too big", lambda: F.avg_pool1d(torch.randn(1, 1, 2), 3))
err("max_unpool2d indices shape", lambda: F.max_unpool2d(torch.randn(1, 1, 2, 2), torch.zeros(1, 1, 3, 3,
                                                                                               dtype=torch.long), 2))
err("max_unpool2d bad output_size", lambda: F.max_unpool2d(o, i, 2, output_size=(3, 3)))
err("max_unpool1d index out of range", lambda: F.max_unpool1d(torch.ones(1, 1, 2), torch.tensor([[[0, 9]]]), 2))
err("adaptive_avg_pool2d 5d", lambda: F.adaptive_avg_pool2d(torch.randn(1, 1, 1, 4, 4), 2))
err("adaptive_max_pool2d empty", lambda: F.adaptive_max_pool2d(torch.randn(1, 1, 0, 4), 2))
err("adaptive_avg_pool2d bad size", lambda: F.adaptive_avg_pool2d(torch.randn(1, 1, 4, 4), (1, 2, 3)))
err("unfold 3d input", lambda: F.unfold(torch.randn(2, 3, 4, 5, 6), 2))
err("fold bad blocks", lambda: F.fold(torch.randn(1, 12, 10), (4, 5), 2))
err("fold channels", lambda: F.fold(torch.randn(1, 10, 12), (4, 5), 2))
err("pixel_shuffle channels", lambda: F.pixel_shuffle(torch.randn(1, 6, 2, 2), 2))
err("pixel_unshuffle size", lambda: F.pixel_unshuffle(torch.randn(1, 1, 5, 4), 2))
err("pixel_shuffle 2d", lambda: F.pixel_shuffle(torch.randn(4, 4), 2))
err("pad reflect too big", lambda: F.pad(torch.randn(1, 1, 3), (3, 0), mode="reflect"))
err("pad odd length", lambda: F.pad(torch.randn(1, 1, 3), (1, 0, 1)))
err("pad circular too big", lambda: F.pad(torch.randn(1, 1, 3), (4, 0), mode="circular"))
err("pad bad mode", lambda: F.pad(torch.randn(1, 1, 3), (1, 1), mode="wrap"))
err("pad value with reflect", lambda: F.pad(torch.randn(1, 1, 3), (1, 1), mode="reflect", value=1.0))
err("pad too many dims", lambda: F.pad(torch.randn(1, 3), (1, 1, 1, 1, 1, 1)))
err("interpolate size and scale", lambda: F.interpolate(xu, size=4, scale_factor=2))
err("interpolate neither", lambda: F.interpolate(xu))
err("interpolate bad mode", lambda: F.interpolate(xu, scale_factor=2, mode="cubic"))
err("interpolate align nearest", lambda: F.interpolate(xu, scale_factor=2, align_corners=True))
err("interpolate linear 4d", lambda: F.interpolate(xu, scale_factor=2, mode="linear"))
err("interpolate bilinear 3d", lambda: F.interpolate(xl, scale_factor=2, mode="bilinear"))
err("interpolate size len", lambda: F.interpolate(xu, size=(2, 3, 4)))
err("interpolate antialias nearest", lambda: F.interpolate(xu, scale_factor=0.5, antialias=True))
err("interpolate recompute with size", lambda: F.interpolate(xu, size=(3, 3), recompute_scale_factor=True))
err("Upsample no args", lambda: nn.Upsample()(xu))

# ---------------------------------------------------------------- dtypes, empty batches, fractional pooling
xe = torch.randn(0, 4, 7, 8, requires_grad=True)
out = F.conv2d(xe, w2, b2, padding=1)
out.sum().backward()
print("conv2d empty batch", tuple(out.shape), tuple(xe.grad.shape), w2.grad.abs().sum().item())
print("max_pool2d empty batch", tuple(F.max_pool2d(torch.randn(0, 2, 4, 4), 2).shape))
print("interpolate empty batch", tuple(F.interpolate(torch.randn(0, 2, 4, 4), scale_factor=2,
                                                      mode="bilinear").shape))
cd = nn.Conv2d(2, 3, 3, dtype=torch.float64)
xd = torch.randn(1, 2, 5, 5, dtype=torch.float64)
print("Conv2d float64", cd(xd).dtype, cd(xd)[0, 0, 0])
ctd = nn.ConvTranspose1d(2, 3, 3, stride=2, dtype=torch.float64)
print("ConvTranspose1d float64", ctd(xd[:, :, 0]).dtype, tuple(ctd(xd[:, :, 0]).shape))
err("conv2d long input", lambda: F.conv2d(torch.ones(1, 1, 3, 3, dtype=torch.long),
                                          torch.ones(1, 1, 2, 2, dtype=torch.long)))
xint = torch.randint(0, 100, (1, 2, 5, 6))
err("max_pool2d long", lambda: F.max_pool2d(xint, 2))
err("avg_pool2d long", lambda: F.avg_pool2d(xint, 2))
err("adaptive_avg_pool2d long", lambda: F.adaptive_avg_pool2d(xint, 2))
print("interpolate nearest uint8", F.interpolate(xint.to(torch.uint8), scale_factor=2)[0, 0, :2])
err("interpolate bilinear long", lambda: F.interpolate(xint, scale_factor=2, mode="bilinear"))
print("max_pool2d nan", F.max_pool2d(torch.tensor([[[[1.0, float("nan")], [3.0, 2.0]]]]), 2,
                                     return_indices=True))
print("max_pool2d float64", F.max_pool2d(xd, 2).dtype, F.avg_pool2d(xd, 2, ceil_mode=True)[0, 0])
print("adaptive upsampling", F.adaptive_avg_pool2d(torch.arange(6.).view(1, 1, 2, 3), (3, 5))[0, 0])
print("adaptive max upsampling", F.adaptive_max_pool1d(torch.tensor([[[1.0, 3.0, 2.0]]]), 5, return_indices=True))
print("max_pool2d unbatched", F.max_pool2d(xp[0, :1].detach(), 3, return_indices=True)[1])
print("avg_pool2d list kernel", tuple(F.avg_pool2d(xp, [2, 3], [1, 2]).shape))
wfr = torch.randn(1, 1, 3, 3, requires_grad=True)
out = F.conv2d(torch.randn(1, 1, 5, 5), wfr)
out.sum().backward()
print("only weight grad", wfr.grad)
samples = torch.tensor([[[0.3, 0.7], [0.9, 0.1], [0.5, 0.5]], [[0.2, 0.4], [0.8, 0.6], [0.1, 0.9]]])
fr = xp.detach().requires_grad_()
o, i = F.fractional_max_pool2d(fr, 2, output_size=(5, 6), return_indices=True, _random_samples=samples)
summary("fractional_max_pool2d samples", o, fr)
print("fractional indices", i[0, 0])
torch.manual_seed(3)
summary("fractional_max_pool2d ratio", F.fractional_max_pool2d(fr, (2, 3), output_ratio=(0.5, 0.5)), fr)
err("fractional_max_pool2d float ratio", lambda: F.fractional_max_pool2d(fr, (2, 3), output_ratio=0.5))
torch.manual_seed(3)
fm = nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.7))
print(fm, tuple(fm(fr).shape), fm(fr)[0, 0, 0])
torch.manual_seed(4)
fm3 = nn.FractionalMaxPool3d(2, output_size=(3, 2, 2), return_indices=True)
o, i = fm3(x3)
summary("FractionalMaxPool3d", o, x3)
print(fm3, i[0, 0, 0])
err("fractional no size", lambda: nn.FractionalMaxPool2d(2))
err("fractional ratio", lambda: nn.FractionalMaxPool2d(2, output_ratio=1.5))
err("fractional too big", lambda: F.fractional_max_pool2d(fr, 3, output_size=(8, 9)))
