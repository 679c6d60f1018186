"""The database tables. Migrations under ``migrations/`` create them; keep both in step."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Date,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
    text,
)


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC in and out, on PostgreSQL and on SQLite (which keeps no zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the store")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        moment: datetime = value
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


Id = BigInteger().with_variant(Integer(), "sqlite")

metadata = MetaData()

# Results are stored in two shapes (see ``worker/store/passed.py``). Each time a turn's
# results are written, one ``passed_results`` row: the turn's ids and times, and the
# checks it passed with nothing more to say, by name, version and position. Every other
# result (failed, errored, or passed with a reason, score, spans or judge's answers) is a
# full ``check_results`` row pointing at that write. Readers order results by
# (turn_created_at, write_id, position), newest first, in both shapes: the newest turns'
# results, ties on the later write (``worker/store/latest.py``).
passed_results = Table(
    "passed_results",
    metadata,
    # The write's id: ``check_results.write_id`` of the results written with it.
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("turn_id", String(200), nullable=False),
    # 0 for a turn's first write; a redelivery with new check versions, or a judged
    # result, adds the next. (turn_id, 0) is the claim that makes a turn's first write once.
    Column("part", Integer, nullable=False),
    Column("thread_id", String(200), nullable=True),
    Column("person_id", String(200), nullable=True),
    Column("agent_id", String(200), nullable=False),
    Column("agent_version", String(64), nullable=False),
    Column("turn_created_at", UTCDateTime, nullable=False),
    Column("checked_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    # JSON text, [[name, version, kind, stage, mode, position], ...]: text so that one LIKE
    # finds the rows holding a check on SQLite and PostgreSQL alike.
    Column("checks", Text, nullable=False),
    # How many results ``checks`` holds: what erasure and the purge report as deleted.
    Column("passed", Integer, nullable=False),
    UniqueConstraint("turn_id", "part", name="uq_passed_results_turn_part"),
    Index("ix_passed_results_person_id", "person_id"),
    Index("ix_passed_results_expires_at", "expires_at"),
    # Alerts and the API read an agent's writes of the newest turns first, in this order.
    Index("ix_passed_results_latest", "agent_id", "turn_created_at", "id"),
)

check_results = Table(
    "check_results",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("write_id", Id, nullable=False),
    Column("position", Integer, nullable=False),
    Column("turn_id", String(200), nullable=False),
    Column("check_name", String(64), nullable=False),
    Column("check_version", String(64), nullable=False),
    Column("check_kind", String(32), nullable=False),
    Column("stage", String(8), nullable=False),
    Column("mode", String(16), nullable=False),
    Column("verdict", String(8), nullable=False),
    Column("score", Float, nullable=True),
    Column("reason", Text, nullable=True),
    Column("spans", JSON, nullable=False),
    Column("usage", JSON, nullable=True),
    Column("answers", JSON, nullable=True),
    Column("thread_id", String(200), nullable=True),
    Column("person_id", String(200), nullable=True),
    Column("agent_id", String(200), nullable=False),
    Column("agent_version", String(64), nullable=False),
    Column("turn_created_at", UTCDateTime, nullable=False),
    Column("checked_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    UniqueConstraint("turn_id", "check_name", "check_version", name="uq_check_results_turn_check"),
    Index("ix_check_results_person_id", "person_id"),
    Index("ix_check_results_expires_at", "expires_at"),
    # Alerts, the API and ``failures`` read a check's results of the newest turns first,
    # in this order.
    Index(
        "ix_check_results_latest",
        "check_name",
        "agent_id",
        "turn_created_at",
        "write_id",
        "position",
    ),
)

# Counts per check, agent, agent version, check version and hour of the turns' time.
# Counts kept before migration 0009 have the check version "unknown".
pass_rate_rollups = Table(
    "pass_rate_rollups",
    metadata,
    Column("check_name", String(64), primary_key=True),
    Column("agent_id", String(200), primary_key=True),
    Column("agent_version", String(64), primary_key=True),
    Column("check_version", String(64), primary_key=True),
    Column("bucket_start", UTCDateTime, primary_key=True),
    Column("passed", Integer, nullable=False),
    Column("failed", Integer, nullable=False),
    Column("errored", Integer, nullable=False),
    Column("judge_input_tokens", BigInteger, nullable=False, server_default="0"),
    Column("judge_output_tokens", BigInteger, nullable=False, server_default="0"),
)

judge_pending = Table(
    "judge_pending",
    metadata,
    Column("turn_id", String(200), primary_key=True),
    Column("check_name", String(64), primary_key=True),
    Column("check_version", String(64), primary_key=True),
    Column("check_kind", String(32), nullable=False),
    Column("stage", String(8), nullable=False),
    Column("mode", String(16), nullable=False),
    Column("thread_id", String(200), nullable=True),
    Column("person_id", String(200), nullable=True),
    Column("agent_id", String(200), nullable=False),
    Column("agent_version", String(64), nullable=False),
    Column("turn_created_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    Column("enqueued_at", UTCDateTime, nullable=False),
    Column("deadline_at", UTCDateTime, nullable=False),
    Index("ix_judge_pending_deadline_at", "deadline_at"),
)

outbox = Table(
    "outbox",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("event_id", String(40), nullable=False, unique=True),
    Column("topic", String(200), nullable=False),
    Column("key", String(200), nullable=False),
    Column("payload", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("sent_at", UTCDateTime, nullable=True),
    Column("attempts", Integer, nullable=False, server_default="0"),
    # A lease: the publisher ``claimed_by`` sends the row until ``claimed_until``;
    # past it, the publisher is presumed dead and another may claim the row.
    Column("claimed_by", String(100), nullable=True),
    Column("claimed_until", UTCDateTime, nullable=True),
    # Set after a failed send (backoff); null means "as soon as possible".
    Column("next_attempt_at", UTCDateTime, nullable=True),
    Column("last_error", String(100), nullable=True),
    # The writing transaction's id on PostgreSQL (0 on SQLite, whose one writer commits in
    # id order): webhooks read rows in (xid, id) order, below every transaction still open,
    # so a row committed late never lands behind an endpoint's cursor. Migration 0006 sets
    # the PostgreSQL default, pg_current_xact_id().
    Column("xid", BigInteger, nullable=False, server_default=text("0")),
    Index("ix_outbox_sent_at", "sent_at"),
    Index("ix_outbox_xid_id", "xid", "id"),
    # Claims walk the unsent rows oldest first; sent rows (kept a day) stay out of it.
    Index(
        "ix_outbox_unsent",
        "id",
        postgresql_where=text("sent_at IS NULL"),
        sqlite_where=text("sent_at IS NULL"),
    ),
)

# One row per alert a day: the unique key is what lets several replicas raise it once.
# A digest has kind "digest" and empty check and agent.
alerts = Table(
    "alerts",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("kind", String(8), nullable=False),
    Column("check_name", String(64), nullable=False),
    Column("agent_id", String(200), nullable=False),
    Column("day", Date, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    # The message as it was when the threshold was crossed, so a retry sends the same.
    Column("snapshot", Text, nullable=False),
    # Evaluations that found the threshold crossed again after this alert was raised.
    Column("suppressed", Integer, nullable=False, server_default="0"),
    # The last evaluation slot counted in ``suppressed``: replicas count each slot once.
    Column("suppressed_slot", BigInteger, nullable=True),
    UniqueConstraint("kind", "check_name", "agent_id", "day", name="uq_alerts_check_day"),
)

alert_deliveries = Table(
    "alert_deliveries",
    metadata,
    Column("alert_id", Id, ForeignKey("alerts.id", ondelete="CASCADE"), primary_key=True),
    Column("channel", String(8), primary_key=True),
    # pending, sent, or failed (the day ended before a send succeeded).
    Column("status", String(8), nullable=False),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("next_attempt_at", UTCDateTime, nullable=True),
    Column("give_up_at", UTCDateTime, nullable=False),
    Column("claimed_by", String(100), nullable=True),
    Column("claimed_until", UTCDateTime, nullable=True),
    Column("last_error", String(100), nullable=True),
    Column("sent_at", UTCDateTime, nullable=True),
    Index("ix_alert_deliveries_status", "status"),
)

# Who was erased, as a keyed hash of the person id (never the id): the consumer drops
# their turns, so a replay or a late redelivery never brings their results back.
erasures = Table(
    "erasures",
    metadata,
    Column("person_key", String(64), primary_key=True),
    Column("requested_at", UTCDateTime, nullable=False),
    Column("erased_at", UTCDateTime, nullable=False),
)

# One row per webhook endpoint (its name from TURNCHECK_WEBHOOKS): how far it has been
# sent, who is sending to it (a lease), and its backoff or why it is disabled.
webhook_endpoints = Table(
    "webhook_endpoints",
    metadata,
    Column("name", String(64), primary_key=True),
    # Of the URL and `enabled`, never the secret: a new digest enables the endpoint again.
    Column("config_digest", String(16), nullable=False),
    # The last outbox row delivered, as (outbox.xid, outbox.id).
    Column("cursor_xid", BigInteger, nullable=False),
    Column("cursor_id", BigInteger, nullable=False),
    Column("claimed_by", String(100), nullable=True),
    Column("claimed_until", UTCDateTime, nullable=True),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("next_attempt_at", UTCDateTime, nullable=True),
    Column("last_status", Integer, nullable=True),
    Column("last_error", String(100), nullable=True),
    Column("last_delivered_at", UTCDateTime, nullable=True),
    Column("disabled_at", UTCDateTime, nullable=True),
    Column("disabled_reason", String(100), nullable=True),
    Column("updated_at", UTCDateTime, nullable=False),
)

# Backtests started over the API (``worker/store/backtests.py``): written by the process
# running one, read by every replica. ``claimed_until`` is that process's lease; a row
# queued or running past it is marked failed ("interrupted").
backtests = Table(
    "backtests",
    metadata,
    Column("id", String(40), primary_key=True),
    # queued, running, done or failed.
    Column("status", String(8), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("started_at", UTCDateTime, nullable=True),
    Column("finished_at", UTCDateTime, nullable=True),
    Column("claimed_by", String(100), nullable=False),
    Column("claimed_until", UTCDateTime, nullable=True),
    # The options asked, with the draft's digest and its checks' names, never its text.
    Column("options", JSON, nullable=False),
    Column("estimate", JSON, nullable=True),
    Column("progress", JSON, nullable=True),
    Column("report", JSON, nullable=True),
    Column("error", String(200), nullable=True),
    Index("ix_backtests_created_at", "created_at"),
    Index("ix_backtests_status", "status"),
)

# A person's verdict on a stored failed result: one per turn and check (a new one replaces
# it), on the check version of the newest result it was set on. It expires and is erased
# with that result: ``expires_at`` and ``person_id`` are the result's own.
labels = Table(
    "labels",
    metadata,
    Column("turn_id", String(200), primary_key=True),
    Column("check_name", String(64), primary_key=True),
    Column("check_version", String(64), nullable=False),
    Column("agent_id", String(200), nullable=False),
    # false_alarm or confirmed.
    Column("label", String(16), nullable=False),
    # Written by a person: never logged, never in an event or a metric.
    Column("note", Text, nullable=True),
    Column("person_id", String(200), nullable=True),
    Column("labelled_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    Index("ix_labels_check_name", "check_name"),
    Index("ix_labels_person_id", "person_id"),
    Index("ix_labels_expires_at", "expires_at"),
)

# How far each check is rolled out, as the worker's check set last said when it started
# (``worker/store/rollouts.py``): what the API and the commands mark results, rates and
# failures with, so ``turncheck serve`` with no check files knows it too. A check with
# no row is live.
check_rollouts = Table(
    "check_rollouts",
    metadata,
    Column("agent_id", String(200), primary_key=True),
    Column("check_name", String(64), primary_key=True),
    # live or shadow
    Column("rollout", String(8), nullable=False),
    # When it was last set to this rollout: a worker starting with the same one keeps it.
    Column("updated_at", UTCDateTime, nullable=False),
)
