"""turncheck's errors, one root, one module.

    TurncheckError
    ├── ConfigurationError      a setting, an argument or a file is wrong: refused at start, exit 2
    │   ├── CheckDefinitionError    a check file is wrong (file, line, check, field)
    │   ├── JudgeConfigError        TURNCHECK_JUDGES is wrong
    │   ├── WebhookConfigError      TURNCHECK_WEBHOOKS is wrong (names the endpoint and field)
    │   ├── PromptError             a judged check's template cannot be built
    │   ├── ScriptSourceError       a script check's program cannot be read or compiled
    │   └── ErasureKeyMissing       persons were erased, but TURNCHECK_ERASURE_KEY is not set:
    │                               no turn is stored (at start: exit 2; a batch: redelivered)
    ├── InvalidTurn             a message is not a valid turn: it goes to the dead-letter topic
    │   └── InvalidErasureRequest   nor a valid erasure request: dead-lettered too
    ├── LabelRefused            a label cannot be set: exit 1, and a 404 or 409 from the API
    │   ├── NoStoredResult          the turn has no stored result of that check
    │   └── NotLabellable           the newest result of that check on the turn did not fail
    ├── ServiceUnavailable      the database or the broker does not answer at start; exit 3
    ├── StoreUnavailable        the database is out of reach: consuming pauses, nothing committed
    │   ├── TurnContended           other writers of a turn kept taking the part a write was to
    │   │                           store as: rolled back, waited out and tried again the same way
    │   └── WriteConflict           PostgreSQL ended the transaction to break a deadlock or a
    │                               serialization failure: rolled back and tried again the same way
    ├── JudgeError              the judge gave no usable answer: the result is errored
    │   ├── JudgeUnavailable        timeouts, connection errors, 5xx, 429 past the deadline
    │   │                           or the attempts
    │   └── JudgeRejected           asking again would be refused again: 4xx other than 408
    │                               and 429, a quota or spend limit only a person lifts
    └── DeliveryFailed          Slack or the mail server did not take an alert: it stays
                                pending and is tried again, with backoff, until its day ends

Foreign errors (SQLAlchemy, aiokafka, httpx, pydantic, slack-sdk, aiosmtplib) are translated where
they enter. Every message here is safe to log or store: it names fields,
hosts and causes, never a password or text of a turn, a prompt or a reply.
The command line's exit codes are in ``worker/cli/exits.py``.
"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Iterator


class TurncheckError(Exception):
    pass


class ConfigurationError(TurncheckError):
    """The message names the setting (``TURNCHECK_*``), the argument or the file at fault."""


class CheckDefinitionError(ConfigurationError):
    def __init__(
        self, file: str, line: int | None, check: str | None, field: str | None, message: str
    ) -> None:
        self.file, self.line, self.check, self.field, self.message = (
            file,
            line,
            check,
            field,
            message,
        )
        where = f"{file}:{line}" if line is not None else file
        parts = [where]
        if check is not None:
            parts.append(f"check {check!r}")
        if field is not None:
            parts.append(f"field {field!r}")
        super().__init__(": ".join([*parts, message]))


class JudgeConfigError(ConfigurationError):
    pass


class WebhookConfigError(ConfigurationError):
    pass


class PromptError(ConfigurationError):
    """A check's prompt cannot be built; the message names the template and line."""

    def __init__(self, message: str, field: str = "template") -> None:
        self.message, self.field = message, field
        super().__init__(message)


class ScriptSourceError(ConfigurationError):
    """A script check's program cannot be read or does not compile. ``line`` counts in
    the program (1 is its first line), None when the fault is no line's; ``file`` is the
    .js file it came from, None when it is written in the check file."""

    def __init__(self, message: str, line: int | None = None, file: str | None = None) -> None:
        self.message, self.line, self.file = message, line, file
        super().__init__(message)


class ErasureKeyMissing(ConfigurationError):
    """Without the key of the erasure ledger's hash a process cannot tell an erased
    person's turns from the others; once the ledger holds anyone, it must store none."""

    def __init__(self, erased: int) -> None:
        self.erased = erased
        persons = "1 person has" if erased == 1 else f"{erased} persons have"
        super().__init__(
            f"TURNCHECK_ERASURE_KEY is not set, but {persons} been erased: "
            "set the key the erasures were made with"
        )


