# A tiny Vision Transformer as the "ViT from scratch" tutorials write it: patches by a Conv2d with
# stride = patch size and by F.unfold + Linear (the two agree when they share weights), the einops-free
# rearranges by reshape / permute / flatten, a learned cls token and position embedding as nn.Parameter,
# nn.TransformerEncoder with batch_first=True and norm_first=True (GELU, dropout), trunc_normal_ init with
# model.apply, AdamW with decay / no-decay parameter groups and a linear-warmup + cosine LambdaLR,
# label-smoothed cross entropy, gradient clipping, evaluation under torch.no_grad with argmax accuracy and a
# confusion matrix, on synthetic 16x16 images of squares, crosses, horizontal and vertical bars; then the
# F.fold round trip (fold(unfold(x)) counts each pixel once per window that covers it).
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

IMG, PATCH, CH = 16, 4, 1
N_PATCHES = (IMG // PATCH) ** 2
CLASSES = ["square", "cross", "hbar", "vbar"]


# ---------------------------------------------------------------- synthetic shapes
def make_shapes(n, generator=None):
    """Images of one of four shapes at a random place, plus noise."""
    x = torch.zeros(n, CH, IMG, IMG)
    y = torch.randint(0, len(CLASSES), (n,), generator=generator)
    offs = torch.randint(2, IMG - 9, (n, 2), generator=generator)
    for i in range(n):
        r, c = offs[i].tolist()
        k = y[i].item()
        if k == 0:
            x[i, 0, r:r + 6, c:c + 6] = 1.0
            x[i, 0, r + 1:r + 5, c + 1:c + 5] = 0.0
        elif k == 1:
            x[i, 0, r + 3, c:c + 7] = 1.0
            x[i, 0, r:r + 7, c + 3] = 1.0
        elif k == 2:
            x[i, 0, r + 2:r + 4, c:c + 8] = 1.0
        else:
            x[i, 0, r:r + 8, c + 2:c + 4] = 1.0
    x += 0.1 * torch.randn(n, CH, IMG, IMG, generator=generator)
    return x, y


g = torch.Generator().manual_seed(1)
x_train, y_train = make_shapes(256, g)
x_test, y_test = make_shapes(64, g)
print(x_train.shape, y_train.shape, y_train.bincount(minlength=4).tolist())
print(x_train.mean().item() > 0, x_train[0, 0, :, :].sum().round(decimals=2))
# normalise with the training set's statistics, as transforms.Normalize would
mean, std = x_train.mean(), x_train.std()
x_train = (x_train - mean) / std
x_test = (x_test - mean) / std
print(f"mean {mean.item():.4f} std {std.item():.4f}")


# ---------------------------------------------------------------- patches, two ways
def patchify(imgs, p):
    """(B, C, H, W) -> (B, N, p*p*C) by reshape / permute, as einops' 'b c (h p1) (w p2) -> b (h w) (c p1 p2)'."""
    B, C, H, W = imgs.shape
    x = imgs.reshape(B, C, H // p, p, W // p, p)
    x = x.permute(0, 2, 4, 1, 3, 5)  # B, h, w, C, p1, p2
    return x.flatten(3).flatten(1, 2)


def unpatchify(x, p, c=CH):
    B, N, _ = x.shape
    h = w = int(N ** 0.5)
    x = x.reshape(B, h, w, c, p, p).permute(0, 3, 1, 4, 2, 5)
    return x.reshape(B, c, h * p, w * p)


imgs = x_train[:3]
pt = patchify(imgs, PATCH)
print("patchify", pt.shape, pt.is_contiguous(), torch.equal(unpatchify(pt, PATCH), imgs))
unf = F.unfold(imgs, kernel_size=PATCH, stride=PATCH)  # (B, C*p*p, N)
print("unfold", unf.shape, torch.equal(unf.transpose(1, 2), pt))
print(torch.equal(imgs.unfold(2, PATCH, PATCH).unfold(3, PATCH, PATCH).permute(0, 2, 3, 1, 4, 5).flatten(3).flatten(1, 2), pt))


class PatchEmbedConv(nn.Module):
    def __init__(self, img_size=IMG, patch_size=PATCH, in_chans=CH, embed_dim=32):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        x = self.proj(x)  # B, D, H/p, W/p
        return x.flatten(2).transpose(1, 2)  # B, N, D


class PatchEmbedLinear(nn.Module):
    def __init__(self, patch_size=PATCH, in_chans=CH, embed_dim=32):
        super().__init__()
        self.p = patch_size
        self.proj = nn.Linear(in_chans * patch_size * patch_size, embed_dim)

    def forward(self, x):
        return self.proj(F.unfold(x, self.p, stride=self.p).transpose(1, 2))


conv_embed, lin_embed = PatchEmbedConv(), PatchEmbedLinear()
with torch.no_grad():
    lin_embed.proj.weight.copy_(conv_embed.proj.weight.flatten(1))
    lin_embed.proj.bias.copy_(conv_embed.proj.bias)
a, b = conv_embed(imgs), lin_embed(imgs)
print("embed", a.shape, b.shape, torch.allclose(a, b, atol=1e-5), (a - b).abs().max() < 1e-5)
print(conv_embed.proj, conv_embed.proj.weight.shape, lin_embed.proj.weight.shape)


# ---------------------------------------------------------------- the model
class ViT(nn.Module):
    def __init__(self, num_classes=4, dim=32, depth=2, heads=4, mlp_ratio=2.0, dropout=0.1, emb_dropout=0.1):
        super().__init__()
        self.patch_embed = PatchEmbedConv(embed_dim=dim)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, N_PATCHES + 1, dim))
        self.pos_drop = nn.Dropout(emb_dropout)
        layer = nn.TransformerEncoderLayer(d_model=dim, nhead=heads, dim_feedforward=int(dim * mlp_ratio),
                                           dropout=dropout, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=depth, norm=nn.LayerNorm(dim),
                                             enable_nested_tensor=False)
        self.head = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Dropout(dropout), nn.Linear(dim, num_classes))
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.trunc_normal_(self.cls_token, std=0.02)
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.LayerNorm):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)

    def forward(self, x, return_tokens=False):
        x = self.patch_embed(x)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls, x), dim=1) + self.pos_embed
        x = self.encoder(self.pos_drop(x))
        if return_tokens:
            return x
        return self.head(x[:, 0])


