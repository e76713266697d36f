# A GAN in the structure of the DCGAN tutorial, shrunk to 2-D points on a ring of 8 Gaussians: generator and
# discriminator MLPs with BatchNorm1d / LeakyReLU, weights_init through Module.apply, BCELoss with
# torch.full label tensors, the discriminator step on real and on detached fake batches, the generator step
# with flipped labels, two Adam optimizers with betas=(0.5, 0.999), and D(x) / D(G(z)) statistics.
import math

import torch
import torch.nn as nn
import torch.optim as optim

manualSeed = 999
print("Random Seed: ", manualSeed)
torch.manual_seed(manualSeed)
torch.use_deterministic_algorithms(True)

nz, ngf, ndf, batch_size, lr, beta1 = 4, 32, 32, 64, 2e-3, 0.5
angles = torch.arange(8) * (2 * math.pi / 8)
modes = torch.stack([torch.cos(angles), torch.sin(angles)], dim=1) * 2.0


def real_batch(n):
    return modes[torch.randint(0, 8, (n,))] + 0.05 * torch.randn(n, 2)


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Linear") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.2)
        if m.bias is not None:
            nn.init.constant_(m.bias.data, 0)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Linear(nz, ngf, bias=False), nn.BatchNorm1d(ngf), nn.ReLU(True),
            nn.Linear(ngf, ngf, bias=False), nn.BatchNorm1d(ngf), nn.ReLU(True),
            nn.Linear(ngf, 2),
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Linear(2, ndf), nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(ndf, ndf), nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(ndf, 1), nn.Sigmoid(),
        )

    def forward(self, input):
        return self.main(input)


netG = Generator()
netG.apply(weights_init)
print(netG)
netD = Discriminator()
netD.apply(weights_init)
print(netD)

criterion = nn.BCELoss()
fixed_noise = torch.randn(8, nz)
real_label, fake_label = 1.0, 0.0
optimizerD = optim.Adam(netD.parameters(), lr=lr, betas=(beta1, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=lr, betas=(beta1, 0.999))

G_losses, D_losses = [], []
print("Starting Training Loop...")
for i in range(80):
    # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
    netD.zero_grad()
    real_cpu = real_batch(batch_size)
    b_size = real_cpu.size(0)
    label = torch.full((b_size,), real_label, dtype=torch.float)
    output = netD(real_cpu).view(-1)
    errD_real = criterion(output, label)
    errD_real.backward()
    D_x = output.mean().item()
    noise = torch.randn(b_size, nz)
    fake = netG(noise)
    label.fill_(fake_label)
    output = netD(fake.detach()).view(-1)
    errD_fake = criterion(output, label)
    errD_fake.backward()
    D_G_z1 = output.mean().item()
    errD = errD_real + errD_fake
    optimizerD.step()
    # (2) Update G network: maximize log(D(G(z)))
    netG.zero_grad()
    label.fill_(real_label)
    output = netD(fake).view(-1)
    errG = criterion(output, label)
    errG.backward()
    D_G_z2 = output.mean().item()
    optimizerG.step()
    G_losses.append(errG.item())
    D_losses.append(errD.item())
    if i % 20 == 0:
        print("[%d/%d]\tLoss_D: %.4f\tLoss_G: %.4f\tD(x): %.4f\tD(G(z)): %.4f / %.4f"
              % (i, 80, errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))

print(f"mean losses over the last 20 steps: D {sum(D_losses[-20:]) / 20:.3f} G {sum(G_losses[-20:]) / 20:.3f}")
netG.eval()
with torch.no_grad():
    samples = netG(fixed_noise)
print(samples.round(decimals=2))
dist_to_modes = torch.cdist(samples, modes).min(dim=1).values
nearest = torch.cdist(samples, modes).argmin(dim=1)
print("distance to nearest mode", dist_to_modes.round(decimals=2), "modes hit", nearest.unique().numel())
print(netG.main[1].running_mean[:4], netG.main[1].num_batches_tracked)
