"""The operators' view (ops/, the compose profile "ops") reads what turncheck exports: every
query of the Grafana dashboard names a series a real /metrics serves, with labels it has;
the provisioning files, the compose services and Prometheus' scrape fit together.

Docker does not run here: the files are parsed, and /metrics is read from a real API."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from tests.api.conftest import AUTH, api_settings, running_api, save, turn
from tests.conftest import fresh_store
from tests.factories import FIXED_NOW
from turncheck.worker.api.metrics import StoreGauges
from turncheck.worker.checks import Verdict
from turncheck.worker.runtime import metrics as process
from turncheck.worker.store.alerts import AlertKey, AlertStore
from turncheck.worker.store.gauges import Gauges
from turncheck.worker.web import palette

ROOT = Path(__file__).parents[1]
OPS = ROOT / "ops"
DASHBOARD: dict[str, Any] = json.loads((OPS / "grafana/dashboards/turncheck.json").read_text())
PANELS: list[dict[str, Any]] = DASHBOARD["panels"]
SERVICES: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
PROMETHEUS: dict[str, Any] = yaml.safe_load((OPS / "prometheus/prometheus.yml").read_text())
DATASOURCES = yaml.safe_load((OPS / "grafana/provisioning/datasources/prometheus.yml").read_text())
PROVIDERS = yaml.safe_load((OPS / "grafana/provisioning/dashboards/turncheck.yml").read_text())

# Labels Prometheus adds to every series it scrapes, and the one series it makes itself.
TARGET_LABELS = frozenset({"job", "instance"})
SYNTHETIC = {"up": frozenset[str]()}

# Grafana's variables, as a value PromQL parses (the dashboard's default scrape is 15 s).
GRAFANA_VARIABLES = {"$__rate_interval": "1m", "$__interval": "1m", "$__range": "6h"}


def expressions() -> list[tuple[str, str]]:
    """(panel title, PromQL) of every query of the dashboard."""
    return [(p["title"], t["expr"]) for p in PANELS for t in p["targets"]]


def promql(expr: str) -> str:
    """The query as Prometheus gets it once Grafana has put its variables in."""
    for name, value in GRAFANA_VARIABLES.items():
        expr = expr.replace(name, value)
    return expr


def selectors(expr: str) -> tuple[set[str], set[str]]:
    """(metric names, label names) a query reads. Enough PromQL for this dashboard's
    queries: selectors, ``by (...)``/``without (...)``, function calls and ranges."""
    labels: set[str] = set()
    for body in re.findall(r"\{([^}]*)\}", expr):
        labels |= set(re.findall(r"([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)", body))
    for body in re.findall(r"\b(?:by|without)\s*\(([^)]*)\)", expr):
        labels |= {name.strip() for name in body.split(",") if name.strip()}
    bare = re.sub(r"\{[^}]*\}|\[[^]]*\]|\b(?:by|without)\s*\([^)]*\)|\$__\w+", " ", expr)
    names = set(re.findall(r"\b([a-zA-Z_:][\w:]*)\b(?!\s*\()", bare))
    return names - {"by", "without", "on", "ignoring", "and", "or", "unless"}, labels


@asynccontextmanager
async def seeded_api(tmp_path: Path, **settings: Any) -> AsyncIterator[httpx.AsyncClient]:
    """A real API over a store with results and an alert's deliveries."""
    url = f"sqlite+aiosqlite:///{tmp_path}/turncheck.db"
    store = await fresh_store(url)
    try:
        await save(store, [turn("t-1")], [("a", Verdict.PASSED), ("b", Verdict.FAILED)])
        key = AlertKey("check", "b", "support-bot", FIXED_NOW.date())
        await AlertStore(store.database).raise_alert(
            key, snapshot="{}", channels=["slack"], now=FIXED_NOW, give_up_at=FIXED_NOW
        )
        async with running_api(api_settings(url, **settings), store) as api:
            yield api
    finally:
        await store.close()


