#!/usr/bin/python3
"""A local stand-in for the Hugging Face Hub (stdlib only), for tests without the internet.

Serves a folder of fixture repos (tests/hub/fixtures.py writes them) with the Hub's URL layout:
  GET /api/models/{id}[/revision/{rev}]   the model_info JSON: id, sha, gated, downloads,
                                          config.model_type, safetensors {parameters, total}
                                          (summed from the files' headers), siblings
                                          [{rfilename, size}] (sizes: as with ?blobs=true)
  GET /api/models?search=Q&limit=N        list_models: matching ids, most downloaded first
  GET /{id}/resolve/{rev}/{file}          small files answered here; .safetensors and .gguf
                                          files redirected (302) to the second, "CDN" origin,
                                          as the Hub sends LFS files to its CDN
and on the CDN origin GET /blob/{id}/{file} with Range support (206 + Content-Range).
Both origins send CORS headers (Access-Control-Allow-Origin: *, Range and Authorization
allowed, Content-Range exposed), as huggingface.co and its CDN do.

A repo folder may hold _meta.json: {"gated": true} answers 401 without
"Authorization: Bearer test-token"; {"gated_denied": true} answers 403 GatedRepo even with
it (the token's account was not granted access); {"slow": S} waits S seconds before each
answer; {"status": N} answers N to everything (429 rate limit); {"downloads": N};
{"split_parts": N} lists a GGUF split in N parts (big-00001-of-N.gguf ...) and serves the
tiny part.gguf of the folder for each; {"trickle": N} makes the CDN answer at most N bytes
per Range request.
Errors as huggingface.co sends them (X-Error-Code, X-Error-Message; huggingface_hub's
utils/_http.py hf_raise_for_status reads them): a missing repo is 401 RepoNotFound without
a token and 404 with one; a token other than test-token is 401 "Invalid credentials in
Authorization header" (no code); a revision other than main or the commit is 404
RevisionNotFound; a missing file 404 EntryNotFound.
Every request is logged to --log (one "METHOD HOST PATH AUTH RANGE" line) so tests can
check what was asked. Prints "READY hub=PORT cdn=PORT" once listening.
--cdn-base URL writes that origin into the redirects instead of the CDN's own address (the
browser test routes the real Hub hosts to the stand-in, so the page's CSP is the real one).
usage: standin.py ROOT [--log FILE] [--port P] [--cdn-port P] [--cdn-base URL]
"""
import json
import os
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOKEN = "test-token"
SHA = "0123456789abcdef0123456789abcdef01234567"
BITS = {"F64": 64, "F32": 32, "F16": 16, "BF16": 16, "F8_E4M3": 8, "F8_E5M2": 8, "I64": 64, "I32": 32,
        "I16": 16, "I8": 8, "U8": 8, "BOOL": 8}


def args():
    a = {"root": sys.argv[1], "log": None, "port": 0, "cdn_port": 0, "cdn_base": None}
    rest = sys.argv[2:]
    for i in range(0, len(rest) - 1, 2):
        a[rest[i].lstrip("-").replace("-", "_")] = rest[i + 1]
    return a


A = args()
ROOT = os.path.abspath(A["root"])
LOCK = threading.Lock()
CDN = {}


def log(line):
    if A["log"]:
        with LOCK, open(A["log"], "a") as f:
            f.write(line + "\n")


def repo_dir(repo_id):
    if ".." in repo_id or repo_id.startswith("/"):
        return None
    d = os.path.join(ROOT, repo_id)
    return d if os.path.isdir(d) else None


def meta(d):
    p = os.path.join(d, "_meta.json")
    return json.load(open(p)) if os.path.exists(p) else {}


def files(d):
    out = []
    for base, _, names in os.walk(d):
        for n in sorted(names):
            if n == "_meta.json":
                continue
            p = os.path.join(base, n)
            out.append((os.path.relpath(p, d), os.path.getsize(p)))
    return sorted(out)


