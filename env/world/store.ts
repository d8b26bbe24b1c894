import type { WorldRecord } from "../../spec/index.ts";
import { copyData } from "../util/copy.ts";
import { keyed } from "../util/lookup.ts";
import type { EntityModel, WorldModel } from "./model.ts";

/**
 * The world's records, by entity and id, with the indexes calls need: children by parent, records
 * by owner, people by email, and each record's rendered answer per tool, dropped when it changes.
 */
export class Store {
  readonly model: WorldModel;
  readonly #records = new Map<string, Map<string, WorldRecord>>();
  readonly #children = new Map<string, Map<string, string[]>>();
  readonly #owned = new Map<string, Map<string, string[]>>();
  readonly #byEmail = new Map<string, string>();
  readonly #answers = new Map<WorldRecord, Map<string, string>>();
  /** Per entity: its field that lists child records (order.items), and the child entity. */
  readonly #childField = new Map<string, { field: string; child: EntityModel }>();
  /** Ids of the records added, changed or removed since {@link Store.track}, by entity. */
  #touched: Map<string, Set<string>> | null = null;

  constructor(model: WorldModel) {
    this.model = model;
    for (const entity of model.entities.values()) {
      this.#records.set(entity.name, new Map());
      if (entity.parent) {
        const parent = model.entities.get(entity.parent.entity) as EntityModel;
        if (parent.fields.has(entity.collection))
          this.#childField.set(parent.name, { field: entity.collection, child: entity });
      }
    }
  }

  /** The entity model of a name. */
  entity(name: string): EntityModel {
    return this.model.entities.get(name) as EntityModel;
  }

  get(entity: string, id: string): WorldRecord | undefined {
    return this.#records.get(entity)?.get(id);
  }

  has(entity: string, id: string): boolean {
    return this.#records.get(entity)?.has(id) === true;
  }

  count(entity: string): number {
    return this.#records.get(entity)?.size ?? 0;
  }

