# Deep reinforcement learning as the well-known tutorials write it, on tiny hand-written environments
# whose state lives in torch tensors (no gym): the official "Reinforcement Learning (DQN) Tutorial"
# (a replay memory of namedtuples in a deque, epsilon-greedy with exponential decay, policy and target
# networks, terminal-state masks, Huber loss, AdamW(amsgrad=True), clip_grad_value_, soft target
# updates through the state_dict, through .data.copy_ and through lerp_); a Double-DQN variant with
# RMSprop; CleanRL-style PPO with an orthogonally initialised actor-critic, Categorical(logits=...),
# GAE by a reversed loop, advantage normalisation, the clipped surrogate and clipped value losses,
# approx KL and clipfrac, shuffled minibatches, clip_grad_norm_ and linear LR annealing; and the
# continuous-action PPO with a Normal policy and a state-independent log-std.
import math
import random
from collections import deque, namedtuple
from itertools import count

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions.categorical import Categorical
from torch.distributions.normal import Normal

device = torch.device("cpu")


# ====================================================================== environments

class Corridor:
    """A 1-D corridor of ``n`` cells, start in cell 1, goal in the last cell.  Actions: 0 = left,
    1 = right.  The observation is a one-hot list (as a gym env returns an array); reaching the goal gives
    +1 and terminates, every other step costs 0.05; episodes are truncated after ``max_steps``."""

    n_actions = 2

    def __init__(self, n=6, max_steps=20):
        self.n, self.max_steps = n, max_steps
        self.pos = torch.tensor(1)

    def reset(self):
        self.pos, self.t = torch.tensor(1), 0
        return F.one_hot(self.pos, self.n).float().tolist(), {}

    def step(self, action):
        self.t += 1
        self.pos = (self.pos + (2 * action - 1)).clamp(0, self.n - 1)
        terminated = bool(self.pos == self.n - 1)
        truncated = self.t >= self.max_steps
        reward = 1.0 if terminated else -0.05
        return F.one_hot(self.pos, self.n).float().tolist(), reward, terminated, truncated, {}


class VecCorridor:
    """``num_envs`` corridors stepped together, with automatic reset as gym's vector envs do."""

    def __init__(self, num_envs, n=6, max_steps=16):
        self.num_envs, self.n, self.max_steps = num_envs, n, max_steps
        self.single_observation_shape, self.single_action_shape, self.n_actions = (n,), (), 2

    def _obs(self):
        return F.one_hot(self.pos, self.n).float()

    def reset(self):
        self.pos = torch.ones(self.num_envs, dtype=torch.long)
        self.t = torch.zeros(self.num_envs, dtype=torch.long)
        return self._obs(), {}

    def step(self, action):
        self.t += 1
        self.pos = (self.pos + 2 * action - 1).clamp(0, self.n - 1)
        terminations = self.pos == self.n - 1
        truncations = self.t >= self.max_steps
        reward = torch.where(terminations, 1.0, -0.05)
        done = terminations | truncations
        self.pos = torch.where(done, torch.ones_like(self.pos), self.pos)
        self.t = self.t.masked_fill(done, 0)
        return self._obs(), reward, terminations, truncations, {}


class VecReacher:
    """A point on a line must reach its target: observation (x, target), action a moves x by
    0.2 * clip(a, -1, 1), reward -|x - target|.  Each env has its own fixed target."""

    def __init__(self, num_envs, max_steps=10):
        self.num_envs, self.max_steps = num_envs, max_steps
        self.target = torch.linspace(-0.8, 0.8, num_envs)
        self.single_observation_shape, self.single_action_shape = (2,), (1,)

    def _obs(self):
        return torch.stack([self.x, self.target], dim=1)

    def reset(self):
        self.x = torch.zeros(self.num_envs)
        self.t = 0
        return self._obs(), {}

    def step(self, action):
        self.t += 1
        self.x = self.x + 0.2 * torch.clip(action[:, 0], -1.0, 1.0)
        reward = -(self.x - self.target).abs()
        truncations = torch.full((self.num_envs,), self.t >= self.max_steps)
        if self.t >= self.max_steps:
            self.x, self.t = torch.zeros(self.num_envs), 0
        return self._obs(), reward, torch.zeros(self.num_envs, dtype=torch.bool), truncations, {}


