"""`retrieval mcp-config --client C`: the MCP server entry a coding agent's client starts.

The entry runs this very interpreter by its absolute path (`sys.executable -m retrieval mcp
--snapshot ABS`), so it works without the venv on PATH; where the package is imported from a
checkout rather than installed, the entry's environment names the checkout (PYTHONPATH). It is
printed, or with --write merged into the client's own file (other servers are kept):

- claude-code: `.mcp.json` in the current directory (Claude Code's project scope): `mcpServers`.
- cursor: `.cursor/mcp.json` in the current directory (Cursor's project file): `mcpServers`.
- vscode: `.vscode/mcp.json` in the current directory (the workspace's): `servers`, with
  `"type": "stdio"`.
- codex: `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`): a `[mcp_servers.NAME]`
  table with command, args and env.
"""

import json
import os
import re
import sys
import sysconfig
import tomllib
from pathlib import Path

from ..core.errors import UserError
from ..core.loading import load_snapshot

CLIENTS = ("claude-code", "cursor", "vscode", "codex")
DEFAULT_NAME = "retrieval"
_JSON_FILES = {"claude-code": (".mcp.json", "mcpServers"),
               "cursor": (".cursor/mcp.json", "mcpServers"),
               "vscode": (".vscode/mcp.json", "servers")}


def server_entry(snapshot: str | None) -> dict:
    """Return the stdio server's command, args and env (env only where it is needed)."""
    args = ["-m", "retrieval", "mcp"]
    if snapshot is not None:
        try:
            load_snapshot(snapshot)  # one that will not serve is refused now, not in the client
        except UserError as exc:
            raise UserError(f"--snapshot {snapshot}: {exc}") from None
        args += ["--snapshot", os.path.abspath(snapshot)]
    # Not resolved: a venv's python is a link whose target would not see the venv's packages.
    entry: dict = {"command": os.path.abspath(sys.executable), "args": args}
    package_parent = str(Path(__file__).resolve().parent.parent.parent)
    installed = {os.path.realpath(sysconfig.get_path(key)) for key in ("purelib", "platlib")}
    if os.path.realpath(package_parent) not in installed:
        entry["env"] = {"PYTHONPATH": package_parent}  # a checkout, not an installed package
    return entry


def config_path(client: str, cwd: Path, environ=os.environ) -> Path:
    """Return the file a client reads its MCP servers from (the project's, codex the user's)."""
    if client == "codex":
        home = environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")
        return Path(home) / "config.toml"
    return cwd / _JSON_FILES[client][0]


def _toml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string


def codex_table(name: str, entry: dict) -> str:
    """Return the `[mcp_servers.NAME]` table of an entry."""
    lines = [f"[mcp_servers.{name}]", f"command = {_toml_string(entry['command'])}",
             "args = [" + ", ".join(_toml_string(arg) for arg in entry["args"]) + "]"]
    if "env" in entry:
        lines.append("env = { " + ", ".join(f"{_toml_string(k)} = {_toml_string(v)}"
                                            for k, v in entry["env"].items()) + " }")
    return "\n".join(lines) + "\n"


def rendered(client: str, name: str, entry: dict) -> str:
    """Return the client's config holding this one server, as its file spells it."""
    if client == "codex":
        return codex_table(name, entry)
    key = _JSON_FILES[client][1]
    server = {"type": "stdio", **entry} if client == "vscode" else entry
    return json.dumps({key: {name: server}}, indent=2, ensure_ascii=False) + "\n"


def merged(client: str, name: str, entry: dict, existing: str | None, path: Path) -> str:
    """Return the file with the server set (replaced if there), every other setting kept."""
    if client == "codex":
        text = existing or ""
        try:
            tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise UserError(f"{path}: not TOML ({exc}): fix it, or print the entry and add it "
                            "by hand") from None
        # The server's own table and its subtables ([mcp_servers.NAME.env]) give way to ours.
        header = re.compile(rf"^\[mcp_servers\.{re.escape(name)}(?:\.[^\]]*)?\]\s*$")
        kept, skipping = [], False
        for line in text.splitlines(keepends=True):
            if line.lstrip().startswith("["):
                skipping = bool(header.match(line.strip()))
            if not skipping:
                kept.append(line)
        body = "".join(kept).rstrip("\n")
        return (body + "\n\n" if body else "") + codex_table(name, entry)
    key = _JSON_FILES[client][1]
    try:
        document = json.loads(existing) if existing and existing.strip() else {}
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: not JSON ({exc}): fix it, or print the entry and add it by "
                        "hand") from None
    if not isinstance(document, dict) or not isinstance(document.get(key, {}), dict):
        raise UserError(f"{path}: expected an object with a {key!r} object")
    server = {"type": "stdio", **entry} if client == "vscode" else entry
    document[key] = {**document.get(key, {}), name: server}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def run(args) -> int:
    """Print the client's server entry, or merge it into the client's file (--write)."""
    from ..settings import load_settings

    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", args.name):
        raise UserError(f"--name {args.name[:64]!r}: letters, digits, - and _ only")
    snapshot = args.snapshot
    if snapshot is None:  # the snapshot setting (config file, RETRIEVAL_SNAPSHOT), if any
        snapshot = load_settings(config_file=args.config, overrides={}).snapshot
    entry = server_entry(snapshot)
    if not args.write:
        sys.stdout.write(rendered(args.client, args.name, entry))
        return 0
    path = config_path(args.client, Path.cwd())
    try:
        existing = path.read_text(encoding="utf-8") if path.exists() else None
        text = merged(args.client, args.name, entry, existing, path)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    except OSError as exc:
        raise UserError(f"{path}: cannot write: {exc.strerror or exc}") from None
    print(f"retrieval: wrote the {args.name} server to {path}", file=sys.stderr)
    return 0


def register_mcp_config_command(commands) -> None:
    """Add `mcp-config` to the command line's subcommands."""
    parser = commands.add_parser(
        "mcp-config", help="print (or --write) a coding agent's MCP config for a snapshot")
    parser.add_argument("--client", required=True, choices=CLIENTS,
                        help="the client whose config file format is printed")
    parser.add_argument("--snapshot", help="the snapshot directory or file the server serves "
                                           "(default: the snapshot setting, else the fixture)")
    parser.add_argument("--name", default=DEFAULT_NAME,
                        help="the server's name in the config (default: %(default)s)")
    parser.add_argument("--write", action="store_true",
                        help="merge it into the client's file: .mcp.json, .cursor/mcp.json, "
                             ".vscode/mcp.json here, or codex's ~/.codex/config.toml")
    parser.add_argument("--config", metavar="FILE",
                        help="TOML file of settings, read for its snapshot (default: none)")
    parser.set_defaults(run=run)
