import type { WorldRecord } from "../../spec/index.ts";
import type { Rng } from "../rng.ts";
import type { Draw, EntityModel, Ref, WorldModel } from "./model.ts";
import { OWES_NOTHING, PAID, PART_PAID } from "./statuses.ts";
import type { Store } from "./store.ts";
import { money } from "./values.ts";

/**
 * Keeps what a change draws on (see {@link EntityModel.drawn}) fit for the record's state: a record
 * paid, written off or voided owes nothing, one that owes has something to pay, and a balance
 * spent in steps holds at least one.
 */
export function heldAsDrawn(entity: EntityModel, record: WorldRecord, rng: Rng): void {
  for (const [field, { owed, least }] of entity.drawn) {
    const held = record[field];
    if (typeof held !== "number") continue;
    if (!owed) {
      if (held < least) record[field] = least;
    } else if (typeof record.status === "string" && OWES_NOTHING.test(record.status))
      record[field] = 0;
    else if (held <= 0) record[field] = money(rng, 20, 600);
  }
}

/** Each person's totals of what their records owe (see {@link EntityModel.owedTotals}), once their records are made. */
export function totalOwed(model: WorldModel, store: Store): void {
  const person = model.person;
  if (person.owedTotals.size === 0) return;
  for (const record of store.all(person.name)) {
    const id = record[person.idField] as string;
    for (const [total, { entity, field }] of person.owedTotals) {
      const owed = store.ownedBy(entity, id).reduce((sum, r) => sum + Number(r[field] ?? 0), 0);
      record[total] = Math.round(owed * 100) / 100;
    }
    store.changed(person.name, record);
  }
}

/**
 * The record a change draws on: the record itself, or the person's record that holds the balance
 * (found through the person the call names, else the changed record's owner).
 */
export function drawnRecord(
  store: Store,
  draw: Draw,
  target: WorldRecord,
  refs: { ref: Ref; record: WorldRecord }[],
): WorldRecord | undefined {
  const model = store.model;
  if (draw.onTarget) return target;
  const personField = model.person.idField;
  const person =
    refs.find(({ ref }) => store.entity(ref.entity).isPerson)?.record[personField] ??
    target[personField];
  return typeof person === "string" ? store.newestOwnedBy(draw.entity, person) : undefined;
}

/**
 * Lowers the balance a change draws on. A record paid off is `paid`, one paid in part
 * `partially_paid`, where its entity knows those states.
 */
export function drawDown(store: Store, draw: Draw, record: WorldRecord, by: number): void {
  const entity = store.entity(draw.entity);
  const changed = draw.onTarget ? record : store.writable(entity.name, record);
  const left = Math.round(((changed[draw.field] as number) - by) * 100) / 100;
  changed[draw.field] = left;
  if (draw.onTarget) {
    owedByOwner(store, draw, record, by);
    const known = [...entity.statuses.usable, ...entity.statuses.terminal];
    const after = left <= 0 ? PAID : PART_PAID;
    const status = known.find((s) => after.test(s));
    if (status) changed.status = status;
  } else store.changed(entity.name, changed);
}

/** The fields a charge is held in, first to last: what a count spent comes off. */
export const CHARGE = [
  "total",
  "total_price",
  "total_amount",
  "amount_due",
  "balance_due",
  "price",
];

/**
 * Takes what a count spent is worth off the changed record's charge ("1,000 points = 5.00 off"),
 * never below nothing; returns what came off.
 */
export function spentOff(draw: Draw, changed: WorldRecord, spent: number): number {
  const field = CHARGE.find((f) => typeof changed[f] === "number");
  if (!draw.worth || !field) return 0;
  const charge = changed[field] as number;
  const off = Math.min(charge, Math.round((spent / draw.worth.per) * draw.worth.off * 100) / 100);
  changed[field] = Math.round((charge - off) * 100) / 100;
  return off;
}

/** Lowers the totals of what the paid record's owner owes (a patient's `outstanding_balance`). */
function owedByOwner(store: Store, draw: Draw, record: WorldRecord, by: number): void {
  const person = store.model.person;
  const owner = record[person.idField];
  const held = typeof owner === "string" ? store.get(person.name, owner) : undefined;
  if (!held) return;
  const changed = store.writable(person.name, held);
  for (const [total, { entity, field }] of person.owedTotals) {
    if (entity !== draw.entity || field !== draw.field || typeof changed[total] !== "number")
      continue;
    changed[total] = Math.max(0, Math.round(((changed[total] as number) - by) * 100) / 100);
  }
  store.changed(person.name, changed);
}
