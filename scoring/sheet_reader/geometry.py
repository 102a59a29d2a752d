"""A photo of a sheet made flat: its four corner marks found, its QR code read, the page turned
upright by where the QR code lies (the head's top right corner) and straightened by the
perspective the marks give, at ``PIXELS_PER_MM``. Plain numpy and OpenCV (and zxing-cpp for the
QR code), no Django.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import zxingcpp

from scoring.sheet_reader.layout import MARK, SheetLayout

PIXELS_PER_MM = 7.0  # the straightened page: a digit box of 5 mm is 35 pixels
LONGEST_SIDE = 2400  # a larger photo is shrunk first (the site's photos are 1600)


class NotRead(Exception):
    """The photo is not read; ``code`` says why (``reading.REFUSALS``)."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


@dataclass
class Found:
    """A photo's page: the QR code's text, the marks' centres in the photo (top left, top
    right, bottom right, bottom left of the page, upright) and the photo in grey."""

    qr: str
    marks: np.ndarray  # 4 × 2, pixels of ``gray``
    gray: np.ndarray


def decode(data: bytes) -> np.ndarray:
    """The photo's bytes (JPEG, PNG, WebP) in grey, its longest side at most ``LONGEST_SIDE``."""
    buffer = np.frombuffer(data, np.uint8)
    gray = cv2.imdecode(buffer, cv2.IMREAD_GRAYSCALE) if len(buffer) else None
    if gray is None:
        raise NotRead("image")
    longest = max(gray.shape)
    if longest > LONGEST_SIDE:
        scale = LONGEST_SIDE / longest
        gray = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return gray


def mark_candidates(gray: np.ndarray) -> list[tuple[float, float, float]]:
    """Solid dark squares of the photo: (x, y, side) of each, in pixels."""
    blurred = cv2.GaussianBlur(gray, (5, 5), 0)
    block = max(31, (min(gray.shape) // 12) | 1)
    binary = cv2.adaptiveThreshold(
        blurred, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, 12
    )
    contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    smallest = (min(gray.shape) * 0.008) ** 2
    largest = (min(gray.shape) * 0.08) ** 2
    found = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if not smallest < area < largest:
            continue
        (x, y), (w, h), _angle = cv2.minAreaRect(contour)
        if min(w, h) == 0 or max(w, h) / min(w, h) > 1.5:
            continue
        hull = cv2.contourArea(cv2.convexHull(contour))
        if hull == 0 or area / hull < 0.9 or area / (w * h) < 0.8:
            continue
        mask = np.zeros(gray.shape, np.uint8)
        cv2.drawContours(mask, [contour], -1, 255, -1)
        if cv2.mean(binary, mask=mask)[0] < 0.85 * 255:  # solid, not a ring (the QR's eyes)
            continue
        moments = cv2.moments(contour)
        found.append(
            (moments["m10"] / moments["m00"], moments["m01"] / moments["m00"], (w + h) / 2)
        )
    return found


def find_page(gray: np.ndarray) -> Found:
    """The page in the photo: its QR code and its four marks, in the page's order."""
    codes = [c for c in zxingcpp.read_barcodes(gray) if c.format == zxingcpp.BarcodeFormat.QRCode]
    if not codes:
        codes = [
            c
            for c in zxingcpp.read_barcodes(cv2.GaussianBlur(gray, (3, 3), 0))
            if c.format == zxingcpp.BarcodeFormat.QRCode
        ]
    candidates = mark_candidates(gray)
    if not codes:  # four marks and a few other squares: a sheet whose QR code is unreadable
        raise NotRead("qr" if 4 <= len(candidates) <= 12 else "not_sheet")
    if len(candidates) < 4:
        raise NotRead("marks")
    if len(codes) > 1:
        raise NotRead("several")
    code = codes[0]
    p = code.position
    qr_corners = np.array(
        [[c.x, c.y] for c in (p.top_left, p.top_right, p.bottom_right, p.bottom_left)], float
    )
    qr_center = qr_corners.mean(axis=0)
    qr_side = np.linalg.norm(qr_corners[0] - qr_corners[1])
    # Marks are about a quarter of the QR code's side (6 mm beside 25 mm): others are not.
    points = np.array(
        [(x, y) for x, y, side in candidates if 0.12 * qr_side < side < 0.5 * qr_side], float
    )
    if len(points) < 4:
        raise NotRead("marks")
    hull = cv2.convexHull(points.astype(np.float32)).reshape(-1, 2)
    corners = _four_corners(hull)
    if corners is None:
        raise NotRead("marks")
    # Upright: the QR code lies nearest the page's top right mark; the order goes clockwise.
    nearest = int(np.argmin(np.linalg.norm(corners - qr_center, axis=1)))
    order = [(nearest - 1 + i) % 4 for i in range(4)]
    return Found(code.text, corners[order], gray)


def _four_corners(hull: np.ndarray) -> np.ndarray | None:
    """The four points of ``hull`` that span the largest quadrilateral, clockwise (in the
    photo's pixels, y down)."""
    if len(hull) < 4:
        return None
    approx = cv2.approxPolyDP(hull.astype(np.float32).reshape(-1, 1, 2), 1.0, True).reshape(-1, 2)
    if len(approx) != 4:
        # The largest four by the extreme sums and differences (the corners of a page turned
        # by less than 45°), or by the hull's most distant points.
        s, d = hull.sum(axis=1), hull[:, 0] - hull[:, 1]
        approx = np.array(
            [hull[np.argmin(s)], hull[np.argmax(d)], hull[np.argmax(s)], hull[np.argmin(d)]]
        )
        if len({tuple(p) for p in approx}) < 4:
            return None
    center = approx.mean(axis=0)
    angles = np.arctan2(approx[:, 1] - center[1], approx[:, 0] - center[0])
    return approx[np.argsort(angles)].astype(float)  # clockwise from the left, y down


def straighten(found: Found, layout: SheetLayout) -> np.ndarray:
    """The page seen square on, ``PIXELS_PER_MM`` pixels a millimetre, in grey."""
    page = np.array(layout.mark_centers(), np.float32) * PIXELS_PER_MM
    matrix = cv2.getPerspectiveTransform(found.marks.astype(np.float32), page)
    width, height = (round(side * PIXELS_PER_MM) for side in layout.page)
    flat = cv2.warpPerspective(
        found.gray, matrix, (width, height), flags=cv2.INTER_LINEAR, borderValue=255
    )
    # The marks must come back as the layout's squares: else the four points were not them.
    for box in layout.marks():
        x, y = (round(v * PIXELS_PER_MM) for v in (box.x, box.y))
        side = round(MARK * PIXELS_PER_MM)
        inner = flat[y + side // 4 : y + 3 * side // 4, x + side // 4 : x + 3 * side // 4]
        around = flat[max(0, y - side // 2) : y + side + side // 2, max(0, x - side) : x]
        if inner.size == 0 or around.size == 0 or inner.mean() > 0.6 * np.median(around):
            raise NotRead("marks")
    return flat


def crop(flat: np.ndarray, box) -> np.ndarray:
    """A box of the page (millimetres) from the straightened page."""
    x0, y0 = (round(v * PIXELS_PER_MM) for v in (box.x, box.y))
    x1, y1 = (round(v * PIXELS_PER_MM) for v in (box.x + box.w, box.y + box.h))
    return flat[max(0, y0) : y1, max(0, x0) : x1]
