"""``assistant pnml RECORD``: export a Scout Pennant position's Petri net as PNML (rules §4.2)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...check import check_record
from ...records import read_record
from ..base import MalformedError
from .pnml import to_pnml


def _pnml(args: argparse.Namespace) -> int:
    try:
        record = read_record(args.record)
    except OSError as exc:
        print(f"{args.record}: cannot read the record ({exc.strerror or exc}).", file=sys.stderr)
        return 2
    except MalformedError as exc:
        print(f"{args.record}: {exc}", file=sys.stderr)
        return 2
    if record.game.id != "scout-pennant":
        print(f"{args.record}: a {record.game.id} record has no Petri net; PNML export is for scout-pennant.",
              file=sys.stderr)
        return 2
    report = check_record(record, keep_going=True)
    text = to_pnml(report.state)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def add_commands(subparsers) -> None:
    """Register ``assistant pnml RECORD [-o FILE]``."""
    cmd = subparsers.add_parser("pnml", help="export a Scout Pennant position as a PNML Petri net",
                                description="Replay a scout-pennant record (illegal events skipped) and write the "
                                            "board's net with its marking as ISO/IEC 15909-2 PNML.")
    cmd.add_argument("record", help="path of the .jsonl record")
    cmd.add_argument("-o", "--output", help="file to write (default: standard output)")
    cmd.set_defaults(func=_pnml)
