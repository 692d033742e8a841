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

  it("honours STOP as people write it: punctuation and quotes around it, fullwidth, zero-width characters inside", () => {
    const forms = [
      "STOP,",
      "stop?",
      '"STOP"',
      "“Stop”",
      "'stop'",
      "Stop!!",
      "(STOP)",
      "¡stop!",
      "ＳＴＯＰ",
      "S\u200BTOP",
      "ST\u200COP",
      "\uFEFFSTOP",
      "STO\u2060P",
      "S\u00ADTOP",
      "  «stop»  ",
      "STOP.\n",
    ];
    for (const body of forms) expect(matchKeyword(body), JSON.stringify(body)).toEqual({ kind: "opt_out", word: "STOP" });
  });

  it("reads look-alike letters and bidi controls as the keyword they spell", () => {
    const forms = [
      "S\u03A4OP", // Greek capital tau
      "s\u0442op", // Cyrillic small te
      "\u0405\u0422\u041E\u0420", // Cyrillic DZE, TE, O, ER: every letter a look-alike
      "\uA4E2TOP", // Lisu letter SA
      "\u202ESTOP", // right-to-left override
      "ST\u200FOP", // right-to-left mark
      "\u2067STOP\u2069", // an isolate around it
      "\u061CSTOP", // Arabic letter mark
    ];
    for (const body of forms) expect(matchKeyword(body), JSON.stringify(body)).toEqual({ kind: "opt_out", word: "STOP" });
    expect(matchKeyword("\u0405\u0422\u0410R\u0422")).toEqual({ kind: "opt_in", word: "START" });
    expect(matchKeyword("H\u0415LP")).toEqual({ kind: "help", word: "HELP" });
  });

  it("keeps to the contract's list: another word beside a keyword, or a translation, is ordinary text", () => {
    for (const body of ["stop all", "STOP ALL", "opt out", "OPT-OUT", "ARRET", "стоп"]) expect(matchKeyword(body), body).toBeUndefined();
  });

  it("a sentence that contains a keyword is not one, nor is a word split by spaces or joined to a symbol", () => {
    for (const body of ["please stop", "stop it", "st op", "STOPPED", "stop👍", "yes please", "help me", "", ".", "S T O P"]) {
      expect(matchKeyword(body), body).toBeUndefined();
    }
  });
});
