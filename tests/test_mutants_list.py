"""The mutant list of ``tuning/mutants.py`` stays applicable: every edit's original occurs exactly once.

A refactoring that moves a mutated line must move the mutant with it (or
replace it by an equivalent one), or the mutation check would silently stop
checking that bug.  Running the mutants themselves is ``tuning/mutants.py``'s
job (minutes of compiling); this only reads the files.
"""

from __future__ import annotations

from pathlib import Path

from tuning.mutants import load_mutants

REPO = Path(__file__).resolve().parents[1]


def test_every_mutant_applies_to_the_current_sources():
    mutants = load_mutants()
    assert len(mutants) >= 5 and len({m.name for m in mutants}) == len(mutants)
    stale = [
        f"{m.name}: {edit.file} has the original {(REPO / edit.file).read_text().count(edit.original)} times"
        for m in mutants
        for edit in m.edits
        if (REPO / edit.file).read_text().count(edit.original) != 1
    ]
    assert not stale, "mutants to update in tuning/mutants.toml:\n" + "\n".join(stale)


def test_every_mutant_names_existing_tests():
    missing = [
        f"{mutant.name}: {argument}"
        for mutant in load_mutants()
        for argument in mutant.tests
        if argument.startswith("tests/") and not (REPO / argument.split("::")[0]).exists()
    ]
    assert not missing, "mutants naming tests that do not exist:\n" + "\n".join(missing)
