"""The real-browser checks: run with `make test-browser` (PEDATORCH_BROWSER=1)."""


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: starts JupyterLab and a headless chromium (make test-browser)")
