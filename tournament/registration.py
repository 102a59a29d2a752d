"""Registration lists as people bring them: CSV (comma, semicolon or tab; UTF-8, UTF-16 or a
Windows code page) or an Excel workbook (.xlsx), read into a header and rows of text.

No models here (openpyxl for workbooks, Django only for translated messages): the players
import (tournament/services/registration.py) and its pages call it. Every problem is a
``ReadError`` whose message says what to do.

Whatever a file holds, reading it takes bounded time and memory (issue 27): every row read
(empty ones too), every cell and every cell's length count against the limits below, and a
workbook is checked before openpyxl opens it (``scan_workbook``: the archive's sizes, then its
XML streamed and counted, the first sheet's declared size first).
"""

from __future__ import annotations

import csv
import datetime
import io
import re
import zipfile
from dataclasses import dataclass, field
from xml.etree import ElementTree

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tournament.refusals import Refusal
from tournament.text import bad_character, name_key, search_key, without_bidi_controls

MAX_ROWS = 5000  # players' rows in a list
# What reading any list may take, whatever it holds (issue 27): a file of empty rows, a sheet
# declared a million rows long, a zip of 20 MB that unpacks to gigabytes is refused at the limit,
# in bounded time and memory, before anything is kept.
MAX_READ_ROWS = 2 * MAX_ROWS  # rows (or lines) read, empty ones too
MAX_COLUMNS = 100
MAX_CELLS = 200_000  # cells read, empty ones too
MAX_FIELD = 1000  # characters in one cell
# A workbook's archive: checked before anything in it is read.
MAX_UNPACKED = 20_000_000  # bytes, every part unpacked
MAX_PARTS = 1000
MAX_RATIO = 100  # unpacked / packed, for a part over RATIO_FROM bytes
RATIO_FROM = 1_000_000
MAX_PART_ELEMENTS = 100_000  # XML elements in a part other than the sheet and its strings
MAX_SHEET_ELEMENTS = 1_000_000  # in the first sheet, and in the shared strings
MAX_INNER_ELEMENTS = 1000  # within one cell or one shared string
ZIP_MAGIC = b"PK\x03\x04"
OLE_MAGIC = b"\xd0\xcf\x11\xe0"  # the old .xls
# A byte sequence shaped like UTF-8 (a lead byte, then a continuation byte): a file holding one
# that does not decode as UTF-8 is broken UTF-8, not a Windows code page.
_UTF8_SHAPE = re.compile(rb"[\xc2-\xf4][\x80-\xbf]")


class ReadError(Refusal, ValueError):
    """The file cannot be read as a list; the message says why and what to do."""


@dataclass
class Sheet:
    """A list as read: the header's cells and each row's cells with its line (or row) number.

    ``how`` says what was found ("CSV, semicolons, UTF-8", "Excel workbook, sheet 'Players'").
    ``same_email``: the lines whose e-mail (a column never stored) an earlier line has, with
    that earlier line (``email_repeats``).
    """

    header: list[str]
    rows: list[tuple[int, list[str]]] = field(default_factory=list)
    how: str = ""
    same_email: dict[int, int] = field(default_factory=dict)

    def column(self, index: int | None, row: list[str]) -> str:
        if index is None or index >= len(row):
            return ""
        return row[index]


def read_list(data: bytes, filename: str = "", budget: Budget | None = None) -> Sheet:
    """The header and rows of a CSV or .xlsx file (told apart by their content), read within
    the limits (``budget``: what the reading took)."""
    if data.startswith(ZIP_MAGIC):
        return read_xlsx(data, budget)
    if data.startswith(OLE_MAGIC):
        raise ReadError(
            _("This is an old Excel file (.xls): save it as .xlsx or as CSV UTF-8 and try again.")
        )
    text, encoding = decode(data)
    return read_csv(text, encoding, budget)


