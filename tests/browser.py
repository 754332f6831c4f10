"""A small, stdlib-only Chrome DevTools Protocol client for driving headless Chromium in tests.

Chromium runs with `--remote-debugging-pipe`: it reads protocol messages from its fd 3 and writes
them to its fd 4, each a JSON object terminated by a NUL byte. One reader thread splits the stream,
hands command responses to whoever waits for them (matched by id) and files events under the page
session they belong to (Target.attachToTarget with flatten=true gives each page a sessionId).

    with Browser() as browser:
        page = browser.new_page(width=1100, height=900)
        page.navigate("http://127.0.0.1:8765/")
        page.wait_for("document.querySelector('#version option') !== null", "versions listed")

Also runnable: `python -m tests.browser screenshot docs/inspector.png` starts a real server, runs
the README question through the Retrieval Inspector and saves a screenshot of the result.
"""

import argparse
import base64
import collections
import fcntl
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

# Looked up on PATH in this order; CHROMIUM_BINARY (a path or a name) overrides them.
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
DEFAULT_TIMEOUT = 30.0
CHROMIUM_FLAGS = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--no-default-browser-check", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-extensions",
    "--disable-dev-shm-usage", "--no-proxy-server", "--mute-audio", "--hide-scrollbars",
    "--remote-debugging-pipe",
)
# Console and log entries at these levels count as page errors.
ERROR_CONSOLE_TYPES = {"error", "assert"}


class BrowserError(Exception):
    """The browser could not start, died, or answered a command with an error."""


class WaitTimeout(AssertionError):
    """A condition awaited in the page did not hold before its deadline."""


