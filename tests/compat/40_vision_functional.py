# The image-shaped functional ops, in the style of the torch.nn.functional docs examples, the spatial
# transformer tutorial, ESPCN super-resolution (pixel_shuffle), SegNet (max_pool2d return_indices +
# max_unpool2d), U-Net / FCN decoders (ConvTranspose2d, interpolate) and patch-based code (unfold / fold):
# F.interpolate in every mode (nearest, nearest-exact, bilinear with align_corners True/False, bicubic,
# area, linear, trilinear, scale_factor, recompute_scale_factor, antialias), F.affine_grid + F.grid_sample
# (bilinear / nearest, zeros / border / reflection padding), F.unfold / F.fold, pixel_shuffle / unshuffle,
# F.pad in every mode, adaptive pooling, max_pool2d with return_indices and max_unpool2d, avg_pool with
# ceil_mode / count_include_pad / divisor_override, ConvTranspose2d with output_padding, groups and dilation,
# and the gradients of each.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

x = torch.arange(16, dtype=torch.float32).view(1, 1, 4, 4)


def show(name, t):
    print(name, tuple(t.shape), t.dtype)
    print(t)


# ---- interpolate
show("nearest x2", F.interpolate(torch.arange(4.).view(1, 1, 2, 2), scale_factor=2, mode="nearest"))
show("nearest size=(3, 5)", F.interpolate(x, size=(3, 5), mode="nearest"))
show("nearest-exact size=(3, 5)", F.interpolate(x, size=(3, 5), mode="nearest-exact"))
show("bilinear align_corners=False", F.interpolate(x[..., :2, :2], size=(3, 3), mode="bilinear", align_corners=False))
show("bilinear align_corners=True", F.interpolate(x[..., :2, :2], size=(3, 3), mode="bilinear", align_corners=True))
show("bilinear down 0.5", F.interpolate(x, scale_factor=0.5, mode="bilinear"))
show("bilinear antialias down", F.interpolate(x, size=(2, 2), mode="bilinear", antialias=True))
show("bicubic", F.interpolate(x, size=(5, 5), mode="bicubic", align_corners=False))
show("bicubic align_corners", F.interpolate(x, size=(3, 3), mode="bicubic", align_corners=True))
show("area", F.interpolate(x, size=(2, 3), mode="area"))
show("linear 1d", F.interpolate(torch.tensor([[[0., 1., 4.]]]), size=5, mode="linear"))
show("linear 1d align_corners",
     F.interpolate(torch.tensor([[[0., 1., 4.]]]), size=5, mode="linear", align_corners=True))
print("trilinear", F.interpolate(torch.randn(1, 2, 2, 3, 4), scale_factor=(2, 1, 0.5), mode="trilinear").shape)
# a non-integer scale factor: the output size is floor(4 * 1.7) = 6; with recompute the scale is 6 / 4
s1 = F.interpolate(x, scale_factor=1.7, mode="bilinear")
s2 = F.interpolate(x, scale_factor=1.7, mode="bilinear", recompute_scale_factor=True)
print("scale 1.7", s1.shape, s1[0, 0, 0].tolist()[:4])
print("recompute", s2.shape, s2[0, 0, 0].tolist()[:4])
print("nn.Upsample", nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)(x[..., :2, :2])[0, 0, 1])
print("UpsamplingNearest2d", nn.UpsamplingNearest2d(scale_factor=2)(x[..., :1, :2]).tolist())
for kwargs in ({"size": 3, "scale_factor": 2}, {}, {"size": 3, "mode": "bilinear", "align_corners": True}):
    try:
        F.interpolate(torch.zeros(1, 1, 4) if "mode" in kwargs else x, **kwargs)
    except (ValueError, NotImplementedError) as e:
        print(type(e).__name__ + ":", e)
# reduced precision (autocast-style decoders upsample float16 / bfloat16 feature maps): the dtype is kept
for dtype in (torch.float16, torch.bfloat16):
    print("interpolate", dtype, [F.interpolate(x.to(dtype), size=(3, 5), mode=mode).dtype
                                 for mode in ("nearest", "bilinear", "bicubic", "area")],
          F.interpolate(x[:, :, 0].to(dtype), size=7, mode="linear").dtype)
print("float16 bilinear values", F.interpolate(x[..., :2, :2].half(), size=(3, 3), mode="bilinear")[0, 0, 1].tolist())
xi = x.clone().requires_grad_()
F.interpolate(xi, size=(3, 7), mode="bilinear", align_corners=False).pow(2).sum().backward()
print("bilinear grad\n", xi.grad)
xi.grad = None
F.interpolate(xi, size=(3, 3), mode="bicubic", align_corners=True).sum().backward()
print("bicubic grad\n", xi.grad)
xi.grad = None
F.interpolate(xi, size=(6, 3), mode="nearest").sum().backward()
print("nearest grad\n", xi.grad)

