"""The canonical table written at build time is the one ``unicodedata`` gives."""

from __future__ import annotations

import unicodedata

import pytest

from turncheck.worker.checks import canonical_table, textmap, unicode_table


def test_the_table_in_use_is_the_one_this_python_builds() -> None:
    """Read from the file or built, what a text becomes is what this Python's Unicode says."""
    assert unicode_table.build() == textmap.CANONICAL


def test_regenerating_the_written_table_gives_the_same_bytes() -> None:
    """canonical_table.py is what `python -m turncheck.worker.checks.unicode_table` writes."""
    if unicodedata.unidata_version != canonical_table.UNIDATA_VERSION:
        pytest.skip(
            f"written for Unicode {canonical_table.UNIDATA_VERSION}, this Python has "
            f"{unicodedata.unidata_version}: textmap builds its table at import here"
        )
    written = unicode_table.WRITTEN.read_text(encoding="utf-8")
    assert unicode_table.render(unicode_table.build(), unicodedata.unidata_version) == written


def test_the_written_table_maps_dashes_digits_and_arabic_separators() -> None:
    """Spot checks a person can read: the kinds of character the table is for."""
    table = canonical_table.CANONICAL
    assert table[0x2011] == table[0x2212] == "-"  # non-breaking hyphen, minus sign
    assert table[0x0664] == table[0xFF14] == "4"  # Arabic-Indic, full-width
    assert (table[0x066B], table[0x066C]) == (".", ",")
    assert all(not chr(point).isascii() for point in table)
