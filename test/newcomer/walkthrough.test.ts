// docs/WALKTHROUGH.md as a newcomer runs it: the server started once as the page says (WEBHOOK_ALLOW_PRIVATE=1
// npm start, on a fresh data directory), KEY and OPERATOR_KEY set to the keys its first start printed, then every
// ```sh block of the page in order, in one bash shell, as printed (only the server's port and the receiver's are
// free ones here instead of 3000 and 8080). Every curl call is recorded (status and body) by a shell function
// the test puts in front of the script; each `# → <status> <json…>` line of the page is checked against the call
// just before it (the status, and the JSON's keys and values, `…` standing for any value or for more fields),
// and every call the page documents no answer for must succeed (2xx). Then the client examples
// (client/examples/*.ts) run on that same server, in the state the walk-through left (numbers opted out, quiet
// hours 21:00-08:00 in America/New_York, a contact in Europe/London), as client/README.md says to run them: each
// ends, and says what it did with labelled counts.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../server/db/embedded.js";
import { run, spawnProcess, type Spawned } from "../helpers/process.js";
import { waitUntil } from "../helpers/wait.js";

const root = resolve(import.meta.dirname, "../..");
const scratch = mkdtempSync(join(tmpdir(), "walkthrough-"));
// Run as root, PostgreSQL runs as the user "postgres", which must reach the data directory.
chmodSync(scratch, 0o755);
const running: Spawned[] = [];
let shellGroup: number | undefined;

afterAll(async () => {
  // The walk-through starts a receiver in the background: end the shell's whole process group if it is left.
  if (shellGroup) {
    try {
      process.kill(-shellGroup, "SIGKILL");
    } catch {
      /* already gone */
    }
  }
  for (const p of running) {
    p.child.kill("SIGTERM");
    await p.exited;
  }
  rmSync(scratch, { recursive: true, force: true });
});

/** The ```sh blocks of a Markdown page, in order. */
export function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
}

type Pattern =
  | { kind: "any" }
  | { kind: "string"; re: RegExp; text: string }
  | { kind: "literal"; value: number | boolean | null }
  | { kind: "object"; members: [string, Pattern][]; open: boolean }
  | { kind: "array"; items: Pattern[]; open: boolean };

/**
 * A documented answer's JSON: JSON where `…` stands for any value, for more members of an object or more items
 * of an array, and, inside a string, for any text; a string `"<…>"` (`"<now>"`) is any string.
 */
