"""MCP round trips over stdio beside a direct POST /retrieve: p50/p99 of each, in one run.

Starts `retrieval serve` (loopback, inherited socket) and `retrieval mcp --snapshot` (stdio, the
SDK's own client), both on the same snapshot with the access log off, then times sequential
calls, interleaved so that the machine's noise falls on every series alike:

* `http /retrieve`: one POST over a kept-alive connection (requests), body read;
* `mcp search_docs`: one tools/call round trip over stdio (limit 5, default text budget);
* `mcp retrieve`: the same question as the HTTP series, through the MCP tool.

Memos are warm after the first call of each series (the same request repeats), as for an agent
asking again; every series measures transport and serialization around a memoized core.

    python -m bench.mcp --calls 2000

(As a module from the repository root: run as `python bench/mcp.py`, this file would shadow the
`mcp` package it measures.)
"""

import argparse
import asyncio
import json
import os
import sys
import time

import requests

from retrieval.scenarios import QUESTION
from retrieval.testing import ServerProcess, subprocess_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = {"RETRIEVAL_ACCESS_LOG": "false"}


def percentile(samples, fraction):
    """Return the nearest-rank percentile of samples (seconds) in milliseconds."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))] * 1000


async def measure(calls: int, snapshot, base_url):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    args = ["-m", "retrieval", "mcp"] + (["--snapshot", snapshot] if snapshot else [])
    parameters = StdioServerParameters(command=sys.executable, args=args, cwd=ROOT,
                                       env=subprocess_env(**ENV))
    series = {"http /retrieve": [], "mcp search_docs": [], "mcp retrieve": []}
    sizes = {}
    session = requests.Session()
    search = {"query": "write_text existing file", "version": "3.12"}
    ask = {"question": QUESTION, "version": "3.12"}
    async with Client(parameters) as client:
        for _ in range(calls):
            started = time.perf_counter()
            response = session.post(base_url + "/retrieve", json=ask, timeout=10)
            raw = response.content
            series["http /retrieve"].append(time.perf_counter() - started)
            sizes["http /retrieve"] = len(raw)
            for name, tool, arguments in (("mcp search_docs", "search_docs", search),
                                          ("mcp retrieve", "retrieve", ask)):
                started = time.perf_counter()
                result = await client.call_tool(tool, arguments)
                series[name].append(time.perf_counter() - started)
                if result.is_error:
                    raise SystemExit(f"{tool} failed: {result.content[0].text}")
                sizes[name] = len(result.content[0].text.encode())
    return series, sizes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000, help="calls per series (default 1000)")
    parser.add_argument("--snapshot", help="snapshot for both servers (default: the fixture)")
    args = parser.parse_args(argv)
    serve_args = ["--snapshot", args.snapshot] if args.snapshot else []
    with ServerProcess(serve_args=serve_args, env=subprocess_env(**ENV), cwd=ROOT) as server:
        series, sizes = asyncio.run(measure(args.calls, args.snapshot, server.base_url))
    rows = {name: {"p50_ms": round(percentile(samples, 0.50), 3),
                   "p99_ms": round(percentile(samples, 0.99), 3),
                   "reply_bytes": sizes[name]}
            for name, samples in series.items()}
    base = rows["http /retrieve"]["p50_ms"]
    for row in rows.values():
        row["p50_vs_http_retrieve"] = round(row["p50_ms"] / base, 2)
    print(json.dumps({"calls": args.calls, "series": rows}, indent=2))


if __name__ == "__main__":
    main()
