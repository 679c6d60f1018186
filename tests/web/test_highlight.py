"""Marking spans in a text: escaped, from code-point offsets, overlapping spans cut into
pieces so no tag opens inside another."""

from __future__ import annotations

from turncheck.worker.web.highlight import Mark, highlighted


def test_overlapping_spans_are_cut_into_pieces_titled_with_every_label_covering_them() -> None:
    """Two spans sharing "Co" give three marks, the shared one titled with both labels."""
    html = highlighted("HelpCo support", [Mark(0, 6, "phrase"), Mark(4, 14, "pattern")])

    assert html == (
        '<mark title="phrase">Help</mark><mark title="pattern, phrase">Co</mark>'
        '<mark title="pattern"> support</mark>'
    )


def test_nested_spans_and_offsets_in_code_points() -> None:
    """An emoji counts one: the span after it marks the right letters."""
    html = highlighted("🙂🙂 abc def", [Mark(3, 10, "a"), Mark(4, 5, "b")])

    assert (
        html
        == '🙂🙂 <mark title="a">a</mark><mark title="a, b">b</mark><mark title="a">c def</mark>'
    )


def test_text_and_labels_are_escaped_and_bad_offsets_are_clamped() -> None:
    """Markup in the text is shown as text; spans past the end stop at it; empty ones mark
    nothing."""
    html = highlighted('<b>"x"</b>', [Mark(3, 99, "<l>"), Mark(5, 5, "empty"), Mark(-4, 0, "none")])

    assert html == '&lt;b&gt;<mark title="&lt;l&gt;">&#34;x&#34;&lt;/b&gt;</mark>'
