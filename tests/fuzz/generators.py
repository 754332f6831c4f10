"""Case generators, one per kind; generate_case rebuilds any case from (seed, index, context)."""

import random

from .bodies import generate_body, valid_body
from .cases import Case, Context, Req, chunk_body, eol_join, http_request
from .service import APP_BODY_CAP, HEADER_LIMIT, SERVER_BODY_CAP


def gen_body(rng, ctx, case):
    """A mutated or generated body on an otherwise ordinary POST /retrieve."""
    body, labels = generate_body(rng)
    framing = rng.choices(("cl", "chunked", "chunked+cl", "http10"), (80, 12, 4, 4))[0]
    headers = []
    content_length = "auto"
    version = b"HTTP/1.1"
    if framing == "chunked":
        headers.append(b"Transfer-Encoding: chunked")
        content_length = None
        body = chunk_body(body, rng)
    elif framing == "chunked+cl":
        headers.append(b"Transfer-Encoding: chunked")
        content_length = rng.choice((b"%d" % len(body), b"3", b"99999"))
        body = chunk_body(body, rng)
    elif framing == "http10":
        version = b"HTTP/1.0"
    if rng.random() < 0.3:
        headers.append(b"Connection: close")
    case.kind = "body/" + framing + "/" + "+".join(labels)
    case.steps = [http_request(version=version, headers=headers, body=body,
                               content_length=content_length)]
    case.requests = [Req(b"POST", b"/retrieve")]


CONTENT_TYPES = (
    b"application/json", b"APPLICATION/JSON", b"Application/Json",
    b"application/json; charset=utf-8",
    b"application/json;charset=\"UTF-8\"", b"application/json; charset=utf8",
    b"application/json; charset=latin-1", b"application/json; charset=utf-16",
    b"application/json; charset=", b"application/json;charset", b"application/json; foo=bar",
    b"application/json ; charset=utf-8 ; x=y", b"text/json", b"application/jsonx", b"json",
    b"application/json, text/plain", b"application/*", b"*/*", b"", b"text/plain",
    b"application/ld+json", b"multipart/form-data; boundary=x",
    b"application/x-www-form-urlencoded", b"application/json\xff", b"application/json\x00",
    b"\tapplication/json", b"application/json; charset=utf-8; charset=latin-1",
    b"application/json; charset=\"utf-8", b"application/" + b"j" * 5000,
)


def gen_media_type(rng, ctx, case):
    body = valid_body(rng)
    choice = rng.randrange(10)
    content_type = rng.choice(CONTENT_TYPES)
    headers = []
    if choice == 0:  # no Content-Type at all
        content_type = None
    elif choice == 1:  # two Content-Type headers
        headers.append(b"Content-Type: " + rng.choice(CONTENT_TYPES))
    elif choice == 2:  # underscore spelling: Waitress drops it
        headers.append(b"Content_Type: application/json")
        content_type = None
    case.kind = f"media/{choice}"
    case.steps = [http_request(content_type=content_type, headers=headers, body=body)]
    case.requests = [Req(b"POST", b"/retrieve")]


