"""Replay a record and judge every event (``assistant check``, ``shared/rules/records.md``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .records import Record

#: Exit statuses of ``assistant check``.
EXIT_LEGAL, EXIT_ILLEGAL, EXIT_MALFORMED = 0, 1, 2


@dataclass
class CheckReport:
    """What checking a record produced.

    Attributes
    ----------
    verdicts : list of dict
        One object per judged event: ``{"index": N, "ok": true}`` or
        ``{"index": N, "ok": false, "reason": CODE, "message": TEXT}``.
    summary : dict
        The game's summary after the last applied event.
    state : object
        That final state.
    status : int
        0 when every judged event was legal, 1 otherwise.
    """

    verdicts: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    state: Any = None
    status: int = EXIT_LEGAL


def check_record(record: Record, keep_going: bool = False) -> CheckReport:
    """Apply the record's events in order and judge each one.

    Parameters
    ----------
    record : Record
        A validated record (see :func:`assistant.records.parse_record`).
    keep_going : bool
        ``False`` stops at the first illegal event; ``True`` skips it and goes on
        (``--continue``).

    Returns
    -------
    CheckReport
    """
    game, state = record.game, record.start
    report = CheckReport()
    for index, (_line, event) in enumerate(record.events, start=1):
        outcome = game.apply(state, event)
        if outcome:
            state = outcome
            report.verdicts.append({"index": index, "ok": True})
            continue
        report.verdicts.append({"index": index, "ok": False, "reason": outcome.reason,
                                "message": outcome.message})
        report.status = EXIT_ILLEGAL
        if not keep_going:
            break
    report.state = state
    report.summary = game.summary(state)
    return report
