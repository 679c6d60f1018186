"""Alerts from the settings and the checks: the policies, the channels configured, the
templates, and the ``Alerter`` over them. Refuses at start what could never be sent."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from urllib.parse import quote, urlencode
from zoneinfo import ZoneInfo

from turncheck.alerts.alerter import Alerter, LinkMaker, Watched
from turncheck.alerts.delivery import Sender, Timing
from turncheck.alerts.examples import example_alert, example_digest
from turncheck.alerts.mail import MailChannel, MailConfig
from turncheck.alerts.notice import Links, Notice
from turncheck.alerts.policy import AlertPolicy
from turncheck.alerts.render import Templates
from turncheck.alerts.rendered import ChannelName
from turncheck.alerts.slack import SlackChannel, SlackConfig
from turncheck.worker.checks import CheckSet
from turncheck.worker.clock import Clock
from turncheck.worker.errors import ConfigurationError
from turncheck.worker.runtime.claimant import claimant_id
from turncheck.worker.settings import Settings
from turncheck.worker.store import Database
from turncheck.worker.store.alerts import AlertStore

SETTINGS_OF = {
    "slack": "TURNCHECK_ALERT_SLACK_TOKEN and TURNCHECK_ALERT_SLACK_CHANNEL, or "
    "TURNCHECK_ALERT_SLACK_WEBHOOK_URL",
    "mail": "TURNCHECK_ALERT_MAIL_HOST and TURNCHECK_ALERT_MAIL_TO",
}


def configured_channels(settings: Settings) -> tuple[ChannelName, ...]:
    found: list[ChannelName] = []
    if settings.alert_slack_token or settings.alert_slack_webhook_url:
        found.append("slack")
    if settings.alert_mail_host:
        found.append("mail")
    return tuple(found)


def default_policy(settings: Settings) -> AlertPolicy:
    """The settings' thresholds; channels: those named, else every one configured."""
    configured = configured_channels(settings)
    channels = tuple(settings.alert_channels or configured)
    for channel in channels:
        if channel not in configured:
            raise ConfigurationError(
                f"invalid setting TURNCHECK_ALERT_CHANNELS: {channel} is not configured "
                f"(set {SETTINGS_OF[channel]})"
            )
    return replace(thresholds(settings), channels=channels)


def thresholds(settings: Settings) -> AlertPolicy:
    """The settings' thresholds, on every channel."""
    return AlertPolicy(
        latest=settings.alert_latest,
        min_pass_rate=settings.alert_min_pass_rate,
        min_results=min(settings.alert_min_results, settings.alert_latest),
    )


def watched_checks(
    checks: CheckSet,
    defaults: AlertPolicy,
    configured: tuple[str, ...] | None = None,
    *,
    with_shadow: bool = False,
) -> tuple[Watched, ...]:
    """Every check whose alert is not off, but shadow checks, which never alert;
    ``with_shadow``: those too, marked (``alerts preview`` says where they stand). With
    ``configured``, a check that names a channel not configured is refused, shadow or
    not, since its alert could never be sent once it is live."""
    watched = []
    for (agent_id, check), rule in sorted(checks.alert_rules.items()):
        if rule is None:
            continue
        shadow = checks.rollouts.get((agent_id, check)) == "shadow"
        policy = defaults.with_rule(rule)
        missing = [c for c in policy.channels if configured is not None and c not in configured]
        if missing:
            raise ConfigurationError(
                f"check {check!r} of agent {agent_id!r}: field 'alert.channels' names "
                f"{', '.join(missing)}, which is not configured (set "
                f"{'; '.join(SETTINGS_OF[c] for c in missing)})"
            )
        if shadow and not with_shadow:
            continue
        watched.append(Watched(check, agent_id, policy, shadow=shadow))
    return tuple(watched)


