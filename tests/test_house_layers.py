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
