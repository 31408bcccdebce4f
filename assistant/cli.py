"""The ``assistant`` command line (also ``python -m assistant``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from . import __version__
from .check import EXIT_MALFORMED, check_record
from .games import MalformedError, game_ids, get_game
from .records import read_record


def _cmd_check(args: argparse.Namespace) -> int:
    try:
        record = read_record(args.record)
    except OSError as exc:
        print(f"{args.record}: cannot read the record ({exc.strerror or exc}).", file=sys.stderr)
        return EXIT_MALFORMED
    except MalformedError as exc:
        print(f"{args.record}: {exc}", file=sys.stderr)
        return EXIT_MALFORMED
    report = check_record(record, keep_going=args.keep_going)
    for verdict in report.verdicts:
        print(json.dumps(verdict))
    print(json.dumps({"summary": report.summary}))
    return report.status


def _cmd_bench(args: argparse.Namespace) -> int:
    if args.what == "report":
        from .bench.report import run as report

        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:
            print("bench report: matplotlib is not installed (in a checkout: pip install -e '.[report]')",
                  file=sys.stderr)
            return 2
        return report(args.out, seconds=args.seconds, seed=args.seed)
    from .bench import run_bench

    return run_bench(args.what, seconds=args.seconds, seed=args.seed)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``assistant`` command."""
    parser = argparse.ArgumentParser(prog="assistant", description="A tabletop referee for physical board games.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    check = sub.add_parser("check", help="replay a game record and judge every event",
                           description="Replay a tabletop-record/1 file; print one JSON verdict per event, "
                                       "then the summary. Exit 0 all legal, 1 an illegal event, 2 malformed.")
    check.add_argument("record", help="path of the .jsonl record")
    check.add_argument("--continue", dest="keep_going", action="store_true",
                       help="skip illegal events and keep checking")
    check.set_defaults(func=_cmd_check)

    bench = sub.add_parser("bench", help="run a benchmark and print its figures")
    bench.add_argument("what", choices=["rules", "vision", "detect", "serve", "secrets", "setup", "report"],
                       help="which benchmark; report: all of them, then a Markdown report with plots")
    bench.add_argument("-o", "--out", default="bench-report", help="report: the folder to write (default bench-report)")
    bench.add_argument("--seconds", type=float, default=None,
                       help="time budget (s); default the benchmark's own (5 s throughput runs, 60 s serve load)")
    bench.add_argument("--seed", type=int, default=1, help="seed of the random games")
    bench.set_defaults(func=_cmd_bench)
    printing = sub.add_parser("print", help="printable mats and calibration boards at true size")
    print_parsers = printing.add_subparsers(dest="what", required=True)
    from .vision import commands as vision_commands

    vision_commands.add_commands(sub, print_parsers)
    from .vision.calibration_cli import add_calibrate_command, add_print_command

    add_print_command(print_parsers)      # assistant print charuco [-o PREFIX] [--paper a4|letter] [--dpi N]
    from .vision.kits import add_print_kit

    add_print_kit(print_parsers)          # assistant print kit --game G [-o PREFIX] [--paper] [--dpi]
    add_calibrate_command(sub)            # assistant calibrate camera (--images GLOB_OR_DIR | --source S) [-o FILE]
    from .vision.teach import add_teach_command

    add_teach_command(sub)                # assistant teach --game G (--images DIR | --source S) [-o models/NAME]
    from .vision.detect_cli import add_detect_command

    add_detect_command(sub)               # assistant detect IMAGE --game G --model M [--corners ...] [--json]
    from .demo.run import add_demo_command
    from .server.serve import add_serve_command

    add_demo_command(sub)                 # assistant demo [--game G] [--headless]

    add_serve_command(sub)                # assistant serve --game G | --resume RECORD [--source S] [--host] [--port]
    from .replay import add_replay_command

    add_replay_command(sub)               # assistant replay SOURCE --game G --setup RECORD [--tablet E] [-o RECORD]
    from .leds.cli import add_leds_command

    add_leds_command(sub)                 # assistant leds test [--port P] --layout L [--backend adalight|wled]
    for game_id in game_ids():
        get_game(game_id).add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status."""
    args = build_parser().parse_args(argv)
    return args.func(args)