def decode(data: bytes) -> tuple[str, str]:
    """The file's text and the encoding it was read with.

    UTF-8 (with or without a byte order mark), UTF-16 with its byte order mark (Excel's
    "Unicode text"), else the Windows code page Excel writes "CSV" in (cp1252). Broken UTF-8
    is refused rather than read as accented nonsense.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        encodings = [("utf-8-sig", "UTF-8")]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        encodings = [("utf-16", "UTF-16")]
    else:
        encodings = [("utf-8", "UTF-8")]
    for codec, name in encodings:
        try:
            return data.decode(codec), name
        except UnicodeDecodeError:
            pass
    if encodings[0][1] == "UTF-8" and _UTF8_SHAPE.search(data):
        raise ReadError(_("The file is not UTF-8 text (save it as CSV UTF-8)."))
    if encodings[0][1] == "UTF-16":
        raise ReadError(_("The file is not UTF-16 text (save it as CSV UTF-8)."))
    try:
        return data.decode("cp1252"), "Windows-1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "Latin-1"


def sniff_delimiter(text: str) -> str:
    """Comma, semicolon or tab: the one the header line uses most (outside quotes)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    bare = re.sub(r'"[^"]*"', "", first)
    counts = {d: bare.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


DELIMITER_NAMES = {
    ",": gettext_lazy("commas"),
    ";": gettext_lazy("semicolons"),
    "\t": gettext_lazy("tabs"),
}


def _n(count: int) -> str:
    return number_format(count, force_grouping=True)


class Budget:
    """What reading one list has taken: every row read (empty ones too) and every cell, against
    the limits; the first one passed is a ``ReadError``."""

    def __init__(self) -> None:
        self.rows = 0
        self.cells = 0

    def row(self, number: int, cells) -> None:
        self.rows += 1
        if self.rows > MAX_READ_ROWS:
            raise ReadError(too_many_rows())
        self.cells += len(cells)
        if len(cells) > MAX_COLUMNS:
            raise ReadError(too_many_columns(number))
        if self.cells > MAX_CELLS:
            raise ReadError(too_many_cells())
        for cell in cells:
            if cell is not None and len(str(cell)) > MAX_FIELD:
                raise ReadError(too_long(number))


def too_long(row: int) -> str:
    return _(
        "Row %(row)s has a cell longer than %(n)s characters: is this the list of players?"
    ) % {"row": _n(row), "n": _n(MAX_FIELD)}


def too_many_columns(row: int) -> str:
    return _("Row %(row)s has more than %(n)s columns: keep only the list and try again.") % {
        "row": _n(row),
        "n": _n(MAX_COLUMNS),
    }


def too_many_cells() -> str:
    return _("The list has more than %(n)s cells: keep only the list and try again.") % {
        "n": _n(MAX_CELLS)
    }


def too_many_rows() -> str:
    return _(
        "The list has more than %(n)s rows, empty ones included: keep only the players (at "
        "most %(max)s) and try again."
    ) % {"n": _n(MAX_READ_ROWS), "max": _n(MAX_ROWS)}


def read_csv(text: str, encoding: str = "UTF-8", budget: Budget | None = None) -> Sheet:
    budget = budget or Budget()
    text = text.removeprefix("\ufeff")
    if text.count("\n") > MAX_READ_ROWS:  # a quick bound; every row is counted below
        raise ReadError(too_many_rows())
    for number, line in enumerate(text.split("\n"), start=1):
        why = bad_character(line.removesuffix("\r"))
        if why:
            raise ReadError(
                _("Line %(line)s holds %(why)s: save the file as CSV UTF-8 and try again.")
                % {"line": number, "why": why}
            )
    delimiter = sniff_delimiter(text)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows: list[tuple[int, list[str]]] = []
    line = 1
    try:
        for row in reader:
            budget.row(line, row)
            if any(cell.strip() for cell in row):
                rows.append((line, [cell.strip() for cell in row]))
            line = reader.line_num + 1
            if len(rows) > MAX_ROWS + 1:
                raise ReadError(_("The list has more than %(n)s rows.") % {"n": MAX_ROWS})
    except csv.Error as error:
        if "field limit" in str(error):  # the csv module's own limit, above MAX_FIELD
            raise ReadError(too_long(line)) from None
        message = _("Line %(line)s: this is not CSV the site can read (%(error)s).")
        raise ReadError(message % {"line": line, "error": error}) from None
    if not rows:
        raise ReadError(_("The file is empty."))
    (_first, header), *body = rows
    how = _("CSV, %(d)s, %(e)s") % {"d": DELIMITER_NAMES[delimiter], "e": encoding}
    return Sheet(header=header, rows=body, how=how)


def _cell_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime.datetime):
        return value.date().isoformat() if value.time() == datetime.time() else value.isoformat()
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def not_a_workbook() -> ReadError:
    return ReadError(
        _("This file is not an Excel workbook the site can read: save it as .xlsx or CSV.")
    )


