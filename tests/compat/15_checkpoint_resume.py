# Checkpointing as in the "Saving and Loading a General Checkpoint" recipe: early stopping on a validation
# loss with ReduceLROnPlateau, keeping the best weights with copy.deepcopy, then a full checkpoint (model,
# optimizer, scheduler, epoch, RNG state) written with torch.save and read back with torch.load to resume
# training exactly where it stopped.
import copy
import io

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(7)
X = torch.randn(300, 6)
y = (torch.sin(X[:, 0]) + X[:, 1] * X[:, 2] - 0.5 * X[:, 3]).unsqueeze(1) + 0.1 * torch.randn(300, 1)
train_set, val_set = random_split(TensorDataset(X, y), [240, 60], generator=torch.Generator().manual_seed(0))
train_loader = DataLoader(train_set, batch_size=40, shuffle=True)
val_loader = DataLoader(val_set, batch_size=60)


def make_model():
    return nn.Sequential(nn.Linear(6, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))


def run_epoch(model, optimizer):
    model.train()
    total = 0.0
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = F.mse_loss(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(xb)
    return total / len(train_set)


@torch.no_grad()
def validate(model):
    model.eval()
    return sum(F.mse_loss(model(xb), yb, reduction="sum").item() for xb, yb in val_loader) / len(val_set)


model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=1)
best_loss, best_state, best_epoch, patience, bad_epochs = float("inf"), None, -1, 4, 0
for epoch in range(14):
    train_loss = run_epoch(model, optimizer)
    val_loss = validate(model)
    scheduler.step(val_loss)
    improved = val_loss < best_loss - 1e-4
    if improved:
        best_loss, best_epoch, bad_epochs = val_loss, epoch, 0
        best_state = copy.deepcopy(model.state_dict())
    else:
        bad_epochs += 1
    print(f"epoch {epoch:2d} train {train_loss:.4f} val {val_loss:.4f} lr {optimizer.param_groups[0]['lr']:.4f}"
          f"{' *' if improved else ''}")
    if bad_epochs >= patience:
        print(f"early stopping at epoch {epoch}")
        break
print(f"best epoch {best_epoch} val {best_loss:.4f}")
print(model.load_state_dict(best_state), f"{validate(model):.4f}")
print(scheduler.state_dict()["num_bad_epochs"], scheduler.state_dict()["best"] == best_loss,
      sorted(scheduler.state_dict()))
clone = copy.deepcopy(model)
print(clone[0].weight is model[0].weight, torch.equal(clone[0].weight, model[0].weight), clone[0].weight.requires_grad)

# ---- a full checkpoint, and resuming from it must replay the same numbers
model = make_model()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.8)
for epoch in range(2):
    loss = run_epoch(model, optimizer)
    scheduler.step()
print(f"before checkpoint: {loss:.5f}")
print(sorted(optimizer.state_dict()["state"][0]), optimizer.state_dict()["state"][0]["step"])
buffer = io.BytesIO()
torch.save({"epoch": 2, "model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict(),
            "scheduler_state_dict": scheduler.state_dict(), "rng_state": torch.get_rng_state(), "loss": loss}, buffer)
print("checkpoint bytes > 0:", buffer.tell() > 0)
continued = [f"{run_epoch(model, optimizer):.5f}" for _ in range(2)]

buffer.seek(0)
checkpoint = torch.load(buffer, weights_only=True)
print(sorted(checkpoint), checkpoint["epoch"], f"{checkpoint['loss']:.5f}")
model2 = make_model()
optimizer2 = torch.optim.Adam(model2.parameters(), lr=5e-3)
scheduler2 = torch.optim.lr_scheduler.ExponentialLR(optimizer2, gamma=0.8)
model2.load_state_dict(checkpoint["model_state_dict"])
optimizer2.load_state_dict(checkpoint["optimizer_state_dict"])
scheduler2.load_state_dict(checkpoint["scheduler_state_dict"])
torch.set_rng_state(checkpoint["rng_state"])
print(f"lr after resume {optimizer2.param_groups[0]['lr']:.6f}", scheduler2.last_epoch)
resumed = [f"{run_epoch(model2, optimizer2):.5f}" for _ in range(2)]
print(continued, resumed, continued == resumed)
