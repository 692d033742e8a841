// The intake rules that need more than the message itself (docs/ARCHITECTURE.md, "Where a new intake rule goes"),
// as one ordered list of stages over a set of candidate messages. Each stage keeps some and refuses the rest,
// each refusal built once (domain/intakeRefusals.ts) and worded the same at every door. The doors differ only in
// what a refusal does: a single send or a schedule answers it as a problem, a batch item reports it, a campaign
// refuses itself with it or leaves the recipient out counted by its code, fan-out skips the recipient.
import type { Knex } from "knex";
import { heldAmong } from "../../db/numbers.js";
import { optedOutAmong } from "../../db/optOuts.js";
import { destinationRefusalOf, fundsRefusal, optedOutRefusal, senderRefusal, type IntakeRefusal } from "../../domain/intakeRefusals.js";
import { blockedBy, destinationRefusal, NOT_HELD, type Destinations } from "../../domain/sendingGuards.js";
import { mapYielding } from "../yieldingMap.js";

/** A message as a stage judges it. */
export interface Candidate {
  /** Its destination, E.164. */
  to: string;
  /** Its sender: a number (`+…`) must be one the account holds; an alphanumeric ID is judged as it is made. */
  from?: string | null;
  /** What it costs the account now (absent: nothing: a test, no price list, a campaign's reservation). */
  cost?: number;
  /** Where it is in the request (`/body`, `/body/messages/3`): its refusal names `${path}/to`, `${path}/from`. */
  path: string;
}

/** What the stages read besides the candidates. */
export interface IntakeContext {
  db: Knex;
  accountId: string;
  /** Where the account may send now (its limits under the deployment's rules). */
  destinations: Destinations;
  /** What a prepaid account may still spend; each kept candidate's cost is taken from it. Absent: unlimited. */
  budget?: { available: number };
}

export interface IntakeStage {
  name: IntakeStageName;
  /** The refusals of the candidates it refuses, by their place in `candidates`. */
  refuse(ctx: IntakeContext, candidates: readonly Candidate[]): Promise<Map<number, IntakeRefusal>>;
}

export type IntakeStageName = "destination" | "blocked_prefix" | "held_sender" | "opt_out" | "funds";

/** A destination the account may not send to now: a blocked prefix, a country or range not allowed. */
const destination: IntakeStage = {
  name: "destination",
  async refuse(ctx, candidates) {
    const refused = new Map<number, IntakeRefusal>();
    // A parse each (libphonenumber, ~17 µs): a campaign's 100,000 recipients yield to the event loop as they go.
    const refusals = await mapYielding(candidates, (c) => destinationRefusal(c.to, ctx.destinations));
    refusals.forEach(
      (refusal, i) => refusal && refused.set(i, destinationRefusalOf(candidates[i]!.to, refusal, `${candidates[i]!.path}/to`)),
    );
    return refused;
  },
};

/**
 * A destination under a blocked prefix (the deployment's BLOCKED_PREFIXES, the account's blockedPrefixes), without
 * a parse: what fan-out judges again, since a prefix can be blocked after a campaign was made (the rest of
 * `destination` was judged at creation, and a parse each would cost 100,000 recipients about 2 s of a worker).
 */
const blockedPrefix: IntakeStage = {
  name: "blocked_prefix",
  async refuse(ctx, candidates) {
    const refused = new Map<number, IntakeRefusal>();
    const prefixes = ctx.destinations.blockedPrefixes ?? [];
    if (prefixes.length === 0) return refused;
    candidates.forEach((c, i) => {
      const prefix = prefixes.find((p) => c.to.startsWith(p));
      if (prefix !== undefined) refused.set(i, destinationRefusalOf(c.to, blockedBy(prefix), `${c.path}/to`));
    });
    return refused;
  },
};

/** A number as sender that the account does not hold. */
const heldSender: IntakeStage = {
  name: "held_sender",
  async refuse(ctx, candidates) {
    const numbers = [...new Set(candidates.flatMap((c) => (c.from?.startsWith("+") ? [c.from] : [])))];
    const held = await heldAmong(ctx.db, ctx.accountId, numbers);
    const refused = new Map<number, IntakeRefusal>();
    candidates.forEach((c, i) => {
      if (c.from?.startsWith("+") && !held.has(c.from)) refused.set(i, senderRefusal(c.from, `${c.path}/from`, NOT_HELD));
    });
    return refused;
  },
};

/** A recipient on the account's opt-out list. */
const optOut: IntakeStage = {
  name: "opt_out",
  async refuse(ctx, candidates) {
    const optedOut = await optedOutAmong(ctx.db, ctx.accountId, [...new Set(candidates.map((c) => c.to))]);
    const refused = new Map<number, IntakeRefusal>();
    candidates.forEach((c, i) => optedOut.has(c.to) && refused.set(i, optedOutRefusal(c.to, `${c.path}/to`)));
    return refused;
  },
};

/** A message a prepaid balance cannot pay: the candidates before it are kept, in order, while it can. */
const funds: IntakeStage = {
  name: "funds",
  async refuse(ctx, candidates) {
    const refused = new Map<number, IntakeRefusal>();
    const budget = ctx.budget;
    if (!budget) return refused;
    candidates.forEach((c, i) => {
      const cost = c.cost ?? 0;
      if (cost > budget.available) refused.set(i, fundsRefusal(c.path));
      else budget.available -= cost;
    });
    return refused;
  },
};

/**
 * The stages, in the order they judge: the cheapest first (no database), and funds last, so that only what
 * every other rule keeps is paid for. A new rule is one entry here (and its refusal in intakeRefusals.ts).
 */
export const INTAKE_STAGES: readonly IntakeStage[] = [destination, blockedPrefix, heldSender, optOut, funds];
