"""``GET /metrics``: Prometheus text, behind the token.

Two parts: this process's counters (``worker/runtime/metrics.py``: turns consumed, results
stored by verdict, alert sends by outcome) and gauges read from the database at each
scrape (``worker/store/gauges.py``), which are the deployment's, shared by every
replica; and, with a broker configured, the consumer group's lag per partition of the
turns topic, read from the broker (``worker/kafka/lag.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from turncheck.worker.api.context import ApiContext, context
from turncheck.worker.kafka.lag import consumer_lag
from turncheck.worker.runtime import metrics as process
from turncheck.worker.store.gauges import Gauges, read_gauges

router = APIRouter()


class StoreGauges(Collector):
    """Gauges from one reading of the database (and of the broker, for the lag), taken
    before the scrape is rendered."""

    def __init__(self, gauges: Gauges, lag: dict[int, int] | None = None) -> None:
        self.gauges = gauges
        self.lag = lag

    def collect(self) -> Iterator[GaugeMetricFamily]:
        g = self.gauges
        yield GaugeMetricFamily(
            "turncheck_outbox_backlog",
            "Events not yet acknowledged by the broker.",
            g.outbox_backlog,
        )
        yield GaugeMetricFamily(
            "turncheck_judge_pending", "Sampled judgements not yet stored.", g.judge_pending
        )
        results = GaugeMetricFamily(
            "turncheck_rollup_results",
            "Results counted in the pass-rate rollups, by check and verdict (all time).",
            labels=["check", "verdict"],
        )
        for (check, verdict), count in sorted(g.results.items()):
            results.add_metric([check, verdict], count)
        yield results
        deliveries = GaugeMetricFamily(
            "turncheck_alert_deliveries",
            "Alert deliveries by channel and status (pending, sent, failed).",
            labels=["channel", "status"],
        )
        for (channel, status), count in sorted(g.deliveries.items()):
            deliveries.add_metric([channel, status], count)
        yield deliveries
        if self.lag is not None:
            lag = GaugeMetricFamily(
                "turncheck_consumer_lag",
                "Turns not yet committed by the consumer group, by partition.",
                labels=["partition"],
            )
            for partition, count in sorted(self.lag.items()):
                lag.add_metric([str(partition)], count)
            yield lag


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {CONTENT_TYPE_LATEST: {}}, "description": "Prometheus text."}},
)
async def metrics(ctx: Annotated[ApiContext, Depends(context)]) -> Response:
    """Prometheus text exposition: process counters and the database's gauges."""
    registry = CollectorRegistry(auto_describe=False)
    settings = ctx.settings
    lag = None
    if settings.kafka_bootstrap:
        lag = await consumer_lag(settings.kafka_bootstrap, settings.group_id, settings.topic_turns)
    registry.register(StoreGauges(await read_gauges(ctx.store.database), lag))
    body = generate_latest(process.REGISTRY) + generate_latest(registry)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
