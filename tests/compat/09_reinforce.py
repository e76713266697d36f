# REINFORCE in the style of pytorch/examples' reinforcement_learning/reinforce.py, on a hand-written
# environment: a slippery corridor of 7 cells where the agent must walk right to the goal.  The policy
# samples from Categorical, keeps log_probs, computes discounted returns backwards, normalises them with
# a float32 eps and updates with Adam; a running reward decides when the task is solved.
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

gamma = 0.95
seed = 543
log_interval = 10


class Corridor:
    """States 0..6, start at 1; action 0 = left, 1 = right, 2 = stay.  With probability 0.1 the
    agent slips and stays.  Reaching cell 6 gives +1 and ends the episode; every step costs 0.02."""

    n_states, n_actions = 7, 3

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def reset(self):
        self.pos, self.t = 1, 0
        return self._obs()

    def _obs(self):
        obs = np.zeros(self.n_states, dtype=np.float32)
        obs[self.pos] = 1.0
        return obs

    def step(self, action):
        self.t += 1
        if self.rng.random() > 0.1:
            self.pos = min(max(self.pos + (-1, 1, 0)[action], 0), self.n_states - 1)
        done = self.pos == self.n_states - 1 or self.t >= 30
        reward = 1.0 if self.pos == self.n_states - 1 else -0.02
        return self._obs(), reward, done


env = Corridor(seed)
torch.manual_seed(seed)


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(7, 32)
        self.dropout = nn.Dropout(p=0.2)
        self.affine2 = nn.Linear(32, 3)
        self.saved_log_probs = []
        self.rewards = []
        self.entropies = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


policy = Policy()
optimizer = optim.Adam(policy.parameters(), lr=3e-2)
eps = np.finfo(np.float32).eps.item()
print(policy, eps)


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    policy.entropies.append(m.entropy())
    return action.item()


def finish_episode():
    R = 0
    policy_loss = []
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum() - 0.01 * torch.cat(policy.entropies).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    del policy.entropies[:]
    return policy_loss.item()


running_reward = -0.6
for i_episode in range(1, 61):
    state, ep_reward = env.reset(), 0
    for t in range(1, 100):
        action = select_action(state)
        state, reward, done = env.step(action)
        policy.rewards.append(reward)
        ep_reward += reward
        if done:
            break
    running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
    loss = finish_episode()
    if i_episode % log_interval == 0:
        print(f"Episode {i_episode}\tLast reward: {ep_reward:.2f}\tSteps: {t}\tAverage reward: "
              f"{running_reward:.2f}\tloss: {loss:.3f}")
    if running_reward > 0.7:
        print(f"Solved! Running reward is now {running_reward:.3f} and the last episode runs to {t} time steps!")
        break

policy.eval()
with torch.no_grad():
    probs = policy(torch.eye(7))
print(probs.round(decimals=3))
print("greedy actions", probs.argmax(1).tolist())
d = Categorical(logits=torch.log(probs[1:3]))
print(d.batch_shape, d.event_shape, d.sample((4,)), d.log_prob(torch.tensor([1, 1])).exp())
