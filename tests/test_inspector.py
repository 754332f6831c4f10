"""The Retrieval Inspector (retrieval/static), driven in real headless Chromium.

Each test starts a real Waitress server (tests.support.start_server) and opens a fresh page in one
Chromium per class, driven over the DevTools protocol by tests/browser.py (stdlib only). Waits poll
the page's DOM against a deadline; nothing sleeps a fixed time. The browser tests are skipped only
when no Chromium binary exists (`apt-get install -y chromium`) outside CI; the static checks always
run.
"""

import hashlib
import json
import os
import re
import subprocess
import sys
import unittest
from html.parser import HTMLParser

import requests

import run_scenarios
from retrieval.http.auth import add_key
from retrieval.http.contract import BODY_DIGEST_HEADER
from retrieval.http.static import CONTENT_SECURITY_POLICY, STATIC_DIR
from retrieval.http.validation import COLLECTION_REGEX
from retrieval.scenarios import QUESTION
from retrieval.testing import subprocess_env
from tests import browser
from tests.support import WAIT_S, ask, start_server, temporary_directory

TIER = "browser"

CHROMIUM = browser.find_chromium()
NO_CHROMIUM = "no Chromium binary found: apt-get install -y chromium (or set CHROMIUM_BINARY)"

# One expression per thing a test reads back from the page.
READ_RESULT = """(() => {
  const q = (s) => document.querySelector(s);
  const all = (s) => Array.from(document.querySelectorAll(s));
  return {
    badge: q('#status-badge').textContent,
    badgeStatus: q('#status-badge').dataset.status || null,
    reason: q('#status-reason').textContent,
    rows: all('#trace li.trace-row').length,
    deniedRows: all('#trace li.trace-row.denied').map((row) => Array.from(
      row.parentNode.children).indexOf(row)),
    deniedText: all('#trace li.trace-row.denied').map((row) => row.textContent),
    failedRows: all('#trace li.trace-row.failed').length,
    cards: all('#evidence .evidence-card').map((card) => card.dataset.sourceId),
    links: all('#evidence .evidence-card a').map((a) => [a.href, a.target, a.rel]),
    integrity: q('#integrity').dataset.state,
    integrityText: q('#integrity').textContent,
    selfDigest: q('#self-digest').hidden ? null : q('#self-digest').dataset.state,
    requestId: q('#request-id').textContent,
    corpusId: q('#corpus-id').textContent,
    httpStatus: q('#http-status').textContent,
    resultShown: !q('#result').hidden,
    error: q('#error').hidden ? null : q('#error').textContent,
    errorCode: q('#error').dataset.code || null,
    meters: all('#usage meter').map((m) => [m.id, m.value, m.max]),
    live: q('#live').textContent,
    rawResponse: q('#raw-response').textContent,
  };
})()"""

BADGE_SHOWN = "document.querySelector('#status-badge').textContent !== ''"
ERROR_SHOWN = "!document.querySelector('#error').hidden"


class StaticFilesTest(unittest.TestCase):
    """What the CSP demands of the files themselves, checked without a browser."""

    def test_no_inline_script_style_or_handlers(self):
        html = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
        audit = _InlineAudit()
        audit.feed(html)
        self.assertEqual(audit.problems, [])
        # Relative: under a mount point (/rag/) the page loads /rag/inspector.js, not the root's.
        self.assertEqual(audit.scripts, ["inspector.js"])
        self.assertEqual(audit.stylesheets, ["inspector.css"])

    def test_api_urls_are_relative_to_the_page(self):
        script = (STATIC_DIR / "inspector.js").read_text(encoding="utf-8")
        self.assertEqual(re.findall(r"""fetch\(\s*["'`]/""", script), [])
        self.assertIn('apiUrl("retrieve")', script)
        self.assertIn('apiUrl("corpus")', script)

    def test_script_never_writes_markup(self):
        script = (STATIC_DIR / "inspector.js").read_text(encoding="utf-8")
        code = re.sub(r"^\s*//.*$", "", script, flags=re.M)  # comments may name what is avoided
        for forbidden in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write",
                          "eval(", "new Function", ".style.", "localStorage", "sessionStorage"):
            self.assertFalse(forbidden in code, f"inspector.js uses {forbidden}")

    def test_every_form_control_is_labelled(self):
        html = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
        audit = _InlineAudit()
        audit.feed(html)
        self.assertTrue(audit.controls)
        self.assertEqual(sorted(set(audit.controls) - set(audit.label_targets)), [])


