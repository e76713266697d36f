"""Two-dimensional toy datasets for first lessons (the shapes of scikit-learn's make_moons / make_circles and
the classic spirals): each sample is (point: float32 tensor [2], label: int64 tensor []).

The points are made with pedatorch's own random numbers: from a generator seeded with ``seed``, or, with
``seed=None``, from the global generator (repeatable after ``pedatorch.manual_seed``).  They are shuffled, so
any prefix is a fair sample.  ``data`` (N, 2) and ``targets`` (N,) hold them all, e.g. for a scatter plot.
"""
import math

from ... import _dtype as D
from ..._random import Generator
from ...ops.creation import full, linspace
from ...ops.join import cat, stack
from ...ops.random import randn, randperm
from .vision import VisionDataset

__all__ = ["Moons", "Circles", "Spirals"]


class _PointDataset(VisionDataset):
    """Points and labels made by ``_make(n_samples, generator)`` as float64 (points, labels), then shuffled,
    noised with N(0, noise^2) per coordinate, and stored as float32 / int64."""

    def __init__(self, n_samples, noise, seed, transform, target_transform):
        super().__init__(None, transform=transform, target_transform=target_transform)
        if n_samples < 1:
            raise ValueError(f"n_samples should be positive, got {n_samples}")
        if noise < 0:
            raise ValueError(f"noise should be non-negative, got {noise}")
        self.n_samples, self.noise, self.seed = n_samples, noise, seed
        generator = None if seed is None else Generator().manual_seed(seed)
        points, labels = self._make(n_samples, generator)
        order = randperm(n_samples, generator=generator)
        points, labels = points[order], labels[order]
        points = points + noise * randn(n_samples, 2, dtype=D.float64, generator=generator)
        self.data = points.to(D.float32)
        self.targets = labels.long()

    def _make(self, n_samples, generator):
        raise NotImplementedError

    def __getitem__(self, index):
        return self._apply_transforms(self.data[index], self.targets[index])

    def __len__(self):
        return len(self.data)

    def extra_repr(self):
        return f"noise={self.noise}, seed={self.seed}"


def _labels(*counts):
    """counts[0] zeros, then counts[1] ones, ...: the label of each group of points."""
    return cat([full((n,), label, dtype=D.int64) for label, n in enumerate(counts)])


class Moons(_PointDataset):
    """Two interleaving half circles: label 0 the upper one (centre (0, 0)), label 1 the lower one (centre
    (1, 0.5)), as scikit-learn's make_moons."""

    def __init__(self, n_samples=1000, noise=0.1, seed=0, transform=None, target_transform=None):
        super().__init__(n_samples, noise, seed, transform, target_transform)

    def _make(self, n_samples, generator):
        n_out = n_samples // 2
        n_in = n_samples - n_out
        t_out = linspace(0, math.pi, n_out, dtype=D.float64)
        t_in = linspace(0, math.pi, n_in, dtype=D.float64)
        outer = stack((t_out.cos(), t_out.sin()), dim=1)
        inner = stack((1 - t_in.cos(), 1 - t_in.sin() - 0.5), dim=1)
        return cat((outer, inner)), _labels(n_out, n_in)


class Circles(_PointDataset):
    """A circle of radius 1 (label 0) around one of radius ``factor`` (label 1), as scikit-learn's make_circles."""

    def __init__(self, n_samples=1000, noise=0.05, factor=0.5, seed=0, transform=None, target_transform=None):
        if not 0 <= factor < 1:
            raise ValueError("'factor' has to be between 0 and 1.")
        self.factor = factor
        super().__init__(n_samples, noise, seed, transform, target_transform)

    def _make(self, n_samples, generator):
        n_out = n_samples // 2
        n_in = n_samples - n_out

        def ring(n, radius):
            t = linspace(0, 2 * math.pi, n + 1, dtype=D.float64)[:-1]      # n angles, 2 pi left out
            return stack((t.cos(), t.sin()), dim=1) * radius
        return cat((ring(n_out, 1.0), ring(n_in, self.factor))), _labels(n_out, n_in)

    def extra_repr(self):
        return f"factor={self.factor}, " + super().extra_repr()


class Spirals(_PointDataset):
    """``n_classes`` spiral arms from the centre outwards, one per label, each turning ``turns`` times
    (the spiral data of CS231n)."""

    def __init__(self, n_samples=1000, noise=0.05, n_classes=3, turns=0.75, seed=0, transform=None,
                 target_transform=None):
        if n_classes < 1:
            raise ValueError(f"n_classes should be positive, got {n_classes}")
        self.n_classes, self.turns = n_classes, turns
        super().__init__(n_samples, noise, seed, transform, target_transform)

    def _make(self, n_samples, generator):
        counts = [n_samples // self.n_classes + (1 if k < n_samples % self.n_classes else 0)
                  for k in range(self.n_classes)]
        arms = []
        for k, n in enumerate(counts):
            r = linspace(0.05, 1.0, n, dtype=D.float64)               # the radius grows along the arm,
            theta = 2 * math.pi * (k / self.n_classes + self.turns * r)   # and so does the angle
            arms.append(stack((r * theta.cos(), r * theta.sin()), dim=1))
        return cat(arms), _labels(*counts)

    def extra_repr(self):
        return f"n_classes={self.n_classes}, turns={self.turns}, " + super().extra_repr()
