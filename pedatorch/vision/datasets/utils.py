"""Files of the datasets: checking them (``check_integrity``), fetching them (``download_url``) and unpacking
them (``extract_archive``).

A download is one HTTP(S) GET with Python's urllib.  Where there is no network, or the server does not
answer, it fails with one line that says which file it wanted, why it could not have it, and where to put a
copy made elsewhere; nothing is retried in a loop and nothing half-written is left behind.
"""
import gzip
import hashlib
import os
import shutil
import tarfile
import urllib.error
import urllib.request
import zipfile

__all__ = ["DownloadError", "calculate_md5", "check_md5", "check_integrity", "download_url", "extract_archive",
           "download_and_extract_archive"]

_TIMEOUT = 30      # seconds without an answer before a download gives up


def calculate_md5(fpath, chunk_size=1024 * 1024):
    md5 = hashlib.md5(usedforsecurity=False)
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            md5.update(chunk)
    return md5.hexdigest()


def check_md5(fpath, md5, **kwargs):
    return md5 == calculate_md5(fpath, **kwargs)


def check_integrity(fpath, md5=None):
    """Does the file exist (and, when ``md5`` is given, have that checksum)?"""
    if not os.path.isfile(fpath):
        return False
    return md5 is None or check_md5(fpath, md5)


class DownloadError(RuntimeError):
    """A download that could not be made: ``url``, ``reason`` and the path ``fpath`` the file was meant for."""

    def __init__(self, url, reason, fpath):
        self.url, self.reason, self.fpath = url, reason, fpath
        super().__init__(f"Could not download {url} ({reason}); without network access, download it elsewhere and "
                         f"put it at {fpath}")


def download_url(url, root, filename=None, md5=None):
    """Download ``url`` to ``root/filename`` (default: the URL's last part) unless a good copy is there.
    RuntimeError, in one line, when it cannot."""
    root = os.path.expanduser(root)
    filename = filename or os.path.basename(url)
    fpath = os.path.join(root, filename)
    os.makedirs(root, exist_ok=True)
    if check_integrity(fpath, md5):
        return
    partial = fpath + ".partial"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "pedatorch"}),
                                    timeout=_TIMEOUT) as response, open(partial, "wb") as out:
            shutil.copyfileobj(response, out)
    except (urllib.error.URLError, OSError, ValueError) as e:
        if os.path.exists(partial):
            os.remove(partial)
        raise DownloadError(url, getattr(e, "reason", None) or e, fpath) from None
    os.replace(partial, fpath)
    if not check_integrity(fpath, md5):
        raise RuntimeError(f"The file downloaded from {url} to {fpath} does not have the expected MD5 checksum {md5}")


def extract_archive(from_path, to_path=None, remove_finished=False):
    """Unpack a .tar(.gz/.tgz/.bz2/.xz), .zip or single-file .gz archive into ``to_path`` (default: its folder);
    returns the folder (or, for a .gz file, the unpacked file)."""
    to_path = os.path.dirname(from_path) if to_path is None else to_path
    name = from_path.lower()
    if name.endswith((".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tar.xz", ".txz")):
        # the "data" filter refuses members that would land outside to_path (Pythons without it: plain extract)
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        with tarfile.open(from_path) as tar:
            tar.extractall(to_path, **safe)
        out = to_path
    elif name.endswith(".zip"):
        with zipfile.ZipFile(from_path) as z:
            z.extractall(to_path)
        out = to_path
    elif name.endswith(".gz"):
        out = os.path.join(to_path, os.path.basename(from_path)[:-3])
        with gzip.open(from_path, "rb") as src, open(out, "wb") as dst:
            shutil.copyfileobj(src, dst)
    else:
        raise RuntimeError(f"Couldn't detect the archive type of {from_path}: supported are .tar, .tar.gz, .tgz, "
                           ".tar.bz2, .tar.xz, .zip and .gz")
    if remove_finished:
        os.remove(from_path)
    return out


def download_and_extract_archive(url, download_root, extract_root=None, filename=None, md5=None,
                                 remove_finished=False):
    download_root = os.path.expanduser(download_root)
    extract_root = extract_root or download_root
    filename = filename or os.path.basename(url)
    download_url(url, download_root, filename, md5)
    return extract_archive(os.path.join(download_root, filename), extract_root, remove_finished)
