import { expect, it } from "vitest";
import { placeholderReason } from "../../../env/world/placeholders.ts";
import { SLOW_BEFORE_THE_FIX } from "../../support/hostile.ts";

it(
  'a value of "${" repeated is not a template slot, and is read in linear time',
  () => {
    expect(placeholderReason("address", "${".repeat(500_000))).toBeNull();
    expect(placeholderReason("order_id", `\${order_id}`)).toBe("it is a template slot");
    expect(placeholderReason("address", "<address>")).toBe("it is a template slot");
    expect(placeholderReason("name", "%NAME%")).toBe("it is a template slot");
  },
  SLOW_BEFORE_THE_FIX,
);

it("a phrase that describes the value is a placeholder; a sentence that quotes the person is not", () => {
  expect(placeholderReason("email", "the customer's email")).toBe(
    "it describes the value instead of giving it",
  );
  expect(placeholderReason("full_name", "the customer's full legal name")).toBe(
    "it describes the value instead of giving it",
  );
  expect(
    placeholderReason(
      "summary",
      'The customer said: "I\'d like to check the account summary of my account 974490769."',
    ),
  ).toBeNull();
});
