"""The house's layers (STYLE.md) are import-linter's contracts in pyproject.toml, which `make lint`
runs: every one is kept today, and each would catch the import it forbids."""

import copy
import re
import subprocess
import sys
from pathlib import Path

import grimp
import pytest
from importlinter.api import read_configuration
from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.contracts.layers import LayersContract

ROOT = Path(__file__).resolve().parent.parent
CONFIG = read_configuration(str(ROOT / "pyproject.toml"))
CONTRACTS = {c["id"]: c for c in CONFIG["contracts_options"]}
KINDS = {"forbidden": ForbiddenContract, "layers": LayersContract}


def test_every_contract_is_kept():
    lint = Path(sys.executable).parent / "lint-imports"
    run = subprocess.run(  # noqa: S603 (the venv's own lint-imports)
        [lint, "--no-cache", "--no-logo"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stdout + run.stderr
    kept = re.search(r"Contracts: (\d+) kept, 0 broken", run.stdout)
    assert kept and int(kept[1]) == len(CONTRACTS) >= 4, run.stdout


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph(
        *CONFIG["session_options"]["root_packages"],
        include_external_packages=True,
        cache_dir=None,
    )


@pytest.mark.parametrize(
    "contract, importer, imported",
    [
        ("game", "tournament.game.rules", "django"),
        ("game", "tournament.game.seating", "tournament.models"),
        ("game", "tournament.game.awards", "scoring.results"),
        ("apps", "tournament.models", "scoring.models"),
        ("apps", "tournament.services.players", "scoring.services.undo"),
        ("layers", "scoring.models", "scoring.services.rounds"),
        ("layers", "tournament.services.events", "tournament.forms"),
        ("layers", "tournament.forms", "tournament.views.events"),
        ("layers", "scoring.views.entry", "scoring.templatetags.conflict_tags"),
    ],
)
def test_a_forbidden_import_breaks_its_contract(graph, contract, importer, imported):
    options = CONTRACTS[contract]
    kind = KINDS[options["type"]]

    def kept(g) -> bool:
        check = kind(options["name"], CONFIG["session_options"], options)
        return check.check(g, verbose=False).kept

    assert kept(copy.deepcopy(graph))
    broken = copy.deepcopy(graph)
    broken.add_import(importer=importer, imported=imported)
    assert not kept(broken)


# -- the one-way rule in templates too (issue 47 item 3) ----------------------------------------

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
SCORING_LIBRARIES = {
    p.stem
    for p in (TEMPLATES.parent / "scoring" / "templatetags").glob("*.py")
    if p.stem != "__init__"
}
LOAD = re.compile(r"{%\s*load\s+([^%]*?)\s*%}")
USE = re.compile(r"""{%\s*(?:include|extends)\s+["'](scoring/[^"']*)["']""")


def scoring_in(text: str) -> list[str]:
    """What a template takes of scoring: its tag libraries loaded, its templates used."""
    loaded = [name for m in LOAD.finditer(text) for name in m.group(1).split()]
    return [f"load {n}" for n in loaded if n in SCORING_LIBRARIES] + USE.findall(text)


def test_the_event_apps_templates_take_nothing_of_scoring():
    found = {
        str(p.relative_to(TEMPLATES)): scoring_in(p.read_text(encoding="utf-8"))
        for p in sorted((TEMPLATES / "tournament").rglob("*.html"))
    }
    assert {name: uses for name, uses in found.items() if uses} == {}


@pytest.mark.parametrize(
    "text",
    [
        "{% load i18n standings_tags %}",
        '{% include "scoring/_medals.html" %}',
        "{% extends 'scoring/base.html' %}",
    ],
)
def test_the_template_check_finds_what_it_forbids(text):
    assert scoring_in(text) and not scoring_in("{% load i18n static %}{% include 'x.html' %}")
