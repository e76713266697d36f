# A tiny denoising diffusion model (DDPM) as "The Annotated Diffusion Model" and denoising-diffusion-pytorch
# write it, on 1x8x8 Gaussian-blob images made with torch.meshgrid / torch.exp: the linear (torch.linspace)
# and cosine (torch.cos + torch.clip) beta schedules, torch.cumprod, F.pad of alphas_cumprod, torch.sqrt of
# 1 / alphas, the extract helper (gather(-1, t) + reshape(b, *((1,) * (len(x_shape) - 1)))), sinusoidal
# timestep embeddings, a small UNet (weight-standardized Conv2d, GroupNorm, SiLU, residual blocks with the
# time embedding as scale and shift through Linear + [:, :, None, None], a stride-2 conv down,
# nn.Upsample(nearest) + conv and ConvTranspose2d up, skip connections by torch.cat on dim=1, softmax
# attention by einsum and linear attention by bmm over the flattened pixels, Dropout), q_sample with
# torch.randn_like, L1 / MSE / smooth-L1 noise-prediction losses at torch.randint timesteps, Adam, an EMA of
# the weights by lerp_, by AveragedModel (a custom avg_fn and get_ema_multi_avg_fn) and by torch._foreach_*,
# ancestral sampling with the posterior variance and .clamp_(-1, 1), and deterministic DDIM steps.
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

torch.manual_seed(0)

timesteps = 20
image_size = 8
channels = 1
batch_size = 16
device = "cuda" if torch.cuda.is_available() else "cpu"
device = "cpu"  # the printed numbers are CPU numbers


# ---------------------------------------------------------------- noise schedules
def linear_beta_schedule(timesteps, beta_start=0.0001, beta_end=0.02):
    return torch.linspace(beta_start, beta_end, timesteps)


def cosine_beta_schedule(timesteps, s=0.008):
    """cosine schedule as proposed in https://arxiv.org/abs/2102.09672"""
    steps = timesteps + 1
    x = torch.linspace(0, timesteps, steps, dtype=torch.float64)
    alphas_cumprod = torch.cos(((x / timesteps) + s) / (1 + s) * math.pi * 0.5) ** 2
    alphas_cumprod = alphas_cumprod / alphas_cumprod[0]
    betas = 1 - (alphas_cumprod[1:] / alphas_cumprod[:-1])
    return torch.clip(betas, 0.0001, 0.9999)


betas = linear_beta_schedule(timesteps=timesteps, beta_end=0.3)  # few steps: larger betas
print("linear betas", betas.dtype, betas[:3], betas[-1].item())
cos_betas = cosine_beta_schedule(timesteps)
print("cosine betas", cos_betas.dtype, cos_betas[[0, 1, 10, -1]])
print("cosine alphas_cumprod[-1]", torch.cumprod(1 - cos_betas, dim=0)[-1].item())

# define alphas
alphas = 1. - betas
alphas_cumprod = torch.cumprod(alphas, axis=0)
alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.0)
sqrt_recip_alphas = torch.sqrt(1.0 / alphas)

# calculations for diffusion q(x_t | x_{t-1}) and others
sqrt_alphas_cumprod = torch.sqrt(alphas_cumprod)
sqrt_one_minus_alphas_cumprod = torch.sqrt(1. - alphas_cumprod)

# calculations for posterior q(x_{t-1} | x_t, x_0)
posterior_variance = betas * (1. - alphas_cumprod_prev) / (1. - alphas_cumprod)
posterior_log_variance_clipped = torch.log(posterior_variance.clamp(min=1e-20))
posterior_mean_coef1 = betas * torch.sqrt(alphas_cumprod_prev) / (1. - alphas_cumprod)
posterior_mean_coef2 = (1. - alphas_cumprod_prev) * torch.sqrt(alphas) / (1. - alphas_cumprod)
sqrt_recip_alphas_cumprod = torch.sqrt(1. / alphas_cumprod)
sqrt_recipm1_alphas_cumprod = torch.sqrt(1. / alphas_cumprod - 1)

print("alphas_cumprod", alphas_cumprod[[0, 9, 19]], alphas_cumprod_prev[:2])
print("posterior_variance", posterior_variance[:3], posterior_log_variance_clipped[:2])
print("sqrt_recip_alphas", sqrt_recip_alphas[[0, -1]], sqrt_one_minus_alphas_cumprod[-1].item())


