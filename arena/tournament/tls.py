"""The cluster's TLS: who may talk to a tournament's Dask scheduler and workers.

Anyone who can connect to a Dask scheduler can run any code on every worker and on the scheduler, read the
workers' memory and answer in place of a task. So a tournament never talks to a cluster over plain TCP: every
connection is TLS with both sides' certificates checked (`distributed.security.Security`, mutual TLS), and holding
the cluster's key is what makes a process a member.

- A local cluster (`--executor dask` without `--scheduler`, `dask_local.py`) gets a certificate made for the run, in
  a private temporary folder (0700) removed when the cluster stops, and every port bound to 127.0.0.1.
- A real cluster uses files made once by `arena cluster-certs DIR`: `cluster.pem` (a self-signed certificate that is
  also the cluster's only trusted authority) and `cluster.key` (its private key, mode 0600). Copy both to the
  scheduler, every worker and the driver; a client without them, or with a certificate of its own, cannot connect.
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path
from typing import Any

CERT = "cluster.pem"
KEY = "cluster.key"
VALID_DAYS = 365


class ClusterError(ValueError):
    """A cluster address or certificate folder that cannot be used; the message says which and why."""


def make_credentials(folder: Path, *, days: int = VALID_DAYS) -> tuple[Path, Path]:
    """Write a new self-signed certificate and its key into `folder` (created if missing). Existing files are never
    replaced (a new key would lock every machine that holds the old one out), and neither file is written through
    a symbolic link."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    folder.mkdir(parents=True, exist_ok=True)
    cert_path, key_path = folder / CERT, folder / KEY
    for path in (cert_path, key_path):
        if path.exists() or path.is_symlink():
            raise ClusterError(f"{path} exists already; remove it first to make new cluster credentials")
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "mafia-arena-cluster")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("mafia-arena-cluster")]), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_bytes = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    _write_new(key_path, key_bytes, 0o600)
    _write_new(cert_path, cert.public_bytes(serialization.Encoding.PEM), 0o644)
    return cert_path, key_path


def _write_new(path: Path, data: bytes, mode: int) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)


def security_from(folder: Path) -> Any:
    """The `Security` of a member of the cluster whose credentials are in `folder` (every role the same)."""
    cert, key = folder / CERT, folder / KEY
    missing = [str(p) for p in (cert, key) if not p.is_file()]
    if missing:
        raise ClusterError(
            f"--tls: {', '.join(missing)} not found; make the cluster's credentials once with "
            f"`arena cluster-certs {folder}` and copy the folder to the scheduler, the workers and here"
        )
    if key.stat().st_mode & 0o077:
        raise ClusterError(f"--tls: {key} can be read by other users; chmod 600 {key}")
    files = {f"tls_{role}_{part}": str(path) for role in ("client", "scheduler", "worker")
             for part, path in (("cert", cert), ("key", key))}  # fmt: skip
    return _security_class()(require_encryption=True, tls_ca_file=str(cert), **files)


def temporary_security() -> Any:
    """A fresh certificate in memory only, for a cluster that lives as long as this process."""
    return _security_class().temporary()


def _security_class() -> Any:
    from distributed.security import Security  # untyped: used through Any

    return Security


def check_address(address: str) -> str:
    """A scheduler address the driver may connect to: TLS only."""
    if not address.startswith("tls://"):
        raise ClusterError(
            f"--scheduler: {address!r} is not a tls:// address; a tournament never talks to a Dask cluster over "
            "plain TCP (anyone who can reach it can run code on its workers and in this process); start the "
            "scheduler with the cluster's certificate (docs/tournaments.md) and give tls://HOST:PORT"
        )
    return address
