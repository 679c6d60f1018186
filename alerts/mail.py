"""The mail channel: a rendered ``MailMessage`` sent over SMTP with aiosmtplib.

Contract of ``MailChannel.send``:

* one connection per message, to every recipient at once; returns once the server
  accepted the message for at least one of them. Addresses it refused are logged, not
  raised: a retry would send the message twice to the others;
* ``security``: "starttls" upgrades the connection and refuses to go on without TLS,
  "tls" speaks TLS from the first byte (port 465), "none" is plain (a local catcher);
  certificates are verified against ``ca_file`` when given, else the system's store (a
  ``ca_file`` that cannot be read is a ``ConfigurationError`` when the channel is made);
* each step (connecting, every reply) waits at most ``timeout_s``;
* any failure raises ``DeliveryFailed("mail", reason)``; the reason is a few words
  ("smtp 535 authentication failed", "timeout", "connection refused", "tls certificate
  not trusted"), never the password nor the server's own text.

aiosmtplib, ssl and socket errors are translated here and go no further.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Sequence
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid, parseaddr
from pathlib import Path
from typing import Literal

import aiosmtplib

from turncheck.alerts.rendered import CHART_CID, MailMessage
from turncheck.worker.clock import Clock, utc_now
from turncheck.worker.errors import ConfigurationError, DeliveryFailed, error_chain

log = logging.getLogger(__name__)

Security = Literal["starttls", "tls", "none"]
CHANNEL = "mail"
DEFAULT_PORT = 587
DEFAULT_TIMEOUT_S = 15.0


@dataclass(frozen=True, slots=True, kw_only=True)
class MailConfig:
    """Where and how to send; refused with ``ConfigurationError`` naming the setting when
    the server or the recipients are missing, or a user name comes without a password."""

    host: str | None
    recipients: Sequence[str]
    sender: str = "turncheck@localhost"
    port: int = DEFAULT_PORT
    security: Security = "starttls"
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: Path | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S

    def __post_init__(self) -> None:
        # A tuple, so a frozen config cannot change through the caller's list.
        object.__setattr__(self, "recipients", tuple(self.recipients))
        if not self.host:
            raise ConfigurationError(
                "missing setting TURNCHECK_ALERT_MAIL_HOST: mail alerts need an SMTP server"
            )
        if not self.recipients:
            raise ConfigurationError(
                "missing setting TURNCHECK_ALERT_MAIL_TO: mail alerts need at least one address"
            )
        if self.username and not self.password:
            raise ConfigurationError(
                "missing setting TURNCHECK_ALERT_MAIL_PASSWORD: "
                "TURNCHECK_ALERT_MAIL_USERNAME is set without it"
            )


class MailChannel:
    """Sends alerts by mail; see the module docstring for what ``send`` guarantees."""

    def __init__(self, config: MailConfig, clock: Clock = utc_now) -> None:
        self._config = config
        self._clock = clock
        self._tls = _tls_context(config.ca_file) if config.security != "none" else None

    def build(self, message: MailMessage) -> EmailMessage:
        """The MIME message: text and HTML alternatives, the chart inline in the HTML part."""
        config = self._config
        mime = EmailMessage()
        mime["From"] = config.sender
        mime["To"] = ", ".join(config.recipients)
        # One line: a line break in a header would be refused, or read as a new header.
        mime["Subject"] = " ".join(message.subject.split())
        mime["Date"] = format_datetime(self._clock())
        domain = parseaddr(config.sender)[1].rpartition("@")[2] or "localhost"
        mime["Message-ID"] = make_msgid(domain=domain)
        mime.set_content(message.text)
        mime.add_alternative(message.html, subtype="html")
        if message.chart_png is not None:
            *_, html_part = mime.iter_parts()
            html_part.add_related(
                message.chart_png,
                maintype="image",
                subtype="png",
                cid=f"<{CHART_CID}>",
                disposition="inline",
                filename="chart.png",
            )
        return mime

    async def send(self, message: MailMessage) -> None:
        """Deliver ``message`` to every recipient; raise ``DeliveryFailed`` if the server does
        not take it."""
        config = self._config
        try:
            refused, _ = await aiosmtplib.send(
                self.build(message),
                sender=config.sender,
                recipients=list(config.recipients),
                hostname=config.host,
                port=config.port,
                username=config.username or None,
                password=config.password,
                use_tls=config.security == "tls",
                start_tls=config.security == "starttls",
                tls_context=self._tls,
                timeout=config.timeout_s,
            )
        except (aiosmtplib.SMTPException, OSError) as exc:
            raise DeliveryFailed(CHANNEL, failure_reason(exc)) from None
        if refused:
            codes = sorted({response.code for response in refused.values()})
            log.warning(
                "mail: %d of %d recipients refused, smtp %s",
                len(refused),
                len(config.recipients),
                codes,
            )


def _tls_context(ca_file: Path | None) -> ssl.SSLContext:
    """Verification against ``ca_file``, else the system's store; hostnames are checked."""
    try:
        return ssl.create_default_context(cafile=str(ca_file) if ca_file else None)
    except OSError as exc:  # ssl.SSLError too: a file that holds no certificate
        raise ConfigurationError(
            f"invalid setting TURNCHECK_ALERT_MAIL_CA_FILE: cannot read {ca_file}: {_words(exc)}"
        ) from None


