import { describe, expect, it } from "vitest";
import { tellingWords } from "../../../env/text/telling.ts";

describe("tellingWords", () => {
  it("keeps a date whole, so another day of the same month is no match", () => {
    expect(tellingWords("My line (Meadow line) from 2026-05-30")).toEqual([
      "line",
      "meadow",
      "line",
      "from",
      "2026-05-30",
    ]);
    expect(tellingWords('"created_at":"2026-05-31T17:08:22Z"')).not.toContain("2026-05-30");
    expect(tellingWords('"created_at":"2026-05-31T17:08:22Z"')).toContain("2026-05-31");
  });

  it("takes names of four letters or more and numbers of two digits or more", () => {
    expect(tellingWords("ACC 4863 5995 (J****, pending_move_in), id 7")).toEqual([
      "4863",
      "5995",
      "pending",
      "move",
    ]);
  });
});