def gen_framing(rng, ctx, case):
    """Content-Length and Transfer-Encoding anomalies."""
    body = valid_body(rng) if rng.random() < 0.7 else generate_body(rng)[0]
    n = len(body)
    variant = rng.randrange(20)
    version = b"HTTP/1.1"
    headers = []
    content_length = "auto"
    send = body
    expect = True
    if variant == 0:  # no Content-Length: the body becomes the next request (junk)
        content_length = None
    elif variant == 1:  # Content-Length that is not a decimal number
        content_length = rng.choice((b"abc", b"-1", b"+%d" % n, b"%d.0" % n, b"0x10", b"1e3",
                                     b"", b" ", "\u0665".encode(), b"%d %d" % (n, n),
                                     b"%d,%d" % (n, n), b"-0", b"\xff"))
    elif variant == 2:  # duplicated Content-Length, same or different values
        headers.append(b"Content-Length: %d" % rng.choice((n, n + 1, max(0, n - 1), 0)))
    elif variant == 3:  # declared longer than sent: the server waits; EOF ends it
        content_length = b"%d" % (n + rng.randint(1, 100))
        expect = False
    elif variant == 4:  # declared shorter than sent: the rest is a junk next request
        content_length = b"%d" % rng.randrange(max(1, n))
    elif variant == 5:  # huge declared length, no body: Waitress's own 413
        content_length = rng.choice((b"99999999999999999999", b"%d" % SERVER_BODY_CAP,
                                     b"1" + b"0" * 40))
        send = b""
    elif variant == 6:  # over the app cap, under Waitress's
        send = body + b" " * (APP_BODY_CAP + 1 - n + rng.choice((0, 0, 100)))
    elif variant == 7:  # leading zeros / whitespace around the number
        content_length = rng.choice((b"000%d" % n, b" %d" % n, b"%d " % n, b"\t%d" % n))
    elif variant in (8, 9):  # both Transfer-Encoding and Content-Length
        content_length = None
        te = b"Transfer-Encoding: " + rng.choice((b"chunked", b"Chunked", b"CHUNKED"))
        cl = b"Content-Length: " + rng.choice((b"%d" % n, b"3", b"abc", b"-1", b"99999"))
        headers.extend([te, cl] if variant == 8 else [cl, te])
        send = chunk_body(body, rng)
    elif variant == 10:  # odd Transfer-Encoding values
        content_length = None
        te = rng.choice((b"chunked, chunked", b"gzip, chunked", b"chunked, gzip", b"identity",
                         b"gzip", b"", b" chunked", b"chunked;q=1", b"xchunked", b"chunked\t",
                         b"deflate", b"compress, chunked"))
        headers.append(b"Transfer-Encoding: " + te)
        send = chunk_body(body, rng)
        expect = te.strip(b" \t").lower() not in (b"",)
    elif variant == 11:  # two Transfer-Encoding headers
        content_length = None
        headers += [b"Transfer-Encoding: chunked", b"Transfer-Encoding: " +
                    rng.choice((b"chunked", b"gzip"))]
        send = chunk_body(body, rng)
    elif variant == 12:  # bad chunk sizes and terminators
        content_length = None
        headers.append(b"Transfer-Encoding: chunked")
        bad = rng.randrange(12)
        piece = body[:5] if len(body) >= 5 else body.ljust(5)
        send = (
            b"zz\r\n" + piece + b"\r\n0\r\n\r\n",
            b"-5\r\n" + piece + b"\r\n0\r\n\r\n",
            b"0x5\r\n" + piece + b"\r\n0\r\n\r\n",
            b"5 \r\n" + piece + b"\r\n0\r\n\r\n",
            b"5;ext=1\r\n" + piece + b"\r\n0\r\n\r\n",
            b"5;\r\n" + piece + b"\r\n0\r\n\r\n",
            b"ffffffffffffffffffffffff\r\n" + piece + b"\r\n",
            b"\r\n" + piece + b"\r\n0\r\n\r\n",
            b"3\r\n" + piece + b"\r\n0\r\n\r\n",  # data longer than the size
            b"5\r\n" + piece,  # no terminating chunk: the server waits
            b"0005\r\n" + piece + b"\r\n0\r\nX-Trailer: 1\r\n\r\n",
            b"5\n" + piece + b"\n0\n\n",
        )[bad]
        expect = bad not in (6, 7, 9, 11)
        variant = f"12.{bad}"
    elif variant == 13:  # chunked under HTTP/1.0 (Waitress ignores TE there)
        version = b"HTTP/1.0"
        content_length = None
        headers.append(b"Transfer-Encoding: chunked")
        send = chunk_body(body, rng)
    elif variant == 14:  # Expect: 100-continue, with and without a body
        headers.append(b"Expect: 100-continue")
        if rng.random() < 0.3:
            send = b""
            content_length = rng.choice((b"0", None))
    elif variant == 15:  # Content-Length of zero with a body following
        content_length = b"0"
    elif variant == 16:  # chunked total exactly at and over the app cap
        content_length = None
        headers.append(b"Transfer-Encoding: chunked")
        size = rng.choice((APP_BODY_CAP, APP_BODY_CAP + 1, 10000))
        send = chunk_body(body + b" " * max(0, size - n), rng)
    elif variant == 17:  # a body at and just under Waitress's own cap (rare, 64 KiB)
        size = rng.choice((SERVER_BODY_CAP - 1, SERVER_BODY_CAP))
        send = body + b" " * (size - n)
        if rng.random() < 0.5:
            content_length = None
            headers.append(b"Transfer-Encoding: chunked")
            send = chunk_body(send, rng)
    elif variant == 18:  # GET with a body
        target = rng.choice((b"/health", b"/corpus"))
        case.kind = "framing/get_body"
        case.steps = [http_request(b"GET", target, body=body)]
        case.requests = [Req(b"GET", target)]
        return
    else:  # HTTP/1.0 keep-alive with a body
        version = b"HTTP/1.0"
        headers.append(b"Connection: keep-alive")
    case.kind = f"framing/{variant}"
    case.steps = [http_request(version=version, headers=headers, body=send,
                               content_length=content_length)]
    case.requests = [Req(b"POST", b"/retrieve")]
    case.expect_response = expect