def too_complex(part: str, limit: int) -> ReadError:
    return ReadError(
        _(
            "The workbook's part %(part)s is too complex to read (more than %(n)s XML "
            "elements): save the list as CSV UTF-8 and try again."
        )
        % {"part": part, "n": _n(limit)}
    )


def check_archive(archive: zipfile.ZipFile) -> None:
    """Refuse a workbook whose archive unpacks to too much, before any part of it is read:
    the sizes its directory declares bound what reading a part can give."""
    parts = archive.infolist()
    if len(parts) > MAX_PARTS:
        raise ReadError(
            _("The workbook has more than %(n)s parts: save the list as CSV UTF-8 and try again.")
            % {"n": _n(MAX_PARTS)}
        )
    if sum(part.file_size for part in parts) > MAX_UNPACKED:
        raise ReadError(
            _(
                "Unpacked, the workbook is larger than %(mb)s MB: save only the list, as .xlsx "
                "or CSV UTF-8, and try again."
            )
            % {"mb": MAX_UNPACKED // 1_000_000}
        )
    for part in parts:
        if part.file_size > RATIO_FROM and part.file_size > MAX_RATIO * part.compress_size:
            raise ReadError(
                _(
                    "The workbook's part %(part)s unpacks to more than %(n)s times its size: "
                    "this is no registration list. Save the list as CSV UTF-8 and try again."
                )
                % {"part": part.filename, "n": MAX_RATIO}
            )


@dataclass
class _Scan:
    """One XML part of a workbook streamed as openpyxl would read it, counting what it would
    build: every element, and for the first sheet every row and cell (where the last one
    holding a value is), for the shared strings every string. Each finished element is dropped,
    so the scan holds one path of the tree at a time."""

    name: str
    kind: str = "other"  # "sheet", "strings", "start" (another sheet: up to its rows) or "other"
    elements: int = 0
    rows: int = 0
    cells: int = 0
    strings: int = 0
    used_columns: int = 0  # the last column holding a value (the sheet)

    def run(self, archive: zipfile.ZipFile) -> _Scan:
        limit = MAX_SHEET_ELEMENTS if self.kind in ("sheet", "strings") else MAX_PART_ELEMENTS
        path: list[ElementTree.Element] = []
        row = column = 0
        cell_depth = 0  # the depth of the cell (or shared string) being read, 0 outside one
        inner = 0  # elements within it
        # Expat refuses entity expansion bombs, and ElementTree never fetches an external entity.
        with archive.open(self.name) as source:
            events = ElementTree.iterparse(source, events=("start", "end"))  # noqa: S314
            for event, element in events:
                if event == "end":
                    if len(path) == cell_depth:
                        cell_depth = 0
                    path.pop()
                    if path:
                        del path[-1][-1]  # the element just ended is its parent's last child
                    continue
                path.append(element)
                self.elements += 1
                if self.elements > limit:
                    raise too_complex(self.name, limit)
                tag = element.tag.rpartition("}")[2]
                if self.kind == "start" and tag in ("dimension", "sheetData"):
                    break  # openpyxl reads another sheet's size, no further
                if cell_depth:
                    inner += 1
                    if inner > MAX_INNER_ELEMENTS:
                        raise too_complex(self.name, MAX_INNER_ELEMENTS)
                    if tag in ("v", "is") and len(path) == cell_depth + 1:
                        if column > MAX_COLUMNS:
                            raise ReadError(too_many_columns(row))
                        self.used_columns = max(self.used_columns, column)
                elif self.kind == "strings" and tag == "si":
                    cell_depth, inner = len(path), 0
                    self.strings += 1
                    if self.strings > MAX_CELLS:
                        raise ReadError(
                            _("The workbook has more than %(n)s texts: keep only the list.")
                            % {"n": _n(MAX_CELLS)}
                        )
                elif self.kind != "sheet":
                    continue
                elif tag == "dimension":
                    self.check_dimension(element.get("ref", ""))
                elif tag == "row":
                    row = _number(element.get("r"), row + 1)
                    column = 0
                    self.rows += 1
                    if row > MAX_READ_ROWS or self.rows > MAX_READ_ROWS:
                        raise ReadError(too_many_rows())
                elif tag == "c":
                    cell_depth, inner = len(path), 0
                    column = _column(element.get("r"), column + 1)
                    self.cells += 1
                    if self.cells > MAX_CELLS:
                        raise ReadError(too_many_cells())
        return self

    def check_dimension(self, ref: str) -> None:
        """The size the sheet says it has (its first lines): refused when over the limits."""
        from openpyxl.utils.cell import range_boundaries

        try:
            _min_col, _min_row, max_col, max_row = range_boundaries(ref)
        except (ValueError, TypeError):
            return  # no size said: the rows and cells are counted as they come
        if (max_row or 0) > MAX_READ_ROWS or (max_col or 0) > MAX_COLUMNS:
            raise ReadError(
                _(
                    "The workbook's first sheet says it is %(rows)s rows by %(columns)s columns "
                    "(%(ref)s); the site reads at most %(max_rows)s rows and %(max_columns)s "
                    "columns. Keep only the list (delete the rows and columns after it) and "
                    "try again."
                )
                % {
                    "rows": _n(max_row or 0),
                    "columns": _n(max_col or 0),
                    "ref": ref,
                    "max_rows": _n(MAX_READ_ROWS),
                    "max_columns": _n(MAX_COLUMNS),
                }
            )


def _number(text: str | None, default: int) -> int:
    if text and text.isascii() and text.isdigit() and len(text) <= 7:
        return int(text)
    return default


def _column(ref: str | None, default: int) -> int:
    """A cell's column from its reference ("AB12": 28)."""
    letters = re.match(r"[A-Z]{1,3}", ref or "")
    if not letters:
        return default
    number = 0
    for letter in letters.group():
        number = number * 26 + ord(letter) - 64
    return number


def scan_workbook(data: bytes) -> _Scan:
    """Check a workbook before openpyxl reads it: the archive's sizes, then each XML part
    openpyxl would read, streamed and counted (its first sheet's rows and cells, its shared
    strings); the scan of the first sheet (its used columns) or a ``ReadError``."""
    from openpyxl.packaging.relationship import get_rels_path
    from openpyxl.reader.excel import ExcelReader, _find_workbook_part
    from openpyxl.xml.constants import ARC_CONTENT_TYPES, SHARED_STRINGS

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError):
        raise not_a_workbook() from None
    with archive:
        check_archive(archive)
        names = set(archive.namelist())
        try:
            _Scan(ARC_CONTENT_TYPES).run(archive)
            reader = ExcelReader(io.BytesIO(data), read_only=True)
            reader.read_manifest()
            book = _find_workbook_part(reader.package).PartName[1:]
            for name in (book, get_rels_path(book)):
                if name in names:
                    _Scan(name).run(archive)
            reader.read_workbook()
            rels = [rel for _sheet, rel in reader.parser.find_sheets()]
            sheets = [r.target for r in rels if r.target in names and "chartsheet" not in r.Type]
            first = sheets[0] if sheets else None
            strings = reader.package.find(SHARED_STRINGS)
            strings = strings.PartName[1:] if strings is not None else None
            scan = None
            for name in sorted(names):
                if name == first:
                    scan = _Scan(name, "sheet").run(archive)
                elif name == strings:
                    _Scan(name, "strings").run(archive)
                elif name in sheets:
                    _Scan(name, "start").run(archive)  # openpyxl reads only its size
                elif not name.endswith((".xml", ".rels")):
                    continue  # no XML: an image, a printer's settings
                elif name not in (ARC_CONTENT_TYPES, book, get_rels_path(book)):
                    _Scan(name).run(archive)
        except ReadError:
            raise
        except (
            zipfile.BadZipFile,
            KeyError,
            OSError,
            ValueError,
            TypeError,
            AttributeError,
            ElementTree.ParseError,
        ):
            raise not_a_workbook() from None
    if scan is None:
        raise ReadError(_("The workbook's first sheet is empty."))
    return scan


