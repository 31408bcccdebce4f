"""A small classifier for feature rows: a few one-hidden-layer perceptrons, averaged.

Each member is a perceptron with one hidden layer of ``tanh`` units and a softmax output,
fitted by full-batch Adam (Kingma and Ba, ICLR 2015) on the class-balanced cross-entropy plus
an L2 penalty on the weights, from its own starting weights; the members' probabilities are
averaged (an ensemble's errors depend less on where one member started). Features are
standardised with the teaching rows' mean and spread. Numpy only: nothing to install, the
same on a Raspberry Pi.

Shapes: ``M`` members, ``F`` features, ``H`` hidden units, ``C`` classes.

>>> rng = np.random.default_rng(0)
>>> x = np.vstack([rng.normal(0, 1, (50, 2)), rng.normal(4, 1, (50, 2))])
>>> y = np.repeat([0, 1], 50)
>>> net = Perceptrons.fit(x, y, 2, hidden=8, steps=300, members=2)
>>> net.predict(np.array([[0.0, 0.0], [4.0, 4.0]])).argmax(axis=1).tolist()
[0, 1]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def softmax(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """``exp(s) / sum(exp(s))`` along ``axis``, computed stably (the maximum subtracted first)."""
    s = scores - scores.max(axis=axis, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=axis, keepdims=True)


@dataclass
class Perceptrons:
    """The members' weights and the standardisation (see the module docstring).

    Attributes
    ----------
    w1 : (M, F, H) float32
    b1 : (M, H) float32
    w2 : (M, H, C) float32
    b2 : (M, C) float32
    mean, scale : (F,) float32
    """

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    mean: np.ndarray
    scale: np.ndarray

    FIELDS = ("w1", "b1", "w2", "b2", "mean", "scale")

    def __post_init__(self):
        self.w1, self.b1, self.w2, self.b2, self.mean, self.scale = (
            np.asarray(a, np.float32) for a in (self.w1, self.b1, self.w2, self.b2, self.mean, self.scale))
        if self.w1.ndim == 2:                       # one member's 2-d weights
            self.w1, self.b1, self.w2, self.b2 = (a[None] for a in (self.w1, self.b1, self.w2, self.b2))
        m, f, h = self.w1.shape
        c = self.w2.shape[-1]
        if (self.b1.shape != (m, h) or self.w2.shape != (m, h, c) or self.b2.shape != (m, c)
                or self.mean.shape != (f,) or self.scale.shape != (f,)):
            raise ValueError("the perceptrons' weights do not fit together")

    @property
    def features(self) -> int:
        """F, the length of a feature row."""
        return self.w1.shape[1]

    def predict(self, feats: np.ndarray, temperature: float = 1.0) -> np.ndarray:
        """Class probabilities for rows ``(n, F)``, the members' mean: ``(n, C) float32``.
        Each member's scores are divided by ``temperature`` before its softmax (temperature
        scaling, Guo et al. 2017: > 1 flattens over-confident probabilities, the ranking stays).

        Raises
        ------
        ValueError
            When the rows are not ``F`` long.
        """
        x = np.asarray(feats, np.float32)
        if x.ndim != 2 or x.shape[1] != self.features:
            raise ValueError(f"feature rows must be (n, {self.features}), got {x.shape}")
        z = (x - self.mean) / self.scale
        s = np.tanh(z @ self.w1 + self.b1[:, None]) @ self.w2 + self.b2[:, None]      # (M, n, C)
        return softmax(s / temperature, axis=2).mean(axis=0)

    def arrays(self) -> dict[str, np.ndarray]:
        """The weights by name (``FIELDS``), for ``np.savez``."""
        return {f: getattr(self, f) for f in self.FIELDS}

    @classmethod
    def fit(cls, feats: np.ndarray, classes: np.ndarray, n_classes: int, hidden: int = 48, l2: float = 1e-3,
            steps: int = 2000, rate: float = 0.01, seed: int = 0, members: int = 5) -> "Perceptrons":
        """Fit on rows ``(n, F)`` and class indices ``(n,) int`` in ``0..n_classes - 1``:
        ``members`` perceptrons of ``hidden`` units, each ``steps`` Adam steps of size ``rate``
        from weights drawn with ``seed``, ``seed + 1``, ... (the same rows give the same model).

        Raises
        ------
        ValueError
            When there are no rows, or ``members`` is below 1.
        """
        x = np.asarray(feats, np.float64)
        classes = np.asarray(classes, int)
        if len(x) == 0:
            raise ValueError("no rows to teach the classifier")
        if members < 1:
            raise ValueError(f"the classifier needs at least one member, not {members}")
        mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
        x = (x - mean) / scale
        y = np.eye(n_classes)[classes]
        counts = np.bincount(classes, minlength=n_classes)
        w_row = (len(classes) / (n_classes * np.maximum(counts, 1)))[classes][:, None] / len(x)
        fitted = [_fit_member(x, y, w_row, hidden, l2, steps, rate, seed + i) for i in range(members)]
        return cls(*(np.stack(q) for q in zip(*fitted)), mean, scale)


def _fit_member(x: np.ndarray, y: np.ndarray, w_row: np.ndarray, hidden: int, l2: float, steps: int, rate: float,
                seed: int) -> list[np.ndarray]:
    """One member's ``[w1, b1, w2, b2]`` by full-batch Adam on standardised rows ``x`` ``(n, F)``,
    one-hot classes ``y`` ``(n, C)`` and row weights ``w_row`` ``(n, 1)``."""
    n_cls = y.shape[1]
    rng = np.random.default_rng(seed)
    params = [rng.normal(0.0, x.shape[1] ** -0.5, (x.shape[1], hidden)), np.zeros(hidden),
              rng.normal(0.0, hidden ** -0.5, (hidden, n_cls)), np.zeros(n_cls)]
    first = [np.zeros_like(q) for q in params]
    second = [np.zeros_like(q) for q in params]
    for t in range(1, steps + 1):
        w1, b1, w2, b2 = params
        h = np.tanh(x @ w1 + b1)
        p = softmax(h @ w2 + b2, axis=1)
        g = (p - y) * w_row                            # d loss / d scores
        gh = (g @ w2.T) * (1.0 - h * h)
        grads = (x.T @ gh + l2 * w1, gh.sum(axis=0), h.T @ g + l2 * w2, g.sum(axis=0))
        for q, grad in enumerate(grads):
            first[q] = 0.9 * first[q] + 0.1 * grad
            second[q] = 0.999 * second[q] + 0.001 * grad * grad
            params[q] -= rate * (first[q] / (1 - 0.9 ** t)) / (np.sqrt(second[q] / (1 - 0.999 ** t)) + 1e-8)
    return params
