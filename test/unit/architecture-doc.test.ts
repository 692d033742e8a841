// docs/ARCHITECTURE.md draws the message state machine; this checks the drawing against the table the code
// enforces (server/domain/messageStatus.ts), so the diagram cannot drift from the rules. Its layout of server/
// names every folder there is, so a new folder is described when it is made.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { canTransition, FINAL_STATUSES } from "../../server/domain/messageStatus.js";

const STORED = ["scheduled", "sending", "sent", "delivered", "undelivered", "failed", "cancelled"] as const;
const doc = readFileSync(resolve(import.meta.dirname, "../../docs/ARCHITECTURE.md"), "utf8");

function diagramEdges(marker: string): [string, string][] {
  const block = [...doc.matchAll(/```mermaid\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes(marker));
  if (!block) throw new Error(`no Mermaid diagram containing "${marker}"`);
  return [...block.matchAll(/^\s*(\[\*\]|\w+) --> (\[\*\]|\w+)/gm)].map((m) => [m[1]!, m[2]!]);
}

describe("docs/ARCHITECTURE.md, message statuses", () => {
  const edges = diagramEdges("scheduled --> sending");
  const drawn = new Set(edges.map(([from, to]) => `${from} -> ${to}`));

  it("draws exactly the transitions the code allows", () => {
    const allowed = STORED.flatMap((from) => STORED.filter((to) => canTransition(from, to)).map((to) => `${from} -> ${to}`));
    const drawnBetweenStatuses = [...drawn].filter((edge) => !edge.includes("[*]"));
    expect(drawnBetweenStatuses.sort()).toEqual(allowed.sort());
  });

  it("ends exactly the final statuses, and starts at scheduled", () => {
    const ends = edges.filter(([, to]) => to === "[*]").map(([from]) => from);
    expect(ends.sort()).toEqual([...FINAL_STATUSES].sort());
    expect(edges.filter(([from]) => from === "[*]").map(([, to]) => to)).toEqual(["scheduled"]);
  });
});

describe("docs/ARCHITECTURE.md, the layout of server/", () => {
  it("describes every folder of server/ in its layout block", () => {
    const block = doc.slice(doc.indexOf("## Layout of server/")).match(/```\n(server\/[\s\S]*?)```/)?.[1];
    expect(block, "the layout block").toBeDefined();
    const server = resolve(import.meta.dirname, "../../server");
    const folders = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .flatMap((e) => [join(dir, e.name), ...folders(join(dir, e.name))]);
    const undescribed = folders(server)
      .map((dir) => relative(server, dir))
      .filter((dir) => !new RegExp(`(^|[\\s(])${dir.split("/").at(-1)}/`, "m").test(block!));
    expect(undescribed).toEqual([]);
  });
});