def extract(a, t, x_shape):
    batch_size = t.shape[0]
    out = a.gather(-1, t.cpu())
    return out.reshape(batch_size, *((1,) * (len(x_shape) - 1))).to(t.device)


t_demo = torch.tensor([0, 5, 19])
print("extract", extract(sqrt_alphas_cumprod, t_demo, (3, 1, 8, 8)).shape,
      extract(sqrt_alphas_cumprod, t_demo, (3, 1, 8, 8)).flatten())


# ---------------------------------------------------------------- data: Gaussian blobs in [-1, 1]
def blobs(n):
    yy, xx = torch.meshgrid(torch.arange(image_size).float(), torch.arange(image_size).float(), indexing="ij")
    centres = torch.rand(n, 2, 1, 1) * 4 + 2
    width = torch.rand(n, 1, 1) * 1.5 + 1.0
    img = torch.exp(-((yy - centres[:, 0]) ** 2 + (xx - centres[:, 1]) ** 2) / (2 * width ** 2))
    return img[:, None] * 2 - 1


data = blobs(64)
print("data", data.shape, data.dtype, round(data.mean().item(), 4), round(data.std().item(), 4),
      data.min().item() >= -1, data.max().item() <= 1)


# forward diffusion (using the nice property)
def q_sample(x_start, t, noise=None):
    if noise is None:
        noise = torch.randn_like(x_start)
    sqrt_alphas_cumprod_t = extract(sqrt_alphas_cumprod, t, x_start.shape)
    sqrt_one_minus_alphas_cumprod_t = extract(sqrt_one_minus_alphas_cumprod, t, x_start.shape)
    return sqrt_alphas_cumprod_t * x_start + sqrt_one_minus_alphas_cumprod_t * noise


x_start = data[:1]
fixed_noise = torch.randn_like(x_start)
for t in [0, 5, 10, 19]:
    x_noisy = q_sample(x_start, torch.tensor([t]), fixed_noise)
    print(f"q_sample t={t:2d} mean {x_noisy.mean().item():.4f} std {x_noisy.std().item():.4f} "
          f"corr {torch.corrcoef(torch.stack([x_noisy.flatten(), x_start.flatten()]))[0, 1].item():.4f}")


# ---------------------------------------------------------------- the network
class SinusoidalPositionEmbeddings(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, time):
        device = time.device
        half_dim = self.dim // 2
        embeddings = math.log(10000) / (half_dim - 1)
        embeddings = torch.exp(torch.arange(half_dim, device=device) * -embeddings)
        embeddings = time[:, None] * embeddings[None, :]
        embeddings = torch.cat((embeddings.sin(), embeddings.cos()), dim=-1)
        return embeddings


emb = SinusoidalPositionEmbeddings(8)(torch.tensor([0, 1, 19]))
print("time embedding", emb.shape, emb.dtype)
print(emb)


class WeightStandardizedConv2d(nn.Conv2d):
    """
    https://arxiv.org/abs/1903.10520
    weight standardization purportedly works synergistically with group normalization
    """

    def forward(self, x):
        eps = 1e-5 if x.dtype == torch.float32 else 1e-3
        weight = self.weight
        mean = weight.mean(dim=(1, 2, 3), keepdim=True)
        var = torch.var(weight, dim=(1, 2, 3), keepdim=True, unbiased=False)
        normalized_weight = (weight - mean) * (var + eps).rsqrt()
        return F.conv2d(x, normalized_weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Block(nn.Module):
    def __init__(self, dim, dim_out, groups=4, dropout=0.0):
        super().__init__()
        self.proj = WeightStandardizedConv2d(dim, dim_out, 3, padding=1)
        self.norm = nn.GroupNorm(groups, dim_out)
        self.act = nn.SiLU()
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, scale_shift=None):
        x = self.proj(x)
        x = self.norm(x)
        if scale_shift is not None:
            scale, shift = scale_shift
            x = x * (scale + 1) + shift
        x = self.act(x)
        return self.dropout(x)