def read_xlsx(data: bytes, budget: Budget | None = None) -> Sheet:
    """The first sheet of an Excel workbook: its first non-empty row is the header.

    Checked first (``scan_workbook``), then read by openpyxl up to the last column holding a
    value, every row counted (``budget``: openpyxl gives a row for each number skipped)."""
    from openpyxl import load_workbook

    budget = budget or Budget()
    used_columns = scan_workbook(data).used_columns
    if not used_columns:
        raise ReadError(_("The workbook's first sheet is empty."))
    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError, TypeError):
        raise not_a_workbook() from None
    try:
        sheet = book.worksheets[0]
        sheet.reset_dimensions()  # read every row there is, whatever size the sheet declares
        rows: list[tuple[int, list[str]]] = []
        values_by_row = sheet.iter_rows(min_col=1, max_col=used_columns, values_only=True)
        for number, values in enumerate(values_by_row, start=1):
            budget.row(number, values)
            cells = [_cell_text(v) for v in values]
            while cells and not cells[-1]:
                cells.pop()
            if not any(cells):
                continue
            for cell in cells:
                why = bad_character(cell)
                if why:
                    raise ReadError(_("Row %(row)s holds %(why)s.") % {"row": number, "why": why})
            rows.append((number, cells))
            if len(rows) > MAX_ROWS + 1:
                raise ReadError(_("The list has more than %(n)s rows.") % {"n": MAX_ROWS})
        title = sheet.title
    finally:
        book.close()
    if not rows:
        raise ReadError(_("The workbook's first sheet is empty."))
    (_first, header), *body = rows
    return Sheet(header=header, rows=body, how=_("Excel workbook, sheet “%(s)s”") % {"s": title})


