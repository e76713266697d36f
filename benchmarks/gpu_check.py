"""`make gpu-check`: on a machine with an NVIDIA GPU, prove the CUDA path on real hardware.

1. says whether cupy and a GPU are there (and which);
2. runs the device-parametrized tests (the `device` fixture: on a GPU machine "cuda" is the real GPU);
3. times training steps on the GPU: an MLP 784-1024-1024-10 at batch 1024 and LeNet at batch 256, pedatorch
   on cupy, and PyTorch CUDA where a CUDA build of torch is installed (each in its own process).

Prints a summary at the end; exits 1 when there is no GPU or the tests fail. Keep it under 8 minutes.
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

WORKER = r'''
import json, sys, time
lib, workload, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
if lib == "torch":
    import torch
else:
    import pedatorch as torch
dev = "cuda"
torch.manual_seed(0)
nn = torch.nn
if workload == "mlp":
    model = nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))
    x, y = torch.randn(1024, 784, device=dev), torch.randint(0, 10, (1024,), device=dev)
else:
    model = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84),
                          nn.ReLU(), nn.Linear(84, 10))
    x, y = torch.randn(256, 1, 28, 28, device=dev), torch.randint(0, 10, (256,), device=dev)
model = model.to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
def step():
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss
for _ in range(5):
    step()
torch.cuda.synchronize()
times = []
for _ in range(steps):
    t = time.perf_counter()
    step()
    torch.cuda.synchronize()
    times.append(time.perf_counter() - t)
times.sort()
print(json.dumps({"median_ms": 1000 * times[len(times) // 2], "min_ms": 1000 * times[0], "loss": float(step())}))
'''


def run(cmd, timeout):
    t = time.time()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr, time.time() - t


def main():
    summary = []
    code = ("import pedatorch, json; print(json.dumps({'available': pedatorch.cuda.is_available(), "
            "'count': pedatorch.cuda.device_count(), 'name': pedatorch.cuda.get_device_name() "
            "if pedatorch.cuda.is_available() else None}))")
    rc, out, err, _ = run([sys.executable, "-c", code], 120)
    info = json.loads(out) if rc == 0 else {"available": False, "error": err[-500:]}
    summary.append(f"GPU: {info}")
    if not info.get("available"):
        print("\n".join(summary))
        print("no usable GPU (cupy missing or no device): nothing to check")
        return 1
    rc, out, err, dt = run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "cuda",
                            "tests/test_devices.py"] + sorted(
        os.path.join("tests", f) for f in os.listdir(os.path.join(ROOT, "tests")) if f.startswith("test_device_")),
        300)
    tail = (out + err).strip().splitlines()[-3:]
    summary.append(f"device tests on real cuda: rc={rc} ({dt:.0f} s): {' | '.join(tail)}")
    has_torch_cuda = run([sys.executable, "-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"],
                         120)[0] == 0
    for workload, steps in (("mlp", 30), ("lenet", 30)):
        row = {}
        for lib in ("pedatorch",) + (("torch",) if has_torch_cuda else ()):
            rc, out, err, _ = run([sys.executable, "-c", WORKER, lib, workload, str(steps)], 240)
            row[lib] = json.loads(out.strip().splitlines()[-1]) if rc == 0 else {"error": err.strip()[-300:]}
        ratio = ""
        if "torch" in row and "median_ms" in row.get("pedatorch", {}) and "median_ms" in row["torch"]:
            ratio = f"  pedatorch/torch = {row['pedatorch']['median_ms'] / row['torch']['median_ms']:.2f}x"
        summary.append(f"{workload}: {json.dumps(row)}{ratio}")
    print("\n==== gpu-check summary ====")
    print("\n".join(summary))
    return 0 if rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
