"""`make gpu-check`: on a machine with an NVIDIA GPU, prove the CUDA path on real hardware.

1. says whether cupy and a GPU are there (and which);
2. runs the device-parametrized tests (the `device` fixture: on a GPU machine "cuda" is the real GPU);
3. times training steps on the GPU: an MLP 784-1024-1024-10 at batch 1024, LeNet at batch 256 and the op
   overhead step ``(a * b + c).relu().sum().backward()`` on 8 numbers, pedatorch on cupy, and PyTorch CUDA
   where a CUDA build of torch is installed (each in its own process, rounds interleaved).

Prints a summary at the end; exits 1 when there is no GPU or the tests fail. Keep it under 8 minutes.
"""
import importlib.util
import json
import os
import re
import statistics
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
elif workload == "overhead":   # eight numbers: what one op costs beyond its kernel
    a, b, c = (torch.randn(8, device=dev, requires_grad=True) for _ in range(3))
    model = nn.Identity()
else:
    model = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84),
                          nn.ReLU(), nn.Linear(84, 10))
    x, y = torch.randn(256, 1, 28, 28, device=dev), torch.randint(0, 10, (256,), device=dev)
model = model.to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9) if workload != "overhead" else None
def step():
    if workload == "overhead":
        loss = (a * b + c).relu().sum()
        loss.backward()
        return loss
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
if len(sys.argv) > 4:   # a profile of a few more steps, written to the file named
    import cProfile, pstats
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(10):
        step()
    torch.cuda.synchronize()
    prof.disable()
    with open(sys.argv[4], "w") as f:
        pstats.Stats(prof, stream=f).sort_stats("tottime").print_stats(40)
        pstats.Stats(prof, stream=f).sort_stats("cumulative").print_stats(40)
print(json.dumps({"median_ms": 1000 * times[len(times) // 2], "min_ms": 1000 * times[0], "loss": float(step())}))
'''


def run(cmd, timeout):
    """(returncode, stdout, stderr, seconds); 124 and what was printed when it ran past ``timeout``."""
    t = time.time()
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.time() - t
    except subprocess.TimeoutExpired as e:
        def text(b):
            return b.decode(errors="replace") if isinstance(b, bytes) else (b or "")
        return 124, text(e.stdout), text(e.stderr) + f"\n(timed out after {timeout} s)", time.time() - t


def main():
    summary = []

    def note(line):   # printed as it comes, so that a run cut short still says what it found
        summary.append(line)
        print(line, flush=True)
    code = ("import pedatorch, json; print(json.dumps({'available': pedatorch.cuda.is_available(), "
            "'count': pedatorch.cuda.device_count(), 'name': pedatorch.cuda.get_device_name() "
            "if pedatorch.cuda.is_available() else None}))")
    rc, out, err, _ = run([sys.executable, "-c", code], 120)
    info = json.loads(out) if rc == 0 else {"available": False, "error": err[-500:]}
    note(f"GPU: {info}")
    if not info.get("available"):
        print("no usable GPU (cupy missing or no device): nothing to check")
        return 1
    has_torch_cuda = run([sys.executable, "-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"],
                         120)[0] == 0
    libs = ("pedatorch",) + (("torch",) if has_torch_cuda else ())
    for workload, steps in (("mlp", 30), ("lenet", 30), ("overhead", 200)):
        medians, errors = {lib: [] for lib in libs}, {}
        for _ in range(2):   # rounds interleaved, each library in its own process
            for lib in libs:
                rc, out, err, _ = run([sys.executable, "-c", WORKER, lib, workload, str(steps)], 120)
                if rc == 0:
                    medians[lib].append(json.loads(out.strip().splitlines()[-1])["median_ms"])
                else:
                    errors[lib] = err.strip()[-300:]
        row = {lib: f"{min(m):.2f}-{max(m):.2f} ms" if m else errors.get(lib) for lib, m in medians.items()}
        ratio = ""
        if len(libs) == 2 and medians["pedatorch"] and medians["torch"]:
            ratio = f"  pedatorch/torch = {statistics.median(medians['pedatorch']) / statistics.median(medians['torch']):.2f}x"
        note(f"{workload} training step, median per round: {json.dumps(row)}{ratio}")
    if os.environ.get("GPU_CHECK_PROFILE"):   # where pedatorch's MLP step spends its time
        run([sys.executable, "-c", WORKER, "pedatorch", "mlp", "10", os.environ["GPU_CHECK_PROFILE"]], 120)
    # the test files that hold device-parametrized tests (a test taking the ``device`` fixture)
    tests_dir = os.path.join(ROOT, "tests")
    files = sorted(os.path.join("tests", f) for f in os.listdir(tests_dir) if f.startswith("test_") and f.endswith(".py")
                   and re.search(r"def test_\w*\([^)]*\bdevice\b", open(os.path.join(tests_dir, f)).read()))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE", "--tb=short", "-W", "ignore",
           "-k", "cuda"] + files
    if importlib.util.find_spec("xdist"):   # cupy compiles each new kernel once: spread that over the cores
        cmd += ["-n", str(min(8, os.cpu_count() or 1))]
    rc, out, err, dt = run(cmd, int(os.environ.get("GPU_CHECK_TEST_TIMEOUT", 300)))
    if os.environ.get("GPU_CHECK_LOG"):
        with open(os.environ["GPU_CHECK_LOG"], "w") as f:
            f.write(out + err)
    failed = [line for line in out.splitlines() if line.startswith(("FAILED", "ERROR"))]
    tail = (out + err).strip().splitlines()[-1:]
    note(f"device tests on real cuda ({len(files)} files): rc={rc} ({dt:.0f} s): {' | '.join(tail)}")
    for line in failed[:60]:
        note("  " + line[:300])
    tests_rc = rc
    print("\n==== gpu-check summary ====")
    print("\n".join(summary))
    return 0 if tests_rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
