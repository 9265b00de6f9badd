#!/usr/bin/env python3
"""Runs OCI image tarballs (the Jib builds in */target/*-image.tar) without a container engine, the
way a container runtime would: root only, Linux only. Used by the e2e test (ImagesE2EIT), which
turns rendered pod specs into container specs; usable by hand for a quick look at an image.

    build/run-image.py unpack TAR DIR
        unpacks the image's layers into DIR/rootfs and writes its config (Entrypoint, Cmd, Env,
        User, WorkingDir) to DIR/config.json.

    build/run-image.py container SPEC.json
        runs one container. Start it in fresh namespaces, e.g.
        `ip netns exec NS unshare --mount --uts --pid --fork --kill-child --propagation private
        python3 build/run-image.py container SPEC.json`: the mounts made here live in that mount
        namespace and vanish with it. SPEC.json holds:
          rootfs          the unpacked image (never written: an overlay on top of it is the root)
          bundle          a directory of this container's own (mount points, overlay upper dir)
          readOnlyRoot    true: the root is mounted read-only (readOnlyRootFilesystem)
          mounts          [{source, target, readOnly}] bind mounts (volumes, /etc/hosts, ...)
          hostname        the pod's host name (a UTS namespace is expected)
          uid, gid, groups, noNewPrivileges, dropAllCapabilities
          workingDir, env ["K=V"], argv (argv[0] looked up on the container's PATH in the root)

    build/run-image.py run TAR [-- ARGS]
        a quick look: unpacks TAR into a temporary directory and runs its entrypoint with ARGS in
        new mount/pid/uts namespaces, read-only root, a tmpfs at /tmp, as the image's user.
"""
import ctypes, json, os, shutil, socket, stat, subprocess, sys, tarfile, tempfile

PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_SET_PDEATHSIG = 1
SIGKILL = 9


def unpack(tar_path, out):
    rootfs = os.path.join(out, "rootfs")
    os.makedirs(rootfs)
    os.chmod(out, 0o755)
    os.chmod(rootfs, 0o755)  # the image's "/"
    with tarfile.open(tar_path) as t:
        index = json.load(t.extractfile("index.json"))
        manifest = blob(t, index["manifests"][0]["digest"])
        config = blob(t, manifest["config"]["digest"]).get("config", {})
        for layer in manifest["layers"]:
            name = "blobs/" + layer["digest"].replace(":", "/")
            with tarfile.open(fileobj=t.extractfile(name), mode="r:*") as lt:
                members = lt.getmembers()
                for m in members:
                    check_member(m, name)
                # Owners and modes as the layer says (a runtime keeps them): numeric, as root.
                lt.extractall(rootfs, members=members, numeric_owner=True, **trusted())
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)


def check_member(m, layer):
    parts = m.name.split("/")
    if m.name.startswith("/") or ".." in parts:
        sys.exit("run-image: %s: entry %r leaves the root file system" % (layer, m.name))
    if any(p.startswith(".wh.") for p in parts):
        # Whiteouts delete files of lower layers; Jib's images on scratch have none.
        sys.exit("run-image: %s: whiteout %r is not supported" % (layer, m.name))
    if m.isdev():
        sys.exit("run-image: %s: device node %r in an image" % (layer, m.name))


def trusted():
    # Python 3.12+ warns without a filter; these are our own images, owners and modes matter.
    return {"filter": "fully_trusted"} if hasattr(tarfile, "fully_trusted_filter") else {}


def blob(t, digest):
    return json.load(t.extractfile("blobs/" + digest.replace(":", "/")))


