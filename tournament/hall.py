"""The site on the director's laptop, served to the hall's network (`make hall`).

Plain Python, no Django: the settings read it before Django starts. What the laptop is called
on the network (its addresses and name, for ALLOWED_HOSTS and the URLs phones can use), its
own time zone, and the secret key kept in an untracked file.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import socket
from pathlib import Path

import ifaddr


def given_addresses() -> list[str]:
    """The addresses named in ``HALL_ADDRESS`` (comma-separated): the laptop's own, given to a
    hall served from a container, which sees only its own network."""
    found = []
    for part in os.environ.get("HALL_ADDRESS", "").split(","):
        try:
            found.append(str(ipaddress.ip_address(part.strip().strip("[]"))))
        except ValueError:
            continue
    return found


def in_container() -> bool:
    """Whether the hall is served from the container image (its Containerfile says so)."""
    return os.environ.get("HALL_CONTAINER", "") == "1"


def lan_addresses() -> list[str]:
    """Every address of the laptop other than loopback and link-local ones, IPv4 first; those
    given in ``HALL_ADDRESS`` instead, when given."""
    given = given_addresses()
    if given:
        return given
    found: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            raw = ip.ip[0] if isinstance(ip.ip, tuple) else ip.ip
            try:
                address = ipaddress.ip_address(raw.split("%")[0])
            except ValueError:
                continue
            if address.is_loopback or address.is_link_local or address.is_unspecified:
                continue
            if address not in found:
                found.append(address)
    return [str(a) for a in sorted(found, key=lambda a: (a.version, a))]


def host_names() -> list[str]:
    """The laptop's own name, and its mDNS name (``name.local``) that phones may resolve."""
    name = socket.gethostname().strip().lower()
    if not name or name == "localhost":
        return []
    names = [name]
    short = name.split(".")[0]
    if not name.endswith(".local"):
        names.append(f"{short}.local")
    return names


def allowed_hosts() -> list[str]:
    """Host names a request may carry on the hall's network. Served from a container, which
    does not see the laptop's own addresses, any host ``private_host`` accepts: the
    middleware ``PrivateHostMiddleware`` checks it."""
    if in_container():
        return ["*"]
    hosts = ["localhost", "127.0.0.1", "[::1]", *host_names()]
    for address in lan_addresses():
        hosts.append(f"[{address}]" if ":" in address else address)
    return hosts


def private_host(host: str) -> bool:
    """Whether ``host`` (a Host header, with or without its port) names a machine of a
    private network: an address of a private, loopback or link-local range, ``localhost``, or
    a ``.local`` name (mDNS). A laptop's hall is reached by nothing else."""
    name = host.strip().lower()
    if name.startswith("["):
        name = name[1 : name.find("]")] if "]" in name else name[1:]
    elif name.count(":") == 1:
        name = name.split(":")[0]
    if name in ("localhost", *host_names()):
        return True
    if name.endswith(".local"):
        return len(name) > len(".local")
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    return address.is_private or address.is_loopback


def bind_port(bind: str) -> int:
    """The port of a bind address such as ``0.0.0.0:8000`` or ``[::]:8080`` (80 when none)."""
    _host, sep, port = bind.rpartition(":")
    if not sep or not port.isdigit() or "]" in port:
        return 80
    return int(port)


def bind_host(bind: str) -> str:
    host = bind.rpartition(":")[0] if ":" in bind else bind
    return host.strip("[]")


def hall_urls(bind: str) -> list[str]:
    """The URLs phones on the hall's network can open, for the server bound to ``bind``: one
    per non-loopback address when it listens on every interface, else its own address."""
    port = bind_port(bind)
    suffix = "" if port == 80 else f":{port}"
    host = bind_host(bind)
    if host in ("0.0.0.0", "::", ""):  # noqa: S104 (every interface: the point of a hall)
        addresses = [a for a in lan_addresses() if host == "::" or ":" not in a]
    else:
        addresses = [host]
    return [f"http://[{a}]{suffix}/" if ":" in a else f"http://{a}{suffix}/" for a in addresses]


def local_time_zone() -> str:
    """The laptop's own time zone name (``TZ``, /etc/timezone or /etc/localtime's link), or
    UTC when none can be told."""
    tz = os.environ.get("TZ", "").lstrip(":")
    if tz and "/" in tz and not tz.startswith("/"):
        return tz
    timezone_file = Path("/etc/timezone")
    if timezone_file.is_file():
        name = timezone_file.read_text(encoding="utf-8").strip()
        if name:
            return name
    localtime = Path("/etc/localtime")
    if localtime.is_symlink():
        target = str(localtime.resolve())
        if "zoneinfo/" in target:
            return target.split("zoneinfo/", 1)[1]
    return "UTC"


def kept_secret_key(path: Path) -> str:
    """The secret key kept in ``path``; made (and written, readable by its owner only) on
    first use. A new key would log everybody out, so it is never replaced. Two servers
    starting at once on one folder (a hosted site's two containers) keep the same key: the
    file appears whole or not at all, and the second one reads the first one's."""
    if path.is_file():
        key = path.read_text(encoding="utf-8").strip()
        if key:
            return key
    key = secrets.token_urlsafe(50)
    draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(key + "\n")
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(draft, path)  # fails if the file exists: made meanwhile by another server
        except FileExistsError:
            kept = path.read_text(encoding="utf-8").strip()
            if kept:
                return kept
            os.replace(draft, path)  # an empty file (a write cut short): replaced
        return key
    finally:
        draft.unlink(missing_ok=True)
