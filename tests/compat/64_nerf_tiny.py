# A tiny NeRF as the "NeRF from scratch" notebooks and nerf-pytorch write it: positional encoding
# (x, sin(2^k x), cos(2^k x)), pinhole rays from torch.meshgrid with indexing='ij' and 'xy', stratified
# sampling along each ray by torch.linspace plus torch.rand jitter, volume rendering (alpha = 1 - exp(-sigma
# delta), transmittance by an exclusive cumprod built with torch.cat), hierarchical sampling by inverse-CDF
# (sample_pdf with torch.searchsorted, gather and clamp), the coarse / fine MLPs with a skip connection
# (torch.cat of the encoded input), Adam with an exponential learning-rate decay, and a few steps on a
# synthetic scene (a soft sphere whose colour depends on position) scored by MSE and PSNR.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


# ---------------------------------------------------------------- positional encoding
class PositionalEncoding(nn.Module):
    def __init__(self, n_freqs, include_input=True, log_sampling=True):
        super().__init__()
        self.include_input = include_input
        if log_sampling:
            freqs = 2.0 ** torch.linspace(0.0, n_freqs - 1, n_freqs)
        else:
            freqs = torch.linspace(2.0 ** 0.0, 2.0 ** (n_freqs - 1), n_freqs)
        self.register_buffer("freqs", freqs, persistent=False)

    def out_dim(self, d):
        return d * (int(self.include_input) + 2 * len(self.freqs))

    def forward(self, x):
        parts = [x] if self.include_input else []
        for f in self.freqs:
            parts += [torch.sin(x * f), torch.cos(x * f)]
        return torch.cat(parts, dim=-1)


def encode_vectorised(x, n_freqs):
    """The same encoding by broadcasting: (..., d) -> (..., d * (1 + 2L)) in the same order."""
    freqs = 2.0 ** torch.arange(n_freqs, dtype=x.dtype)
    xb = x[..., None, :] * freqs[:, None]  # (..., L, d)
    enc = torch.stack((torch.sin(xb), torch.cos(xb)), dim=-2)  # (..., L, 2, d)
    return torch.cat((x, enc.flatten(-3)), dim=-1)


pe = PositionalEncoding(4)
pts = torch.rand(5, 3)
e = pe(pts)
print("encoding", pe.freqs, e.shape, pe.out_dim(3))
print(torch.allclose(e, encode_vectorised(pts, 4)), e[0, :9])
print(PositionalEncoding(3, log_sampling=False).freqs, PositionalEncoding(2, include_input=False)(pts).shape)


# ---------------------------------------------------------------- rays
H, W, FOCAL = 8, 8, 10.0


def get_rays(H, W, focal, c2w):
    """nerf-pytorch's get_rays: meshgrid with indexing='ij' over (W, H), then .t()."""
    i, j = torch.meshgrid(torch.linspace(0, W - 1, W), torch.linspace(0, H - 1, H), indexing="ij")
    i, j = i.t(), j.t()
    dirs = torch.stack([(i - W * 0.5) / focal, -(j - H * 0.5) / focal, -torch.ones_like(i)], -1)
    rays_d = torch.sum(dirs[..., None, :] * c2w[:3, :3], -1)
    rays_o = c2w[:3, -1].expand(rays_d.shape)
    return rays_o, rays_d


def get_rays_xy(H, W, focal, c2w):
    """The same rays with indexing='xy' (no transpose) and a matmul for the rotation."""
    i, j = torch.meshgrid(torch.arange(W, dtype=torch.float32), torch.arange(H, dtype=torch.float32),
                          indexing="xy")
    dirs = torch.stack([(i - W * 0.5) / focal, -(j - H * 0.5) / focal, -torch.ones_like(i)], -1)
    rays_d = dirs @ c2w[:3, :3].T
    return c2w[:3, 3].broadcast_to(rays_d.shape), rays_d