# -- what the columns mean (issue 21) -------------------------------------------------------------

# The roles a column can play; every other column is ignored and never stored.
ROLES = ("name", "first", "last", "ref", "club", "division", "birth", "age", "away")

# Headers as people write them, by role (compared by ``header_key``: no case, accents or
# punctuation). The first role whose list holds the header wins.
HEADERS = {
    "name": ["name", "full name", "fullname", "player", "player name", "nom complet", "joueur"],
    "first": ["first name", "firstname", "first", "given name", "given", "forename", "prenom"],
    "last": ["last name", "lastname", "last", "surname", "family name", "family", "nom"],
    "ref": [
        "id",
        "player id",
        "member",
        "member #",
        "member no",
        "member number",
        "membership",
        "membership #",
        "number",
        "no",
        "#",
        "registration",
        "registration id",
        "bib",
        "licence",
        "license",
        "numero",
        "n",
    ],
    "club": ["club", "team", "association", "equipe"],
    "division": ["division", "age group", "agegroup", "category", "categorie", "group", "bracket"],
    "birth": [
        "birth date",
        "birthdate",
        "date of birth",
        "dob",
        "born",
        "birthday",
        "date de naissance",
        "naissance",
    ],
    "age": ["age"],
    "away": [
        "out of district",
        "outside district",
        "outside the district",
        "ood",
        "hors district",
        "hors du district",
    ],
}

# How a list says a player is out of district (or not), compared by ``header_key``.
YES = {"yes", "y", "x", "1", "true", "oui", "o", "ood", "out", "out of district", "hors district"}
NO = {"", "no", "n", "0", "false", "non", "in", "in district"}


ROLE_LABELS = {
    "name": gettext_lazy("Name (whole)"),
    "first": gettext_lazy("First name"),
    "last": gettext_lazy("Last name"),
    "ref": gettext_lazy("Id"),
    "club": gettext_lazy("Club"),
    "division": gettext_lazy("Division"),
    "birth": gettext_lazy("Birth date"),
    "age": gettext_lazy("Age"),
    "away": gettext_lazy("Out of district (yes or no)"),
}


def header_key(text: str) -> str:
    return " ".join(re.sub(r"[^\w#]+", " ", search_key(text)).split())


# Columns no role ever uses and that hold what a tournament has no business keeping: dropped as
# soon as the list is read, before the preview keeps a copy.
PRIVATE = re.compile(
    r"mail|courriel|phone|telephone|mobile|cell|\btel\b|address|adresse|street|rue|zip|"
    r"postal|postcode|city|ville|emergency|urgence|medical|health|sante|payment|card"
)