# ---- affine_grid + grid_sample (the spatial transformer's sampler)
theta = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
grid = F.affine_grid(theta, size=(1, 1, 4, 4), align_corners=False)
print("identity grid", grid.shape, grid[0, 0].tolist())
print("identity sample", torch.allclose(F.grid_sample(x, grid, align_corners=False), x))
grid_ac = F.affine_grid(theta, (1, 1, 3, 3), align_corners=True)
print("align_corners grid row", grid_ac[0, 1].tolist())
angle = math.pi / 6
rot = torch.tensor([[[math.cos(angle), -math.sin(angle), 0.2], [math.sin(angle), math.cos(angle), -0.1]]])
rgrid = F.affine_grid(rot, (1, 1, 4, 4), align_corners=False)
for mode in ("bilinear", "nearest", "bicubic"):
    for padding_mode in ("zeros", "border", "reflection"):
        out = F.grid_sample(x, rgrid, mode=mode, padding_mode=padding_mode, align_corners=False)
        print(f"grid_sample {mode:8s} {padding_mode:10s}", [round(v, 3) for v in out.flatten().tolist()[:6]])
zoom = F.grid_sample(x, 1.5 * rgrid, padding_mode="zeros", align_corners=True)
print("zoomed out\n", zoom)
theta_p = rot.clone().requires_grad_()
xs = x.clone().requires_grad_()
sampled = F.grid_sample(xs, F.affine_grid(theta_p, (1, 1, 4, 4), align_corners=False), align_corners=False)
sampled.square().mean().backward()
print("theta grad", theta_p.grad)
print("input grad\n", xs.grad)
theta_bf16 = torch.eye(2, 3).unsqueeze(0).to(torch.bfloat16)
grid_bf16 = F.affine_grid(theta_bf16, (1, 1, 4, 4), align_corners=False)
print("affine_grid bfloat16", grid_bf16.dtype, F.affine_grid(theta.half(), (1, 1, 4, 4), align_corners=False).dtype)
try:
    print("grid_sample bfloat16", F.grid_sample(x.to(torch.bfloat16), grid_bf16, align_corners=False).dtype)
except RuntimeError as e:
    print("RuntimeError:", e)
print("affine_grid 3d", F.affine_grid(torch.eye(3, 4).unsqueeze(0), (1, 1, 2, 2, 3), align_corners=False).shape)
try:
    F.affine_grid(torch.zeros(1, 3, 3), (1, 1, 4, 4), align_corners=False)
except ValueError as e:
    print("ValueError:", e)

# ---- unfold / fold (im2col), the docs' convolution-by-matmul example
inp = torch.randn(1, 3, 5, 5)
w = torch.randn(2, 3, 3, 3)
cols = F.unfold(inp, kernel_size=3, padding=1)
print("unfold", cols.shape)
out_unf = (cols.transpose(1, 2) @ w.view(2, -1).t()).transpose(1, 2)
out = F.fold(out_unf, (5, 5), (1, 1))
print("conv by unfold == conv2d", torch.allclose(out, F.conv2d(inp, w, padding=1), atol=1e-5))
patches = F.unfold(x, kernel_size=2, stride=2)
print("patches", patches)
print("fold(unfold) sums overlaps\n", F.fold(F.unfold(torch.ones(1, 1, 4, 4), 3), (4, 4), 3))
print("unfold dilation", F.unfold(x, kernel_size=(2, 2), dilation=2).shape, nn.Unfold((2, 3), stride=(1, 2))(x).shape)
print("fold module", nn.Fold(output_size=(4, 4), kernel_size=2, stride=2)(patches).equal(x))
xu = x.clone().requires_grad_()
F.unfold(xu, 3, padding=1).sum().backward()
print("unfold grad counts\n", xu.grad)

# ---- pixel_shuffle / pixel_unshuffle (ESPCN)
ps_in = torch.arange(16.).view(1, 4, 2, 2)
show("pixel_shuffle", F.pixel_shuffle(ps_in, 2))
print("unshuffle inverts", torch.equal(F.pixel_unshuffle(F.pixel_shuffle(ps_in, 2), 2), ps_in))
print("PixelUnshuffle", nn.PixelUnshuffle(2)(x).shape, nn.PixelShuffle(3)(torch.randn(2, 18, 2, 2)).shape)
try:
    F.pixel_shuffle(torch.randn(1, 3, 2, 2), 2)
except RuntimeError as e:
    print("RuntimeError:", e)

# ---- F.pad in every mode
row = torch.arange(1., 5.).view(1, 1, 4)
for mode in ("constant", "reflect", "replicate", "circular"):
    print(f"pad {mode:9s}", F.pad(row, (2, 3), mode=mode).tolist())
