// Retrieval Inspector: ask the service (or open a saved file) and show what the response says.
//
// Plain browser JavaScript, no build step, no framework. Every value that comes from a response
// or a file reaches the page through textContent or a property (never innerHTML), so response text
// can never become markup. The page is served with a strict CSP (script-src 'self', no inline
// styles), so all styling is by class names defined in inspector.css.
"use strict";

(function () {
  // The request defaults of the service (docs/api.md, "The request"); the form starts with them.
  const ALLOWANCES = [
    // [request field, usage counter it is charged against, short label]
    ["max_steps", "steps", "steps"],
    ["max_searches", "searches", "searches"],
    ["max_reads", "reads", "reads"],
    ["max_source_bytes", "reserved_source_bytes", "source bytes"],
  ];
  const DIGEST_HEADER = "X-Retrieval-Body-SHA256";
  const OTHER_VERSION = "__other__";
  // The body's own result_sha256 (retrieval/core/digests.py, response_result_sha256): SHA-256 of
  // this domain tag followed by the exact body bytes with the final result_sha256 member removed.
  const RESPONSE_TAG = "retrieval/v1/retrieve_response\n";
  const RESULT_MEMBER = ',"result_sha256":"';

  // pydantic-style issue types the service uses (docs/api.md, "Errors"), in words.
  const ISSUE_WORDS = {
    model_attributes_type: "the body must be a JSON object",
    missing: "is required but missing",
    extra_forbidden: "is not a field the service accepts",
    string_type: "must be a string",
    string_too_short: "must not be blank",
    string_too_long: "is too long",
    string_pattern_mismatch: "does not have the required form (a version as PEP 440 spells it, such as 3.12, v2.2.2 or 2.5.0b1; a collection or library name is letters, digits, ., - and _)",
    int_type: "must be a whole number (an integer, not 6.0 or true)",
    greater_than_equal: "is below the smallest allowed value",
    less_than_equal: "is above the largest allowed value",
  };

  // Error codes of the service (and the ones a deployment in front of it may add), in words.
  const ERROR_WORDS = {
    invalid_request: "The service refused the request: some fields are not valid.",
    invalid_json: "The request body is not strict JSON.",
    invalid_content_length: "The request's Content-Length is not a decimal number.",
    query_not_allowed: "/retrieve takes no query string; every input goes in the body.",
    body_too_large: "The request body is over the service's size limit.",
    unsupported_media_type: "The request was not sent as application/json.",
    not_found: "There is no such path on this service.",
    method_not_allowed: "This path does not accept that method.",
    passage_not_found: "The served corpus has no such passage.",
    unauthenticated: "The service needs an API key (see Optional fields).",
    invalid_credentials: "The API key was not accepted.",
    collection_not_found: "There is no such collection for this key.",
    version_not_found: "The collection does not hold that version; the service lists the ones it holds.",
    rate_limited: "Too many requests for this key. Try again shortly.",
    not_ready: "The service is not ready: it is starting or has been closed. Try again shortly.",
    overloaded: "The service is busy and turned the request away. Try again shortly.",
    draining: "The service is shutting down. Try again shortly.",
    internal_error: "The service hit an internal error; its log has the details.",
  };

  // What each terminal status means, whatever the reason (docs/api.md, "Terminal status").
  const STATUS_WORDS = {
    completed: "the run found what the policy in force requires",
    incomplete: "the run ended without finding what the policy in force requires",
    limited: "an allowance or the deadline stopped the run",
    failed: "a tool call failed",
  };
  // Plain-language meanings of the reasons this page knows; any other reason is shown in its own
  // words (underscores as spaces), so a reason added later still reads as a sentence.
  const REASON_WORDS = {
    configured_context_marker_found: "its required marker occurs literally in a passage that was read",
    no_refinement_rule: "after the first round the policy in force had no refinement query to try",
    round_limit: "every round ran without finding the marker",
    best_matches_read: "it read the best distinct matches of its search that the allowances permit",
    no_matching_passages: "its search matched nothing in this version, so there was nothing to read",
    max_steps: "the next action was denied by the max_steps allowance",
    max_searches: "the next action was denied by the max_searches allowance",
    max_reads: "the next action was denied by the max_reads allowance",
    max_source_bytes: "the next action was denied by the max_source_bytes allowance",
    deadline: "the wall-clock budget ran out; evidence already read is kept",
    retrieval_failed: "it stays charged and evidence already read is kept",
  };

  // Say what a run's status and reason mean, e.g. "incomplete: the run ended ...: <reason>".
  function outcomeWords(status, reason) {
    const statusText = STATUS_WORDS[status] || words(status);
    const reasonText = REASON_WORDS[reason] || (reason ? words(reason) : "");
    return reasonText ? `${statusText}: ${reasonText}` : statusText;
  }

  // API URLs relative to where this page was served, so the Inspector works under any mount
  // point (a reverse proxy path or a WSGI dispatcher's SCRIPT_NAME), not only at the host root.
  function apiUrl(path) {
    return new URL(path, document.baseURI).href;
  }

  const byId = (id) => document.getElementById(id);
  const utf8 = new TextEncoder();
  // fatal: refuse invalid UTF-8 rather than hide it; ignoreBOM: keep a BOM, so text and bytes agree.
  const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const numberFormat = new Intl.NumberFormat("en");

  let busy = false;
  let renderGeneration = 0; // a newer render wins over an older one still computing digests
  let savedCases = []; // the cases of the driver result opened last, in memory only
  let listedCollections = []; // the collections GET /corpus listed last, with their versions

  // ---------------------------------------------------------------- small DOM helpers

  // Create an element; props may hold className, text and plain attributes; children are
  // nodes or strings (strings become text nodes, never markup).
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null) continue;
      if (key === "className") node.className = value;
      else if (key === "text") node.textContent = String(value);
      else node.setAttribute(key, String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function clear(node) {
    node.replaceChildren();
  }

  function announce(message) {
    byId("live").textContent = message;
  }

  function words(code) {
    return String(code).replace(/_/g, " ");
  }

  function formatNumber(value) {
    return typeof value === "number" ? numberFormat.format(value) : String(value);
  }

  function isObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  // ---------------------------------------------------------------- digests

  async function sha256Hex(bytes) {
    const digest = await crypto.subtle.digest("SHA-256", bytes);
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function webCryptoAvailable() {
    // crypto.subtle exists only in a secure context (https, or http on loopback).
    return typeof crypto !== "undefined" && crypto.subtle !== undefined;
  }

  // Compare the SHA-256 of the exact bytes with the header the service sent beside them.
  async function bodyIntegrity(bytes, headerDigest) {
    if (!webCryptoAvailable()) {
      return { state: "unavailable", text: "Integrity unavailable: this page has no Web Crypto (not a secure context)." };
    }
    const computed = await sha256Hex(bytes);
    const size = `${formatNumber(bytes.length)} response bytes`;
    if (typeof headerDigest !== "string" || headerDigest === "") {
      return {
        state: "unavailable", computed,
        text: `Integrity unavailable: there is no ${DIGEST_HEADER} header to compare with. SHA-256 of the ${size}: ${computed}.`,
      };
    }
    if (computed === headerDigest.trim().toLowerCase()) {
      return {
        state: "verified", computed,
        text: `Integrity verified: SHA-256 of the ${size} equals the ${DIGEST_HEADER} header (${computed}).`,
      };
    }
    return {
      state: "mismatch", computed,
      text: `Integrity MISMATCH: SHA-256 of the ${size} is ${computed}, but the ${DIGEST_HEADER} header says ${headerDigest}.`,
    };
  }

  // Recompute the body's own result_sha256 from its text (no JSON re-serialization needed).
  async function selfDigest(text, parsed) {
    if (!isObject(parsed) || !("result_sha256" in parsed)) return null;
    const at = text.lastIndexOf(RESULT_MEMBER);
    const tail = at < 0 ? "" : text.slice(at + RESULT_MEMBER.length);
    if (!/^[0-9a-f]{64}"\}$/.test(tail)) {
      return { state: "mismatch", text: "result_sha256 MISMATCH: the body does not end with its result_sha256 member." };
    }
    const claimed = tail.slice(0, 64);
    if (!webCryptoAvailable()) {
      return { state: "unavailable", text: "result_sha256 not checked: this page has no Web Crypto." };
    }
    const computed = await sha256Hex(utf8.encode(RESPONSE_TAG + text.slice(0, at) + "}"));
    if (computed === claimed && parsed.result_sha256 === claimed) {
      return { state: "verified", text: `result_sha256 verified: the body agrees with its own digest (${claimed}).` };
    }
    return { state: "mismatch", text: `result_sha256 MISMATCH: the body claims ${claimed}, its bytes give ${computed}.` };
  }

  function showCheck(node, check) {
    node.hidden = check === null;
    if (check === null) return;
    node.dataset.state = check.state;
    node.className = `check check-${check.state}`;
    node.textContent = check.text;
    if (check.computed) node.dataset.computed = check.computed;
  }

  // ---------------------------------------------------------------- view state

  function resetView() {
    hideError();
    byId("response").hidden = true;
    byId("result").hidden = true;
    for (const id of ["status-badge", "status-reason", "request-id", "corpus-id", "echo-question",
      "echo-version", "echo-policy", "echo-model", "usage", "trace", "evidence", "raw-request",
      "raw-response", "raw-pretty", "http-status", "response-origin"]) {
      clear(byId(id));
    }
    const badge = byId("status-badge");
    delete badge.dataset.status;
    badge.className = "badge";
    showCheck(byId("integrity"), { state: "unavailable", text: "" });
    showCheck(byId("self-digest"), null);
  }

  function hideError() {
    const box = byId("error");
    clear(box);
    delete box.dataset.code;
    box.hidden = true;
  }

  // Show a readable error: a title, optional detail lines, and optional issue list items.
  function showError({ title, details = [], issues = [], code = null }) {
    const box = byId("error");
    clear(box);
    box.append(el("p", { className: "error-title", text: title }));
    for (const line of details) box.append(el("p", { text: line }));
    if (issues.length) {
      box.append(el("ul", { className: "issues" }, ...issues));
    }
    if (code) box.dataset.code = code;
    box.hidden = false;
  }

  function setBusy(value) {
    busy = value;
    const button = byId("submit");
    button.disabled = value;
    button.textContent = value ? "Retrieving…" : "Retrieve";
    byId("ask-form").setAttribute("aria-busy", String(value));
  }

  // ---------------------------------------------------------------- rendering a response

  // Render any response: live from fetch, or saved in a file. bytes are the exact body bytes.
  async function showResponse({ httpStatus, bytes, headerDigest, origin, requestText, headers }) {
    const generation = ++renderGeneration;
    let text = null;
    let parsed;
    let parseProblem = null;
    try {
      text = strictDecoder.decode(bytes);
      parsed = JSON.parse(text);
    } catch (error) {
      parseProblem = text === null ? "The body is not valid UTF-8." : "The body is not JSON.";
    }
    // Digests first (they are asynchronous), then render everything in one go.
    const integrity = await bodyIntegrity(bytes, headerDigest);
    const self = parseProblem ? null : await selfDigest(text, parsed);
    if (generation !== renderGeneration) return; // a newer response is being shown

    resetView();
    byId("response").hidden = false;
    byId("http-status").textContent = httpStatus === null ? "unknown (saved body)" : String(httpStatus);
    byId("response-origin").textContent = origin;
    showCheck(byId("integrity"), integrity);
    showCheck(byId("self-digest"), self);
    byId("raw-request").textContent = requestText || "(not sent from this page)";
    byId("raw-response").textContent = text !== null ? text : `(${bytes.length} bytes, not UTF-8)`;
    byId("raw-pretty").textContent = parseProblem ? "" : JSON.stringify(parsed, null, 2);

    if (parseProblem) {
      showNonJson(httpStatus, text, parseProblem);
    } else if (isObject(parsed) && isObject(parsed.error)) {
      showServiceError(httpStatus, parsed.error, headers);
    } else if (isObject(parsed) && typeof parsed.status === "string" && Array.isArray(parsed.trace)) {
      showResult(parsed);
    } else {
      showError({ title: "This JSON is neither a retrieval result nor a service error." });
      announce("Unrecognised response.");
    }
  }

  // A body that is not JSON: Waitress's own plain-text 413, a proxy's page, a truncated file.
  function showNonJson(httpStatus, text, problem) {
    const details = [problem];
    if (httpStatus === 413) details.unshift("The request body is over the server's size limit.");
    if (text) details.push(`It begins: ${text.slice(0, 200)}`);
    showError({ title: httpStatus ? `HTTP ${httpStatus}: not a response of the retrieval service.` : "Not a retrieval response.", details });
    announce(`Refused: HTTP ${httpStatus || "?"}.`);
  }

  function describeIssue(issue) {
    const path = Array.isArray(issue.path) ? issue.path.map(String).join(".") : "(no path)";
    const type = String(issue.type);
    // The service's own words (they name the bound or pattern broken), without the path shown
    // beside them; a saved body from before messages falls back to this page's words.
    const message = typeof issue.message === "string" ? issue.message : "";
    const meaning = message.startsWith(`${path} `) ? message.slice(path.length + 1)
      : message || ISSUE_WORDS[type] || words(type);
    return el("li", { className: "issue", "data-path": path, "data-type": type },
      el("code", { className: "issue-path", text: path }), ` ${meaning} `,
      el("span", { className: "issue-type", text: `(${type})` }));
  }

  function showServiceError(httpStatus, error, headers) {
    const code = typeof error.code === "string" ? error.code : "unknown";
    const details = [`HTTP ${httpStatus === null ? "?" : httpStatus} · ${code}`];
    // The service's message says what exactly was wrong (where invalid JSON breaks, the limit).
    if (typeof error.message === "string" && error.message) details.push(`The service says: ${error.message}.`);
    const retryAfter = headers ? headers.get("Retry-After") : null;
    if (retryAfter) details.push(`The service asks to retry after ${retryAfter} seconds.`);
    const issues = Array.isArray(error.issues) ? error.issues.filter(isObject).map(describeIssue) : [];
    const title = ERROR_WORDS[code] || `The service refused the request (${words(code)}).`;
    showError({ title, details, issues, code });
    announce(`Refused: HTTP ${httpStatus === null ? "?" : httpStatus}, ${words(code)}.`);
  }

  function showResult(body) {
    byId("result").hidden = false;
    const status = body.status;
    const reason = typeof body.reason === "string" ? body.reason : "";
    const badge = byId("status-badge");
    badge.textContent = status;
    badge.dataset.status = status;
    badge.className = `badge status-${status.replace(/[^a-z_]/g, "")}`;
    const reasonNode = byId("status-reason");
    reasonNode.append(el("code", { text: reason }), ` — ${outcomeWords(status, reason)}`);

    byId("request-id").textContent = String(body.request_id ?? "");
    byId("corpus-id").textContent = String(body.corpus_id ?? "");
    const request = isObject(body.request) ? body.request : {};
    // JSON quoting shows the question exactly as echoed, leading or trailing spaces included.
    byId("echo-question").textContent = JSON.stringify(request.question ?? null);
    byId("echo-version").textContent = String(request.version ?? "");
    byId("echo-policy").textContent = describePolicy(body.policy);
    byId("echo-model").textContent = String(body.model_called);

    renderUsage(body);
    renderTrace(Array.isArray(body.trace) ? body.trace : []);
    renderEvidence(Array.isArray(body.evidence) ? body.evidence : []);
    announce(`Result: ${status}${reason ? `, ${words(reason)}` : ""}.`);
  }

  function describePolicy(policy) {
    if (!isObject(policy)) return "(none)";
    const parts = [];
    if (policy.initial_query) parts.push(`first query ${JSON.stringify(policy.initial_query)}`);
    if (policy.refinement_query) parts.push(`refinement ${JSON.stringify(policy.refinement_query)}`);
    if (policy.required_marker) parts.push(`marker ${JSON.stringify(policy.required_marker)}`);
    if (policy.max_rounds !== undefined) parts.push(`at most ${policy.max_rounds} rounds`);
    return `${policy.name ?? "?"}${parts.length ? ` (${parts.join(", ")})` : ""}`;
  }

  // One labelled <meter> per allowance: what was used against what was allowed.
  function renderUsage(body) {
    const usage = isObject(body.usage) ? body.usage : {};
    const admission = isObject(body.admission) ? body.admission : {};
    const limits = isObject(admission.limits) ? admission.limits : (isObject(body.request) ? body.request : {});
    const container = byId("usage");
    for (const [field, counter, label] of ALLOWANCES) {
      const used = Number(usage[counter] ?? 0);
      const limit = Number(limits[field] ?? 0);
      const meterId = `meter-${field}`;
      const meter = el("meter", { id: meterId, min: 0, max: Math.max(limit, 1), value: Math.min(used, Math.max(limit, 1)) });
      let summary = `${formatNumber(used)} of ${formatNumber(limit)}`;
      if (field === "max_source_bytes" && usage.delivered_source_bytes !== undefined) {
        summary += ` reserved (${formatNumber(usage.delivered_source_bytes)} delivered)`;
      }
      const row = el("div", { className: "usage-row", "data-allowance": field },
        el("label", { for: meterId, className: "usage-label" }, `${label} `, el("code", { text: field })),
        meter,
        el("span", { className: "usage-text", text: summary }));
      if (body.status === "limited" && body.reason === field) {
        row.classList.add("exhausted");
        row.append(el("span", { className: "usage-flag", text: "denied the next action" }));
      }
      container.append(row);
    }
  }

  // ---------------------------------------------------------------- trace

  function renderTrace(trace) {
    const list = byId("trace");
    trace.forEach((entry, index) => list.append(traceRow(isObject(entry) ? entry : {}, index)));
    if (!trace.length) list.append(el("li", { className: "empty", text: "No action was attempted." }));
  }

  function traceRow(entry, index) {
    const action = isObject(entry.action) ? entry.action : {};
    const tool = String(action.tool ?? "?");
    const decision = String(entry.decision ?? "?");
    const denied = decision === "denied";
    const failed = entry.status === "failed";
    const row = el("li", {
      className: `trace-row${denied ? " denied" : ""}${failed ? " failed" : ""}`,
      "data-decision": decision, "data-tool": tool,
    });
    const head = el("div", { className: "row-head" },
      el("span", { className: "step", text: `#${index + 1}` }),
      el("span", { className: "tool", text: tool }),
      el("span", { className: `decision decision-${denied ? "denied" : "executed"}`, text: denied ? "DENIED" : decision }),
      el("span", { className: "outcome", text: outcomeText(entry, denied) }));
    row.append(head, argumentList(tool, isObject(action.arguments) ? action.arguments : {}));
    const summary = resultSummary(tool, entry);
    if (summary) row.append(el("p", { className: "row-result", text: summary }));
    row.append(el("p", { className: "row-usage", text: usageAfterText(entry, denied) }));
    row.append(el("details", { className: "row-json" },
      el("summary", { text: `Action #${index + 1} as JSON` }),
      el("pre", { text: JSON.stringify(entry, null, 2) })));
    return row;
  }

  function outcomeText(entry, denied) {
    if (denied) return `not run: denied by ${entry.reason ?? "an allowance"}`;
    if (entry.status === "failed") return `failed${entry.reason ? `: ${words(entry.reason)}` : ""}`;
    return String(entry.status ?? "");
  }

  // The arguments that say what the action asked for; a read names its handle's source and lines.
  function argumentList(tool, args) {
    const pairs = [];
    if (tool === "read" && isObject(args.handle)) {
      const handle = args.handle;
      pairs.push(["source_id", handle.source_id], ["version", handle.version],
        ["lines", lineRange(handle)], ["bytes", handle.byte_count]);
    } else {
      for (const key of ["query", "version", "k", "match"]) {
        if (args[key] !== undefined) pairs.push([key, key === "query" ? JSON.stringify(args[key]) : args[key]]);
      }
      // Arguments this page does not know yet are still shown, not dropped.
      for (const [key, value] of Object.entries(args)) {
        if (!["query", "version", "k", "match", "handle"].includes(key)) pairs.push([key, JSON.stringify(value)]);
      }
    }
    const list = el("dl", { className: "args" });
    for (const [key, value] of pairs) {
      if (value === undefined) continue;
      list.append(el("div", { className: "arg" }, el("dt", { text: key }), el("dd", { text: String(value) })));
    }
    return list;
  }

  function lineRange(item) {
    if (item.start_line === undefined) return undefined;
    return item.start_line === item.end_line ? `${item.start_line}` : `${item.start_line}–${item.end_line}`;
  }

  // What a unit is called: a built snapshot's title (an object or a section), unless it only
  // repeats the file's name, as a plain file's units and the fixture's untitled ones do.
  function unitName(item) {
    const title = typeof item.title === "string" && item.title !== "" ? item.title : null;
    return title !== null && title !== item.source_id ? title : null;
  }

  // A search hit by what it is: its name, the URL's anchor when it says more, and for a unit
  // named only by its file, its lines (six hits of one file must not read alike).
  function hitLabel(hit) {
    const name = unitName(hit);
    const parts = [name ?? String(hit.source_id)];
    const hash = typeof hit.url === "string" ? hit.url.indexOf("#") : -1;
    const anchor = hash >= 0 ? hit.url.slice(hash + 1) : "";
    if (anchor !== "" && anchor !== name) parts.push(`#${anchor}`);
    if (name === null) parts.push(`lines ${lineRange(hit)}`);
    return parts.join(" ");
  }

  function resultSummary(tool, entry) {
    const result = entry.result;
    if (entry.decision === "denied") {
      return entry.preflight_source_bytes !== undefined && entry.preflight_source_bytes !== null
        ? `Would have needed ${formatNumber(entry.preflight_source_bytes)} source bytes; nothing was reserved.` : "";
    }
    if (!isObject(result)) return "No result.";
    if (tool === "search" && Array.isArray(result.results)) {
      if (!result.results.length) return "0 results.";
      const hits = result.results.map((hit) => `${hitLabel(hit)} (rank ${hit.rank})`);
      return `${result.results.length} result${result.results.length === 1 ? "" : "s"}: ${hits.join(", ")}`;
    }
    if (tool === "read") {
      return `Read ${formatNumber(result.byte_count)} bytes of ${result.source_id}, lines ${lineRange(result)} (reserved ${formatNumber(entry.reserved_source_bytes)}).`;
    }
    return "";
  }

  function usageAfterText(entry, denied) {
    if (denied || !isObject(entry.usage_after)) return "Usage unchanged: the action was not charged.";
    const u = entry.usage_after;
    return `Usage after: steps ${u.steps} · searches ${u.searches} · reads ${u.reads} · source bytes ${formatNumber(u.reserved_source_bytes)}`;
  }

  // ---------------------------------------------------------------- evidence

  function renderEvidence(evidence) {
    const container = byId("evidence");
    if (!evidence.length) {
      container.append(el("p", { className: "empty", text: "No evidence was read." }));
      return;
    }
    evidence.forEach((item) => container.append(evidenceCard(isObject(item) ? item : {})));
  }

  function evidenceCard(item) {
    const card = el("article", { className: "evidence-card", "data-source-id": item.source_id });
    card.append(el("h4", { className: "card-title" },
      el("span", { className: "source-id", text: String(unitName(item) ?? item.source_id ?? "?") }),
      el("span", { className: "card-meta", text: ` · version ${item.version} · lines ${lineRange(item) ?? "?"} · ${formatNumber(item.byte_count)} bytes` })));
    card.append(el("blockquote", { className: "passage", text: String(item.text ?? "") }));
    card.append(sourceLink(item.url));
    const digests = el("dl", { className: "digests" });
    for (const key of ["passage_id", "text_sha256", "result_sha256"]) {
      digests.append(el("dt", { text: key }), el("dd", {}, el("code", { text: String(item[key] ?? "") })));
    }
    card.append(digests);
    return card;
  }

  // Only http(s) URLs become links: a saved file could carry any scheme.
  function sourceLink(url) {
    const text = String(url ?? "");
    let safe = false;
    try {
      safe = ["http:", "https:"].includes(new URL(text).protocol);
    } catch (error) {
      safe = false;
    }
    if (!safe) return el("p", { className: "source-url", text: text ? `Source: ${text}` : "No source URL." });
    return el("p", { className: "source-url" }, "Source: ",
      el("a", { href: text, target: "_blank", rel: "noopener noreferrer", text }));
  }

  // ---------------------------------------------------------------- the form

  function currentVersion() {
    const select = byId("version");
    if (!select.disabled && select.value !== OTHER_VERSION) return select.value;
    return byId("version-text").value;
  }

  // Read the form as the request body. Allowances go out as JSON integers; optional fields only
  // when filled. Nothing else is checked here: the service judges the request, the page shows it.
  function readForm() {
    const payload = { question: byId("question").value, version: currentVersion() };
    const problems = [];
    for (const [field] of ALLOWANCES) {
      const raw = byId(field).value.trim();
      const value = Number(raw);
      // A number input gives "" for text it cannot parse; a JSON integer cannot be made of that.
      if (!/^-?[0-9]+$/.test(raw) || !Number.isSafeInteger(value)) {
        problems.push(el("li", { className: "issue", "data-path": field },
          el("code", { className: "issue-path", text: field }), " must be a whole number to be sent as an integer"));
      } else {
        payload[field] = value;
      }
    }
    const collection = byId("collection").value;
    if (collection !== "") payload.collection = collection;
    else if (!byId("collection-select-field").hidden) payload.collection = byId("collection-choice").value;
    return { payload, problems };
  }

  async function onSubmit(event) {
    event.preventDefault();
    if (busy) return;
    const { payload, problems } = readForm();
    if (problems.length) {
      showError({ title: "Not sent: fix the allowances first.", issues: problems, code: "form" });
      announce("Not sent.");
      return;
    }
    const requestText = JSON.stringify(payload);
    const headers = { "Content-Type": "application/json" };
    const apiKey = byId("api-key").value; // read at send time, never stored
    if (apiKey !== "") headers.Authorization = `Bearer ${apiKey}`;
    setBusy(true);
    announce("Running the retrieval…");
    let response;
    let bytes;
    try {
      response = await fetch(apiUrl("retrieve"), {
        method: "POST", headers, body: requestText, cache: "no-store", credentials: "same-origin",
      });
      // The exact bytes: the digest header covers these, not a re-serialized copy.
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      renderGeneration++;
      resetView();
      showError({ title: "Could not reach the service.", details: [String(error.message || error)], code: "network" });
      announce("Could not reach the service.");
      return;
    } finally {
      setBusy(false);
    }
    await showResponse({
      httpStatus: response.status, bytes, headerDigest: response.headers.get(DIGEST_HEADER),
      origin: `· live: POST ${new URL(apiUrl("retrieve")).pathname}`, requestText, headers: response.headers,
    });
  }

  function resetAllowances() {
    for (const [field] of ALLOWANCES) {
      const input = byId(field);
      input.value = input.dataset.default;
    }
  }

  // ---------------------------------------------------------------- versions from /corpus

  async function loadVersions() {
    const summary = byId("corpus-summary");
    try {
      const headers = {};
      const apiKey = byId("api-key").value; // a key the operator has typed, if any
      if (apiKey !== "") headers.Authorization = `Bearer ${apiKey}`;
      const response = await fetch(apiUrl("corpus"), { cache: "no-store", headers });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const corpus = await response.json();
      // The collection first offered is the default one, else the first listed.
      const collections = Array.isArray(corpus.collections)
        ? corpus.collections.filter((c) => isObject(c) && typeof c.collection === "string"
          && Array.isArray(c.versions)) : [];
      const chosen = collections.find((c) => c.collection === corpus.default_collection)
        || collections[0];
      if (!chosen) throw new Error("no collections listed");
      listedCollections = collections;
      const select = byId("collection-choice");
      clear(select);
      for (const c of collections) select.append(el("option", { value: c.collection, text: c.collection }));
      select.value = chosen.collection;
      // One collection needs no choosing: the request names none, and the service serves it.
      byId("collection-select-field").hidden = collections.length < 2;
      showCollection(chosen);
    } catch (error) {
      // Without the list the typed field stays: any version can still be asked for.
      summary.textContent = `Could not list the corpus versions (${error.message || error}); type a version.`;
    }
  }

  // Offer one listed collection's versions, and say what is served.
  function showCollection(chosen) {
    const summary = byId("corpus-summary");
    const versions = chosen.versions.filter((v) => isObject(v) && typeof v.version === "string");
    if (!versions.length) {
      summary.textContent = `Collection ${chosen.collection} lists no versions; type a version.`;
      return;
    }
    fillVersions(versions);
    // The example question names what is served, never a question of one particular corpus.
    const which = listedCollections.length < 2 ? "" : `${chosen.collection} `;
    const listed = versions.map((v) => v.version).join(" or ");
    byId("question").placeholder = `A question about the ${which}documentation, version ${listed}`;
    const names = listedCollections.map((c) => c.collection).join(", ");
    summary.textContent = `Serving collection ${chosen.collection} (corpus ${chosen.corpus_id}) with ${versions.length} version${versions.length === 1 ? "" : "s"}; collections: ${names}.`;
  }

  function onCollectionChosen() {
    const chosen = listedCollections.find((c) => c.collection === byId("collection-choice").value);
    if (chosen) showCollection(chosen);
  }

  function fillVersions(versions) {
    const select = byId("version");
    clear(select);
    for (const v of versions) {
      select.append(el("option", { value: v.version, text: `${v.version} (${v.passages} passages, ${v.sources} sources)` }));
    }
    select.append(el("option", { value: OTHER_VERSION, text: "Another version (type it)…" }));
    select.disabled = false;
    byId("version-select-field").hidden = false;
    byId("version-text-label").textContent = "Other version";
    syncVersionFields();
  }

  // The typed field shows only when there is no list or "another version" is chosen.
  function syncVersionFields() {
    const select = byId("version");
    byId("version-text-field").hidden = !select.disabled && select.value !== OTHER_VERSION;
  }

  // ---------------------------------------------------------------- saved files (offline)

  async function onFileChosen() {
    const input = byId("file-input");
    const file = input.files && input.files[0];
    if (!file) return;
    const bytes = new Uint8Array(await file.arrayBuffer());
    let document_;
    try {
      document_ = JSON.parse(strictDecoder.decode(bytes));
    } catch (error) {
      hideCases();
      renderGeneration++;
      resetView();
      showError({ title: `${file.name} is not a JSON file.`, details: [String(error.message || error)], code: "file" });
      return;
    }
    if (isObject(document_) && Array.isArray(document_.cases)) {
      listCases(driverCases(document_), file.name);
    } else if (isCaseRecord(document_)) {
      listCases([document_], file.name);
    } else {
      // One saved response body: render the file's own bytes; no header was saved with it.
      hideCases();
      byId("file-summary").textContent = `${file.name}: one saved response body.`;
      await showResponse({ httpStatus: null, bytes, headerDigest: null, origin: `· saved body: ${file.name}` });
    }
  }

  function isCaseRecord(value) {
    return isObject(value) && typeof value.raw_response_text === "string";
  }

  // The driver's cases, then its trusted_fault case (run against the fault app).
  function driverCases(result) {
    const cases = result.cases.filter(isObject);
    if (isObject(result.trusted_fault)) cases.push(result.trusted_fault);
    return cases;
  }

  function listCases(cases, fileName) {
    savedCases = cases;
    const select = byId("case-select");
    clear(select);
    cases.forEach((item, index) => {
      const label = `${item.scenario ?? `case ${index + 1}`} — HTTP ${item.http_status ?? "?"}`;
      select.append(el("option", { value: String(index), text: label }));
    });
    byId("case-field").hidden = false;
    byId("file-summary").textContent = `${fileName}: ${cases.length} saved case${cases.length === 1 ? "" : "s"}. Pick one to inspect.`;
    if (cases.length) {
      select.value = "0";
      showCase(0, fileName);
    }
  }

  function hideCases() {
    savedCases = [];
    clear(byId("case-select"));
    byId("case-field").hidden = true;
  }

  function showCase(index, fileName) {
    const item = savedCases[index];
    if (!item) return;
    const name = item.scenario ?? `case ${index + 1}`;
    const origin = `· saved case ${name}${fileName ? ` from ${fileName}` : ""}`;
    const status = Number.isInteger(item.http_status) ? item.http_status : null;
    if (typeof item.raw_response_text === "string") {
      // The driver saved the body decoded as UTF-8; encoding it again gives the bytes it received.
      return showResponse({
        httpStatus: status, bytes: utf8.encode(item.raw_response_text),
        headerDigest: item.body_sha256_header ?? null, origin,
      });
    }
    // No raw text: only a parsed copy, whose bytes are not the ones the header covers.
    return showResponse({
      httpStatus: status, bytes: utf8.encode(JSON.stringify(item.response ?? null)),
      headerDigest: null, origin: `${origin} (parsed copy only: no raw bytes saved)`,
    });
  }

  // ---------------------------------------------------------------- start-up

  function start() {
    byId("ask-form").addEventListener("submit", onSubmit);
    byId("reset-allowances").addEventListener("click", resetAllowances);
    byId("version").addEventListener("change", syncVersionFields);
    byId("collection-choice").addEventListener("change", onCollectionChosen);
    byId("file-input").addEventListener("change", () => {
      onFileChosen().catch((error) => showError({ title: "Could not read the file.", details: [String(error)], code: "file" }));
    });
    byId("case-select").addEventListener("change", (event) => {
      const input = byId("file-input");
      const fileName = input.files && input.files[0] ? input.files[0].name : "";
      showCase(Number(event.target.value), fileName);
    });
    // With keys configured, /corpus needs one: list the versions again once a key is typed.
    byId("api-key").addEventListener("change", loadVersions);
    loadVersions();
  }

  start();
})();
