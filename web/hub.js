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
//  - Every failure resolves to {ok: false, error: a sentence}; nothing throws.
// Usage: var hub = LlmmemHub.create(api, {endpoint, token, fetch, timeoutMs});
//        hub.load("org/name@rev", ggufFile) -> Promise<{ok, error, result, plan, ref}>
//        hub.search("qwen 7b", 10) -> Promise<{ok, error, hits}>
(function (root) {
  "use strict";
  var kJsonCap = 8 << 20;        // config.json, model.safetensors.index.json (core::kJsonMaxBytes)
  var kApiCap = 16 << 20;        // the API's model info
  var kChunkCap = 16 << 20;      // one Range request of a header
  var kMaxShards = 512;

  function create(api, options) {
    options = options || {};
    var endpoint = JSON.parse(api.hubEndpoint(options.endpoint || "")).endpoint;
    var token = options.token || "";
    var fetchFn = options.fetch || root.fetch.bind(root);
    var timeoutMs = options.timeoutMs || 30000;
    var origin = new URL(endpoint).origin;

    // One GET: {ok, status, bytes (Uint8Array), total, error}. `what` names it in messages.
    function get(url, cap, range) {
      var controller = new AbortController();
      var timer = setTimeout(function () { controller.abort(); }, timeoutMs);
      var headers = {};
      if (token && new URL(url).origin === origin) headers.Authorization = "Bearer " + token;
      if (range) headers.Range = "bytes=" + range[0] + "-" + range[1];
      return fetchFn(url, { headers: headers, signal: controller.signal, credentials: "omit", redirect: "follow",
                            cache: range ? "no-store" : "default" })
        .then(function (res) {
          if (res.status !== 200 && res.status !== 206) return { ok: false, status: res.status };
          return readCapped(res, cap).then(function (body) {
            if (body === null) return { ok: false, status: res.status, error: "larger than " + cap + " bytes" };
            var total = body.length;
            var cr = res.headers.get("Content-Range");
            if (res.status === 206 && cr && cr.indexOf("/") >= 0) total = Number(cr.split("/")[1]);
            if (range && res.status === 200) body = body.subarray(range[0], range[1] + 1);  // Range ignored
            return { ok: true, status: res.status, bytes: body, total: total };
          });
        })
        .catch(function (e) {
          var why = controller.signal.aborted ? "timed out after " + Math.round(timeoutMs / 1000) + " s"
                                              : "offline, or blocked by CORS or the page's policy (" + (e && e.message || e) + ")";
          return { ok: false, status: 0, error: why };
        })
        .finally(function () { clearTimeout(timer); });
    }

    function readCapped(res, cap) {
      if (!res.body || !res.body.getReader) {
        return res.arrayBuffer().then(function (b) { return b.byteLength > cap ? null : new Uint8Array(b); });
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
          if (n > cap) { reader.cancel(); return null; }
          parts.push(r.value);
          return pump();
        });
      }
      return pump();
    }

    function text(bytes) { return new TextDecoder("utf-8").decode(bytes); }
    function message(r, id, what) {
      return r.error && r.status === 200 ? id + " (" + what + "): " + r.error : api.hubErrorMessage(r.status, id, what, r.error || "");
    }

    // A header's first bytes, as far as the core's reader asks (hubInspectHeader: the format by
    // the file's name, so a safetensors header's length is judged from its first 8 bytes).
    function header(ref, file) {
      var url = api.hubFileUrl(endpoint, ref.repo_id, ref.revision, file);
      return get(url, 8, [0, 7]).then(function (first) {
        if (!first.ok) return { ok: false, error: message(first, ref.repo_id, file) };
        var have = first.bytes, size = first.total;
        function step(rounds) {
          var r = JSON.parse(api.hubInspectHeader(have, size, file));
          if (r.status === "complete") return { ok: true, bytes: have, size: size };
          if (r.status !== "need_more" || rounds > 64) {
            return { ok: false, error: file + ": " + (r.message || "the header did not end") };
          }
          var end = Math.min(r.need_bytes, have.length + kChunkCap) - 1;
          return get(url, end - have.length + 1, [have.length, end]).then(function (more) {
            if (!more.ok) return { ok: false, error: message(more, ref.repo_id, file) };
            if (more.bytes.length === 0) return { ok: false, error: file + " ends before its header does" };
            var joined = new Uint8Array(have.length + more.bytes.length);
            joined.set(have);
            joined.set(more.bytes, have.length);
            have = joined;
            return step(rounds + 1);
          });
        }
        return step(0);
      });
    }

    function load(refText, ggufFile) {
      var ref = JSON.parse(api.hubParseRef(refText));
      if (!ref.ok) return Promise.resolve({ ok: false, error: ref.error });
      var infoUrl = api.hubApiUrl(endpoint, ref.repo_id, ref.revision);
      var st = { ref: ref };
      return get(infoUrl, kApiCap).then(function (r) {
        if (!r.ok) throw message(r, ref.repo_id, "model info");
        st.info_text = text(r.bytes);
        st.plan = JSON.parse(api.hubPlan(st.info_text, ggufFile || ref.file || ""));
        if (!st.plan.ok) throw ref.repo_id + ": " + st.plan.error;
        var plan = st.plan.plan;
        if (!plan.has_config && plan.kind === "none") throw ref.repo_id + ": " + (plan.note || "no config.json and no weight files");
        if (!plan.has_config) return null;
        return get(api.hubFileUrl(endpoint, ref.repo_id, ref.revision, "config.json"), kJsonCap).then(function (c) {
          if (!c.ok) throw message(c, ref.repo_id, "config.json");
          st.config_text = text(c.bytes);
        });
      }).then(function () {
        var plan = st.plan.plan;
        if (plan.kind === "none") return [];
        var parts = plan.gguf_parts && plan.gguf_parts.length > 1 ? plan.gguf_parts : null;  // a split GGUF
        if (parts) return parts.reduce(function (p, part) {
          return p.then(function (all) { return header(ref, part).then(function (h) { return all.concat([h]); }); });
        }, Promise.resolve([]));
        if (plan.kind !== "safetensors_index") return header(ref, plan.weights_file).then(function (h) { return [h]; });
        var indexUrl = api.hubFileUrl(endpoint, ref.repo_id, ref.revision, plan.weights_file);
        return get(indexUrl, kJsonCap).then(function (ix) {
          if (!ix.ok) throw message(ix, ref.repo_id, plan.weights_file);
          var index = JSON.parse(api.hubIndexShards(ix.bytes));
          if (!index.ok) throw ref.repo_id + ": " + plan.weights_file + ": " + index.error;
          var shards = index.shard_files;
          if (shards.length > kMaxShards) throw ref.repo_id + ": the index lists more than " + kMaxShards + " shards";
          // One shard at a time: a few small requests each, and the Hub's rate limits.
          return shards.reduce(function (p, shard) {
            return p.then(function (all) { return header(ref, shard).then(function (h) { return all.concat([h]); }); });
          }, Promise.resolve([]));
        });
      }).then(function (headers) {
        for (var i = 0; i < headers.length; ++i) if (!headers[i].ok) throw "the weights header of " + ref.repo_id + " could not be read: " + headers[i].error;
        var plan = st.plan.plan;
        var request = { name: ref.text, config_source: api.hubFileUrl(endpoint, ref.repo_id, ref.revision, "config.json"),
                        info_text: st.info_text, info_source: infoUrl, weights_file: plan.weights_file,
                        weights_source: plan.weights_file ? api.hubFileUrl(endpoint, ref.repo_id, ref.revision, plan.weights_file) : "" };
        if (st.config_text !== undefined) request.config_text = st.config_text;
        var result = JSON.parse(api.hubBuildModel(request, headers.map(function (h) { return { bytes: h.bytes, size: h.size }; })));
        if (!result.ok) return { ok: false, error: result.error, result: result, ref: ref };
        return { ok: true, result: result, plan: plan, ref: ref, endpoint: endpoint };
      }).catch(function (e) {
        return { ok: false, error: typeof e === "string" ? e : ref.repo_id + ": " + (e && e.message || e), ref: ref };
      });
    }

    function search(query, limit) {
      return get(api.hubSearchUrl(endpoint, query, limit || 10), kApiCap).then(function (r) {
        if (!r.ok) return { ok: false, error: message(r, query, "search"), hits: [] };
        var s = JSON.parse(api.hubReadSearch(text(r.bytes)));
        return { ok: s.ok, error: s.error, hits: s.hits };
      });
    }

    return { load: load, search: search, endpoint: endpoint };
  }

  var hub = { create: create };
  if (typeof module === "object" && module.exports) module.exports = hub;
  root.LlmmemHub = hub;
})(typeof globalThis !== "undefined" ? globalThis : this);
