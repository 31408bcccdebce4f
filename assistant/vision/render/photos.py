"""Component pictures loaded at run time from a folder the caller names (e.g. real photos).

The photos in ``/work/shared/components/<game>/`` are the publisher's artwork: they are read
from there when a caller points at the folder, never copied into the repository. A
:class:`ComponentImages` source answers the same labels as :mod:`.art` (``tile:well``,
``back:dune_back``, ``storm:wind_n_1``, ``part:engine``...) or a file's own ``folder/stem``, so a
scene can be rendered with the real art in place of the procedural one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

EXTENSIONS = (".png", ".jpg", ".jpeg", ".webp")


def forbidden_desert_paths() -> dict[str, str]:
    """Art label -> file stem under ``components/forbidden-desert/`` (README there: file name =
    label). Tiles of one kind share a class; the first photo of the kind is used
    (``tile:gear`` -> ``tiles/gear_1``), and a tile id such as ``tile:gear_5`` names its own photo.

    >>> forbidden_desert_paths()["storm:wind_n_2"], forbidden_desert_paths()["back:water_back"]
    ('storm-cards/wind_N_2', 'tile-backs/water')
    """
    paths = {"back:dune_back": "tile-backs/dune", "back:water_back": "tile-backs/water",
             "back:crash_site": "tile-backs/crash_site", "storm:back": "storm-cards/back",
             "storm:sun_beats_down": "storm-cards/sun_beats_down", "storm:storm_picks_up": "storm-cards/storm_picks_up"}
    for kind, first in (("well", "well_1"), ("mirage", "mirage"), ("tunnel", "tunnel_1"), ("gear", "gear_1"),
                        ("launch_pad", "launch_pad"), ("crash_site", "crash_site")):
        paths[f"tile:{kind}"] = f"tiles/{first}"
    for i in range(1, 9):
        paths[f"tile:gear_{i}"] = f"tiles/gear_{i}"
    for i in range(1, 4):
        paths[f"tile:tunnel_{i}"] = f"tiles/tunnel_{i}"
    for i in (1, 2):
        paths[f"tile:well_{i}"] = f"tiles/well_{i}"
    for part in ("propeller", "solar_crystal", "engine", "navigation_deck"):
        paths[f"part:{part}"] = f"parts/{part}"
        for axis in ("row", "column"):
            paths[f"tile:clue_{part}_{axis}"] = f"tiles/clue_{part}_{axis}"
    for d in "nesw":
        for k in (1, 2, 3):
            paths[f"storm:wind_{d}_{k}"] = f"storm-cards/wind_{d.upper()}_{k}"
    return paths


@dataclass
class ComponentImages:
    """Pictures of components read from ``root`` by label.

    Parameters
    ----------
    root : str or Path
        A folder such as ``../shared/components/forbidden-desert`` (relative to the working
        directory, or absolute).
    paths : dict label -> file stem (relative to ``root``, no extension), optional
        Defaults to :func:`forbidden_desert_paths`; labels not in it are tried as a stem
        themselves (``"tiles/gear_3"``).
    trim : float
        Fraction of each side cut off when loading (the photos show a little table at their
        edges), in ``[0, 0.25]``.
    fallback : object with ``load(label)``, optional
        Asked for labels the folder has no file for (the photos have no sand markers, for
        instance: pass ``ProceduralArt()``).

    Examples
    --------
    >>> src = ComponentImages("/nonexistent/folder")
    >>> src.available
    False
    >>> src.load("tile:well")
    Traceback (most recent call last):
    ...
    FileNotFoundError: no picture for 'tile:well' under /nonexistent/folder (tried tiles/well_1.png, .jpg, .jpeg, .webp)
    """

    root: str | Path
    paths: dict[str, str] | None = None
    trim: float = 0.0
    fallback: object | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        self.root = Path(self.root)
        if self.paths is None:
            self.paths = forbidden_desert_paths()
        if not 0.0 <= self.trim <= 0.25:
            raise ValueError(f"trim must be in [0, 0.25], got {self.trim}")

    @property
    def available(self) -> bool:
        """Whether the folder exists."""
        return self.root.is_dir()

    def path(self, label: str) -> Path | None:
        """The file holding ``label``'s picture, or None."""
        stem = self.paths.get(label, label)
        for ext in EXTENSIONS:
            p = self.root / f"{stem}{ext}"
            if p.is_file():
                return p
        return None

    def labels(self) -> list[str]:
        """The labels of :attr:`paths` whose file exists, sorted."""
        return sorted(lab for lab in self.paths if self.path(lab) is not None)

    def load(self, label: str) -> np.ndarray:
        """The picture of ``label``: ``(H, W, 3)`` BGR, or ``(H, W, 4)`` BGRA when the file has an
        alpha channel (the cut-out parts), ``uint8``; cached; trimmed by :attr:`trim`.

        Raises
        ------
        FileNotFoundError
            When no file holds that label (and there is no fallback), or it cannot be decoded.
        KeyError
            When the fallback has no picture for the label either.
        """
        if label in self._cache:
            return self._cache[label]
        p = self.path(label)
        if p is None and self.fallback is not None:
            return self.fallback.load(label)
        if p is None:
            stem = self.paths.get(label, label)
            raise FileNotFoundError(f"no picture for {label!r} under {self.root} (tried {stem}{', '.join(EXTENSIONS)})")
        img = cv2.imread(str(p), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise FileNotFoundError(f"cannot decode {p}")
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
        if img.dtype != np.uint8:
            img = (img / 257).astype(np.uint8)
        if self.trim:
            h, w = img.shape[:2]
            dy, dx = int(round(h * self.trim)), int(round(w * self.trim))
            img = img[dy:h - dy, dx:w - dx]
        img = np.ascontiguousarray(img)
        img.setflags(write=False)
        self._cache[label] = img
        return img
