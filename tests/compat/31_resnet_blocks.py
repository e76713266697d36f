# A ResNet in the style of torchvision's resnet.py and the "Training a Classifier" / CIFAR-10 recipes, shrunk
# to 8x8 synthetic images: BasicBlock with conv3x3 / conv1x1 helpers, BatchNorm2d, an identity or downsample
# shortcut added before the final ReLU, _make_layer, AdaptiveAvgPool2d((1, 1)) + flatten, kaiming_normal_
# init with zero_init_residual, SGD(nesterov=True) with weight decay kept off the BatchNorm parameters,
# OneCycleLR stepped per batch, and the running statistics / num_batches_tracked buffers after training.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


def conv3x3(in_planes, out_planes, stride=1):
    """3x3 convolution with padding"""
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False)


def conv1x1(in_planes, out_planes, stride=1):
    """1x1 convolution"""
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=4, zero_init_residual=False):
        super().__init__()
        self.inplanes = 8
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = self._make_layer(block, 8, layers[0])
        self.layer2 = self._make_layer(block, 16, layers[1], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(16 * block.expansion, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        if zero_init_residual:
            for m in self.modules():
                if isinstance(m, BasicBlock) and m.bn2.weight is not None:
                    nn.init.constant_(m.bn2.weight, 0)

    def _make_layer(self, block, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                conv1x1(self.inplanes, planes * block.expansion, stride),
                nn.BatchNorm2d(planes * block.expansion),
            )
        layers = [block(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.fc(x)


# ---- synthetic data: class = which quadrant holds a bright 3-channel blob
def make_images(n):
    labels = torch.randint(0, 4, (n,))
    images = 0.3 * torch.randn(n, 3, 8, 8)
    for i, label in enumerate(labels.tolist()):
        r, c = 4 * (label // 2), 4 * (label % 2)
        images[i, :, r:r + 4, c:c + 4] += torch.tensor([1.0, 0.5, -0.5]).view(3, 1, 1)
    return images, labels


x_train, y_train = make_images(96)
x_test, y_test = make_images(32)
train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=16, shuffle=True)
print("batches per epoch", len(train_loader), "class counts", torch.bincount(y_train, minlength=4).tolist())

model = ResNet(BasicBlock, [2, 1], zero_init_residual=True)
print(model.layer2[0])
print("parameters", sum(p.numel() for p in model.parameters()),
      "trainable", sum(p.numel() for p in model.parameters() if p.requires_grad))
print("zero-init residual bn2", model.layer1[0].bn2.weight.abs().sum().item(),
      "conv1 std", round(model.conv1.weight.std().item(), 2))

# ---- a shape trace with forward hooks
shapes = []
hooks = [m.register_forward_hook(lambda mod, inp, out, name=name: shapes.append((name, tuple(out.shape))))
         for name, m in model.named_children()]
model.eval()
with torch.no_grad():
    model(x_test[:2])
for h in hooks:
    h.remove()
for name, shape in shapes:
    print(f"  {name:8s} {shape}")

# ---- weight decay on conv / linear weights only, as in the "bag of tricks" recipes
decay, no_decay = [], []
for name, p in model.named_parameters():
    (no_decay if p.ndim <= 1 else decay).append(p)
print("decay tensors", len(decay), "no-decay tensors", len(no_decay))
optimizer = torch.optim.SGD([{"params": decay, "weight_decay": 5e-4}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=0.1, momentum=0.9, nesterov=True)
epochs = 6
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.2, epochs=epochs,
                                                steps_per_epoch=len(train_loader), pct_start=0.25)
criterion = nn.CrossEntropyLoss()


def evaluate():
    model.eval()
    with torch.no_grad():
        logits = model(x_test)
        loss = criterion(logits, y_test).item()
        correct = (logits.argmax(1) == y_test).sum().item()
    return loss, correct


for epoch in range(epochs):
    model.train()
    running, seen = 0.0, 0
    for images, labels in train_loader:
        optimizer.zero_grad(set_to_none=True)
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()
        scheduler.step()
        running += loss.item() * labels.size(0)
        seen += labels.size(0)
    test_loss, correct = evaluate()
    print(f"epoch {epoch} train loss {running / seen:.4f} test loss {test_loss:.4f} "
          f"acc {correct}/{len(y_test)} lr {scheduler.get_last_lr()[0]:.5f} "
          f"momentum {optimizer.param_groups[0]['momentum']:.4f}")

# ---- what BatchNorm learned and counted
bn = model.bn1
print("num_batches_tracked", bn.num_batches_tracked.item(), bn.num_batches_tracked.dtype)
print("running_mean", [round(v, 3) for v in bn.running_mean[:4].tolist()])
print("running_var", [round(v, 3) for v in bn.running_var[:4].tolist()])
print("buffers", [name for name, _ in model.layer2.named_buffers()][:4])
state = model.state_dict()
print("state_dict entries", len(state), list(state)[:3])

# ---- train vs eval BatchNorm on one batch, and F.batch_norm with the same buffers
x = x_test[:4]
y_eval = F.batch_norm(model.conv1(x), bn.running_mean, bn.running_var, bn.weight, bn.bias, training=False,
                            eps=bn.eps)
print("functional eval bn == module", torch.allclose(y_eval, bn.eval()(model.conv1(x)), atol=1e-6))
probs = F.softmax(model.eval()(x), dim=1)
print("probabilities", probs.detach().round(decimals=3))
print("predictions", probs.argmax(1).tolist(), "targets", y_test[:4].tolist())
