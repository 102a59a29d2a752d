"""A real SMTP server for the tests (aiosmtpd), on a free port of this machine: what the site's
mailer sends arrives here as a parsed message, the way a mail server would take it."""

from __future__ import annotations

import email
import email.policy
import socket
from email.message import EmailMessage

from aiosmtpd.controller import Controller


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SmtpServer:
    """``with SmtpServer() as server``: listening on ``server.host``, ``server.port``; each
    message taken is in ``server.messages`` once the sender's DATA command is answered (the
    site's send returns after that)."""

    host = "127.0.0.1"

    def __init__(self) -> None:
        self.port = free_port()
        self.messages: list[EmailMessage] = []
        self.envelopes: list[tuple[str, list[str]]] = []  # (MAIL FROM, RCPT TO) of each
        self._controller = Controller(self, hostname=self.host, port=self.port)

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: N802 (aiosmtpd's name)
        self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        self.messages.append(
            email.message_from_bytes(envelope.content, policy=email.policy.default)
        )
        return "250 Message accepted for delivery"

    def mailer(self) -> dict:
        """The MAILERS setting that sends here."""
        options = {"host": self.host, "port": self.port, "timeout": 10}
        return {
            "default": {
                "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
                "OPTIONS": options,
            }
        }

    def __enter__(self) -> SmtpServer:
        self._controller.start()
        return self

    def __exit__(self, *exc) -> None:
        self._controller.stop()