EMAIL = re.compile(r"mail|courriel")


def email_repeats(sheet: Sheet) -> dict[int, int]:
    """The lines whose e-mail an earlier line has (case and spaces folded), with that line.

    The e-mail columns are private (dropped before the preview keeps the list): they serve
    only to find the same person signed up twice, and only these line numbers are kept."""
    columns = [i for i, h in enumerate(sheet.header) if EMAIL.search(header_key(h))]
    first: dict[str, int] = {}
    repeats: dict[int, int] = {}
    for line, cells in sheet.rows:
        for i in columns:
            email = "".join(sheet.column(i, cells).split()).casefold()
            if "@" not in email:
                continue
            if email in first:
                repeats.setdefault(line, first[email])
            else:
                first[email] = line
    return repeats


def without_private_columns(sheet: Sheet) -> tuple[Sheet, list[str]]:
    """The list without its contact, address, health and payment columns; and their headers."""
    keep = [i for i, h in enumerate(sheet.header) if not PRIVATE.search(header_key(h))]
    dropped = [h for i, h in enumerate(sheet.header) if i not in keep]
    if not dropped:
        return sheet, []
    rows = [(line, [cells[i] for i in keep if i < len(cells)]) for line, cells in sheet.rows]
    return Sheet([sheet.header[i] for i in keep], rows, sheet.how, sheet.same_email), dropped


def stored(sheet: Sheet) -> dict:
    """The list as the preview keeps it (in the director's session, or a background reading's
    row until the preview takes it): without its private columns, which it names, but with
    the lines that repeat an earlier line's e-mail (``email_repeats``)."""
    same_email = email_repeats(sheet)
    sheet, dropped = without_private_columns(sheet)
    return {
        "header": sheet.header,
        "rows": sheet.rows,
        "how": sheet.how,
        "dropped": dropped,
        "same_email": sorted(same_email.items()),
    }


def from_stored(kept: dict) -> Sheet:
    """The list as ``stored`` kept it."""
    return Sheet(
        header=list(kept["header"]),
        rows=[(line, list(cells)) for line, cells in kept["rows"]],
        how=kept.get("how", ""),
        same_email={int(line): int(first) for line, first in kept.get("same_email", [])},
    )


def guess_mapping(header: list[str]) -> dict[str, int | None]:
    """Which column plays which role, from the header's words; None where none does."""
    keys = [header_key(h) for h in header]
    mapping: dict[str, int | None] = {role: None for role in ROLES}
    for role in ROLES:
        for i, key in enumerate(keys):
            if key in HEADERS[role] and i not in mapping.values():
                mapping[role] = i
                break
    if mapping["name"] is not None and (
        mapping["first"] is not None or mapping["last"] is not None
    ):
        # "Nom" next to "Prénom" is a family name, not a full one.
        if keys[mapping["name"]] == "nom":
            mapping["last"], mapping["name"] = mapping["name"], None
    if mapping["name"] is None and mapping["first"] is None and mapping["last"] is None:
        mapping["name"] = 0 if header else None
    return mapping


def clean_mapping(raw: dict, width: int) -> dict[str, int | None]:
    """A mapping as posted or remembered: a column number within the list, or None."""
    out: dict[str, int | None] = {}
    for role in ROLES:
        value = raw.get(role)
        try:
            index = int(value) if value not in (None, "") else None
        except (TypeError, ValueError):
            index = None
        out[role] = index if index is not None and 0 <= index < width else None
    return out


def mapping_key(mapping: dict[str, int | None]) -> str:
    """The mapping as a short text: divisions typed in a preview count only for the mapping
    they were typed under (another mapping computes them again)."""
    return ".".join("" if mapping.get(role) is None else str(mapping[role]) for role in ROLES)


def mapping_problem(mapping: dict[str, int | None]) -> str | None:
    if mapping["name"] is None and mapping["first"] is None and mapping["last"] is None:
        return _("Choose the column that gives the name (or a first-name and a last-name column).")
    return None


# -- ages and divisions -----------------------------------------------------------------------


@dataclass(frozen=True)
class Bracket:
    low: int
    high: int | None  # None: and over ("90+")
    label: str


