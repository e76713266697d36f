# The "Automatic Mixed Precision" recipe written device-agnostically: torch.autocast + torch.amp.GradScaler,
# enabled only where there is CUDA (so on a CPU-only machine both are pass-throughs), gradient clipping on
# unscaled gradients, the scaler's state_dict; then CPU autocast to bfloat16, which changes the dtypes
# that Linear and matmul produce while reductions stay in float32.
import torch
import torch.nn as nn

torch.manual_seed(0)
device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")
use_amp = device.type == "cuda"
print(device, use_amp)


def make_model(in_size, out_size, num_layers):
    layers = []
    for _ in range(num_layers - 1):
        layers.append(nn.Linear(in_size, in_size))
        layers.append(nn.ReLU())
    layers.append(nn.Linear(in_size, out_size))
    return nn.Sequential(*tuple(layers)).to(device)


batch_size, in_size, out_size, num_layers, num_batches, epochs = 16, 32, 8, 3, 6, 3
data = [torch.randn(batch_size, in_size, device=device) for _ in range(num_batches)]
targets = [torch.randn(batch_size, out_size, device=device) for _ in range(num_batches)]
loss_fn = torch.nn.MSELoss().to(device)

net = make_model(in_size, out_size, num_layers)
opt = torch.optim.SGD(net.parameters(), lr=0.01)
scaler = torch.amp.GradScaler(device.type, enabled=use_amp)
print(scaler.is_enabled(), scaler.get_scale())
for epoch in range(epochs):
    total = 0.0
    for input, target in zip(data, targets):
        with torch.autocast(device_type=device.type, dtype=torch.float16, enabled=use_amp):
            output = net(input)
            assert output.dtype is (torch.float16 if use_amp else torch.float32)
            loss = loss_fn(output, target)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=0.5)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
        total += loss.item()
    print(f"epoch {epoch}: mean loss {total / num_batches:.5f}")
print("scaler state_dict:", scaler.state_dict() if use_amp else scaler.state_dict() == {})

# autocast on the CPU, to bfloat16
a, b = torch.randn(4, 4), torch.randn(4, 4)
lin = nn.Linear(4, 2)
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    c = a @ b
    d = lin(a)
    e = torch.relu(d)
    s = torch.softmax(d, dim=-1)
    print(torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
print(c.dtype, d.dtype, e.dtype, s.dtype, torch.is_autocast_enabled("cpu"))
print(torch.allclose(c.float(), a @ b, atol=0.1), (a + b).dtype)


@torch.autocast(device_type="cpu", dtype=torch.bfloat16)
def forward_bf16(x):
    return lin(x)


print(forward_bf16(a).dtype, lin(a).dtype)