model = ViT()
n_params = sum(p.numel() for p in model.parameters())
print(f"parameters: {n_params}", sum(p.numel() for p in model.parameters() if p.requires_grad))
print([name for name, _ in model.named_parameters()][:8])
print(model.encoder.layers[0])
print(model.encoder.layers[0].self_attn.in_proj_weight.shape, model.encoder.layers[0].norm_first)
print(f"{model.pos_embed.std().item():.3f}", model.cls_token.abs().max().item() <= 0.04)
tokens = model(x_train[:2], return_tokens=True)
print("tokens", tokens.shape, tokens.dtype)
model.eval()
with torch.no_grad():
    logits0 = model(x_train[:4])
print(logits0.shape, logits0)
model.train()


# ---------------------------------------------------------------- optimizer, schedule, loss
decay, no_decay = [], []
for name, p in model.named_parameters():
    if p.ndim < 2 or name.endswith("bias") or name in ("cls_token", "pos_embed"):
        no_decay.append(p)
    else:
        decay.append(p)
print("groups", len(decay), len(no_decay))
optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05},
                               {"params": no_decay, "weight_decay": 0.0}], lr=3e-3, betas=(0.9, 0.999))

EPOCHS, BATCH = 6, 32
steps_per_epoch = math.ceil(len(x_train) / BATCH)
total_steps, warmup_steps = EPOCHS * steps_per_epoch, steps_per_epoch


def lr_lambda(step):
    if step < warmup_steps:
        return float(step + 1) / float(max(1, warmup_steps))
    progress = float(step - warmup_steps) / float(max(1, total_steps - warmup_steps))
    return max(0.0, 0.5 * (1.0 + math.cos(math.pi * progress)))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
print(optimizer.param_groups[0]["lr"], scheduler.get_last_lr())