def parse_brackets(text: str) -> list[Bracket]:
    """Age brackets as a director writes them: "50-54, 55-59, 60-64, ..., 90+"."""
    out = []
    for item in re.split(r"[,;\n]+", text or ""):
        item = item.strip()
        if not item:
            continue
        found = re.fullmatch(r"(\d{1,3})\s*(?:[-–]\s*(\d{1,3})|(\+|\s*and over|\s*et plus))", item)
        if not found:
            raise ValueError(
                _("“%(item)s” is not an age bracket: write them like 50-54, 55-59, 90+.")
                % {"item": item}
            )
        low = int(found.group(1))
        high = int(found.group(2)) if found.group(2) else None
        if high is not None and high < low:
            raise ValueError(_("The bracket %(item)s ends before it starts.") % {"item": item})
        out.append(Bracket(low, high, item.replace(" ", "")))
    out.sort(key=lambda b: b.low)
    for before, after in zip(out, out[1:], strict=False):
        if before.high is None or before.high >= after.low:
            raise ValueError(
                _("The brackets %(a)s and %(b)s overlap.") % {"a": before.label, "b": after.label}
            )
    return out


def bracket_for(age: int, brackets: list[Bracket]) -> str | None:
    for b in brackets:
        if age >= b.low and (b.high is None or age <= b.high):
            return b.label
    return None


def age_on(birth: datetime.date, day: datetime.date) -> int:
    return day.year - birth.year - ((day.month, day.day) < (birth.month, birth.day))


def parse_date(text: str) -> datetime.date | None:
    """A birth date as lists write it: 1950-03-07, 03/07/1950 (month first, as US lists
    do), 07.03.1950 (day first); None when it is no date."""
    text = text.strip()
    for pattern, order in (
        (r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T].*)?", "ymd"),
        (r"(\d{1,2})/(\d{1,2})/(\d{4})", "mdy"),
        (r"(\d{1,2})\.(\d{1,2})\.(\d{4})", "dmy"),
        (r"(\d{4})/(\d{1,2})/(\d{1,2})", "ymd"),
    ):
        found = re.fullmatch(pattern, text)
        if found:
            parts = dict(zip(order, map(int, found.groups()), strict=True))
            try:
                return datetime.date(parts["y"], parts["m"], parts["d"])
            except ValueError:
                return None
    return None


# -- the rows as players to be --------------------------------------------------------------------


@dataclass
class Entry:
    """One row of the list as the player it would register, with what the preview says."""

    line: int
    name: str
    ref: str = ""
    club: str = ""
    division: str = ""
    birth: datetime.date | None = None
    out_of_district: bool = False
    problems: list[str] = field(default_factory=list)  # keep the row out until fixed
    notes: list[str] = field(default_factory=list)  # shown, not blocking
    status: str = "new"  # new, same, changed, repeat
    match: int | None = None  # the registered player it matches (pk)
    repeats: int | None = None  # the earlier line of the list this row repeats
    repeat_why: str = ""  # how: "same id", "same name and club", "same e-mail"


