import pytest

from tests.corpus.test_quality import REPORT


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if REPORT:
        terminalreporter.section("rule-check quality on the labelled corpus")
        for line in REPORT:
            terminalreporter.write_line(line)