# ====================================================================== DQN (the official tutorial)

random.seed(0)
torch.manual_seed(0)
env = Corridor()

Transition = namedtuple("Transition", ("state", "action", "next_state", "reward"))


class ReplayMemory(object):

    def __init__(self, capacity):
        self.memory = deque([], maxlen=capacity)

    def push(self, *args):
        """Save a transition"""
        self.memory.append(Transition(*args))

    def sample(self, batch_size):
        return random.sample(self.memory, batch_size)

    def __len__(self):
        return len(self.memory)


class DQN(nn.Module):

    def __init__(self, n_observations, n_actions):
        super(DQN, self).__init__()
        self.layer1 = nn.Linear(n_observations, 32)
        self.layer2 = nn.Linear(32, 32)
        self.layer3 = nn.Linear(32, n_actions)

    def forward(self, x):
        x = F.relu(self.layer1(x))
        x = F.relu(self.layer2(x))
        return self.layer3(x)


BATCH_SIZE = 16
GAMMA = 0.9
EPS_START = 0.9
EPS_END = 0.05
EPS_DECAY = 100
TAU = 0.05
LR = 3e-3

n_actions = env.n_actions
state, info = env.reset()
n_observations = len(state)

policy_net = DQN(n_observations, n_actions).to(device)
target_net = DQN(n_observations, n_actions).to(device)
target_net.load_state_dict(policy_net.state_dict())

optimizer = optim.AdamW(policy_net.parameters(), lr=LR, amsgrad=True)
memory = ReplayMemory(200)
print(policy_net)
print(optimizer)

steps_done = 0


def select_action(state):
    global steps_done
    sample = random.random()
    eps_threshold = EPS_END + (EPS_START - EPS_END) * math.exp(-1. * steps_done / EPS_DECAY)
    steps_done += 1
    if sample > eps_threshold:
        with torch.no_grad():
            # t.max(1) will return the largest column value of each row.
            # second column on max result is index of where max element was
            # found, so we pick action with the larger expected reward.
            return policy_net(state).max(1).indices.view(1, 1)
    else:
        return torch.tensor([[random.randrange(n_actions)]], device=device, dtype=torch.long)


episode_durations = []
losses = []


def optimize_model():
    if len(memory) < BATCH_SIZE:
        return
    transitions = memory.sample(BATCH_SIZE)
    # Transpose the batch: this converts batch-array of Transitions to Transition of batch-arrays.
    batch = Transition(*zip(*transitions))

    # Compute a mask of non-final states and concatenate the batch elements
    # (a final state would've been the one after which simulation ended)
    non_final_mask = torch.tensor(tuple(map(lambda s: s is not None, batch.next_state)),
                                  device=device, dtype=torch.bool)
    non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
    state_batch = torch.cat(batch.state)
    action_batch = torch.cat(batch.action)
    reward_batch = torch.cat(batch.reward)

    # Compute Q(s_t, a) - the model computes Q(s_t), then we select the columns of actions taken.
    state_action_values = policy_net(state_batch).gather(1, action_batch)

    # Compute V(s_{t+1}) for all next states; final states get 0.
    next_state_values = torch.zeros(BATCH_SIZE, device=device)
    with torch.no_grad():
        next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
    expected_state_action_values = (next_state_values * GAMMA) + reward_batch

    # Compute Huber loss
    criterion = nn.SmoothL1Loss()
    loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))

    optimizer.zero_grad()
    loss.backward()
    # In-place gradient clipping
    torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
    optimizer.step()
    losses.append(loss.item())


