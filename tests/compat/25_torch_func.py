# The torch.func tutorials: "Jacobians, Hessians, hvp, vhp, and more" (jacrev / jacfwd of a predict
# function, vmap over a batch, hessian, hvp built from jvp + grad), "Per-sample-gradients" (functional_call
# with detached params, grad of a per-sample loss, vmap with in_dims=(None, None, 0, 0), compared with a
# loop of backward calls) and "Model ensembling" (stack_module_state, a 'meta' base model, vmap over the
# stacked parameters with in_dims=(0, 0, None) and with a minibatch per model).
import copy
from functools import partial

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, hessian, jacfwd, jacrev, jvp, stack_module_state, vjp, vmap

torch.manual_seed(0)

# ---- Jacobians, Hessians, hvp, vhp


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


D = 16
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(D)  # feature vector


def compute_jac(xp):
    jacobian_rows = [torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0]
                     for vec in unit_vectors]
    return torch.stack(jacobian_rows)


xp = x.clone().requires_grad_()
unit_vectors = torch.eye(D)

jacobian = compute_jac(xp)

print(jacobian.shape)
print(jacobian[0])  # show first row

jacobian = jacrev(predict, argnums=2)(weight, bias, x)
print(jacobian.shape)
print(jacobian[0])  # show first row
assert torch.allclose(jacobian, compute_jac(xp))

# note: jacrev with respect to multiple arguments
ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
print(ft_jac_weight.shape, ft_jac_bias.shape)
print(torch.allclose(ft_jac_bias, jacfwd(predict, argnums=1)(weight, bias, x), atol=1e-6))

# batched jacobians
batch_size = 8
Din = 8
Dout = 4
weight = torch.randn(Dout, Din)
bias = torch.randn(Dout)
x = torch.randn(batch_size, Din)

compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
batch_jacobian0 = compute_batch_jacobian(weight, bias, x)
print(batch_jacobian0.shape)


def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)


batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, x).movedim(1, 0)
assert torch.allclose(batch_jacobian0, batch_jacobian1)
print(batch_jacobian0.sum(dim=(1, 2)))  # (a saturated tanh's 1 - y**2 keeps few correct digits)

# hessians
Din = 5
Dout = 4
weight = torch.randn(Dout, Din)
bias = torch.randn(Dout)
x = torch.randn(Din)
hess_api = hessian(predict, argnums=2)(weight, bias, x)
hess_fwdfwd = jacfwd(jacfwd(predict, argnums=2), argnums=2)(weight, bias, x)
hess_revrev = jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
print(hess_api.shape, torch.allclose(hess_api, hess_fwdfwd, atol=1e-6), torch.allclose(hess_api, hess_revrev, atol=1e-6))
print(hess_api[0])


def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


def f(x):
    return x.sin().sum()


x = torch.randn(2048)
tangent = torch.randn(2048)
result = hvp(f, (x,), (tangent,))
print(torch.allclose(result, -x.sin() * tangent), result[:4])
out, vjp_fn = vjp(torch.sin, x[:3])
print(out, vjp_fn(torch.ones(3)))

# ---- per-sample gradients


class SimpleCNN(nn.Module):
    def __init__(self):
        super(SimpleCNN, self).__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.conv2 = nn.Conv2d(4, 8, 3, 1)
        self.fc1 = nn.Linear(32, 16)
        self.fc2 = nn.Linear(16, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def loss_fn(predictions, targets):
    return F.nll_loss(predictions, targets)


device = 'cpu'

num_models = 10
batch_size = 16
data = torch.randn(batch_size, 1, 8, 8, device=device)

targets = torch.randint(10, (16,), device=device)

model = SimpleCNN().to(device=device)
predictions = model(data)  # move the entire mini-batch through the model

loss = loss_fn(predictions, targets)
loss.backward()  # back propagate the 'average' gradient of this mini-batch


def compute_grad(sample, target):
    sample = sample.unsqueeze(0)  # prepend batch dimension for processing
    target = target.unsqueeze(0)

    prediction = model(sample)
    loss = loss_fn(prediction, target)

    return torch.autograd.grad(loss, list(model.parameters()))


def compute_sample_grads(data, targets):
    """ manually process each sample with per sample gradient """
    sample_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
    sample_grads = zip(*sample_grads)
    sample_grads = [torch.stack(shards) for shards in sample_grads]
    return sample_grads


per_sample_grads = compute_sample_grads(data, targets)
print(per_sample_grads[1].shape)  # torch.Size([16, 4])

params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)

    predictions = functional_call(model, (params, buffers), (batch,))
    loss = loss_fn(predictions, targets)
    return loss


ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)

