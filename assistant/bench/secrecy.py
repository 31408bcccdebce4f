"""The leak probe: two sessions with the same public history and different secrets, asked the
same things by every role; any difference in an answer to a role that may not know the
difference is a leak (the principle of :mod:`assistant.referee.door`).

A :class:`Pair` is made per game by playing a random history in session A (the referee posts
legal events, the engine fills in what its own decks and layouts hold), then changing one secret
in the set-up of session B (two face-down tiles, two storm or equipment cards swapped; a
walker's landing among those its own observations allow; two clues of the checkometer; the
d8 rolls still to come) and replaying A's events in B. A role *may not know the difference*
while what the game lets it know (its view, and every applied event as it may see it) is the
same in both; the table, every player and a foreign token start so.

:meth:`Pair.probe` then sends random requests to both: every route, the live stream, the events
a role is offered, events carrying the true or a wrong observation, another seat's events,
undo, set-up changes, garbage. It reports each answer that differs for such a role (a leak),
each role that came to know the difference through an event that reveals nothing (a leak of
the views) and each answer of 500 or more. Requests of the referee advance the history
(its answers may differ); when the histories part, the probe stops.

The choices come from a :class:`Chooser`: :class:`RandomChooser` for ``assistant bench
secrets``, a hypothesis-driven one in the tests.
"""

from __future__ import annotations

import json
import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

from ..referee.session import Session, SessionError

FORGED = "forged-token-of-nobody"
GAMES = ("forbidden-desert", "discovery-island", "scout-pennant")


class Chooser(Protocol):
    """Where the probe's random choices come from."""

    def pick(self, items: Sequence[Any]) -> Any:
        """One of ``items`` (not empty)."""

    def number(self, low: int, high: int) -> int:
        """An integer in ``low..high`` inclusive."""


