# The device-agnostic boilerplate of many training scripts: pick the accelerator if there is one, set the
# cudnn / matmul flags, seed every generator, move model and batches with .to(device, non_blocking=True),
# pin memory only on CUDA, and report where everything lives.  On a CPU-only machine all of it must
# quietly fall back to the CPU.
import os
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def seed_everything(seed: int = 42):
    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


seed_everything(42)
device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")
device = torch.device(device)
print(device, device.type, device.index, repr(device), device == torch.device("cpu"))
print(torch.cuda.is_available(), torch.cuda.device_count(), torch.backends.mps.is_available(),
      torch.accelerator.device_count(), torch.accelerator.current_accelerator())
legacy = torch.device("cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu")
print(legacy, torch.device("cuda:1"), torch.device("cuda", 0).index, str(torch.device("cpu", 0)))

torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
torch.set_float32_matmul_precision("high")
print(torch.backends.cudnn.benchmark, torch.backends.cuda.matmul.allow_tf32, torch.get_float32_matmul_precision())
print(torch.backends.cudnn.enabled, torch.backends.mkldnn.is_available() in (True, False),
      torch.backends.openmp.is_available() in (True, False))
torch.use_deterministic_algorithms(False)
print(torch.are_deterministic_algorithms_enabled(), torch.get_default_dtype(), torch.get_default_device())

X = torch.randn(256, 10)
true_w = torch.randn(10, 1)
Y = X @ true_w + 0.1 * torch.randn(256, 1)
loader = DataLoader(TensorDataset(X, Y), batch_size=32, shuffle=True, pin_memory=torch.cuda.is_available(),
                    num_workers=0, drop_last=True)
print(len(loader), loader.pin_memory, loader.drop_last)

model = nn.Sequential(nn.Linear(10, 32), nn.SiLU(), nn.Linear(32, 1)).to(device)
print(next(model.parameters()).device, next(model.parameters()).is_cuda, model[0].weight.get_device())
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-2)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, total_steps=5 * len(loader))

for epoch in range(5):
    model.train()
    total = 0.0
    for xb, yb in loader:
        xb, yb = xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        loss = F.mse_loss(model(xb), yb)
        loss.backward()
        optimizer.step()
        scheduler.step()
        total += loss.item()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    print(f"epoch {epoch}: train mse {total / len(loader):.5f}  lr {scheduler.get_last_lr()[0]:.6f}")

model.eval()
with torch.inference_mode():
    pred = model(X.to(device)).cpu()
print(pred.device, pred.requires_grad, f"{F.mse_loss(pred, Y).item():.5f}", pred[:3].squeeze(1))
print(X.to("cpu") is X, X.to(device).data_ptr() == X.data_ptr(), X.to(torch.float64).dtype, X.cpu() is X)
print(torch.zeros(2, device=device), torch.ones(2, device="cpu").device, torch.empty(1, device=device).is_cpu)
print(X.new_zeros(2).device, torch.tensor([1.0]).to(device=device, dtype=torch.float16))
try:
    torch.zeros(1).to("cuda")
except (RuntimeError, AssertionError) as e:
    print(type(e).__name__, str(e).splitlines()[0][:60])
state = {k: v.to("cpu") for k, v in model.state_dict().items()}
print(sorted(state), all(v.device.type == "cpu" for v in state.values()))
