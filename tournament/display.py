"""How the site reads for its reader (issue 51 item 5): three text sizes and a high-contrast
choice, on every page, kept in cookies on the reader's device (nothing in the database: a
phone or the hall's screen keeps its own). The page's ``<html>`` carries them as classes
(``display`` below, a context processor) that static/css/site.css (and the big screen's
styles) read; the choice is a form (templates/_display_switch.html, posted to
tournament/views/display.py), so it works without script, as the language switch does."""

SIZE_COOKIE = "text_size"
CONTRAST_COOKIE = "contrast"
SIZES = ("standard", "large", "largest")
CONTRASTS = ("standard", "high")
YEAR = 365 * 24 * 3600


def chosen(request) -> tuple[str, str]:
    """The reader's text size and contrast, as their cookies say (a value this site did not
    write reads as standard)."""
    size = request.COOKIES.get(SIZE_COOKIE, "")
    contrast = request.COOKIES.get(CONTRAST_COOKIE, "")
    return (
        size if size in SIZES else SIZES[0],
        contrast if contrast in CONTRASTS else CONTRASTS[0],
    )


def display(request) -> dict:
    """Context processor: the reader's choices, and the classes of the page's ``<html>`` (none
    for the standard size and contrast: the page as everyone had it)."""
    size, contrast = chosen(request)
    classes = ([f"text-{size}"] if size != SIZES[0] else []) + (
        ["contrast-high"] if contrast == "high" else []
    )
    return {
        "display_size": size,
        "display_contrast": contrast,
        "display_classes": " ".join(classes),
        "display_sizes": SIZES,
    }