def find_chromium():
    """Return the path of a Chromium binary, or None if there is none."""
    override = os.environ.get("CHROMIUM_BINARY")
    if override:
        return shutil.which(override)
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One headless Chromium process and its protocol pipe."""

    def __init__(self, binary=None, timeout=DEFAULT_TIMEOUT):
        self.binary = binary or find_chromium()
        self.timeout = timeout
        self.process = None
        self._profile = None
        self._stderr = None
        self._to_browser = None
        self._from_browser = None
        self._next_id = 0
        self._write_lock = threading.Lock()
        self._state = threading.Condition()
        self._responses = {}
        self._events = {}  # sessionId -> list of (method, params)
        self._closed_reason = None
        self._reader = None

    # ------------------------------------------------------------------ process

    def start(self):
        """Start Chromium on a fresh profile and wait until it answers the protocol."""
        if self.binary is None:
            raise BrowserError("no Chromium binary found (install chromium or set CHROMIUM_BINARY)")
        self._profile = tempfile.mkdtemp(prefix="inspector-chromium-")
        self._stderr = tempfile.TemporaryFile()
        to_browser_read, to_browser_write = os.pipe()
        from_browser_read, from_browser_write = os.pipe()
        # Move the child's ends above 3 and 4 first, so placing them on 3 and 4 cannot clobber
        # one with the other.
        child_read = _dup_high(to_browser_read)
        child_write = _dup_high(from_browser_write)
        os.close(to_browser_read)
        os.close(from_browser_write)

        def place_pipe_fds():
            # Runs in the child before exec: dup2 makes fds 3 and 4 inheritable by Chromium.
            os.dup2(child_read, 3)
            os.dup2(child_write, 4)

        command = [self.binary, *CHROMIUM_FLAGS, f"--user-data-dir={self._profile}", "about:blank"]
        try:
            # close_fds=False keeps the fds placed on 3 and 4; every other fd Python opens is
            # non-inheritable (PEP 446), so nothing else leaks into the browser.
            self.process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=self._stderr, close_fds=False, preexec_fn=place_pipe_fds,
                start_new_session=True)
        finally:
            os.close(child_read)
            os.close(child_write)
        self._to_browser = to_browser_write
        self._from_browser = from_browser_read
        self._reader = threading.Thread(target=self._read_loop, name="cdp-reader", daemon=True)
        self._reader.start()
        try:
            self.send("Browser.getVersion")
        except BrowserError as error:
            self.close()
            raise BrowserError(f"Chromium did not start: {error}") from None
        return self

    def close(self):
        """Ask Chromium to exit, wait for it, and remove the profile directory."""
        process = self.process
        if process is not None and process.poll() is None:
            try:
                self.send("Browser.close", timeout=5)
            except BrowserError:
                pass
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                # Its own process group (start_new_session): helpers go with it.
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
        for fd in (self._to_browser, self._from_browser):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._to_browser = self._from_browser = None
        if self._reader is not None:
            self._reader.join(timeout=5)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        if self._profile is not None:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.close()

    def stderr_tail(self, limit=2000) -> str:
        """Return the end of what Chromium wrote to stderr (for failure messages)."""
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")[-limit:]

    # ------------------------------------------------------------------ protocol

    def _read_loop(self):
        buffer = b""
        while True:
            try:
                chunk = os.read(self._from_browser, 65536)
            except (OSError, TypeError):
                chunk = b""
            if not chunk:
                break
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for raw in messages:
                self._dispatch(json.loads(raw))
        with self._state:
            self._closed_reason = "the browser closed its protocol pipe"
            self._state.notify_all()

    def _dispatch(self, message):
        with self._state:
            if "id" in message:
                self._responses[message["id"]] = message
            else:
                events = self._events.setdefault(message.get("sessionId"), [])
                events.append((message.get("method"), message.get("params", {})))
            self._state.notify_all()

    def send(self, method, params=None, session_id=None, timeout=None):
        """Send one command and return its result; raise BrowserError on an error or timeout."""
        with self._state:
            if self._closed_reason:
                raise BrowserError(f"{method}: {self._closed_reason}")
            self._next_id += 1
            message_id = self._next_id
        message = {"id": message_id, "method": method, "params": params or {}}
        if session_id is not None:
            message["sessionId"] = session_id
        data = json.dumps(message).encode("utf-8") + b"\0"
        with self._write_lock:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(self._to_browser, view):]
            except (OSError, TypeError) as error:
                raise BrowserError(f"{method}: cannot write to the browser: {error}") from None
        deadline = time.monotonic() + (timeout or self.timeout)
        with self._state:
            while message_id not in self._responses:
                remaining = deadline - time.monotonic()
                if self._closed_reason or remaining <= 0:
                    reason = self._closed_reason or f"no answer within {timeout or self.timeout}s"
                    raise BrowserError(f"{method}: {reason}; stderr: {self.stderr_tail(500)}")
                self._state.wait(remaining)
            response = self._responses.pop(message_id)
        if "error" in response:
            raise BrowserError(f"{method}: {response['error']}")
        return response.get("result", {})

    def events(self, session_id):
        """Return a copy of the events received so far for one session."""
        with self._state:
            return list(self._events.get(session_id, []))

    def wait_event(self, session_id, method, start=0, timeout=None):
        """Wait for an event of one session, at or after index start; return its params."""
        deadline = time.monotonic() + (timeout or self.timeout)
        with self._state:
            while True:
                events = self._events.get(session_id, [])
                for name, params in events[start:]:
                    if name == method:
                        return params
                start = len(events)
                remaining = deadline - time.monotonic()
                if self._closed_reason or remaining <= 0:
                    raise BrowserError(f"no {method} event: {self._closed_reason or 'timed out'}")
                self._state.wait(remaining)

    # ------------------------------------------------------------------ pages

    def new_page(self, width=1100, height=900):
        """Open a fresh page (its own target and session) with the given viewport."""
        target_id = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session_id = self.send("Target.attachToTarget",
                               {"targetId": target_id, "flatten": True})["sessionId"]
        page = Page(self, target_id, session_id)
        page.prepare(width, height)
        return page


class Page:
    """One attached page: navigation, evaluation, waiting, input, files and screenshots."""

    def __init__(self, browser, target_id, session_id):
        self.browser = browser
        self.target_id = target_id
        self.session_id = session_id

    def send(self, method, params=None, timeout=None):
        return self.browser.send(method, params, self.session_id, timeout)

    def prepare(self, width, height):
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.set_viewport(width, height)
        # Record CSP violations from the page's own point of view, before any page script runs.
        self.send("Page.addScriptToEvaluateOnNewDocument", {"source": (
            "window.__cspViolations = [];"
            "document.addEventListener('securitypolicyviolation', (e) => "
            "window.__cspViolations.push(e.violatedDirective + ' ' + (e.blockedURI || '')));")})

    def set_viewport(self, width, height):
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def close(self):
        try:
            self.browser.send("Target.closeTarget", {"targetId": self.target_id}, timeout=10)
        except BrowserError:
            pass  # the browser is gone already: nothing left to close

    # ------------------------------------------------------------------ reading the page

    def navigate(self, url, timeout=None):
        """Load url and wait until its document has finished loading."""
        # Wait for the load event of this navigation rather than polling the old document,
        # whose execution context the navigation destroys.
        start = len(self.browser.events(self.session_id))
        result = self.send("Page.navigate", {"url": url})
        if result.get("errorText"):
            raise BrowserError(f"navigating to {url}: {result['errorText']}")
        self.browser.wait_event(self.session_id, "Page.loadEventFired", start, timeout)
        self.wait_for(f"location.href === {json.dumps(url)} && document.readyState === 'complete'",
                      f"{url} loaded", timeout)

    def evaluate(self, expression, await_promise=True, timeout=None):
        """Evaluate a JavaScript expression in the page and return its value (JSON-able)."""
        result = self.send("Runtime.evaluate", {
            "expression": expression, "awaitPromise": await_promise, "returnByValue": True,
            "userGesture": True}, timeout)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            description = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"evaluating {expression[:80]!r}: {description}")
        return result.get("result", {}).get("value")

    def wait_for(self, predicate, description, timeout=None):
        """Poll a JavaScript expression in the page until it is truthy; return its value.

        The polling runs inside the page (one protocol call), bounded by a deadline; on timeout
        the error names what was awaited and shows the start of the page's text.
        """
        timeout = timeout or self.browser.timeout
        script = (
            "(async () => {"
            f" const deadline = performance.now() + {int(timeout * 1000)};"
            " for (;;) {"
            "  let value;"
            f"  try {{ value = ({predicate}); }} catch (error) {{ value = undefined; }}"
            "  if (value) return {ok: true, value};"
            "  if (performance.now() > deadline) return {ok: false,"
            "   text: document.body ? document.body.innerText.slice(0, 600) : ''};"
            "  await new Promise((resolve) => setTimeout(resolve, 20));"
            " }"
            "})()")
        outcome = self.evaluate(script, timeout=timeout + 10)
        if not outcome or not outcome.get("ok"):
            text = (outcome or {}).get("text", "")
            raise WaitTimeout(f"waited {timeout}s for {description}; the page shows: {text!r}")
        return outcome["value"]

    def errors(self, ignore_network=False):
        """Return the console errors, uncaught exceptions and error log entries seen so far.

        ignore_network=True leaves out the browser's "Failed to load resource" network entries
        (expected when a test provokes a 4xx on purpose).
        """
        found = []
        for method, params in self.browser.events(self.session_id):
            if method == "Runtime.consoleAPICalled" and params.get("type") in ERROR_CONSOLE_TYPES:
                found.append("console: " + " ".join(
                    str(arg.get("value", arg.get("description", "")))
                    for arg in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                found.append("exception: " + str(
                    details.get("exception", {}).get("description") or details.get("text")))
            elif method == "Log.entryAdded":
                entry = params.get("entry", {})
                if entry.get("level") == "error" and not (
                        ignore_network and entry.get("source") == "network"):
                    found.append(f"log ({entry.get('source')}): {entry.get('text')}")
        return found

    def csp_violations(self):
        """Return the securitypolicyviolation events the page saw."""
        return self.evaluate("window.__cspViolations || []")

    def requests_sent(self, url_suffix):
        """Return the requests (Network.requestWillBeSent) whose URL ends with url_suffix."""
        return [params["request"] for method, params in self.browser.events(self.session_id)
                if method == "Network.requestWillBeSent"
                and params["request"]["url"].endswith(url_suffix)]

    # ------------------------------------------------------------------ acting on the page

    def focus(self, selector):
        self.evaluate(f"(() => {{ const node = document.querySelector({json.dumps(selector)});"
                      " node.scrollIntoView({block: 'center'}); node.focus(); })()")

    def type_text(self, selector, text, replace=True):
        """Focus a field and type text into it as keyboard input (replacing what it held)."""
        if replace:
            self.evaluate(f"document.querySelector({json.dumps(selector)}).value = ''")
        self.focus(selector)
        self.send("Input.insertText", {"text": text})

    def press(self, key, code=None, key_code=None):
        """Press and release one key on the focused element (e.g. 'Enter')."""
        params = {"key": key, "code": code or key}
        if key_code is not None:
            params["windowsVirtualKeyCode"] = params["nativeVirtualKeyCode"] = key_code
        if key == "Enter":
            params["text"] = "\r"
        self.send("Input.dispatchKeyEvent", {"type": "keyDown", **params})
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", **{k: v for k, v in params.items()
                                                              if k != "text"}})

    def click(self, selector):
        """Click the middle of an element with real mouse events."""
        box = self.evaluate(
            f"(() => {{ const node = document.querySelector({json.dumps(selector)});"
            " node.scrollIntoView({block: 'center'}); const r = node.getBoundingClientRect();"
            " return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()")
        for event_type in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {
                "type": event_type, "x": box["x"], "y": box["y"], "button": "left",
                "clickCount": 1 if event_type != "mouseMoved" else 0})

    def choose(self, selector, value):
        """Pick an option of a <select> by value, firing the change event a user's pick fires."""
        self.evaluate(
            f"(() => {{ const node = document.querySelector({json.dumps(selector)});"
            f" node.value = {json.dumps(value)};"
            " node.dispatchEvent(new Event('input', {bubbles: true}));"
            " node.dispatchEvent(new Event('change', {bubbles: true})); })()")

    def set_file_input(self, selector, paths):
        """Set the files of an <input type=file> (fires its change event, as a user's pick does)."""
        root = self.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = self.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        if not node:
            raise BrowserError(f"no element matches {selector!r}")
        self.send("DOM.setFileInputFiles",
                  {"nodeId": node, "files": [os.path.abspath(path) for path in paths]})

    def set_offline(self, offline=True):
        """Cut (or restore) the page's network, loopback included."""
        self.send("Network.emulateNetworkConditions", {
            "offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})

    def screenshot(self, path, full_page=True):
        """Save a PNG of the viewport (or, with full_page, of the whole document) to path."""
        params = {"format": "png"}
        if full_page:
            size = self.evaluate("({width: document.documentElement.scrollWidth,"
                                 " height: document.documentElement.scrollHeight})")
            params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": size["height"],
                              "scale": 1}
            params["captureBeyondViewport"] = True
        data = base64.b64decode(self.send("Page.captureScreenshot", params)["data"])
        with open(path, "wb") as handle:
            handle.write(data)
        return len(data)


def _dup_high(fd, lowest=10):
    """Return a close-on-exec duplicate of fd numbered at least `lowest`."""
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, lowest)