def gen_headers(rng, ctx, case):
    """Header syntax and size anomalies on an otherwise valid request."""
    body = valid_body(rng)
    variant = rng.randrange(14)
    headers = []
    eol = b"\r\n"
    expect = True
    method, target = b"POST", b"/retrieve"
    if rng.random() < 0.3:
        method, target, body = b"GET", b"/health", b""
    if variant == 0:
        headers.append(rng.choice((b"Content-Type : application/json", b"NoColonHere",
                                   b": empty-name", b"X Y: z", b"X-\x00: 1", b"X-\xff: 1",
                                   b"(x): 1", b"X-A:: b")))
    elif variant == 1:  # obs-fold continuation
        headers += [b"X-Folded: a", rng.choice((b" b", b"\tb", b"  "))]
    elif variant == 2:  # odd values
        headers.append(b"X-Odd: " + rng.choice((b"\x00", b"\x7f", b"\xff\xfe", b"a\x01b",
                                               "é".encode(), b"\x1b[31m")))
    elif variant == 3:  # bare CR or LF inside a line
        headers.append(rng.choice((b"X-A: a\rb", b"X-A: a\nb", b"X-A: a\r")))
    elif variant == 4:  # LF-only line ends: no CRLFCRLF ever arrives
        eol = b"\n"
        expect = False
    elif variant == 5:  # many small headers
        headers += [b"X-H%d: v" % i for i in range(rng.choice((100, 1000, 3000)))]
    elif variant == 6:  # one big header within Waitress's limit
        headers.append(b"X-Pad: " + b"p" * rng.choice((8000, 65536, 200000)))
    elif variant == 7:  # beyond Waitress's header limit (rare: few and slow)
        if rng.random() < 0.08:
            headers.append(b"X-Pad: " + b"p" * (HEADER_LIMIT + rng.choice((0, 1000, 40000))))
            expect = False  # Waitress answers 431 mid-upload and may reset the connection
        else:
            headers.append(b"X-Pad: " + b"p" * (HEADER_LIMIT - 2000))
    elif variant == 8:  # Host anomalies
        headers.append(rng.choice((b"Host: other", b"Host: ", b"Host: a b", b"Host: \xff")))
    elif variant == 9:
        headers.append(b"Connection: " + rng.choice((b"close", b"keep-alive", b"Upgrade",
                                                    b"close, keep-alive", b"", b"\xff")))
    elif variant == 10:  # blank lines before the request line (allowed by RFC 9112)
        case.kind = "headers/leading_crlf"
        case.steps = [b"\r\n\r\n" + http_request(method, target, body=body)]
        case.requests = [Req(method, target)]
        return
    elif variant == 11:  # underscore header names collide with dash names after mapping
        headers += [b"Content_Length: 1", b"X_Retrieval_Body_SHA256: x"]
    elif variant == 12:  # hop-by-hop and forwarding headers
        headers += [b"X-Forwarded-For: 1.2.3.4", b"Forwarded: for=x", b"X-Forwarded-Proto: https",
                    b"Upgrade: h2c", b"HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA"]
    else:  # a header line of only whitespace
        headers.append(rng.choice((b" ", b"\t")))
    case.kind = f"headers/{variant}"
    case.steps = [http_request(method, target, headers=headers, body=body, eol=eol)]
    case.requests = [Req(method, target)]
    case.expect_response = expect


