"""The session's durable ``tabletop-record/1`` file (``shared/rules/records.md``).

Every applied event is appended as one line and ``fsync``-ed before the event is announced, so a
crash or ``kill -9`` loses nothing that a tablet was shown. An undo rewrites the file: the new
text goes to a temporary file beside it, which is ``fsync``-ed and renamed over the old one
(atomic on POSIX), then the folder is ``fsync``-ed. Events the referee refused are kept as ``#``
comment lines, which a replay ignores (records.md: comment lines are not events).

The record holds every secret of the game (hidden faces, deck orders, the treasure), so it is
readable by its owner only: created with mode 0600, and set back to 0600 when an older record
is resumed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Mapping


def _line(obj: Mapping[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n"


#: Permission bits of every file the session writes (the record, its tokens): owner only.
PRIVATE = 0o600


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_private(path: Path, text: str) -> None:
    """Replace ``path`` atomically with ``text`` (UTF-8), readable by its owner only.

    The text goes to ``<path>.tmp``, created with mode 0600 whatever the umask, which is
    ``fsync``-ed and renamed over ``path``; then the folder is ``fsync``-ed.

    Raises
    ------
    OSError
        When the file cannot be written (``path`` is then left as it was).
    """
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE)
    os.fchmod(fd, PRIVATE)                             # an older .tmp left by a crash keeps its mode otherwise
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


class Journal:
    """Append-only record file with durable writes.

    Parameters
    ----------
    path : str or Path
        The record file. It is created with ``header`` when it does not exist; an existing file
        is opened for appending (``--resume``) and ``header`` is not written.
    header : dict, optional
        The header object, needed only for a new file.

    Raises
    ------
    OSError
        When the file or its folder cannot be created or written.
    """

    def __init__(self, path: str | Path, header: Mapping[str, Any] | None = None):
        self.path = Path(path)
        if not self.path.exists():
            if header is None:
                raise FileNotFoundError(f"{self.path}: no such record to resume")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.rewrite(header, [])
        elif self.path.stat().st_mode & 0o777 != PRIVATE:
            os.chmod(self.path, PRIVATE)               # a record written before records were private
        self._repair_tail()

    def _repair_tail(self) -> None:
        """A write cut short by a crash leaves a last line without its newline: drop it (it was
        never fsync-ed, so no tablet saw it)."""
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            keep = data[: data.rfind(b"\n") + 1]
            with open(self.path, "r+b") as f:
                f.truncate(len(keep))
                f.flush()
                os.fsync(f.fileno())

    def append(self, obj: Mapping[str, Any]) -> None:
        """Append one event object as a line and fsync it. Raises ``OSError`` on a full or gone disk."""
        self._write_durably(_line(obj))

    def comment(self, text: str) -> None:
        """Append a ``#`` comment line (one line; newlines are replaced) and fsync it."""
        self._write_durably("# " + " ".join(text.splitlines()) + "\n")

    def _write_durably(self, text: str) -> None:
        """Append ``text`` and fsync; on a failed write (a full disk) cut the file back to where
        it was, so no torn line is left for the next append to join."""
        with open(self.path, "ab") as f:
            size = f.tell()
            try:
                f.write(text.encode("utf-8"))
                f.flush()
                os.fsync(f.fileno())
            except OSError:
                try:
                    f.truncate(size)
                    os.fsync(f.fileno())
                except OSError:
                    pass                               # the repair on --resume drops a torn tail
                raise

    def rewrite(self, header: Mapping[str, Any], events: Iterable[Mapping[str, Any]],
                comments: Iterable[str] = ()) -> None:
        """Replace the whole file atomically with ``header``, the comment lines the file already
        has (refusals, earlier undos: the log keeps them), ``comments`` (as new ``#`` lines) and
        ``events``. Raises ``OSError`` when it cannot be written (the old file is then kept)."""
        kept = []
        if self.path.exists():
            kept = [line for line in self.path.read_text(encoding="utf-8").splitlines() if line.startswith("#")]
        lines = [_line(header), *(line + "\n" for line in kept),
                 *("# " + " ".join(text.splitlines()) + "\n" for text in comments), *(_line(obj) for obj in events)]
        write_private(self.path, "".join(lines))

    def text(self) -> str:
        """The file as it is on disk (for download)."""
        return self.path.read_text(encoding="utf-8")
