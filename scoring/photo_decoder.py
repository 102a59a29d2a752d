"""A photo's upload decoded and written again, alone in a child process (issue 46 item 2):
scoring/photos.py runs this file with the upload on its standard input, and reads the JPEG, or
the reason it was refused, on its standard output. Plain Python and Pillow, no Django (an
import-linter contract): the child starts in a quarter of a second, under an address-space
limit, and whatever the decoder takes goes back to the system when it ends.

What a phone's camera does not make is refused from the file's header, before anything is
decoded: a format other than JPEG, PNG or WebP (a camera's photo, a screenshot, a browser's
picture), more pixels than ``MAX_PIXELS`` (a JPEG, decoded shrunk) or ``MAX_WHOLE_PIXELS`` (an
image decoded whole: PNG, WebP, a progressive JPEG), or more pixels than its bytes can hold in
a photo (``PIXELS_PER_BYTE``, above ``FREE_PIXELS``). A photo is then decoded as small as it can
be (a JPEG at 1/2, 1/4 or 1/8 of its size), shrunk to ``LONGEST_SIDE``, turned upright by its
EXIF orientation, flattened on white and written as a new JPEG with no metadata at all.
"""

from __future__ import annotations

import io
import json
import sys
import warnings

from PIL import Image, ImageOps, PngImagePlugin, UnidentifiedImageError

# Formats a phone sends: its camera's JPEG (MPO: a JPEG with a second, depth or preview image),
# a screenshot's PNG, a browser's WebP. HEIC is not read by Pillow (phones send it as JPEG).
FORMATS = ("JPEG", "PNG", "WEBP")
ACCEPTED = ("JPEG", "MPO", "PNG", "WEBP")
MAX_PIXELS = 50_000_000  # a phone camera's largest photo: 50 MP (8160 x 6120)
MAX_WHOLE_PIXELS = 12_000_000  # decoded whole: a long screenshot, a 12 MP WebP
FREE_PIXELS = 4_000_000  # any file may be this large, however well it compresses
PIXELS_PER_BYTE = 100  # above that, a photo of a sheet takes at least a byte per 100 pixels
LONGEST_SIDE = 1600  # pixels: every cell of a sheet still reads
QUALITY = 80  # JPEG quality: 150-400 KB for a sheet at 1600 px
TEXT_MEMORY = 1_000_000  # bytes of a PNG's text chunks read before its pixels (Pillow: 64 MB)


