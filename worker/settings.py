"""Settings from ``TURNCHECK_*`` environment variables; the only module that reads them."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from turncheck.worker.errors import ConfigurationError

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
        "restarted worker gets its partitions back at once.",
    )
    session_timeout_ms: int = Field(
        default=10_000,
        ge=6_000,
        description="How long the group waits for a silent worker before moving its partitions.",
    )
    retention_days: int = Field(default=30, ge=1)
    batch_max_records: int = Field(default=500, ge=1)
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
    log_format: Literal["text", "json"] = Field(
        default="text", description="`json`: every log line is one JSON object."
    )

    @field_validator("checks", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @property
    def retention(self) -> timedelta:
        return timedelta(days=self.retention_days)

    @property
    def embedded(self) -> bool:
        return self.database_url.startswith("sqlite")


def load_settings() -> Settings:
    """Settings from the environment. A bad value raises ``ConfigurationError`` naming its
    variable and what is wrong, never the value (it may be a URL with a password)."""
    try:
        return Settings()
    except ValidationError as exc:
        problems = [
            f"{ENV_PREFIX}{str(error['loc'][0]).upper()}: {error['msg']}"
            for error in exc.errors(include_input=False, include_url=False)
        ]
        raise ConfigurationError("invalid setting " + "; ".join(problems)) from None
