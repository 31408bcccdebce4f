"""The two races at the start of a game read from the table (issue 21), through a real waitress
server: the referee's "Start the game" checks the reading (and, for Discovery Island, the
players' choices) outside the lobby's lock, so the table may be read again, or a player may
choose again, while it checks. The start must then be refused (409, one sentence), start
nothing, and a start asked again must work on what is there now.

To make the order certain, the reader's real opening kit is wrapped so that the start's check
of the flags waits (:class:`HeldFlags`) until the other request has been answered; every request
is a real HTTP request and the lobby, reader and kit are the product's own."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request

from assistant.referee.lobby import Lobby
from assistant.server.app import create_app
from assistant.server.serve import table_reader
from assistant.server.wsgi import make_server

from .test_table_setup import FPS, StillCamera
from .test_table_setup_kits import DI_FORM, SP_FORM, _island_table, _landings, _pennant_table, _setup_of


class HeldFlags:
    """A reader's opening kit whose next :meth:`flags` call, once :meth:`hold` is called, waits
    until :meth:`let_go` (``entered`` says it is waiting); every other call and attribute is the
    kit's own."""

    def __init__(self, kit):
        self.kit, self.armed = kit, False
        self.entered, self.released = threading.Event(), threading.Event()

    def __getattr__(self, name):
        return getattr(self.kit, name)

    def hold(self) -> None:
        self.armed = True

    def let_go(self) -> None:
        self.released.set()

    def flags(self, *args, **kwargs):
        if self.armed:
            self.armed = False
            self.entered.set()
            assert self.released.wait(60), "the test never let the held check go"
        return self.kit.flags(*args, **kwargs)


def _serve(reader, tmp_path):
    reader.kit = HeldFlags(reader.kit)
    lobby = Lobby(None, tmp_path, reader=reader)
    server = make_server(create_app(lobby), "127.0.0.1", 0, 12)
    threading.Thread(target=server.run, daemon=True).start()      # ends with the test process
    return lobby, f"http://127.0.0.1:{server.effective_port}"


def _call(base, path, token, payload=None):
    request = urllib.request.Request(base + path, method="POST", data=json.dumps(payload or {}).encode(),
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _start_held(lobby, base, form):
    """Send the referee's start on a thread and wait until it is checking the flags; returns
    the thread and where its answer goes (``[(status, body)]``)."""
    answer: list = []
    kit = lobby.reader.kit
    kit.hold()
    thread = threading.Thread(target=lambda: answer.append(_call(base, "/api/table/start", lobby.referee_token, form)))
    thread.start()
    assert kit.entered.wait(30), "the start never checked the table"
    return thread, answer


def _refused(thread, answer, lobby, reason):
    lobby.reader.kit.let_go()
    thread.join(60)
    status, body = answer[0]
    assert status == 409 and body["error"] == reason, (status, body)
    assert body["message"].endswith(".") and "\n" not in body["message"]
    assert lobby.session is None                              # nothing started


def test_a_start_while_the_table_is_read_again_is_refused_then_works(tmp_path):
    """Scout Pennant: the referee starts; while the start checks the reading, "Read again" is
    asked and the camera reads the table anew: the start is refused ("read_again"); asked
    again, it starts the game on the new reading."""
    reader = table_reader(StillCamera(_pennant_table(_setup_of(SP_FORM))), None, FPS, None, game_id="scout-pennant")
    try:
        lobby, base = _serve(reader, tmp_path)
        assert reader.read_done.wait(60), reader.status
        first = reader.revision
        thread, answer = _start_held(lobby, base, SP_FORM)
        assert _call(base, "/api/table/read", lobby.referee_token) == (202, {"queued": True})
        assert reader.read_done.wait(60) and reader.revision > first         # read anew meanwhile
        _refused(thread, answer, lobby, "read_again")
        assert _call(base, "/api/table/start", lobby.referee_token, SP_FORM)[0] == 201
        assert lobby.session.header["setup"]["players"] == _setup_of(SP_FORM)["players"]
    finally:
        reader.stop()


def test_a_start_while_a_player_chooses_again_is_refused_then_works(tmp_path):
    """Discovery Island: both players have chosen and the referee starts; while the start
    checks the table against the choices, the first walker's chooser picks another hex: the
    start is refused ("choices_changed") and starts nothing on the old choice; asked again, it
    starts with the new one."""
    jungle = _landings("jungle", 3)
    reader = table_reader(StillCamera(_island_table("back:jungle")), None, FPS, None, game_id="discovery-island")
    try:
        lobby, base = _serve(reader, tmp_path)
        assert reader.read_done.wait(120), reader.status
        referee = lobby.referee_token
        assert _call(base, "/api/table/start", referee, DI_FORM) == (201, {"state": "choosing"})
        seat = {s: lobby.tokens()[str(s)] for s in (0, 1)}
        assert _call(base, "/api/choices", seat[0], {"equipment": [], "landing": jungle[2]})[0] == 200
        assert _call(base, "/api/choices", seat[1], {"equipment": [], "landing": jungle[0]}) == (200, {"state": "chosen"})
        thread, answer = _start_held(lobby, base, {"game": "discovery-island"})
        assert _call(base, "/api/choices", seat[1], {"equipment": [], "landing": jungle[1]}) == (200, {"state": "chosen"})
        _refused(thread, answer, lobby, "choices_changed")
        assert lobby.draft is not None and lobby.draft.setup["landing"][0] == jungle[1]
        assert _call(base, "/api/table/start", referee, {"game": "discovery-island"})[0] == 201
        assert lobby.session.header["setup"]["landing"] == [jungle[1], jungle[2]]
    finally:
        reader.stop()
