"""The sandbox a student's notebook runs in: one process per submission, with limits and no way out.

``launch()`` (grader side) starts ``python -I sandbox.py ...``. Run as a script, this file first becomes a small
*supervisor* and forks the *student process*, which locks itself in before any student code runs:

- resource limits: CPU seconds, address space (memory), processes, file size, open files, no core dumps;
- a network namespace of its own (no interfaces but a dead loopback), where the OS allows one;
- as root: a PID namespace of its own (it sees and signals no process outside; when it ends, the kernel ends
  everything inside), a pids cgroup (root ignores the process limit), then the privileges of ``nobody``
  where the Python installation is readable by all;
- Landlock (Linux 5.13+): read access only to the Python installation, its site-packages and pedatorch,
  read-write access only to its own temporary directory, no TCP, no signals to processes outside.

The supervisor is a "child subreaper": anything the student's code starts, even a daemon that double-forks
away, is re-parented to it, and it kills all of them when the student process ends (the grader kills the
session and the cgroup again, in case the supervisor itself was killed). It uses only the standard library, so
that it runs (and locks in) before numpy or pedatorch start threads. docs/grading.md lists what holds where.
"""
import ctypes
import os
import signal
import subprocess
import sys
import sysconfig

LIMITS = dict(cpu_seconds=60, memory_mb=3072, processes=64, file_mb=16, open_files=256)
CPU_LIMIT_EXIT = 124   # the supervisor's exit code when the student process used up its CPU time (timeout's)

# --------------------------------------------------------------------------- grader side


def launch(workdir, limits, env_extra=None):
    """Start a sandboxed student process in ``workdir``; returns (Popen, to_child file, from_child file)."""
    r_req, w_req = os.pipe()     # grader -> student
    r_res, w_res = os.pipe()     # student -> grader
    env = {"PATH": "/usr/bin:/bin", "HOME": workdir, "TMPDIR": workdir, "MPLCONFIGDIR": workdir,
           "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg", "LANG": "C.UTF-8"}
    env.update(env_extra or {})
    import json
    cmd = [sys.executable, "-I", os.path.abspath(__file__), str(r_req), str(w_res), json.dumps(dict(limits))]
    proc = subprocess.Popen(cmd, cwd=workdir, env=env, pass_fds=(r_req, w_res), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    os.close(r_req)
    os.close(w_res)
    return proc, os.fdopen(w_req, "wb"), os.fdopen(r_res, "rb")


def stop(proc, timeout=5):
    """End a student process and everything it started (the supervisor kills its subtree on SIGTERM)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            pass
    try:   # and whatever is left in its session
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    _remove_cgroup(proc.pid)   # and in its cgroup (where there is one), even if the supervisor was killed
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        pass


# --------------------------------------------------------------------------- the supervisor

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 36, 38


def _children(pid):
    """Pids whose parent is ``pid`` (from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def _kill_descendants():
    """SIGKILL every process re-parented to this subreaper, until none is left."""
    me = os.getpid()
    for _ in range(100):
        kids = _children(me) if os.path.isdir("/proc") else []
        if not kids:
            break
        for pid in kids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in kids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def _prctl(option, value):
    """Linux's prctl; nothing elsewhere (macOS has none: the session kill in stop() is all there is)."""
    if sys.platform == "linux":
        _libc.prctl(option, value, 0, 0, 0)


def supervise(fd_in, fd_out, limits):
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    me = os.getpid()
    # as root, the student process is the first of a PID namespace of its own: it cannot see or signal any
    # process outside (``kill(-1, 9)`` included), and when it ends the kernel kills everything inside
    if sys.platform == "linux" and os.geteuid() == 0:
        _libc.unshare(CLONE_NEWPID)
    child = os.fork()
    if child == 0:
        try:
            lock_in(limits, me)
            import pedatorch.grading.worker as worker   # noqa: deliberately after the lock
            worker.serve(fd_in, fd_out)
        finally:
            os._exit(0)
    os.close(fd_in)
    os.close(fd_out)

    def end(signum, frame):
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass
    signal.signal(signal.SIGTERM, end)
    _, status, usage = os.wait4(child, 0)
    _kill_descendants()
    _remove_cgroup(os.getpid())
    if os.WIFSIGNALED(status) and usage.ru_utime + usage.ru_stime >= dict(LIMITS, **limits)["cpu_seconds"] - 0.5:
        os._exit(CPU_LIMIT_EXIT)   # killed for its CPU time: the grader reports a timeout, like the wall clock's
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


# --------------------------------------------------------------------------- locking in

def lock_in(limits, supervisor_pid):
    """Everything the student process does to itself before it runs student code. Returns what held."""
    import resource
    held = []
    lim = dict(LIMITS, **limits)
    mb = 2**20
    for res, value in ((resource.RLIMIT_CPU, lim["cpu_seconds"]), (resource.RLIMIT_AS, lim["memory_mb"] * mb),
                       (resource.RLIMIT_FSIZE, lim["file_mb"] * mb), (resource.RLIMIT_NOFILE, lim["open_files"]),
                       (resource.RLIMIT_CORE, 0)):
        try:
            resource.setrlimit(res, (value, value))
        except (ValueError, OSError):   # macOS refuses some (RLIMIT_AS): the others still hold
            pass
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a too-big write fails with an error instead of killing
    held.append("limits")
    if os.getpid() == 1:
        held.append("pids")
    if _unshare_network():
        held.append("network")
    if os.geteuid() == 0:
        # root ignores RLIMIT_NPROC: a pids cgroup limits the processes (joined while still root) ...
        if _pids_cgroup(lim["processes"], supervisor_pid):
            held.append("processes")
        # ... and then the process becomes nobody, who cannot signal, trace or read what is the grader's
        if _readable_by_all(sys.executable) and _readable_by_all(os.path.dirname(os.__file__)) and \
                _readable_by_all(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))):
            os.chown(os.getcwd(), 65534, 65534)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            held.append("nobody")
    if os.geteuid() != 0 and "processes" not in held:
        # the process limit counts all processes of the user: allow this many more than it already runs
        n = lim["processes"] + _count_processes(os.getuid())
        resource.setrlimit(resource.RLIMIT_NPROC, (n, n))
        held.append("processes")
    if _landlock(os.getcwd()):
        held.append("landlock")
    os.environ["PEDATORCH_SANDBOX"] = ",".join(held)
    return held


