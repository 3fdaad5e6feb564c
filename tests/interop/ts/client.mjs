// Drives `lspedit mcp` with the official MCP TypeScript SDK (@modelcontextprotocol/sdk, pinned
// in package.json and package-lock.json beside this file; installed by scripts/test) through
// every step of tests/interop/plan.json, in every tool set and schema profile, each on a fresh
// copy of the fixture workspace.
//
// `Client.callTool` validates every structuredContent, refusals included, against the tool's
// outputSchema, as it does for every user (an invalid one throws -32602). This client also
// checks the arguments of each call against the listed inputSchema with the SDK's own Ajv
// validator. Prints one JSON object (what was listed and called per run, the failures); exits 1
// if anything failed. tests/it/mcp_interop.rs runs it and asserts on what it printed.
//
// Usage: node client.mjs LSPEDIT_BINARY FIXTURE_DIR PLAN_JSON

import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

const SETS = ["core", "lsp", "workflow", "all"];
const PROFILES = ["default", "strict"];
// Where the language servers are looked up: kept when the SDK's default environment (a short
// list) would drop them.
const PASSED_ENV = ["LSPEDIT_SERVERS_DIR", "XDG_CACHE_HOME", "LSPEDIT_LOG"];
const REF = /^\$\{(\w+)\.([\w.]+)\}$/;

class Unresolved extends Error {}

function resolve(value, kept) {
  if (typeof value === "string") {
    const m = REF.exec(value);
    if (!m) return value;
    if (!(m[1] in kept)) throw new Unresolved(m[1]);
    let out = kept[m[1]];
    for (const key of m[2].split(".")) out = out?.[key];
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => resolve(v, kept));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, kept)]));
  }
  return value;
}

const textOf = (result) =>
  (result.content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");

async function run(binary, fixture, plan, tools, profile, failures) {
  const where = `typescript ${tools}/${profile}`;
  const tmp = mkdtempSync(join(tmpdir(), "lspedit-interop-"));
  const root = join(tmp, "ws");
  cpSync(fixture, root, { recursive: true });
  const env = getDefaultEnvironment();
  for (const k of PASSED_ENV) if (process.env[k] !== undefined) env[k] = process.env[k];
  const transport = new StdioClientTransport({
    command: binary,
    args: ["mcp", "--root", root, "--tools", tools, "--schema-profile", profile],
    env,
    stderr: "inherit",
  });
  const client = new Client({ name: "lspedit-interop", version: "1.0.0" });
  const inputs = new AjvJsonSchemaValidator();
  const called = {};
  const kept = {};
  try {
    await client.connect(transport);
    // listTools also compiles the output validators callTool applies.
    const listed = (await client.listTools()).tools;
    const byName = Object.fromEntries(listed.map((t) => [t.name, t]));
    for (const [i, step] of plan.steps.entries()) {
      const name = step.tool;
      const tool = byName[name];
      if (!tool) continue;
      let args;
      try {
        args = resolve(step.args, kept);
      } catch (e) {
        if (e instanceof Unresolved) continue;
        throw e;
      }
      if (profile === "strict") {
        // A strict model sends every argument, null for the ones it leaves out.
        for (const prop of Object.keys(tool.inputSchema.properties ?? {})) {
          if (!(prop in args)) args[prop] = null;
        }
      }
      const at = `${where} step ${i} ${name}(${JSON.stringify(args)})`;
      if (!("lenient" in step)) {
        const checked = inputs.getValidator(tool.inputSchema)(args);
        if (!checked.valid) {
          failures.push(`${at}: arguments invalid against inputSchema: ${checked.errorMessage}`);
        }
      }
      let result;
      try {
        result = await client.callTool({ name, arguments: args }, undefined, { timeout: 120000 });
      } catch (e) {
        failures.push(`${at}: the SDK threw ${e?.name}: ${e?.message}`);
        continue;
      }
      const outcome = result.isError ? "error" : "ok";
      called[name] ??= { ok: 0, error: 0 };
      called[name][outcome] += 1;
      if (outcome !== step.expect) {
        failures.push(`${at}: expected ${step.expect}, got ${outcome}: ${textOf(result)}`);
      }
      const structured = result.structuredContent;
      if (structured === undefined) {
        failures.push(`${at}: no structuredContent: ${textOf(result)}`);
        continue;
      }
      if ("reason" in step && structured.reason !== step.reason) {
        failures.push(`${at}: reason ${structured.reason}, expected ${step.reason}: ${textOf(result)}`);
      }
      if ("id" in step) kept[step.id] = structured;
    }
    return { tools, profile, listed: Object.keys(byName).sort(), called, kept };
  } finally {
    await client.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function main([binary, fixture, planPath]) {
  const plan = JSON.parse(readFileSync(planPath, "utf8"));
  const here = dirname(fileURLToPath(import.meta.url));
  const manifest = join(here, "node_modules/@modelcontextprotocol/sdk/package.json");
  const sdk = JSON.parse(readFileSync(manifest, "utf8")).version;
  const failures = [];
  const runs = [];
  for (const tools of SETS) {
    for (const profile of PROFILES) {
      try {
        runs.push(await run(binary, fixture, plan, tools, profile, failures));
      } catch (e) {
        failures.push(`typescript ${tools}/${profile}: ${e?.name}: ${e?.message}`);
      }
    }
  }
  process.stdout.write(JSON.stringify({ sdk: `@modelcontextprotocol/sdk ${sdk}`, runs, failures }) + "\n");
  return failures.length ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