# we can double check that the results using ``torch.func.grad`` and ``vmap`` match the results of hand processing each one individually:
for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
    assert torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5)
print({k: tuple(v.shape) for k, v in ft_per_sample_grads.items()})
print(ft_per_sample_grads["fc2.bias"][:2])
print(torch.allclose(ft_per_sample_grads["fc2.bias"].mean(0), model.fc2.bias.grad, atol=1e-6))

# ---- model ensembling


class SimpleMLP(nn.Module):
    def __init__(self):
        super(SimpleMLP, self).__init__()
        self.fc1 = nn.Linear(64, 32)
        self.fc2 = nn.Linear(32, 16)
        self.fc3 = nn.Linear(16, 10)

    def forward(self, x):
        x = x.flatten(1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        x = F.relu(x)
        x = self.fc3(x)
        return x


num_models = 5

data = torch.randn(100, 64, 1, 8, 8, device=device)
targets = torch.randint(10, (6400,), device=device)

models = [SimpleMLP().to(device) for _ in range(num_models)]

minibatches = data[:num_models]
predictions_diff_minibatch_loop = [model(minibatch) for model, minibatch in zip(models, minibatches)]

minibatch = data[0]
predictions2 = [model(minibatch) for model in models]

params, buffers = stack_module_state(models)
print({k: tuple(v.shape) for k, v in params.items()}, buffers)

# Construct a "stateless" version of one of the models (the tutorial moves it to the 'meta' device, so
# that its parameters have no storage; functional_call replaces every one of them anyway).
base_model = copy.deepcopy(models[0])
print(base_model.fc1.weight.device, base_model.fc1.weight.shape)


def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


print([p.size(0) for p in params.values()])  # show the leading 'num_models' dimension

print(minibatches.shape)  # verify minibatch has leading dimension of size 'num_models'

predictions1_vmap = vmap(fmodel)(params, buffers, minibatches)

# verify the ``vmap`` predictions match the
assert torch.allclose(predictions1_vmap, torch.stack(predictions_diff_minibatch_loop), atol=1e-3, rtol=1e-5)

predictions2_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)

assert torch.allclose(predictions2_vmap, torch.stack(predictions2), atol=1e-3, rtol=1e-5)
print(predictions2_vmap.shape, predictions2_vmap[:, 0, :3])

# vmap's knobs: out_dims, chunk_size, randomness, nested vmap, a vmapped function returning a tuple
batched_dot = vmap(torch.dot)
a, b = torch.randn(3, 4), torch.randn(3, 4)
print(batched_dot(a, b), vmap(vmap(torch.mul))(a, b).shape)
print(vmap(torch.sum, in_dims=1, out_dims=0)(a), vmap(lambda t: (t.max(), t.argmax()))(a))
print(vmap(partial(torch.sum, dim=0), chunk_size=2)(torch.arange(12.).view(3, 2, 2)))
print(vmap(lambda t: t * 2, in_dims=0, out_dims=1)(torch.arange(6.).view(2, 3)))
try:
    vmap(lambda t: torch.rand_like(t))(a)
except RuntimeError as e:
    print("RuntimeError:", str(e)[:80])
print(vmap(lambda t: torch.rand_like(t), randomness="same")(a).shape)
print(grad(lambda t: (t ** 3).sum())(torch.tensor([1.0, 2.0])), grad(grad(torch.sin))(torch.tensor(0.5)))
(g1, g2), value = grad(lambda u, v: (u * v).sum() + u.sum(), argnums=(0, 1), has_aux=False)(torch.ones(2), torch.arange(2.)), None
print(g1, g2)
print(jacrev(lambda u: (u.exp(), u.sum()), has_aux=True)(torch.tensor([0.0, 1.0])))