# label smoothing by hand agrees with the built-in one
logits = torch.randn(5, 4)
target = torch.tensor([0, 3, 1, 2, 2])
eps = 0.1
logp = F.log_softmax(logits, dim=-1)
manual = ((1 - eps) * F.nll_loss(logp, target) + eps * (-logp.mean(dim=-1)).mean())
print(f"label smoothing {criterion(logits, target).item():.5f} {manual.item():.5f}",
      torch.allclose(criterion(logits, target), manual))
print(F.cross_entropy(logits, target, label_smoothing=0.2, reduction="none"))


@torch.no_grad()
def evaluate(m, x, y):
    m.eval()
    out = m(x)
    loss = F.cross_entropy(out, y)
    pred = out.argmax(dim=1)
    acc = (pred == y).float().mean().item()
    m.train()
    return loss.item(), acc, pred


lrs = []
for epoch in range(EPOCHS):
    perm = torch.randperm(len(x_train))
    running, correct, seen, norms = 0.0, 0, 0, []
    for i in range(0, len(x_train), BATCH):
        idx = perm[i:i + BATCH]
        xb, yb = x_train[idx], y_train[idx]
        out = model(xb)
        loss = criterion(out, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0).item())
        optimizer.step()
        scheduler.step()
        lrs.append(scheduler.get_last_lr()[0])
        running += loss.item() * len(idx)
        correct += (out.argmax(1) == yb).sum().item()
        seen += len(idx)
    test_loss, test_acc, _ = evaluate(model, x_test, y_test)
    print(f"epoch {epoch} train loss {running / seen:.3f} acc {correct / seen:.3f} "
          f"test loss {test_loss:.3f} acc {test_acc:.3f} max grad norm {max(norms):.2f}")

print("lr schedule", [f"{v:.5f}" for v in lrs[:3]], f"{max(lrs):.5f}", f"{lrs[-1]:.6f}", len(lrs))
print(optimizer.state_dict()["param_groups"][0]["weight_decay"], optimizer.state_dict()["param_groups"][1]["lr"] == lrs[-1])
test_loss, test_acc, pred = evaluate(model, x_test, y_test)
print(f"final test acc {test_acc:.3f}")
confusion = torch.zeros(4, 4, dtype=torch.long)
confusion.index_put_((y_test, pred), torch.ones_like(y_test), accumulate=True)
print(confusion)
print(torch.bincount(y_test * 4 + pred, minlength=16).view(4, 4).equal(confusion))
per_class = confusion.diag().float() / confusion.sum(1).clamp(min=1)
print({c: round(a, 2) for c, a in zip(CLASSES, per_class.tolist())})

