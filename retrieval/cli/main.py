"""Command line: `python -m retrieval COMMAND`: serve, mcp, mcp-config, build, project, diff,
verify, check, seal, ask, keys, settings."""

import argparse
import contextlib
import json
import signal
import sys
import threading
from pathlib import Path

from .. import __version__
from ..core.errors import UserError
from ..core.snapshot import seal_snapshot
from ..core.strict_json import StrictJSONError, loads_strict
from ..settings import (
    SETTINGS,
    describe_settings,
    effective_config,
    load_settings,
    settings_table,
)
from .build import register_build_commands
from .diff import register_diff_command
from .keys import register_keys_command
from .mcp_config import register_mcp_config_command
from .project import register_project_command

DESCRIPTION = """\
Budgeted, verifiable documentation retrieval over HTTP. A caller POSTs a question, an exact
documentation version and allowances; a scripted policy runs search and read tools over a
pinned corpus and answers with the whole trace, the evidence read and its digests. No model is
called and no answer is generated."""

EXAMPLES = """\
examples:
  retrieval serve                          serve the embedded fixture on 127.0.0.1:8765
  retrieval ask "Will write_text replace the contents of an existing file?" --version 3.12
  retrieval build --source 3.11=/usr/share/doc/python3.11/html \\
      --base-url 3.11=https://docs.python.org/3.11/ --out ./py311
  retrieval serve --snapshot ./py311       serve the built directory
  retrieval COMMAND --help                 the flags of one command"""


def _serve(args) -> int:
    from ..http.factory import create_app
    from ..serve.exposure import refuse_open_exposure
    from ..serve.server import load_app_object, serve

    settings = load_settings(config_file=args.config, overrides={
        "host": args.host, "port": args.port, "threads": args.threads,
        "snapshot": args.snapshot, "expect_corpus_id": args.expect_corpus_id,
        "shutdown_grace_s": args.shutdown_grace_s, "drain_delay_s": args.drain_delay_s,
        "keys_file": args.keys_file, "max_in_flight": args.max_in_flight,
        "deadline_ms": args.deadline_ms,
        "allow_unauthenticated": True if args.allow_unauthenticated else None,
    })
    if args.print_config:
        print(effective_config(settings))
        return 0
    refuse_open_exposure(settings, inherited_fd=args.fd)
    app = load_app_object(args.app) if args.app else create_app(settings=settings)
    return serve(app, settings, inherited_fd=args.fd)


def _mcp(args) -> int:
    try:
        from ..mcp.run import run
    except ImportError as exc:
        raise UserError(f"retrieval mcp needs the mcp extra: pip install '.[mcp]' ({exc})") \
            from None
    return run(args)


def _check(args) -> int:
    from ..check import check_saved_result

    try:
        document = loads_strict(Path(args.result).read_bytes())
    except (OSError, StrictJSONError) as exc:
        print(f"{args.result}: cannot read saved result: {exc}", file=sys.stderr)
        return 1
    rejections = check_saved_result(document)
    for line in rejections:
        print(line)
    if rejections:
        print(f"rejected: {len(rejections)} problem(s)")
        return 1
    print("accepted")
    return 0


def _seal(args) -> int:
    document = loads_strict(Path(args.input).read_bytes())
    sealed = seal_snapshot(document)
    with open(args.output, "w", encoding="utf-8") as out:
        out.write(json.dumps(sealed, indent=2, ensure_ascii=False) + "\n")
    print(sealed["corpus_id"])
    return 0


def _ask(args) -> int:
    try:
        from ..client import (
            IntegrityError,
            RetrievalClient,
            RetrievalError,
            TransportError,
            describe_error,
            describe_failure,
            summarize,
        )
    except ImportError as exc:  # the client extra (requests) is not installed: its fix
        raise UserError(str(exc)) from None

    allowances = {"collection": args.collection,
                  "max_steps": args.max_steps, "max_searches": args.max_searches,
                  "max_reads": args.max_reads, "max_source_bytes": args.max_source_bytes,
                  "max_tokens": args.max_tokens}
    try:
        with RetrievalClient(args.url, api_key=args.api_key, timeout=args.timeout,
                             max_retries=args.retries) as client:
            result = client.retrieve(args.question, args.version, **allowances)
    except RetrievalError as error:
        if args.json:
            sys.stdout.buffer.write(error.raw)
            sys.stdout.buffer.flush()
        print(describe_error(error), file=sys.stderr)
        return 1
    except (TransportError, IntegrityError) as exc:
        kind = "integrity" if isinstance(exc, IntegrityError) else "connection"
        print(f"retrieval: {kind} failure: {exc}", file=sys.stderr)
        return 2
    if args.json:
        # The exact body bytes, nothing added: sha256 of stdout equals the digest header.
        sys.stdout.buffer.write(result.raw)
        sys.stdout.buffer.flush()
    else:
        print(summarize(result, max_chars=args.max_chars))
    failure = describe_failure(result)
    if failure is not None:
        print(f"retrieval: {failure}", file=sys.stderr)
        return 1
    return 0


