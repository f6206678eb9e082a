#!/usr/bin/env python3
"""Serves the static web calculator from build/web on 127.0.0.1 only.

Only the site's own files are served, with a strict Content-Security-Policy (no
'unsafe-eval', no inline script: WebAssembly needs 'wasm-unsafe-eval' alone). A file with a
precompressed twin beside it (scripts/precompress.py, run by the build) is sent as that:
FILE.br with Content-Encoding: br to clients that accept Brotli (current browsers, also
over http://localhost), else FILE.gz with gzip: the page travels at about a quarter of
its size.
usage: serve.py [--port 8080] [--dir build/web] [--log requests.log]
"""
import argparse
import functools
import http.server
import os
import re
import sys

CSP = ("default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; "
       "img-src 'self' data:; connect-src {connect}; base-uri 'none'; form-action 'none'; "
       "frame-ancestors 'none'")


def connect_sources(site_dir):
    """The page's own connect-src (web/index.html: 'self' and the listed Hub hosts), so the
    header and the page's meta policy allow the same hosts (both apply: the stricter wins)."""
    try:
        with open(os.path.join(site_dir, "index.html"), encoding="utf-8") as f:
            m = re.search(r"connect-src ([^;\"]*)", f.read())
            return m.group(1).strip() if m else "'self'"
    except OSError:
        return "'self'"
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript", ".wasm": "application/wasm",
         ".css": "text/css", ".png": "image/png", ".ico": "image/x-icon", ".json": "application/json",
         ".ttf": "font/ttf"}


class Handler(http.server.SimpleHTTPRequestHandler):
    log_file = None
    csp = CSP.format(connect="'self'")

    def end_headers(self):
        self.send_header("Content-Security-Policy", Handler.csp)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def guess_type(self, path):
        return TYPES.get(os.path.splitext(path)[1], "application/octet-stream")

    def send_head(self):
        """The file's .br or .gz twin when the client takes that; the file itself otherwise."""
        path = self.translate_path(self.path)
        accepts = [e.split(";")[0].strip() for e in self.headers.get("Accept-Encoding", "").split(",")]
        twin = next(((suffix, name) for suffix, name in ((".br", "br"), (".gz", "gzip"))
                     if name in accepts and os.path.isfile(path + suffix)), None)
        if twin is None or not os.path.isfile(path):
            return super().send_head()
        try:
            f = open(path + twin[0], "rb")
        except OSError:
            return super().send_head()
        size = os.fstat(f.fileno()).st_size
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", twin[1])
        self.send_header("Content-Length", str(size))
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        return f

    def list_directory(self, path):
        self.send_error(404, "no directory listings")
        return None

    def log_message(self, fmt, *args):
        if Handler.log_file:
            with open(Handler.log_file, "a") as f:
                f.write(self.path + "\n")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--dir", default=os.path.join(os.path.dirname(__file__), "..", "build", "web"))
    p.add_argument("--log", default=None, help="append each requested path to this file")
    a = p.parse_args()
    Handler.log_file = a.log
    Handler.csp = CSP.format(connect=connect_sources(os.path.abspath(a.dir)))
    handler = functools.partial(Handler, directory=os.path.abspath(a.dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", a.port), handler)
    print(f"Serving the LLM memory calculator at http://127.0.0.1:{a.port}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
