"""Own look-alike art for the storm cards, the sand markers and the four parts (see :mod:`.art`).

Storm cards are 63 x 88 mm portrait, drawn with their compass pointing to the board's north
(rules §1.4). A wind card shows ``k`` red squares in a chain and an arrowhead in the direction
the tiles slide; the chain starts at the card's edge on that side, so the four directions also
differ in where the mass of the picture lies; a coloured key band at the foot of the card
(north blue, east green, south red, west violet) with ``k`` white pips, and a parchment that
darkens with the strength (pale, ochre, burnt orange), give colour cues as well. These keys are
not on the real cards: they make each class differ in colour and layout, as the tests demand;
a recogniser meant for the real cards must be enrolled on photos (:mod:`.photos`). The back is red
with a large compass star. Sand markers are 22 mm discs; parts are cut-outs with an alpha
channel.
"""

from __future__ import annotations

import math

import numpy as np

from ._draw import Pen, canvas, gear_outline, part_icon, seed_of, star, tint, triangle, value_noise, vgradient

CARD_MM = (63.0, 88.0)          #: storm card width, height, mm
SAND_MM = 22.0                  #: sand marker diameter, mm
PART_MM = {"propeller": 44.0, "solar_crystal": 32.0, "engine": 42.0, "navigation_deck": 36.0}
DIRECTIONS = {"n": (0.0, -1.0), "e": (1.0, 0.0), "s": (0.0, 1.0), "w": (-1.0, 0.0)}
DIRECTION_KEY = {"n": (200, 120, 30), "e": (60, 160, 40), "s": (40, 40, 190), "w": (160, 50, 130)}
STORM_LABELS = tuple(f"storm:wind_{d}_{k}" for d in "nesw" for k in (1, 2, 3)) + (
    "storm:sun_beats_down", "storm:storm_picks_up", "storm:back")
SAND_LABELS = ("sand:light", "sand:dark")
PART_LABELS = tuple(f"part:{p}" for p in ("propeller", "solar_crystal", "engine", "navigation_deck"))


def _card(label: str, ppm: float) -> tuple[np.ndarray, Pen]:
    img = canvas(*CARD_MM, ppm)
    return img, Pen(img, ppm)


#: parchment tone (top, bottom BGR) by wind strength: pale sand, ochre, burnt orange
STRENGTH_TONE = {1: ((150, 210, 240), (120, 190, 235)), 2: ((80, 160, 225), (60, 140, 215)),
                 3: ((40, 100, 180), (30, 80, 160))}


def _parchment(img: np.ndarray, pen: Pen, label: str, tone=((120, 190, 235), (80, 160, 225))) -> None:
    vgradient(img, 0, img.shape[0], *tone)
    rng = np.random.default_rng(seed_of(label))
    for _ in range(10):
        x, y = rng.uniform(0, CARD_MM[0]), rng.uniform(0, CARD_MM[1])
        a = rng.uniform(0, 2 * math.pi)
        pts = [(x, y)]
        for _ in range(6):
            a += rng.normal(0, 0.7)
            x, y = x + 4.0 * math.cos(a), y + 4.0 * math.sin(a)
            pts.append((x, y))
        pen.polyline(pts, (70, 130, 190), 0.4)


def _wind(label: str, ppm: float) -> np.ndarray:
    d, k = label.split("_")[1], int(label.split("_")[2])
    img, pen = _card(label, ppm)
    _parchment(img, pen, label, STRENGTH_TONE[k])
    w, h = CARD_MM
    dx, dy = DIRECTIONS[d]
    side, head = 14.0, 8.0
    area_h = 68.0                                  # the picture; the key band lies below
    cx, cy = w / 2, area_h / 2
    # the arrowhead's tip near the edge on the wind's side; the squares trail behind it
    reach = (w / 2 - 3.0) if dx else (area_h / 2 - 3.0)
    tip = (cx + dx * reach, cy + dy * reach)
    base = (tip[0] - dx * head, tip[1] - dy * head)
    for i in range(k):
        c = (base[0] - dx * (side / 2 + 1.0 + i * (side + 1.0)), base[1] - dy * (side / 2 + 1.0 + i * (side + 1.0)))
        pen.rect(c[0] - side / 2, c[1] - side / 2, c[0] + side / 2, c[1] + side / 2, (30, 30, 90))
        q = side / 2 - 1.2
        pen.rect(c[0] - q, c[1] - q, c[0] + q, c[1] + q, (40, 40, 190))
    triangle(pen, tip, (dx, dy), head, (30, 30, 90))
    triangle(pen, (tip[0] - dx * 1.5, tip[1] - dy * 1.5), (dx, dy), head - 2.5, (40, 40, 190))
    pen.rect(0, area_h, w, h, DIRECTION_KEY[d])                      # colour key band
    pen.rect(0, area_h, w, area_h + 1.5, (40, 70, 100))
    pen.poly(gear_outline(w / 2, area_h + 10.0, 7.0, 10), (50, 90, 130))   # compass medallion
    pen.poly(star(w / 2, area_h + 10.0, 6.0, 1.5, 4), (150, 210, 240))
    for i in range(k):                                                # strength pips in the band
        pen.circle((8.0 + 6.0 * i, area_h + 10.0), 2.2, (245, 245, 245))
    return img