num_episodes = 12
for i_episode in range(num_episodes):
    state, info = env.reset()
    state = torch.tensor(state, dtype=torch.float32, device=device).unsqueeze(0)
    for t in count():
        action = select_action(state)
        observation, reward, terminated, truncated, _ = env.step(action.item())
        reward = torch.tensor([reward], device=device)
        done = terminated or truncated

        if terminated:
            next_state = None
        else:
            next_state = torch.tensor(observation, dtype=torch.float32, device=device).unsqueeze(0)

        memory.push(state, action, next_state, reward)
        state = next_state
        optimize_model()

        # Soft update of the target network's weights: θ′ ← τ θ + (1 −τ )θ′
        target_net_state_dict = target_net.state_dict()
        policy_net_state_dict = policy_net.state_dict()
        for key in policy_net_state_dict:
            target_net_state_dict[key] = policy_net_state_dict[key] * TAU + target_net_state_dict[key] * (1 - TAU)
        target_net.load_state_dict(target_net_state_dict)

        if done:
            episode_durations.append(t + 1)
            break
    if i_episode % 3 == 2:
        recent = losses[-5:]
        print(f"episode {i_episode + 1:2d} steps {steps_done:3d} duration {episode_durations[-1]:2d} "
              f"memory {len(memory):3d} loss {sum(recent) / max(len(recent), 1):.4f}")

durations_t = torch.tensor(episode_durations, dtype=torch.float)
print("durations", durations_t.tolist(), durations_t.mean().item())
means = durations_t.unfold(0, 4, 1).mean(1).view(-1)
print("running mean", torch.cat((torch.zeros(3), means)).tolist())

with torch.no_grad():
    all_states = torch.eye(n_observations)
    q = policy_net(all_states)
    q_target = target_net(all_states)
print("Q(s, .)", q.round(decimals=2))
print("greedy", q.max(1)[1].tolist(), "V", [round(v, 2) for v in q.max(1)[0].tolist()])
print("target V", q_target.max(dim=1).values.round(decimals=2))
print("optimizer state", sorted(optimizer.state[policy_net.layer1.weight]),
      optimizer.state[policy_net.layer1.weight]["step"])

# the same soft update written three ways gives the same target network
tn1, tn2, tn3 = (DQN(n_observations, n_actions) for _ in range(3))
for tn in (tn2, tn3):
    tn.load_state_dict(tn1.state_dict())
sd1, sdp = tn1.state_dict(), policy_net.state_dict()
for key in sdp:
    sd1[key] = sdp[key] * TAU + sd1[key] * (1 - TAU)
tn1.load_state_dict(sd1)
for target_param, param in zip(tn2.parameters(), policy_net.parameters()):
    target_param.data.copy_(TAU * param.data + (1.0 - TAU) * target_param.data)
with torch.no_grad():
    for tp, p in zip(tn3.parameters(), policy_net.parameters()):
        tp.lerp_(p, TAU)
print("soft updates agree", all(torch.allclose(a, b) and torch.allclose(a, c) for a, b, c in
                                zip(tn1.parameters(), tn2.parameters(), tn3.parameters())),
      tn3.layer3.bias.requires_grad, tn3.layer3.bias.grad_fn)