# Login replies mean the same at any step; other codes are read with the step that failed.
_LOGIN_REPLIES = {
    530: "authentication required",
    534: "authentication mechanism too weak",
    535: "authentication failed",
}
_REPLIES = {
    421: "service not available",
    450: "mailbox unavailable",
    451: "local error",
    452: "insufficient storage",
    454: "tls not available",
    550: "mailbox unavailable",
    552: "message too large",
    554: "transaction failed",
}
_STEPS: tuple[tuple[type[aiosmtplib.SMTPResponseException], str], ...] = (
    (aiosmtplib.SMTPSenderRefused, "sender refused"),
    (aiosmtplib.SMTPRecipientRefused, "recipient refused"),
    (aiosmtplib.SMTPAuthenticationError, "authentication failed"),
    (aiosmtplib.SMTPDataError, "message refused"),
)


def failure_reason(exc: BaseException) -> str:
    """A few words for a failed send, from the error's type and the SMTP reply code; the
    server's own text is left out, as it may quote an address or a user name."""
    for error in error_chain(exc):
        if isinstance(error, aiosmtplib.SMTPRecipientsRefused) and error.recipients:
            error = error.recipients[0]
        if isinstance(error, aiosmtplib.SMTPResponseException):
            return f"smtp {error.code} {_reply_words(error)}"
        if isinstance(error, ssl.SSLCertVerificationError):
            return "tls certificate not trusted"
        if isinstance(error, ssl.SSLError):
            return "tls handshake failed"
        if isinstance(error, aiosmtplib.SMTPNotSupported):
            return "server does not support smtputf8"
        if type(error) is aiosmtplib.SMTPException:
            # aiosmtplib's own sentences, no server text: only these two can happen here.
            # AUTH first: its sentence suggests trying STARTTLS.
            if "AUTH" in str(error):
                return "server does not offer auth"
            if "STARTTLS" in str(error):
                return "server does not offer starttls"
        if isinstance(error, TimeoutError):
            return "timeout"
        if isinstance(error, ConnectionRefusedError):
            return "connection refused"
        if isinstance(error, aiosmtplib.SMTPServerDisconnected):
            return "server closed the connection"
    return _words(exc)


def _reply_words(error: aiosmtplib.SMTPResponseException) -> str:
    if error.code in _LOGIN_REPLIES:
        return _LOGIN_REPLIES[error.code]
    for step, words in _STEPS:
        if isinstance(error, step):
            return words
    return _REPLIES.get(error.code, "refused")


def _words(exc: BaseException) -> str:
    """The error's errno as text ("no such file or directory"), else its type's name."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return type(exc).__name__