class ResnetBlock(nn.Module):
    """https://arxiv.org/abs/1512.03385, with the time embedding injected as a scale and shift"""

    def __init__(self, dim, dim_out, *, time_emb_dim=None, groups=4, dropout=0.1):
        super().__init__()
        self.mlp = nn.Sequential(nn.SiLU(), nn.Linear(time_emb_dim, dim_out * 2)) if time_emb_dim else None
        self.block1 = Block(dim, dim_out, groups=groups)
        self.block2 = Block(dim_out, dim_out, groups=groups, dropout=dropout)
        self.res_conv = nn.Conv2d(dim, dim_out, 1) if dim != dim_out else nn.Identity()

    def forward(self, x, time_emb=None):
        scale_shift = None
        if self.mlp is not None and time_emb is not None:
            time_emb = self.mlp(time_emb)
            time_emb = time_emb[:, :, None, None]
            scale_shift = time_emb.chunk(2, dim=1)
        h = self.block1(x, scale_shift=scale_shift)
        h = self.block2(h)
        return h + self.res_conv(x)


class Attention(nn.Module):
    def __init__(self, dim, heads=2, dim_head=8):
        super().__init__()
        self.scale = dim_head ** -0.5
        self.heads = heads
        hidden_dim = dim_head * heads
        self.to_qkv = nn.Conv2d(dim, hidden_dim * 3, 1, bias=False)
        self.to_out = nn.Conv2d(hidden_dim, dim, 1)

    def forward(self, x):
        b, c, h, w = x.shape
        qkv = self.to_qkv(x).chunk(3, dim=1)
        q, k, v = map(lambda t: t.reshape(b, self.heads, -1, h * w), qkv)
        q = q * self.scale
        sim = torch.einsum("b h d i, b h d j -> b h i j", q, k)
        sim = sim - sim.amax(dim=-1, keepdim=True).detach()
        attn = sim.softmax(dim=-1)
        out = torch.einsum("b h i j, b h d j -> b h i d", attn, v)
        out = out.permute(0, 1, 3, 2).reshape(b, -1, h, w)
        return self.to_out(out)


class LinearAttention(nn.Module):
    def __init__(self, dim, heads=2, dim_head=8):
        super().__init__()
        self.scale = dim_head ** -0.5
        self.heads = heads
        self.dim_head = dim_head
        hidden_dim = dim_head * heads
        self.to_qkv = nn.Conv2d(dim, hidden_dim * 3, 1, bias=False)
        self.to_out = nn.Sequential(nn.Conv2d(hidden_dim, dim, 1), nn.GroupNorm(1, dim))

    def forward(self, x):
        b, c, h, w = x.shape
        qkv = self.to_qkv(x).chunk(3, dim=1)
        # (b * heads, dim_head, pixels): attention over the flattened spatial dims by batched matmuls
        q, k, v = map(lambda t: t.reshape(b * self.heads, self.dim_head, h * w), qkv)
        q = q.softmax(dim=-2) * self.scale
        k = k.softmax(dim=-1)
        context = torch.bmm(k, v.transpose(1, 2))  # (b * heads, d, e)
        out = torch.bmm(context.transpose(1, 2), q)  # (b * heads, e, pixels)
        out = out.reshape(b, self.heads * self.dim_head, h, w)
        return self.to_out(out)


class Residual(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x, *args, **kwargs):
        return self.fn(x, *args, **kwargs) + x


class PreNorm(nn.Module):
    def __init__(self, dim, fn):
        super().__init__()
        self.fn = fn
        self.norm = nn.GroupNorm(1, dim)

    def forward(self, x):
        x = self.norm(x)
        return self.fn(x)


def Upsample(dim, dim_out=None):
    return nn.Sequential(
        nn.Upsample(scale_factor=2, mode="nearest"),
        nn.Conv2d(dim, dim_out or dim, 3, padding=1),
    )


def Downsample(dim, dim_out=None):
    # a strided convolution halves the resolution
    return nn.Conv2d(dim, dim_out or dim, 4, 2, 1)