class InvalidTurn(TurncheckError):
    """The reason is safe to put in a header: it names fields, never their values."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class InvalidErasureRequest(InvalidTurn):
    """A message on the erasure topic that is not ``{person_id, requested_at}``."""


class LabelRefused(TurncheckError):
    """The message names the turn and the check, never a note: ids and names only."""


class NoStoredResult(LabelRefused):
    def __init__(self, turn_id: str, check: str) -> None:
        self.turn_id, self.check = turn_id, check
        super().__init__(f"turn {turn_id!r} has no stored result of check {check!r}")


class NotLabellable(LabelRefused):
    """Only a failure can be a false alarm or confirmed: a passed result raised no alarm,
    and an errored one made no decision to be right or wrong about."""

    def __init__(self, turn_id: str, check: str, verdict: str) -> None:
        self.turn_id, self.check, self.verdict = turn_id, check, verdict
        super().__init__(
            f"the newest result of check {check!r} on turn {turn_id!r} is {verdict}: "
            "only a failed result can be labelled"
        )


class ServiceUnavailable(TurncheckError):
    """``location`` is host:port or a file, never a URL with its password; ``cause`` is a few
    words built from the foreign error's type, e.g. "connection refused"."""

    def __init__(self, service: str, location: str, cause: str) -> None:
        self.service, self.location, self.cause = service, location, cause
        super().__init__(f"{service} at {location} is unavailable: {cause}")


class StoreUnavailable(TurncheckError):
    pass


class TurnContended(StoreUnavailable):
    """A write of a turn's next part found the part taken, read again, and found it taken
    every time (``worker/store/turn_writes.py``). Nothing of the write is kept, so waiting
    and writing it again, as for an outage, loses nothing and counts nothing twice."""


class WriteConflict(StoreUnavailable):
    """PostgreSQL rolled the transaction back to break a deadlock (SQLSTATE 40P01) or a
    serialization failure (40001). Nothing of it was kept, so doing it again is safe; the
    transaction that won went on."""


class JudgeError(TurncheckError):
    """``reason`` is stored as the errored result's reason."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class JudgeUnavailable(JudgeError):
    pass


class JudgeRejected(JudgeError):
    pass


class DeliveryFailed(TurncheckError):
    """``reason`` is a few words stored on the alert's delivery row: an error code from
    Slack ("channel_not_found"), an SMTP reply code, or the failure's type; never a token,
    a password or a webhook URL (it is a secret too)."""

    def __init__(self, channel: str, reason: str) -> None:
        self.channel, self.reason = channel, reason
        super().__init__(f"{channel}: {reason}")


def error_chain(exc: BaseException) -> Iterator[BaseException]:
    """The error, then what it wraps, for translating a foreign error where it enters:
    SQLAlchemy's ``orig``, then causes and contexts (aiosmtplib wraps an ``OSError``)."""
    seen: set[int] = set()
    error: BaseException | None = exc
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        orig = getattr(error, "orig", None)
        wrapped = orig if isinstance(orig, BaseException) and id(orig) not in seen else None
        error = wrapped or error.__cause__ or error.__context__


def os_cause(error: BaseException) -> str | None:
    """The cause of a network or file error in a few words, from its type and errno
    (never its message, which may quote a host or a path); None for any other error."""
    if isinstance(error, socket.gaierror):
        return "unknown host"
    if isinstance(error, TimeoutError):
        return "no answer in time"
    if isinstance(error, OSError):
        number = error.errno or _first_errno(str(error))
        return os.strerror(number).lower() if number else type_words(type(error).__name__)
    return None


def _first_errno(message: str) -> int | None:
    """asyncio joins the failures of every address of a host into one OSError without errno:
    "Multiple exceptions: [Errno 111] Connect call failed ..."."""
    found = re.search(r"\[Errno (\d+)\]", message)
    return int(found[1]) if found else None


def type_words(name: str) -> str:
    """``InsufficientPrivilegeError`` → "insufficient privilege"."""
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", name.removesuffix("Error")).lower()
    return words if " " in words else f"{words} error"
