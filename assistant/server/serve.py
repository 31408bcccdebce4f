"""``assistant serve``: referee one game and serve the tablet views.

``assistant serve --game G [--record PATH] [--setup FILE] [--source S] [--host H] [--port P]``,
``assistant serve --resume RECORD``, or ``assistant serve`` alone: no game yet, the referee
starts one on the referee view (:mod:`assistant.referee.lobby`). The pages are served by waitress (a production WSGI
server, set up in :mod:`.wsgi`) with enough threads that the live streams of every tablet never
starve ordinary requests (one open stream holds one thread). The server binds to 127.0.0.1 unless ``--host``
says otherwise, and says where it listens when it starts: beyond this machine, at its LAN
address (:mod:`.address`), which the join codes carry too.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from ..games import MalformedError, game_ids
from ..referee import newgame
from ..referee.door import session_title
from ..referee.lobby import Lobby
from ..referee.session import Session
from .address import public_base

#: Threads = streams expected x 2 + this many for ordinary requests (see known pitfalls: waitress).
SPARE_THREADS = 8


def threads_for(seats: int) -> int:
    """Worker threads for a table of ``seats`` players: a referee tablet, one per player and a
    spare viewer, each holding a stream, twice over, plus :data:`SPARE_THREADS`."""
    return 2 * (seats + 2) + SPARE_THREADS


def seats_served(session: Session | None, fixed: str | None) -> int:
    """The most players the server may have to serve (it sizes its threads and live views by
    it): the game's own when the server keeps the game it was started with (``fixed``), else
    the most any game seats, since the referee may make a new game of any size on the tablet
    (:data:`assistant.referee.newgame.PLAYERS`)."""
    if session is not None and fixed:
        return session.seats
    return max(high for _, high in newgame.PLAYERS.values())


def default_setup(game_id: str, seed: int | None = None, players: int | None = None,
                  adventurers: list[str] | None = None, difficulty: str | None = None) -> dict[str, Any]:
    """A random valid set-up of ``game_id`` (the game's simulator deals it), for a quick start.

    Parameters
    ----------
    game_id : str
    seed : int, optional
        Fixes the deal (the same seed, the same layout and decks); ``None`` deals anew from the
        operating system's randomness, so no two games share a hidden layout.
    players : int, optional
        Number of players (Forbidden Desert 2-5, Scout Pennant 2-6, Discovery Island 2);
        random when absent.
    adventurers : list of str, optional
        Forbidden Desert only: the adventurers in seat order.
    difficulty : str, optional
        Forbidden Desert only: ``novice``, ``normal``, ``elite`` or ``legendary``.

    Returns
    -------
    dict
        The header's ``setup``: Forbidden Desert with every face named and digital decks;
        Discovery Island on the example island with random landings, equipment within the
        budget and a digital checkometer; Scout Pennant on the printed mat's board (radius 4).

    Raises
    ------
    ValueError
        For a choice the game does not have (one sentence names it).
    """
    import importlib
    import random

    rng = random.Random(seed)                          # None: seeded from os.urandom
    module = importlib.import_module(f"assistant.games.{game_id.replace('-', '_')}.simulate")
    if game_id != "forbidden-desert" and (adventurers or difficulty):
        raise ValueError("--adventurers and --difficulty are Forbidden Desert's choices")
    if game_id == "forbidden-desert":
        from ..games.forbidden_desert.components import ADVENTURERS, START_TICK

        if adventurers:
            unknown = [a for a in adventurers if a not in ADVENTURERS]
            if unknown:
                raise ValueError(f"unknown adventurer {unknown[0]!r}; choose from {', '.join(sorted(ADVENTURERS))}")
            if players is not None and players != len(adventurers):
                raise ValueError(f"--players {players} but {len(adventurers)} adventurers are named")
            if len(set(adventurers)) != len(adventurers):
                raise ValueError("an adventurer is named twice")
        n = len(adventurers) if adventurers else players
        if n is not None and not 2 <= n <= 5:
            raise ValueError("Forbidden Desert is played by 2 to 5 adventurers")
        if difficulty is not None and difficulty not in START_TICK:
            raise ValueError(f"unknown difficulty {difficulty!r}; choose from {', '.join(START_TICK)}")
        return module.random_setup(rng, players, difficulty, adventurers)
    if game_id == "scout-pennant":                     # the printed mat's board: radius 4 (rules default)
        if players is not None and not 2 <= players <= 6:
            raise ValueError("Scout Pennant is played by 2 to 6 players")
        return module.random_setup(rng, n_players=players, radius=4)
    if players not in (None, 2):
        raise ValueError("Discovery Island is played by 2 players")
    from ..games.discovery_island.island import load_map

    return module.random_setup(rng, load_map("example"))


def port_free(host: str, port: int) -> bool:
    """Whether ``host:port`` can be listened on now (checked before any file is written)."""
    import socket

    if port == 0:
        return True
    try:
        with socket.create_server((host, port)):
            return True
    except OSError:
        return False


def open_session(args: argparse.Namespace) -> Session | None:
    """The session ``args`` ask for (resumed, or new from ``--setup`` or a random set-up), or
    ``None`` when they name no game at all (the referee starts one on the tablet).

    Raises
    ------
    FileNotFoundError, FileExistsError, MalformedError, ValueError, OSError
        With a sentence naming the file and the problem.
    """
    choices = [f"--{name}" for name in ("seed", "players", "adventurers", "difficulty")
               if getattr(args, name) is not None]
    if args.resume:
        if choices:
            raise ValueError(f"{choices[0]} chooses a new game's set-up; a resumed game keeps its own")
        return Session.resume(args.resume)
    if reads_table(args):
        if choices:
            raise ValueError(f"{choices[0]} chooses a random set-up; with --source the camera reads the table "
                             "and the referee names the players on the tablet (or give --setup FILE)")
        if args.record and Path(args.record).exists():
            raise FileExistsError(f"{args.record} exists: resume it with --resume, or choose another record name")
        return None
    if not args.game:
        if args.setup or args.source is not None or choices:
            raise ValueError("give --game G for a new game, or --resume RECORD")
        if args.record and Path(args.record).exists():      # the first game made on the tablet goes there
            raise FileExistsError(f"{args.record} exists: resume it with --resume, or choose another record name")
        return None
    if args.setup and choices:
        raise ValueError(f"{choices[0]} chooses a random set-up; --setup gives the set-up itself")
    if args.setup:
        head = json.loads(Path(args.setup).read_text(encoding="utf-8").splitlines()[0])
        setup, rulings = head.get("setup", head), head.get("rulings")
    else:
        adventurers = args.adventurers.split(",") if args.adventurers else None
        setup, rulings = default_setup(args.game, args.seed, args.players, adventurers, args.difficulty), None
    record = args.record or f"games/{args.game}-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    return Session.start(args.game, setup, rulings, record)


def reads_table(args: argparse.Namespace) -> bool:
    """Whether the server reads the opening table from the camera (:mod:`.setup_read`): a new
    game (``--game G``, no ``--setup``, no ``--resume``) with ``--source``; Forbidden Desert also
    needs ``--model`` and ``--calibration`` (what its live loop needs too). Without them a
    Forbidden Desert game starts on a random deal, as before."""
    if not args.game or args.source is None or args.setup or args.resume:
        return False
    return args.game != "forbidden-desert" or (bool(args.model) and bool(args.calibration))


def _undistorter(calibration: str | None) -> tuple:
    """``(undistort, camera_matrix (3, 3) float64)`` of a calibration file, ``(None, None)`` without one."""
    if not calibration:
        return None, None
    import numpy as np

    from ..vision.calibration_io import Undistorter, load_calibration

    undistort = Undistorter.from_calibration(load_calibration(calibration))
    return undistort, np.asarray(undistort.new_camera_matrix, np.float64)


def opening_kit(game_id: str, model: str | None):
    """The opening kit of ``game_id`` (:class:`~..tracking.opening.OpeningKit`) with its
    detector: Forbidden Desert's from the folder ``model`` (required), Discovery Island's kit
    model from ``model`` or the cache (taught on first use), Scout Pennant's (no model).

    Raises
    ------
    OSError, ValueError
        A model folder that cannot be read; Forbidden Desert without a model.
    """
    if game_id == "forbidden-desert":
        from ..tracking.desert_setup import DesertOpening
        from ..vision.detectors.forbidden_desert import FDDetector

        if not model:
            raise ValueError("Forbidden Desert's table is read with --model (assistant teach --slot table)")
        return DesertOpening(FDDetector.load(model))
    if game_id == "discovery-island":
        from ..tracking.island_setup import IslandOpening
        from ..vision.kits.discovery_island_detect import load_or_teach

        return IslandOpening(load_or_teach(model))
    from ..tracking.pennant_setup import PennantOpening

    return PennantOpening()


def table_reader(source: Any, model: str | None, rate: float, camera_matrix: Any, undistort: Any = None,
                 game_id: str = "forbidden-desert"):
    """The camera reading the opening table of ``game_id`` (:class:`.setup_read.TableReader`,
    started) from ``source`` (a :class:`~..vision.sources.FrameSource` at ``rate`` frames a
    second) with the game's kit (:func:`opening_kit`); once the referee starts the game, the
    live loop (:func:`.live.make_loop`) follows it from the same source.

    Raises
    ------
    OSError, ValueError
        A model folder that cannot be read (see :func:`opening_kit`).
    """
    from .live import LiveTable, make_loop
    from .setup_read import TableReader

    def live_of(session: Session, src: Any) -> LiveTable:
        return LiveTable(session, src, lambda state: make_loop(session.game.id, state, model, rate,
                                                               camera_matrix, undistort), rate)

    return TableReader(source, opening_kit(game_id, model), rate, camera_matrix, undistort, live_of).start()


def _camera(args: argparse.Namespace, session: Session):
    """The thread reading ``--source``: the whole live pipeline into ``session`` when the game's
    detector is at hand, else the camera panel only (said on standard error).

    Raises
    ------
    SourceError, OSError, ValueError
        A source that cannot be opened, a calibration or model that cannot be read.
    """
    from ..vision.sources import open_source
    from .camera import CameraPanel
    from .live import LiveTable, make_loop

    source = open_source(args.source, args.fps)
    rate = source.fps                   # a video's own, an image folder's --fps, a camera's measured
    undistort, camera_matrix = _undistorter(args.calibration)
    if session.game.id == "forbidden-desert" and not (args.model and camera_matrix is not None):
        print("serve: the camera panel only: Forbidden Desert's live tracking needs --model (assistant teach "
              "--slot table) and --calibration; enter moves on the tablets.", file=sys.stderr)
        return CameraPanel(source, session.game.id, rate).start()
    return LiveTable(session, source, lambda state: make_loop(session.game.id, state, args.model, rate,
                                                              camera_matrix, undistort), rate).start()


def _cmd_serve(args: argparse.Namespace) -> int:
    if not port_free(args.host, args.port):
        print(f"serve: port {args.port} on {args.host} is in use (another server?); give another --port.",
              file=sys.stderr)
        return 2
    try:
        session = open_session(args)
        base = public_base(args.host, args.port)
    except (OSError, MalformedError, ValueError, json.JSONDecodeError) as exc:
        print(f"serve: {exc}", file=sys.stderr)
        return 2
    if session is None and args.leds:
        print("serve: --leds follows one game started with the server: give --setup FILE (or --resume RECORD) "
              "with it." if args.game else "serve: --leds follows one game: give --game G (or --resume RECORD) with it.",
              file=sys.stderr)
        return 2
    panel = reader = None
    if args.source is not None:
        from ..vision.sources import SourceError, open_source

        try:
            if session is None:                                 # reads_table(args)
                undistort, camera_matrix = _undistorter(args.calibration)
                source = open_source(args.source, args.fps)
                panel = reader = table_reader(source, args.model, source.fps, camera_matrix, undistort, args.game)
            else:
                panel = _camera(args, session)
        except (OSError, ValueError, SourceError) as exc:
            print(f"serve: {exc}", file=sys.stderr)
            return 2
    leds = None
    if args.leds:
        from ..leds.layout import LayoutError

        try:
            leds = start_leds(session, args.leds, args.led_layout, args.led_backend)
        except (LayoutError, ValueError) as exc:
            print(f"serve: {exc}", file=sys.stderr)
            return 2
    from .app import create_app
    from .wsgi import make_server

    fixed = ("This server's camera or LED board follows the game it was started with; stop it and start "
             "serve again for a new game." if (panel and not reader) or leds else None)
    record_dir = Path(args.record).parent if args.record else Path("games")
    lobby = Lobby(session, record_dir, args.record if session is None else None, fixed, reader=reader)
    seats = seats_served(session, fixed)
    app = create_app(lobby, camera=panel.jpeg if panel else None)
    app.config["MAX_STREAMS"] = 2 * (seats + 2)                 # every stream holds one of the threads
    server = make_server(app, args.host, args.port, threads_for(seats))
    if base is not None and args.port == 0:                     # the port is known only now
        base = public_base(args.host, server.effective_port)
    app.config["PUBLIC_BASE"] = base
    shown = base or f"http://{args.host}:{server.effective_port}"
    where = ("only this machine (use --host 0.0.0.0 for tablets on the network)" if base is None
             else f"the network on {args.host}")
    if session is not None:
        print(f"Serving {session.game.title} to {where}. Record: {session.journal.path}", flush=True)
    elif reader is not None:
        print(f"Serving to {where}; the camera reads the {session_title(reader.kit.game_id)} table: check the reading and start "
              f"the game on the referee view. Records go to {record_dir}/.", flush=True)
    else:
        print(f"Serving to {where}; no game yet: start one on the referee view. Records go to {record_dir}/.", flush=True)
    print(f"  table view:   {shown}/", flush=True)
    print(f"  referee view: {shown}/?token={lobby.referee_token}", flush=True)
    print("  players join by scanning their codes on the referee view. Ctrl-C stops; --resume RECORD continues.", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        if panel:
            panel.stop()
        stop_leds(leds)
    return 0


def start_leds(session: Any, port: str, layout: str | None = None, backend: str = "adalight") -> tuple:
    """Drive the LED board at ``port`` (a serial port, a pyserial URL, or ``auto``) from
    ``session``: the board (:class:`~assistant.leds.driver.LedBoard`, reconnecting on its own)
    and the view that lights it (:class:`~.leds.LedView`), both started.

    ``layout`` is a cell -> LED layout file (default: the game's bundled one); ``backend`` the
    board's protocol (``adalight`` or ``wled``).

    Raises
    ------
    LayoutError
        When the layout file is malformed.
    ValueError
        For an unknown backend or layout name.
    """
    from ..leds.driver import LedBoard
    from ..leds.layout import load_layout
    from .leds import LedView

    board = LedBoard(load_layout(layout or session.game.id), port=None if port == "auto" else port,
                     backend=backend).start()
    return board, LedView(session, board).start()


def stop_leds(leds: tuple | None) -> None:
    """Stop what :func:`start_leds` started (None: nothing)."""
    if leds:
        leds[1].stop()
        leds[0].stop()


def add_serve_command(subparsers: Any) -> None:
    """Register ``assistant serve``."""
    p = subparsers.add_parser("serve", help="referee a game and serve the tablet views",
                              description="Referee one game: the rules check every event, the record is "
                                          "written event by event, tablets follow live.")
    p.add_argument("--game", choices=game_ids(), help="the game (for a new session; without it and --resume, "
                                                      "the referee starts a game on the referee view)")
    p.add_argument("--resume", metavar="RECORD", help="continue the session of this record (after a crash too)")
    p.add_argument("--record", metavar="PATH", help="where the new session's record goes (default games/GAME-TIME.jsonl)")
    p.add_argument("--setup", metavar="FILE", help="a record (its header is used) or a JSON object with setup and rulings")
    p.add_argument("--seed", type=int, help="fix the random set-up (default: a new random deal every game)")
    p.add_argument("--players", type=int, help="number of players of the random set-up (default: random)")
    p.add_argument("--adventurers", metavar="A,B,...",
                   help="Forbidden Desert: the adventurers in seat order, e.g. climber,explorer,navigator")
    p.add_argument("--difficulty", choices=["novice", "normal", "elite", "legendary"],
                   help="Forbidden Desert: the storm meter's start (default: random)")
    p.add_argument("--source", help="camera index, video file, image folder or stream URL: the camera follows the game")
    p.add_argument("--model", help="the game's taught detector folder (Forbidden Desert: required for live tracking)")
    p.add_argument("--calibration", help="camera calibration YAML (assistant calibrate camera)")
    p.add_argument("--fps", type=float, help="frames per second of an image folder (default 30) or a video file "
                                            "(default: its own); a camera's is measured")
    p.add_argument("--leds", metavar="PORT", help="the LED board: a serial port or URL (loop://, socket://...), "
                                                  "or 'auto' to find it by USB id; it may be plugged in later")
    p.add_argument("--led-layout", help="cell -> LED layout file (default: the bundled one of the game)")
    p.add_argument("--led-backend", choices=["adalight", "wled"], default="adalight", help="the board's protocol")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: this machine only)")
    p.add_argument("--port", type=int, default=8750, help="TCP port (0: any free port)")
    p.set_defaults(func=_cmd_serve)