class Unet(nn.Module):
    def __init__(self, dim=16, channels=1, time_dim=32):
        super().__init__()
        self.channels = channels
        self.init_conv = nn.Conv2d(channels, dim, 3, padding=1)
        self.time_mlp = nn.Sequential(
            SinusoidalPositionEmbeddings(dim),
            nn.Linear(dim, time_dim),
            nn.GELU(),
            nn.Linear(time_dim, time_dim),
        )
        self.downs = nn.ModuleList([
            nn.ModuleList([ResnetBlock(dim, dim, time_emb_dim=time_dim),
                           Residual(PreNorm(dim, LinearAttention(dim))),
                           Downsample(dim, 2 * dim)]),
            nn.ModuleList([ResnetBlock(2 * dim, 2 * dim, time_emb_dim=time_dim),
                           nn.Identity(),
                           Downsample(2 * dim)]),
        ])
        self.mid_block1 = ResnetBlock(2 * dim, 2 * dim, time_emb_dim=time_dim)
        self.mid_attn = Residual(PreNorm(2 * dim, Attention(2 * dim)))
        self.mid_block2 = ResnetBlock(2 * dim, 2 * dim, time_emb_dim=time_dim)
        self.ups = nn.ModuleList([
            nn.ModuleList([nn.ConvTranspose2d(2 * dim, 2 * dim, 4, 2, 1),
                           ResnetBlock(4 * dim, 2 * dim, time_emb_dim=time_dim)]),
            nn.ModuleList([Upsample(2 * dim, dim),
                           ResnetBlock(2 * dim, dim, time_emb_dim=time_dim)]),
        ])
        self.final_res_block = ResnetBlock(2 * dim, dim, time_emb_dim=time_dim)
        self.final_conv = nn.Conv2d(dim, channels, 1)

    def forward(self, x, time):
        x = self.init_conv(x)
        r = x.clone()
        t = self.time_mlp(time)
        h = []
        for block, attn, downsample in self.downs:
            x = block(x, t)
            x = attn(x)
            h.append(x)
            x = downsample(x)
        x = self.mid_block1(x, t)
        x = self.mid_attn(x)
        x = self.mid_block2(x, t)
        for upsample, block in self.ups:
            x = upsample(x)
            x = torch.cat((x, h.pop()), dim=1)
            x = block(x, t)
        x = torch.cat((x, r), dim=1)
        x = self.final_res_block(x, t)
        return self.final_conv(x)


model = Unet(dim=16, channels=channels).to(device)
print(model.ups[1])
print(model.downs[0][1])
n_params = sum(p.numel() for p in model.parameters())
print("parameters", n_params, "trainable", sum(p.numel() for p in model.parameters() if p.requires_grad))
print("conv parameters", sum(p.numel() for m in model.modules() if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d))
                             for p in m.parameters()),
      "groupnorm", sum(1 for m in model.modules() if isinstance(m, nn.GroupNorm)))

# shapes through the network
with torch.no_grad():
    x = torch.randn(2, channels, image_size, image_size)
    tt = torch.tensor([3, 17])
    shapes = []
    hook_handles = [m.register_forward_hook(lambda m, i, o: shapes.append((type(m).__name__, tuple(o.shape))))
                    for m in (model.downs[0][2], model.downs[1][2], model.mid_attn, model.ups[0][0],
                              model.ups[1][0])]
    out = model(x, tt)
    for handle in hook_handles:
        handle.remove()
print(shapes)
print("output", out.shape, out.dtype, f"{out.mean().item():.4f} {out.std().item():.4f}")


# ---------------------------------------------------------------- training
def p_losses(denoise_model, x_start, t, noise=None, loss_type="l1"):
    if noise is None:
        noise = torch.randn_like(x_start)
    x_noisy = q_sample(x_start=x_start, t=t, noise=noise)
    predicted_noise = denoise_model(x_noisy, t)
    if loss_type == 'l1':
        loss = F.l1_loss(noise, predicted_noise)
    elif loss_type == 'l2':
        loss = F.mse_loss(noise, predicted_noise)
    elif loss_type == "huber":
        loss = F.smooth_l1_loss(noise, predicted_noise)
    else:
        raise NotImplementedError()
    return loss


t = torch.randint(0, timesteps, (batch_size,), device=device).long()
print("t", t)
noise = torch.randn_like(data[:batch_size])
for loss_type in ["l1", "l2", "huber"]:
    print(loss_type, f"{p_losses(model, data[:batch_size], t, noise, loss_type).item():.4f}")
try:
    p_losses(model, data[:2], t[:2], loss_type="l3")
except NotImplementedError as e:
    print("NotImplementedError", repr(e))

