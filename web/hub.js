// Loads a Hugging Face model in the page (and in node, for tests): the fetching half of
// issue 15. The pure half (ids, URLs, the API's JSON, headers, the model) is the core's,
// through the Embind API (src/bindings/embind_hub.cpp); this file only moves bytes.
//  - Nothing is requested until load() or search() is called (the user asked for a model,
//    typed in the search box, or opened a link that names one).
//  - Every request has a timeout (AbortController) and a byte cap (the body is read as a
//    stream and abandoned past the cap); weight files are read by HTTP Range: the first 8
//    bytes, then what the header reader asks for (a safetensors header over 100 MB is
//    refused by the reader from those 8 bytes).
//  - The token is kept by the caller in memory only and sent as "Authorization: Bearer"
//    to the endpoint's own origin; the browser drops it on the redirect to the CDN (Fetch
//    standard, "HTTP-redirect fetch": Authorization is removed on a cross-origin redirect).
//  - One budget for the whole load (requests, bytes, wall time, shards, split parts): the
//    core's HubBudget (core/hub/hub_budget.h) through the JS API, the same as the CLI's and
//    the desktop's; each body's bytes are counted as they stream. Each weight header is
//    added to a HubHeaderSum as soon as it is complete and its bytes dropped (issue 28).
//  - A failed request is told by the Hub's X-Error-Code / X-Error-Message headers and
//    whether a token was sent (core::HubErrorMessage); a token that could not go into a
//    header is refused before any request.
//  - Every failure resolves to {ok: false, error: a sentence}; nothing throws.
// Usage: var hub = LlmmemHub.create(api, {endpoint, token, fetch, timeoutMs});
//        hub.load("org/name@rev", ggufFile) -> Promise<{ok, error, result, plan, ref}>
//        hub.search("qwen 7b", 10) -> Promise<{ok, error, hits}>
(function (root) {
  "use strict";
  var kJsonCap = 8 << 20;        // config.json, model.safetensors.index.json (core::kJsonMaxBytes)
  var kApiCap = 16 << 20;        // the API's model info
  var kChunkCap = 16 << 20;      // one Range request of a header

  function create(api, options) {
    options = options || {};
    var endpoint = JSON.parse(api.hubEndpoint(options.endpoint || "")).endpoint;
    var token = options.token || "";
    var fetchFn = options.fetch || root.fetch.bind(root);
    var timeoutMs = options.timeoutMs || 30000;
    var origin = new URL(endpoint).origin;
    var tokenProblem = api.hubTokenProblem(token);

    // A load's budget: the core's; its wall time is what is left of it for each request.
    function Budget() {
      var b = new api.HubBudget(timeoutMs, Date.now());
      var limits = JSON.parse(b.limits());
      var start = Date.now();
      return { core: b, limits: limits,
               wallLeft: function () { return limits.max_wall_ms - (Date.now() - start); },
               done: function () { b.delete(); } };
    }

    // One GET: {ok, status, bytes (Uint8Array), total, error, code, message, over}; `over`:
    // the budget stopped it (error is its sentence).
    function get(url, cap, range, budget) {
      var spent = budget.core.request(Date.now());
      if (spent) return Promise.resolve({ ok: false, status: 0, error: spent, over: true });
      var controller = new AbortController();
      var wait = Math.max(1, Math.min(timeoutMs, budget.wallLeft()));
      var timer = setTimeout(function () { controller.abort(); }, wait);
      var headers = {};
      var sent = !!(token && new URL(url).origin === origin);
      if (sent) headers.Authorization = "Bearer " + token;
      if (range) headers.Range = "bytes=" + range[0] + "-" + range[1];
      return fetchFn(url, { headers: headers, signal: controller.signal, credentials: "omit", redirect: "follow",
                            cache: range ? "no-store" : "default" })
        .then(function (res) {
          if (res.status !== 200 && res.status !== 206) {
            return { ok: false, status: res.status, code: res.headers.get("X-Error-Code") || "",
                     message: res.headers.get("X-Error-Message") || "", sent: sent };
          }
          return readCapped(res, cap, budget).then(function (body) {
            if (body && body.over) return { ok: false, status: 0, error: body.over, over: true };
            if (body === null) return { ok: false, status: res.status, error: "larger than " + cap + " bytes" };
            var total = body.length;
            var cr = res.headers.get("Content-Range");
            if (res.status === 206 && cr && cr.indexOf("/") >= 0) total = Number(cr.split("/")[1]);
            if (range && res.status === 200) body = body.subarray(range[0], range[1] + 1);  // Range ignored
            return { ok: true, status: res.status, bytes: body, total: total };
          });
        })
        .catch(function (e) {
          var late = budget.core.time(Date.now());
          if (late) return { ok: false, status: 0, error: late, over: true };
          var why = controller.signal.aborted ? "timed out after " + Math.round(timeoutMs / 1000) + " s"
                                              : "offline, or blocked by CORS or the page's policy (" + (e && e.message || e) + ")";
          return { ok: false, status: 0, error: why };
        })
        .finally(function () { clearTimeout(timer); });
    }

    // The body, counted against the budget as it streams: null past `cap`, {over} past the budget.
    function readCapped(res, cap, budget) {
      if (!res.body || !res.body.getReader) {
        return res.arrayBuffer().then(function (b) {
          var over = budget.core.bytes(b.byteLength);
          return over ? { over: over } : b.byteLength > cap ? null : new Uint8Array(b);
        });
      }
      var reader = res.body.getReader(), parts = [], n = 0;
      function pump() {
        return reader.read().then(function (r) {
          if (r.done) {
            var out = new Uint8Array(n), at = 0;
            parts.forEach(function (p) { out.set(p, at); at += p.length; });
            return out;
          }
          n += r.value.length;
          var over = budget.core.bytes(r.value.length);
          if (over) { reader.cancel(); return { over: over }; }
          if (n > cap) { reader.cancel(); return null; }
          parts.push(r.value);
          return pump();
        });
      }
      return pump();
    }

    function text(bytes) { return new TextDecoder("utf-8").decode(bytes); }
    function message(r, id, what) {
      if (r.over) return id + ": " + r.error;
      return r.error && r.status === 200 ? id + " (" + what + "): " + r.error
                                         : api.hubErrorMessage(r.status, id, what, r.error || "", r.code || "", r.message || "", !!r.sent);
    }

    // A header's first bytes, as far as the core's reader asks (hubInspectHeader: the format by
    // the file's name, so a safetensors header's length is judged from its first 8 bytes).
    // The header is added to `sum` once complete; its bytes go with this function's scope.
    function header(ref, file, budget, sum) {
      var url = api.hubFileUrl(endpoint, ref.repo_id, ref.revision, file);
      return get(url, 8, [0, 7], budget).then(function (first) {
        if (!first.ok) return { ok: false, error: message(first, ref.repo_id, file) };
        var have = first.bytes, size = first.total;
        // No count of rounds of its own: the load's budget bounds them, as the CLI's.
        function step() {
          var r = JSON.parse(api.hubInspectHeader(have, size, file));
          if (r.status === "complete") {
            var why = sum.add(have, size, file);
            return why ? { ok: false, error: why } : { ok: true };
          }
          if (r.status !== "need_more") {
            return { ok: false, error: file + ": " + (r.message || "the header did not end") };
          }
          var end = Math.min(r.need_bytes, have.length + kChunkCap) - 1;
          return get(url, end - have.length + 1, [have.length, end], budget).then(function (more) {
            if (!more.ok) return { ok: false, error: message(more, ref.repo_id, file) };
            if (more.bytes.length === 0) return { ok: false, error: file + " ends before its header does" };
            var joined = new Uint8Array(have.length + more.bytes.length);
            joined.set(have);
            joined.set(more.bytes, have.length);
            have = joined;
            return step();
          });
        }
        return step();
      });
    }

    function load(refText, ggufFile) {
      var ref = JSON.parse(api.hubParseRef(refText, endpoint));
      if (!ref.ok) return Promise.resolve({ ok: false, error: ref.error });
      if (tokenProblem) return Promise.resolve({ ok: false, error: tokenProblem, ref: ref });
      var infoUrl = api.hubApiUrl(endpoint, ref.repo_id, ref.revision);
      var st = { ref: ref };
      var budget = Budget();
      var sum = new api.HubHeaderSum();
      // One file after another: a few small requests each, and the Hub's rate limits.
      function headers(files) {
        return files.reduce(function (p, file) {
          return p.then(function () {
            return header(ref, file, budget, sum).then(function (h) {
              if (!h.ok) throw "the weights header of " + ref.repo_id + " could not be read: " + h.error;
            });
          });
        }, Promise.resolve());
      }
      return get(infoUrl, kApiCap, null, budget).then(function (r) {
        if (!r.ok) throw message(r, ref.repo_id, "model info");
        st.info_text = text(r.bytes);
        st.plan = JSON.parse(api.hubPlan(st.info_text, ggufFile || ref.file || ""));
        if (!st.plan.ok) throw ref.repo_id + ": " + st.plan.error;
        var plan = st.plan.plan;
        if (!plan.has_config && plan.kind === "none") throw ref.repo_id + ": " + (plan.note || "no config.json and no weight files");
        if (!plan.has_config) return null;
        return get(api.hubFileUrl(endpoint, ref.repo_id, ref.revision, "config.json"), kJsonCap, null, budget).then(function (c) {
          if (!c.ok) throw message(c, ref.repo_id, "config.json");
          st.config_text = text(c.bytes);
        });
      }).then(function () {
        var plan = st.plan.plan;
        if (plan.kind === "none") return null;
        var parts = plan.gguf_parts && plan.gguf_parts.length > 1 ? plan.gguf_parts : null;  // a split GGUF
        if (parts) {
          var tooMany = budget.core.splitParts(parts.length);
          if (tooMany) throw ref.repo_id + ": " + tooMany;
          return headers(parts);
        }
        if (plan.kind !== "safetensors_index") return headers([plan.weights_file]);
        var indexUrl = api.hubFileUrl(endpoint, ref.repo_id, ref.revision, plan.weights_file);
        return get(indexUrl, kJsonCap, null, budget).then(function (ix) {
          if (!ix.ok) throw message(ix, ref.repo_id, plan.weights_file);
          var index = JSON.parse(api.hubIndexShards(ix.bytes));
          if (!index.ok) throw ref.repo_id + ": " + plan.weights_file + ": " + index.error;
          var tooMany = budget.core.shards(index.shard_files.length);
          if (tooMany) throw ref.repo_id + ": " + tooMany;
          return headers(index.shard_files);
        });
      }).then(function () {
        var plan = st.plan.plan;
        var request = { name: ref.text, config_source: api.hubFileUrl(endpoint, ref.repo_id, ref.revision, "config.json"),
                        info_text: st.info_text, info_source: infoUrl, weights_file: plan.weights_file,
                        weights_source: plan.weights_file ? api.hubFileUrl(endpoint, ref.repo_id, ref.revision, plan.weights_file) : "" };
        if (st.config_text !== undefined) request.config_text = st.config_text;
        var result = JSON.parse(api.hubBuildModel(request, sum));
        if (!result.ok) return { ok: false, error: result.error, result: result, ref: ref };
        return { ok: true, result: result, plan: plan, ref: ref, endpoint: endpoint, requests: budget.core.requests() };
      }).catch(function (e) {
        return { ok: false, error: typeof e === "string" ? e : ref.repo_id + ": " + (e && e.message || e), ref: ref,
                 requests: budget.core.requests() };
      }).finally(function () {
        sum.delete();
        budget.done();
      });
    }

    function search(query, limit) {
      if (tokenProblem) return Promise.resolve({ ok: false, error: tokenProblem, hits: [] });
      var budget = Budget();
      return get(api.hubSearchUrl(endpoint, query, limit || 10), kApiCap, null, budget).then(function (r) {
        if (!r.ok) return { ok: false, error: message(r, query, "search"), hits: [] };
        var s = JSON.parse(api.hubReadSearch(text(r.bytes)));
        return { ok: s.ok, error: s.error, hits: s.hits };
      }).finally(function () { budget.done(); });
    }

    // The budget's limits as this loader spends them (a test checks they are the core's).
    function limits() {
      var b = Budget();
      try { return b.limits; } finally { b.done(); }
    }

    return { load: load, search: search, endpoint: endpoint, limits: limits };
  }

  var hub = { create: create };
  if (typeof module === "object" && module.exports) module.exports = hub;
  root.LlmmemHub = hub;
})(typeof globalThis !== "undefined" ? globalThis : this);