def sh(*cmd):
    r = subprocess.run(list(cmd), capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("run-image: %s: %s" % (" ".join(cmd), (r.stderr or r.stdout).strip()))


def stub(stubs, rootfs, target, is_dir):
    """Creates the mount point `target` in the stubs layer; each parent the image already has keeps
    the image's owner and mode (the upper overlay layer decides what the merged directory shows)."""
    parts = [p for p in target.split("/") if p]
    for i in range(1, len(parts) + 1):
        rel = "/".join(parts[:i])
        s, img = os.path.join(stubs, rel), os.path.join(rootfs, rel)
        last = i == len(parts)
        if os.path.lexists(img) and not os.path.isdir(img) and not last:
            sys.exit("run-image: mount point %s: %s is not a directory in the image" % (target, rel))
        if os.path.lexists(img) and (not last or os.path.isdir(img) == is_dir):
            if not last and not os.path.isdir(s):
                st = os.stat(img)
                os.mkdir(s)
                os.chown(s, st.st_uid, st.st_gid)
                os.chmod(s, stat.S_IMODE(st.st_mode))
            continue  # the image has it: no stub over it (it would hide the image's mode)
        if last and not is_dir:
            open(s, "a").close()
        elif not os.path.isdir(s):
            os.mkdir(s, 0o755)


def container(spec_path):
    with open(spec_path) as f:
        spec = json.load(f)
    rootfs, bundle = spec["rootfs"], spec["bundle"]
    stubs, root = os.path.join(bundle, "stubs"), os.path.join(bundle, "root")
    for d in (stubs, root):
        os.makedirs(d, exist_ok=True)
    mounts = spec.get("mounts", [])
    for target in ("/proc", "/dev", "/sys"):
        stub(stubs, rootfs, target, True)
    for m in mounts:
        stub(stubs, rootfs, m["target"], os.path.isdir(m["source"]))
    opts = "lowerdir=%s:%s" % (stubs, rootfs)
    if not spec.get("readOnlyRoot"):
        upper, work = os.path.join(bundle, "upper"), os.path.join(bundle, "work")
        os.makedirs(upper, exist_ok=True)
        os.makedirs(work, exist_ok=True)
        opts += ",upperdir=%s,workdir=%s" % (upper, work)
    # Only lower layers: the kernel mounts the overlay read-only, as readOnlyRootFilesystem does.
    sh("mount", "-t", "overlay", "overlay", "-o", opts, root)
    sh("mount", "-t", "proc", "-o", "nosuid,nodev,noexec", "proc", root + "/proc")
    sh("mount", "-t", "sysfs", "-o", "ro,nosuid,nodev,noexec", "sysfs", root + "/sys")
    dev = root + "/dev"
    sh("mount", "-t", "tmpfs", "-o", "nosuid,mode=755,size=65536k", "tmpfs", dev)
    for node in ("null", "zero", "full", "random", "urandom", "tty"):
        open(os.path.join(dev, node), "a").close()
        sh("mount", "--bind", "/dev/" + node, os.path.join(dev, node))
    os.mkdir(dev + "/shm")
    sh("mount", "-t", "tmpfs", "-o", "nosuid,nodev,noexec,mode=1777,size=65536k", "shm", dev + "/shm")
    for name, to in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                     ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(to, os.path.join(dev, name))
    for m in mounts:
        target = root + m["target"]
        sh("mount", "--bind", m["source"], target)
        if m.get("readOnly"):
            sh("mount", "-o", "remount,bind,ro", target)
    if spec.get("hostname"):
        socket.sethostname(spec["hostname"])
    env = dict(e.split("=", 1) for e in spec.get("env", []))
    argv = spec["argv"]
    os.chroot(root)
    os.chdir(spec.get("workingDir") or "/")
    exe = lookup(argv[0], env.get("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"))
    libc = ctypes.CDLL(None, use_errno=True)
    if spec.get("dropAllCapabilities"):
        for cap in range(0, 64):
            if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == 22:
                break  # past the kernel's last capability
    os.setgroups(spec.get("groups", []))
    os.setgid(spec["gid"])
    os.setuid(spec["uid"])  # from root to a non-root uid: the permitted capabilities go too
    # Changing the uid cleared unshare's --kill-child; the container dies with unshare again.
    libc.prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)
    if spec.get("noNewPrivileges") and libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        sys.exit("run-image: prctl(PR_SET_NO_NEW_PRIVS) failed")
    sys.stdout.flush()
    os.execve(exe, argv, env)


def lookup(cmd, path):
    if "/" in cmd:
        return cmd
    for d in path.split(":"):
        p = os.path.join(d or ".", cmd)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    sys.exit("run-image: %s: not found on PATH %s in the image" % (cmd, path))


def run(tar_path, args):
    work = tempfile.mkdtemp(prefix="infera-image-")
    try:
        unpack(tar_path, work)
        with open(os.path.join(work, "config.json")) as f:
            config = json.load(f)
        tmp = os.path.join(work, "tmp")
        os.mkdir(tmp)
        os.chmod(tmp, 0o1777)
        uid, _, gid = config.get("User", "0:0").partition(":")
        spec = {
            "rootfs": os.path.join(work, "rootfs"), "bundle": os.path.join(work, "bundle"),
            "readOnlyRoot": True, "mounts": [{"source": tmp, "target": "/tmp"}],
            "hostname": "run-image", "uid": int(uid), "gid": int(gid or uid), "groups": [],
            "noNewPrivileges": True, "dropAllCapabilities": True,
            "workingDir": config.get("WorkingDir", "/"), "env": config.get("Env", []),
            "argv": config.get("Entrypoint", []) + (args or config.get("Cmd") or []),
        }
        with open(os.path.join(work, "spec.json"), "w") as f:
            json.dump(spec, f)
        cmd = ["unshare", "--mount", "--uts", "--pid", "--fork", "--kill-child",
               "--propagation", "private", sys.executable, os.path.abspath(__file__),
               "container", os.path.join(work, "spec.json")]
        return subprocess.run(cmd).returncode
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    if os.geteuid() != 0:
        sys.exit("run-image: needs root (mount, chroot, namespaces)")
    a = sys.argv[1:]
    if len(a) == 3 and a[0] == "unpack":
        unpack(a[1], a[2])
    elif len(a) == 2 and a[0] == "container":
        container(a[1])
    elif len(a) >= 2 and a[0] == "run":
        rest = a[2:]
        sys.exit(run(a[1], rest[1:] if rest[:1] == ["--"] else rest))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
