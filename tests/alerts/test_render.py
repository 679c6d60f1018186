"""Every shipped template, rendered from the example alert and digest, against golden files.

Run with ``TURNCHECK_UPDATE_GOLDEN=1`` to rewrite the files after a deliberate change,
then read the diff.
"""

import base64
import json
import os
import re
from dataclasses import replace
from pathlib import Path

import pytest

from turncheck.alerts.examples import example_alert, example_digest
from turncheck.alerts.notice import Notice
from turncheck.alerts.render import NAMES, Templates
from turncheck.worker.errors import ConfigurationError
from turncheck.worker.store.alert_readings import WindowCounts

GOLDEN = Path(__file__).parent / "golden"
NOTICES: dict[str, Notice] = {"alert": example_alert(), "digest": example_digest()}


def rendered(templates: Templates, kind: str) -> dict[str, str]:
    notice = NOTICES[kind]
    slack, mail = templates.slack(notice), templates.mail(notice)
    return {
        f"slack_{kind}.text.txt": slack.text + "\n",
        f"slack_{kind}.blocks.json": json.dumps(slack.blocks, indent=2, ensure_ascii=False) + "\n",
        f"mail_{kind}.subject.txt": mail.subject + "\n",
        f"mail_{kind}.text.txt": mail.text,
        f"mail_{kind}.html": mail.html + "\n",
    }


@pytest.mark.parametrize("kind", ["alert", "digest"])
def test_every_template_renders_as_its_golden_file(kind: str) -> None:
    outputs = rendered(Templates(), kind)
    assert len(outputs) == len([n for n in NAMES if f"_{kind}." in n])
    if os.environ.get("TURNCHECK_UPDATE_GOLDEN"):
        for name, text in outputs.items():
            (GOLDEN / name).write_text(text, encoding="utf-8")
    for name, text in outputs.items():
        assert text == (GOLDEN / name).read_text(encoding="utf-8"), name


def test_the_alert_chart_is_an_inline_png_the_html_refers_to() -> None:
    mail = Templates().mail(example_alert())
    assert mail.chart_png is not None and mail.chart_png.startswith(b"\x89PNG")
    assert 'src="cid:chart"' in mail.html


def test_the_standalone_page_embeds_the_chart_and_refers_to_no_mail_part() -> None:
    """What `alerts preview --html` shows in a browser: the mail's HTML, its chart inside."""
    mail = Templates().mail(example_alert())
    page = mail.standalone_html()
    assert page.startswith("<!DOCTYPE html>") and "cid:" not in page
    [encoded] = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert base64.b64decode(encoded) == mail.chart_png
    digest = Templates().mail(example_digest())
    assert digest.standalone_html() == digest.html


def test_too_few_results_is_never_ok_nor_green_in_a_digest() -> None:
    """Every result passed, but 12 of the 50 needed: the digest says too few, not ok."""
    line = replace(example_digest().lines[1], counts=WindowCounts(passed=12))
    digest = replace(example_digest(), lines=(line,))
    templates = Templates()
    slack, mail = templates.slack(digest), templates.mail(digest)
    blocks = json.dumps(slack.blocks, ensure_ascii=False)
    assert (
        "🟢" not in blocks and "⚪ *grounded* · support-bot: too few results (12 of 50)" in blocks
    )
    assert slack.text.endswith("0 of 1 checks below their threshold, 1 with too few results.")
    assert mail.subject.endswith("0 of 1 checks below their threshold, 1 with too few results")
    assert "grounded (support-bot): too few results (12 of 50)" in mail.text
    assert "ok" not in mail.text.split()
    assert ">too few results (12 of 50)</td>" in mail.html and ">ok<" not in mail.html


def test_an_alert_previewed_before_it_is_due_says_so_in_every_part() -> None:
    """A preview renders the alert whatever the state: no part claims it is below."""
    alert = replace(example_alert(), counts=WindowCounts(passed=12), earlier=None)
    templates = Templates()
    slack, mail = templates.slack(alert), templates.mail(alert)
    summary = "too few results (12 of 50), 100.0% of the latest 12 results passed"
    assert summary in slack.text and summary in mail.subject and summary in mail.text
    assert slack.blocks[0]["text"]["text"] == "Check no-card-numbers: too few results (12 of 50)"
    assert "<h2" in mail.html and ": too few results (12 of 50)</h2>" in mail.html
    for part in (slack.text, json.dumps(slack.blocks), mail.subject, mail.text, mail.html):
        assert "below" not in part


def test_slack_blocks_stay_within_slack_s_limits() -> None:
    """At most 50 blocks, a header of at most 150 characters, sections of at most 3000."""
    many = example_digest()
    lines = tuple(replace(many.lines[0], check=f"check-{n}") for n in range(120))
    for notice in (example_alert(), replace(many, lines=lines)):
        blocks = Templates().slack(notice).blocks
        assert len(blocks) <= 50
        assert len(blocks[0]["text"]["text"]) <= 150
        for block in blocks:
            text = block.get("text", {}).get("text", "")
            assert len(text) <= 3000


def test_names_from_the_data_are_escaped_in_html_and_slack() -> None:
    alert = replace(example_alert(), agent_id="<b>bot</b> & co")
    templates = Templates()
    assert "&lt;b&gt;bot&lt;/b&gt; &amp; co" in templates.mail(alert).html
    assert "<b>" not in templates.mail(alert).html
    fields = templates.slack(alert).blocks[1]["fields"]
    assert fields[0]["text"] == "*Agent*\n&lt;b&gt;bot&lt;/b&gt; &amp; co"


def test_a_template_in_the_override_folder_replaces_the_shipped_one(tmp_path: Path) -> None:
    (tmp_path / "mail_alert.subject.j2").write_text("ALERT {{ alert.check }}")
    mail = Templates(tmp_path).mail(example_alert())
    assert mail.subject == "ALERT no-card-numbers"
    assert mail.text == Templates().mail(example_alert()).text  # the others are shipped ones


def test_a_broken_override_is_refused_with_its_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "mail_alert.text.j2").write_text("ok\n\n{{ alert.check | }}\n")
    with pytest.raises(ConfigurationError, match=r"mail_alert.text.j2:3: "):
        Templates(tmp_path).mail(example_alert())


def test_an_override_that_names_a_missing_value_is_refused(tmp_path: Path) -> None:
    (tmp_path / "slack_alert.text.j2").write_text("{{ alert.turn_text }}")
    with pytest.raises(ConfigurationError, match=r"slack_alert\.text\.j2"):
        Templates(tmp_path).slack(example_alert())


def test_blocks_that_are_not_json_are_refused(tmp_path: Path) -> None:
    (tmp_path / "slack_alert.blocks.json.j2").write_text('[{"type": "section",}]')
    with pytest.raises(ConfigurationError, match="invalid JSON at line 1"):
        Templates(tmp_path).slack(example_alert())


def test_an_override_folder_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="TURNCHECK_ALERT_TEMPLATES"):
        Templates(tmp_path / "missing")