# ---- Double DQN with RMSprop, clip_grad_value_ that bites, a hard target update every 8 steps
torch.manual_seed(1)
random.seed(1)
online, target = DQN(5, n_actions), DQN(5, n_actions)
target.load_state_dict(online.state_dict())
target.eval()
rms = torch.optim.RMSprop(online.parameters(), lr=1e-2, alpha=0.95, eps=1e-5, momentum=0.5)
replay = ReplayMemory(100)
env = Corridor(n=5, max_steps=12)
global_step = 0
for episode in range(6):
    obs, _ = env.reset()
    state = torch.tensor(obs).unsqueeze(0)
    for t in count():
        epsilon = max(0.05, 0.5 - global_step / 80)
        if random.random() < epsilon:
            action = torch.tensor([[random.randrange(2)]])
        else:
            with torch.no_grad():
                action = online(state).argmax(dim=1, keepdim=True)
        obs, reward, terminated, truncated, _ = env.step(action.item())
        next_state = None if terminated else torch.tensor(obs).unsqueeze(0)
        replay.push(state, action, next_state, torch.tensor([reward]))
        state = next_state
        global_step += 1
        if len(replay) >= 8:
            batch = Transition(*zip(*replay.sample(8)))
            mask = torch.tensor(tuple(map(lambda s: s is not None, batch.next_state)), dtype=torch.bool)
            nexts = torch.cat([s for s in batch.next_state if s is not None])
            q_sa = online(torch.cat(batch.state)).gather(1, torch.cat(batch.action)).squeeze(1)
            with torch.no_grad():
                next_actions = online(nexts).argmax(1, keepdim=True)
                next_q = torch.zeros(8)
                next_q[mask] = target(nexts).gather(1, next_actions).squeeze(1)
            td_target = torch.cat(batch.reward) + 0.9 * next_q
            loss = F.smooth_l1_loss(q_sa, td_target, beta=0.5)
            rms.zero_grad()
            loss.backward()
            nn.utils.clip_grad_value_(online.parameters(), clip_value=0.05)
            rms.step()
        if global_step % 8 == 0:
            target.load_state_dict(online.state_dict())
        if terminated or truncated:
            break
    print(f"double dqn episode {episode} length {t + 1:2d} loss {loss.item():.3f}")
print("max |grad| after clip_grad_value_", max(p.grad.abs().max().item() for p in online.parameters()))
print("rmsprop state", sorted(rms.state[online.layer3.bias]), rms.state[online.layer3.bias]["step"])
with torch.no_grad():
    print("double dqn greedy", online(torch.eye(5)).argmax(1).tolist())


# ====================================================================== PPO (CleanRL style)

def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, envs):
        super().__init__()
        obs_dim = int(np.array(envs.single_observation_shape).prod())
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 32)),
            nn.Tanh(),
            layer_init(nn.Linear(32, 32)),
            nn.Tanh(),
            layer_init(nn.Linear(32, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 32)),
            nn.Tanh(),
            layer_init(nn.Linear(32, 32)),
            nn.Tanh(),
            layer_init(nn.Linear(32, envs.n_actions), std=0.01),
        )

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        logits = self.actor(x)
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


class Args:
    seed = 1
    learning_rate = 2.5e-3
    num_envs = 4
    num_steps = 16
    anneal_lr = True
    gamma = 0.99
    gae_lambda = 0.95
    num_minibatches = 4
    update_epochs = 3
    norm_adv = True
    clip_coef = 0.2
    clip_vloss = True
    ent_coef = 0.01
    vf_coef = 0.5
    max_grad_norm = 0.5
    target_kl = None
    total_timesteps = 320