METHODS = (b"GET", b"GET", b"HEAD", b"POST", b"POST", b"PUT", b"DELETE", b"PATCH", b"OPTIONS",
           b"TRACE", b"CONNECT", b"get", b"post", b"Get", b"FOO", b"M-SEARCH", b"PROPFIND",
           b"G" * 1000, b"GET\x00", b"\xff", b"BREW", b"*", b"PRI")
ROUTES = (b"/retrieve", b"/health", b"/corpus", b"/openapi.json", b"/", b"/inspector.js",
          b"/inspector.css", b"/metrics")
ODD_PATHS = (
    b"/retrieve/", b"//retrieve", b"/retrieve?x=1", b"/retrieve?", b"/retrieve?question=x",
    b"/retrieve#frag", b"/retrieve?#", b"/RETRIEVE", b"/Retrieve", b"/%72etrieve", b"/%2e%2e/",
    b"/%2e%2e/retrieve", b"/../retrieve", b"/./retrieve", b"/retrieve/..", b"/retrieve%00",
    b"/retrieve%2f", b"/%00", b"/%ff%fe", b"/%", b"/%zz", b"/%u0041", b"/passages/", b"/passages",
    b"/passages//", b"/passages/../health", b"/passages/%2e%2e", b"/health/", b"/health?x=1",
    b"/health%20", b"/corpus?", b"/openapi.json/", b"/index.html", b"*", b"http://fuzz/retrieve",
    b"http://fuzz:80/health", b"https://fuzz/health", b"http://[::1]/health", b"health",
    b"retrieve", b"/retrieve;x=1", "/é".encode(), b"/\xff\xfe", "/путь".encode(),
    b"/retrieve\x7f",
    b"/\x00", b"/%20", b"/~", b"/inspector.js?v=1", b"/%69nspector.css", b"//", b"///health",
    b"/\\health", b"/health\\", b"/passages/%41", b"/passages/\xff",
)
VERSIONS_LINE = (b"HTTP/1.1", b"HTTP/1.1", b"HTTP/1.0", b"HTTP/0.9", b"HTTP/2.0", b"HTTP/1.2",
                 b"HTTP/9.9", b"http/1.1", b"HTTP/11", b"", b"HTTP/1.1 extra", b"HTTPS/1.1",
                 b"HTTP/1.1 ")


def _odd_target(rng, ctx) -> bytes:
    choice = rng.randrange(10)
    if choice < 3:
        return rng.choice(ROUTES)
    if choice < 6:
        return rng.choice(ODD_PATHS)
    if choice < 8:  # /passages/<something>
        valid = rng.choice(ctx.passage_ids) if ctx.passage_ids else "0" * 64
        junk = rng.choice((
            valid, valid.upper(), valid[:63], valid + "0", valid + "/", valid + "?x=1",
            valid + "%0a", "%" + "%".join(valid[i:i + 2] for i in range(0, 64, 2)),
            "".join(rng.choice("0123456789abcdef") for _ in range(64)), "<script>", "日本",
            "a" * 5000, "..", "%2e%2e%2fhealth", valid + "\n"))
        return b"/passages/" + junk.encode("utf-8")
    size = rng.choice((2000, 8000, 65536, 200000)) if rng.random() < 0.9 else HEADER_LIMIT + 10
    return b"/" + b"a" * size