class RandomChooser:
    """Choices from a seeded :class:`random.Random`."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def pick(self, items: Sequence[Any]) -> Any:
        return items[self.rng.randrange(len(items))]

    def number(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)


@dataclass
class Finding:
    """Something the probe found: ``kind`` is ``"leak"`` (answers differ for a role that may
    not know the difference), ``"view_leak"`` (a role came to know it through an event that
    reveals nothing) or ``"server_error"`` (a status of 500 or more)."""

    kind: str
    role: str
    request: str
    detail: str = ""


@dataclass
class Pair:
    """Two sessions of one game, A and B, with the same tokens and public history."""

    game_id: str
    a: Session
    b: Session
    secret: str                                         #: what differs, in words
    ignorant: set[str] = field(default_factory=set)
    findings: list[Finding] = field(default_factory=list)
    requests: int = 0

    def __post_init__(self) -> None:
        from ..server.app import create_app

        self.b.tokens = dict(self.a.tokens)
        self.clients = (create_app(self.a).test_client(), create_app(self.b).test_client())
        self.roles = ["public", "referee", "forged", *map(str, range(self.a.seats))]
        self.ignorant = {r for r in self.roles if r != "referee" and self.knowledge(self.a, r) == self.knowledge(self.b, r)}

    @staticmethod
    def seat(role: str) -> int | None:
        """The seat of a role key (``"0"``...), else ``None``."""
        return int(role) if role.isdigit() else None

    def knowledge(self, s: Session, role: str) -> str:
        """What the game lets ``role`` know in ``s``: its view and the applied events as it may
        see them (a foreign token knows nothing)."""
        if role == "forged":
            return ""
        seat = self.seat(role)
        events = [s.game.event_view(a.obj, seat) for a in s.applied]
        return json.dumps([s.game.view(s.state, seat), events], sort_keys=True, default=str)

    def headers(self, role: str) -> dict[str, str]:
        """The ``Authorization`` header of a role (none for the table)."""
        token = {"public": None, "forged": FORGED}.get(role, self.a.tokens.get(role))
        return {"Authorization": f"Bearer {token}"} if token else {}

    def ask(self, role: str, method: str, path: str, body: bytes | None = None) -> tuple[tuple[int, bytes], ...]:
        """Send one request to both sessions; the ``(status, body)`` answers (a live stream's
        first message as its body)."""
        headers = self.headers(role)
        if body is not None:
            headers["Content-Type"] = "application/json"
        out = []
        for client in self.clients:
            response = client.open(path, method=method, data=body, headers=headers)
            if response.mimetype == "text/event-stream":
                chunk = next(iter(response.response))
                response.close()
                data = chunk if isinstance(chunk, bytes) else chunk.encode()
            else:
                data = response.get_data()
            out.append((response.status_code, data))
        self.requests += 1
        return tuple(out)

    def step(self, role: str, method: str, path: str, body: bytes | None = None) -> bool:
        """One request to both, judged; returns ``False`` once the histories have parted."""
        before = len(self.a.applied)
        (sa, da), (sb, db) = self.ask(role, method, path, body)
        what = f"{method} {path} {body[:200].decode('utf-8', 'replace') if body else ''}".strip()
        for status in (sa, sb):
            if status >= 500:
                self.findings.append(Finding("server_error", role, what, str(status)))
        if role in self.ignorant and (sa, da) != (sb, db):
            self.findings.append(Finding("leak", role, what, f"A: {sa} {da[:300]!r}; B: {sb} {db[:300]!r}"))
        if len(self.a.applied) != len(self.b.applied) or sa != sb:
            return False
        if len(self.a.applied) > before:
            applied = self.a.applied[-1].obj
            may = learners(self.game_id, applied, self.roles)
            for r in sorted(self.ignorant):
                if self.knowledge(self.a, r) != self.knowledge(self.b, r):
                    self.ignorant.discard(r)
                    if r not in may:
                        self.findings.append(Finding("view_leak", r, json.dumps(applied)))
        return True

    # -- what to ask ----------------------------------------------------------------------------

    def _events_for(self, chooser: Chooser, role: str) -> Any:
        """An event object for ``role`` to post: one it is offered, one of its own events as the
        engine completes it (true observations included), one with an observation changed,
        another seat's event, or garbage. Events that carry observations are preferred."""
        game, state, start = self.a.game, self.a.state, self.a.start_state
        seat = self.seat(role)
        how = chooser.pick(["offered"] * 3 + ["complete"] * 3 + ["observed"] * 2 + ["other", "garbage"])
        if how == "offered":
            pool = self.a.legal(seat)
        else:
            everything = game.legal_events(state)
            pool = [e for e in everything if how == "other" or seat is None or game.poster(e) == seat] or everything
        if not pool:
            return {"actor": seat, "type": "end_turn"}
        rich = [e for e in pool if game.observations(start, e)]
        event = chooser.pick(rich if rich and chooser.number(0, 2) else pool)
        obj = (event if how == "offered" else game.complete(state, event)).to_json()
        if how == "observed":
            names = game.observations(start, event) or ("value",)
            obj[chooser.pick(list(names))] = chooser.pick(OBSERVED.get(self.game_id, [None]))
        if how == "garbage":
            obj = chooser.pick([[1, 2], {"actor": seat}, {"actor": seat, "type": "fly"}, "x", None,
                                {**obj, "actor": chooser.number(-1, 7)}])
        return obj

    def _request(self, chooser: Chooser, role: str) -> tuple[str, str, bytes | None]:
        n = self.a.seats
        k = chooser.number(0, n)
        kind = chooser.pick(["get"] * 3 + ["event"] * 6 + ["post"])
        if kind == "get":
            return "GET", chooser.pick(["/api/snapshot", "/api/legal", "/api/stream", "/api/record",
                                        f"/api/join/{k}.svg", "/api/camera.jpg", "/api/openapi.json", "/",
                                        f"/seat/{k}", "/api/nowhere"]), None
        if kind == "event":
            return "POST", "/api/events", json.dumps(self._events_for(chooser, role)).encode()
        path, payload = chooser.pick([("/api/undo", {}), ("/api/setup", {"landing": [k, k]}),
                                      ("/api/setup", {"first_player": k}), ("/api/reread", {"cells": [[k, k]]}),
                                      (f"/api/notices/{k}/dismiss", {})])
        return "POST", path, json.dumps(payload).encode()

    def probe(self, chooser: Chooser, steps: int) -> list[Finding]:
        """Send up to ``steps`` random requests (see the module docstring), then, unless the
        histories parted, open every ignorant role's live stream once more; returns the findings."""
        askers = ["public", "forged", *[r for r in self.roles if r.isdigit()] * 3] * 3 + ["referee"]
        for _ in range(steps):
            role = chooser.pick(askers)
            if role == "referee":                      # the referee advances the history
                offered = self.a.legal("referee")
                if not offered:
                    continue
                ok = self.step(role, "POST", "/api/events", json.dumps(chooser.pick(offered).to_json()).encode())
            else:
                ok = self.step(role, *self._request(chooser, role))
            if not ok:
                return self.findings                   # the histories parted: nothing more to compare
        for role in sorted(self.ignorant):
            self.step(role, "GET", "/api/stream")
        return self.findings