def _cgroup_dirs(supervisor_pid):
    """Where this process's pids cgroup would go: cgroup v2 (unified) or v1's pids hierarchy."""
    name = f"pedatorch-grade-{supervisor_pid}"
    return [os.path.join(root, name) for root in ("/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified", "/sys/fs/cgroup")
            if os.path.exists(os.path.join(root, "cgroup.procs"))]


def _pids_cgroup(limit, supervisor_pid):
    """Put this process into a new cgroup with at most ``limit`` processes (root only; False where impossible)."""
    for path in _cgroup_dirs(supervisor_pid):
        try:
            os.makedirs(path, exist_ok=True)
            with open(os.path.join(path, "pids.max"), "w") as f:
                f.write(str(limit))
            with open(os.path.join(path, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
            return True
        except OSError:
            try:
                os.rmdir(path)
            except OSError:
                pass
    return False


def _remove_cgroup(supervisor_pid):
    """Kill what is left in a submission's cgroup and remove it. The supervisor does it when the student process
    ends, and the grader again in ``stop()`` (the student's code may have killed the supervisor)."""
    name = f"pedatorch-grade-{supervisor_pid}"
    for root in ("/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified", "/sys/fs/cgroup"):
        path = os.path.join(root, name)
        for _ in range(50):   # a process forking while we kill: read the list again until it is empty
            if not os.path.isdir(path):
                break
            try:
                with open(os.path.join(path, "cgroup.procs")) as f:
                    pids = [int(pid) for pid in f.read().split()]
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                os.rmdir(path)   # fails (EBUSY) while a killed process has not exited yet
            except OSError:
                import time
                time.sleep(0.01)


def _readable_by_all(path):
    """Can any user reach ``path`` (every folder on the way searchable by others)?"""
    path = os.path.realpath(path)
    while True:
        try:
            if not os.stat(path).st_mode & 0o005:
                return False
        except OSError:
            return False
        parent = os.path.dirname(path)
        if parent == path:
            return True
        path = parent


def _count_processes(uid):
    n = 0
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        try:
            if entry.isdigit() and os.stat(f"/proc/{entry}").st_uid == uid:
                n += 1
        except OSError:
            pass
    return n


CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000


def _unshare_network():
    """A network namespace of our own (root can; others through a user namespace where allowed)."""
    flags = CLONE_NEWNET if os.geteuid() == 0 else CLONE_NEWUSER | CLONE_NEWNET
    if sys.platform != "linux":
        return False
    if os.geteuid() != 0:
        uid, gid = os.getuid(), os.getgid()
    ok = _libc.unshare(flags) == 0
    if ok and os.geteuid() != 0 and flags & CLONE_NEWUSER:
        try:   # keep our own uid inside the new user namespace
            with open("/proc/self/setgroups", "w") as f:
                f.write("deny")
            with open("/proc/self/uid_map", "w") as f:
                f.write(f"{uid} {uid} 1")
            with open("/proc/self/gid_map", "w") as f:
                f.write(f"{gid} {gid} 1")
        except OSError:
            pass
    return ok


# Landlock: the kernel's unprivileged sandbox. Constants from linux/landlock.h.
_SYS_CREATE, _SYS_ADD, _SYS_RESTRICT = 444, 445, 446   # x86-64 and arm64 share these numbers
_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_ALL_V1 = (1 << 13) - 1          # execute ... make_sym
_FS_REFER, _FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_FILE_ONLY = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1 << 0, 1 << 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _readable_roots():
    """What the student's code may read: the Python installation and its packages, pedatorch, system libraries."""
    import site
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable)),
             "/usr", "/lib", "/lib64", "/bin", "/etc", "/proc", "/sys/devices/system/cpu", "/opt/conda"}
    paths.update(p for p in sysconfig.get_paths().values())
    paths.update(site.getsitepackages())
    paths.add(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # the pedatorch package
    return sorted(p for p in paths if p and os.path.exists(p))


def _landlock(workdir):
    if sys.platform != "linux":
        return False
    abi = _libc.syscall(_SYS_CREATE, None, 0, 1)   # LANDLOCK_CREATE_RULESET_VERSION
    if abi < 1:
        return False
    fs = _FS_ALL_V1 | (_FS_REFER if abi >= 2 else 0) | (_FS_TRUNCATE if abi >= 3 else 0) | \
        (_FS_IOCTL_DEV if abi >= 5 else 0)
    attr = _RulesetAttr(fs, (_NET_BIND_TCP | _NET_CONNECT_TCP) if abi >= 4 else 0,
                        (_SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL) if abi >= 6 else 0)
    size = 8 if abi < 4 else (16 if abi < 6 else 24)
    ruleset = _libc.syscall(_SYS_CREATE, ctypes.byref(attr), size, 0)
    if ruleset < 0:
        return False
    read = _FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR
    rules = [(p, read) for p in _readable_roots()]
    rules += [("/dev/null", _FS_READ_FILE | _FS_WRITE_FILE), ("/dev/urandom", _FS_READ_FILE),
              (workdir, fs)]
    for path, access in rules:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue
        if not os.path.isdir(path):
            access &= _FILE_ONLY
        rule = _PathBeneath(access & fs, fd)
        _libc.syscall(_SYS_ADD, ruleset, 1, ctypes.byref(rule), 0)   # LANDLOCK_RULE_PATH_BENEATH
        os.close(fd)
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    ok = _libc.syscall(_SYS_RESTRICT, ruleset, 0) == 0
    os.close(ruleset)
    return ok


if __name__ == "__main__":   # python -I sandbox.py FD_IN FD_OUT LIMITS_JSON   (started by launch())
    import json
    supervise(int(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3]))
