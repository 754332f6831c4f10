"""`retrieval keys add`: one key into the keys file (read and written by retrieval/http/auth.py)."""

from ..http.auth import add_key


def _run_add(args) -> int:
    """Add one key to the keys file; print its secret alone on the last line."""
    secret = add_key(args.keys_file, args.id, args.collections.split(","),
                     per_second=args.rate_limit, burst=args.burst, expires=args.expires)
    print(f"added key {args.id} to {args.keys_file}; its secret, shown only now, follows")
    print(secret)
    return 0


def register_keys_command(subparsers) -> None:
    """Add the `keys add` command to a CLI's subparsers."""
    keys = subparsers.add_parser("keys", help="manage the API keys file")
    commands = keys.add_subparsers(dest="keys_command", required=True)
    add = commands.add_parser("add", help="add a key; print its secret alone on the last line")
    add.add_argument("id", help="key id, e.g. ci-bot")
    add.add_argument("--collections", required=True, help="comma-separated collections it may read")
    add.add_argument("--keys-file", required=True, help="keys file (created if missing)")
    add.add_argument("--rate-limit", type=float, metavar="PER_SECOND",
                     help="requests per second (default: none, unlimited)")
    add.add_argument("--burst", type=int, help="bucket size (default: the rate, rounded up)")
    add.add_argument("--expires", metavar="TIMESTAMP",
                     help="e.g. 2027-01-01T00:00:00Z (default: never)")
    add.set_defaults(run=_run_add)