export function parsePattern(text: string): Pattern {
  let at = 0;
  const skip = () => {
    while (/\s/.test(text[at] ?? "")) at++;
  };
  const fail = (what: string): never => {
    throw new Error(`documented JSON: expected ${what} at ${at} in ${text}`);
  };
  const string = (): string => {
    const start = at;
    at++;
    while (text[at] !== '"') {
      if (at >= text.length) fail("a closing quote");
      at += text[at] === "\\" ? 2 : 1;
    }
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const value = (): Pattern => {
    skip();
    const c = text[at];
    if (c === "…") {
      at++;
      return { kind: "any" };
    }
    if (c === '"') {
      const s = string();
      if (/^<[^>]*>$/.test(s) || s === "…") return { kind: "string", re: /^[\s\S]*$/, text: s };
      const re = new RegExp(
        `^${s
          .split("…")
          .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
          .join("[\\s\\S]*")}$`,
      );
      return { kind: "string", re, text: s };
    }
    if (c === "{") {
      at++;
      const members: [string, Pattern][] = [];
      let open = false;
      for (;;) {
        skip();
        if (text[at] === "}") break;
        if (text[at] === "…") {
          at++;
          open = true;
        } else {
          if (text[at] !== '"') fail("a member name");
          const key = string();
          skip();
          if (text[at] !== ":") fail(":");
          at++;
          members.push([key, value()]);
        }
        skip();
        if (text[at] === ",") at++;
        else if (text[at] !== "}") fail(", or }");
      }
      at++;
      return { kind: "object", members, open };
    }
    if (c === "[") {
      at++;
      const items: Pattern[] = [];
      let open = false;
      for (;;) {
        skip();
        if (text[at] === "]") break;
        if (text[at] === "…") {
          at++;
          open = true;
        } else items.push(value());
        skip();
        if (text[at] === ",") at++;
        else if (text[at] !== "]") fail(", or ]");
      }
      at++;
      return { kind: "array", items, open };
    }
    const literal = /^(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(at));
    if (!literal) return fail("a value");
    at += literal[0].length;
    return { kind: "literal", value: JSON.parse(literal[0]) as number | boolean | null };
  };
  const pattern = value();
  skip();
  if (at !== text.length) fail("the end");
  return pattern;
}

/** What in `actual` differs from the pattern, each as a JSON path and why; empty when it matches. */
export function mismatches(pattern: Pattern, actual: unknown, path = "$"): string[] {
  switch (pattern.kind) {
    case "any":
      return actual === undefined ? [`${path}: missing`] : [];
    case "string":
      return typeof actual === "string" && pattern.re.test(actual) ? [] : [`${path}: ${JSON.stringify(actual)} is not "${pattern.text}"`];
    case "literal":
      return actual === pattern.value ? [] : [`${path}: ${JSON.stringify(actual)} is not ${JSON.stringify(pattern.value)}`];
    case "object": {
      if (typeof actual !== "object" || actual === null || Array.isArray(actual))
        return [`${path}: ${JSON.stringify(actual)} is not an object`];
      const out = pattern.members.flatMap(([key, p]) =>
        key in actual ? mismatches(p, (actual as Record<string, unknown>)[key], `${path}.${key}`) : [`${path}.${key}: missing`],
      );
      if (!pattern.open) {
        const extra = Object.keys(actual).filter((k) => !pattern.members.some(([m]) => m === k));
        if (extra.length > 0) out.push(`${path}: has ${extra.join(", ")} the documented answer lacks (end it with "…" if meant)`);
      }
      return out;
    }
    case "array": {
      if (!Array.isArray(actual)) return [`${path}: ${JSON.stringify(actual)} is not an array`];
      const counted = pattern.open ? actual.length >= pattern.items.length : actual.length === pattern.items.length;
      const out = counted ? [] : [`${path}: ${actual.length} items, documented ${pattern.items.length}${pattern.open ? " or more" : ""}`];
      return [...out, ...pattern.items.flatMap((p, i) => mismatches(p, actual[i], `${path}[${i}]`))];
    }
  }
}

/**
 * Walks `text`'s brackets (strings respected): where the JSON at its start ends (the index after its closing
 * bracket, or -1 while it is open) and how deep the brackets still are at the end of the text.
 */
function scanBrackets(text: string): { end: number; depth: number } {
  let depth = 0;
  let inString = false;
  let end = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0 && end < 0) end = i + 1;
    }
  }
  return { end, depth };
}

/** The JSON at the start of `text`; the rest is prose. */
function leadingJson(text: string): string {
  const { end } = scanBrackets(text);
  if (end < 0) throw new Error(`unbalanced documented JSON: ${text}`);
  return text.slice(0, end);
}

const depthOf = (text: string) => scanBrackets(text).depth;

export interface Answer {
  /** The line of the page's script (1-based, blocks joined) it documents. */
  line: number;
  text: string;
  status?: number;
  json?: Pattern;
}

/**
 * The page's script with a marker after each documented answer (`__mark <n>`, which records how many curl
 * calls were made so far), and the answers. An answer is a line `# → …` on its own, or after a command on the
 * same line, continued on the next `#` lines while its JSON is open.
 */