def pose_spherical(theta, phi, radius):
    """A camera on a sphere looking at the origin (4x4 camera-to-world)."""
    trans = torch.eye(4)
    trans[2, 3] = radius
    ph, th = math.radians(phi), math.radians(theta)
    rot_phi = torch.tensor([[1, 0, 0, 0], [0, math.cos(ph), -math.sin(ph), 0],
                            [0, math.sin(ph), math.cos(ph), 0], [0, 0, 0, 1]], dtype=torch.float32)
    rot_theta = torch.tensor([[math.cos(th), 0, -math.sin(th), 0], [0, 1, 0, 0],
                              [math.sin(th), 0, math.cos(th), 0], [0, 0, 0, 1]], dtype=torch.float32)
    return rot_theta @ rot_phi @ trans


c2w = pose_spherical(30.0, -20.0, 3.0)
print("pose", c2w)
rays_o, rays_d = get_rays(H, W, FOCAL, c2w)
o2, d2 = get_rays_xy(H, W, FOCAL, c2w)
print("rays", rays_o.shape, rays_d.shape, torch.allclose(rays_d, d2, atol=1e-6), torch.equal(rays_o, o2))
print(rays_d[0, 0], rays_d[H // 2, W // 2], rays_o[0, 0])
ii, jj = torch.meshgrid(torch.arange(3), torch.arange(2), indexing="ij")
xx, yy = torch.meshgrid(torch.arange(3), torch.arange(2), indexing="xy")
print(ii.shape, xx.shape, ii.tolist(), xx.tolist())
print(torch.cartesian_prod(torch.arange(2), torch.arange(3)).T)


# ---------------------------------------------------------------- sampling along rays
def stratified_samples(near, far, n_samples, n_rays, perturb=True):
    t_vals = torch.linspace(0.0, 1.0, steps=n_samples)
    z_vals = near * (1.0 - t_vals) + far * t_vals
    z_vals = z_vals.expand([n_rays, n_samples])
    if perturb:
        mids = 0.5 * (z_vals[..., 1:] + z_vals[..., :-1])
        upper = torch.cat([mids, z_vals[..., -1:]], -1)
        lower = torch.cat([z_vals[..., :1], mids], -1)
        t_rand = torch.rand(z_vals.shape)
        z_vals = lower + (upper - lower) * t_rand
    return z_vals


z = stratified_samples(2.0, 4.0, 6, 3)
print("z_vals", z.shape, z[0], bool((z[:, 1:] >= z[:, :-1]).all()))
print(stratified_samples(2.0, 4.0, 5, 2, perturb=False))


# ---------------------------------------------------------------- volume rendering
def cumprod_exclusive(tensor):
    """tf.math.cumprod(..., exclusive=True): [1, a, ab, abc, ...]."""
    cumprod = torch.cumprod(tensor, dim=-1)
    cumprod = torch.roll(cumprod, 1, dims=-1)
    cumprod[..., 0] = 1.0
    return cumprod


def raw2outputs(raw, z_vals, rays_d, raw_noise_std=0.0, white_bkgd=False):
    dists = z_vals[..., 1:] - z_vals[..., :-1]
    dists = torch.cat([dists, torch.tensor([1e10]).expand(dists[..., :1].shape)], -1)
    dists = dists * torch.norm(rays_d[..., None, :], dim=-1)
    rgb = torch.sigmoid(raw[..., :3])
    noise = torch.randn(raw[..., 3].shape) * raw_noise_std if raw_noise_std > 0.0 else 0.0
    alpha = 1.0 - torch.exp(-F.relu(raw[..., 3] + noise) * dists)
    # transmittance: the exclusive cumprod, by torch.cat of a column of ones
    trans = torch.cumprod(torch.cat([torch.ones((alpha.shape[0], 1)), 1.0 - alpha + 1e-10], -1), -1)[:, :-1]
    weights = alpha * trans
    rgb_map = torch.sum(weights[..., None] * rgb, -2)
    depth_map = torch.sum(weights * z_vals, -1)
    disp_map = 1.0 / torch.max(1e-10 * torch.ones_like(depth_map), depth_map / torch.sum(weights, -1))
    acc_map = torch.sum(weights, -1)
    if white_bkgd:
        rgb_map = rgb_map + (1.0 - acc_map[..., None])
    return rgb_map, disp_map, acc_map, weights, depth_map


a = torch.tensor([[0.5, 0.2, 0.9, 0.4]])
print("exclusive cumprod", cumprod_exclusive(a), torch.cat([torch.ones(1, 1), a.cumprod(-1)[:, :-1]], -1))
raw = torch.randn(3, 6, 4)
rgb_map, disp_map, acc_map, weights, depth_map = raw2outputs(raw, z, rays_d[0, :3])
print("render", rgb_map.shape, weights.shape, acc_map, depth_map)
print(rgb_map)
print(bool((weights.sum(-1) <= 1 + 1e-5).all()), disp_map.shape)
print(raw2outputs(raw, z, rays_d[0, :3], raw_noise_std=1.0, white_bkgd=True)[0])


# ---------------------------------------------------------------- hierarchical sampling
def sample_pdf(bins, weights, N_samples, det=False):
    weights = weights + 1e-5  # prevent nans
    pdf = weights / torch.sum(weights, -1, keepdim=True)
    cdf = torch.cumsum(pdf, -1)
    cdf = torch.cat([torch.zeros_like(cdf[..., :1]), cdf], -1)  # (batch, len(bins))
    if det:
        u = torch.linspace(0.0, 1.0, steps=N_samples)
        u = u.expand(list(cdf.shape[:-1]) + [N_samples])
    else:
        u = torch.rand(list(cdf.shape[:-1]) + [N_samples])
    u = u.contiguous()
    inds = torch.searchsorted(cdf, u, right=True)
    below = torch.max(torch.zeros_like(inds - 1), inds - 1)
    above = torch.min((cdf.shape[-1] - 1) * torch.ones_like(inds), inds)
    inds_g = torch.stack([below, above], -1)  # (batch, N_samples, 2)
    matched_shape = [inds_g.shape[0], inds_g.shape[1], cdf.shape[-1]]
    cdf_g = torch.gather(cdf.unsqueeze(1).expand(matched_shape), 2, inds_g)
    bins_g = torch.gather(bins.unsqueeze(1).expand(matched_shape), 2, inds_g)
    denom = cdf_g[..., 1] - cdf_g[..., 0]
    denom = torch.where(denom < 1e-5, torch.ones_like(denom), denom)
    t = (u - cdf_g[..., 0]) / denom
    samples = bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0])
    return samples