def learners(game_id: str, event: dict[str, Any], roles: list[str]) -> set[str]:
    """The roles an applied event may show a secret to, from the rules' tables of who knows what
    (Forbidden Desert §5.1, Discovery Island §6.1, Scout Pennant §5.1), kept apart from the
    engine's views so that a view that says too much is caught: a Terrascope shows a face to
    its holder; an excavation, a storm card drawn or peeked at, a reshuffle, an opened cache
    and a d8 roll show to everyone; a clue to the walker who learns it; a step, a "hav" or a
    relocation tell the walker about its own hex (its opponent knows it already)."""
    kind, actor = event.get("type"), event.get("actor")
    everyone = set(roles) - {"forged"}
    if game_id == "forbidden-desert":
        if kind == "play_equipment":
            return {str(actor)} if event.get("card") == "terrascope" else everyone if event.get("card") == "storm_tracker" else set()
        return everyone if kind in ("excavate", "draw_storm", "storm_card", "meteorologist_peek", "reshuffle") else set()
    if game_id == "discovery-island":
        if kind == "open_cache":
            return everyone
        if kind == "relocate":
            return {str(1 - actor)}
        return {str(actor)} if kind in ("learn_clue", "choose_direction", "sea_refused", "enter_checkpoint",
                                        "enter_cache") else set()
    return everyone if kind == "roll" else set()


#: wrong (or right) observations a probe tries, per game
OBSERVED: dict[str, list[Any]] = {
    "forbidden-desert": ["launch_pad", "gear", "well", "mirage", "tunnel", "clue_engine_row", "jet_pack",
                         "dune_blaster", "sun_beats_down", "wind_n_1", ["wind_n_1", "sun_beats_down"], None],
    "discovery-island": [True, False, {"type": "empty"}, {"type": "terrain", "terrain": "jungle"},
                         {"type": "symbol", "symbol": "cave"}],
    "scout-pennant": [1, 4, 8],
}


# -- making pairs ----------------------------------------------------------------------------------

def _swap(items: list, chooser: Chooser, alike: Callable[[Any, Any], bool]) -> list | None:
    """``items`` with two entries swapped that are ``alike`` (the same kind of secret) yet
    differ; ``None`` when none do."""
    pairs = [(i, j) for i in range(len(items)) for j in range(i + 1, len(items))
             if items[i] != items[j] and alike(items[i], items[j])]
    if not pairs:
        return None
    i, j = chooser.pick(pairs)
    out = list(items)
    out[i], out[j] = out[j], out[i]
    return out


