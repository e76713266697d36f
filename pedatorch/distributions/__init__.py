"""``pedatorch.distributions``: probability distributions with sampling and log-probabilities (``torch.distributions``)."""