print("constant value=-1", F.pad(row, (1, 1), value=-1.0).tolist())
print("negative pad crops", F.pad(row, (-1, 1)).tolist())
show("pad 2d reflect", F.pad(x[..., :3, :3], (1, 1, 2, 0), mode="reflect"))
show("pad 2d circular", F.pad(x[..., :2, :3], (1, 2, 1, 1), mode="circular"))
print("pad last 3 dims", F.pad(torch.ones(1, 1, 2, 2, 2), (1, 1, 0, 1, 2, 0), mode="replicate").shape)
print("pad int dtype", F.pad(torch.tensor([[1, 2]]), (1, 0), value=7))
print("nn.ReflectionPad2d", nn.ReflectionPad2d((1, 0, 0, 1))(x[..., :2, :2]).tolist())
print("nn.ZeroPad2d", nn.ZeroPad2d(1)(torch.ones(1, 1, 1, 1)).sum().item(), nn.ConstantPad1d((0, 2), 3.5)(row).tolist())
try:
    F.pad(row, (4, 0), mode="reflect")
except RuntimeError as e:
    print("RuntimeError:", e)
xp = x[..., :3, :3].clone().requires_grad_()
F.pad(xp, (2, 2, 2, 2), mode="reflect").sum().backward()
print("reflect pad grad\n", xp.grad)
xp.grad = None
F.pad(xp, (1, 1, 1, 1), mode="replicate").sum().backward()
print("replicate pad grad\n", xp.grad)
xp.grad = None
F.pad(xp, (1, 2, 0, 1), mode="circular").sum().backward()
print("circular pad grad\n", xp.grad)

# ---- adaptive pooling
a = torch.arange(25.).view(1, 1, 5, 5)
show("adaptive_avg_pool2d (3, 2)", F.adaptive_avg_pool2d(a, (3, 2)))
show("adaptive_max_pool2d 2", F.adaptive_max_pool2d(a, 2))
out, idx = F.adaptive_max_pool2d(a.flip(-1), (2, 3), return_indices=True)
print("adaptive max indices", idx.tolist(), idx.dtype)
print("adaptive None keeps dim", F.adaptive_avg_pool2d(a, (None, 2)).shape)
print("adaptive 1d", F.adaptive_avg_pool1d(torch.arange(7.).view(1, 1, 7), 3).tolist())
print("AdaptiveAvgPool3d", nn.AdaptiveAvgPool3d((1, 2, 2))(torch.randn(1, 2, 3, 4, 5)).shape)
aa = a.clone().requires_grad_()
F.adaptive_avg_pool2d(aa, (3, 2)).sum().backward()
print("adaptive avg grad\n", aa.grad)

# ---- max_pool2d with return_indices and max_unpool2d (SegNet)
img = torch.randn(1, 2, 4, 6)
pooled, indices = F.max_pool2d(img, kernel_size=2, stride=2, return_indices=True)
print("pooled", pooled.shape, "indices", indices.dtype, indices[0, 0].tolist())
unpooled = F.max_unpool2d(pooled, indices, kernel_size=2, stride=2)
print("unpooled", unpooled.shape, "nonzeros per map", (unpooled != 0).sum((2, 3)).tolist())
print("unpool output_size", F.max_unpool2d(pooled, indices, 2, output_size=(5, 7)).shape)
pool = nn.MaxPool2d(2, stride=2, return_indices=True)
unpool = nn.MaxUnpool2d(2, stride=2)
o, i = pool(x)
print("MaxUnpool2d\n", unpool(o, i))
o1, i1 = F.max_pool1d(torch.tensor([[[1., 5., 2., 8., 3.]]]), 2, return_indices=True)
print("max_pool1d", o1.tolist(), i1.tolist(), F.max_unpool1d(o1, i1, 2).tolist())
print("max_pool2d ceil_mode", F.max_pool2d(a, 2, ceil_mode=True).tolist())
print("max_pool2d padding dilation", F.max_pool2d(a, 3, stride=2, padding=1, dilation=1).tolist())
print("max_pool2d dilation=2", F.max_pool2d(a, 2, stride=1, dilation=2)[0, 0, 0].tolist())
xm = img.clone().requires_grad_()
p, _ = F.max_pool2d(xm, 2, return_indices=True)
p.sum().backward()
print("max pool grad matches unpool mask", torch.equal(xm.grad != 0, unpooled != 0))
tie = torch.ones(1, 1, 2, 2, requires_grad=True)
F.max_pool2d(tie, 2).backward(torch.ones(1, 1, 1, 1))
print("ties: grad goes to", tie.grad.tolist())

