"""The address players' devices use to reach the server (join codes and the printed links).

A server bound to the loopback address is reached as the browser reached it. A server bound to
every interface (``0.0.0.0``, ``::``) is reached through the machine's LAN address, found
without sending anything: connecting a UDP socket only asks the kernel which source address it
would route from (no packet leaves), tried towards private addresses (RFC 1918) first; failing
that, the addresses the host name resolves to. A server bound to one address is reached there.
Join codes never carry ``127.0.0.1`` when the server listens beyond this machine.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Callable, Iterable

#: Where the UDP-connect probe "routes" to: private networks (RFC 1918), then a public address;
#: nothing is sent to any of them.
PROBES = ("10.255.255.255", "192.168.255.255", "172.31.255.255", "192.0.2.1")
EVERYWHERE = ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) names this machine only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _routed_from(target: str) -> str | None:
    """The source address the kernel would use towards ``target`` (UDP connect sends nothing),
    or ``None`` when there is no route."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((target, 9))
            return s.getsockname()[0]
    except OSError:
        return None


def _by_hostname() -> list[str]:
    """The IPv4 addresses this machine's host name resolves to (``/etc/hosts`` or DNS)."""
    try:
        return [info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    except OSError:
        return []


def lan_address(probe: Callable[[str], str | None] = _routed_from,
                hostname: Callable[[], Iterable[str]] = _by_hostname) -> str | None:
    """This machine's LAN address (IPv4, dotted), or ``None`` when it has none but loopback.

    Parameters
    ----------
    probe : callable
        ``target -> source address or None`` (default: the UDP-connect trick, no packet sent).
    hostname : callable
        ``() -> addresses`` of the host name (default: ``socket.getaddrinfo``).

    Returns
    -------
    str or None
        The first non-loopback, non-unspecified address that ``probe`` gives for
        :data:`PROBES` in order, else the first such address of ``hostname()``.
    """
    def usable(address: str | None) -> bool:
        try:
            ip = ipaddress.ip_address(address or "")
        except ValueError:
            return False
        return not (ip.is_loopback or ip.is_unspecified or ip.is_link_local)

    for target in PROBES:
        address = probe(target)
        if usable(address):
            return address
    return next((a for a in hostname() if usable(a)), None)


def public_base(bind_host: str, port: int, lan: Callable[[], str | None] = lan_address) -> str | None:
    """The base URL (``http://HOST:PORT``) join codes carry, for a server bound to ``bind_host``.

    Returns
    -------
    str or None
        ``None`` for a loopback server (links use the address the browser used: only this
        machine can reach it anyway); the LAN address from ``lan()`` for a server bound to every
        interface; ``bind_host`` itself for a server bound to one address.

    Raises
    ------
    OSError
        When the server listens on every interface but this machine has no address except
        loopback (the sentence says to give ``--host``).
    """
    if is_loopback(bind_host):
        return None
    if bind_host in EVERYWHERE:
        address = lan()
        if address is None:
            raise OSError("this machine has no network address but loopback; connect it to the network or "
                          "give --host ADDRESS")
        return f"http://{address}:{port}"
    host = f"[{bind_host}]" if ":" in bind_host and not bind_host.startswith("[") else bind_host
    return f"http://{host}:{port}"