args = Args()
args.batch_size = int(args.num_envs * args.num_steps)
args.minibatch_size = int(args.batch_size // args.num_minibatches)
args.num_iterations = args.total_timesteps // args.batch_size
print("batch_size", args.batch_size, "minibatch_size", args.minibatch_size, "num_iterations", args.num_iterations)

random.seed(args.seed)
np.random.seed(args.seed)
torch.manual_seed(args.seed)
torch.backends.cudnn.deterministic = True

envs = VecCorridor(args.num_envs)
agent = Agent(envs).to(device)
optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
print(agent.actor)
w = agent.actor[0].weight
print("orthonormal columns", (w.T @ w).diagonal().round(decimals=4), "bias", agent.actor[0].bias.abs().sum())
print("head std", agent.actor[4].weight.std().item() < 0.05, agent.critic[4].weight.norm().item())
print("actor head", agent.actor[4].weight.round(decimals=4)[:, :6])

# ALGO Logic: Storage setup
obs = torch.zeros((args.num_steps, args.num_envs) + envs.single_observation_shape).to(device)
actions = torch.zeros((args.num_steps, args.num_envs) + envs.single_action_shape).to(device)
logprobs = torch.zeros((args.num_steps, args.num_envs)).to(device)
rewards = torch.zeros((args.num_steps, args.num_envs)).to(device)
dones = torch.zeros((args.num_steps, args.num_envs)).to(device)
values = torch.zeros((args.num_steps, args.num_envs)).to(device)

global_step = 0
next_obs, _ = envs.reset()
next_obs = torch.Tensor(next_obs).to(device)
next_done = torch.zeros(args.num_envs).to(device)
episode_returns = torch.zeros(args.num_envs)
finished = []

for iteration in range(1, args.num_iterations + 1):
    # Annealing the rate if instructed to do so.
    if args.anneal_lr:
        frac = 1.0 - (iteration - 1.0) / args.num_iterations
        lrnow = frac * args.learning_rate
        optimizer.param_groups[0]["lr"] = lrnow

    for step in range(0, args.num_steps):
        global_step += args.num_envs
        obs[step] = next_obs
        dones[step] = next_done

        # ALGO LOGIC: action logic
        with torch.no_grad():
            action, logprob, _, value = agent.get_action_and_value(next_obs)
            values[step] = value.flatten()
        actions[step] = action
        logprobs[step] = logprob

        next_obs, reward, terminations, truncations, infos = envs.step(action)
        next_done = torch.logical_or(terminations, truncations)
        rewards[step] = torch.as_tensor(reward).to(device).view(-1)
        next_obs, next_done = torch.Tensor(next_obs).to(device), torch.Tensor(next_done.float()).to(device)
        episode_returns += reward
        for i in torch.nonzero(next_done).flatten().tolist():
            finished.append(round(episode_returns[i].item(), 2))
            episode_returns[i] = 0.0

    # bootstrap value if not done
    with torch.no_grad():
        next_value = agent.get_value(next_obs).reshape(1, -1)
        advantages = torch.zeros_like(rewards).to(device)
        lastgaelam = 0
        for t in reversed(range(args.num_steps)):
            if t == args.num_steps - 1:
                nextnonterminal = 1.0 - next_done
                nextvalues = next_value
            else:
                nextnonterminal = 1.0 - dones[t + 1]
                nextvalues = values[t + 1]
            delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
            advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
        returns = advantages + values

    # flatten the batch
    b_obs = obs.reshape((-1,) + envs.single_observation_shape)
    b_logprobs = logprobs.reshape(-1)
    b_actions = actions.reshape((-1,) + envs.single_action_shape)
    b_advantages = advantages.reshape(-1)
    b_returns = returns.reshape(-1)
    b_values = values.reshape(-1)

    # Optimizing the policy and value network
    b_inds = torch.arange(args.batch_size)
    clipfracs = []
    for epoch in range(args.update_epochs):
        b_inds = b_inds[torch.randperm(args.batch_size)]
        for start in range(0, args.batch_size, args.minibatch_size):
            end = start + args.minibatch_size
            mb_inds = b_inds[start:end]

            _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb_inds], b_actions.long()[mb_inds])
            logratio = newlogprob - b_logprobs[mb_inds]
            ratio = logratio.exp()

            with torch.no_grad():
                # calculate approx_kl http://joschu.net/blog/kl-approx.html
                old_approx_kl = (-logratio).mean()
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs += [((ratio - 1.0).abs() > args.clip_coef).float().mean().item()]

            mb_advantages = b_advantages[mb_inds]
            if args.norm_adv:
                mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)

            # Policy loss
            pg_loss1 = -mb_advantages * ratio
            pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
            pg_loss = torch.max(pg_loss1, pg_loss2).mean()

            # Value loss
            newvalue = newvalue.view(-1)
            if args.clip_vloss:
                v_loss_unclipped = (newvalue - b_returns[mb_inds]) ** 2
                v_clipped = b_values[mb_inds] + torch.clamp(
                    newvalue - b_values[mb_inds],
                    -args.clip_coef,
                    args.clip_coef,
                )
                v_loss_clipped = (v_clipped - b_returns[mb_inds]) ** 2
                v_loss_max = torch.max(v_loss_unclipped, v_loss_clipped)
                v_loss = 0.5 * v_loss_max.mean()
            else:
                v_loss = 0.5 * ((newvalue - b_returns[mb_inds]) ** 2).mean()

            entropy_loss = entropy.mean()
            loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef

            optimizer.zero_grad()
            loss.backward()
            grad_norm = nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()

        if args.target_kl is not None and approx_kl > args.target_kl:
            break

    y_pred, y_true = b_values.cpu().numpy(), b_returns.cpu().numpy()
    var_y = np.var(y_true)
    explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
    print(f"iter {iteration} step {global_step} lr {optimizer.param_groups[0]['lr']:.5f} "
          f"v_loss {v_loss.item():.4f} pg_loss {pg_loss.item():.4f} entropy {entropy_loss.item():.4f} "
          f"old_kl {old_approx_kl.item():.4f} kl {approx_kl.item():.4f} clipfrac {np.mean(clipfracs):.3f} "
          f"explained_var {explained_var:.3f} grad_norm {grad_norm.item():.3f}")
