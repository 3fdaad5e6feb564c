"""Drives `lspedit mcp` with the official Python MCP SDK (`mcp`, pinned in
tests/mcp-requirements.txt) through every step of tests/interop/plan.json, in every tool set and
schema profile, each on a fresh copy of the fixture workspace.

`ClientSession.call_tool` validates a successful result's structuredContent against the tool's
outputSchema, as it does for every user (an invalid one raises); this client validates the
refusals' too (the SDK leaves them alone) with `jsonschema`, a dependency of `mcp`, and checks
the arguments of each call against the listed inputSchema. Prints one JSON object (what was
listed and called per run, the failures); exits 1 if anything failed.
tests/it/mcp_interop.rs runs it and asserts on what it printed.

Usage: python client.py LSPEDIT_BINARY FIXTURE_DIR PLAN_JSON
"""

import asyncio
import importlib.metadata
import json
import os
import re
import shutil
import sys
import tempfile

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

SETS = ["core", "lsp", "workflow", "all"]
PROFILES = ["default", "strict"]
# Where the language servers are looked up: kept when the host's environment (the SDK's
# default, a short list) would drop them.
PASSED_ENV = ["LSPEDIT_SERVERS_DIR", "XDG_CACHE_HOME", "LSPEDIT_LOG"]
REF = re.compile(r"^\$\{(\w+)\.([\w.]+)\}$")


class Unresolved(Exception):
    """A step refers to a result this run does not have (its tool is not listed)."""


def resolve(value, kept):
    if isinstance(value, str):
        m = REF.match(value)
        if not m:
            return value
        step, path = m.group(1), m.group(2)
        if step not in kept:
            raise Unresolved(step)
        out = kept[step]
        for key in path.split("."):
            out = out[int(key)] if isinstance(out, list) else out.get(key)
        return out
    if isinstance(value, dict):
        return {k: resolve(v, kept) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, kept) for v in value]
    return value


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


async def run(binary, fixture, plan, tools, profile, failures):
    where = f"python {tools}/{profile}"
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "ws")
        shutil.copytree(fixture, root)
        env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
        params = StdioServerParameters(
            command=binary,
            args=["mcp", "--root", root, "--tools", tools, "--schema-profile", profile],
            env=env,
        )
        called = {}
        kept = {}
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = (await session.list_tools()).tools
                by_name = {t.name: t for t in listed}
                for i, step in enumerate(plan["steps"]):
                    name = step["tool"]
                    tool = by_name.get(name)
                    if tool is None:
                        continue
                    try:
                        args = resolve(step["args"], kept)
                    except Unresolved:
                        continue
                    if profile == "strict":
                        # A strict model sends every argument, null for the ones it leaves out.
                        for prop in tool.input_schema.get("properties", {}):
                            args.setdefault(prop, None)
                    at = f"{where} step {i} {name}({json.dumps(args)})"
                    if "lenient" not in step:
                        try:
                            jsonschema.validate(args, tool.input_schema)
                        except jsonschema.ValidationError as e:
                            failures.append(f"{at}: arguments invalid against inputSchema: {e.message}")
                    try:
                        result = await session.call_tool(name, args)
                    except Exception as e:  # the SDK's own validation, or a protocol error
                        failures.append(f"{at}: the SDK raised {type(e).__name__}: {str(e)[:600]}")
                        continue
                    outcome = "error" if result.is_error else "ok"
                    called.setdefault(name, {"ok": 0, "error": 0})[outcome] += 1
                    structured = result.structured_content
                    if outcome != step["expect"]:
                        failures.append(f"{at}: expected {step['expect']}, got {outcome}: {text_of(result)}")
                    if structured is None:
                        failures.append(f"{at}: no structuredContent: {text_of(result)}")
                        continue
                    try:
                        jsonschema.validate(structured, tool.output_schema)
                    except jsonschema.ValidationError as e:
                        failures.append(f"{at}: structuredContent invalid against outputSchema: {e.message}")
                    if "reason" in step and structured.get("reason") != step["reason"]:
                        failures.append(
                            f"{at}: reason {structured.get('reason')!r}, expected {step['reason']!r}: {text_of(result)}"
                        )
                    if "id" in step:
                        kept[step["id"]] = structured
        return {
            "tools": tools,
            "profile": profile,
            "listed": sorted(by_name),
            "called": called,
            "kept": kept,
        }


async def main(binary, fixture, plan_path):
    with open(plan_path) as f:
        plan = json.load(f)
    failures = []
    runs = []
    for tools in SETS:
        for profile in PROFILES:
            try:
                runs.append(await run(binary, fixture, plan, tools, profile, failures))
            except Exception as e:
                failures.append(f"python {tools}/{profile}: {type(e).__name__}: {e}")
    print(
        json.dumps(
            {
                "sdk": f"mcp {importlib.metadata.version('mcp')}",
                "runs": runs,
                "failures": failures,
            }
        )
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3])))
