"""A real SMTP server for the tests of the Mail notifier (remind/mail_test.go).

It is Debian's python3-aiosmtpd, scripted: its behaviour is read from the
file DIR/mode before each command, so a test can turn it from refusing to
accepting between passes:

  accept     take every mail (250)
  refuse     answer 550 to RCPT TO (a permanent refusal)
  busy       answer 451 to RCPT TO (try again later)
  slow       never answer MAIL FROM (the client's command timeout ends it)
  drop       read the whole message, then drop the connection before the
             answer to it (the mail may have arrived: it is kept, marked
             unanswered)

Every message the server read to its end is written to DIR/NNN.json:
{"mail_from", "rcpt_tos", "data", "tls", "user", "answered"}.

usage: smtpd.py DIR [--starttls CERT KEY] [--tls CERT KEY] [--auth USER PASS]

It listens on a free loopback port and prints "PORT n" once it does.
"""

import asyncio
import json
import os
import socket
import ssl
import sys

from aiosmtpd.smtp import SMTP, AuthResult


def main():
    args = sys.argv[1:]
    out = args.pop(0)
    starttls = implicit = None
    auth = None
    while args:
        flag = args.pop(0)
        if flag in ("--starttls", "--tls"):
            ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            ctx.load_cert_chain(args.pop(0), args.pop(0))
            if flag == "--starttls":
                starttls = ctx
            else:
                implicit = ctx
        elif flag == "--auth":
            auth = (args.pop(0).encode(), args.pop(0).encode())
        else:
            sys.exit("unknown flag " + flag)

    count = [0]

    def mode():
        try:
            with open(os.path.join(out, "mode")) as f:
                return f.read().strip() or "accept"
        except FileNotFoundError:
            return "accept"

    def record(server, session, envelope, answered):
        count[0] += 1
        user = None
        if session.authenticated:
            data = session.auth_data
            user = data.login.decode() if hasattr(data, "login") else str(data)
        tls = implicit is not None or server._tls_protocol is not None
        path = os.path.join(out, "%03d.json" % count[0])
        with open(path + ".tmp", "w") as f:
            json.dump({"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos,
                       "data": envelope.original_content.decode("utf-8", "replace"),
                       "tls": tls, "user": user, "answered": answered}, f)
        os.rename(path + ".tmp", path)

    class Handler:
        async def handle_MAIL(self, server, session, envelope, address, mail_options):
            if mode() == "slow":
                await asyncio.sleep(3600)
            envelope.mail_from = address
            envelope.mail_options.extend(mail_options)
            return "250 OK"

        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            m = mode()
            if m == "refuse":
                return "550 5.1.1 No such mailbox here"
            if m == "busy":
                return "451 4.3.2 Busy, try again later"
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):
            if mode() == "drop":
                record(server, session, envelope, False)
                server.transport.abort()
                return "250 OK"
            record(server, session, envelope, True)
            return "250 OK: queued"

    def authenticator(server, session, envelope, mechanism, data):
        ok = auth is not None and (data.login, data.password) == auth
        return AuthResult(success=ok, auth_data=data.login.decode() if ok else None)

    def factory():
        kw = {}
        if starttls is not None:
            kw["tls_context"] = starttls
        if auth is not None:
            kw["authenticator"] = authenticator
            # Over TLS from the first byte, aiosmtpd does not see TLS.
            kw["auth_require_tls"] = implicit is None
        return SMTP(Handler(), hostname="test.invalid", **kw)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    srv = loop.run_until_complete(loop.create_server(factory, sock=sock, ssl=implicit))
    print("PORT %d" % sock.getsockname()[1], flush=True)
    try:
        loop.run_forever()
    finally:
        srv.close()


if __name__ == "__main__":
    main()