# attention of the cls token in the first layer, by hand through the layer's own MultiheadAttention
model.eval()
with torch.no_grad():
    layer0 = model.encoder.layers[0]
    h = model.patch_embed(x_test[:2])
    h = torch.cat((model.cls_token.expand(2, -1, -1), h), dim=1) + model.pos_embed
    _, attn = layer0.self_attn(layer0.norm1(h), layer0.norm1(h), layer0.norm1(h), need_weights=True)
    print("attention", attn.shape, attn.sum(-1).allclose(torch.ones(2, N_PATCHES + 1)))
    cls_attn = attn[:, 0, 1:].reshape(2, IMG // PATCH, IMG // PATCH)
    print(cls_attn[0].argmax().item() == cls_attn[0].flatten().argmax().item(), cls_attn.shape)
    _, per_head = layer0.self_attn(h, h, h, need_weights=True, average_attn_weights=False)
    print(per_head.shape, torch.allclose(per_head.mean(1).sum(-1), torch.ones(2, N_PATCHES + 1)))


# ---------------------------------------------------------------- F.fold round trip
x = torch.arange(2 * 1 * 6 * 6, dtype=torch.float32).reshape(2, 1, 6, 6)
cols = F.unfold(x, kernel_size=2, stride=2)
print("fold", cols.shape, torch.equal(F.fold(cols, output_size=(6, 6), kernel_size=2, stride=2), x))
cols = F.unfold(x, kernel_size=3, padding=1)
counts = F.fold(torch.ones_like(cols), output_size=(6, 6), kernel_size=3, padding=1)
print(cols.shape, counts[0, 0])
print(torch.allclose(F.fold(cols, (6, 6), kernel_size=3, padding=1) / counts, x))
fold = nn.Fold(output_size=(4, 5), kernel_size=(2, 3), dilation=1, stride=(2, 1))
unfold = nn.Unfold(kernel_size=(2, 3), stride=(2, 1))
y = torch.randn(1, 2, 4, 5)
c = unfold(y)
print(unfold, fold, c.shape, fold(c).shape)
print(fold(unfold(torch.ones(1, 2, 4, 5)))[0, 0])
# fold is the adjoint of unfold: <unfold(x), c> == <x, fold(c)>
c2 = torch.randn_like(c)
print(torch.allclose((unfold(y) * c2).sum(), (y * fold(c2)).sum(), atol=1e-5))
yg = y.clone().requires_grad_()
unfold(yg).pow(2).sum().backward()
print(yg.grad[0, 0])
# unbatched input
print(F.unfold(y[0], kernel_size=2).shape, F.fold(c[0], (4, 5), (2, 3), stride=(2, 1)).shape)


# ---------------------------------------------------------------- fine-tuning at a higher resolution
# timm's resample_abs_pos_embed: the grid of position embeddings is resized by bicubic interpolation
def resample_pos_embed(pos_embed, new_size, num_prefix_tokens=1):
    prefix, grid = pos_embed[:, :num_prefix_tokens], pos_embed[:, num_prefix_tokens:]
    old = int(grid.shape[1] ** 0.5)
    grid = grid.reshape(1, old, old, -1).permute(0, 3, 1, 2)
    grid = F.interpolate(grid, size=new_size, mode="bicubic", align_corners=False, antialias=False)
    grid = grid.permute(0, 2, 3, 1).reshape(1, new_size[0] * new_size[1], -1)
    return torch.cat([prefix, grid], dim=1)


with torch.no_grad():
    pe6 = resample_pos_embed(model.pos_embed, (6, 6))
    pe4 = resample_pos_embed(model.pos_embed, (4, 4))
print("resampled", pe6.shape, torch.allclose(pe4, model.pos_embed, atol=1e-6), pe6[0, 1:4, :3])
print(F.interpolate(model.pos_embed[:, 1:].detach().reshape(1, 4, 4, -1).permute(0, 3, 1, 2), scale_factor=0.5,
                    mode="bilinear", align_corners=True).shape)
print(F.gelu(torch.tensor([-1.0, 0.5, 2.0]), approximate="tanh"), nn.GELU(approximate="tanh"))

# the same schedule by the built-in schedulers: linear warmup, then cosine
opt2 = torch.optim.AdamW(nn.Linear(2, 2).parameters(), lr=3e-3)
warm = torch.optim.lr_scheduler.LinearLR(opt2, start_factor=0.25, end_factor=1.0, total_iters=warmup_steps - 1)
cos = torch.optim.lr_scheduler.CosineAnnealingLR(opt2, T_max=total_steps - warmup_steps, eta_min=0.0)
seq = torch.optim.lr_scheduler.SequentialLR(opt2, schedulers=[warm, cos], milestones=[warmup_steps])
seq_lrs = []
for _ in range(total_steps):
    seq_lrs.append(opt2.param_groups[0]["lr"])
    opt2.step()
    seq.step()
print([f"{v:.5f}" for v in seq_lrs[:warmup_steps + 2]], f"{seq_lrs[-1]:.6f}")

# masked-token attention: a key_padding_mask that hides the last patches of the second image
mha = model.encoder.layers[0].self_attn
h = torch.randn(2, N_PATCHES + 1, 32)
pad = torch.zeros(2, N_PATCHES + 1, dtype=torch.bool)
pad[1, -5:] = True
with torch.no_grad():
    out, w = mha(h, h, h, key_padding_mask=pad)
print(out.shape, w[1, :, -5:].abs().max().item(), w[0, :, -5:].sum().item() > 0)
