#!/usr/bin/env python3
"""Runs an OCI image tarball (from `./mvnw -Pimages package`) without a container engine: unpacks
its layers into a directory and runs its entrypoint there with chroot, as the image's user, with
/proc mounted — enough to check that an image starts (root only; Linux only).

    build/run-image.py router/target/infera-router-image.tar -- hash --block-size 4 --tokens 1,2,3,4
"""
import json, os, shutil, subprocess, sys, tarfile, tempfile

def main():
    if "--" in sys.argv:
        i = sys.argv.index("--")
        tar_path, args = sys.argv[1], sys.argv[i + 1:]
    else:
        tar_path, args = sys.argv[1], sys.argv[2:]
    if os.geteuid() != 0:
        sys.exit("run-image: needs root (chroot, mount)")
    root = tempfile.mkdtemp(prefix="infera-image-")
    os.chmod(root, 0o755)  # the image's "/" (mkdtemp makes it private)
    with tarfile.open(tar_path) as t:
        index = json.load(t.extractfile("index.json"))
        manifest = blob(t, index["manifests"][0]["digest"])
        config = blob(t, manifest["config"]["digest"])["config"]
        for layer in manifest["layers"]:
            name = "blobs/" + layer["digest"].replace(":", "/")
            with tarfile.open(fileobj=t.extractfile(name), mode="r:*") as lt:
                lt.extractall(root)
    os.makedirs(root + "/proc", exist_ok=True)
    subprocess.run(["mount", "-t", "proc", "proc", root + "/proc"], check=True)
    try:
        env = {k: v for k, v in (e.split("=", 1) for e in config.get("Env", []))}
        user = config.get("User", "0:0")
        cmd = [shutil.which("chroot") or "/usr/sbin/chroot", "--userspec=" + user, root] + config["Entrypoint"] + args
        os.chdir(root)
        rc = subprocess.run(cmd, env=env, cwd=root).returncode
    finally:
        subprocess.run(["umount", root + "/proc"])
    subprocess.run(["rm", "-rf", root])
    sys.exit(rc)

def blob(t, digest):
    return json.load(t.extractfile("blobs/" + digest.replace(":", "/")))

if __name__ == "__main__":
    main()