def _desert_setup(chooser: Chooser) -> tuple[dict, dict]:
    from ..games.forbidden_desert.components import ADVENTURERS, equipment_counts
    from ..games.forbidden_desert.simulate import random_setup

    rng = random.Random(chooser.number(0, 10**6))
    others = sorted(set(ADVENTURERS) - {"meteorologist"})
    adventurers = ["meteorologist", *rng.sample(others, chooser.number(1, 3))]
    rng.shuffle(adventurers)
    setup = random_setup(rng, adventurers=adventurers)
    deck = list(equipment_counts(True).elements())
    rng.shuffle(deck)
    hands: list[list[str]] = [[] for _ in setup["players"]]
    for seat, card in ((0, "terrascope"), (1, "storm_tracker"), (0, "dune_blaster")):
        deck.remove(card)
        hands[seat].append(card)
    setup.update(equipment_deck=deck, position={"hands": hands})
    return setup, {"storm_tracker_card": True}


def _desert_secret(setup: dict, a: Session, chooser: Chooser) -> tuple[dict, str] | None:
    """B: the faces of every face-down tile nobody has seen shuffled among those of its back,
    or the storm or equipment cards still unseen in the draw pile shuffled."""
    from ..games.forbidden_desert.components import face_of

    state, rng = a.state, random.Random(chooser.number(0, 10**6))
    other = json.loads(json.dumps(setup))
    what = chooser.pick(["tiles", "storm_deck", "equipment_deck"])
    if what == "tiles":
        cells = [(r, c) for r in range(5) for c in range(5) if setup["layout"][r][c] is not None]
        seen = set().union(*state.scoped)
        for back in ("dune_back", "water_back"):
            hidden = [k for k in range(len(cells)) if state.cfg.backs[k] == back and not state.excavated[k]
                      and k not in seen]
            tiles = [setup["layout"][cells[k][0]][cells[k][1]] for k in hidden]
            rng.shuffle(tiles)
            for k, tile in zip(hidden, tiles):
                other["layout"][cells[k][0]][cells[k][1]] = tile
        differs = any(face_of(x) != face_of(y) for x, y in zip(sum(setup["layout"], []), sum(other["layout"], []))
                      if x and y)
        return (other, "the faces of the unseen tiles") if differs else None
    deck = setup[what]
    pile, seen = (state.pile, state.pile_seen) if what == "storm_deck" else (state.equip_pile, [False] * len(state.equip_pile))
    gone = len(deck) - len(pile)
    if deck[gone:] != pile:                            # a reshuffle or a card sent to the bottom: keep it simple
        return None
    head = gone + sum(seen)
    rest = deck[head:]
    rng.shuffle(rest)
    if rest == deck[head:]:
        return None
    other[what] = deck[:head] + rest
    return other, f"the unseen {what.replace('_', ' ')}"


def _island_setup(chooser: Chooser) -> tuple[dict, dict]:
    from ..games.discovery_island.island import load_map
    from ..games.discovery_island.simulate import random_setup

    return random_setup(random.Random(chooser.number(0, 10**6)), load_map("example")), {}


def _island_secret(setup: dict, a: Session, chooser: Chooser) -> tuple[dict, str] | None:
    other = json.loads(json.dumps(setup))
    if chooser.number(0, 1):
        deal = other["checkometer"]["checkpoints"]
        free = sorted(label for label in deal if label not in a.state.taken)
        swapped = _swap([deal[label] for label in free], chooser, lambda x, y: True)
        if swapped is None:
            return None
        deal.update(zip(free, swapped))
        return other, "the clues of two checkpoints"
    p = chooser.number(0, 1)
    landings = [h for h in a.game.view(a.state, p)["possible_landings"] if h != setup["landing"][p]]
    if not landings:
        return None
    other["landing"][p] = chooser.pick(landings)
    return other, f"where player {p + 1} landed"