print("episodic returns", finished[:8], len(finished))
print("advantages[:3]", advantages[:3].round(decimals=3))
print("returns dtype", returns.dtype, returns.shape, "b_actions", b_actions.dtype, b_actions.long()[:6].tolist())
with torch.no_grad():
    probs = Categorical(logits=agent.actor(torch.eye(6)))
print("pi(right | s)", probs.probs[:, 1].round(decimals=2))
print("entropy", probs.entropy().round(decimals=3))
print("V(s)", agent.get_value(torch.eye(6)).squeeze(1).round(decimals=2))
print("adam state", sorted(optimizer.state[agent.actor[0].weight]), optimizer.state[agent.actor[0].weight]["step"],
      optimizer.param_groups[0]["eps"], optimizer.param_groups[0]["lr"])


# ---- invalid-action masking (CleanRL's CategoricalMasked) and the KL between two policies
class CategoricalMasked(Categorical):
    def __init__(self, probs=None, logits=None, validate_args=None, masks=None):
        self.masks = masks
        if masks is None:
            super(CategoricalMasked, self).__init__(probs, logits, validate_args)
        else:
            self.masks = masks.type(torch.BoolTensor).to(device)
            logits = torch.where(self.masks, logits, torch.tensor(-1e8).to(device))
            super(CategoricalMasked, self).__init__(probs, logits, validate_args)

    def entropy(self):
        if self.masks is None:
            return super(CategoricalMasked, self).entropy()
        p_log_p = self.logits * self.probs
        p_log_p = torch.where(self.masks, p_log_p, torch.tensor(0.0).to(device))
        return -p_log_p.sum(-1)


invalid_action_masks = torch.ones(6, 2)
invalid_action_masks[0, 0] = 0  # no walking left out of the first cell
invalid_action_masks[5, 1] = 0
logits = agent.actor(torch.eye(6)).detach().requires_grad_()
masked = CategoricalMasked(logits=logits, masks=invalid_action_masks)
masked_actions = masked.sample((3,))
print("masked samples", masked_actions[:, [0, 5]].tolist(), masked.probs[[0, 5]].round(decimals=3).tolist())
print("masked entropy", masked.entropy().round(decimals=3))
(masked.log_prob(torch.ones(6, dtype=torch.long)).sum() + masked.entropy().sum()).backward()
print("masked grad", logits.grad[[0, 1, 5]].round(decimals=4))
old_policy = Categorical(logits=b_logprobs[:3].unsqueeze(1).expand(3, 2) * torch.tensor([1.0, 0.5]))
new_policy = Categorical(logits=agent.actor(b_obs[:3]))
print("kl(old || new)", torch.distributions.kl_divergence(old_policy, new_policy).round(decimals=4))


# ====================================================================== continuous PPO (Normal policy)