async def exported(tmp_path: Path) -> dict[str, frozenset[str]]:
    """Each sample name a real /metrics serves, with its label names: a real API over a
    store with results and an alert's deliveries, scraped over HTTP."""
    async with seeded_api(tmp_path) as client:
        # A labelled counter shows its labels once it has counted: count nothing more
        # than the pipeline would (the other tests read these counters' growth only).
        process.batch_stored(0, [])
        process.RESULTS_STORED.labels("passed").inc(0)
        process.SHADOW_RESULTS_STORED.labels("passed").inc(0)
        process.ALERT_SENDS.labels("sent").inc(0)
        response = await client.get("/metrics", headers=AUTH)
    assert response.status_code == 200
    # The lag comes from a broker, not here: the route's own collector, given a reading.
    broker = CollectorRegistry(auto_describe=False)
    broker.register(StoreGauges(Gauges(outbox_backlog=0, judge_pending=0), lag={0: 0}))
    text = response.text + generate_latest(broker).decode()
    found: dict[str, set[str]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found.setdefault(sample.name, set()).update(sample.labels)
    return {name: frozenset(labels) for name, labels in found.items()}


async def test_every_query_reads_metrics_turncheck_exports_with_their_labels(
    tmp_path: Path,
) -> None:
    """Each metric a query names is served by /metrics (or is Prometheus' ``up``), and each
    label it filters or groups by is one of that metric's or one Prometheus adds."""
    known = {**(await exported(tmp_path)), **SYNTHETIC}
    assert "turncheck_consumer_lag" in known and "turncheck_alert_sends_total" in known
    for title, expr in expressions():
        names, labels = selectors(expr)
        assert names, f"{title}: {expr} reads no metric"
        unknown = names - set(known)
        assert not unknown, f"{title}: {expr} reads {unknown}, which /metrics does not serve"
        allowed = TARGET_LABELS.union(*(known[name] for name in names))
        assert labels <= allowed, f"{title}: {expr} uses labels {labels - allowed}"


def test_legends_name_labels_their_queries_keep() -> None:
    """A ``{{label}}`` in a legend is one the query groups by or keeps."""
    for panel in PANELS:
        for target in panel["targets"]:
            legend = set(re.findall(r"\{\{\s*(\w+)\s*\}\}", target["legendFormat"]))
            _, labels = selectors(target["expr"])
            assert legend <= labels, f"{panel['title']}: legend {legend} not in {labels}"


SUBJECTS = {
    "consumer lag": "turncheck_consumer_lag",
    "turns and results by verdict": "turncheck_results_stored_total",
    "outbox backlog": "turncheck_outbox_backlog",
    "judge queue": "turncheck_judge_pending",
    "alert sends": "turncheck_alert_sends_total",
}


@pytest.mark.parametrize(("subject", "metric"), SUBJECTS.items())
def test_each_subject_of_the_issue_has_a_panel_with_a_unit(subject: str, metric: str) -> None:
    """Consumer lag, results by verdict, outbox backlog, judge queue and alert sends each
    have a panel whose title says so and whose query reads the metric, with a unit set."""
    words = subject.split(" and ")[-1].split()[0].lower()
    found = [
        p
        for p in PANELS
        if words in p["title"].lower() and any(metric in t["expr"] for t in p["targets"])
    ]
    assert found, f"no panel for {subject}"
    assert all(p["fieldConfig"]["defaults"].get("unit") for p in found)


def test_turns_consumed_and_shadow_results_have_panels_of_their_own() -> None:
    """Turns consumed, and shadow checks' results apart from the rest."""
    reads = {t["expr"] for p in PANELS for t in p["targets"]}
    assert any("turncheck_turns_consumed_total" in e for e in reads)
    assert any("turncheck_shadow_results_stored_total" in e for e in reads)


def test_panels_have_unique_ids_units_and_the_provisioned_datasource() -> None:
    """Ids are unique; every panel and query uses the provisioned Prometheus by its uid;
    the default range is the last 6 hours."""
    ids = [p["id"] for p in PANELS]
    assert len(ids) == len(set(ids))
    [source] = DATASOURCES["datasources"]
    assert source["type"] == "prometheus"
    assert source["url"] == f"http://prometheus:{published('prometheus')}"
    for panel in PANELS:
        assert panel["fieldConfig"]["defaults"]["unit"], panel["title"]
        for where in (panel, *panel["targets"]):
            assert where["datasource"] == {"type": "prometheus", "uid": source["uid"]}
    assert DASHBOARD["time"] == {"from": "now-6h", "to": "now"}


def test_fixed_colours_come_from_the_web_uis_palette() -> None:
    """A verdict or an outcome has a fixed colour, one of the Okabe-Ito palette's."""
    fixed = [
        prop["value"]["fixedColor"]
        for p in PANELS
        for override in p["fieldConfig"]["overrides"]
        for prop in override["properties"]
        if prop["id"] == "color"
    ]
    assert fixed and set(fixed) <= set(palette.SERIES)


def mounts(service: str) -> dict[str, Path]:
    """Container path to the repository's path, of the service's read-only bind mounts."""
    found = {}
    for volume in SERVICES[service]["volumes"]:
        source, target, *mode = volume.split(":")
        if source.startswith("./"):
            assert mode == ["ro"], f"{service}: {volume} is not read-only"
            found[target] = ROOT / source
    return found


def published(service: str) -> int:
    [port] = SERVICES[service]["ports"]
    outside, inside = str(port).split(":")
    assert outside == inside
    return int(inside)


def in_container(service: str, path: str) -> Path:
    """The repository's file a container sees at ``path``, through the service's mounts."""
    for target, source in mounts(service).items():
        if path == target or path.startswith(target + "/"):
            return source / path[len(target) :].lstrip("/")
    raise AssertionError(f"{service} sees nothing of ours at {path}")


def test_grafana_loads_the_mounted_dashboard_and_datasource() -> None:
    """The provider's path is where the dashboards are mounted, and the files Grafana reads
    there (provisioning, the home dashboard) are the repository's."""
    [provider] = PROVIDERS["providers"]
    folder = in_container("grafana", provider["options"]["path"])
    assert (folder / "turncheck.json").is_file()
    provisioning = in_container("grafana", "/etc/grafana/provisioning")
    assert (provisioning / "datasources/prometheus.yml").is_file()
    assert (provisioning / "dashboards/turncheck.yml").is_file()
    home = SERVICES["grafana"]["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
    assert in_container("grafana", home).is_file()


def test_the_ops_profile_runs_pinned_images_with_mounts_in_the_repository() -> None:
    """prometheus and grafana start only with ``--profile ops``, on 9090 and 3000, from
    pinned images, each with a health check; every bind mount is a file of the repository."""
    for service, port in (("prometheus", 9090), ("grafana", 3000)):
        spec = SERVICES[service]
        assert spec["profiles"] == ["ops"]
        name, _, tag = spec["image"].rpartition(":")
        assert name and re.fullmatch(r"v?\d+\.\d+\.\d+", tag), spec["image"]
        assert published(service) == port
        assert f"127.0.0.1:{port}/" in " ".join(spec["healthcheck"]["test"])
        for source in mounts(service).values():
            assert source.exists(), f"{service} mounts {source}, which is not in the repository"
    others = [name for name, s in SERVICES.items() if name not in ("prometheus", "grafana")]
    assert all("profiles" not in SERVICES[name] for name in others)


def test_grafana_asks_for_a_password_and_keeps_anonymous_viewers_out() -> None:
    """The admin password comes from GRAFANA_ADMIN_PASSWORD (a demo default otherwise);
    anonymous access is off unless GRAFANA_ANONYMOUS says otherwise, and then views only."""
    grafana = SERVICES["grafana"]["environment"]
    assert re.fullmatch(r"\$\{GRAFANA_ADMIN_PASSWORD:-\S+\}", grafana["GF_SECURITY_ADMIN_PASSWORD"])
    assert grafana["GF_AUTH_ANONYMOUS_ENABLED"] == "${GRAFANA_ANONYMOUS:-false}"
    assert grafana["GF_AUTH_ANONYMOUS_ORG_ROLE"] == "Viewer"


def test_prometheus_scrapes_the_workers_metrics_with_its_token() -> None:
    """One job: worker:8080/metrics on the compose network, with the worker's API token."""
    assert in_container("prometheus", "/etc/prometheus/prometheus.yml") == (
        OPS / "prometheus/prometheus.yml"
    )
    [job] = PROMETHEUS["scrape_configs"]
    assert job["job_name"] == "turncheck"
    assert job.get("metrics_path", "/metrics") == "/metrics"
    [static] = job["static_configs"]
    worker = SERVICES["worker"]["environment"]
    assert static["targets"] == [f"worker:{worker.get('TURNCHECK_API_PORT', 8080)}"]
    assert job["authorization"] == {
        "type": "Bearer",
        "credentials": worker["TURNCHECK_API_TOKEN"],
    }
    # The up{job="turncheck"} panel names the job.
    assert any('job="turncheck"' in expr for _, expr in expressions())
