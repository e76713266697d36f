"""The tensor and autograd snippets of the course (shared/course/000_*.txt), run on both libraries.

Each snippet is run as written with ``torch`` bound to pedatorch and to PyTorch; what it prints must
be the same (memory addresses aside).  Random tensors are seeded; where a snippet prints random values
its check is on what does not depend on them (shapes, flags, the values it sets itself).
"""
import contextlib
import io
import re

import pytest

import pedatorch

SNIPPETS = {
    "creation": """
t1 = torch.tensor([1, 2, 3])
t2 = torch.zeros(2, 3)
t3 = torch.ones_like(t2)
t4 = torch.randn(3, 4, requires_grad=True)
t5 = torch.arange(0, 10, 2)
t6 = torch.linspace(0, 1, 5)
eye_matrix = torch.eye(3)
diag_tensor = torch.diag(torch.tensor([1, 2, 3]))
print(t1); print(t2); print(t3); print(t4.shape, t4.requires_grad, t4.dtype)
print(t5); print(t6); print(eye_matrix); print(diag_tensor)
""",
    "contiguity": """
x = torch.randn(3, 4)
print(x.is_contiguous())
y = x.t()
print(y.is_contiguous())
y_cont = y.contiguous()
print(y_cont.is_contiguous(), y.stride(), y_cont.stride())
""",
    "memory_sharing": """
x = torch.randn(3, 4)
y = x[1:]
y[0, 0] = 100
print(x[1, 0])
z = x.clone()
z[0, 0] = -1
print(x[0, 0] != -1, y.data_ptr() == x.data_ptr() + x.stride(0) * x.element_size())
""",
    "broadcasting": """
a = torch.randn(3, 1, 4)
b = torch.randn(2, 4)
c = a + b
print(c.shape)
a_expanded = a.expand(3, 2, 4)
print(a_expanded.shape, a_expanded.stride(), a_expanded.data_ptr() == a.data_ptr())
""",
    "autograd_graph": """
x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(3.0, requires_grad=True)
z = x**2 + y**3
w = torch.sin(z)
print(f"z.grad_fn: {z.grad_fn}")
print(f"w.grad_fn: {w.grad_fn}")
w.backward()
print(f"dw/dx = {x.grad}")
print(f"dw/dy = {y.grad}")
print(z, w)
""",
    "no_grad_and_hooks": """
x = torch.randn(3, requires_grad=True)
with torch.no_grad():
    y = x * 2
print(y.requires_grad)
h = x.register_hook(lambda grad: grad * 2)
(x * 3).sum().backward()
print(x.grad)
h.remove()
x.grad = None
(x * 3).sum().backward()
print(x.grad)
""",
}


def run_snippet(lib, code):
    out = io.StringIO()
    lib.manual_seed(0)
    with contextlib.redirect_stdout(out):
        exec(code, {"torch": lib})
    return re.sub(r" at 0x[0-9a-f]+", " at 0x…", out.getvalue())


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_course_snippet_prints_what_pytorch_prints(torch, name):
    code = SNIPPETS[name]
    ours = run_snippet(pedatorch, code)
    theirs = run_snippet(torch, code)
    assert ours == theirs


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_course_snippet_runs_without_torch(name):
    run_snippet(pedatorch, SNIPPETS[name])


def test_course_numbers_are_computed_not_copied():
    out = run_snippet(pedatorch, SNIPPETS["autograd_graph"])
    assert "<AddBackward0 object at 0x…>" in out and "<SinBackward0 object at 0x…>" in out
    assert "dw/dx = 3.65896" in out and "dw/dy = 24.69804" in out  # f"{t}" of a 0-dim tensor: its number
    assert "tensor(31., grad_fn=<AddBackward0>)" in out