class ContinuousAgent(nn.Module):
    def __init__(self, envs):
        super().__init__()
        obs_dim = int(np.array(envs.single_observation_shape).prod())
        act_dim = int(np.prod(envs.single_action_shape))
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 32)),
            nn.Tanh(),
            layer_init(nn.Linear(32, 1), std=1.0),
        )
        self.actor_mean = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 32)),
            nn.Tanh(),
            layer_init(nn.Linear(32, act_dim), std=0.01),
        )
        self.actor_logstd = nn.Parameter(torch.zeros(1, act_dim))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        action_mean = self.actor_mean(x)
        action_logstd = self.actor_logstd.expand_as(action_mean)
        action_std = torch.exp(action_logstd)
        probs = Normal(action_mean, action_std)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action).sum(1), probs.entropy().sum(1), self.critic(x)


torch.manual_seed(2)
cenvs = VecReacher(num_envs=4)
cagent = ContinuousAgent(cenvs)
coptimizer = torch.optim.RMSprop(cagent.parameters(), lr=3e-3, alpha=0.99, eps=1e-5)
num_steps, num_envs, epochs, n_mb = 10, 4, 2, 2
batch_size = num_steps * num_envs
c_obs = torch.zeros((num_steps, num_envs) + cenvs.single_observation_shape)
c_actions = torch.zeros((num_steps, num_envs) + cenvs.single_action_shape)
c_logprobs, c_rewards, c_dones, c_values = (torch.zeros((num_steps, num_envs)) for _ in range(4))
next_obs, _ = cenvs.reset()
next_done = torch.zeros(num_envs)
for iteration in range(1, 5):
    coptimizer.param_groups[0]["lr"] = (1.0 - (iteration - 1.0) / 4) * 3e-3
    for step in range(num_steps):
        c_obs[step] = next_obs
        c_dones[step] = next_done
        with torch.no_grad():
            action, logprob, _, value = cagent.get_action_and_value(next_obs)
            c_values[step] = value.flatten()
        c_actions[step] = action
        c_logprobs[step] = logprob
        next_obs, reward, terminations, truncations, _ = cenvs.step(action)
        c_rewards[step] = reward.view(-1)
        next_done = (terminations | truncations).float()
    with torch.no_grad():
        next_value = cagent.get_value(next_obs).reshape(1, -1)
        advantages = torch.zeros_like(c_rewards)
        lastgaelam = 0
        for t in reversed(range(num_steps)):
            nextnonterminal = 1.0 - (next_done if t == num_steps - 1 else c_dones[t + 1])
            nextvalues = next_value if t == num_steps - 1 else c_values[t + 1]
            delta = c_rewards[t] + 0.99 * nextvalues * nextnonterminal - c_values[t]
            advantages[t] = lastgaelam = delta + 0.99 * 0.95 * nextnonterminal * lastgaelam
        returns = advantages + c_values
    b_obs, b_actions = c_obs.reshape(-1, 2), c_actions.reshape(-1, 1)
    b_logprobs, b_advantages = c_logprobs.reshape(-1), advantages.reshape(-1)
    b_returns, b_values = returns.reshape(-1), c_values.reshape(-1)
    for epoch in range(epochs):
        b_inds = torch.randperm(batch_size)
        for mb_inds in b_inds.split(batch_size // n_mb):
            _, newlogprob, entropy, newvalue = cagent.get_action_and_value(b_obs[mb_inds], b_actions[mb_inds])
            logratio = newlogprob - b_logprobs[mb_inds]
            ratio = logratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - logratio).mean()
            mb_adv = b_advantages[mb_inds]
            mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = torch.max(-mb_adv * ratio, -mb_adv * torch.clamp(ratio, 0.8, 1.2)).mean()
            v_loss = 0.5 * ((newvalue.view(-1) - b_returns[mb_inds]) ** 2).mean()
            loss = pg_loss - 0.0 * entropy.mean() + 0.5 * v_loss
            coptimizer.zero_grad()
            loss.backward()
            total_norm = nn.utils.clip_grad_norm_(cagent.parameters(), 0.5)
            coptimizer.step()
    print(f"continuous iter {iteration} reward {c_rewards.sum(0).mean().item():.3f} v_loss {v_loss.item():.4f} "
          f"pg_loss {pg_loss.item():.3f} kl {approx_kl.item():.4f} norm {total_norm.item():.3f} "
          f"logstd {cagent.actor_logstd.item():.4f}")