def gen_request_line(rng, ctx, case):
    """Odd methods, paths and protocol versions."""
    method = rng.choice(METHODS)
    target = _odd_target(rng, ctx)
    version = rng.choice(VERSIONS_LINE)
    body = valid_body(rng) if method in (b"POST", b"PUT", b"PATCH") or rng.random() < 0.1 else b""
    separator = rng.choice((b" ", b" ", b" ", b"  ", b"\t"))
    head = method + separator + target + ((separator + version) if version else b"")
    lines = [head, b"Host: localhost", b"Content-Type: application/json"]
    if body:
        lines.append(b"Content-Length: %d" % len(body))
    if rng.random() < 0.2:
        lines.append(b"Connection: " + rng.choice((b"close", b"keep-alive")))
    case.kind = "line/" + method[:12].decode("latin-1") + "/" + version.decode("latin-1")
    case.steps = [eol_join(lines) + body]
    case.requests = [Req(method, target)]
    # Waitress closes on EOF without answering only an incomplete request; every one of these
    # is complete, except a header section that is over the limit (431, maybe reset).
    case.expect_response = len(target) < HEADER_LIMIT


def gen_conditional(rng, ctx, case):
    """If-None-Match on cacheable and uncacheable routes."""
    method = rng.choice((b"GET", b"GET", b"HEAD"))
    paths = [b"/corpus", b"/openapi.json", b"/health", b"/", b"/passages/" + b"0" * 64]
    paths += [b"/passages/" + pid.encode() for pid in ctx.passage_ids]
    target = rng.choice(paths)
    etag = ctx.etags.get(target.decode(), "\"" + "f" * 64 + "\"")
    value = rng.choice((
        etag, "W/" + etag, "*", "\"junk\", " + etag, etag.strip("\""), "junk", "",
        ", ".join([f"\"x{i}\"" for i in range(1000)] + [etag]), etag + ", *", etag.upper(),
        " " + etag + " ", "W/\"" + "0" * 64 + "\""))
    headers = [b"If-None-Match: " + value.encode()]
    if rng.random() < 0.2:
        headers.append(b"If-None-Match: " + etag.encode())
    case.kind = "conditional"
    case.steps = [http_request(method, target, headers=headers, content_type=None)]
    case.requests = [Req(method, target, conditional=True)]


def _simple_request(rng, ctx, keep_alive_header=False, version=b"HTTP/1.1"):
    """One well-framed request of a keep-alive sequence: (bytes, Req)."""
    headers = [b"Connection: keep-alive"] if keep_alive_header else []
    choice = rng.randrange(12)
    if choice < 3:
        body = valid_body(rng)
        if choice == 2:
            headers.append(b"Transfer-Encoding: chunked")
            return (http_request(version=version, headers=headers, body=chunk_body(body, rng),
                                 content_length=None), Req(b"POST", b"/retrieve"))
        return http_request(version=version, headers=headers, body=body), Req(b"POST", b"/retrieve")
    if choice == 3:
        body, _ = generate_body(rng)
        return http_request(version=version, headers=headers, body=body), Req(b"POST", b"/retrieve")
    if choice == 4:
        target = rng.choice((b"/health", b"/corpus", b"/openapi.json", b"/"))
        method = rng.choice((b"GET", b"HEAD"))
        return (http_request(method, target, version, headers=headers, content_type=None),
                Req(method, target))
    if choice == 5 and ctx.passage_ids:
        target = b"/passages/" + rng.choice(ctx.passage_ids).encode()
        return http_request(b"GET", target, version, headers=headers), Req(b"GET", target)
    if choice == 6:
        return (http_request(b"GET", b"/nope", version, headers=headers), Req(b"GET", b"/nope"))
    if choice == 7:
        method = rng.choice((b"DELETE", b"PUT", b"GET"))
        return (http_request(method, b"/retrieve", version, headers=headers),
                Req(method, b"/retrieve"))
    if choice == 8:
        return (http_request(version=version, headers=headers, body=valid_body(rng),
                             content_type=b"text/plain"), Req(b"POST", b"/retrieve"))
    if choice == 9:
        return (http_request(target=b"/retrieve?x=1", version=version, headers=headers,
                             body=valid_body(rng)), Req(b"POST", b"/retrieve?x=1"))
    if choice == 10:
        return (http_request(version=version, headers=headers, body=b" " * (APP_BODY_CAP + 1)),
                Req(b"POST", b"/retrieve"))
    target = b"/health"
    return (http_request(b"GET", target, version, headers=headers,
                         content_type=None), Req(b"GET", target))