_SETTINGS = {setting.name: setting for setting in SETTINGS}


def _setting_flag(parser, name, **options):
    """Add the flag of a declared setting, its help and default taken from the declaration."""
    setting = _SETTINGS[name]
    text = setting.metadata["help"].rstrip(".")
    if "default:" not in text:
        default = "none" if setting.default is None else json.dumps(setting.default)
        text += f" (default: {default})"
    parser.add_argument("--" + name.replace("_", "-"), help=f"{text}; setting {name}",
                        **options)


def build_parser() -> argparse.ArgumentParser:
    """Declare the commands and their flags."""
    parser = argparse.ArgumentParser(prog="retrieval", description=DESCRIPTION, epilog=EXAMPLES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    # Only before a command: `retrieval ask --version 3.12` is the documentation version.
    parser.add_argument("--version", action="version", version=f"retrieval {__version__}",
                        help="print the program's version and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser(
        "serve", help="serve the app with Waitress",
        epilog="Settings (TOML file < environment < flags):\n" + describe_settings(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    serve.add_argument("--config", metavar="FILE",
                       help="TOML file of settings (flat keys, as listed below; default: none)")
    serve.add_argument("--print-config", action="store_true",
                       help="print the effective settings as TOML (secrets masked) and exit")
    _setting_flag(serve, "host", metavar="HOST")
    _setting_flag(serve, "port", type=int, metavar="PORT")
    _setting_flag(serve, "threads", type=int, metavar="N")
    _setting_flag(serve, "snapshot", metavar="FILE_OR_DIR")
    _setting_flag(serve, "expect_corpus_id", metavar="ID")
    serve.add_argument("--fd", type=int, help="serve on this inherited, listening socket "
                                               "(default: none, listen on --host/--port)")
    _setting_flag(serve, "shutdown_grace_s", type=float, metavar="S")
    _setting_flag(serve, "drain_delay_s", type=float, metavar="S")
    _setting_flag(serve, "keys_file", metavar="FILE")
    _setting_flag(serve, "allow_unauthenticated", action="store_true")
    _setting_flag(serve, "max_in_flight", type=int, metavar="N")
    _setting_flag(serve, "deadline_ms", type=int, metavar="MS")
    serve.add_argument("--app", metavar="MODULE:ATTR",
                       help="serve this WSGI app instead of the retrieval app (default: "
                            "retrieval's; it reads its own settings from the environment)")
    serve.set_defaults(run=_serve)

    mcp = commands.add_parser(
        "mcp", help="serve the tools over the Model Context Protocol (stdio or HTTP)",
        description="Serve search_docs, read_passage, list_docs, retrieve and resolve_library "
                    "as MCP tools, over a snapshot in this process (default) or a running "
                    "service (--url).")
    mcp.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                     help="stdio (what MCP clients launch) or Streamable HTTP at /mcp "
                          "(default: %(default)s)")
    mcp.add_argument("--config", metavar="FILE",
                     help="TOML file of settings, as for serve (default: none)")
    _setting_flag(mcp, "snapshot", metavar="FILE_OR_DIR")
    _setting_flag(mcp, "expect_corpus_id", metavar="ID")
    _setting_flag(mcp, "keys_file", metavar="FILE")
    _setting_flag(mcp, "host", metavar="HOST")
    mcp.add_argument("--port", type=int, metavar="PORT",
                     help="port of --transport http (0: any free port; default: none, "
                          "required with --transport http)")
    _setting_flag(mcp, "allow_unauthenticated", action="store_true")
    mcp.add_argument("--url", help="front this running service instead of a snapshot "
                                   "(default: none, serve the snapshot in this process)")
    mcp.add_argument("--api-key", help="the key calls are made with over stdio (refused "
                                       "with --transport http, where each request's own "
                                       "bearer is the caller); default: none")
    mcp.add_argument("--timeout", type=float, default=10.0,
                     help="with --url, seconds per HTTP exchange (default: %(default)s)")
    mcp.set_defaults(run=_mcp)
    register_mcp_config_command(commands)

    check = commands.add_parser("check", help="re-verify a result saved by run_scenarios.py")
    check.add_argument("result", help="the JSON file run_scenarios.py --output wrote")
    check.set_defaults(run=_check)

    register_build_commands(commands)
    register_project_command(commands)
    register_diff_command(commands)

    seal = commands.add_parser("seal", help="fill in a snapshot's digests")
    seal.add_argument("input", help="a hand-written snapshot JSON file")
    seal.add_argument("output", help="where to write it with its digests filled in")
    seal.set_defaults(run=_seal)

    ask = commands.add_parser("ask", help="ask a running service and print its verified result")
    ask.add_argument("question", help="the question, quoted as one argument")
    ask.add_argument("--version",
                     help="exact documentation version, e.g. 3.12 (default: the version the "
                          "snapshot's project pins for the collection; without a pin, required)")
    ask.add_argument("--url", default="http://127.0.0.1:8765",
                     help="service base URL (default: %(default)s)")
    ask.add_argument("--collection", help="default: the snapshot's default collection")
    for allowance in ("max-steps", "max-searches", "max-reads", "max-source-bytes"):
        ask.add_argument(f"--{allowance}", type=int, metavar="N",
                         help="allowance (default: the server's default)")
    ask.add_argument("--max-tokens", type=int, metavar="N",
                     help="budget in estimated tokens, ceil(bytes / 4) (default: none)")
    ask.add_argument("--api-key", help="sent as 'Authorization: Bearer KEY' (default: none)")
    ask.add_argument("--timeout", type=float, default=10.0,
                     help="seconds per HTTP exchange (default: %(default)s)")
    ask.add_argument("--retries", type=int, default=3,
                     help="retries of a refused connection or an overloaded/draining server "
                          "(default: %(default)s)")
    ask.add_argument("--max-chars", type=int, default=0, metavar="N",
                     help="cut each passage after N characters (default: 0, whole passages)")
    ask.add_argument("--json", action="store_true",
                     help="print the exact response body bytes instead of the summary")
    ask.set_defaults(run=_ask)

    register_keys_command(commands)

    table = commands.add_parser(
        "settings", help="print every setting as docs/operating.md's Markdown table")
    table.set_defaults(run=lambda args: print(settings_table()) or 0)
    return parser


# The exit status of a command stopped by Ctrl-C (SIGINT): 128 + the signal's number, as a shell
# reports a child the signal stopped.
INTERRUPTED = 128 + signal.SIGINT
TERMINATED = 128 + signal.SIGTERM  # and by SIGTERM (`timeout`, a CI job cancelled, `kill`)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the command is: it unwinds as Ctrl-C does, every `finally` run."""


def _terminate(signum, frame):
    raise Terminated()


def main(argv=None) -> int:
    """Run one command; a user's mistake (UserError) prints one line and exits 2.

    Ctrl-C prints `retrieval: interrupted` and exits 130. Anything else raised is a bug in the
    package, and keeps its traceback.
    """
    args = build_parser().parse_args(argv)
    if getattr(args, "untrusted_output", False):
        # build and verify print what their sources say (names, versions, messages): on
        # stderr with every control character escaped, their last line included.
        from ..ingest.tree import ShownStream

        with contextlib.redirect_stderr(ShownStream(sys.stderr)):
            return _run(args)
    return _run(args)


def _run(args) -> int:
    # Python's default for SIGTERM ends the process at once, leaving a build's temporary
    # directory (a project's unpacked releases) and .partial files behind: unwound as Ctrl-C is
    # instead. (`serve` installs its own handler, a graceful stop, over this one.)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminate)
    try:
        return args.run(args)
    except UserError as exc:
        print(f"retrieval: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stopped:
        # The one place Ctrl-C (and SIGTERM) is caught: the outermost frame, after every
        # `finally` below has cleaned up (the build's .partial files and temporary directory)
        # on its way here. Library code never catches it, so it always reaches this line.
        # (`serve` handles SIGINT itself, as a graceful stop.)
        if isinstance(stopped, Terminated):
            print("retrieval: terminated", file=sys.stderr)
            return TERMINATED
        print("retrieval: interrupted", file=sys.stderr)
        return INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
