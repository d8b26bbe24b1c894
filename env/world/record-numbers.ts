import { snake } from "../util/names.ts";
import { identityKey } from "./identity.ts";
import type { EntityModel, WorldModel } from "./model.ts";

/** A name a record's own number goes by, beside its id: `rx_number`, `policy_no`, `meter_serial`. */
const NUMBER_NAME = /(^|_)(number|no|ref|reference|serial)$/;

/**
 * The entities whose records carry a parameter's value as a number of their own that is not their
 * id (a prescription's `rx_number`): a call that takes it names one of those records. None for a
 * detail of a person's (a phone number, a postcode) or a catalog's.
 */
export function numberedBy(model: WorldModel, param: string): EntityModel[] {
  const key = snake(param);
  if (!NUMBER_NAME.test(key) || identityKey(key) !== null) return [];
  return [...model.entities.values()].filter(
    (e) => !e.catalog && !e.isPerson && e.idField !== key && e.fields.has(key),
  );
}