def _pennant_setup(chooser: Chooser) -> tuple[dict, dict]:
    from ..games.scout_pennant.simulate import random_setup

    rng = random.Random(chooser.number(0, 10**6))
    setup = random_setup(rng, n_players=chooser.number(2, 4), radius=3, variant="d8")
    setup["rolls"] = [rng.randint(1, 8) for _ in range(60)]
    return setup, {}


def _pennant_secret(setup: dict, a: Session, chooser: Chooser) -> tuple[dict, str] | None:
    other = json.loads(json.dumps(setup))
    made = a.state.rolls_made
    other["rolls"][made] = other["rolls"][made] % 8 + 1
    return other, "the d8 rolls to come"


#: kinds of event the history leaves to the probe (the cards stay in hand to be played by their holders)
SPARE = frozenset({"pass_equipment", "play_equipment", "give_water"})

MAKERS = {"forbidden-desert": (_desert_setup, _desert_secret), "discovery-island": (_island_setup, _island_secret),
          "scout-pennant": (_pennant_setup, _pennant_secret)}


def make_pair(game_id: str, chooser: Chooser, folder: Path, history: int = 12) -> Pair | None:
    """Two sessions of ``game_id`` (records in ``folder``) with the same public history of up
    to ``history`` events and one secret changed; ``None`` when the secret drawn did not survive
    that history (B refused one of A's events, or the table already knows the difference)."""
    make_setup, change = MAKERS[game_id]
    setup, rulings = make_setup(chooser)
    seed = chooser.number(0, 10**6)
    a = Session.start(game_id, setup, rulings, folder / "a.jsonl", rng=random.Random(seed))
    for _ in range(chooser.number(0, history)):
        offered = a.legal("referee")
        if not offered:
            break
        plain = [e for e in offered if e.type not in SPARE]
        a.submit(chooser.pick(plain or offered).to_json(), "referee")
    changed = change(setup, a, chooser)
    if changed is None:
        return None
    other, secret = changed
    b = Session.start(game_id, other, rulings, folder / "b.jsonl", rng=random.Random(seed))
    try:
        for applied in a.applied:
            b.submit(applied.obj, "referee")
    except SessionError:
        return None
    pair = Pair(game_id, a, b, secret)
    return pair if "public" in pair.ignorant else None


# -- the benchmark ------------------------------------------------------------------------------------

def run(seconds: float = 60.0, seed: int = 1, steps: int = 40) -> int:
    """``assistant bench secrets``: probe pairs of each game for a quarter of ``seconds``, then
    fuzz every route with malformed requests for the last quarter (:mod:`.hostile`); print the
    counts.

    Returns
    -------
    int
        0 (a benchmark measures; the tests assert the zeros).
    """
    import time

    from .hostile import fuzz

    chooser = RandomChooser(seed)
    print(f"secrets: two sessions, same public history, one secret changed; {steps} random requests each "
          f"(seed {seed})")
    for game_id in GAMES:
        deadline = time.monotonic() + seconds / 4
        pairs = skipped = requests = 0
        kinds: dict[str, int] = {}
        while time.monotonic() < deadline:
            with tempfile.TemporaryDirectory() as folder:
                pair = make_pair(game_id, chooser, Path(folder))
                if pair is None:
                    skipped += 1
                    continue
                pair.probe(chooser, steps)
                pairs, requests = pairs + 1, requests + pair.requests
                for f in pair.findings:
                    kinds[f.kind] = kinds.get(f.kind, 0) + 1
                    if kinds[f.kind] <= 3:
                        print(f"  {game_id}: {f.kind} to {f.role}: {f.request} ({f.detail[:200]})")
        print(f"  {game_id}: {pairs} pairs ({skipped} secrets drawn were known to the table), {requests} "
              f"requests: {kinds.get('leak', 0)} leaks, {kinds.get('view_leak', 0)} view leaks, "
              f"{kinds.get('server_error', 0)} server errors")
    return fuzz(seconds / 4, seed)
