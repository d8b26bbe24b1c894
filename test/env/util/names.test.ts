import { describe, expect, it } from "vitest";
import { CODES_IN_TEXT, codeInWords, saysValue } from "../../../env/util/names.ts";

describe("codes of the world's, as a person hears them", () => {
  it("says a code of lower-case words in words, and any other value as written", () => {
    expect(codeInWords("pending_move_in")).toBe("pending move in");
    expect(codeInWords("no_show")).toBe("no show");
    // An id holds a digit or a capital; a single word is no code.
    for (const value of ["card_4354", "BIZ_UNL", "ws_IwAPKWwq", "active", "a.b_c", "_x"])
      expect(codeInWords(value)).toBe(value);
  });

  it("finds a value said as written or, a code, in words", () => {
    const said = "your order is waiting on insurance, order id ord-1.";
    expect(saysValue(said, "waiting_on_insurance")).toBe(true);
    expect(saysValue(said, "ORD-1")).toBe(true);
    expect(saysValue(said, "waiting_on_payment")).toBe(false);
    expect(saysValue("order ord 1", "ord_1")).toBe(false);
  });
});

describe("codes standing alone in text", () => {
  it("are found as words, never inside an email, a path or a longer token", () => {
    const text =
      "appointment APT-1 is no_show; write to jane_doe.smith@x.com or see /docs/no_show_policy, code ws_abc_1";
    expect(text.match(CODES_IN_TEXT)).toEqual(["no_show"]);
  });
});
