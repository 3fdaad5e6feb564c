"""Drives `lspedit mcp` with the Python `mcp` package's ClientSession over stdio.

A client no one in this project wrote: read_file -> apply_patch (introducing a TypeScript type
error) -> diagnostics, on a copy of test-projects/ts-basic. Prints one JSON object with what it
saw; tests/it/mcp_python.rs asserts on it.

Usage: python mcp_client.py LSPEDIT_BINARY WORKSPACE_ROOT
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def anchor(view, line):
    for row in view.splitlines():
        head, _, _ = row.partition("|")
        if head.startswith(str(line)) and len(head) == len(str(line)) + 4:
            return head
    raise SystemExit(f"no line {line} in the view:\n{view}")


async def main(binary, root):
    params = StdioServerParameters(command=binary, args=["mcp", "--root", root])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            read_result = await session.call_tool(
                "read_file", {"path": "src/index.ts"}
            )
            view = text_of(read_result)
            patch = (
                "--- a/src/index.ts\n+++ b/src/index.ts\n@@ @@\n"
                f" {anchor(view, 2)}|\n"
                f"-{anchor(view, 3)}|const total: number = add(1, 2);\n"
                "+const total: string = add(1, 2);\n"
                f" {anchor(view, 4)}|const message: string = greet(\"world\");\n"
            )
            applied = await session.call_tool("apply_patch", {"patch": patch})
            diags = await session.call_tool("diagnostics", {"paths": ["src/index.ts"]})
            refused = await session.call_tool(
                "apply_patch", {"patch": patch}
            )
            print(
                json.dumps(
                    {
                        "server_name": init.server_info.name,
                        "server_version": init.server_info.version,
                        "tools": sorted(t.name for t in tools.tools),
                        "read": view,
                        "read_is_error": bool(read_result.is_error),
                        "apply": text_of(applied),
                        "apply_is_error": bool(applied.is_error),
                        "diagnostics": text_of(diags),
                        "refused": text_of(refused),
                        "refused_is_error": bool(refused.is_error),
                    }
                )
            )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
