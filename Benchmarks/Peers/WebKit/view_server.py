#!/usr/bin/env python3
"""view_server.py: the logging proxy and page server of webkit-view-run.

Part of BlockBench (Benchmarks/Peers/WebKit). Python 3 standard library only, plus
the `openssl` command-line tool for a throwaway TLS certificate.

Usage:
    python3 view_server.py DIR NAME PORTFILE

Reads DIR/pages.jsonl (one {"url": ..., "html": ...} object a line), listens
on 127.0.0.1 on two ephemeral ports and writes "<proxyPort> <controlPort>\\n"
to PORTFILE (atomically, by rename) once both accept connections.

Proxy port: an HTTP/1.1 proxy that never contacts any other host.
  * Absolute-form requests ("GET http://host/path HTTP/1.1") are answered
    directly.
  * "CONNECT host:port" is answered "200 Connection Established"; the client
    socket is then wrapped in TLS (server side, one self-signed certificate
    for every host, made once per pass as DIR/NAME-tls-{cert,key}.pem) and
    the requests inside the tunnel are answered as https://host[:port]/path
    (wss://host[:port]/path for a WebSocket handshake).
  * Keep-alive everywhere: every response carries Content-Length.
  * Every request (plain or inside a tunnel, any method, WebSocket handshakes
    included; a plain ws:// one arrives, and is logged, with its ws:// URL)
    is logged as one line of DIR/NAME-requests.jsonl, flushed:
      {"page": N, "t": MS, "method": "GET",
       "url": "scheme://host[:port]/path?query",
       "cookie": "..."|null, "accept": "..."|null, "dest": "..."|null}
    where N is the current page index (-1 before the first "page" command)
    and MS the arrival time in milliseconds since the server started.
    CONNECT requests themselves are not logged there (the requests inside the
    tunnel are); they and any connection errors go to stderr.

Responses: a request for the current page's URL (fragment stripped; scheme
and host compared case-insensitively, default port dropped, empty path read
as "/") gets that page's html; so does a top-level document request for the
https form of an http page URL (a page upgraded by make-https).  Anything
else is answered by Sec-Fetch-Dest, or by Accept when that header is absent
(WebKit sends Sec-Fetch-* only on https requests): image -> 1x1 GIF, style
-> empty CSS, script/worker -> empty JavaScript, document/iframe/frame ->
a tiny HTML page, font -> 404, anything else -> empty text/plain.
WebSocket handshakes -> 404.
OPTIONS -> 204 with permissive CORS headers; POST/PUT bodies are read and
discarded; HEAD gets headers only.  Every response has Cache-Control:
no-store and Access-Control-Allow-Origin: the request's Origin with
Access-Control-Allow-Credentials: true when an Origin header is present (so
credentialed fetch/XHR complete), "*" otherwise.

Control port: line based, one connection may send many commands.
    page N   -> sets the current page index, answers "ok"
    quit     -> answers "ok", flushes and closes the log, shuts down
Unknown commands are answered "error <text>".  SIGTERM and SIGINT shut down
like "quit".
"""

import json
import os
import signal
import socket
import socketserver
import ssl
import subprocess
import sys
import threading
import time
import urllib.parse

GIF_1X1 = (b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04"
           b"\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")
SUB_HTML = b"<!doctype html><title>sub</title>"
MAX_LINE = 65536
MAX_HEADERS = 200
IDLE_TIMEOUT = 120  # seconds a kept-alive connection may stay silent

STATUS_TEXT = {200: "OK", 204: "No Content", 400: "Bad Request", 404: "Not Found"}


def diag(msg):
    sys.stderr.write("view_server: %s\n" % msg)
    sys.stderr.flush()


def text(b):
    """Header and request-line bytes as text that is always valid JSON."""
    return b.decode("utf-8", "replace")


