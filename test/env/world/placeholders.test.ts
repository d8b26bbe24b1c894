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
