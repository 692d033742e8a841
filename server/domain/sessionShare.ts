// A connector's sessions shared by the live workers (docs/ROUTING.md, "Sessions"): `sessions` binds for the
// whole service, not per worker. Each connector ranks the workers by a hash of (connector, worker), a
// rendezvous ranking, and deals its sessions out in that order: with n workers, the one ranked r holds
// ⌊sessions / n⌋, one more when r < sessions mod n. Every worker computes the same deal from the same list, so
// no lock or election is needed; a worker joining or leaving moves at most the sessions next to its rank, and
// different connectors start their deal at different workers (one session each does not pile on one worker).
import { createHash } from "node:crypto";

/** How many of `connectorId`'s `sessions` worker `me` holds, with `workers` alive (`me` among them or not). */
export function sessionsHeldBy(me: string, workers: readonly string[], connectorId: string, sessions: number): number {
  const ranked = [...new Set([...workers, me])]
    .map((worker) => ({ worker, rank: createHash("sha256").update(`${connectorId}\0${worker}`).digest("hex") }))
    .sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : a.worker < b.worker ? -1 : 1));
  const r = ranked.findIndex((w) => w.worker === me);
  const n = ranked.length;
  return Math.floor(sessions / n) + (r < sessions % n ? 1 : 0);
}