def canonical_url(url):
    """URL key for comparing a request with a page URL."""
    url = url.split("#", 1)[0]
    try:
        parts = urllib.parse.urlsplit(url)
        scheme = parts.scheme.lower()
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        return url
    if ":" in host:
        host = "[%s]" % host
    if port is not None and not (scheme == "http" and port == 80) and not (scheme == "https" and port == 443):
        host = "%s:%d" % (host, port)
    path = parts.path or "/"
    query = "?" + parts.query if parts.query or url.endswith("?") else ""
    return "%s://%s%s%s" % (scheme, host, path, query)


class State:
    def __init__(self, run_dir, name):
        self.pages = []  # (canonical url, html bytes)
        with open(os.path.join(run_dir, "pages.jsonl"), "r", encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                    url, html = obj["url"], obj["html"]
                except (ValueError, KeyError, TypeError) as e:
                    diag("pages.jsonl line %d unreadable (%s); it gets no page" % (lineno, e))
                    url, html = None, ""
                key = canonical_url(url) if isinstance(url, str) else None
                self.pages.append((key, str(html).encode("utf-8", "replace")))
        self.page = -1
        self.lock = threading.Lock()
        self.log = open(os.path.join(run_dir, "%s-requests.jsonl" % name), "w", encoding="utf-8")
        self.quit = threading.Event()
        self.start = time.monotonic()
        self.page_set_at = 0.0

    def elapsed_ms(self):
        return round((time.monotonic() - self.start) * 1000, 1)

    def set_page(self, n):
        with self.lock:
            self.page = n
        diag("page %d at t=%.1f" % (n, self.elapsed_ms()))

    def current(self):
        with self.lock:
            n = self.page
        html = None
        key = None
        if 0 <= n < len(self.pages):
            key, html = self.pages[n]
        return n, key, html

    def record(self, entry):
        line = json.dumps(entry, ensure_ascii=True) + "\n"
        with self.lock:
            if self.log is not None:
                self.log.write(line)
                self.log.flush()

    def close_log(self):
        with self.lock:
            if self.log is not None:
                self.log.close()
                self.log = None


STATE = None
TLS_CONTEXT = None


def make_tls_context(run_dir, name):
    cert = os.path.join(run_dir, "%s-tls-cert.pem" % name)
    key = os.path.join(run_dir, "%s-tls-key.pem" % name)
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=blockbench-view", "-keyout", key, "-out", cert],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    # Only HTTP/1.1 is spoken inside tunnels: never let ALPN pick h2.
    ctx.set_alpn_protocols(["http/1.1"])
    return ctx


class ClientGone(Exception):
    pass


def read_line(rfile):
    line = rfile.readline(MAX_LINE + 1)
    if len(line) > MAX_LINE:
        raise ClientGone("line too long")
    return line


def read_headers(rfile):
    """Returns a list of (lower-case name, value) pairs."""
    headers = []
    while True:
        line = read_line(rfile)
        if not line:
            raise ClientGone("end of stream inside the headers")
        if line in (b"\r\n", b"\n"):
            return headers
        if len(headers) >= MAX_HEADERS:
            raise ClientGone("too many headers")
        if line[:1] in (b" ", b"\t") and headers:
            name, value = headers[-1]
            headers[-1] = (name, value + " " + text(line.strip()))
            continue
        name, sep, value = line.partition(b":")
        if not sep:
            continue
        headers.append((text(name.strip()).lower(), text(value.strip())))


def header(headers, name):
    values = [v for n, v in headers if n == name]
    if not values:
        return None
    # Several Cookie headers are joined the way HTTP/2 would; others by comma.
    return ("; " if name == "cookie" else ", ").join(values)


def discard_body(rfile, headers):
    te = (header(headers, "transfer-encoding") or "").lower()
    if "chunked" in te:
        while True:
            size_line = read_line(rfile)
            if not size_line:
                raise ClientGone("end of stream inside a chunked body")
            try:
                size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
            except ValueError:
                raise ClientGone("bad chunk size")
            if size == 0:
                while True:  # trailers
                    t = read_line(rfile)
                    if not t or t in (b"\r\n", b"\n"):
                        return
            left = size + 2  # chunk data and its CRLF
            while left > 0:
                got = rfile.read(min(left, 65536))
                if not got:
                    raise ClientGone("end of stream inside a chunk")
                left -= len(got)
        return
    length = header(headers, "content-length")
    if length:
        try:
            left = int(length.split(",")[0].strip())
        except ValueError:
            raise ClientGone("bad Content-Length")
        while left > 0:
            got = rfile.read(min(left, 65536))
            if not got:
                raise ClientGone("end of stream inside a body")
            left -= len(got)


def kind_of(headers):
    dest = (header(headers, "sec-fetch-dest") or "").lower()
    if dest:
        if dest == "image":
            return "image"
        if dest == "style":
            return "style"
        if dest in ("script", "worker", "sharedworker", "serviceworker", "audioworklet", "paintworklet"):
            return "script"
        if dest in ("document", "iframe", "frame", "embed", "object"):
            return "html"
        if dest == "font":
            return "font"
        return "other"
    accept = (header(headers, "accept") or "").lower()
    if accept.startswith("image/"):
        return "image"
    if accept.startswith("text/css"):
        return "style"
    if "javascript" in accept or "ecmascript" in accept:
        return "script"
    if "text/html" in accept or "application/xhtml+xml" in accept:
        return "html"
    if accept.startswith("font/") or "application/font" in accept:
        return "font"
    return "other"


def response(status, ctype, body, headers, head_only, extra=()):
    origin = header(headers, "origin")
    lines = ["HTTP/1.1 %d %s" % (status, STATUS_TEXT.get(status, "OK"))]
    if ctype:
        lines.append("Content-Type: " + ctype)
    lines.append("Content-Length: %d" % len(body))
    lines.append("Cache-Control: no-store")
    if origin and origin != "null":
        lines.append("Access-Control-Allow-Origin: " + origin)
        lines.append("Access-Control-Allow-Credentials: true")
        lines.append("Vary: Origin")
    else:
        lines.append("Access-Control-Allow-Origin: *")
    lines.extend(extra)
    lines.append("Connection: keep-alive")
    out = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace")
    return out if head_only else out + body


def answer(method, url, headers):
    head_only = method == "HEAD"
    if method == "OPTIONS":
        want = header(headers, "access-control-request-headers")
        extra = ["Access-Control-Allow-Methods: GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS",
                 "Access-Control-Allow-Headers: " + (want or "*"),
                 "Access-Control-Max-Age: 0"]
        return response(204, None, b"", headers, True, extra)
    if "websocket" in (header(headers, "upgrade") or "").lower():
        return response(404, "text/plain", b"", headers, head_only)
    _, key, html = STATE.current()
    if html is not None and key is not None:
        got = canonical_url(url)
        dest = (header(headers, "sec-fetch-dest") or "document").lower()
        # An http page URL also matches its https form for a top-level
        # document request, so a page upgraded by make-https still loads.
        if got == key or (dest == "document" and key.startswith("http://") and got == "https://" + key[7:]):
            return response(200, "text/html; charset=utf-8", html, headers, head_only)
    kind = kind_of(headers)
    if kind == "image":
        return response(200, "image/gif", GIF_1X1, headers, head_only)
    if kind == "style":
        return response(200, "text/css", b"", headers, head_only)
    if kind == "script":
        return response(200, "text/javascript", b"", headers, head_only)
    if kind == "html":
        return response(200, "text/html; charset=utf-8", SUB_HTML, headers, head_only)
    if kind == "font":
        return response(404, "text/plain", b"", headers, head_only)
    return response(200, "text/plain", b"", headers, head_only)


def serve(sock, rfile, tunnel):
    """Answers requests on one connection until it closes.

    tunnel is None on the plain proxy connection, else "host[:port]" of the
    CONNECT that opened this TLS tunnel."""
    while True:
        line = read_line(rfile)
        if not line:
            return
        if line in (b"\r\n", b"\n"):
            continue
        parts = line.split()
        if len(parts) != 3 or not parts[2].startswith(b"HTTP/"):
            sock.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        method, target = text(parts[0]).upper(), text(parts[1])
        headers = read_headers(rfile)

        if method == "CONNECT" and tunnel is None:
            diag("CONNECT %s (page %d)" % (target, STATE.current()[0]))
            sock.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            tls = TLS_CONTEXT.wrap_socket(sock, server_side=True)
            authority = target
            if authority.endswith(":443"):
                authority = authority[:-4]
            try:
                serve(tls, tls.makefile("rb"), authority)
            finally:
                try:
                    tls.close()
                except OSError:
                    pass
            return

        if tunnel is not None:
            # A WebSocket handshake inside a tunnel is logged as wss://, the
            # way a plain one arrives as ws:// in absolute form.
            scheme = "wss://" if "websocket" in (header(headers, "upgrade") or "").lower() else "https://"
            url = scheme + tunnel + (target if target.startswith("/") else "/" + target)
        elif "://" in target:
            url = target
        else:
            url = "http://" + (header(headers, "host") or "unknown-host") + target

        STATE.record({
            "page": STATE.current()[0],
            "t": STATE.elapsed_ms(),
            "method": method,
            "url": url,
            "cookie": header(headers, "cookie"),
            "accept": header(headers, "accept"),
            "dest": header(headers, "sec-fetch-dest"),
        })
        discard_body(rfile, headers)
        sock.sendall(answer(method, url, headers))
        if (header(headers, "connection") or "").lower() == "close" or parts[2] == b"HTTP/1.0":
            return


class ProxyHandler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        sock.settimeout(IDLE_TIMEOUT)
        try:
            serve(sock, sock.makefile("rb"), None)
        except (ClientGone, OSError, ssl.SSLError, ValueError) as e:
            diag("connection ended: %s: %s" % (type(e).__name__, e))


class ControlHandler(socketserver.StreamRequestHandler):
    def handle(self):
        try:
            for raw in self.rfile:
                cmd = text(raw).strip()
                if not cmd:
                    continue
                if cmd == "quit":
                    STATE.close_log()
                    self.wfile.write(b"ok\n")
                    self.wfile.flush()
                    STATE.quit.set()
                    return
                word, _, arg = cmd.partition(" ")
                if word == "page":
                    try:
                        n = int(arg)
                    except ValueError:
                        self.wfile.write(b"error bad page number\n")
                        continue
                    STATE.set_page(n)
                    self.wfile.write(b"ok\n")
                else:
                    self.wfile.write(b"error unknown command\n")
                self.wfile.flush()
        except OSError as e:
            diag("control connection ended: %s" % e)


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64


def main():
    global STATE, TLS_CONTEXT
    if len(sys.argv) != 4:
        sys.stderr.write("usage: view_server.py DIR NAME PORTFILE\n")
        return 2
    run_dir, name, portfile = sys.argv[1:]
    STATE = State(run_dir, name)
    TLS_CONTEXT = make_tls_context(run_dir, name)

    proxy = Server(("127.0.0.1", 0), ProxyHandler)
    control = Server(("127.0.0.1", 0), ControlHandler)
    for srv in (proxy, control):
        threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: STATE.quit.set())

    tmp = portfile + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d %d\n" % (proxy.server_address[1], control.server_address[1]))
    os.replace(tmp, portfile)
    diag("ready: proxy %d, control %d, %d pages" % (proxy.server_address[1], control.server_address[1], len(STATE.pages)))

    while not STATE.quit.wait(0.5):
        pass
    STATE.close_log()
    for srv in (proxy, control):
        srv.shutdown()
        srv.server_close()
    diag("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