def safetensors_params(path):
    """Parameters per dtype from a safetensors header (what the Hub's totals are)."""
    try:
        with open(path, "rb") as f:
            n = struct.unpack("<Q", f.read(8))[0]
            if n > 100_000_000:
                return {}
            header = json.loads(f.read(n))
    except Exception:
        return {}
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        count = 1
        for s in t["shape"]:
            count *= s
        out[t["dtype"]] = out.get(t["dtype"], 0) + count
    return out


def split_name(i, n):
    return "big-%05d-of-%05d.gguf" % (i, n)


def split_part(d, name):
    """The file that answers for `name`: a listed part of a {"split_parts": N} repo is part.gguf."""
    n = meta(d).get("split_parts")
    if n and name.startswith("big-") and name.endswith("-of-%05d.gguf" % n):
        return "part.gguf"
    return name


def info(repo_id, d):
    m = meta(d)
    sib = [{"rfilename": n, "size": s} for n, s in files(d)]
    if m.get("split_parts"):
        size = os.path.getsize(os.path.join(d, "part.gguf"))
        sib = [{"rfilename": split_name(i, m["split_parts"]), "size": size} for i in range(1, m["split_parts"] + 1)]
    j = {"id": repo_id, "modelId": repo_id, "sha": SHA, "gated": "manual" if m.get("gated") else False,
         "downloads": m.get("downloads", 0), "siblings": sib, "private": False}
    try:
        j["config"] = {"model_type": json.load(open(os.path.join(d, "config.json"))).get("model_type")}
    except Exception:
        pass
    params = {}
    for n, _ in files(d):
        if n.endswith(".safetensors"):
            for k, v in safetensors_params(os.path.join(d, n)).items():
                params[k] = params.get(k, 0) + v
    if params and not m.get("no_totals"):
        j["safetensors"] = {"parameters": params, "total": sum(params.values())}
    if any(n.endswith(".gguf") for n, _ in files(d)):
        j["gguf"] = {"total": m.get("gguf_total", 0), "architecture": m.get("gguf_arch", "llama")}
    return j


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    cdn = False

    def log_message(self, *a):
        pass

    def cors(self):
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Headers", "Range, Authorization")
        self.send_header("Access-Control-Expose-Headers", "Content-Range, Content-Length, X-Error-Code, X-Error-Message")

    def answer(self, status, body=b"", ctype="application/json", extra=()):
        if isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        self.cors()
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def error(self, status, code, message):
        extra = [("X-Error-Message", message)] + ([("X-Error-Code", code)] if code else [])
        self.answer(status, json.dumps({"error": message}), extra=extra)

    def do_OPTIONS(self):
        log("OPTIONS %s %s" % (self.headers.get("Host"), self.path))
        self.answer(204)

    def do_GET(self):
        auth = self.headers.get("Authorization", "")
        # Any header a client did not mean to send (a CR/LF in a token becomes one) is logged.
        injected = [k for k in self.headers.keys() if k.lower().startswith("x-injected")]
        log("GET %s %s %s %s%s" % (self.headers.get("Host"), self.path, "auth" if auth else "-",
                                   self.headers.get("Range", "-"), " INJECTED" if injected else ""))
        url = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(url.path)
        if self.cdn:
            return self.blob(path)
        if path == "/api/models":
            return self.search(urllib.parse.parse_qs(url.query))
        if path.startswith("/api/models/"):
            rest = path[len("/api/models/"):]
            repo_id, _, rev = rest.partition("/revision/")
            return self.guarded(repo_id, auth, lambda d: self.answer(200, json.dumps(info(repo_id, d))), rev or "main")
        if "/resolve/" in path:
            repo_id, _, tail = path[1:].partition("/resolve/")
            rev, _, name = tail.partition("/")
            return self.guarded(repo_id, auth, lambda d: self.resolve(repo_id, d, name), rev)
        self.error(404, "EntryNotFound", "not found")

    def guarded(self, repo_id, auth, then, rev="main"):
        if auth and auth != "Bearer " + TOKEN:
            return self.error(401, None, "Invalid credentials in Authorization header")
        d = repo_dir(repo_id)
        if d is None:
            return self.error(404 if auth else 401, "RepoNotFound", "Repository not found")
        if rev not in ("main", SHA):
            return self.error(404, "RevisionNotFound", "Invalid rev id: " + rev)
        m = meta(d)
        if m.get("slow"):
            time.sleep(float(m["slow"]))
        if m.get("status"):
            return self.error(int(m["status"]), "RateLimited", "Too many requests")
        if m.get("gated") and auth != "Bearer " + TOKEN:
            return self.error(401, "GatedRepo", "Access to model %s is restricted. You must have access to it and be "
                                                "authenticated to access it. Please log in." % repo_id)
        if m.get("gated_denied"):
            return self.error(403, "GatedRepo", "Access to model %s is restricted and you are not in the authorized "
                                                "list. Visit https://huggingface.co/%s to ask for access." % (repo_id, repo_id))
        then(d)

    def resolve(self, repo_id, d, name):
        name = split_part(d, name)
        p = os.path.join(d, name)
        if ".." in name or not os.path.isfile(p):
            return self.error(404, "EntryNotFound", "Entry not found")
        if name.endswith(".safetensors") or name.endswith(".gguf"):
            base = A.get("cdn_base") or "http://127.0.0.1:%d" % CDN["port"]
            loc = "%s/blob/%s/%s" % (base, repo_id, urllib.parse.quote(name))
            return self.answer(302, "", "text/plain", [("Location", loc)])
        self.answer(200, open(p, "rb").read(), "application/json")

    def blob(self, path):
        if not path.startswith("/blob/"):
            return self.error(404, "EntryNotFound", "not found")
        rel = path[len("/blob/"):]
        org, _, rest = rel.partition("/")
        name, _, tail = rest.partition("/")
        d = os.path.join(ROOT, org, name)
        p = os.path.join(d, split_part(d, tail)) if os.path.isdir(d) else ""
        if ".." in path or not os.path.isfile(p):
            return self.error(404, "EntryNotFound", "not found")
        size = os.path.getsize(p)
        rng = self.headers.get("Range")
        with open(p, "rb") as f:
            if not rng:
                return self.answer(200, f.read(), "application/octet-stream", [("Accept-Ranges", "bytes")])
            a, _, b = rng.replace("bytes=", "").partition("-")
            a = int(a)
            b = min(int(b) if b else size - 1, size - 1)
            trickle = meta(d).get("trickle")
            if trickle:
                b = min(b, a + int(trickle) - 1)
            if a >= size:
                return self.answer(416, "", "text/plain", [("Content-Range", "bytes */%d" % size)])
            f.seek(a)
            self.answer(206, f.read(b - a + 1), "application/octet-stream",
                        [("Content-Range", "bytes %d-%d/%d" % (a, b, size)), ("Accept-Ranges", "bytes")])

    def search(self, q):
        term = (q.get("search") or [""])[0].lower()
        limit = int((q.get("limit") or ["10"])[0])
        hits = []
        for org in sorted(os.listdir(ROOT)):
            for name in sorted(os.listdir(os.path.join(ROOT, org))):
                rid = org + "/" + name
                if term in rid.lower():
                    j = info(rid, os.path.join(ROOT, org, name))
                    hits.append({k: j[k] for k in ("id", "downloads", "safetensors", "gguf") if k in j})
        hits.sort(key=lambda h: -h["downloads"])
        self.answer(200, json.dumps(hits[:limit]))


class CdnHandler(Handler):
    cdn = True


def main():
    hub = ThreadingHTTPServer(("127.0.0.1", int(A["port"])), Handler)
    cdn = ThreadingHTTPServer(("127.0.0.1", int(A["cdn_port"])), CdnHandler)
    CDN["port"] = cdn.server_address[1]
    threading.Thread(target=cdn.serve_forever, daemon=True).start()
    print("READY hub=%d cdn=%d" % (hub.server_address[1], CDN["port"]), flush=True)
    hub.serve_forever()


if __name__ == "__main__":
    main()
