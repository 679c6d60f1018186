"""find_internal_links: links and addresses of local or internal places."""

import pytest

from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.internal_links import find_internal_links


def found(text: str, domains: tuple[str, ...] = ()) -> list[str]:
    ctx = DetectorContext(internal_domains=domains)
    return [text[start:end] for start, end in find_internal_links(text, ctx)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Open http://10.0.0.5:8080/admin.", ["http://10.0.0.5:8080/admin"]),
        (
            "It runs at http://localhost:3000/dash and localhost:5000",
            ["http://localhost:3000/dash", "localhost:5000"],
        ),
        (
            "Dashboards are on grafana.corp, the db on db.internal:5432.",
            ["grafana.corp", "db.internal:5432"],
        ),
        (
            "Private 192.168.1.20, 172.20.0.1 and 127.0.0.1.",
            ["192.168.1.20", "172.20.0.1", "127.0.0.1"],
        ),
        ("Metadata at 169.254.169.254/latest/meta-data", ["169.254.169.254/latest/meta-data"]),
        ("Listen on 0.0.0.0:80", ["0.0.0.0:80"]),
        ("IPv6 ::1, fe80::1 and fd12:3456::1", ["::1", "fe80::1", "fd12:3456::1"]),
        ("See https://[fd00::5]:8443/status)", ["https://[fd00::5]:8443/status"]),
        (
            "Printer at printer.local. Router router.home.arpa",
            ["printer.local", "router.home.arpa"],
        ),
        (
            "Wiki: https://wiki.intranet/page?id=4 and nas.lan",
            ["https://wiki.intranet/page?id=4", "nas.lan"],
        ),
    ],
)
def test_finds_internal_links_and_hosts_with_exact_offsets(text: str, expected: list[str]) -> None:
    """URLs and bare hosts of internal places are found with their port and path."""
    assert found(text) == expected


def test_finds_configured_internal_domains_and_their_subdomains() -> None:
    """A host equal to or under ctx.internal_domains counts; a look-alike suffix does not."""
    text = "See corp.example.com, https://jira.corp.example.com/browse/X-1 and corp.example.com.evil.com."
    assert found(text, ("corp.example.com",)) == [
        "corp.example.com",
        "https://jira.corp.example.com/browse/X-1",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Run `ssh ops@bastion.prod.corp` to get in.", ["bastion.prod.corp"]),
        ("scp -P 22 app.tgz deploy@web1.lan:/tmp/", ["web1.lan"]),
        ("git clone git@gitlab.acme.internal:payments/api.git", ["gitlab.acme.internal"]),
    ],
)
def test_finds_internal_hosts_behind_a_login(text: str, expected: list[str]) -> None:
    """A user@ in front of a host does not hide it when the host is logged in to, not mailed."""
    assert found(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The sheet is on \\\\fileserver.lan\\finance\\Q3.xlsx.",
            ["\\\\fileserver.lan\\finance\\Q3.xlsx"],
        ),
        ("Map \\\\nas01\\backups as drive Z:", ["\\\\nas01\\backups"]),
    ],
)
def test_finds_windows_shares_on_lan_hosts(text: str, expected: list[str]) -> None:
    """A UNC path to an internal or dotless host is found as a whole."""
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Public DNS 8.8.8.8 and https://example.com/help.",
        "Visit corporation.com or local.example.com or lan.example.org.",
        "Our address 172.32.0.1 is public, 11.0.0.1 too.",
        "Mail me at jane@acme.corp.",
        "Copy .env.local to /etc/app.local first.",
        "Update to version 10.0.0.1 and v2.14.3.",
        "Order 4821 placed 2026-11-29T10:00:00Z for $1,249.99.",
        "Global IPv6 2001:db8::1 is fine.",
        "During development it runs on localhost, but you use the hosted version.",
        "Share \\\\files.example.com\\public is public; regex \\\\d\\\\w is not a share.",
        "The git team answers at ops@tools.corp within a day.",
    ],
)
def test_ignores_public_hosts_emails_and_files(text: str) -> None:
    """Public addresses, internal words elsewhere than the suffix, emails and file names do not count."""
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Keep per-thread state in threading.local so workers do not share it.",
        "Debian reads adduser.local after creating the account.",
        "Put the command in rc.local to run it at boot.",
        "Call ctx = foo.local() first.",
        "werkzeug.local and contextvars both work here.",
    ],
)
def test_a_local_attribute_or_file_name_is_not_a_host(text: str) -> None:
    """A ``.local`` name in code or prose without a host's signs is an attribute or a file."""
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Try ping nas.local from the laptop.", ["nas.local"]),
        ("The dashboard is at grafana.local:3000/d/x.", ["grafana.local:3000/d/x"]),
        ("Files are on my-nas.local now.", ["my-nas.local"]),
        ("ssh pi@raspberrypi.local", ["raspberrypi.local"]),
        ("Set the hostname to octopi.local and reboot.", ["octopi.local"]),
        ("Open http://homeassistant.local:8123 in a browser.", ["http://homeassistant.local:8123"]),
    ],
)
def test_a_local_name_used_as_a_host_counts(text: str, expected: list[str]) -> None:
    """A ``.local`` name with a port or path, in a URL, after ``user@``, with a hyphen or
    beside a network word is a host on the local network."""
    assert found(text) == expected