SIGNATURES = (b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n")  # JPEG, PNG; WebP: RIFF....WEBP


def may_be_photo(data: bytes) -> bool:
    """Whether ``data`` starts as a JPEG, a PNG or a WebP does (anything else is refused without
    starting a child)."""
    return data.startswith(SIGNATURES) or (data[:4] == b"RIFF" and data[8:12] == b"WEBP")


def refusal(image, length: int, bounds: dict) -> str:
    """Why ``image`` (opened, nothing decoded) of ``length`` bytes is no phone's photo: "format",
    "pixels" (more than its format allows) or "dense" (more than its bytes can hold); "" when it
    may be decoded."""
    if image.format not in ACCEPTED:
        return "format"
    width, height = image.size
    pixels = width * height
    if pixels > pixel_limit(image, bounds):
        return "pixels"
    if pixels > max(bounds["free_pixels"], length * bounds["pixels_per_byte"]):
        return "dense"
    return ""


def pixel_limit(image, bounds: dict) -> int:
    """The most pixels ``image``'s format may have: a JPEG read shrunk, or an image read whole
    (PNG, WebP, and a progressive JPEG, whose decoder keeps every pixel's coefficients)."""
    shrunk = image.format in ("JPEG", "MPO") and not image.info.get("progressive")
    return bounds["max_pixels"] if shrunk else bounds["max_whole_pixels"]


def shrink(data: bytes, bounds: dict) -> dict:
    """The upload ``data`` as a new JPEG: {"jpeg": bytes, "width", "height", "source": its
    format and size}, or {"refused": reason, ...} (``refusal``'s, with the limit it passed, or
    "image" for what Pillow cannot read as an image)."""
    PngImagePlugin.MAX_TEXT_MEMORY = TEXT_MEMORY
    Image.MAX_IMAGE_PIXELS = bounds["max_pixels"]  # Pillow refuses twice as many; ours, more
    warnings.simplefilter("ignore", Image.DecompressionBombWarning)
    try:
        with Image.open(io.BytesIO(data), formats=FORMATS) as image:
            source = {"format": image.format, "size": image.size}
            why = refusal(image, len(data), bounds)
            if why:
                return {"refused": why, "limit": pixel_limit(image, bounds), "source": source}
            # A JPEG is decoded at 1/2, 1/4 or 1/8 of its size when that still covers the
            # bound: a 12-megapixel photo in a quarter of the memory, a 50-megapixel one in a
            # sixteenth.
            longest = max(image.size) or 1
            wanted = tuple(-(-side * LONGEST_SIDE // longest) for side in image.size)
            image.draft("RGB", wanted)
            image.load()
            if image.mode not in ("L", "LA", "RGB", "RGBA", "CMYK"):  # a palette, 1 bit, 16 bits
                image = image.convert("RGBA" if has_transparency(image) else "RGB")
            # Shrunk first, then turned and flattened: those copies are of the small image.
            image.thumbnail((LONGEST_SIDE, LONGEST_SIDE), Image.Resampling.LANCZOS)
            image = ImageOps.exif_transpose(image)
            if image.mode not in ("RGB", "L"):
                image = flatten(image)
            # Nothing of the original's metadata: Pillow writes what the image's info keeps
            # (its comment, EXIF, ICC profile, XMP) unless it is emptied.
            image.info = {}
            out = io.BytesIO()
            image.save(out, "JPEG", quality=QUALITY, optimize=True, progressive=True)
    except Image.DecompressionBombError:  # more than twice MAX_IMAGE_PIXELS: Pillow's own check
        return {"refused": "pixels", "limit": bounds["max_pixels"]}
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError):
        return {"refused": "image"}
    return {"jpeg": out.getvalue(), "width": image.width, "height": image.height, "source": source}


def has_transparency(image) -> bool:
    return image.mode in ("LA", "PA", "RGBA") or "transparency" in image.info


def flatten(image):
    """An image with transparency or a palette, on white, as RGB (JPEG has neither)."""
    rgba = image.convert("RGBA")
    white = Image.new("RGB", rgba.size, (255, 255, 255))
    white.paste(rgba, mask=rgba.getchannel("A"))
    return white


def peak_memory() -> int:
    """This process's peak resident memory, in bytes: its own address space's high-water mark
    (Linux's VmHWM; ``ru_maxrss`` counts the parent's memory before the child started)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        import resource
    except ImportError:  # Windows: not measured
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, KB elsewhere


def limit_memory(limit: int, seconds: int) -> None:
    """At most ``limit`` bytes of address space and ``seconds`` of processor time for this
    process, where the system enforces them (Linux, BSD); elsewhere the header's bounds alone
    hold the decoding's size."""
    try:
        import resource
    except ImportError:
        return
    for kind, value in ((resource.RLIMIT_AS, limit), (resource.RLIMIT_CPU, seconds)):
        try:
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            pass


def main(argv: list[str]) -> int:
    """The child's work: its limits (bytes of memory, seconds) and bounds (``refusal``'s) in JSON as
    its argument, the upload on standard input; on standard output a line of JSON (the size, or
    why it was refused, and the peak memory), then the JPEG's bytes."""
    asked = json.loads(argv[1])
    limit_memory(asked.pop("memory"), asked.pop("seconds"))
    data = sys.stdin.buffer.read()
    result = shrink(data, asked)
    jpeg = result.pop("jpeg", b"")
    result["peak"] = peak_memory()
    sys.stdout.buffer.write(json.dumps(result).encode() + b"\n" + jpeg)
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