def entries(
    sheet: Sheet,
    mapping: dict[str, int | None],
    brackets: list[Bracket] | None = None,
    age_day: datetime.date | None = None,
    limits: dict[str, int] | None = None,
) -> list[Entry]:
    """Each row as the player it would register: the name joined from first and last when
    so mapped, the division from the age when the list gives a birth date or an age and the
    event has brackets. A row without a name, a bad date or age, a field too long: said here."""
    limits = limits or {}
    out = []
    seen_refs: dict[str, tuple[int, str]] = {}
    seen_names: dict[tuple[str, str], int] = {}
    for line, row in sheet.rows:

        def cell(role, row=row):
            return without_bidi_controls(sheet.column(mapping.get(role), row)).strip()

        name = cell("name")
        if not name:
            name = " ".join(part for part in (cell("first"), cell("last")) if part)
        entry = Entry(line, " ".join(name.split()), cell("ref"), cell("club"), cell("division"))
        if not entry.name:
            entry.problems.append(_("the name is empty"))
        birth = None
        if mapping.get("birth") is not None and cell("birth"):
            birth = parse_date(cell("birth"))
            if birth is not None and not 1900 <= birth.year <= datetime.date.today().year:
                birth = None
            entry.birth = birth
        if mapping.get("away") is not None:
            said = header_key(cell("away"))
            entry.out_of_district = said in YES
            if said not in YES | NO:
                entry.notes.append(
                    _("“%(v)s” is neither yes nor no: not out of district") % {"v": cell("away")}
                )
        if brackets and not entry.division:
            age = None
            if mapping.get("birth") is not None and cell("birth"):
                if birth is None:
                    entry.notes.append(
                        _("“%(d)s” is not a date: no division") % {"d": cell("birth")}
                    )
                elif age_day is not None:
                    age = age_on(birth, age_day)
            elif mapping.get("age") is not None and cell("age"):
                text = cell("age")
                if text.isascii() and text.isdigit() and int(text) < 130:
                    age = int(text)
                else:
                    entry.notes.append(_("“%(a)s” is not an age: no division") % {"a": text})
            if age is not None:
                entry.division = bracket_for(age, brackets) or ""
                if not entry.division:
                    entry.notes.append(_("age %(a)s is in no bracket: no division") % {"a": age})
        if birth is None and mapping.get("birth") is not None and cell("birth"):
            if not any(cell("birth") in note for note in entry.notes):
                entry.notes.append(
                    _("“%(d)s” is not a birth date: none kept") % {"d": cell("birth")}
                )
        for role, label in (
            ("name", _("name")),
            ("ref", _("id")),
            ("club", _("club")),
            ("division", _("division")),
        ):
            limit = limits.get(role)
            if limit and len(getattr(entry, role)) > limit:
                entry.problems.append(
                    _("the %(f)s is longer than %(n)s characters") % {"f": label, "n": limit}
                )
        repeat_of(entry, seen_refs, seen_names, sheet.same_email.get(line))
        out.append(entry)
    return out


def repeat_of(
    entry: Entry,
    seen_refs: dict[str, tuple[int, str]],
    seen_names: dict[tuple[str, str], int],
    same_email: int | None,
) -> None:
    """Mark ``entry`` as a repeat of an earlier row of the list (``seen_*``: what the earlier
    rows had, updated here): the same id and name, the same name and club (accents, case and
    punctuation folded) or the same e-mail (``same_email``: the earlier line that has it).
    The same id under another name is no repeat but a problem: one of the two is wrong."""
    key = name_key(entry.name)
    if entry.ref:
        if entry.ref in seen_refs:
            first, first_key = seen_refs[entry.ref]
            if first_key != key:
                entry.problems.append(
                    _("id %(ref)s is also on line %(line)s") % {"ref": entry.ref, "line": first}
                )
            elif entry.repeats is None:
                entry.repeats, entry.repeat_why = first, _("same id")
        seen_refs.setdefault(entry.ref, (entry.line, key))
    if entry.name:
        same = (key, name_key(entry.club))
        if same in seen_names and entry.repeats is None:
            entry.repeats, entry.repeat_why = seen_names[same], _("same name and club")
        seen_names.setdefault(same, entry.line)
    if same_email is not None and entry.repeats is None:
        entry.repeats, entry.repeat_why = same_email, _("same e-mail")


def paste_sheet(text: str, budget: Budget | None = None) -> Sheet:
    """A pasted list, one player a line, "name" or "name, club" (a tab works too)."""
    budget = budget or Budget()
    rows = []
    for number, line in enumerate((text or "").splitlines(), start=1):
        parts = re.split(r"\s*[\t,;]\s*", line.strip(), maxsplit=1)
        budget.row(number, parts)
        if not line.strip():
            continue
        why = bad_character(line)
        if why:
            raise ReadError(_("Line %(line)s holds %(why)s.") % {"line": number, "why": why})
        name, club = parts[0], parts[1] if len(parts) > 1 else ""
        rows.append((number, [name.strip(), club.strip()]))
        if len(rows) > MAX_ROWS:
            raise ReadError(_("The list has more than %(n)s rows.") % {"n": MAX_ROWS})
    if not rows:
        raise ReadError(_("The list is empty: one name a line."))
    return Sheet(header=[_("Name"), _("Club")], rows=rows, how=_("pasted list"))