def link_maker(settings: Settings) -> LinkMaker:
    """Where a person finds the failing turns among the results counted: the command,
    and the API when it has an address, each from ``since``, the oldest turn's time in
    the window (to the minute, rounded down), since both windows are on the turns' time.
    Each failing turn's own page is ``TURNCHECK_TURN_URL``'s, on the alert itself."""

    def links(check: str, agent_id: str, since: datetime | None) -> Links:
        start = (since or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M")
        command = ["turncheck", "failures", check, "--agent", agent_id]
        api_url = None
        if settings.api_url:
            query = urlencode({"agent": agent_id, "verdict": "failed,errored", "since": start})
            api_url = f"{settings.api_url.rstrip('/')}/v1/checks/{quote(check)}/results?{query}"
        return Links(command=shlex.join([*command, "--since", start]), api_url=api_url)

    return links


def templates(settings: Settings) -> Templates:
    """The templates in use, each rendered once with the example alert and digest so a
    broken override is refused at start, not when an alert is due."""
    found = Templates(settings.alert_templates, ZoneInfo(settings.alert_timezone))
    linked = () if settings.turn_url is None else (example_alert(settings.turn_url_template),)
    for notice in (example_alert(), *linked, example_digest()):
        found.slack(notice)
        found.mail(notice)
    return found


def slack_channel(settings: Settings) -> SlackChannel:
    return SlackChannel(
        SlackConfig(
            token=_secret(settings.alert_slack_token),
            channel=settings.alert_slack_channel,
            webhook_url=_secret(settings.alert_slack_webhook_url),
            base_url=settings.alert_slack_base_url,
            proxy=_secret(settings.alert_slack_proxy),
            timeout_s=settings.alert_send_timeout_s,
        )
    )


def senders(settings: Settings, rendering: Templates) -> dict[str, Sender]:
    found: dict[str, Sender] = {}
    configured = configured_channels(settings)
    if "slack" in configured:
        slack = slack_channel(settings)

        async def to_slack(notice: Notice) -> None:
            await slack.send(rendering.slack(notice))

        found["slack"] = to_slack
    if "mail" in configured:
        mail = MailChannel(
            MailConfig(
                host=settings.alert_mail_host,
                recipients=settings.alert_mail_to,
                sender=settings.alert_mail_from,
                port=settings.alert_mail_port,
                security=settings.alert_mail_security,
                username=settings.alert_mail_username,
                password=_secret(settings.alert_mail_password),
                ca_file=settings.alert_mail_ca_file,
                timeout_s=settings.alert_send_timeout_s,
            )
        )

        async def to_mail(notice: Notice) -> None:
            await mail.send(rendering.mail(notice))

        found["mail"] = to_mail
    return found


@dataclass(frozen=True, slots=True)
class AlertSetup:
    """Alerts as the settings and the checks configure them, checked once at start:
    what ``build_alerter`` wires to the database and the clock."""

    channels: tuple[ChannelName, ...]
    watched: tuple[Watched, ...]
    senders: dict[str, Sender]
    defaults: AlertPolicy

    def describe(self) -> str:
        return f"alerts on: {', '.join(self.channels)}; checks watched={len(self.watched)}"


ALERTS_OFF = "alerts off: no Slack or mail channel configured"


def alert_setup(settings: Settings, checks: CheckSet) -> AlertSetup | None:
    """Refuse, before any service is reached, alert settings or templates that could
    never send; None when no channel is configured (alerts are then off)."""
    configured = configured_channels(settings)
    defaults = default_policy(settings)  # TURNCHECK_ALERT_CHANNELS naming one not configured
    if not configured:
        return None
    return AlertSetup(
        configured,
        watched_checks(checks, defaults, configured),
        senders(settings, templates(settings)),
        defaults,
    )


def describe(setup: AlertSetup | None) -> str:
    """What alerts will do, from the setup already checked (nothing is checked again)."""
    return ALERTS_OFF if setup is None else setup.describe()


def build_alerter(
    setup: AlertSetup, settings: Settings, database: Database, clock: Clock
) -> Alerter:
    """The alerter over ``setup``: its store on ``database``, its time from ``clock``."""
    return Alerter(
        AlertStore(database),
        setup.watched,
        setup.senders,
        clock=clock,
        zone=ZoneInfo(settings.alert_timezone),
        links=link_maker(settings),
        owner=claimant_id(),
        timing=Timing.of(settings),
        digest_channels=setup.defaults.channels,
        digest_hour=settings.alert_digest_hour,
        turn_url=settings.turn_url_template,
    )


def preview_alerter(
    settings: Settings, checks: CheckSet, database: Database, clock: Clock
) -> Alerter:
    """An alerter that builds notices and sends nothing: for ``alerts preview``."""
    defaults = replace(thresholds(settings), channels=())
    return Alerter(
        AlertStore(database),
        watched_checks(checks, defaults, with_shadow=True),
        {},
        clock=clock,
        zone=ZoneInfo(settings.alert_timezone),
        links=link_maker(settings),
        owner=claimant_id(),
        turn_url=settings.turn_url_template,
    )


def _secret(value: object) -> str | None:
    getter = getattr(value, "get_secret_value", None)
    return getter() if getter is not None else None