class _InlineAudit(HTMLParser):
    """Collects what the page loads and anything the CSP would refuse to run or apply."""

    def __init__(self):
        super().__init__()
        self.problems, self.scripts, self.stylesheets = [], [], []
        self.controls, self.label_targets = [], []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "script":
            if not attributes.get("src"):
                self.problems.append("inline <script>")
            else:
                self.scripts.append(attributes["src"])
        if tag == "style":
            self.problems.append("<style> block")
        if tag == "link" and attributes.get("rel") == "stylesheet":
            self.stylesheets.append(attributes.get("href"))
        for name, value in attrs:
            if name == "style" or name.startswith("on"):
                self.problems.append(f"<{tag} {name}=...>")
            if name in ("src", "href") and value and re.match(r"(?i)\s*(https?:)?//", value):
                self.problems.append(f"external asset {value}")
        if tag in ("input", "select", "textarea") and attributes.get("type") != "hidden":
            self.controls.append(attributes.get("id"))
        if tag == "label" and attributes.get("for"):
            self.label_targets.append(attributes["for"])


# CI installs Chromium (.ci/run): there a missing browser is a failure, never a quiet skip.
@unittest.skipIf(CHROMIUM is None and not os.environ.get("CI"), NO_CHROMIUM)
class InspectorBrowserTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.browser = browser.Browser(CHROMIUM, timeout=WAIT_S).start()
        cls.addClassCleanup(cls.browser.close)

    def setUp(self):
        self.server = start_server(self)
        self.page = self.browser.new_page(width=1100, height=900)
        self.addCleanup(self.page.close)

    # ------------------------------------------------------------------ helpers

    def open_inspector(self):
        self.page.navigate(self.server.base_url + "/")
        self.page.wait_for("document.querySelector('#version option[value=\"3.12\"]') !== null",
                           "the version list from GET /corpus")

    def ask_through_the_form(self, question=QUESTION, **allowances):
        """Type the question (and any allowances) like a user, click Retrieve, await the reply."""
        self.page.type_text("#question", question)
        for name, value in allowances.items():
            self.page.type_text(f"#{name}", str(value))
        self.page.click("#submit")
        self.page.wait_for(f"({BADGE_SHOWN}) || ({ERROR_SHOWN})", "a result or an error")
        return self.page.evaluate(READ_RESULT)

    def open_optional_fields(self):
        self.page.click("details.optional > summary")
        self.page.wait_for("document.querySelector('details.optional').open", "optional fields")

    def assert_no_page_errors(self, ignore_network=False):
        self.assertEqual(self.page.errors(ignore_network=ignore_network), [])
        self.assertEqual(self.page.csp_violations(), [])

    def direct(self, payload):
        return requests.post(self.server.base_url + "/retrieve", json=payload, timeout=WAIT_S)

    # ------------------------------------------------------------------ tests

    def test_completed_run_matches_the_service(self):
        self.open_inspector()
        self.assertEqual(self.page.evaluate("document.querySelector('#version').value"), "3.12")
        shown = self.ask_through_the_form()
        direct = self.direct(ask())

        self.assertEqual(shown["badge"], "completed", shown["error"])
        self.assertEqual(shown["badgeStatus"], "completed")
        self.assertIn("configured_context_marker_found", shown["reason"])
        self.assertEqual(shown["rows"], 4)
        self.assertEqual(shown["deniedRows"], [])
        self.assertEqual(shown["cards"], ["path-read", "path-write"])
        self.assertEqual(shown["integrity"], "verified")
        self.assertEqual(shown["selfDigest"], "verified")
        self.assertEqual(shown["requestId"], direct.json()["request_id"])
        self.assertEqual(shown["corpusId"], direct.json()["corpus_id"])
        self.assertIn(direct.headers[BODY_DIGEST_HEADER], shown["integrityText"])
        # The raw view holds the exact bytes the service sends for the same request.
        self.assertEqual(shown["rawResponse"].encode("utf-8"), direct.content)
        self.assertEqual(shown["meters"], [["meter-max_steps", 4, 6], ["meter-max_searches", 2, 2],
                                           ["meter-max_reads", 2, 2],
                                           ["meter-max_source_bytes", 378, 4096]])
        self.assertEqual(len(shown["links"]), 2)
        for href, target, rel in shown["links"]:
            self.assertTrue(href.startswith("https://docs.python.org/3.12/"))
            self.assertEqual(target, "_blank")
            self.assertIn("noopener", rel.split())
        self.assertIn("completed", shown["live"])
        self.assert_no_page_errors()

    def test_request_is_exactly_what_the_form_says(self):
        self.open_inspector()
        self.open_optional_fields()
        self.page.type_text("#api-key", "secret-key")
        shown = self.ask_through_the_form(max_source_bytes=1000)
        self.assertEqual(shown["badge"], "completed", shown["error"])
        sent = self.page.requests_sent("/retrieve")
        self.assertEqual(len(sent), 1)
        self.assertEqual(json.loads(sent[0]["postData"]), ask(
            max_steps=6, max_searches=2, max_reads=2, max_source_bytes=1000))
        self.assertEqual(list(json.loads(sent[0]["postData"])), [
            "question", "version", "max_steps", "max_searches", "max_reads", "max_source_bytes"])
        self.assertEqual(sent[0]["headers"].get("Authorization"), "Bearer secret-key")
        self.assertEqual(sent[0]["headers"].get("Content-Type"), "application/json")
        # The key lives in the field only: nothing was stored.
        self.assertEqual(self.page.evaluate("localStorage.length + sessionStorage.length"), 0)

    def test_a_typed_key_lists_the_versions_and_authorizes(self):
        keys_file = os.path.join(temporary_directory(self), "keys.json")
        secret = add_key(keys_file, "browser", ["default"])
        self.server = start_server(self, "--keys-file", keys_file)
        self.page.navigate(self.server.base_url + "/")
        self.page.wait_for("document.querySelector('#corpus-summary').textContent"
                           ".includes('HTTP 401')", "the refused version list")
        self.open_optional_fields()
        self.page.type_text("#api-key", secret)
        self.page.focus("#question")  # leaving the field commits it ("change")
        self.page.wait_for("document.querySelector('#version option[value=\"3.12\"]') !== null",
                           "the version list, fetched with the key")
        shown = self.ask_through_the_form()
        self.assertEqual(shown["badge"], "completed", shown["error"])
        self.assertEqual(shown["integrity"], "verified")
        # The browser logs the first, refused /corpus as a failed load; nothing else.
        self.assert_no_page_errors(ignore_network=True)

    def test_max_steps_one_is_limited_with_a_denied_row(self):
        self.open_inspector()
        shown = self.ask_through_the_form(max_steps=1)
        self.assertEqual(shown["badge"], "limited", shown["error"])
        self.assertIn("max_steps", shown["reason"])
        self.assertEqual(shown["rows"], 2)
        self.assertEqual(shown["deniedRows"], [1])
        self.assertIn("DENIED", shown["deniedText"][0])
        self.assertIn("max_steps", shown["deniedText"][0])
        self.assertEqual(shown["integrity"], "verified")
        self.assertEqual(shown["requestId"], self.direct(ask(max_steps=1)).json()["request_id"])
        self.assert_no_page_errors()

    def test_refused_requests_are_explained(self):
        cases = [
            # (question, allowances, collection, field path shown, words shown, issue type)
            (QUESTION, {"max_steps": -1}, "", "body.max_steps", "must be at least 0",
             "greater_than_equal"),
            ("", {}, "", "body.question", "must not be blank", "string_too_short"),
            (QUESTION, {}, "Docs!", "body.collection", f"must match {COLLECTION_REGEX}",
             "string_pattern_mismatch"),
        ]
        for question, allowances, collection, path, words, issue_type in cases:
            with self.subTest(path=path):
                self.open_inspector()
                if collection:
                    self.open_optional_fields()
                    self.page.type_text("#collection", collection)
                shown = self.ask_through_the_form(question, **allowances)
                self.assertIsNotNone(shown["error"], shown)
                self.assertIn(path, shown["error"])
                self.assertIn(words, shown["error"])
                self.assertIn(issue_type, shown["error"])
                self.assertIn("422", shown["error"])
                self.assertEqual(shown["errorCode"], "invalid_request")
                self.assertFalse(shown["resultShown"])
                self.assertEqual(shown["badge"], "")
                # Refusals carry the digest header too: the page checks it.
                self.assertEqual(shown["integrity"], "verified")
                self.assertEqual(self.page.evaluate(
                    "document.querySelector('#error').getAttribute('role')"), "alert")
        # The browser logs each 4xx as a failed resource load; nothing else may be logged.
        self.assert_no_page_errors(ignore_network=True)

    def test_saved_driver_result_offline(self):
        result, problems = run_scenarios.run()
        self.assertEqual(problems, [])
        directory = temporary_directory(self)
        saved = os.path.join(directory, "result.json")
        with open(saved, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=2, ensure_ascii=False)

        self.open_inspector()
        self.page.set_offline(True)
        self.assertFalse(self.page.evaluate(
            "fetch('/corpus').then(() => true, () => false)"), "the page is still online")
        self.page.set_file_input("#file-input", [saved])
        self.page.wait_for(f"document.querySelectorAll('#case-select option').length === 10"
                           f" && {BADGE_SHOWN}", "the saved cases listed and the first shown")
        names = self.page.evaluate(
            "Array.from(document.querySelectorAll('#case-select option'), (o) => o.textContent)")
        self.assertEqual([name.split(" — ")[0] for name in names],
                         [case["scenario"] for case in result["cases"]]
                         + [result["trusted_fault"]["scenario"]])

        shown = self.page.evaluate(READ_RESULT)
        self.assertEqual(shown["badge"], "completed", shown["error"])
        self.assertEqual(shown["integrity"], "verified")
        self.assertEqual(shown["selfDigest"], "verified")
        self.assertEqual(shown["rows"], 4)
        self.assertEqual(len(shown["cards"]), 2)
        self.assertEqual(shown["requestId"], result["cases"][0]["response"]["request_id"])

        expectations = {
            "3": ("limited", "verified"),       # limited
            "9": ("failed", "verified"),        # trusted_controlled_tool_failure (HTTP 503)
        }
        for index, (status, integrity) in expectations.items():
            with self.subTest(case=index):
                self.page.choose("#case-select", index)
                self.page.wait_for(f"document.querySelector('#status-badge').textContent"
                                   f" === {json.dumps(status)}", f"case {index} shown")
                shown = self.page.evaluate(READ_RESULT)
                self.assertEqual(shown["integrity"], integrity)
        self.assertEqual(self.page.evaluate(READ_RESULT)["failedRows"], 1)
        self.assertEqual(self.page.evaluate(READ_RESULT)["httpStatus"], "503")

        self.page.choose("#case-select", "4")  # invalid_boolean_limit: a refusal, as saved
        self.page.wait_for(ERROR_SHOWN, "the saved refusal")
        shown = self.page.evaluate(READ_RESULT)
        self.assertIn("body.max_steps", shown["error"])
        self.assertIn("int_type", shown["error"])
        self.assertIn("must be an integer (6, not 6.0 or true)", shown["error"])
        self.assertEqual(shown["integrity"], "verified")
        refusals = {"6": ("invalid_json", "not strict JSON"),
                    "7": ("body_too_large", "over the service's size limit"),
                    "8": ("unsupported_media_type", "not sent as application/json")}
        for index, (code, words) in refusals.items():
            with self.subTest(case=code):
                self.page.choose("#case-select", index)
                self.page.wait_for(f"document.querySelector('#error').dataset.code === '{code}'",
                                   f"the saved {code} refusal")
                shown = self.page.evaluate(READ_RESULT)
                self.assertIn(words, shown["error"])
                self.assertEqual(shown["integrity"], "verified")
                self.assertFalse(shown["resultShown"])
        # Only the offline probe's refused fetch may be logged.
        self.assert_no_page_errors(ignore_network=True)

    def test_saved_files_edited_or_without_header(self):
        result, problems = run_scenarios.run()
        self.assertEqual(problems, [])
        directory = temporary_directory(self)
        completed = result["cases"][0]
        # A saved file edited after the fact: the header digest no longer matches the bytes.
        edited = json.loads(json.dumps(result))
        edited["cases"][0]["raw_response_text"] = completed["raw_response_text"].replace(
            "An existing file is overwritten.", "An existing file is kept.")
        edited_path = os.path.join(directory, "edited.json")
        with open(edited_path, "w", encoding="utf-8") as handle:
            json.dump(edited, handle)
        # One response body on its own: there is no header to compare with.
        body_path = os.path.join(directory, "body.json")
        body = completed["raw_response_text"].encode("utf-8")
        self.assertEqual(hashlib.sha256(body).hexdigest(), completed["body_sha256_header"])
        with open(body_path, "wb") as handle:
            handle.write(body)

        self.open_inspector()
        self.page.set_offline(True)
        self.page.set_file_input("#file-input", [edited_path])
        self.page.wait_for("document.querySelector('#integrity').dataset.state === 'mismatch'",
                           "the integrity mismatch")
        shown = self.page.evaluate(READ_RESULT)
        self.assertEqual(shown["selfDigest"], "mismatch")
        self.assertIn("MISMATCH", shown["integrityText"])

        self.page.set_file_input("#file-input", [body_path])
        self.page.wait_for("document.querySelector('#case-field').hidden"
                           " && document.querySelector('#integrity').dataset.state"
                           " === 'unavailable' && " + BADGE_SHOWN, "the single saved body")
        shown = self.page.evaluate(READ_RESULT)
        self.assertEqual(shown["badge"], "completed", shown["error"])
        self.assertEqual(shown["selfDigest"], "verified")
        self.assertEqual(len(shown["cards"]), 2)

        # Bodies of other refusals, and a file that is not JSON at all, read as words.
        others = [
            (b'{"error":{"code":"not_ready"},"admission":{"accepted":false}}', "not ready"),
            (b'{"error":{"code":"overloaded"},"admission":{"accepted":false}}', "busy"),
            (b'{"error":{"code":"unauthenticated"},"admission":{"accepted":false}}', "API key"),
            (b'{"error":{"code":"not_found"},"admission":{"accepted":false}}', "no such path"),
            (b'{"error":{"code":"method_not_allowed"},"admission":{"accepted":false}}',
             "does not accept that method"),
            (b"Request Entity Too Large", "is not a JSON file"),
        ]
        for number, (content, words) in enumerate(others):
            with self.subTest(words=words):
                path = os.path.join(directory, f"other-{number}.json")
                with open(path, "wb") as handle:
                    handle.write(content)
                self.page.set_file_input("#file-input", [path])
                self.page.wait_for(
                    "!document.querySelector('#error').hidden && document.querySelector"
                    f"('#error').textContent.includes({json.dumps(words)})",
                    f"the explanation {words!r}")
        self.assert_no_page_errors()

    def test_mounted_under_a_prefix(self):
        # The app behind a WSGI dispatcher at /rag (retrieval.testing.create_mounted_app): the
        # page, its assets and every API call must stay under /rag.
        self.server = start_server(self, "--app", "retrieval.testing:mounted_app",
                                   health_path="/rag/health")
        bare = requests.get(self.server.base_url + "/rag", allow_redirects=False,
                            timeout=WAIT_S)
        self.assertEqual((bare.status_code, bare.headers["Location"]), (308, "/rag/"))
        self.page.navigate(self.server.base_url + "/rag/")
        self.page.wait_for("document.querySelector('#version option[value=\"3.12\"]') !== null",
                           "the version list from GET /rag/corpus")
        self.assertEqual(self.page.evaluate("location.pathname"), "/rag/")
        # The stylesheet loaded and applies (an unstyled page would keep the UA's white body).
        self.assertEqual(self.page.evaluate(
            "Array.from(document.styleSheets, (s) => new URL(s.href).pathname)"),
            ["/rag/inspector.css"])
        self.assertTrue(self.page.evaluate("document.styleSheets[0].cssRules.length > 0"))
        shown = self.ask_through_the_form()
        self.assertEqual(shown["badge"], "completed", shown["error"])
        self.assertEqual(shown["integrity"], "verified")
        self.assertEqual(shown["selfDigest"], "verified")
        self.assertEqual(len(self.page.requests_sent("/rag/retrieve")), 1)
        direct = requests.post(self.server.base_url + "/rag/retrieve", json=ask(),
                               timeout=WAIT_S)
        self.assertEqual(shown["rawResponse"].encode("utf-8"), direct.content)
        self.assertIn("/rag/retrieve", self.page.evaluate(
            "document.querySelector('#response-origin').textContent"))
        self.assert_no_page_errors()

    def test_a_built_snapshots_collections_are_chosen_and_its_hits_named(self):
        root = temporary_directory(self)
        argv = []
        for label in ("python/3.11", "requests/2.28.1", "requests/2.28.2"):
            source = os.path.join(root, label.replace("/", "-"))
            os.makedirs(source)
            with open(os.path.join(source, "notes.md"), "w", encoding="utf-8") as handle:
                handle.write(f"# Sending\n\nSend a request ({label}).\n\n## Timeouts\n\n"
                             "A request with a timeout gives up.\n")
            argv += ["--source", f"{label}={source}",
                     "--base-url", f"{label}=https://docs.example.org/{label}/"]
        out = os.path.join(root, "snapshot")
        subprocess.run([sys.executable, "-m", "retrieval", "build", *argv, "--out", out],
                       check=True, capture_output=True, env=subprocess_env(), timeout=120)
        self.server = start_server(self, "--snapshot", out)
        self.page.navigate(self.server.base_url + "/")
        # No default collection: the first listed is offered, and the choice is the user's.
        self.page.wait_for("document.querySelector('#version option[value=\"3.11\"]') !== null",
                           "the first collection's versions")
        self.assertFalse(self.page.evaluate(
            "document.querySelector('#collection-select-field').hidden"))
        self.assertEqual(self.page.evaluate("Array.from(document.querySelectorAll("
                                            "'#collection-choice option'), (o) => o.value)"),
                         ["python", "requests"])
        self.page.choose("#collection-choice", "requests")
        self.page.wait_for("document.querySelector('#version option[value=\"2.28.2\"]') "
                           "!== null", "the versions of the chosen collection")
        self.page.choose("#version", "2.28.2")
        shown = self.ask_through_the_form("send a request with a timeout")
        self.assertEqual(shown["badge"], "completed", shown["error"])
        sent = json.loads(self.page.requests_sent("/retrieve")[0]["postData"])
        self.assertEqual((sent["collection"], sent["version"]), ("requests", "2.28.2"))
        trace = self.page.evaluate("document.querySelector('#trace').textContent")
        # Hits of one file told apart by their titles (each Markdown section's heading) and
        # anchors, not each named by the file.
        self.assertIn("Timeouts #timeouts (rank ", trace)
        self.assertIn("Sending #sending (rank ", trace)
        self.assertNotIn("notes.md (rank ", trace)
        self.assert_no_page_errors()

    def test_placeholder_and_status_words_come_from_what_was_served(self):
        self.open_inspector()
        placeholder = self.page.evaluate("document.querySelector('#question').placeholder")
        self.assertEqual(placeholder, "A question about the documentation, version 3.12")
        # The fixture's fallback (no rule matched) ends incomplete/no_refinement_rule: the words
        # must not claim a rule matched.
        shown = self.ask_through_the_form("How frequently does our cloud provider back up "
                                          "these files?")
        self.assertEqual(shown["badge"], "incomplete", shown["error"])
        self.assertIn("no_refinement_rule", shown["reason"])
        self.assertIn("had no refinement query", shown["reason"])
        self.assertNotIn("matched rule", shown["reason"])
        self.assert_no_page_errors()

    def test_refusals_show_the_services_message(self):
        self.open_inspector()
        shown = self.ask_through_the_form(max_steps=100)
        self.assertEqual(shown["errorCode"], "invalid_request")
        self.assertIn("must be at most 64", shown["error"])
        self.assertIn("The service says: the request is not valid", shown["error"])
        self.assert_no_page_errors(ignore_network=True)

    def test_another_version_typed_by_hand(self):
        self.open_inspector()
        self.assertTrue(self.page.evaluate("document.querySelector('#version-text-field').hidden"))
        self.page.choose("#version", "__other__")
        self.page.wait_for("!document.querySelector('#version-text-field').hidden",
                           "the typed version field")
        self.page.type_text("#version-text", "9.99")
        shown = self.ask_through_the_form()
        self.assertEqual(shown["badge"], "incomplete")
        self.assertIn("round_limit", shown["reason"])
        self.assertEqual(shown["cards"], [])
        self.assertEqual(shown["integrity"], "verified")
        self.assertEqual(shown["requestId"],
                         self.direct(ask(version="9.99")).json()["request_id"])
        self.assertIn("No evidence was read.", self.page.evaluate(
            "document.querySelector('#evidence').textContent"))
        self.assert_no_page_errors()

    def test_csp_headers_and_no_console_errors(self):
        for path in ("/", "/inspector.js", "/inspector.css"):
            with self.subTest(path=path):
                reply = requests.get(self.server.base_url + path, timeout=WAIT_S)
                self.assertEqual(reply.status_code, 200)
                self.assertEqual(reply.headers.get("Content-Security-Policy"),
                                 CONTENT_SECURITY_POLICY)
                self.assertIn("script-src 'self'", reply.headers["Content-Security-Policy"])
                self.assertNotIn("unsafe-inline", reply.headers["Content-Security-Policy"])
        self.open_inspector()
        self.assertEqual(self.ask_through_the_form()["badge"], "completed")
        self.assert_no_page_errors()
        # The detector works: an inline script injected now is refused and reported.
        self.page.evaluate("(() => { const s = document.createElement('script');"
                           " s.textContent = 'window.__inlineRan = true;';"
                           " document.body.append(s); })()")
        self.page.wait_for("window.__cspViolations.length > 0", "the CSP violation report")
        self.assertIsNone(self.page.evaluate("window.__inlineRan"))
        self.assertTrue(any("script-src" in v for v in self.page.csp_violations()))

    def test_keyboard_and_narrow_window(self):
        self.page.set_viewport(360, 800)
        self.open_inspector()
        self.page.type_text("#question", QUESTION)
        self.page.focus("#submit")
        self.page.press("Enter", key_code=13)  # a keyboard user submits with Enter
        self.page.wait_for(BADGE_SHOWN, "the status badge")
        self.assertEqual(self.page.evaluate(READ_RESULT)["badge"], "completed")
        # Nothing is wider than a 360px window: no sideways scrolling.
        self.assertLessEqual(self.page.evaluate("document.documentElement.scrollWidth"), 360)
        # Every control has an accessible label, and the status is announced politely.
        unlabelled = self.page.evaluate(
            "Array.from(document.querySelectorAll('input, select, textarea'))"
            ".filter((c) => c.labels.length === 0 && !c.getAttribute('aria-label'))"
            ".map((c) => c.id)")
        self.assertEqual(unlabelled, [])
        self.assertEqual(self.page.evaluate(
            "document.querySelector('#live').getAttribute('aria-live')"), "polite")
        self.assert_no_page_errors()


if __name__ == "__main__":
    unittest.main()
