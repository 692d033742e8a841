import { describe, expect, it } from "vitest";
import { matchKeyword } from "../../server/domain/keywords.js";

describe("inbound keywords", () => {
  it("matches every keyword of the three kinds in any case, trimmed, with trailing . or !", () => {
    const cases: [string, string, string][] = [
      ["STOP", "opt_out", "STOP"],
      ["stop", "opt_out", "STOP"],
      ["  Stop.  ", "opt_out", "STOP"],
      ["StopAll!", "opt_out", "STOPALL"],
      ["unsubscribe!!", "opt_out", "UNSUBSCRIBE"],
      ["cancel", "opt_out", "CANCEL"],
      ["End.", "opt_out", "END"],
      ["quit", "opt_out", "QUIT"],
      ["REVOKE", "opt_out", "REVOKE"],
      ["optout", "opt_out", "OPTOUT"],
      ["start", "opt_in", "START"],
      ["Unstop!", "opt_in", "UNSTOP"],
      ["yes.", "opt_in", "YES"],
      ["help", "help", "HELP"],
      ["Info!", "help", "INFO"],
    ];
    for (const [body, kind, word] of cases) expect(matchKeyword(body), body).toEqual({ kind, word });
  });

  it("a sentence that contains a keyword is not one, nor is other punctuation", () => {
    for (const body of ["please stop", "stop it", "STOP?", "stop,", "st op", "STOPPED", "yes please", "help me", "", "."]) {
      expect(matchKeyword(body), body).toBeUndefined();
    }
  });
});
