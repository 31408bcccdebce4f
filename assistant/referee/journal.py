"""The session's durable ``tabletop-record/1`` file (``shared/rules/records.md``).

Every applied event is appended as one line and ``fsync``-ed before the event is announced, so a
crash or ``kill -9`` loses nothing that a tablet was shown. An undo rewrites the file: the new
text goes to a temporary file beside it, which is ``fsync``-ed and renamed over the old one
(atomic on POSIX), then the folder is ``fsync``-ed. Events the referee refused are kept as ``#``
comment lines, which a replay ignores (records.md: comment lines are not events).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Mapping


def _line(obj: Mapping[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n"


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(_line(header))
            for line in kept:
                f.write(line + "\n")
            for text in comments:
                f.write("# " + " ".join(text.splitlines()) + "\n")
            for obj in events:
                f.write(_line(obj))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        _fsync_dir(self.path.parent)

    def text(self) -> str:
        """The file as it is on disk (for download)."""
        return self.path.read_text(encoding="utf-8")