with torch.no_grad():
    test_obs = torch.tensor([[0.0, -0.8], [0.0, 0.8], [0.5, 0.5]])
    dist = Normal(cagent.actor_mean(test_obs), torch.exp(cagent.actor_logstd.expand(3, 1)))
    a = dist.sample()
print("mean", dist.mean.squeeze(1).round(decimals=3), "std", dist.stddev.squeeze(1).round(decimals=3))
print("sample", a.shape, "log_prob", dist.log_prob(a).sum(1).shape, "entropy", dist.entropy().sum(1).round(decimals=3))
print("rsample grad", cagent.actor_logstd.grad is not None, dist.batch_shape, dist.event_shape)
print("rmsprop", sorted(coptimizer.state[cagent.actor_logstd]), coptimizer.state[cagent.actor_logstd]["step"])

# ====================================================================== the helpers, directly

torch.manual_seed(3)
lin = nn.Linear(3, 5)
nn.init.orthogonal_(lin.weight, gain=np.sqrt(2))
gram = lin.weight.T @ lin.weight
print("orthogonal 5x3", gram.diagonal().round(decimals=4), torch.allclose(gram, 2 * torch.eye(3), atol=1e-5))
wide = torch.empty(2, 6)
nn.init.orthogonal_(wide)
print("orthogonal 2x6", wide.round(decimals=4))
conv_w = torch.empty(4, 2, 3, 3)
nn.init.orthogonal_(conv_w, gain=nn.init.calculate_gain("relu"))
print("orthogonal conv", conv_w.flatten(1).norm(dim=1).round(decimals=4), conv_w[0, 0])
print("constant_", nn.init.constant_(torch.empty(3), 0.1), nn.init.calculate_gain("tanh"))
try:
    nn.init.orthogonal_(torch.empty(3))
except Exception as e:
    print(type(e).__name__, e)

params = [nn.Parameter(torch.tensor([3.0, -4.0])), nn.Parameter(torch.tensor([[1.0, 2.0], [-2.0, 0.5]]))]
params[0].grad = torch.tensor([3.0, -4.0])
params[1].grad = torch.tensor([[1.0, 2.0], [-2.0, 0.5]])
print("clip_grad_norm_", nn.utils.clip_grad_norm_(params, max_norm=1.0), params[0].grad, params[1].grad)
print("inf norm", nn.utils.clip_grad_norm_(params, max_norm=0.1, norm_type="inf"), params[0].grad)
nn.utils.clip_grad_value_(params, clip_value=0.02)
print("clip_grad_value_", params[1].grad)
params[0].grad = torch.tensor([float("nan"), 1.0])
try:
    nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
except Exception as e:
    print(type(e).__name__, e)

logits = torch.tensor([[1.0, 2.0, 0.5], [0.0, 0.0, 0.0]], requires_grad=True)
d = Categorical(logits=logits)
acts = d.sample((3,))
print("categorical", d.logits.round(decimals=4), acts, d.log_prob(acts).round(decimals=4))
(-d.log_prob(torch.tensor([2, 0])).sum() - 0.1 * d.entropy().sum()).backward()
print("grad logits", logits.grad.round(decimals=4))
try:
    Categorical(logits=torch.zeros(2, 3)).log_prob(torch.tensor([0, 3]))
except Exception as e:
    print(type(e).__name__, e)
try:
    Normal(torch.zeros(2), torch.tensor([1.0, -1.0]))
except Exception as e:
    print(type(e).__name__, e)
mean = torch.zeros(2, 3, requires_grad=True)
logstd = nn.Parameter(torch.full((1, 3), -0.5))
n = Normal(mean, torch.exp(logstd.expand_as(mean)))
act = n.rsample()
lp = n.log_prob(act.detach()).sum(1)
(lp.sum() + n.entropy().sum()).backward()
print("normal", act.round(decimals=4), lp.round(decimals=4), logstd.grad, mean.grad.round(decimals=4))