# ---------------------------------------------------------------------- smaller PNGs

def shrink_png(data: bytes, colors=256) -> bytes:
    """Re-encode an 8-bit RGB(A) PNG as a palette PNG of at most `colors` colours.

    A screenshot of this page holds a few thousand colours, nearly all anti-aliasing shades of a
    handful; the most frequent `colors` kept and every other mapped to its nearest one look the
    same and take about a third of the bytes. Stdlib only (zlib), so docs/ needs no image tool.
    """
    width, height, channels, rows = _read_png_rows(data)
    pixels = [[row[i:i + 3] for i in range(0, len(row), channels)] for row in rows]
    counts = collections.Counter()
    for row in pixels:
        counts.update(row)
    palette = [color for color, _ in counts.most_common(colors)]
    index = {color: i for i, color in enumerate(palette)}
    for color in counts:
        if color not in index:
            index[color] = min(range(len(palette)), key=lambda i: sum(
                (a - b) ** 2 for a, b in zip(color, palette[i], strict=True)))
    raw = b"".join(b"\0" + bytes(index[p] for p in row) for row in pixels)  # filter 0 rows
    return (b"\x89PNG\r\n\x1a\n"
            + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0))
            + _png_chunk(b"PLTE", b"".join(palette))
            + _png_chunk(b"IDAT", zlib.compress(raw, 9))
            + _png_chunk(b"IEND", b""))


