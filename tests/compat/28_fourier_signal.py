# Signal processing with torch.fft, in the style of the audio/DSP tutorials: the spectrum of a noisy
# two-tone signal and its peaks, a low-pass filter in the frequency domain, a spectrogram (stft with a Hann
# window) and its inverse, a filter learned through the FFT (a circular convolution, Adam), the 2-D
# spectrum of an image with fftshift, and finite-difference derivatives with torch.gradient.
import math

import torch

torch.manual_seed(0)

# ---- a noisy signal and its spectrum
fs, n = 64.0, 256
t = torch.arange(n) / fs
signal = torch.sin(2 * math.pi * 5.0 * t) + 0.5 * torch.sin(2 * math.pi * 12.0 * t) + 0.2 * torch.randn(n)
spectrum = torch.fft.rfft(signal)
freqs = torch.fft.rfftfreq(n, d=1 / fs)
power = spectrum.abs() ** 2 / n
top = torch.topk(power, 2).indices.sort().values
print("spectrum", spectrum.shape, spectrum.dtype, "peaks at", freqs[top].tolist(), "Hz")
print("power at the peaks", [round(p, 2) for p in power[top].tolist()])
print("Parseval", round(signal.pow(2).sum().item(), 3),
      round(torch.fft.fft(signal).abs().pow(2).sum().item() / n, 3))

# ---- low-pass: zero the bins above 8 Hz and transform back
lowpassed = torch.fft.irfft(torch.where(freqs <= 8.0, spectrum, torch.zeros_like(spectrum)), n=n)
clean = torch.sin(2 * math.pi * 5.0 * t)
print("low-pass error", round((lowpassed - clean).pow(2).mean().item(), 4), lowpassed.dtype)

# ---- spectrogram and its inverse
window = torch.hann_window(32)
spec = torch.stft(signal, n_fft=32, hop_length=8, window=window, return_complex=True)
print("spectrogram", spec.shape, spec.dtype)
print("loudest bin per frame", spec.abs().argmax(dim=0)[:12].tolist())
back = torch.istft(spec, n_fft=32, hop_length=8, window=window, length=n)
error = (back - signal).abs().max().item()
print("istft round trip", "exact" if error < 1e-5 else f"{error:.1e}")
sym = torch.signal.windows.hann(32, sym=False)
print("signal.windows.hann(sym=False) == hann_window:", torch.allclose(sym, window))
print("kaiser", [round(v, 4) for v in torch.signal.windows.kaiser(7, beta=8.0).tolist()])

# ---- learn a filter through the FFT: y = irfft(rfft(x) * rfft(k))
target_kernel = torch.zeros(n)
target_kernel[:5] = torch.tensor([0.1, 0.2, 0.4, 0.2, 0.1])
x = torch.randn(16, n)
y = torch.fft.irfft(torch.fft.rfft(x) * torch.fft.rfft(target_kernel), n=n)
kernel = torch.zeros(n, requires_grad=True)
opt = torch.optim.Adam([kernel], lr=0.02)
for step in range(151):
    opt.zero_grad()
    pred = torch.fft.irfft(torch.fft.rfft(x) * torch.fft.rfft(kernel), n=n)
    loss = (pred - y).pow(2).mean()
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(f"step {step:3d} loss {loss.item():.5f}")
print("learned kernel", [round(v, 2) + 0.0 for v in kernel[:6].tolist()], kernel.grad.shape)
print("grad_fn", type(pred.grad_fn).__name__, type(torch.fft.rfft(kernel).grad_fn).__name__)

# ---- the 2-D spectrum of an image: a vertical stripe pattern
img = torch.cos(2 * math.pi * 3 * torch.arange(16.0) / 16).repeat(16, 1) + 0.01 * torch.randn(16, 16)
mag = torch.fft.fftshift(torch.fft.fft2(img)).abs()
peaks = (mag > mag.max() / 2).nonzero().tolist()
print("2-D peaks (shifted)", peaks)
print("fftfreq", torch.fft.fftfreq(8, d=0.5).tolist())
print("ortho round trip", torch.allclose(torch.fft.ifftn(torch.fft.fftn(img, norm="ortho"), norm="ortho").real, img,
                                         atol=1e-5))

# ---- derivatives by finite differences
xs = torch.linspace(0, math.pi, 9)
dy, = torch.gradient(torch.sin(xs), spacing=(xs,))
print("d/dx sin", [round(v, 3) + 0.0 for v in dy.tolist()])
gy, gx = torch.gradient(img[:4, :4], edge_order=2)
print("gradient shapes", gy.shape, gx.shape, round(gx.abs().sum().item(), 3))
