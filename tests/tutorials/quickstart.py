# The quickstart's model / train / evaluate loop on seeded random data; run by tests/test_tutorials.py
# with torch bound to pedatorch and to PyTorch.
nn = torch.nn
from_data = torch.utils.data
torch.manual_seed(0)
X = torch.randn(640, 1, 28, 28)
Y = torch.randint(0, 10, (640,))
train = from_data.TensorDataset(X, Y)
loader = from_data.DataLoader(train, batch_size=64, shuffle=True)
class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(nn.Linear(28*28, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    def forward(self, x):
        x = self.flatten(x)
        return self.linear_relu_stack(x)
model = NeuralNetwork()
print(model)
for name, param in list(model.named_parameters())[:2]:
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \n")
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
print(optimizer)
for epoch in range(2):
    model.train()
    for batch, (x, y) in enumerate(loader):
        pred = model(x)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 4 == 0:
            print(f"loss: {loss.item():>7f}  [{(batch + 1) * len(x):>5d}/{len(loader.dataset):>5d}]")
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).type(torch.float).sum().item()
    print(f"Accuracy: {(100*correct/len(loader.dataset)):>0.1f}%")
logits = model(X[:3])
pred_probab = nn.Softmax(dim=1)(logits)
print(pred_probab.argmax(1), logits.grad_fn)