def _sun(label: str, ppm: float) -> np.ndarray:
    img, pen = _card(label, ppm)
    w, h = CARD_MM
    vgradient(img, 0, int(0.62 * h * ppm), (225, 170, 110), (230, 230, 245))
    vgradient(img, int(0.62 * h * ppm), img.shape[0], (150, 200, 235), (110, 170, 215))
    pen.circle((w / 2, 30.0), 16.0, (170, 250, 255))
    pen.circle((w / 2, 30.0), 11.0, (225, 255, 255))
    for k in range(4):                                              # heat shimmer
        y = 62.0 + 5.0 * k
        pen.polyline([(x, y + 1.2 * math.sin(x / 3.0 + k)) for x in np.linspace(5, w - 5, 20)], (60, 110, 170), 0.7)
    pen.rect(8, 78, w - 8, 84, (70, 90, 110))                        # the line of text
    return img


def _storm(label: str, ppm: float) -> np.ndarray:
    img, pen = _card(label, ppm)
    w, h = CARD_MM
    vgradient(img, 0, img.shape[0], (40, 70, 170), (30, 100, 220))
    pen.circle((12.0, 62.0), 9.0, (120, 220, 255))                   # low sun
    pen.poly([(26, 8), (60, 8), (50, 30), (46, 52), (42, 72), (38, 72), (36, 52), (30, 30)], (45, 45, 60))   # funnel
    for y in range(12, 70, 7):
        pen.line((30 + (y - 8) * 0.25, y), (56 - (y - 8) * 0.25, y + 2), (80, 80, 100), 0.8)
    pen.rect(5, 4, w - 5, 14, (230, 235, 240))                        # title block
    pen.rect(8, 76, w - 8, 84, (20, 40, 90))
    return img


def _back(label: str, ppm: float) -> np.ndarray:
    img, pen = _card(label, ppm)
    w, h = CARD_MM
    img[:] = (40, 60, 160)
    pen.rect(2.5, 2.5, w - 2.5, h - 2.5, (30, 40, 110), 1.2)
    c = (w / 2, h / 2)
    pen.circle(c, 21.0, (30, 45, 120))
    pen.circle(c, 17.0, (60, 110, 190), 1.5)
    pen.poly(star(c[0], c[1], 30.0, 5.0, 4), (150, 215, 245))
    pen.poly(star(c[0], c[1], 16.0, 4.0, 4, -45.0), (80, 150, 225))
    pen.circle(c, 4.0, (30, 45, 120))
    return img


def _with_alpha(img: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return np.dstack([img, mask])


def _sand(label: str, ppm: float) -> np.ndarray:
    s = SAND_MM
    img = canvas(s, s, ppm, (0, 0, 0))
    mask = np.zeros(img.shape[:2], np.uint8)
    Pen(mask, ppm).circle((s / 2, s / 2), s / 2 - 0.3, 255)
    pen = Pen(img, ppm)
    c = (s / 2, s / 2)
    if label == "sand:light":
        img[:] = (165, 210, 235)
        for k in range(5):                                          # ripples
            y = 4.0 + 3.6 * k
            pen.polyline([(x, y + 0.8 * math.sin(x / 2.0 + k)) for x in np.linspace(0, s, 16)], (120, 175, 215), 0.6)
    else:
        img[:] = (45, 80, 130)
        pen.line((5.0, 5.0), (s - 5.0, s - 5.0), (190, 225, 240), 2.6)
        pen.line((s - 5.0, 5.0), (5.0, s - 5.0), (190, 225, 240), 2.6)
    pen.circle(c, s / 2 - 1.0, (60, 90, 120), 0.8)
    tint(img, value_noise(img.shape[:2], seed_of(label), 6), 0.05)
    return _with_alpha(img, mask)


def _part(label: str, ppm: float) -> np.ndarray:
    part = label.split(":", 1)[1]
    s = PART_MM[part]
    img = canvas(s, s, ppm, (0, 0, 0))
    mask = np.zeros(img.shape[:2], np.uint8)
    part_icon(Pen(img, ppm), part, (s / 2, s / 2), s / 2 - 0.5)
    part_icon(Pen(mask, ppm), part, (s / 2, s / 2), s / 2 - 0.5, mono=255)    # its own cut-out
    return _with_alpha(img, mask)


def card_image(label: str, ppm: float = 6.0) -> np.ndarray:
    """A storm card ``(round(88 ppm), round(63 ppm), 3)``, a sand marker ``(S, S, 4)`` or a part
    ``(S, S, 4)`` (BGRA: alpha 255 on the piece), ``uint8``, at ``ppm`` px/mm.

    Raises
    ------
    KeyError
        For a label that is none of :data:`STORM_LABELS`, :data:`SAND_LABELS`, :data:`PART_LABELS`.
    """
    if label.startswith("storm:wind_") and label in STORM_LABELS:
        return _wind(label, ppm)
    makers = {"storm:sun_beats_down": _sun, "storm:storm_picks_up": _storm, "storm:back": _back,
              "sand:light": _sand, "sand:dark": _sand}
    if label in makers:
        return makers[label](label, ppm)
    if label in PART_LABELS:
        return _part(label, ppm)
    raise KeyError(label)


def size_mm(label: str) -> tuple[float, float]:
    """``(width, height)`` mm of a card, sand marker or part.

    Raises
    ------
    KeyError
        For another label.
    """
    if label in STORM_LABELS:
        return CARD_MM
    if label in SAND_LABELS:
        return (SAND_MM, SAND_MM)
    if label in PART_LABELS:
        s = PART_MM[label.split(":", 1)[1]]
        return (s, s)
    raise KeyError(label)