ema_decay = 0.9
ema_model = copy.deepcopy(model)
ema_model.requires_grad_(False)
avg_model = AveragedModel(model, avg_fn=lambda avg, cur, n: avg * ema_decay + cur * (1 - ema_decay))
multi_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(ema_decay))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(data), batch_size=batch_size, shuffle=True)
losses = []
model.train()
for epoch in range(2):
    for step, (batch,) in enumerate(loader):
        optimizer.zero_grad()
        batch_size_ = batch.shape[0]
        # Algorithm 1 line 3: sample t uniformally for every example in the batch
        t = torch.randint(0, timesteps, (batch_size_,), device=device).long()
        loss = p_losses(model, batch, t, loss_type="huber")
        losses.append(loss.item())
        loss.backward()
        if epoch == 0 and step == 0:
            print("grad norms", f"{model.init_conv.weight.grad.norm().item():.4f}",
                  f"{model.final_conv.bias.grad.abs().item():.4f}",
                  f"{model.mid_attn.fn.fn.to_qkv.weight.grad.norm().item():.4f}",
                  f"{model.ups[0][0].weight.grad.norm().item():.4f}")
        optimizer.step()
        # EMA by lerp: ema <- ema + (1 - decay) * (w - ema)
        with torch.no_grad():
            for p_ema, p in zip(ema_model.parameters(), model.parameters()):
                p_ema.lerp_(p, 1 - ema_decay)
        avg_model.update_parameters(model)
        multi_model.update_parameters(model)
    print(f"epoch {epoch} loss {sum(losses[-4:]) / 4:.3f}")
print("losses", len(losses), " ".join(f"{x:.3f}" for x in losses[:3]))

w = model.final_conv.weight
print("ema", f"{(ema_model.final_conv.weight - w).abs().max().item():.4f}",
      "n_averaged", avg_model.n_averaged, multi_model.n_averaged.dtype)
print("averaged state_dict", len(multi_model.state_dict()), list(multi_model.state_dict())[:2])
print("avg_fn == multi_avg_fn", torch.allclose(avg_model.module.final_conv.weight,
                                               multi_model.module.final_conv.weight, atol=1e-6))
lerp_ref = torch.lerp(ema_model.init_conv.bias, model.init_conv.bias, 0.5)
print("lerp", lerp_ref.shape, torch.allclose(lerp_ref, (ema_model.init_conv.bias + model.init_conv.bias) / 2,
                                             atol=1e-6))


# ---------------------------------------------------------------- sampling
@torch.no_grad()
def p_sample(model, x, t, t_index):
    betas_t = extract(betas, t, x.shape)
    sqrt_one_minus_alphas_cumprod_t = extract(sqrt_one_minus_alphas_cumprod, t, x.shape)
    sqrt_recip_alphas_t = extract(sqrt_recip_alphas, t, x.shape)
    # Equation 11 in the paper: use our model (noise predictor) to predict the mean
    model_mean = sqrt_recip_alphas_t * (x - betas_t * model(x, t) / sqrt_one_minus_alphas_cumprod_t)
    if t_index == 0:
        return model_mean
    else:
        posterior_variance_t = extract(posterior_variance, t, x.shape)
        noise = torch.randn_like(x)
        # Algorithm 2 line 4:
        return model_mean + torch.sqrt(posterior_variance_t) * noise


# Algorithm 2 (including returning all images)
@torch.no_grad()
def p_sample_loop(model, shape):
    b = shape[0]
    # start from pure noise (for each example in the batch)
    img = torch.randn(shape, device=device)
    imgs = []
    for i in reversed(range(0, timesteps)):
        img = p_sample(model, img, torch.full((b,), i, device=device, dtype=torch.long), i)
        imgs.append(img.cpu())
    return imgs


def stats(x):
    return f"mean {x.mean().item():.3f} std {x.std().item():.3f} min {x.min().item():.3f} max {x.max().item():.3f}"


ema_model.eval()
samples = p_sample_loop(ema_model, shape=(4, channels, image_size, image_size))
print("ancestral", len(samples), samples[-1].shape, stats(samples[-1]))
print("  t=10", stats(samples[9]))


# the x_start-clipping variant: predict x_0, clamp it, then take the posterior mean
@torch.no_grad()
def p_mean_variance(model, x, t, clip_denoised=True):
    pred_noise = model(x, t)
    x_start = extract(sqrt_recip_alphas_cumprod, t, x.shape) * x - \
        extract(sqrt_recipm1_alphas_cumprod, t, x.shape) * pred_noise
    if clip_denoised:
        x_start.clamp_(-1., 1.)
    model_mean = extract(posterior_mean_coef1, t, x.shape) * x_start + extract(posterior_mean_coef2, t, x.shape) * x
    return model_mean, extract(posterior_log_variance_clipped, t, x.shape), x_start