# ---- avg_pool with ceil_mode / count_include_pad / divisor_override
print("avg ceil_mode", F.avg_pool2d(a, 2, ceil_mode=True).tolist())
print("avg padding count_include_pad=True", F.avg_pool2d(a, 3, stride=2, padding=1).tolist())
print("avg padding count_include_pad=False", F.avg_pool2d(a, 3, stride=2, padding=1, count_include_pad=False).tolist())
print("avg ceil+pad", F.avg_pool2d(a, 2, stride=2, padding=1, ceil_mode=True).tolist())
print("divisor_override=1", F.avg_pool2d(a, 2, divisor_override=1).tolist())
print("avg_pool1d", F.avg_pool1d(torch.arange(5.).view(1, 1, 5), 2, ceil_mode=True, count_include_pad=False).tolist())
print("AvgPool3d", nn.AvgPool3d(2, ceil_mode=True)(torch.ones(1, 1, 3, 3, 3)).tolist())
print("lp_pool2d", F.lp_pool2d(a, 2, 2).flatten().tolist()[:2])
ap = a.clone().requires_grad_()
F.avg_pool2d(ap, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False).sum().backward()
print("avg pool grad\n", ap.grad)
try:
    F.avg_pool2d(a, 2, padding=2)
except RuntimeError as e:
    print("RuntimeError:", e)

# ---- ConvTranspose2d: output_padding, groups, dilation
ct = nn.ConvTranspose2d(4, 6, kernel_size=3, stride=2, padding=1, output_padding=1, groups=2, dilation=1)
print("weight", ct.weight.shape, "bias", ct.bias.shape)
z = torch.randn(1, 4, 3, 3)
y = ct(z)
print("stride 2 + output_padding 1 doubles", y.shape)
print("output_size=", ct(z, output_size=[5, 5]).shape)
ct2 = nn.ConvTranspose2d(2, 2, kernel_size=2, stride=1, padding=0, dilation=2, bias=False)
with torch.no_grad():
    ct2.weight.copy_(torch.arange(16.).view(2, 2, 2, 2) / 10)
y2 = ct2(torch.ones(1, 2, 2, 2))
show("dilated transpose", y2)
print("functional", torch.allclose(F.conv_transpose2d(z, ct.weight, ct.bias, stride=2, padding=1, output_padding=1,
                                                      groups=2), y))
# conv_transpose2d is the gradient of conv2d with respect to its input
inp = torch.randn(1, 3, 5, 5, requires_grad=True)
k = torch.randn(4, 3, 3, 3)
g = torch.randn(1, 4, 3, 3)
(F.conv2d(inp, k, stride=2, padding=1) * g).sum().backward()
print("conv2d input grad == conv_transpose2d", torch.allclose(inp.grad, F.conv_transpose2d(g, k, stride=2, padding=1),
                                                                 atol=1e-5))
zt = z.clone().requires_grad_()
yt = ct(zt)
yt.pow(2).mean().backward()
print("transpose grads", tuple(zt.grad.shape), round(zt.grad.abs().sum().item(), 4),
      round(ct.weight.grad.abs().sum().item(), 4), [round(v, 4) for v in ct.bias.grad.tolist()])
try:
    nn.ConvTranspose2d(4, 6, 3, stride=2, output_padding=2)(z)
except RuntimeError as e:
    print("RuntimeError:", e)
ct1 = nn.ConvTranspose1d(1, 1, 3, stride=3, bias=False)
with torch.no_grad():
    ct1.weight.fill_(1.0)
print("ConvTranspose1d", ct1(torch.tensor([[[1., 2.]]])).tolist())

# ---- a tiny encoder-decoder: pool with indices, unpool, upsample, pixel shuffle
class TinySegNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Conv2d(1, 4, 3, padding=1, padding_mode="reflect")
        self.pool = nn.MaxPool2d(2, return_indices=True)
        self.unpool = nn.MaxUnpool2d(2)
        self.dec = nn.ConvTranspose2d(4, 4, 3, padding=1)
        self.up = nn.Conv2d(4, 4, 1)
        self.shuffle = nn.PixelShuffle(2)

    def forward(self, x):
        h = F.relu(self.enc(x))
        p, idx = self.pool(h)
        u = self.unpool(p, idx, output_size=h.shape)
        d = F.relu(self.dec(u))
        return self.shuffle(self.up(F.avg_pool2d(d, 2))).mean(1, keepdim=True)


net = TinySegNet()
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
target = F.interpolate(torch.rand(4, 1, 3, 3), size=(6, 6), mode="bilinear", align_corners=False)
inputs = target + 0.1 * torch.randn_like(target)
for step in range(15):
    loss = F.mse_loss(net(inputs), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0 or step == 14:
        print(f"step {step:2d} loss {loss.item():.5f}")