  all(entity: string): IterableIterator<WorldRecord> {
    return (this.#records.get(entity) as Map<string, WorldRecord>).values();
  }

  /**
   * Starts noting which records are added, changed or removed from now on, so what a conversation
   * did is read from the few records it touched instead of from every record.
   */
  track(): void {
    this.#touched = new Map();
  }

  /** The records touched since {@link Store.track} (entity → ids), or null when not tracking. */
  touched(): ReadonlyMap<string, ReadonlySet<string>> | null {
    return this.#touched;
  }

  #touch(entity: string, id: string): void {
    if (!this.#touched) return;
    let ids = this.#touched.get(entity);
    if (!ids) {
      ids = new Set();
      this.#touched.set(entity, ids);
    }
    ids.add(id);
  }

  /** Stores a record and indexes it by parent, owner and (for people) email. */
  add(entity: string, record: WorldRecord): void {
    const model = this.entity(entity);
    const id = record[model.idField] as string;
    this.#touch(entity, id);
    (this.#records.get(entity) as Map<string, WorldRecord>).set(id, record);
    if (model.isPerson && typeof record.email === "string")
      this.#byEmail.set(record.email.toLowerCase(), id);
    const owner = record[this.model.person.idField];
    if (model.parent) index(this.#children, entity, record[model.parent.field] as string, id);
    else if (!model.isPerson && owner !== undefined) {
      index(this.#owned, entity, String(owner), id);
      this.#forget(this.model.person.name, String(owner));
    }
    if (model.parent) this.#forget(model.parent.entity, record[model.parent.field] as string);
  }

  /** Removes a record and its children. */
  remove(entity: string, id: string): void {
    const model = this.entity(entity);
    const record = this.get(entity, id);
    if (!record) return;
    this.#touch(entity, id);
    for (const child of this.model.entities.values()) {
      if (child.parent?.entity !== entity) continue;
      for (const childId of [...(this.#children.get(child.name)?.get(id) ?? [])])
        this.remove(child.name, childId);
    }
    (this.#records.get(entity) as Map<string, WorldRecord>).delete(id);
    this.#answers.delete(record);
    if (model.isPerson && typeof record.email === "string")
      this.#byEmail.delete(record.email.toLowerCase());
    const owner = record[this.model.person.idField];
    if (model.parent) unindex(this.#children, entity, record[model.parent.field] as string, id);
    else if (!model.isPerson && owner !== undefined) {
      unindex(this.#owned, entity, String(owner), id);
      this.#forget(this.model.person.name, String(owner));
    }
    if (model.parent) this.#forget(model.parent.entity, record[model.parent.field] as string);
  }

  /**
   * The record to change in place: the one held, or, when it is a baseline's (frozen, shared with
   * the baseline and every world started from it), a copy of it put in its place.
   */
  writable(entity: string, record: WorldRecord): WorldRecord {
    const records = this.#records.get(entity) as Map<string, WorldRecord>;
    const id = String(record[this.entity(entity).idField]);
    // What the store holds now: an earlier change in this call may have copied it already.
    const held = records.get(id);
    if (held === undefined || !Object.isFrozen(held)) return held ?? record;
    const copy = copyRecord(held);
    // Set on the id already held: the record keeps its place in the store's order.
    records.set(id, copy);
    this.#answers.delete(held);
    return copy;
  }

  /** Marks a record as changed, so its answers (and its parent's, which list it) are rendered again. */
  changed(entity: string, record: WorldRecord): void {
    this.#answers.delete(record);
    const model = this.entity(entity);
    this.#touch(entity, String(record[model.idField]));
    if (model.parent) this.#forget(model.parent.entity, record[model.parent.field] as string);
  }

  /** The person whose email this is, case-insensitively. */
  personByEmail(email: string): string | undefined {
    return this.#byEmail.get(email.toLowerCase());
  }

  /** Records of `entity` that belong to the parent record `parentId`. */
  childrenOf(entity: string, parentId: string): WorldRecord[] {
    return (this.#children.get(entity)?.get(parentId) ?? []).map(
      (id) => this.get(entity, id) as WorldRecord,
    );
  }

  /** Records of `entity` owned by a person, directly or through their parent records. */
  ownedBy(entity: string, personId: string): WorldRecord[] {
    const model = this.entity(entity);
    if (model.isPerson)
      return [this.get(entity, personId)].filter((r): r is WorldRecord => r !== undefined);
    if (!model.parent)
      return (this.#owned.get(entity)?.get(personId) ?? []).map(
        (id) => this.get(entity, id) as WorldRecord,
      );
    const parentModel = this.entity(model.parent.entity);
    return this.ownedBy(parentModel.name, personId).flatMap((parent) =>
      this.childrenOf(entity, parent[parentModel.idField] as string),
    );
  }

  /** A person's newest record of `entity`: the one a read of "their account" answers. */
  newestOwnedBy(entity: string, personId: string): WorldRecord | undefined {
    return newestFirst(this.ownedBy(entity, personId))[0];
  }

  /** The answer a tool gives about a record, as JSON, rendered once until the record changes. */
  answer(record: WorldRecord, tool: string, render: () => WorldRecord): string {
    let byTool = this.#answers.get(record);
    if (!byTool) {
      byTool = new Map();
      this.#answers.set(record, byTool);
    }
    let json = byTool.get(tool);
    if (json === undefined) {
      json = JSON.stringify(render());
      byTool.set(tool, json);
    }
    return json;
  }

  /** A record as an answer shows it: its id, the fields asked for (all when null), and its status. */
  view(entity: string, record: WorldRecord, fields: string[] | null): WorldRecord {
    const model = this.entity(entity);
    const out = newRecord({ [model.idField]: record[model.idField] });
    const childField = this.#childField.get(entity);
    const names = fields ?? [
      ...Object.keys(record),
      ...(childField ? [childField.field] : []),
      ...model.ownedLists.keys(),
    ];
    for (const field of names) {
      // A secret is shown only where an answer's schema asks for it.
      if (field === model.idField || (fields === null && model.secrets.has(field))) continue;
      const listed = model.ownedLists.get(field);
      if (listed !== undefined) {
        const owned = this.entity(listed);
        out[field] = this.ownedBy(listed, record[model.idField] as string).map(
          (r) => r[owned.idField],
        );
      } else if (childField?.field === field) {
        const { child } = childField;
        out[field] = this.childrenOf(child.name, record[model.idField] as string).map((c) => {
          const { [model.idField]: _parent, ...rest } = c;
          return rest;
        });
      } else if (record[field] !== undefined) out[field] = record[field];
    }
    if (record.status !== undefined) out.status = record.status;
    return out;
  }

  /** Every record, by collection, in insertion order: the store's part of a snapshot. */
  toJSON(): Record<string, WorldRecord[]> {
    const out: Record<string, WorldRecord[]> = keyed();
    for (const [entity, records] of this.#records)
      out[this.entity(entity).collection] = [...records.values()];
    return out;
  }

  /** A store holding exactly the records of a snapshot. */
  static from(model: WorldModel, collections: Record<string, WorldRecord[]>): Store {
    const store = new Store(model);
    for (const entity of model.entities.values()) {
      for (const record of collections[entity.collection] ?? [])
        store.add(entity.name, copyRecord(record));
    }
    return store;
  }

  #forget(entity: string, id: string): void {
    const record = this.get(entity, id);
    if (record) this.#answers.delete(record);
  }
}

function index(
  map: Map<string, Map<string, string[]>>,
  entity: string,
  key: string,
  id: string,
): void {
  let byKey = map.get(entity);
  if (!byKey) {
    byKey = new Map();
    map.set(entity, byKey);
  }
  const ids = byKey.get(key);
  if (ids) ids.push(id);
  else byKey.set(key, [id]);
}

function unindex(
  map: Map<string, Map<string, string[]>>,
  entity: string,
  key: string,
  id: string,
): void {
  const ids = map.get(entity)?.get(key);
  if (!ids) return;
  const at = ids.indexOf(id);
  if (at >= 0) ids.splice(at, 1);
}

/**
 * A new record holding these fields, {@link keyed} by spec names: a field a spec names `__proto__`,
 * `constructor` or `hasOwnProperty` is stored and read like any other, never taken for Object's own.
 */
export function newRecord(fields: WorldRecord = {}): WorldRecord {
  return Object.assign(keyed() as WorldRecord, fields);
}

/**
 * A record made read-only, its nested objects and lists too: a baseline's records are shared by its
 * world and every world started from it, each of which copies one only to change it
 * ({@link Store.writable}).
 */
export function frozenRecord(record: WorldRecord): WorldRecord {
  const stack: object[] = [record];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    Object.freeze(next);
    for (const key in next) {
      const value = (next as Record<string, unknown>)[key];
      if (value !== null && typeof value === "object") stack.push(value);
    }
  }
  return record;
}

/**
 * A copy of a record that shares nothing it could change: calls set a record's fields, they never
 * edit a value inside one, so only object values need copying deeply. Objects inside keep their
 * kind (keyed by spec names, or plain), so a copy reads exactly as the record it copies.
 */
export function copyRecord(record: WorldRecord): WorldRecord {
  const copy = newRecord();
  for (const key in record) copy[key] = copyData(record[key], true);
  return copy;
}

/** Lists come back newest first when their records carry a date. */
export function newestFirst(records: WorldRecord[]): WorldRecord[] {
  const field = ["created_at", "date", "updated_at"].find((f) =>
    records.some((r) => typeof r[f] === "string"),
  );
  if (!field) return records;
  return [...records].sort((a, b) => String(b[field] ?? "").localeCompare(String(a[field] ?? "")));
}
