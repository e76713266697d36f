# A small CNN in the style of the CIFAR-10 / MNIST examples, on tiny synthetic 12x12 images of bars and
# crosses: Conv2d, BatchNorm2d, ReLU, MaxPool2d, Dropout, a Linear head, Adam with StepLR, per-epoch
# loss and accuracy, train/eval behaviour of BatchNorm and Dropout, and a shape trace through the layers.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


def make_images(n):
    """n noisy 1x12x12 images: 0 = horizontal bar, 1 = vertical bar, 2 = cross, 3 = diagonal."""
    labels = torch.randint(0, 4, (n,))
    imgs = 0.3 * torch.randn(n, 1, 12, 12)
    pos = torch.randint(3, 9, (n,))
    eye = torch.eye(12)
    for i in range(n):
        k, p = labels[i].item(), pos[i].item()
        if k in (0, 2):
            imgs[i, 0, p, :] += 1.0
        if k in (1, 2):
            imgs[i, 0, :, p] += 1.0
        if k == 3:
            imgs[i, 0] += eye
    return imgs, labels


x_train, y_train = make_images(160)
x_test, y_test = make_images(64)
print(x_train.shape, y_train.bincount(), f"{x_train.mean().item():.4f} {x_train.std().item():.4f}")
train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=16, shuffle=True)
test_loader = DataLoader(TensorDataset(x_test, y_test), batch_size=32)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1, bias=False)  # BatchNorm follows: no bias
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2, 2)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(16 * 2 * 2, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.pool(F.relu(self.bn2(self.conv2(x))))
        x = torch.flatten(x, 1)
        x = self.dropout(F.relu(self.fc1(x)))
        return self.fc2(x)


net = Net()
print(net)
n_params = sum(p.numel() for p in net.parameters() if p.requires_grad)
print(f"trainable parameters: {n_params:,}", len(list(net.buffers())), [n for n, _ in net.named_buffers()][:3])

# shapes through the network, recorded by forward hooks
hooks = [m.register_forward_hook(lambda m, i, o, name=name: print(f"{name:>8}: {tuple(o.shape)}"))
         for name, m in net.named_children()]
with torch.no_grad():
    net.eval()
    out = net(x_train[:2])
for h in hooks:
    h.remove()
print(out)

# the layer is F.conv2d with its own weight and bias
ref = F.conv2d(x_train[:2], net.conv1.weight, None, padding=1)
print(torch.allclose(ref, net.conv1(x_train[:2]), atol=1e-6), ref.shape)

criterion = nn.CrossEntropyLoss()
optimizer = optim.Adam(net.parameters(), lr=1e-2)
scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)

for epoch in range(5):
    net.train()
    running_loss, correct, seen = 0.0, 0, 0
    for inputs, labels in train_loader:
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * inputs.size(0)
        correct += (outputs.argmax(dim=1) == labels).sum().item()
        seen += inputs.size(0)
    scheduler.step()
    net.eval()
    test_correct = 0
    with torch.no_grad():
        for inputs, labels in test_loader:
            test_correct += (net(inputs).argmax(1) == labels).sum().item()
    print(f"[epoch {epoch + 1}] loss: {running_loss / seen:.4f} train acc: {correct}/{seen} "
          f"test acc: {100 * test_correct / len(y_test):.1f}% lr: {scheduler.get_last_lr()[0]:.5f}")

print("running_mean", net.bn1.running_mean)
print("running_var ", net.bn1.running_var)
print(net.bn1.num_batches_tracked, net.bn2.momentum, net.bn2.eps)
print("conv1.weight.grad", tuple(net.conv1.weight.grad.shape), f"{net.conv1.weight.grad.norm().item():.4f}")

# train vs eval: dropout and batch statistics
x = x_test[:4]
net.eval()
with torch.no_grad():
    a, b = net(x), net(x)
    print("eval deterministic:", torch.equal(a, b))
    net.train()
    c = net(x)
    print("train differs:", not torch.allclose(a, c))
print(F.softmax(a, dim=1).argmax(1), y_test[:4])
cm = torch.zeros(4, 4, dtype=torch.long)
with torch.no_grad():
    net.eval()
    pred = net(x_test).argmax(1)
for t, p in zip(y_test, pred):
    cm[t, p] += 1
print(cm)
