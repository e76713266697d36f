"""(being written) random generators."""
import numpy as np


class Generator:
    def __init__(self, device="cpu"):
        self._rng = np.random.default_rng(0)

    def manual_seed(self, seed):
        self._rng = np.random.default_rng(seed)
        return self


default_generator = Generator()


def manual_seed(seed):
    default_generator.manual_seed(seed)
    return default_generator


def seed():
    return 0


def initial_seed():
    return 0


def get_rng_state():
    return None


def set_rng_state(state):
    pass
