"""Normalised cross-correlation, the ways :mod:`.flat_art` needs it fast.

- :func:`correlate`, :func:`correlate_planes`: ``cv2.matchTemplate`` with ``TM_CCOEFF_NORMED``
  per channel, averaged over the channels;
- :class:`Spectra`: the same for many templates of one size against one image, the image's
  DFTs and window sums made once (the coarse pass over a whole table);
- :func:`masked_ncc`: ``TM_CCOEFF_NORMED`` with a mask (a cut-out), as OpenCV computes it, from
  plain single-channel ``TM_CCORR`` calls: ``matchTemplate`` with a mask costs about 0.4 ms a
  call on a 57 x 57 image whatever the template, a plain single-channel call about 0.02 ms;
- :func:`block_ncc` and its prepared form (:func:`block_cut`, :func:`block_template`,
  :func:`prepared_block_nccs`): the correlation in each block of a grid, from the blocks'
  sums (:func:`~.flat_art.block_score`).

Images are numpy arrays ``(H, W)`` or ``(H, W, C)`` float32, as OpenCV takes them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple, Sequence

import cv2
import numpy as np


class BlockCut(NamedTuple):
    """Blocks of an ``h`` x ``w`` template: rows ``ys[i]:ys[i+1]``, columns ``xs[j]:xs[j+1]``
    (``(blocks + 1,) int``, strictly increasing from 0 to h and w) and each block's pixels
    ``(blocks, blocks) float64``."""

    ys: np.ndarray
    xs: np.ndarray
    pixels: np.ndarray


@functools.lru_cache(maxsize=64)
def block_cut(h: int, w: int, blocks: int) -> BlockCut:
    """An ``h`` x ``w`` template cut into ``blocks`` x ``blocks`` blocks (as ``np.linspace``
    rounds down)."""
    ys = np.linspace(0, h, blocks + 1).astype(int)
    xs = np.linspace(0, w, blocks + 1).astype(int)
    return BlockCut(ys, xs, (np.diff(ys)[:, None] * np.diff(xs)[None, :]).astype(np.float64))


class BlockTemplate(NamedTuple):
    """The templates' side of :func:`prepared_block_nccs`, for ``k`` templates of one shape:
    their values ``(k, h, w * C) float64`` (channels side by side in each row, as a
    C-channel image's memory holds them), their channel count ``C``, and per template its
    blocks' sums of values and of squares over pixels and channels and its blocks' spread
    ``max(squares - sums^2 / n, 0)`` (``n`` values a block), ``(k, blocks, blocks) float64``
    each."""

    values: np.ndarray
    channels: int
    sums: np.ndarray
    squares: np.ndarray
    spread: np.ndarray


def _rows(image: np.ndarray) -> np.ndarray:
    """An ``(h, w, C)`` or ``(h, w)`` array as ``(h, w * C)`` (channels side by side), a view
    when the rows are contiguous."""
    return image.reshape(image.shape[0], -1)


def _block_sums(values: np.ndarray, cut: BlockCut, channels: int) -> np.ndarray:
    """The sums of ``values`` ``(..., h, w * C)`` over each block of ``cut`` (each block's
    columns times ``channels``): ``(..., blocks, blocks) float64``; along the rows first (the
    contiguous axis: several times faster than reducing across rows first)."""
    return np.add.reduceat(np.add.reduceat(values, cut.xs[:-1] * channels, axis=-1), cut.ys[:-1], axis=-2)


def block_template(templates: np.ndarray | Sequence[np.ndarray], cut: BlockCut) -> BlockTemplate:
    """:class:`BlockTemplate` of one template or a sequence of them, each ``(h, w, C)`` or
    ``(h, w)`` float32, all of one shape (one template: ``k`` = 1)."""
    stack = np.asarray(templates, np.float64)
    stack = stack[None] if isinstance(templates, np.ndarray) else stack
    channels = 1 if stack.ndim == 3 else stack.shape[3]
    values = stack.reshape(*stack.shape[:2], -1)
    sums, squares = _block_sums(np.stack([values, values * values]), cut, channels)
    n = cut.pixels * channels
    return BlockTemplate(values, channels, sums, squares, np.maximum(squares - sums * sums / n, 0.0))


def block_ncc(a: np.ndarray, b: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """The normalised cross-correlation (over a block's pixels and channels at
    once) of ``a`` and ``b`` ``(h, w, C) float32`` in every block ``ys[i]:ys[i+1]``,
    ``xs[j]:xs[j+1]`` (strictly increasing bounds from 0 to h and w): ``(len(ys) - 1,
    len(xs) - 1) float64``, 0 where either block is flat. Computed from each block's sums of
    ``a``, ``b``, ``a^2``, ``b^2`` and ``ab`` (float64, ``np.add.reduceat``)."""
    ys, xs = np.asarray(ys), np.asarray(xs)
    cut = BlockCut(ys, xs, (np.diff(ys)[:, None] * np.diff(xs)[None, :]).astype(np.float64))
    return prepared_block_nccs([a], block_template(b, cut), cut)[0]


def prepared_block_nccs(images: Sequence[np.ndarray], templates: BlockTemplate, cut: BlockCut) -> np.ndarray:
    """:func:`block_ncc` of ``k`` pairs at once, the templates prepared together
    (:func:`block_template`): ``images`` ``(h, w, C)`` or ``(h, w)`` float32 (e.g. a patch's
    gradient and colour images), ``images[i]`` paired with template ``i``. Returns ``(k,
    blocks, blocks) float64``; every pair's block sums are taken in one pass."""
    per_pixel = np.empty((3, *templates.values.shape))            # a, a^2, ab of every pair
    for i, a in enumerate(images):
        per_pixel[0, i] = _rows(a)
    np.multiply(per_pixel[0], per_pixel[0], out=per_pixel[1])
    np.multiply(per_pixel[0], templates.values, out=per_pixel[2])
    sa, saa, sab = _block_sums(per_pixel, cut, templates.channels)
    n = cut.pixels * templates.channels
    var_a = np.maximum(saa - sa * sa / n, 0.0)
    den = np.sqrt(var_a * templates.spread)
    return np.where(den > 1e-9, (sab - sa * templates.sums / n) / np.maximum(den, 1e-300), 0.0)


def correlate(image: np.ndarray, template: np.ndarray) -> np.ndarray:
    """Normalised cross-correlation of a multi-channel ``template`` ``(h, w, C) float32`` at
    every place in ``image`` ``(H, W, C) float32``: the mean over channels of each channel's
    ``cv2.matchTemplate(..., TM_CCOEFF_NORMED)`` (one channel at a time is several times faster
    in OpenCV than all at once), ``(H - h + 1, W - w + 1) float32``."""
    channels = template.shape[2] if template.ndim == 3 else 1
    if channels == 1:
        return cv2.matchTemplate(image, template, cv2.TM_CCOEFF_NORMED)
    out = cv2.matchTemplate(np.ascontiguousarray(image[..., 0]), np.ascontiguousarray(template[..., 0]),
                            cv2.TM_CCOEFF_NORMED)
    for c in range(1, channels):
        out += cv2.matchTemplate(np.ascontiguousarray(image[..., c]), np.ascontiguousarray(template[..., c]),
                                 cv2.TM_CCOEFF_NORMED)
    return out / channels


def correlate_planes(image: Sequence[np.ndarray], template: Sequence[np.ndarray]) -> np.ndarray:
    """:func:`correlate` of an image and a template given as lists of ``(H, W)`` and ``(h, w)``
    float32 channel planes (the image's may be views with a row stride)."""
    out = cv2.matchTemplate(image[0], template[0], cv2.TM_CCOEFF_NORMED)
    for img, tpl in zip(image[1:], template[1:]):
        out += cv2.matchTemplate(img, tpl, cv2.TM_CCOEFF_NORMED)
    return out / len(template)


def template_spectrum(template: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, float]:
    """One template plane ``(h, w) float32`` ready for :meth:`Spectra.correlate`: ``(the DFT
    (cv2.dft's packed real format, ``size`` float32) of the template less its mean, zero-padded
    to ``size``; the template's norm about its mean, sqrt(sum (t - mean)^2))``."""
    centred = template.astype(np.float64) - template.mean(dtype=np.float64)
    padded = np.zeros(size, np.float32)
    padded[:template.shape[0], :template.shape[1]] = centred
    return cv2.dft(padded), float(np.sqrt((centred * centred).sum()))


#: :class:`Spectra` counts a window flat (correlation 0) when its variance is under this share
#: of the image's mean energy per pixel (a window off the frame, all but black): there the
#: DFT's float32 rounding, relative to the whole image, is larger than the window's own signal,
#: and ``cv2.matchTemplate``'s result is noise (it moved by 0.2 when the board moved by 2e-7)
FLAT_SHARE = 1e-5


class Spectra:
    """An image's channel planes ready to be correlated with many templates of one size:
    :func:`correlate_planes` (``cv2.matchTemplate`` with ``TM_CCOEFF_NORMED`` per channel,
    averaged) with the image's DFTs and window sums made once instead of once per template.

    The response at each place is ``sum((I - mean_I) (T - mean_T)) / (|I - mean_I| |T -
    mean_T|)`` over the template's window: the numerator by the DFT (``cv2.mulSpectrums``,
    zero padding to ``cv2.getOptimalDFTSize``, so no wrap-around reaches a valid place), the
    image's window sums by integral images (float64), and a flat window (its variance under
    ``min(0.5, 10 FLT_EPSILON sum I^2)``) or a ratio past 1 handled as OpenCV's
    ``matchTemplate`` does (0; +-1 up to 1.125), so that the two agree to float32 rounding.

    Parameters
    ----------
    planes : list of (H, W) float32
        The image's channels (views with a row stride are fine).
    template_shape : (h, w)
        The templates' size, at most (H, W).
    """

    def __init__(self, planes: Sequence[np.ndarray], template_shape: tuple[int, int]):
        th, tw = template_shape
        height, width = planes[0].shape
        self.out_shape = (height - th + 1, width - tw + 1)
        self.size = (cv2.getOptimalDFTSize(height), cv2.getOptimalDFTSize(width))
        area = float(th * tw)
        self.spectra, self.inverse = [], []
        for plane in planes:
            padded = np.zeros(self.size, np.float32)
            padded[:height, :width] = plane
            self.spectra.append(cv2.dft(padded))
            s1, s2 = cv2.integral2(np.ascontiguousarray(plane), sdepth=cv2.CV_64F)
            win1 = s1[th:, tw:] - s1[:-th, tw:] - s1[th:, :-tw] + s1[:-th, :-tw]
            win2 = s2[th:, tw:] - s2[:-th, tw:] - s2[th:, :-tw] + s2[:-th, :-tw]
            diff2 = np.maximum(win2 - win1 * win1 / area, 0.0)
            # flat as OpenCV has it, and also a window all but empty next to the image's energy:
            # the DFT's rounding (relative to the whole image) would swamp its correlation there
            floor = FLAT_SHARE * area * float(np.mean(np.square(plane, dtype=np.float64)))
            flat = (diff2 <= np.minimum(0.5, 10 * np.finfo(np.float32).eps * win2)) | (diff2 <= floor)
            # 1 / the window's norm about its mean; 0 on a flat window (OpenCV's 0 there)
            self.inverse.append(np.where(flat, 0.0, 1.0 / np.sqrt(np.where(flat, 1.0, diff2))).astype(np.float32))

    def correlate(self, template: Sequence[tuple[np.ndarray, float]]) -> np.ndarray:
        """The mean over channels of each channel's normalised cross-correlation with a
        template given per channel as :func:`template_spectrum` made it at :attr:`size`:
        ``out_shape`` float32, -1..1."""
        rows, cols = self.out_shape
        out = None
        for spectrum, inverse, (tpl_spectrum, norm) in zip(self.spectra, self.inverse, template):
            if norm < np.finfo(np.float64).eps:
                r = np.ones(self.out_shape, np.float32)              # a flat template: OpenCV's 1 everywhere
            else:
                num = cv2.idft(cv2.mulSpectrums(spectrum, tpl_spectrum, 0, conjB=True),
                               flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)[:rows, :cols]
                r = num * (inverse * np.float32(1.0 / norm))
                if r.max() >= 1.0 or r.min() <= -1.0:                # rounding past 1: +-1 up to 1.125, else 0
                    past = np.abs(r) >= 1.0
                    r[past] = np.where(np.abs(r[past]) < 1.125, np.sign(r[past]), 0.0)
            if out is None:
                out = r
            else:
                out += r
        return out / np.float32(len(template))


#: a window whose spread over the cut-out is below this (grey levels squared per pixel and
#: channel) is flat: :func:`masked_ncc` scores it -1, as a constant window has no correlation
FLAT_VARIANCE = 1.0


@dataclass(frozen=True)
class Pattern:
    """A cut-out ready for :func:`masked_ncc`.

    Attributes
    ----------
    channels : (C, h, w) float32
        Each channel less its mean over the cut-out, 0 off it.
    mask : (h, w) float32
        1 on the cut-out, 0 off it.
    pixels : int
        Pixels of the cut-out.
    norm2 : float
        Sum of squares of ``channels``.
    """

    channels: np.ndarray
    mask: np.ndarray
    pixels: int
    norm2: float


def pattern(image: np.ndarray, mask: np.ndarray) -> Pattern:
    """A template and its cut-out, ready for :func:`masked_ncc`.

    Parameters
    ----------
    image : (h, w, C) or (h, w) float
    mask : (h, w) bool
        The cut-out.

    Returns
    -------
    Pattern

    Raises
    ------
    ValueError
        When the cut-out is empty or its shape is not the image's.
    """
    img = np.asarray(image, np.float32)
    img = img[..., None] if img.ndim == 2 else img
    m = np.asarray(mask, bool)
    if m.shape != img.shape[:2] or not m.any():
        raise ValueError(f"a cut-out of shape {m.shape} with {int(m.sum())} pixels does not fit an image of "
                         f"shape {img.shape[:2]}")
    chans = np.moveaxis(img, -1, 0).copy()
    for ch in chans:
        ch[m] -= ch[m].mean()
        ch[~m] = 0.0
    return Pattern(np.ascontiguousarray(chans), m.astype(np.float32), int(m.sum()), float((chans ** 2).sum()))


def masked_ncc(image: np.ndarray, pat: Pattern) -> np.ndarray:
    """Masked normalised cross-correlation of ``pat`` at every place it fits in ``image``.

    Parameters
    ----------
    image : (H, W, C) or (H, W) float32
        ``C`` equal to the pattern's channels; ``H >= h``, ``W >= w``.
    pat : Pattern

    Returns
    -------
    (H - h + 1, W - w + 1) float32
        At ``(y, x)``, the pattern's top-left there: ``sum_c sum_m T'_c I_c / sqrt(|T'|^2 *
        sum_c (sum_m I_c^2 - (sum_m I_c)^2 / n))`` over the cut-out ``m`` of ``n`` pixels, ``T'``
        the pattern less its means; the same as OpenCV's masked ``TM_CCOEFF_NORMED``. -1 where the
        window is flat over the cut-out (``FLAT_VARIANCE``). Raises cv2.error when the pattern
        is larger than the image.
    """
    img = np.asarray(image, np.float32)
    img = img[..., None] if img.ndim == 2 else img
    num = sum1 = None
    sq = np.zeros(img.shape[:2], np.float32)
    for c in range(img.shape[2]):
        ch = np.ascontiguousarray(img[..., c])
        part = cv2.matchTemplate(ch, pat.channels[c], cv2.TM_CCORR)
        s1 = cv2.matchTemplate(ch, pat.mask, cv2.TM_CCORR)
        num = part if num is None else num + part
        sum1 = s1 * s1 if sum1 is None else sum1 + s1 * s1
        sq += ch * ch
    var = cv2.matchTemplate(sq, pat.mask, cv2.TM_CCORR) - sum1 / pat.pixels
    flat = var < FLAT_VARIANCE * pat.pixels * img.shape[2]
    out = num / np.sqrt(np.maximum(var, 1e-6) * max(pat.norm2, 1e-6))
    out[flat] = -1.0
    return out