@torch.no_grad()
def p_sample_clipped(model, x, t):
    b = x.shape[0]
    batched_times = torch.full((b,), t, device=x.device, dtype=torch.long)
    model_mean, model_log_variance, x_start = p_mean_variance(model, x, batched_times)
    noise = torch.randn_like(x) if t > 0 else 0.  # no noise if t == 0
    return model_mean + (0.5 * model_log_variance).exp() * noise, x_start


model.eval()
img = torch.randn(4, channels, image_size, image_size)
for t in reversed(range(timesteps)):
    img, x_start = p_sample_clipped(model, img, t)
img = (img + 1) * 0.5
print("clipped", stats(img), "x_start in [-1, 1]", bool((x_start.abs() <= 1).all()))


# DDIM (https://arxiv.org/abs/2010.02502): a deterministic walk over a subsequence of the timesteps
@torch.no_grad()
def ddim_sample(model, shape, sampling_timesteps=5, eta=0.0):
    times = torch.linspace(-1, timesteps - 1, steps=sampling_timesteps + 1)
    times = list(reversed(times.int().tolist()))
    time_pairs = list(zip(times[:-1], times[1:]))
    img = torch.randn(shape, device=device)
    for time, time_next in time_pairs:
        time_cond = torch.full((shape[0],), time, device=device, dtype=torch.long)
        pred_noise = model(img, time_cond)
        x_start = extract(sqrt_recip_alphas_cumprod, time_cond, img.shape) * img - \
            extract(sqrt_recipm1_alphas_cumprod, time_cond, img.shape) * pred_noise
        x_start.clamp_(-1., 1.)
        # the noise that goes with the clamped x_start
        pred_noise = (extract(sqrt_recip_alphas_cumprod, time_cond, img.shape) * img - x_start) / \
            extract(sqrt_recipm1_alphas_cumprod, time_cond, img.shape)
        if time_next < 0:
            img = x_start
            continue
        alpha = alphas_cumprod[time]
        alpha_next = alphas_cumprod[time_next]
        sigma = eta * ((1 - alpha / alpha_next) * (1 - alpha_next) / (1 - alpha)).sqrt()
        c = (1 - alpha_next - sigma ** 2).sqrt()
        noise = torch.randn_like(img)
        img = x_start * alpha_next.sqrt() + c * pred_noise + sigma * noise
    return img, time_pairs


torch.manual_seed(1)
ddim_a, pairs = ddim_sample(ema_model, (4, channels, image_size, image_size))
print("ddim pairs", pairs)
print("ddim", ddim_a.shape, stats(ddim_a))
torch.manual_seed(1)
ddim_b, _ = ddim_sample(ema_model, (4, channels, image_size, image_size))
print("ddim deterministic", torch.equal(ddim_a, ddim_b))
torch.manual_seed(1)
ddim_c, _ = ddim_sample(ema_model, (4, channels, image_size, image_size), eta=1.0)
print("ddim eta=1", stats(ddim_c), torch.equal(ddim_a, ddim_c))

# dropout is on in train mode and off in eval mode
model.train()
x = torch.randn(2, channels, image_size, image_size)
tt = torch.tensor([1, 2])
with torch.no_grad():
    a, b = model(x, tt), model(x, tt)
model.eval()
with torch.no_grad():
    c, d = model(x, tt), model(x, tt)
print("dropout train differs", not torch.equal(a, b), "eval equal", torch.equal(c, d))

# the EMA update with the fused foreach ops, as timm's ModelEmaV3 writes it
ema_params = [p.detach() for p in ema_model.parameters()]
model_params = [p.detach() for p in model.parameters()]
before = ema_params[0].clone()
try:
    torch._foreach_mul_(ema_params, ema_decay)
    torch._foreach_add_(ema_params, model_params, alpha=1 - ema_decay)
    print("foreach ema", torch.allclose(ema_params[0], torch.lerp(before, model_params[0], 1 - ema_decay),
                                        atol=1e-6))
except Exception as e:
    print(type(e).__name__, e)