export function instrument(script: string): { script: string; answers: Answer[] } {
  const lines = script.split("\n");
  const out: string[] = [];
  const answers: Answer[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    out.push(line);
    const arrow = line.indexOf("# → ");
    if (arrow < 0) continue;
    let text = line.slice(arrow + 4).trim();
    const start = i + 1;
    while (depthOf(text) > 0 && /^\s*#/.test(lines[i + 1] ?? "")) {
      i++;
      out.push(lines[i]!);
      text += " " + lines[i]!.replace(/^\s*#\s*/, "");
    }
    const [, status, rest = ""] = /^(?:(\d{3})\b)?\s*([\s\S]*)$/.exec(text)!;
    const json = /^[[{]/.test(rest) ? parsePattern(leadingJson(rest)) : undefined;
    answers.push({ line: start, text, status: status ? Number(status) : undefined, json });
    out.push(`__mark ${answers.length - 1}`);
  }
  return { script: out.join("\n"), answers };
}

/** Runs in front of the page's script: records every curl call's status (its headers) and body. */
const recorder = (log: string) => `
set -e -o pipefail
__log='${log}'
echo 0 > "$__log/count"
curl() {
  local n=$(( $(cat "$__log/count") + 1 ))
  echo "$n" > "$__log/count"
  printf '%s\\n' "$*" > "$__log/$n.args"
  command curl -D "$__log/$n.headers" "$@" | tee "$__log/$n.body"
  return "\${PIPESTATUS[0]}"
}
__mark() { cp "$__log/count" "$__log/mark.$1"; }
`;

interface Call {
  n: number;
  args: string;
  status: number | undefined;
  body: string;
}

function callsIn(log: string): Call[] {
  const count = Number(readFileSync(join(log, "count"), "utf8"));
  return Array.from({ length: count }, (_, i) => {
    const n = i + 1;
    const headers = existsSync(join(log, `${n}.headers`)) ? readFileSync(join(log, `${n}.headers`), "utf8") : "";
    const statuses = [...headers.matchAll(/^HTTP\/\S+ (\d{3})/gm)].map((m) => Number(m[1]));
    return {
      n,
      args: readFileSync(join(log, `${n}.args`), "utf8")
        .trim()
        .replace(/Bearer sms_\S+/g, "Bearer sms_…"),
      status: statuses.at(-1),
      body: readFileSync(join(log, `${n}.body`), "utf8"),
    };
  });
}

describe("docs/WALKTHROUGH.md, top to bottom, as printed", { timeout: 600_000 }, () => {
  const page = readFileSync(resolve(root, "docs/WALKTHROUGH.md"), "utf8");
  const keys: { account?: string; operator?: string } = {};
  let base = "";

  it("says to start the server once, with what it needs, before its first block", () => {
    const beforeFirst = page.slice(0, page.indexOf("```sh"));
    expect(beforeFirst).toContain("WEBHOOK_ALLOW_PRIVATE=1 npm start");
    // Nothing in the blocks restarts the server or needs jq (not on a fresh machine).
    const script = shellBlocks(page).join("\n");
    expect(script).not.toMatch(/\bnpm start\b|\bjq\b/);
    // No fixed dates: a scheduledAt must be later than now and at most 365 days ahead whenever it is run.
    expect(script).not.toMatch(/\b20\d\d-\d\d-\d\d/);
  });

  it("is what README.md's walk through with curl starts with: its every line is one of the page's", () => {
    const readme = readFileSync(resolve(root, "README.md"), "utf8");
    const start = readme.slice(readme.indexOf("## A walk through with curl"));
    const [snippet] = shellBlocks(start);
    expect(snippet, "README.md has a walk through with curl").toBeDefined();
    const pageLines = new Set(shellBlocks(page).join("\n").split("\n"));
    const missing = snippet!.split("\n").filter((line) => line.trim() !== "" && !pageLines.has(line));
    expect(missing).toEqual([]);
  });

  it("runs against a fresh server, and every command answers as documented", async () => {
    const port = await freePort();
    const receiverPort = await freePort();
    const server = spawnProcess("npm", ["start"], {
      DATA_DIR: join(scratch, ".data"),
      PORT: String(port),
      WEBHOOK_ALLOW_PRIVATE: "1",
      DATABASE_URL: "",
      NODE_ENV: "development",
      PROVIDER: "",
      SMPP_URL: "",
      LOG_LEVEL: "warn",
    });
    running.push(server);
    const [, account] = await server.waitFor(/the account's API key:\s+(sms_\S+)/, 240_000);
    const [, operator] = await server.waitFor(/an operator key[^\n]*:\s+(sms_\S+)/, 30_000);
    base = `http://localhost:${port}`;
    await waitUntil("ready", async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200, 120_000, 250);
    keys.account = account;
    keys.operator = operator;

    let script = shellBlocks(page).join("\n");
    // The keys the first start printed, where the page says to put them (a page that never sets one runs
    // without it, as a reader would); its ports, free ones here.
    const keyLine = /^export KEY=sms_\.\.\./m;
    expect(script, "the page sets KEY=sms_... for the reader to fill in").toMatch(keyLine);
    script = script
      .replace(keyLine, `export KEY=${account}`)
      .replace(/^export OPERATOR_KEY=sms_\.\.\./m, `export OPERATOR_KEY=${operator}`);
    expect(script).toContain("http://localhost:3000/api/v1");
    script = script.replaceAll("localhost:3000", `localhost:${port}`).replaceAll("8080", String(receiverPort));
    const { script: instrumented, answers } = instrument(script);
    expect(answers.length, "the page documents answers").toBeGreaterThan(0);

    const log = join(scratch, "calls");
    mkdirSync(log);
    const cwd = join(scratch, "cwd");
    mkdirSync(cwd);
    writeFileSync(join(scratch, "walkthrough.sh"), recorder(log) + instrumented + "\n");
    // A shell of its own process group: what the page starts in the background ends with it (afterAll).
    const shell = spawn("bash", [join(scratch, "walkthrough.sh")], {
      cwd,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    shellGroup = shell.pid;
    let output = "";
    shell.stdout.on("data", (c: Buffer) => (output += c.toString()));
    shell.stderr.on("data", (c: Buffer) => (output += c.toString()));
    const [code] = (await once(shell, "exit")) as [number | null];
    const calls = callsIn(log);
    const transcript = calls.map((c) => `#${c.n} ${c.status} curl ${c.args}\n${c.body}`).join("\n");
    expect(code, `the script stopped (exit ${code}); output:\n${output}\ncalls:\n${transcript}`).toBe(0);

    const problems: string[] = [];
    const documented = new Set<number>();
    let previous = 0;
    for (const [i, answer] of answers.entries()) {
      const made = Number(readFileSync(join(log, `mark.${i}`), "utf8"));
      if (made === previous) {
        problems.push(`line ${answer.line}: "# → ${answer.text}" follows no curl call`);
        continue;
      }
      previous = made;
      const call = calls[made - 1]!;
      documented.add(call.n);
      const where = `line ${answer.line} (curl ${call.args.slice(0, 120)})`;
      if (answer.status !== undefined && call.status !== answer.status)
        problems.push(`${where}: status ${call.status}, documented ${answer.status}; body ${call.body}`);
      if (answer.json) {
        let body: unknown;
        try {
          body = JSON.parse(call.body);
        } catch {
          problems.push(`${where}: the answer is not JSON: ${call.body}`);
          continue;
        }
        for (const m of mismatches(answer.json, body)) problems.push(`${where}: ${m}; body ${call.body}`);
      }
    }
    for (const call of calls)
      if (!documented.has(call.n) && !(call.status !== undefined && call.status >= 200 && call.status < 300))
        problems.push(`call #${call.n} (curl ${call.args.slice(0, 120)}) answered ${call.status}: ${call.body}`);
    if (problems.length > 0) console.error(`the walk-through's curl calls:\n${transcript}`);
    expect(problems).toEqual([]);
  });

  it("after it, the client examples run on that server, end, and say what they did", async () => {
    expect(keys.account, "the walk-through ran").toBeDefined();
    const examples = ["send-now.ts", "schedule-and-cancel.ts", "campaign.ts", "import.ts"];
    expect(readdirSync(resolve(root, "client/examples"))).toEqual(expect.arrayContaining(examples));
    for (const example of examples) {
      // As client/README.md says: SMS_API_KEY=sms_... node --import tsx client/examples/campaign.ts
      const t0 = Date.now();
      const result = await run(
        "node",
        ["--import", "tsx", `client/examples/${example}`],
        {
          SMS_API_KEY: keys.account,
          SMS_API_URL: base,
          NODE_OPTIONS: "",
        },
        { cwd: root },
      );
      const said = `${example} (${Date.now() - t0} ms) said:\n${result.stdout}${result.stderr}`;
      expect(result.code, said).toBe(0);
      // Labelled counts: no line of bare numbers, and every number said with what it counts.
      const lines = result.stdout.trim().split("\n");
      expect(lines.length, said).toBeGreaterThan(0);
      for (const line of lines) expect(line, said).not.toMatch(/^[\d\s]+$/);
      expect(result.stdout, said).toMatch(/\w+: \d+|\d+ \w+/);
    }
  });
});
