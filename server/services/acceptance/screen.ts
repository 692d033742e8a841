// A door's candidates through the intake stages it names (stages.ts), in the stages' own order.
import type { IntakeRefusal } from "../../domain/intakeRefusals.js";
import { INTAKE_STAGES, type Candidate, type IntakeContext, type IntakeStageName } from "./stages.js";

export interface Screened {
  /** The places (in the candidates given) of those every stage kept, in order. */
  kept: number[];
  /** The refusal of each refused candidate, by its place, and the stage that refused it. */
  refused: Map<number, { refusal: IntakeRefusal; stage: IntakeStageName }>;
}

/**
 * Runs `stages` (all of them when absent) over `candidates`: each stage sees only what the stages before it
 * kept, so a candidate is refused once, by the first rule it breaks.
 */
export async function screen(ctx: IntakeContext, candidates: readonly Candidate[], stages?: readonly IntakeStageName[]): Promise<Screened> {
  let kept = candidates.map((_, i) => i);
  const refused: Screened["refused"] = new Map();
  for (const stage of INTAKE_STAGES) {
    if (stages && !stages.includes(stage.name)) continue;
    if (kept.length === 0) break;
    const judged = await stage.refuse(
      ctx,
      kept.map((i) => candidates[i]!),
    );
    if (judged.size === 0) continue;
    kept = kept.filter((i, j) => {
      const refusal = judged.get(j);
      if (refusal) refused.set(i, { refusal, stage: stage.name });
      return !refusal;
    });
  }
  return { kept, refused };
}
