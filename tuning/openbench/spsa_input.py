"""Print the search parameters as OpenBench's SPSA input: one ``NAME, int, value, min, max, c_end, r_end`` line each.

    python -m tuning.openbench.spsa_input > spsa.txt    # paste into OpenBench's "SPSA Parameters" box

The names are the UCI options of a build made with ``make EXE=<name> TUNE=1`` (``jitfish --tune``), the
values those of ``jitfish/search/search_params.json``, and the range and steps those of
``jitfish/search/params.py`` (docs/openbench.md).
"""

from __future__ import annotations

from jitfish.search.params import FIELDS, default_params


def spsa_lines() -> list[str]:
    values = default_params()
    return [
        f"{field.name}, int, {int(values[index])}, {field.low}, {field.high}, {field.c_end}, {field.r_end}"
        for index, field in enumerate(FIELDS)
    ]


if __name__ == "__main__":
    print("\n".join(spsa_lines()))