def _png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _read_png_rows(data):
    """Return (width, height, channels, unfiltered rows) of a non-interlaced 8-bit RGB(A) PNG."""
    position, idat = 8, []
    while position < len(data):
        (length,) = struct.unpack(">I", data[position:position + 4])
        kind = data[position + 4:position + 8]
        body = data[position + 8:position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            width, height, depth, color_type, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color_type not in (2, 6) or interlace:
                raise ValueError("only non-interlaced 8-bit RGB or RGBA PNGs are handled")
            channels = 3 if color_type == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    previous, rows = bytes(stride), []
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:  # Sub
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 255
        elif kind == 2:  # Up
            line = bytearray((a + b) & 255 for a, b in zip(line, previous, strict=True))
        elif kind == 3:  # Average
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 255
        elif kind == 4:  # Paeth
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b = previous[i]
                c = previous[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


# ---------------------------------------------------------------------- screenshot script

def run_completed_query(page, base_url, question):
    """Load the Inspector, ask question with the default allowances, and wait for the badge."""
    page.navigate(base_url + "/")
    page.wait_for("document.querySelector('#version option[value=\"3.12\"]') !== null",
                  "the version list from /corpus")
    page.type_text("#question", question)
    page.click("#submit")
    page.wait_for("document.querySelector('#status-badge').textContent !== ''", "the status badge")


def screenshot_main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Screenshot the Retrieval Inspector after a run.")
    parser.add_argument("command", choices=["screenshot"])
    parser.add_argument("output", help="PNG file to write")
    parser.add_argument("--width", type=int, default=1100)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--viewport-only", action="store_true",
                        help="capture the viewport, not the whole page")
    parser.add_argument("--colors", type=int, default=256,
                        help="palette size of the saved PNG (0: keep Chromium's RGB PNG)")
    args = parser.parse_args(argv)

    from retrieval.scenarios import QUESTION
    from retrieval.testing import ServerProcess, subprocess_env

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with ServerProcess(env=subprocess_env(), cwd=root) as server, Browser() as browser:
        page = browser.new_page(args.width, args.height)
        run_completed_query(page, server.base_url, QUESTION)
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        size = page.screenshot(args.output, full_page=not args.viewport_only)
        errors = page.errors()
    if args.colors:
        with open(args.output, "rb") as handle:
            smaller = shrink_png(handle.read(), args.colors)
        with open(args.output, "wb") as handle:
            handle.write(smaller)
        size = len(smaller)
    print(f"saved {args.output} ({size} bytes)")
    for error in errors:
        print(f"page error: {error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(screenshot_main())
