"""``pedatorch.hub``: a local repository's hubconf.py, checkpoints from a URL (a file:// one: no network in
tests), the cache directory -- compared with PyTorch where it is installed."""
import os
import pathlib

import pytest

import pedatorch as pt

from conftest import error_of

HUBCONF = '''
dependencies = ["numpy"]
import torch


def tiny(pretrained=False, width=3):
    """A tiny linear model."""
    torch.manual_seed(0)
    return torch.nn.Linear(2, width)
'''


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "hubconf.py").write_text(HUBCONF.replace("import torch", "import pedatorch as torch"))
    return tmp_path / "repo"


def test_load_from_a_local_repository(repo, torch):
    m = pt.hub.load(str(repo), "tiny", source="local", width=4)
    torch.manual_seed(0)
    ref = torch.nn.Linear(2, 4)
    assert m.weight.shape == (4, 2) and m.weight.sum().item() == pytest.approx(ref.weight.sum().item(), abs=1e-6)
    assert error_of(lambda: pt.hub.load(str(repo), "nope", source="local")) == (
        "RuntimeError", "Cannot find callable nope in hubconf")
    assert error_of(lambda: pt.hub.load(str(repo), "tiny", source="bad"))[0] == "ValueError"
    assert error_of(lambda: pt.hub.load(str(repo.parent), "tiny", source="local")) == (
        "FileNotFoundError", f"[Errno 2] No such file or directory: '{repo.parent / 'hubconf.py'}'")


def test_checkpoints_download_once_into_the_hub_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(pt.hub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    assert pt.hub.get_dir() == str(tmp_path / "home" / "hub")
    src = tmp_path / "weights-0123.pth"
    pt.save({"w": pt.arange(3.0)}, src)
    url = pathlib.Path(src).as_uri()
    sd = pt.hub.load_state_dict_from_url(url, progress=False)
    assert pt.equal(sd["w"], pt.arange(3.0))
    assert os.path.exists(tmp_path / "home" / "hub" / "checkpoints" / "weights-0123.pth")
    # a wrong hash prefix in the name is caught with check_hash, and nothing is left behind
    err = error_of(lambda: pt.hub.load_state_dict_from_url(url, model_dir=str(tmp_path / "m"), check_hash=True))
    assert err[0] == "RuntimeError" and "invalid hash value" in err[1]
    assert not os.listdir(tmp_path / "m")
    pt.hub.set_dir(tmp_path / "elsewhere")
    assert pt.hub.get_dir() == str(tmp_path / "elsewhere")
