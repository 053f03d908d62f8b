#!/usr/bin/env python3
"""An OCI image of dealcards for CloudNativePG's image volumes, written without a container daemon.

    image.py --extension-dir DIR --library FILE --pg-major N --out LAYOUT
             [--distro NAME] [--revision SHA] [--created TIME]

The image is FROM scratch with one layer holding exactly:
    share/extension/dealcards.control, and every dealcards--*.sql of DIR (the install scripts
        and the upgrade scripts)
    lib/dealcards.so (FILE)
which is how CloudNativePG (1.27 and later, PostgreSQL 18 and later) mounts an extension's image
and adds it to extension_control_path and dynamic_library_path (docs/operations.md). The files
are owned by root, mode 0644 (folders 0755), with mtime 0, in name order: the same files give the
same layer, byte for byte, whenever they are packed.

LAYOUT becomes an OCI image layout (oci-layout, index.json, blobs/sha256/...), which
`skopeo copy oci:LAYOUT:TAG docker://REGISTRY/dealcards:TAG` or `oras` push as they are. The image
carries the labels and annotations of CloudNativePG's own extension images and the tag
<version>-<major>-<distro> (the version is the control file's default_version; the distro is the
build machine's Debian codename unless given, since the library links its C library).
Prints the tag and the manifest's digest.
"""

import argparse
import gzip
import hashlib
import io
import json
import platform
import re
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURES = {"x86_64": "amd64", "aarch64": "arm64"}


def default_version(control: Path) -> str:
    match = re.search(r"^default_version\s*=\s*'([^']+)'", control.read_text(), re.M)
    if not match:
        sys.exit(f"{control}: no default_version")
    return match.group(1)


def codename() -> str:
    try:
        text = Path("/etc/os-release").read_text()
    except OSError:
        return "linux"
    match = re.search(r"^VERSION_CODENAME=\"?([a-z]+)", text, re.M)
    return match.group(1) if match else "linux"


def workspace_field(name: str) -> str:
    """A field of Cargo.toml's [workspace.package] ("" if it has none)."""
    text = (ROOT / "Cargo.toml").read_text()
    section = re.search(r"^\[workspace\.package\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
    match = section and re.search(rf'^{name}\s*=\s*"([^"]*)"', section.group(1), re.M)
    return match.group(1) if match else ""


def layer_tar(files: list[tuple[str, bytes]]) -> bytes:
    """The layer: its folders and files, root-owned, mtime 0, in name order."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        folders = sorted({str(Path(name).parents[i]) for name, _ in files
                          for i in range(len(Path(name).parents) - 1)})
        for folder in folders:
            info = tarfile.TarInfo(folder)
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, 0
            tar.addfile(info)
        for name, data in sorted(files):
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def blob(layout: Path, data: bytes, media_type: str) -> dict:
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    (layout / "blobs" / "sha256" / digest.split(":")[1]).write_bytes(data)
    return {"mediaType": media_type, "digest": digest, "size": len(data)}


def document(value: dict) -> bytes:
    return json.dumps(value, indent=2, sort_keys=True).encode() + b"\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--extension-dir", type=Path, required=True)
    parser.add_argument("--library", type=Path, required=True)
    parser.add_argument("--pg-major", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--distro", default=codename())
    parser.add_argument("--revision", default="")
    parser.add_argument("--created", default="1970-01-01T00:00:00Z")
    args = parser.parse_args()
    if args.pg_major < 18:
        sys.exit(f"PostgreSQL {args.pg_major} has no extension_control_path: images are for 18 and later")
    control = args.extension_dir / "dealcards.control"
    version = default_version(control)
    scripts = sorted(args.extension_dir.glob("dealcards--*.sql"))
    if not any(s.name == f"dealcards--{version}.sql" for s in scripts):
        sys.exit(f"{args.extension_dir}: no dealcards--{version}.sql")
    files = [(f"share/extension/{p.name}", p.read_bytes()) for p in [control, *scripts]]
    files.append(("lib/dealcards.so", args.library.read_bytes()))

    tag = f"{version}-{args.pg_major}-{args.distro}"
    title = f"dealcards {version} {args.pg_major} {args.distro}"
    labels = {
        "org.opencontainers.image.created": args.created,
        "org.opencontainers.image.version": version,
        "org.opencontainers.image.revision": args.revision,
        "org.opencontainers.image.title": title,
        "org.opencontainers.image.description":
            f"A dealcards {version} container image for PostgreSQL {args.pg_major} on {args.distro}",
        "org.opencontainers.image.licenses": workspace_field("license"),
        "org.opencontainers.image.base.name": "scratch",
        "io.cloudnativepg.image.base.name":
            f"ghcr.io/cloudnative-pg/postgresql:{args.pg_major}-minimal-{args.distro}",
        "io.cloudnativepg.image.base.pgmajor": str(args.pg_major),
        "io.cloudnativepg.image.base.os": args.distro,
    }

    if workspace_field("version") != version:
        sys.exit(f"{control} is version {version}, Cargo.toml's [workspace.package] "
                 f"{workspace_field('version')}")
    layout = args.out
    if layout.exists():
        if not (layout / "oci-layout").exists():
            sys.exit(f"{layout} exists and is not an image layout")
        for old in (layout / "blobs" / "sha256").glob("*"):
            old.unlink()
    (layout / "blobs" / "sha256").mkdir(parents=True, exist_ok=True)
    tar = layer_tar(files)
    layer = blob(layout, gzip.compress(tar, mtime=0),
                 "application/vnd.oci.image.layer.v1.tar+gzip")
    config = blob(layout, document({
        "architecture": ARCHITECTURES.get(platform.machine(), platform.machine()),
        "os": "linux",
        "created": args.created,
        "config": {"Labels": labels},
        "rootfs": {"type": "layers", "diff_ids": ["sha256:" + hashlib.sha256(tar).hexdigest()]},
    }), "application/vnd.oci.image.config.v1+json")
    manifest = blob(layout, document({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": config,
        "layers": [layer],
        "annotations": labels,
    }), "application/vnd.oci.image.manifest.v1+json")
    manifest["annotations"] = {"org.opencontainers.image.ref.name": tag}
    (layout / "oci-layout").write_bytes(document({"imageLayoutVersion": "1.0.0"}))
    (layout / "index.json").write_bytes(document({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [manifest],
    }))
    print(tag, manifest["digest"])


if __name__ == "__main__":
    main()
