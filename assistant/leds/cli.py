"""``assistant leds test``: light each cell in turn to check the wiring of an LED board."""

from __future__ import annotations

import argparse
import sys
import time

from .driver import BACKENDS, LedBoard
from .layout import LayoutError, load_layout


def _cmd_test(args: argparse.Namespace) -> int:
    try:
        layout = load_layout(args.layout)
    except LayoutError as exc:
        print(exc, file=sys.stderr)
        return 2
    board = LedBoard(layout, port=args.port, backend=args.backend, baudrate=args.baud).start()
    try:
        if not board.wait_until(lambda b: b.connected, timeout=args.wait):
            print(f"No LED board after {args.wait:g} s: {board.status}.", file=sys.stderr)
            return 1
        print(f"{board.status}; {layout.led_count} LEDs, brightness capped at "
              f"{100 * layout.max_brightness:.0f} % ({layout.supply_ma:.0f} mA supply, "
              f"{layout.full_white_ma:.0f} mA at full white).")
        order = sorted(layout.cells, key=lambda k: min(layout.cells[k]))
        for key in order:
            if not board.connected:
                print(f"Stopped: {board.status}.", file=sys.stderr)
                return 1
            board.show({key: (args.colour, "solid")})
            leds = ", ".join(str(i) for i in layout.cells[key])
            print(f"cell {key}: LED {leds}", flush=True)
            time.sleep(args.dwell)          # the user looks at the board meanwhile
        board.clear()
        sent = board.frames_sent
        board.wait_until(lambda b: b.frames_sent > sent, timeout=2.0)
        return 0
    except KeyboardInterrupt:
        print("Stopped by Ctrl-C; the LEDs are switched off.", file=sys.stderr)
        board.clear()
        return 130
    finally:
        board.stop()


def add_leds_command(subparsers) -> None:
    """Register ``assistant leds test [--port P] --layout L [--backend adalight|wled]`` on the
    ``subparsers`` of the top-level parser (an ``argparse`` sub-parsers action)."""
    leds = subparsers.add_parser("leds", help="the optional LED board")
    what = leds.add_subparsers(dest="leds_command", required=True)
    test = what.add_parser("test", help="light each cell in turn to check the wiring",
                           description="Light every cell of the layout in turn, in LED order, printing its key "
                                       "and LEDs. Exit 0 done, 1 no board (or unplugged), 2 bad layout.")
    test.add_argument("--port", default=None,
                      help="serial port or pyserial URL (default: find the board by USB id)")
    test.add_argument("--layout", required=True,
                      help="layout file (.toml/.json) or a game id for the bundled one")
    test.add_argument("--backend", choices=BACKENDS, default="adalight",
                      help="Adalight (tabletop-leds firmware, stock sketches, WLED) or WLED's JSON API")
    test.add_argument("--baud", type=int, default=115200, help="baud rate (default 115200)")
    test.add_argument("--dwell", type=float, default=0.8, help="seconds each cell stays lit (default 0.8)")
    test.add_argument("--colour", default="white", help="colour name or #rrggbb (default white)")
    test.add_argument("--wait", type=float, default=5.0,
                      help="seconds to wait for the board to connect (default 5)")
    test.set_defaults(func=_cmd_test)
