"""Bring a players list through the pages, as a director does: upload (or paste), then the
preview's form posted as it is shown (the guessed columns, the computed divisions), with
``extra`` fields ticked or changed, then confirm."""

import re

from django.core.files.uploadedfile import SimpleUploadedFile

SELECT = re.compile(r'<select[^>]*name="(map-\w+)"[^>]*>(.*?)</select>', re.S)
SELECTED = re.compile(r'<option value="([^"]*)" selected>')
INPUT = re.compile(r"<input([^>]*)>")


def attr(tag: str, name: str) -> str | None:
    found = re.search(rf'\b{name}="([^"]*)"', tag)
    return found.group(1) if found else None


def preview_fields(html: str) -> dict[str, str]:
    """What the preview form sends as it is shown: hidden fields, chosen columns, divisions
    typed in, ticked boxes."""
    form = html[html.index('id="preview-form"') :]
    data = {}
    for name, options in SELECT.findall(form):
        chosen = SELECTED.search(options)
        data[name] = chosen.group(1) if chosen else ""
    for tag in INPUT.findall(form):
        name, kind = attr(tag, "name"), attr(tag, "type") or "text"
        if not name or name == "csrfmiddlewaretoken":
            continue
        if kind == "checkbox":
            if " checked" in tag:
                data[name] = attr(tag, "value") or "on"
        else:
            data[name] = attr(tag, "value") or ""
    return data


def upload(client, slug: str, content: bytes | None = None, name="players.csv", pasted=""):
    """Upload a file (or paste a list): the answer is the preview (followed) or the form's
    errors."""
    data = {"pasted": pasted}
    if content is not None:
        data["file"] = SimpleUploadedFile(name, content)
    return client.post(f"/director/e/{slug}/players/import/", data, follow=True)


def confirm(client, slug: str, preview, action="confirm", **extra):
    data = {**preview_fields(preview.content.decode()), "action": action}
    data.update(extra)
    return client.post(f"/director/e/{slug}/players/import/preview/", data)


def import_list(client, slug: str, content: bytes | None = None, name="players.csv", **extra):
    """Upload, then confirm the preview as shown: the confirm's answer (302 when imported),
    or the upload's when the file could not be read."""
    preview = upload(client, slug, content, name, pasted=extra.pop("pasted", ""))
    if 'id="preview-form"' not in preview.content.decode():
        return preview
    return confirm(client, slug, preview, **extra)
