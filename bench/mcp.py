"""MCP round trips over stdio beside a direct POST /retrieve: p50/p99 of each, in one run; or,
with --view-share, how much of what an agent reads of the MCP tools is passage text.

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

`--view-share SET` asks every question of a libraries-format question set (its `library` the
collection, its `version`) through `retrieve`, then reads every evidence passage with
`read_passage`, each call made twice, in the compact view (the default) and `verbose`, over one
stdio session on `--snapshot`; and `search_docs` with the question at its defaults. Per tool it
prints the characters of the results' text content and the share of them that is passage text
(each passage's `text`, as the verbose result carries it), in each view:

    python -m bench.mcp --view-share ../shared/eval/libraries/dev.json --snapshot LIBS_DIR
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


def _parameters(snapshot):
    from mcp.client.stdio import StdioServerParameters

    args = ["-m", "retrieval", "mcp"] + (["--snapshot", snapshot] if snapshot else [])
    return StdioServerParameters(command=sys.executable, args=args, cwd=ROOT,
                                 env=subprocess_env(**ENV))


async def measure(calls: int, snapshot, base_url):
    from mcp import Client

    parameters = _parameters(snapshot)
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


async def view_share(questions: list, snapshot) -> dict:
    """Return, per tool and view, the result characters and the passage text among them."""
    from mcp import Client

    counts = {(tool, view): [0, 0, 0] for tool in ("retrieve", "read_passage", "search_docs")
              for view in ("compact", "verbose")}  # [calls, characters, passage text]

    async def call(tool, arguments, texts_of):
        verbose = await client.call_tool(tool, dict(arguments, verbose=True))
        if verbose.is_error:
            return None
        document = verbose.structured_content
        texts = sum(len(text) for text in texts_of(document))
        for view, result in (("verbose", verbose),
                             ("compact", await client.call_tool(tool, arguments))):
            counts[tool, view][0] += 1
            counts[tool, view][1] += sum(len(part.text) for part in result.content)
            counts[tool, view][2] += texts
        return document

    async with Client(_parameters(snapshot)) as client:
        for item in questions:
            names = {"collection": item["library"], "version": item["version"]}
            run = await call("retrieve", dict(names, question=item["question"]),
                             lambda d: [e["text"] for e in d["evidence"]])
            await call("search_docs", dict(names, query=item["question"]),
                       lambda d: [h["text"] for h in d["hits"] if "text" in h])
            for evidence in (run or {}).get("evidence", ()):
                await call("read_passage", {"passage_id": evidence["passage_id"]},
                           lambda d: [d["text"]])
    return {f"{tool} {view}": {"calls": calls, "characters": characters,
                               "passage_text": text,
                               "share": round(text / characters, 3) if characters else None}
            for (tool, view), (calls, characters, text) in counts.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000, help="calls per series (default 1000)")
    parser.add_argument("--snapshot", help="snapshot for both servers (default: the fixture)")
    parser.add_argument("--view-share", metavar="SET",
                        help="measure the passage text share of the tools' results over a "
                             "libraries-format question set instead")
    args = parser.parse_args(argv)
    if args.view_share:
        with open(args.view_share, encoding="utf-8") as handle:
            questions = json.load(handle)
        shares = asyncio.run(view_share(questions, args.snapshot))
        print(json.dumps({"questions": len(questions), "snapshot": args.snapshot,
                          "tools": shares}, indent=2))
        return
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
