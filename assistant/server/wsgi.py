"""The WSGI server behind ``assistant serve``: waitress, set up for tablets and hostile clients.

- Request bodies are capped at :data:`MAX_BODY` bytes by waitress itself, which refuses a
  longer ``Content-Length`` before reading the body (a 200 MB body no longer keeps a thread
  busy for seconds). Its own error answers (413, 431, malformed HTTP) are JSON with one
  sentence, like the application's.
- Each channel keeps reading while a live stream runs (``channel_request_lookahead``), so a
  client that closes its connection is noticed at once (``waitress.client_disconnected``);
  a client that vanishes without closing (a tablet leaving the Wi-Fi) is cut by the kernel once
  a keep-alive stays unacknowledged for :data:`UNACKED_MS` (``TCP_USER_TIMEOUT``, Linux).
"""

from __future__ import annotations

import json
import socket
from typing import Any

from waitress import create_server
from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer
from waitress.task import ErrorTask

#: Largest request body accepted, in bytes (an event or a set-up is well under 10 kB).
MAX_BODY = 64 * 1024
#: Milliseconds data may stay unacknowledged before the kernel drops the connection.
UNACKED_MS = 10_000

_SENTENCES = {400: "The request is not valid HTTP/1.1.",
              413: f"The request body is larger than the {MAX_BODY // 1024} KiB allowed.",
              431: "The request's header fields are too large.",
              501: "That transfer encoding is not supported."}


class _JsonErrorTask(ErrorTask):
    """waitress's answer to a request it cannot pass on, as ``{"error", "message"}`` JSON."""

    def execute(self) -> None:
        error = self.request.error
        sentence = _SENTENCES.get(error.code, "The server could not read the request.")
        body = json.dumps({"error": error.reason.lower().replace(" ", "_"), "message": sentence}).encode()
        self.status = f"{error.code} {error.reason}"
        self.response_headers.append(("Content-Type", "application/json"))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class _TabletChannel(HTTPChannel):
    """A connection whose error answers are JSON and whose dead peer is noticed in seconds."""

    error_task_class = _JsonErrorTask

    def __init__(self, server: Any, sock: socket.socket, addr: Any, adj: Any, map: Any = None):
        if hasattr(socket, "TCP_USER_TIMEOUT") and sock.family in (socket.AF_INET, socket.AF_INET6):
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, UNACKED_MS)
            except OSError:                                # not every kernel allows it
                pass
        super().__init__(server, sock, addr, adj, map)


def make_server(app: Any, host: str = "127.0.0.1", port: int = 0, threads: int = 8) -> Any:
    """A waitress server for ``app`` on ``host:port`` (0: any free port), not yet running.

    Parameters
    ----------
    app : WSGI application
    host, port : str, int
    threads : int
        Worker threads; each open live stream holds one (see ``serve.threads_for``).

    Returns
    -------
    waitress server
        Call ``run()``; ``effective_port`` is the port it listens on.

    Raises
    ------
    OSError
        When the address cannot be listened on.
    """
    listeners: dict = {}
    server = create_server(app, map=listeners, host=host, port=port, threads=threads, channel_timeout=30,
                           ident="tabletop-assistant", max_request_body_size=MAX_BODY,
                           channel_request_lookahead=1)
    for dispatcher in list(listeners.values()):
        if isinstance(dispatcher, BaseWSGIServer):
            dispatcher.channel_class = _TabletChannel
    return server
