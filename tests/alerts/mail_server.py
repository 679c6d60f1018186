"""Real SMTP servers on 127.0.0.1 for the mail channel's tests: an aiosmtpd catcher that
keeps what it receives (plain, or STARTTLS with AUTH on a certificate made at test time),
and a server that accepts connections and never says a word."""

from __future__ import annotations

import asyncio
import datetime
import email
import email.policy
import ipaddress
import socket
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

HOST = "127.0.0.1"
USER = "alerts"
PASSWORD = "s3cret-Pa55word"


@dataclass
class Catcher:
    """What a running catcher received, in order; ``cert`` is its certificate, if any."""

    port: int
    envelopes: list[Envelope] = field(default_factory=list)
    cert: Path | None = None
    refuse: set[str] = field(default_factory=set)
    """Recipients refused with 550 at RCPT."""

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        if address in self.refuse:
            return "550 5.1.1 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        self.envelopes.append(envelope)
        return "250 Message accepted for delivery"

    def messages(self) -> list[EmailMessage]:
        """Each received message parsed as a mail client would."""
        parsed = []
        for envelope in self.envelopes:
            assert isinstance(envelope.content, bytes)
            message = email.message_from_bytes(envelope.content, policy=email.policy.default)
            assert isinstance(message, EmailMessage)
            parsed.append(message)
        return parsed


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
    return port


@asynccontextmanager
async def running_catcher(cert: Path | None = None, **options: Any) -> AsyncIterator[Catcher]:
    """An aiosmtpd server in its own thread for the block's length; ``options`` go to
    aiosmtpd's ``Controller`` and ``SMTP`` (``ssl_context``, ``tls_context``, ...)."""
    catcher = Catcher(port=free_port(), cert=cert)
    controller = Controller(catcher, hostname=HOST, port=catcher.port, **options)
    await asyncio.to_thread(controller.start)
    try:
        yield catcher
    finally:
        # Stopped from a thread so this loop keeps running meanwhile: the client's end of
        # a TLS connection closes only once the server's close_notify is read, and a loop
        # blocked here would end the test with that socket still open (a ResourceWarning).
        await asyncio.to_thread(controller.stop)
        await asyncio.sleep(0)  # one more turn, to run the client transport's close


def self_signed_cert(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost and its key, written to ``directory``."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address(HOST))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "smtp-cert.pem", directory / "smtp-key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


def server_tls_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


def accept_only(user: str, password: str) -> Any:
    """An aiosmtpd authenticator that accepts one user name with one password."""

    def authenticate(
        server: SMTP, session: Session, envelope: Envelope, mechanism: str, auth_data: Any
    ) -> AuthResult:
        valid = isinstance(auth_data, LoginPassword) and auth_data == (
            user.encode(),
            password.encode(),
        )
        # handled=False: aiosmtpd itself answers, 235 or 535.
        return AuthResult(success=valid, handled=False)

    return authenticate


@pytest.fixture
async def mail_catcher() -> AsyncIterator[Catcher]:
    """A plain SMTP catcher, like Mailpit."""
    async with running_catcher() as catcher:
        yield catcher


@pytest.fixture
async def mail_implicit_tls_catcher(tmp_path: Path) -> AsyncIterator[Catcher]:
    """A catcher that speaks TLS from the first byte, like port 465."""
    cert, key = self_signed_cert(tmp_path)
    async with running_catcher(cert=cert, ssl_context=server_tls_context(cert, key)) as catcher:
        yield catcher


@pytest.fixture
async def mail_tls_catcher(tmp_path: Path) -> AsyncIterator[Catcher]:
    """A catcher that requires STARTTLS, then AUTH as ``USER`` with ``PASSWORD``."""
    cert, key = self_signed_cert(tmp_path)
    async with running_catcher(
        cert=cert,
        tls_context=server_tls_context(cert, key),
        require_starttls=True,
        auth_require_tls=True,
        auth_required=True,
        authenticator=accept_only(USER, PASSWORD),
    ) as catcher:
        yield catcher


@pytest.fixture
async def mail_silent_port() -> AsyncIterator[int]:
    """A port where a server accepts connections and never answers."""
    held: list[asyncio.StreamWriter] = []

    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)
        await reader.read()  # until the client gives up and closes

    server = await asyncio.start_server(hold, HOST, 0)
    yield server.sockets[0].getsockname()[1]
    server.close()
    for writer in held:
        writer.close()
    await server.wait_closed()
