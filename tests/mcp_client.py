"""Drives `lspedit mcp` with the Python `mcp` package's ClientSession over stdio.

A client no one in this project wrote: read_file -> apply_patch (introducing a TypeScript type
error) -> diagnostics, then every other tool, on a copy of test-projects/ts-basic. Every result's
structuredContent is checked against the tool's declared outputSchema with `jsonschema` (a
dependency of `mcp`), refusals included. Prints one JSON object with what it saw;
tests/it/mcp_python.rs asserts on it.

Usage: python mcp_client.py LSPEDIT_BINARY WORKSPACE_ROOT
"""

import asyncio
import json
import sys

import jsonschema
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


class Checked:
    """Calls tools and checks each structuredContent against the tool's outputSchema."""

    def __init__(self, session, tools):
        self.session = session
        self.schemas = {t.name: t.output_schema for t in tools}
        self.validated = set()

    async def call(self, name, args):
        result = await self.session.call_tool(name, args)
        schema = self.schemas.get(name)
        if schema is None:
            raise SystemExit(f"{name} declares no outputSchema")
        if result.structured_content is None:
            raise SystemExit(f"{name} returned no structuredContent: {text_of(result)}")
        jsonschema.validate(result.structured_content, schema)
        self.validated.add(name)
        return result


async def main(binary, root):
    params = StdioServerParameters(command=binary, args=["mcp", "--root", root])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            checked = Checked(session, tools.tools)
            read_result = await checked.call("read_file", {"path": "src/index.ts"})
            view = text_of(read_result)
            patch = (
                "--- a/src/index.ts\n+++ b/src/index.ts\n@@ @@\n"
                f" {anchor(view, 2)}|\n"
                f"-{anchor(view, 3)}|const total: number = add(1, 2);\n"
                "+const total: string = add(1, 2);\n"
                f" {anchor(view, 4)}|const message: string = greet(\"world\");\n"
            )
            applied = await checked.call("apply_patch", {"patch": patch})
            diags = await checked.call("diagnostics", {"paths": ["src/index.ts"]})
            refused = await checked.call("apply_patch", {"patch": patch})
            # The rest of the tools, driven by the structured results alone: no id is scraped
            # out of the text.
            util = await checked.call("read_file", {"path": "src/util.ts", "offset": "2"})
            util_sha = util.structured_content["base_sha"]
            proposed = await checked.call(
                "propose_edit",
                {
                    "pattern": "a \\+ b",
                    "replacement": "b + a",
                    "scope": ["src/util.ts"],
                    "base_shas": [{"path": "src/util.ts", "sha": util_sha}],
                },
            )
            patch_id = proposed.structured_content["patch_id"]
            apply_edit = await checked.call("apply_edit", {"patch_id": patch_id})
            checkpoint = apply_edit.structured_content["checkpoint_id"]
            undo = await checked.call("undo", {"checkpoint_id": checkpoint})
            unknown = await checked.call("apply_edit", {"patch_id": "patch_1_00000000000000000000000000000000"})
            written = await checked.call(
                "write_file", {"path": "src/extra.ts", "content": "export const x = 1;\n"}
            )
            edited = await checked.call(
                "edit",
                {"path": "src/extra.ts", "old_text": "x = 1", "new_text": "x = 2"},
            )
            seen = {
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
                "validated": sorted(checked.validated),
                "structured": {
                    "read": read_result.structured_content,
                    "util": util.structured_content,
                    "apply": applied.structured_content,
                    "refused": refused.structured_content,
                    "diagnostics": diags.structured_content,
                    "propose": proposed.structured_content,
                    "apply_edit": apply_edit.structured_content,
                    "undo": undo.structured_content,
                    "unknown": unknown.structured_content,
                    "write_file": written.structured_content,
                    "edit": edited.structured_content,
                },
            }
    # The same server for a host that takes OpenAI's strict schemas and a small tool set: the
    # calls a strict model makes (every argument, null for the ones left out) are valid against
    # the input schemas listed, and work.
    strict_params = StdioServerParameters(
        command=binary,
        args=["mcp", "--root", root, "--tools", "core", "--schema-profile", "strict"],
    )
    async with stdio_client(strict_params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            strict_tools = (await session.list_tools()).tools
            inputs = {t.name: t.input_schema for t in strict_tools}
            strict_checked = Checked(session, strict_tools)
            results = {}
            for name, args in [
                ("read_file", {"path": "src/extra.ts", "offset": None, "limit": None}),
                (
                    "edit",
                    {
                        "path": "src/extra.ts",
                        "old_text": "x = 2",
                        "new_text": "x = 3",
                        "replace_all": None,
                    },
                ),
            ]:
                jsonschema.validate(args, inputs[name])
                result = await strict_checked.call(name, args)
                results[name] = {"text": text_of(result), "is_error": bool(result.is_error)}
            seen["strict"] = {"tools": sorted(inputs), "results": results}
    print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
