"""A handwritten digit read from its box: the ink centred as MNIST's digits are, then a few small
convolutional networks (their weights in ``digits.npz``, trained by ``python -m
scoring.sheet_reader.train``) each give every digit's probability. A digit is as sure as the
least sure of the networks that read it, and not sure at all when they disagree. Plain numpy
and OpenCV.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

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


# One network: two convolutions (each with a ReLU and a 2 × 2 max-pool), a dense hidden layer,
# then ten outputs. Its arrays in ``digits.npz``: ``n{i}_c1`` (k·k × f1, kernel rows then
# columns), ``n{i}_b1``, ``n{i}_c2`` (f1·k·k × f2, channel, rows, columns), ``n{i}_b2``,
# ``n{i}_d1`` (5·5·f2 × hidden, rows, columns, channel), ``n{i}_e1``, ``n{i}_d2``, ``n{i}_e2``,
# and ``n{i}_t``, the temperature its outputs are divided by (fit on digits it never saw).
LAYERS = ("c1", "b1", "c2", "b2", "d1", "e1", "d2", "e2")


def windows(x: np.ndarray, k: int) -> np.ndarray:
    """Every k × k patch of ``x`` (n × h × w × c), one a row: (n·h'·w') × (c·k·k)."""
    patches = sliding_window_view(x, (k, k), axis=(1, 2))  # n × h' × w' × c × k × k
    return patches.reshape(-1, patches.shape[3] * k * k)


def pool(x: np.ndarray) -> np.ndarray:
    n, h, w, c = x.shape
    return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


def kernel(weights: np.ndarray, channels: int) -> int:
    return int(round((weights.shape[0] / channels) ** 0.5))


def logits(net: dict[str, np.ndarray], images: np.ndarray) -> np.ndarray:
    """One network's outputs (n × 10) for ``images`` (n × 28 × 28)."""
    n = len(images)
    x = images.reshape(n, SIDE, SIDE, 1).astype(np.float32)
    for conv, bias in (("c1", "b1"), ("c2", "b2")):
        k = kernel(net[conv], x.shape[3])
        side = x.shape[1] - k + 1
        x = windows(x, k) @ net[conv] + net[bias]
        x = pool(np.maximum(x, 0).reshape(n, side, side, -1))
    x = np.maximum(x.reshape(n, -1) @ net["d1"] + net["e1"], 0)
    return x @ net["d2"] + net["e2"]


def softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(axis=1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=1, keepdims=True)


@cache
def networks() -> list[dict[str, np.ndarray]]:
    """The networks' arrays (plain arrays, no pickle)."""
    with np.load(WEIGHTS, allow_pickle=False) as data:
        count = len([k for k in data.files if k.endswith("_c1")])
        return [
            {layer: data[f"n{i}_{layer}"].astype(np.float32) for layer in (*LAYERS, "t")}
            for i in range(count)
        ]


def each_network(images: np.ndarray) -> np.ndarray:
    """Every network's probabilities (networks × n × 10), each at its temperature."""
    return np.stack([softmax(logits(net, images) / net["t"]) for net in networks()])


def read(images: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each image's digit and how sure (0..1): the digit the networks' mean gives, as sure as
    the least sure network is of it, and 0 when a network reads another digit."""
    each = each_network(images)
    best = each.mean(axis=0).argmax(axis=1)
    rows = np.arange(len(images))
    agree = (each.argmax(axis=2) == best).all(axis=0)
    sure = np.where(agree, each[:, rows, best].min(axis=0), 0.0)
    return best, sure


def probabilities(images: np.ndarray) -> np.ndarray:
    """Each digit's probabilities (n × 10) for ``images`` (n × 28 × 28, ``normalize``'s): the
    networks' mean."""
    return each_network(images).mean(axis=0)
