"""When a check alerts: its thresholds, with the settings' defaults filled in."""

from __future__ import annotations

from dataclasses import dataclass

from turncheck.alerts.rendered import ChannelName
from turncheck.schemas.checkbase import AlertRule
from turncheck.worker.settings import DEFAULTS


@dataclass(frozen=True, slots=True)
class AlertPolicy:
    latest: int = DEFAULTS.alert_latest
    """How many of the check's latest results are counted."""
    min_pass_rate: float = DEFAULTS.alert_min_pass_rate
    min_results: int = DEFAULTS.alert_min_results
    """With fewer results than this the rate says too little: no alert."""
    channels: tuple[ChannelName, ...] = ("slack", "mail")

    def with_rule(self, rule: AlertRule) -> AlertPolicy:
        """This policy with what a check's own ``alert:`` sets in place of the defaults."""
        latest = rule.latest if rule.latest is not None else self.latest
        min_results = rule.min_results if rule.min_results is not None else self.min_results
        return AlertPolicy(
            latest=latest,
            min_pass_rate=(
                rule.min_pass_rate if rule.min_pass_rate is not None else self.min_pass_rate
            ),
            # A check asking for fewer latest results than the default minimum still alerts.
            min_results=min(min_results, latest),
            channels=tuple(rule.channels) if rule.channels is not None else self.channels,
        )


DEFAULT_POLICY = AlertPolicy()
