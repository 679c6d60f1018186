"""Settings from ``TURNCHECK_*`` environment variables; the only module that reads them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import parse_qsl, urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from turncheck.worker.errors import ConfigurationError
from turncheck.worker.runtime.links import template_problem

ENV_PREFIX = "TURNCHECK_"
DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./.turncheck/turncheck.db"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, frozen=True)

    database_url: str = DEFAULT_DATABASE_URL
    kafka_bootstrap: str | None = Field(
        default=None, description="host:port[,host:port]; unset, `run` reads `turns_file`."
    )
    checks: Annotated[list[Path], NoDecode] = Field(
        default=[Path("examples/checks.yaml")],
        description="Check files or folders of them, separated by commas.",
    )
    turns_file: Path = Path("examples/turns.jsonl")
    topic_turns: str = "turns.stored"
    topic_events: str = "response.check_failed"
    topic_dlq: str = "turns.dlq"
    group_id: str = "turncheck"
    instance_id: str | None = Field(
        default=None,
        description="A stable name per replica (a pod name): static group membership, so a "
        "restarted worker gets its partitions back at once, and the outbox events it had "
        "claimed too.",
    )
    session_timeout_ms: int = Field(
        default=10_000,
        ge=6_000,
        description="How long the group waits for a silent worker before moving its partitions.",
    )
    # A century: with turns dated before 2100 every expiry stays a date Python can hold.
    retention_days: int = Field(default=30, ge=1, le=36_525)
    batch_max_records: int = Field(
        default=2000,
        ge=1,
        description="Turns fetched, checked, stored and committed together: a larger batch "
        "spreads the offset commit and the store's round trips over more turns.",
    )
    batch_timeout_ms: int = Field(default=200, ge=1)
    outbox_interval_s: float = Field(default=1.0, gt=0)
    outbox_round_max_events: int = Field(
        default=500, ge=1, description="Events one publisher claims at a time."
    )
    outbox_max_in_flight: int = Field(
        default=100, ge=1, le=10_000, description="Sends awaiting the broker at once."
    )
    outbox_lease_s: float = Field(
        default=120.0,
        gt=0,
        description="How long claimed events are reserved to a publisher; past it, another "
        "replica may send them. More than twice the broker client's send timeout.",
    )
    outbox_retry_first_s: float = Field(default=1.0, gt=0)
    outbox_retry_max_s: float = Field(default=300.0, gt=0)
    outbox_keep_sent_s: float = Field(
        default=86_400.0, ge=0, description="How long sent events stay in the outbox."
    )
    store_retry_first_s: float = Field(
        default=0.5,
        gt=0,
        description="First wait before the store is tried again (an outage, a refused "
        "batch); it doubles up to store_retry_max_s. A batch that failed is redelivered "
        "after the same waits.",
    )
    store_retry_max_s: float = Field(default=30.0, gt=0)
    store_attempts: int = Field(
        default=3,
        ge=1,
        description="Tries of a batch the database refuses (not an outage) before it is "
        "stored turn by turn and the turns still refused are dead-lettered.",
    )
    shutdown_timeout_s: float = Field(default=30.0, gt=0)
    judges: str | None = Field(
        default=None,
        description="Judge models: inline JSON, or a YAML/JSON file; see worker/judge/config.py.",
    )
    judge_queue_max: int = Field(
        default=1000,
        ge=1,
        description="Judgements held in memory; past it a sampled turn is errored.",
    )
    judge_workers: int = Field(default=16, ge=1, le=1024)
    judge_deadline_s: float = Field(
        default=120.0, gt=0, description="How long one judgement may take, retries included."
    )
    judge_attempts: int = Field(
        default=8,
        ge=1,
        le=100,
        description="Requests one judgement may make, the first included; then it is errored.",
    )
    judge_retry_min_s: float = Field(
        default=0.25,
        gt=0,
        description="Shortest wait between two requests of one judgement, whatever the "
        "judge's Retry-After says (a Retry-After of 0 included).",
    )
    judge_retry_first_s: float = Field(
        default=0.5,
        gt=0,
        description="Wait after a judge's first failure that gave no Retry-After; it doubles "
        "up to judge_retry_max_s, with jitter.",
    )
    judge_retry_max_s: float = Field(default=8.0, gt=0)
    log_format: Literal["text", "json"] = Field(
        default="text", description="`json`: every log line is one JSON object."
    )
    log_level: Literal["debug", "info", "warning", "error"] | None = Field(
        default=None, description="Unset: `run` and `serve` log from INFO, other commands WARNING."
    )

    # Alerts. A check's own `alert:` overrides the first four.
    alert_latest: int = Field(default=200, ge=1, le=100_000, description="Results judged.")
    alert_min_pass_rate: float = Field(default=0.95, ge=0, le=1)
    alert_min_results: int = Field(default=50, ge=1, description="Fewer results: no alert yet.")
    alert_channels: Annotated[list[Literal["slack", "mail"]] | None, NoDecode] = Field(
        default=None, description="slack, mail or both; default: every channel configured."
    )
    alert_interval_s: float = Field(default=300.0, ge=1, description="How often rates are read.")
    alert_digest_hour: int | None = Field(
        default=9, ge=0, le=23, description="Hour of the daily digest; empty: no digest."
    )
    alert_timezone: str = Field(default="UTC", description="The zone of alert days and digest.")
    alert_templates: Path | None = Field(
        default=None, description="A folder of templates that replace the shipped ones."
    )
    alert_retry_first_s: float = Field(default=30.0, gt=0)
    alert_retry_max_s: float = Field(default=1800.0, gt=0)
    alert_send_timeout_s: float = Field(default=15.0, gt=0)
    alert_slack_token: SecretStr | None = Field(
        default=None, description="A bot token (xoxb-…) with chat:write."
    )
    alert_slack_channel: str | None = Field(default=None, description="Where the bot posts.")
    alert_slack_webhook_url: SecretStr | None = Field(
        default=None, description="An incoming webhook, instead of a token and channel."
    )
    alert_slack_base_url: str = "https://slack.com/api/"
    alert_slack_proxy: SecretStr | None = Field(
        default=None, description="An HTTP proxy to reach Slack through."
    )
    alert_mail_host: str | None = None
    alert_mail_port: int = Field(default=587, ge=1, le=65_535)
    alert_mail_security: Literal["starttls", "tls", "none"] = "starttls"
    alert_mail_username: str | None = None
    alert_mail_password: SecretStr | None = None
    alert_mail_ca_file: Path | None = Field(
        default=None, description="Certificates to trust for the mail server; default: system."
    )
    alert_mail_from: str = "turncheck@localhost"
    alert_mail_to: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="Administrators' addresses, separated by commas."
    )
    api_url: str | None = Field(
        default=None, description="The HTTP API's public address, for links in alerts."
    )
    turn_url: SecretStr | None = Field(
        default=None,
        description="The chat platform's page of a turn: a URL with {turn_id}, {thread_id} "
        "and {agent_id}, linked from alerts, the CLI and the API (worker/runtime/links.py). "
        "A secret: its query may hold a token.",
    )

    # The HTTP API (`turncheck serve`, or inside `turncheck run` with api_in_run).
    api_host: str = "127.0.0.1"
    api_port: int = Field(default=8080, ge=0, le=65_535)
    api_token: SecretStr | None = Field(
        default=None, description="Bearer token every endpoint but health requires."
    )
    api_in_run: bool = Field(default=False, description="Serve the API inside `turncheck run`.")

    # Retention and erasure.
    purge_interval_s: float = Field(default=3600.0, ge=1, description="How often expired rows go.")
    purge_chunk_rows: int = Field(
        default=1000, ge=1, le=100_000, description="Rows one purge transaction deletes."
    )
    topic_erasure: str = Field(
        default="turncheck.erasure", description="Erasure requests: {person_id, requested_at}."
    )
    erasure_key: SecretStr | None = Field(
        default=None,
        description="Key of the erasure ledger's hash of person ids; required to erase.",
    )

    # Webhooks for response.check_failed.
    webhooks: str | None = Field(
        default=None, description="Webhook endpoints: inline JSON, or a YAML/JSON file."
    )
    webhook_allow_private: bool = Field(
        default=False, description="Allow webhook URLs on private, loopback or link-local hosts."
    )
    webhook_interval_s: float = Field(
        default=1.0, gt=0, description="How often each replica looks for webhook events to send."
    )
    webhook_batch_max_events: int = Field(
        default=100, ge=1, le=10_000, description="Events one endpoint is sent per round."
    )
    webhook_timeout_s: float = Field(default=10.0, gt=0, description="One webhook request.")
    webhook_lease_s: float = Field(
        default=120.0,
        gt=0,
        description="How long one replica holds an endpoint; past it, another may send to it. "
        "More than twice webhook_timeout_s.",
    )
    webhook_retry_first_s: float = Field(default=1.0, gt=0)
    webhook_retry_max_s: float = Field(default=600.0, gt=0)

    @field_validator("checks", "alert_mail_to", "alert_channels", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("database_url")
    @classmethod
    def _asyncpg_options(cls, value: str) -> str:
        # libpq's sslmode, copied from another client's URL, would reach asyncpg's connect()
        # as an unknown argument at the first connection; asyncpg takes the same modes as ssl.
        if value.startswith("postgresql+asyncpg:"):
            options = {name for name, _ in parse_qsl(urlsplit(value).query)}
            if "sslmode" in options:
                raise ValueError(
                    "asyncpg does not take sslmode: write ssl= with the same mode instead "
                    "(ssl=require; disable, allow, prefer, require, verify-ca, verify-full)"
                )
        return value

    @field_validator("alert_timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError("not a time zone name such as Europe/Paris or UTC") from None
        return value

    @field_validator("turn_url", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("turn_url")
    @classmethod
    def _link_template(cls, value: SecretStr | None) -> SecretStr | None:
        problem = None if value is None else template_problem(value.get_secret_value())
        if problem is not None:
            raise ValueError(problem)
        return value

    @field_validator("alert_digest_hour", mode="before")
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("log_level", mode="before")
    @classmethod
    def _level_any_case(cls, value: Any) -> Any:
        return (value.strip().lower() or None) if isinstance(value, str) else value

    @property
    def retention(self) -> timedelta:
        return timedelta(days=self.retention_days)

    @property
    def turn_url_template(self) -> str | None:
        """``TURNCHECK_TURN_URL`` for ``runtime.links.turn_link``; None when unset."""
        return None if self.turn_url is None else self.turn_url.get_secret_value()

    @property
    def embedded(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def replica(self) -> str | None:
        """This worker replica's stable name, unique in its consumer group: the group and
        the instance id. None without an instance id: the replica is new at each start."""
        return f"{self.group_id}/{self.instance_id}" if self.instance_id else None


PROBE_TIMEOUT_S = 5.0
"""How long a command waits for the database or the broker to answer at its start."""

DEFAULTS = Settings.model_construct()
"""Every setting at its default, without reading the environment: the one place a
policy's defaults come from (``OutboxPolicy``, ``StoreRetry``, ``AlertPolicy``, ...)."""


def process_environment() -> Mapping[str, str]:
    """The process's environment, for files that name where a secret is rather than hold
    it (a judge's ``api_key_env``, a webhook's ``secret_env``): read when used."""
    return os.environ


def secret_variable(name: str) -> SecretStr | None:
    """The environment variable ``name`` as a secret, for files that name where a secret is
    (``secret_env`` in TURNCHECK_WEBHOOKS) rather than holding it; None when unset or empty."""
    value = process_environment().get(name, "").strip()
    return SecretStr(value) if value else None


def load_settings() -> Settings:
    """Settings from the environment. A bad value raises ``ConfigurationError`` naming its
    variable and what is wrong, never the value (it may be a URL with a password)."""
    try:
        return Settings()
    except ValidationError as exc:
        problems = [
            f"{ENV_PREFIX}{str(error['loc'][0]).upper()}: "
            + error["msg"].removeprefix("Value error, ")
            for error in exc.errors(include_input=False, include_url=False)
        ]
        raise ConfigurationError("invalid setting " + "; ".join(problems)) from None