z_mid = 0.5 * (z[..., 1:] + z[..., :-1])
fine_det = sample_pdf(z_mid, weights[..., 1:-1], 8, det=True)
fine = sample_pdf(z_mid, weights[..., 1:-1].detach(), 8)
print("sample_pdf", fine.shape, fine_det[0])
print(bool(((fine >= z_mid[:, :1]) & (fine <= z_mid[:, -1:])).all()))
z_all, order = torch.sort(torch.cat([z, fine], -1), -1)
print(z_all.shape, order[0].tolist())
print(torch.searchsorted(torch.tensor([0.0, 0.25, 0.5, 1.0]), torch.tensor([0.25, 0.3, 1.0])),
      torch.searchsorted(torch.tensor([0.0, 0.25, 0.5, 1.0]), torch.tensor([0.25, 0.3, 1.0]), right=True),
      torch.searchsorted(torch.tensor([0.0, 0.25, 0.5, 1.0]), torch.tensor([0.25]), side="right"))
print(torch.bucketize(torch.tensor([0.1, 0.5, 0.9]), torch.tensor([0.0, 0.5, 1.0])))


# ---------------------------------------------------------------- the MLP
class NeRF(nn.Module):
    def __init__(self, D=4, W=32, input_ch=3, input_ch_views=3, skips=(2,), use_viewdirs=True):
        super().__init__()
        self.input_ch, self.input_ch_views, self.skips, self.use_viewdirs = input_ch, input_ch_views, skips, use_viewdirs
        self.pts_linears = nn.ModuleList(
            [nn.Linear(input_ch, W)] + [nn.Linear(W, W) if i not in skips else nn.Linear(W + input_ch, W)
                                        for i in range(D - 1)])
        self.views_linears = nn.ModuleList([nn.Linear(input_ch_views + W, W // 2)])
        if use_viewdirs:
            self.feature_linear = nn.Linear(W, W)
            self.alpha_linear = nn.Linear(W, 1)
            self.rgb_linear = nn.Linear(W // 2, 3)
        else:
            self.output_linear = nn.Linear(W, 4)

    def forward(self, x):
        input_pts, input_views = torch.split(x, [self.input_ch, self.input_ch_views], dim=-1)
        h = input_pts
        for i, l in enumerate(self.pts_linears):
            h = F.relu(self.pts_linears[i](h))
            if i in self.skips:
                h = torch.cat([input_pts, h], -1)
        if self.use_viewdirs:
            alpha = self.alpha_linear(h)
            feature = self.feature_linear(h)
            h = torch.cat([feature, input_views], -1)
            for l in self.views_linears:
                h = F.relu(l(h))
            rgb = self.rgb_linear(h)
            return torch.cat([rgb, alpha], -1)
        return self.output_linear(h)


L_PTS, L_DIRS = 4, 2
embed_pts, embed_dirs = PositionalEncoding(L_PTS), PositionalEncoding(L_DIRS)
ch, ch_views = embed_pts.out_dim(3), embed_dirs.out_dim(3)
coarse = NeRF(input_ch=ch, input_ch_views=ch_views)
fine_model = NeRF(input_ch=ch, input_ch_views=ch_views)
print(coarse.pts_linears, ch, ch_views)
print("parameters", sum(p.numel() for p in coarse.parameters()))
plain = NeRF(input_ch=ch, input_ch_views=ch_views, use_viewdirs=False)
print(plain(torch.randn(2, ch + ch_views)).shape)


def run_network(pts, viewdirs, fn, chunk=64):
    """Encode points and directions, run the MLP in chunks (as nerf-pytorch's batchify does)."""
    flat = pts.reshape(-1, 3)
    dirs = viewdirs[:, None].expand(pts.shape).reshape(-1, 3)
    inputs = torch.cat([embed_pts(flat), embed_dirs(dirs)], -1)
    out = torch.cat([fn(inputs[i:i + chunk]) for i in range(0, inputs.shape[0], chunk)], 0)
    return out.reshape(list(pts.shape[:-1]) + [out.shape[-1]])


# ---------------------------------------------------------------- a synthetic scene and training
def scene(pts, dirs):
    """Ground truth: a sphere of radius 1 with a soft edge; colour from position, a little from direction."""
    r = pts.norm(dim=-1, keepdim=True)
    sigma = 8.0 * torch.sigmoid(10.0 * (1.0 - r))
    rgb = torch.cat([0.5 + 0.5 * torch.tanh(pts), ], -1) * (0.9 + 0.1 * dirs[..., None, 2:3].abs())
    return torch.cat([torch.logit(rgb.clamp(1e-3, 1 - 1e-3)), sigma], -1)


NEAR, FAR, N_COARSE, N_FINE = 1.5, 4.5, 16, 16


def render(rays_o, rays_d, model_c, model_f, perturb=True, use_truth=False):
    n = rays_o.shape[0]
    viewdirs = rays_d / torch.norm(rays_d, dim=-1, keepdim=True)
    z_vals = stratified_samples(NEAR, FAR, N_COARSE, n, perturb)
    pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]
    raw = scene(pts, viewdirs) if use_truth else run_network(pts, viewdirs, model_c)
    rgb_c, _, acc_c, weights, _ = raw2outputs(raw, z_vals, rays_d)
    z_mid = 0.5 * (z_vals[..., 1:] + z_vals[..., :-1])
    z_samples = sample_pdf(z_mid, weights[..., 1:-1], N_FINE, det=not perturb).detach()
    z_vals, _ = torch.sort(torch.cat([z_vals, z_samples], -1), -1)
    pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]
    raw = scene(pts, viewdirs) if use_truth else run_network(pts, viewdirs, model_f)
    rgb_f, disp_f, acc_f, _, depth_f = raw2outputs(raw, z_vals, rays_d)
    return rgb_c, rgb_f, acc_f, depth_f


mse2psnr = lambda x: -10.0 * torch.log(x) / torch.log(torch.tensor([10.0]))
img2mse = lambda x, y: torch.mean((x - y) ** 2)

# ground-truth images from three cameras
poses = [pose_spherical(th, -30.0, 3.5) for th in (0.0, 120.0, 240.0)]
all_o, all_d, all_rgb = [], [], []
with torch.no_grad():
    for c2w in poses:
        ro, rd = get_rays(H, W, FOCAL / 2, c2w)
        ro, rd = ro.reshape(-1, 3), rd.reshape(-1, 3)
        _, target, acc, depth = render(ro, rd, None, None, perturb=False, use_truth=True)
        all_o.append(ro)
        all_d.append(rd)
        all_rgb.append(target)
rays_o_all, rays_d_all, target_all = torch.cat(all_o), torch.cat(all_d), torch.cat(all_rgb)
print("dataset", rays_o_all.shape, target_all.shape, f"{target_all.mean().item():.4f}")
print("depth of the last view", depth.reshape(H, W)[::3, ::3])
print(acc.reshape(H, W)[H // 2])

params = list(coarse.parameters()) + list(fine_model.parameters())
optimizer = torch.optim.Adam(params, lr=5e-3, betas=(0.9, 0.999))
decay_rate, decay_steps = 0.1, 200
N_RAND = 64
for step in range(40):
    idx = torch.randint(0, rays_o_all.shape[0], (N_RAND,))
    rgb_c, rgb_f, _, _ = render(rays_o_all[idx], rays_d_all[idx], coarse, fine_model)
    img_loss = img2mse(rgb_f, target_all[idx])
    loss = img_loss + img2mse(rgb_c, target_all[idx])
    psnr = mse2psnr(img_loss.detach())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    new_lrate = 5e-3 * (decay_rate ** ((step + 1) / decay_steps))
    for param_group in optimizer.param_groups:
        param_group["lr"] = new_lrate
    if step % 8 == 0 or step == 39:
        print(f"step {step:3d} loss {loss.item():.4f} psnr {psnr.item():.2f} lr {new_lrate:.6f}")

with torch.no_grad():
    ro, rd = get_rays(H, W, FOCAL / 2, poses[0])
    _, rgb_eval, acc_eval, _ = render(ro.reshape(-1, 3), rd.reshape(-1, 3), coarse, fine_model, perturb=False)
    mse = F.mse_loss(rgb_eval, target_all[: H * W])
    print(f"eval mse {mse.item():.4f} psnr {mse2psnr(mse).item():.2f}", rgb_eval.reshape(H, W, 3).shape)
    img8 = (255 * rgb_eval.clamp(0, 1)).to(torch.uint8).reshape(H, W, 3)
    print(img8.dtype, img8[H // 2, :4])

# gradients through the renderer: of the colour with respect to the raw densities, and through cumprod
# with a zero in it (an opaque sample stops the gradient to everything behind it)
raw_g = torch.randn(2, 6, 4).requires_grad_()
z_g = stratified_samples(2.0, 4.0, 6, 2, perturb=False)
rgb_g = raw2outputs(raw_g, z_g, rays_d[0, :2])[0]
rgb_g.sum().backward()
print("d rgb / d sigma", raw_g.grad[..., 3])
t = torch.tensor([[0.9, 0.0, 0.5, 0.7]], requires_grad=True)
excl = cumprod_exclusive(t)
excl.sum().backward()
print(excl, t.grad)
t2 = torch.tensor([0.5, 0.0, 0.0, 2.0], requires_grad=True)
torch.cumprod(t2, 0).sum().backward()
print(t2.grad, torch.cumprod(t2.detach(), 0))
cdf = torch.tensor([0.3, 0.0, 0.9, 0.6])
order = torch.argsort(cdf)
print(torch.searchsorted(cdf, torch.tensor([0.5, 0.95]), sorter=order), torch.searchsorted(cdf[order], 0.6))
