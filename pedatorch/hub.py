"""``torch.hub``: models and weights published by a repository or at a URL.

- ``load_state_dict_from_url(url)`` downloads a checkpoint once into ``get_dir()/checkpoints`` and loads it
  with ``pedatorch.load`` (a hash in the file name, ``name-<sha256 prefix>.pth``, is checked with
  ``check_hash=True``);
- ``load(repo_or_dir, model, *args, **kwargs)`` imports the repository's ``hubconf.py`` and calls its entry
  point ``model``: ``source='local'`` takes a directory, ``source='github'`` downloads ``owner/repo[:ref]``
  into ``get_dir()`` first; ``list`` and ``help`` name the entry points and show their docstrings.

The cache directory is PyTorch's: ``$TORCH_HOME/hub``, else ``$XDG_CACHE_HOME/torch/hub``, else
``~/.cache/torch/hub`` (``set_dir`` changes it).
"""
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.request
import zipfile

from .serialization import load as _load

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

_hub_dir = None
_HASH = re.compile(r"-([a-f0-9]*)\.")   # the sha256 prefix in "resnet18-f37072fd.pth"


def get_dir():
    """Where hub keeps downloaded repositories and checkpoints."""
    if _hub_dir is not None:
        return _hub_dir
    cache = os.getenv("XDG_CACHE_HOME", os.path.join("~", ".cache"))
    return os.path.join(os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(cache, "torch"))), "hub")


def set_dir(d):
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Download ``url`` to the file ``dst`` (through a temporary file beside it, so a failed download leaves
    nothing behind), checking that its sha256 starts with ``hash_prefix`` when one is given."""
    dst = os.path.expanduser(dst)
    folder = os.path.dirname(os.path.abspath(dst))
    os.makedirs(folder, exist_ok=True)
    digest = hashlib.sha256()
    tmp = tempfile.NamedTemporaryFile(delete=False, dir=folder)
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "torch.hub"})) as r:
            while True:
                chunk = r.read(1 << 16)
                if not chunk:
                    break
                tmp.write(chunk)
                digest.update(chunk)
        tmp.close()
        if hash_prefix is not None and not digest.hexdigest().startswith(hash_prefix):
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest.hexdigest()}")')
        shutil.move(tmp.name, dst)
    finally:
        tmp.close()
        if os.path.exists(tmp.name):
            os.remove(tmp.name)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=False):
    """The object saved at ``url`` (a state dict, usually), downloaded once into ``model_dir`` (by default
    ``get_dir()/checkpoints``) and loaded from there."""
    model_dir = os.path.join(get_dir(), "checkpoints") if model_dir is None else model_dir
    os.makedirs(model_dir, exist_ok=True)
    name = file_name or os.path.basename(urllib.request.urlparse(url).path)
    cached = os.path.join(model_dir, name)
    if not os.path.exists(cached):
        if progress:
            sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        match = _HASH.search(name) if check_hash else None
        download_url_to_file(url, cached, match.group(1) if match else None, progress=progress)
    return _load(cached, map_location=map_location, weights_only=weights_only)


# ---------------------------------------------------------------- repositories with a hubconf.py
def _repo_dir(repo_or_dir, source, force_reload, verbose):
    """The directory holding the repository's hubconf.py (downloaded first for ``source='github'``)."""
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "local":
        return repo_or_dir
    repo, _, ref = repo_or_dir.partition(":")
    if "/" not in repo:
        raise ValueError(f"Invalid input: {repo_or_dir} should be in the form of repo_owner/repo_name[:ref]")
    owner, name = repo.split("/", 1)
    ref = ref or "main"
    folder = os.path.join(get_dir(), f"{owner}_{name}_{ref.replace('/', '_')}")
    if force_reload or not os.path.isdir(folder):
        archive = os.path.join(get_dir(), ref.replace("/", "_") + ".zip")
        url = f"https://github.com/{owner}/{name}/zipball/{ref}"
        if verbose:
            sys.stderr.write(f'Downloading: "{url}" to {archive}\n')
        download_url_to_file(url, archive, progress=False)
        with zipfile.ZipFile(archive) as z:
            top = z.namelist()[0].split("/")[0]
            z.extractall(get_dir())
        os.remove(archive)
        shutil.rmtree(folder, ignore_errors=True)
        shutil.move(os.path.join(get_dir(), top), folder)
    elif verbose:
        sys.stderr.write(f"Using cache found in {folder}\n")
    return folder


def _hubconf(folder):
    """The repository's hubconf.py as a module (its folder importable while it loads, as PyTorch does)."""
    path = os.path.join(folder, "hubconf.py")
    if not os.path.isfile(path):
        raise FileNotFoundError(2, "No such file or directory", path)
    sys.path.insert(0, folder)
    try:
        spec = importlib.util.spec_from_file_location("hubconf", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(folder)
    missing = [d for d in getattr(module, "dependencies", []) if importlib.util.find_spec(d) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    return module


def _entry(module, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    fn = getattr(module, model, None)
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn


def list(github, force_reload=False, skip_validation=False, trust_repo=None, verbose=True):
    """The entry points of a repository's hubconf.py."""
    module = _hubconf(_repo_dir(github, "github", force_reload, verbose))
    return [name for name in dir(module) if callable(getattr(module, name)) and not name.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo=None):
    """The docstring of entry point ``model``."""
    return _entry(_hubconf(_repo_dir(github, "github", force_reload, True)), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo=None, force_reload=False, verbose=True,
         skip_validation=False, **kwargs):
    """``model(*args, **kwargs)``, the entry point of the repository's hubconf.py."""
    folder = _repo_dir(repo_or_dir, source.lower() if isinstance(source, str) else source, force_reload, verbose)
    return _entry(_hubconf(folder), model)(*args, **kwargs)