def gen_keepalive(rng, ctx, case):
    """Several well-framed requests on one connection: pipelined, or one at a time."""
    count = rng.randint(2, 5)
    http10 = rng.random() < 0.2
    version = b"HTTP/1.0" if http10 else b"HTTP/1.1"
    pairs = [_simple_request(rng, ctx, keep_alive_header=http10, version=version)
             for _ in range(count)]
    case.mode = rng.choice(("close", "sequential"))
    case.kind = f"keepalive/{case.mode}/{version.decode()}/{count}"
    case.steps = [data for data, _ in pairs]
    if case.mode == "close":
        case.steps = [b"".join(case.steps)]
    case.requests = [req for _, req in pairs]


def gen_abort(rng, ctx, case):
    """Headers and part of the body, then the client goes away."""
    body = valid_body(rng) if rng.random() < 0.7 else generate_body(rng)[0]
    if rng.random() < 0.3:
        data = http_request(headers=[b"Transfer-Encoding: chunked"], content_length=None,
                            body=chunk_body(body, rng))
    else:
        data = http_request(body=body)
    head_end = data.find(b"\r\n\r\n") + 4
    where = rng.randrange(4)
    if where == 0:  # inside the headers
        cut = rng.randrange(1, head_end)
    elif where == 1:  # right after the headers
        cut = head_end
    else:  # half the body, or some other part of it
        body_len = len(data) - head_end
        cut = head_end + (body_len // 2 if where == 2 else rng.randrange(max(1, body_len)))
    case.mode = "abort"
    case.rst = rng.random() < 0.5
    case.kind = f"abort/{where}/{'rst' if case.rst else 'fin'}"
    case.steps = [data[:cut]]
    case.requests = [Req(b"POST", b"/retrieve")]
    case.expect_response = False


def gen_garbage(rng, ctx, case):
    """Random bytes where a request should be."""
    length = rng.choice((1, 10, 100, 1000))
    alphabet = rng.choice((bytes(range(256)), b"GET/ HTP1.\r\n:abc", b"\r\n", b"\x00"))
    junk = bytes(rng.choice(alphabet) for _ in range(length))
    case.kind = "garbage"
    case.steps = [junk + (b"\r\n\r\n" if rng.random() < 0.7 else b"")]
    case.requests = []
    case.expect_response = False


GENERATORS = (
    (gen_body, 40), (gen_media_type, 6), (gen_framing, 14), (gen_headers, 8),
    (gen_request_line, 14), (gen_conditional, 5), (gen_keepalive, 7), (gen_abort, 4),
    (gen_garbage, 2),
)
_GEN_FUNCS = [g for g, _ in GENERATORS]
_GEN_WEIGHTS = [w for _, w in GENERATORS]


def generate_case(seed: int, index: int, ctx: Context) -> Case:
    """Build case `index` of run `seed`; the same arguments always give the same bytes."""
    rng = random.Random(f"fuzz:{seed}:{index}")
    case = Case(seed=seed, index=index, kind="", steps=[], requests=[])
    rng.choices(_GEN_FUNCS, _GEN_WEIGHTS)[0](rng, ctx, case)
    return case
