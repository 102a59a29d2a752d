"""A handwritten digit read from its box: the ink centred as MNIST's digits are, then a small
network (two layers, its weights in ``digits.npz``, trained by ``python -m
scoring.sheet_reader.train``) gives each digit's probability. Plain numpy and OpenCV.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import cv2
import numpy as np

WEIGHTS = Path(__file__).with_name("digits.npz")
SIDE = 28  # MNIST's image
INNER = 20  # the digit's longest side inside it


def normalize(ink: np.ndarray) -> np.ndarray | None:
    """``ink`` (a box's crop, 0 for paper and 1 for ink, float) as MNIST draws a digit: its
    bounding box scaled to ``INNER`` pixels on its longest side, centred by its centre of mass
    in ``SIDE`` × ``SIDE``. None when there is no ink."""
    ys, xs = np.nonzero(ink > 0.15)
    if len(xs) == 0:
        return None
    crop = ink[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    height, width = crop.shape
    scale = INNER / max(height, width)
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    small = cv2.resize(crop.astype(np.float32), size, interpolation=cv2.INTER_AREA)
    out = np.zeros((SIDE, SIDE), np.float32)
    total = small.sum()
    if total <= 0:
        return None
    cy = (small.sum(axis=1) * np.arange(small.shape[0])).sum() / total
    cx = (small.sum(axis=0) * np.arange(small.shape[1])).sum() / total
    top = int(round(SIDE / 2 - cy))
    left = int(round(SIDE / 2 - cx))
    top = min(max(top, 0), SIDE - small.shape[0])
    left = min(max(left, 0), SIDE - small.shape[1])
    out[top : top + small.shape[0], left : left + small.shape[1]] = small
    peak = out.max()
    return out / peak if peak > 0 else None


@cache
def weights() -> list[np.ndarray]:
    """The network's layers: W1, b1, W2, b2, ... (plain arrays, no pickle)."""
    with np.load(WEIGHTS, allow_pickle=False) as data:
        count = len([k for k in data.files if k.startswith("W")])
        return [data[f"{kind}{i}"].astype(np.float32) for i in range(count) for kind in "Wb"]


def probabilities(images: np.ndarray) -> np.ndarray:
    """Each digit's probabilities (n × 10) for ``images`` (n × 28 × 28, ``normalize``'s)."""
    layers = weights()
    x = images.reshape(len(images), -1).astype(np.float32)
    for i in range(0, len(layers), 2):
        x = x @ layers[i] + layers[i + 1]
        if i + 2 < len(layers):
            np.maximum(x, 0, out=x)
    x -= x.max(axis=1, keepdims=True)
    np.exp(x, out=x)
    return x / x.sum(axis=1, keepdims=True)
