# The "Quickstart" tutorial's structure on a synthetic 3-class data set: a custom Dataset with a
# transform, random_split, DataLoaders, an nn.Module with a Sequential stack, train()/test() loops,
# SGD with momentum, and a state_dict round trip into a fresh model for inference.
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, random_split

torch.manual_seed(42)


class Blobs(Dataset):
    """Three Gaussian blobs in 8 dimensions, labelled 0, 1, 2."""

    def __init__(self, n_per_class, transform=None, target_transform=None):
        centers = torch.randn(3, 8) * 2.0
        self.x = torch.cat([c + torch.randn(n_per_class, 8) for c in centers])
        self.y = torch.arange(3).repeat_interleave(n_per_class)
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return len(self.y)

    def __getitem__(self, idx):
        x, y = self.x[idx], self.y[idx]
        if self.transform:
            x = self.transform(x)
        if self.target_transform:
            y = self.target_transform(y)
        return x, y


dataset = Blobs(100, transform=lambda x: x / 4.0)
print(len(dataset), dataset[0][0].shape, dataset[0][1], dataset[150])
training_data, test_data = random_split(dataset, [0.8, 0.2])
print(len(training_data), len(test_data), training_data.indices[:8])

batch_size = 32
train_dataloader = DataLoader(training_data, batch_size=batch_size, shuffle=True)
test_dataloader = DataLoader(test_data, batch_size=batch_size)
for X, y in test_dataloader:
    print(f"Shape of X [N, C]: {X.shape}")
    print(f"Shape of y: {y.shape} {y.dtype}")
    break
print(len(train_dataloader), len(test_dataloader))

device = "cpu"
print(f"Using {device} device")


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(8, 32),
            nn.ReLU(),
            nn.Linear(32, 32),
            nn.ReLU(),
            nn.Linear(32, 3),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork().to(device)
print(model)
print(f"Model structure: {model}\n\n".splitlines()[0])
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:1, :3] if param.dim() == 2 else param[:3]} \n")

loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
print(optimizer)


def train(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device), y.to(device)
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 3 == 0:
            loss, current = loss.item(), (batch + 1) * len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test(dataloader, model, loss_fn):
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            X, y = X.to(device), y.to(device)
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


epochs = 4
for t in range(epochs):
    print(f"Epoch {t+1}\n-------------------------------")
    train(train_dataloader, model, loss_fn, optimizer)
    test(test_dataloader, model, loss_fn)
print("Done!")

state = model.state_dict()
print(list(state.keys()), state["linear_relu_stack.0.bias"].requires_grad)
print(sorted(optimizer.state_dict()["state"].keys()), optimizer.state_dict()["param_groups"][0]["momentum"])
model2 = NeuralNetwork()
print(model2.load_state_dict(state))
model2.eval()
classes = ["blob A", "blob B", "blob C"]
x, y = test_data[0][0], test_data[0][1]
with torch.no_grad():
    x = x.to(device)
    pred = model2(x.unsqueeze(0))
    predicted, actual = classes[pred[0].argmax(0)], classes[y]
    print(f'Predicted: "{predicted}", Actual: "{actual}"')
    probs = nn.Softmax(dim=1)(model2(torch.stack([test_data[i][0] for i in range(4)])))
    print(probs.round(decimals=3), torch.allclose(probs.sum(1), torch.ones(4)))
