import type {
  PersonDetails,
  Situation,
  WorldKind,
  WorldRecord,
  WorldState,
} from "../../spec/index.ts";
import { Rng } from "../rng.ts";
import { copyData } from "../util/copy.ts";
import { keyed } from "../util/lookup.ts";
import { snake } from "../util/names.ts";
import { DAY, ISO_DAY, isoDay, WORLD_TODAY } from "./dates.ts";
import { heldAsDrawn, totalOwed } from "./draws.ts";
import { type Identity, identityKey, PLACE_DETAILS } from "./identity.ts";
import { uniqueId } from "./ids.ts";
import type { EntityModel, ToolModel, WorldModel } from "./model.ts";
import { patternCheck } from "./pattern.ts";
import { datesForState, timetabled, whenOf } from "./state-dates.ts";
import { inState, meets } from "./statuses.ts";
import { newRecord, Store } from "./store.ts";
import {
  creationAliases,
  datesInOrder,
  money,
  orderedPairs,
  personIdentity,
  type SchemaFragment,
  stayFields,
  stayInShape,
  type ValueContext,
  valueFor,
  type Whereabouts,
  worldCurrency,
} from "./values.ts";
import { PLACES } from "./vocabulary.ts";

/** A built world: its records, what the person holds, and the description a row keeps. */
export interface BuiltWorld {
  store: Store;
  person: PersonDetails;
  state: WorldState;
}

/** Other customers in a world of default size, so that the person's records are not the only ones. */
const OTHER_PEOPLE = 4;
/** The identity details a person states as they know them (name, email and phone have fields of their own). */
const IDENTITY_DETAILS = [
  "first_name",
  "last_name",
  "date_of_birth",
  "street",
  "city",
  "zip",
  "state",
  "country",
  "address",
] as const;
/** Words before a link's field that say the id is of the record's owner or parent (`owner_customer_id`). */
const OWNING =
  /^(owner|owning|owned_by|primary|main|lead|holder|account_holder|booking|booked_by|parent)$/;
/** Fields that say what a person may do where they belong (`role`, `access_level`). */
const ROLE = /(^|_)(role|access_level|permission_level)$/;
/** Records of a catalog (products, plans, flights): fewest, and how many more at most. */
const CATALOG_SIZE = { least: 8, more: 5 };
/** Draws of another name for a record whose name another of its kind and holder has, before it keeps one that is taken. */
const NAME_DRAWS = 12;

/**
 * Generates the records of a situation's world and shapes them by its `world` axis value: the
 * person, their records and other people's, then the subject of the request made missing, final,
 * duplicated, contradicted or emptied.
 */
export function buildWorld(
  model: WorldModel,
  situation: Situation,
  seed: number,
  size?: number,
): BuiltWorld {
  const rng = new Rng(seed, "world", situation.id);
  const maker = new RecordMaker(model, new Store(model), rng.fork("records"), worldCurrency(rng));
  const person = maker.person(0);
  if (model.group) maker.privileged(person.record);
  const personId = person.record[model.person.idField] as string;
  maker.catalogs(person.identity);
  maker.holdings(person, true);
  for (let n = 1; n <= OTHER_PEOPLE || (size !== undefined && maker.count < size); n++)
    maker.holdings(maker.person(n), false);

  const tool = model.tools.get(situation.axes.tool) as ToolModel;
  const subject = new Subject(model, maker, tool, personId, person.identity, rng.fork("subject"));
  const shaped = subject.shape(situation.axes.world);
  totalOwed(model, maker.store);
  return {
    store: maker.store,
    person: subject.details(),
    state: subject.state(situation.axes.world, shaped),
  };
}

/** A field that ties a new record to another (its owner's or its parent's id), and its value. */
type Link = readonly [field: string, value: unknown];

/** Makes records with unique ids and plausible fields, for a person and their holdings. */
class RecordMaker {
  readonly model: WorldModel;
  readonly store: Store;
  readonly rng: Rng;
  readonly currency: string;
  count = 0;

  constructor(model: WorldModel, store: Store, rng: Rng, currency: string) {
    this.model = model;
    this.store = store;
    this.rng = rng;
    this.currency = currency;
  }

  /**
   * A person record, its details from their identity; serial 0 is the one the conversation is
   * with, or, with a link to what they share with them (a workspace), a colleague of theirs.
   */
  person(serial: number, link: Link | null = null): { record: WorldRecord; identity: Identity } {
    const identity = personIdentity(this.rng, serial, this.model.places);
    // A colleague's email is made unique only when it has to be.
    if (link && this.store.personByEmail(identity.email))
      identity.email = identity.email.replace("@", `${this.count}@`);
    const record = this.make(this.model.person, identity, link);
    this.add(this.model.person, record);
    return { record, identity };
  }

  /**
   * The records nobody owns (products, plans, flights), with their children. The first two are
   * where the person lives, so what they ask about near them (a tariff for their postcode) exists.
   */
  catalogs(local: Identity): void {
    const { zip, city, state, country } = local;
    for (const entity of this.model.entities.values()) {
      // A catalog's children (a therapist's slots) are made with their parents.
      if (!entity.catalog || !entity.seeded || entity.parent) continue;
      // A record that says where it is (a store's address and zip) is somewhere, all of it in one place.
      const placed = [...entity.fields.keys()].some(
        (f) => /address$/.test(f) || PLACE_DETAILS.has(identityKey(f.toLowerCase()) ?? ""),
      );
      // A closed set of ids keeps one free, for a world that duplicates a record of it.
      const n = Math.min(
        CATALOG_SIZE.least + this.rng.int(CATALOG_SIZE.more),
        Math.max(1, (entity.idFormat.values?.length ?? Number.POSITIVE_INFINITY) - 1),
      );
      for (let i = 0; i < n; i++) {
        this.#place = i < 2 ? { zip, city, state, country } : placed ? this.#somewhere() : null;
        this.withChildren(entity, undefined, null);
      }
      this.#place = null;
    }
  }

  /** Where the catalog record being made is: near the person, or somewhere else. */
  #place: Whereabouts | null = null;

  /** A place of this spec's people (whose postal codes its patterns accept). */
  #somewhere(): Whereabouts {
    const { zip, city, state, country } = this.rng.pick(
      this.model.places.length > 0 ? this.model.places : PLACES,
    );
    return { zip, city, state, country };
  }

  /** Root records a person owns (orders, accounts…) and their children (items, transactions…). */
  holdings(owner: { record: WorldRecord; identity: Identity }, isSubject: boolean): void {
    const ownerId = owner.record[this.model.person.idField] as string;
    for (const entity of this.model.entities.values()) {
      if (entity.isPerson || entity.parent || entity.catalog || !entity.seeded) continue;
      const n = isSubject ? 2 + this.rng.int(2) : 1 + this.rng.int(2);
      for (let i = 0; i < n; i++) {
        // Ids from a closed set run out: records stop while one stays free for a duplicate (the
        // person keeps at least one).
        if ((!isSubject || i > 0) && this.#closedSetFull(entity)) break;
        const record = this.withChildren(entity, owner.identity, [
          this.model.person.idField,
          ownerId,
        ]);
        if (isSubject && entity.name === this.model.group) this.#colleagues(entity, record);
      }
    }
  }

  /**
   * Someone who acts on others of their kind holds one of the higher roles their record can: the
   * higher half of a role's choices, listed highest first as specs do (`owner`, `admin` of
   * `owner | admin | member | guest`).
   */
  privileged(record: WorldRecord): void {
    for (const [field, schema] of this.model.person.fields) {
      const choices = schema?.enum;
      if (!ROLE.test(field) || !Array.isArray(choices) || choices.length < 2) continue;
      record[field] = this.rng.pick(choices.slice(0, Math.max(1, Math.floor(choices.length / 2))));
    }
  }

  /** Others of the person's kind in a record they share with them (the users of a workspace). */
  #colleagues(group: EntityModel, record: WorldRecord): void {
    const n = 2 + this.rng.int(3);
    for (let i = 0; i < n; i++) this.person(0, [group.idField, record[group.idField]]);
  }

  #closedSetFull(entity: EntityModel): boolean {
    const values = entity.idFormat.values;
    return values !== undefined && this.store.count(entity.name) >= values.length - 1;
  }

  /** A record and, recursively, the child records that belong to it. */
  withChildren(
    entity: EntityModel,
    identity: Identity | undefined,
    link: Link | null,
  ): WorldRecord {
    const record = this.make(entity, identity, link);
    this.add(entity, record);
    for (const child of this.model.entities.values()) {
      if (child.parent?.entity !== entity.name || !child.seeded) continue;
      // A ledger's entries (an account's transactions, a subscription's invoices: children with
      // an amount) run longer than other children, as money moves in and out.
      const n = 1 + this.rng.int(child.fields.has("amount") ? 5 : 3);
      const children: WorldRecord[] = [];
      for (let i = 0; i < n; i++) {
        const made = this.withChildren(child, identity, [entity.idField, record[entity.idField]]);
        if (child.statuses.usable.includes(record.status as string)) made.status = record.status;
        // A child names its parent as the parent is named (a slot's `therapist_name`).
        const named = `${entity.name}_name`;
        if (typeof made[named] === "string" && typeof record.name === "string")
          made[named] = record.name;
        children.push(made);
      }
      totalOf(record, children);
    }
    return record;
  }

  /** A record of an entity with a fresh id, its link, generated fields and a usable status. */
  make(entity: EntityModel, identity: Identity | undefined, link: Link | null): WorldRecord {
    const record = newRecord();
    record[entity.idField] = this.freshId(entity);
    if (link) {
      record[link[0]] = link[1];
      // The same id under a name that says whose it is (a reservation's `owner_customer_id`).
      for (const [field, fits] of this.#linkNames(entity, link[0]))
        if (fits === null || (typeof link[1] === "string" && fits(link[1])))
          record[field] = link[1];
    }
    const childField = this.#childField(entity);
    const ctx: ValueContext = {
      rng: this.rng,
      entity: entity.name,
      isPerson: entity.isPerson,
      currency: this.currency,
    };
    if (identity) ctx.owner = identity;
    if (this.#place) ctx.place = this.#place;
    for (const [field, schema] of entity.fields) {
      // Lists of children and of what the person owns are read from the records themselves.
      if (field === childField || field in record || entity.ownedLists.has(field)) continue;
      record[field] = valueFor(field, schema, ctx);
    }
    if (!entity.isPerson)
      this.#namedApart(entity, record, ctx, entity.catalog ? "" : String(link?.[1] ?? ""));
    for (const field of entity.balanceFields) record[field] = money(this.rng, 250, 6000);
    if (entity.balanceFields.length > 1) {
      const [first, ...rest] = entity.balanceFields as [string, ...string[]];
      for (const field of rest) record[field] = record[first];
    }
    if (!entity.isPerson) record.status = this.rng.pick(entity.statuses.usable);
    if (!entity.catalog) this.#fromCatalogs(record);
    heldAsDrawn(entity, record, this.rng);
    if (identity && !entity.isPerson) this.#sameForOwner(entity, identity, record);
    // Items listed inside the record (not records of their own) add up to its total too.
    const listed = listedItems(record);
    if (listed) totalOf(record, listed);
    // Records of one entity are made with the same fields, so their date pairs are found once.
    let pairs = this.#datePairs.get(entity.name);
    if (!pairs) {
      pairs = orderedPairs(Object.keys(record));
      this.#datePairs.set(entity.name, pairs);
      this.#stays.set(entity.name, stayFields(Object.keys(record)));
    }
    datesInOrder(record, pairs);
    const stay = this.#stays.get(entity.name);
    if (stay && !listed) stayInShape(record, this.rng, stay);
    creationAliases(record);
    if (!entity.isPerson)
      datesForState(record, record[entity.idField] as string, timetabled(entity.statuses.usable));
    return record;
  }

  /** The secrets of each owner's records, as they were first made: the same on all of them. */
  readonly #secrets = new Map<Identity, Map<string, unknown>>();

  /**
   * A person's records of one entity share what a verification checks: one bank account pays all
   * their direct debits, one PIN guards their accounts. A person with three accounts at one
   * address is then verified on whichever they pick, as they would be.
   */
  #sameForOwner(entity: EntityModel, identity: Identity, record: WorldRecord): void {
    if (entity.secrets.size === 0) return;
    let held = this.#secrets.get(identity);
    if (!held) {
      held = new Map();
      this.#secrets.set(identity, held);
    }
    for (const field of entity.secrets) {
      if (!(field in record)) continue;
      const key = `${entity.name}\u0000${field}`;
      if (held.has(key)) record[field] = held.get(key);
      else held.set(key, record[field]);
    }
  }

  /**
   * What a record lists of a catalog's records is of those records: a reservation's `flights`,
   * each with a `flight_number`, are flights the world has, with their own dates, so a seat for
   * one of them, or its status, is found. A record whose state puts its event ahead of today (a
   * scheduled reservation) lists those still to come where there are any, one behind it those gone;
   * and no record is listed twice while others are left.
   */
  #fromCatalogs(record: WorldRecord): void {
    const when = typeof record.status === "string" ? whenOf(record.status) : null;
    const taken = new Set<WorldRecord>();
    for (const value of Object.values(record)) {
      if (!Array.isArray(value)) continue;
      for (const item of value) {
        if (item === null || typeof item !== "object" || Array.isArray(item)) continue;
        const listed = item as WorldRecord;
        for (const catalog of this.#catalogEntities()) {
          if (!Object.hasOwn(listed, catalog.idField)) continue;
          const made = [...this.store.all(catalog.name)].filter((c) => !taken.has(c));
          const agreeing = made.filter((c) => sameSide(c, listed, when));
          const pool = agreeing.length > 0 ? agreeing : made;
          if (pool.length === 0) continue;
          const chosen = this.rng.pick(pool);
          taken.add(chosen);
          for (const key of Object.keys(listed))
            if (Object.hasOwn(chosen, key) && typeof chosen[key] !== "object")
              listed[key] = chosen[key];
        }
      }
    }
  }

  #rootCatalogs: EntityModel[] | null = null;

  /** The catalogs that are no other record's part (flights, products). */
  #catalogEntities(): EntityModel[] {
    this.#rootCatalogs ??= [...this.model.entities.values()].filter(
      (e) => e.catalog && e.parent === null && !e.isPerson,
    );
    return this.#rootCatalogs;
  }

  /** The names records have so far, per catalog and per owner's (or parent's) records of an entity. */
  readonly #namesTaken = new Map<string, Set<string>>();

  /**
   * A catalog record is called what no other record of its catalog is, and a person's record what
   * none of theirs of its kind is, while the names last: a person who asks for "the Tundra
   * property" or "my Harbor workspace" means one, and a list that shows two of that name by
   * chance leaves them guessing. `holder` is the owner's or parent's id ("" for a catalog).
   */
  #namedApart(entity: EntityModel, record: WorldRecord, ctx: ValueContext, holder: string): void {
    if (typeof record.name !== "string") return;
    const schema = entity.fields.get("name");
    const key = `${entity.name}\u0000${holder}`;
    let names = this.#namesTaken.get(key);
    if (!names) {
      names = new Set();
      this.#namesTaken.set(key, names);
    }
    let name = record.name;
    for (let tries = 0; names.has(name) && tries < NAME_DRAWS; tries++) {
      const drawn = valueFor("name", schema, ctx);
      if (typeof drawn === "string") name = drawn;
    }
    record.name = name;
    names.add(name);
  }

  readonly #linkFields = new Map<string, [string, ((id: string) => boolean) | null][]>();

  /**
   * Fields of an entity that hold the id its link holds, named for whose it is: `owner_`,
   * `primary_`, `holder_`… before the link's field (`owner_customer_id`), each with the check of
   * its schema's pattern. A field for someone else's record (`recipient_customer_id`), or one whose
   * schema takes no such id, keeps its own value.
   */
  #linkNames(entity: EntityModel, linkField: string): [string, ((id: string) => boolean) | null][] {
    const key = `${entity.name}\u0000${linkField}`;
    let fields = this.#linkFields.get(key);
    if (!fields) {
      fields = [...entity.fields]
        .filter(
          ([field, schema]) =>
            field.endsWith(`_${linkField}`) &&
            OWNING.test(field.slice(0, -linkField.length - 1)) &&
            (schema?.type === undefined || schema.type === "string") &&
            schema?.enum === undefined &&
            schema?.const === undefined,
        )
        .map(([field, schema]) => [field, schema?.pattern ? patternCheck(schema.pattern) : null]);
      this.#linkFields.set(key, fields);
    }
    return fields;
  }

  readonly #childFields = new Map<string, string | undefined>();
  readonly #datePairs = new Map<string, [string, string][]>();
  /** Each entity's check-in and check-out fields, when its records are stays. */
  readonly #stays = new Map<string, readonly [string, string] | null>();

  /** The field of an entity's records that lists its children (an order's items), if it has children. */
  #childField(entity: EntityModel): string | undefined {
    if (!this.#childFields.has(entity.name))
      this.#childFields.set(
        entity.name,
        [...this.model.entities.values()].find((c) => c.parent?.entity === entity.name)?.collection,
      );
    return this.#childFields.get(entity.name);
  }

  add(entity: EntityModel, record: WorldRecord): void {
    this.store.add(entity.name, record);
    this.count++;
  }

  /** An id of the entity's shape that no record has. */
  freshId(entity: EntityModel): string {
    return uniqueId(
      entity.idFormat,
      this.rng,
      (id) => this.store.has(entity.name, id) || entity.exampleIds.has(id),
      entity.name,
    );
  }
}

/**
 * Whether a catalog's record has its days where a state wants them: every day it shares with the
 * listed item (a flight's `date`) ahead of today for `ahead`, behind it for `past`.
 */
function sameSide(record: WorldRecord, listed: WorldRecord, when: string | null): boolean {
  if (when !== "ahead" && when !== "past") return true;
  const today = isoDay(WORLD_TODAY);
  return Object.keys(listed).every((key) => {
    const day = record[key];
    if (typeof day !== "string" || !ISO_DAY.test(day)) return true;
    return when === "ahead" ? day.slice(0, 10) >= today : day.slice(0, 10) < today;
  });
}

/** The first field of a record that lists items with prices (an order's `items`), if one does. */
function listedItems(record: WorldRecord): WorldRecord[] | undefined {
  for (const field in record) {
    const value = record[field];
    if (!Array.isArray(value) || value.length === 0) continue;
    if (value.every((item) => item !== null && typeof item === "object" && "price" in item))
      return value as WorldRecord[];
  }
  return undefined;
}

/** A parent's total is what its children cost, when both sides have the numbers. */
function totalOf(parent: WorldRecord, children: WorldRecord[]): void {
  const field = ["total", "subtotal"].find((f) => typeof parent[f] === "number");
  if (!field || !children.every((c) => typeof c.price === "number")) return;
  const sum = children.reduce(
    (acc, c) => acc + (c.price as number) * (typeof c.quantity === "number" ? c.quantity : 1),
    0,
  );
  parent[field] = Math.round(sum * 100) / 100;
}

/** The record a request is about, what the person holds to name it, and what the world axis did. */
class Subject {
  readonly #model: WorldModel;
  readonly #maker: RecordMaker;
  readonly #tool: ToolModel;
  readonly #personId: string;
  readonly #identity: Identity;
  /** Who the person turns out to be when the world has no record of them (record_missing). */
  #stranger: Identity | null = null;
  readonly #rng: Rng;
  readonly entity: EntityModel;
  record: WorldRecord | null;
  readonly #ids = new Map<string, string>();
  // Keyed by fields and parameters, which a spec may name `__proto__` or `constructor`.
  readonly #claims: Record<string, unknown> = keyed();
  readonly #candidates: Record<string, string[]> = keyed();
  /** The email the person gives when the world does not know them (record_missing of a person). */
  #email: string | null = null;
  #exists = true;
  /** The record is someone else of the person's kind (a colleague an admin removes). */
  readonly #another: boolean;

  constructor(
    model: WorldModel,
    maker: RecordMaker,
    tool: ToolModel,
    personId: string,
    identity: Identity,
    rng: Rng,
  ) {
    this.#model = model;
    this.#maker = maker;
    this.#tool = tool;
    this.#personId = personId;
    this.#identity = identity;
    this.#rng = rng;
    this.entity = this.#subjectEntity();
    const colleague = this.#colleague();
    this.#another = colleague !== null;
    this.record = this.entity.isPerson
      ? (colleague ?? this.#store.get(this.entity.name, personId) ?? null)
      : this.#pick(this.entity);
    this.#holdIds();
  }

  get #store(): Store {
    return this.#maker.store;
  }

  /** Applies the world axis value; returns what it did, for the row. */
  shape(world: WorldKind): Record<string, unknown> {
    const target = this.#statusTarget();
    const idOf = (r: WorldRecord, e: EntityModel) => r[e.idField] as string;
    switch (world) {
      case "normal":
        if (target) this.#actable(target);
        return {};
      case "record_missing":
        return this.#makeMissing();
      case "terminal_state": {
        if (!target) return { note: "no record with a status to make final" };
        target.record.status = this.#rng.pick(target.entity.statuses.terminal);
        heldAsDrawn(target.entity, target.record, this.#rng);
        datesForState(
          target.record,
          idOf(target.record, target.entity),
          timetabled(target.entity.statuses.usable),
        );
        this.#store.changed(target.entity.name, target.record);
        return {
          terminal: {
            entity: target.entity.name,
            id: idOf(target.record, target.entity),
            status: target.record.status,
          },
        };
      }
      case "duplicate_records": {
        if (!target) return { note: "no record to duplicate" };
        this.#actable(target);
        const twin = this.#twin(target.entity, target.record);
        const ids = [idOf(target.record, target.entity), idOf(twin, target.entity)];
        const listable = this.#listable(target.entity);
        if (listable) this.#withhold(target.entity);
        else
          for (const [param, value] of this.#ids)
            if (value === ids[0]) this.#candidates[param] = ids;
        return { duplicates: ids, entity: target.entity.name, id_withheld: listable };
      }
      case "conflicting_records": {
        if (!target) return { note: "no record to contradict" };
        this.#actable(target);
        const twin = this.#twin(target.entity, target.record);
        const field = this.#contradict(target.entity, target.record, twin);
        this.#claims[field] = twin[field];
        if (!this.#listable(target.entity))
          this.#store.remove(target.entity.name, idOf(twin, target.entity));
        return {
          conflict: {
            entity: target.entity.name,
            id: idOf(target.record, target.entity),
            field,
            world_value: target.record[field],
            person_claims: twin[field],
            ...(this.#listable(target.entity) ? { other_record: idOf(twin, target.entity) } : {}),
          },
        };
      }
      case "empty_account":
        return this.#empty();
    }
  }

  /**
   * Puts the record the request is about in a state the situation's tool acts in (a pending order
   * for cancel_pending_order), and not already in the state it leaves it in (a line to restore is
   * not active): in a normal world, and before a duplicate or a contradiction is made of it, so
   * those worlds ask which record, or whose word, and not also whether it can be done.
   */
  #actable(target: { entity: EntityModel; record: WorldRecord }): void {
    if (target.record.status === undefined) return;
    const requires = target.entity === this.entity ? this.#tool.requires : null;
    const after = target.entity === this.entity ? this.#tool.statusAfter : null;
    const status = target.record.status as string;
    const final = target.entity.statuses.terminal.includes(status);
    if (
      (!final || requires?.statuses.includes(status)) &&
      meets(requires, status) &&
      !(after && inState(status, after))
    )
      return;
    const fitting = target.entity.statuses.usable.filter(
      (s) => meets(requires, s) && !(after && inState(s, after)),
    );
    const wanted = (requires?.statuses ?? []).filter((s) => !(after && inState(s, after)));
    target.record.status = this.#rng.pick(
      wanted.length > 0 ? wanted : fitting.length > 0 ? fitting : target.entity.statuses.usable,
    );
    heldAsDrawn(target.entity, target.record, this.#rng);
    datesForState(
      target.record,
      target.record[target.entity.idField] as string,
      timetabled(target.entity.statuses.usable),
    );
    this.#store.changed(target.entity.name, target.record);
  }

  /** The details the person holds, for the people who will play them. */
  details(): PersonDetails {
    const identity = this.#stranger ?? this.#identity;
    const details: Record<string, string> = keyed();
    for (const key of IDENTITY_DETAILS) details[key] = identity[key];
    // Details the person's record is looked up by that are not identity (a membership number) are theirs too.
    const own = this.#stranger
      ? undefined
      : this.#store.get(this.#model.person.name, this.#personId);
    for (const field of this.#model.person.fields.keys()) {
      const value = own?.[field];
      if (identityKey(field) === null && (typeof value === "string" || typeof value === "number"))
        details[field] = String(value);
    }
    // So are the details a verification checks on their records (an account PIN's last four digits).
    if (!this.#stranger)
      for (const tool of this.#model.tools.values()) {
        if (tool.verifies.length === 0) continue;
        const entity = this.#model.entities.get(tool.entity) as EntityModel;
        const held = tool.idParam ? this.#ids.get(tool.idParam) : undefined;
        const record = entity.isPerson
          ? own
          : entity === this.entity && this.record
            ? this.record
            : ((held ? this.#store.get(entity.name, held) : undefined) ?? this.#pick(entity));
        for (const param of tool.verifies) {
          const value = record?.[snake(param)];
          if ((typeof value === "string" || typeof value === "number") && !(param in details))
            details[param] = String(value);
        }
      }
    const ids = Object.assign(keyed(), Object.fromEntries(this.#ids));
    // Who a check of who they are asks by their own id (`check_verification_code(user_id)`) knows it.
    if (!this.#stranger)
      for (const tool of this.#model.tools.values()) {
        if (tool.verifies.length === 0) continue;
        for (const [param, entity] of tool.idEntities)
          if (
            entity === this.#model.person.name &&
            !(param in ids) &&
            param !== tool.idParam &&
            // …never under a name the request uses for another record (a colleague's withheld id).
            !this.#tool.idEntities.has(param)
          )
            ids[param] = this.#personId;
      }
    return {
      name: identity.name,
      email: this.#email ?? identity.email,
      phone: identity.phone,
      ids,
      about: this.#about(),
      claims: this.#claims,
      candidates: this.#candidates,
      details,
    };
  }

  state(world: WorldKind, shaped: Record<string, unknown>): WorldState {
    const heldId = this.#heldSubjectId();
    const records: Record<string, number> = keyed();
    for (const entity of this.#model.entities.values())
      records[entity.collection] = this.#store.count(entity.name);
    const live =
      heldId === null ? this.record : (this.#store.get(this.entity.name, heldId) ?? null);
    return {
      world,
      person: {
        customer_id: this.#personId,
        name: this.#identity.name,
        email: this.#identity.email,
      },
      subject: {
        entity: this.entity.name,
        id: heldId,
        exists: this.#exists && (heldId === null || live !== null),
        status: live && typeof live.status === "string" ? live.status : null,
      },
      shaped,
      records,
    };
  }

  #subjectEntity(): EntityModel {
    const t = this.#tool;
    const entity = (name: string) => this.#model.entities.get(name) as EntityModel;
    if (t.kind === "read_one" || t.kind === "change") return entity(t.entity);
    const ref = t.debit ?? t.refs.find((r) => r.by === "id" && !entity(r.entity).isPerson);
    return ref ? entity(ref.entity) : this.#model.person;
  }

  /** For a change the person makes to someone else of their kind: one who shares their group. */
  #colleague(): WorldRecord | null {
    const group = this.#model.group ? this.#model.entities.get(this.#model.group) : undefined;
    if (!this.#tool.another || !group) return null;
    const theirs = new Set(
      this.#store.ownedBy(group.name, this.#personId).map((r) => r[group.idField]),
    );
    const colleagues = [...this.#store.all(this.#model.person.name)].filter((r) =>
      theirs.has(r[group.idField]),
    );
    return colleagues.length > 0 ? this.#rng.pick(colleagues) : null;
  }

  #pick(entity: EntityModel): WorldRecord | null {
    const owned = entity.catalog
      ? [...this.#store.all(entity.name)]
      : this.#store.ownedBy(entity.name, this.#personId);
    return owned.length > 0 ? this.#rng.pick(owned) : null;
  }

  /** Every identifier argument of the tool, filled with what the person would quote. */
  #holdIds(): void {
    const t = this.#tool;
    const params = [
      ...(t.idParam
        ? [
            {
              param: t.idParam,
              entity: t.entity,
              role: null as string | null,
              by: "id",
              many: false,
            },
          ]
        : []),
      ...t.refs,
    ];
    for (const { param, entity: name, role, by, many } of params) {
      const entity = this.#model.entities.get(name) as EntityModel;
      // Lists of ids, replacements and catalog choices are what the person wants, not what they hold.
      if (many || role === "new" || (entity.catalog && param !== t.idParam)) continue;
      if (by === "email") {
        this.#ids.set(param, this.#identity.email);
        continue;
      }
      if (entity.isPerson) {
        const other = this.#another && param === t.idParam && this.record;
        this.#ids.set(param, other ? (this.record?.[entity.idField] as string) : this.#personId);
        continue;
      }
      let record = entity === this.entity && role !== "to" ? this.record : this.#related(entity);
      // What the colleague shares with the person is theirs together (the workspace).
      if (this.#another && entity.name === this.#model.group && this.record)
        record = this.#store.get(entity.name, this.record[entity.idField] as string) ?? record;
      if (role === "to") record = this.#pickOther(entity, this.record);
      if (record) this.#ids.set(param, record[entity.idField] as string);
    }
  }

  /** The person's record of `entity` that goes with the subject: its parent, else any of theirs. */
  #related(entity: EntityModel): WorldRecord | null {
    const link = this.entity.parent;
    if (this.record && link?.entity === entity.name)
      return this.#store.get(entity.name, this.record[link.field] as string) ?? null;
    return this.#pick(entity);
  }

  #pickOther(entity: EntityModel, not: WorldRecord | null): WorldRecord | null {
    const owned = (
      entity.catalog
        ? [...this.#store.all(entity.name)]
        : this.#store.ownedBy(entity.name, this.#personId)
    ).filter((r) => r !== not);
    return owned.length > 0 ? this.#rng.pick(owned) : null;
  }

  /** The record whose status the world axis changes: the subject, else one of the person's records the tool acts on. */
  #statusTarget(): { entity: EntityModel; record: WorldRecord } | null {
    if (this.record && (!this.entity.isPerson || this.#another))
      return { entity: this.entity, record: this.record };
    const entity = this.#model.entities.get(this.#tool.entity) as EntityModel;
    if (entity.isPerson || !entity.seeded) return null;
    const record = this.#pick(entity);
    return record ? { entity, record } : null;
  }

  #makeMissing(): Record<string, unknown> {
    this.#exists = false;
    if (this.entity.isPerson && !this.#another) {
      const stranger = personIdentity(this.#rng, 97, this.#model.places);
      this.#stranger = stranger;
      const email = this.#store.personByEmail(stranger.email)
        ? `x.${stranger.email}`
        : stranger.email;
      for (const [param, value] of this.#ids)
        if (value === this.#identity.email) this.#ids.set(param, email);
      this.#email = email;
      const id = this.#maker.freshId(this.entity);
      for (const [param, value] of this.#ids)
        if (value === this.#personId) this.#ids.set(param, id);
      return { missing: { entity: this.entity.name, email, id } };
    }
    const id = this.#maker.freshId(this.entity);
    const param = this.#subjectParam();
    if (param) this.#ids.set(param, id);
    // The record is there under its own id: the one the person holds is wrong, and what they
    // describe (`about`) is that record, the one they mean.
    const meant = this.record && param ? String(this.record[this.entity.idField]) : null;
    return {
      missing: { entity: this.entity.name, id, param: param ?? null, ...(meant ? { meant } : {}) },
    };
  }

  /** A copy of a record, and of the records that belong to it, under new ids: same owner, same details. */
  #twin(entity: EntityModel, record: WorldRecord): WorldRecord {
    const twin = newRecord({
      ...copyData(record),
      [entity.idField]: this.#maker.freshId(entity),
    });
    this.#maker.add(entity, twin);
    for (const child of this.#model.entities.values()) {
      if (child.parent?.entity !== entity.name) continue;
      for (const c of this.#store.childrenOf(child.name, record[entity.idField] as string)) {
        this.#twin(child, { ...c, [entity.idField]: twin[entity.idField] });
      }
    }
    return twin;
  }

  /** Makes the twin disagree with the original on one telling field; returns the field. */
  #contradict(entity: EntityModel, record: WorldRecord, twin: WorldRecord): string {
    const money = [
      ...entity.balanceFields,
      ...[...entity.fields.keys()].filter((f) => /total|amount|price/.test(f)),
    ][0];
    if (money && typeof record[money] === "number") {
      for (const f of entity.balanceFields.length > 0 && entity.balanceFields.includes(money)
        ? entity.balanceFields
        : [money]) {
        twin[f] = Math.round(((record[f] as number) + 10 + this.#rng.int(400)) * 100) / 100;
      }
      return money;
    }
    const others = entity.statuses.usable.filter((s) => s !== record.status);
    if (others.length > 0) {
      twin.status = this.#rng.pick(others);
      return "status";
    }
    // No amount or status to disagree on: the person has another record's value in mind, as
    // people mix up their payees or their cards.
    for (const field of entity.fields.keys()) {
      if (typeof record[field] !== "string") continue;
      const others = [...this.#store.all(entity.name)]
        .map((r) => r[field])
        .filter((v): v is string => typeof v === "string" && v !== record[field]);
      if (others.length === 0) continue;
      twin[field] = this.#rng.pick([...new Set(others)].sort());
      return field;
    }
    twin.status = this.#rng.pick(entity.statuses.terminal);
    return "status";
  }

  #empty(): Record<string, unknown> {
    if (this.record && this.entity.balanceFields.length > 0) {
      for (const field of this.entity.balanceFields) this.record[field] = 0;
      const id = this.record[this.entity.idField] as string;
      for (const child of this.#model.entities.values()) {
        if (child.parent?.entity === this.entity.name)
          for (const c of this.#store.childrenOf(child.name, id))
            this.#store.remove(child.name, c[child.idField] as string);
      }
      this.#store.changed(this.entity.name, this.record);
      return { emptied: { entity: this.entity.name, id } };
    }
    let removed = 0;
    for (const entity of this.#model.entities.values()) {
      if (entity.isPerson || entity.parent) continue;
      for (const record of this.#store.ownedBy(entity.name, this.#personId)) {
        this.#store.remove(entity.name, record[entity.idField] as string);
        removed++;
      }
    }
    if (!this.entity.isPerson) this.#exists = false;
    return {
      emptied: { entity: this.#model.person.name, id: this.#personId, records_removed: removed },
    };
  }

  /** Whether some tool lists records of the entity, so the agent can see several side by side. */
  #listable(entity: EntityModel): boolean {
    return [...this.#model.tools.values()].some(
      (t) => t.kind === "read_many" && t.entity === entity.name,
    );
  }

  #withhold(entity: EntityModel): void {
    // The person's own id is never in doubt, whoever else's is.
    for (const [param, value] of [...this.#ids])
      if (this.#store.has(entity.name, value) && value !== this.#personId) this.#ids.delete(param);
  }

  #subjectParam(): string | null {
    const t = this.#tool;
    if (t.idParam && t.entity === this.entity.name) return t.idParam;
    return (
      t.refs.find((r) => r.by === "id" && r.entity === this.entity.name && r.role !== "to")
        ?.param ?? null
    );
  }

  #heldSubjectId(): string | null {
    if (this.entity.isPerson && !this.#another) return this.#personId;
    const param = this.#subjectParam();
    return param
      ? (this.#ids.get(param) ?? null)
      : this.record
        ? (this.record[this.entity.idField] as string)
        : null;
  }

  /** The subject in words, for a person who describes rather than quotes it. */
  #about(): string {
    const r = this.record;
    if (r && this.#another) {
      const who = `the ${this.entity.name} ${String(r.name ?? r.email ?? "")}`;
      // Someone else of that name (two Thea Reyes in one workspace) is told apart by their email.
      const namesake = [...this.#store.all(this.entity.name)].some(
        (o) => o !== r && o.name === r.name && o.email !== r.email,
      );
      return namesake && r.name !== undefined && typeof r.email === "string"
        ? `${who} (${r.email})`
        : who;
    }
    if (!r || this.entity.isPerson) return `their ${this.#model.person.name} account`;
    const shown = this.#store.view(this.entity.name, r, null);
    const labelField = ["name", "description", "type", "items"].find((f) => shown[f] !== undefined);
    const label = labelField === undefined ? undefined : shown[labelField];
    const text = Array.isArray(label) ? (label[0] as WorldRecord | undefined)?.name : label;
    // The day it is of (an invoice's date, an appointment's) before the day it was filed. A
    // catalog's record (a property, a therapist) is nobody's: the day it was filed is no day the
    // person knows it by, though a flight's own date is.
    const owned = !this.entity.catalog;
    const whenField = (owned ? ["date", "created_at"] : ["date"]).find(
      (f) => typeof shown[f] === "string",
    );
    const when = whenField === undefined ? undefined : String(shown[whenField]);
    // Only a person who cannot quote the id tells the record by what it is.
    const telling = this.#heldSubjectId() === null ? this.#telling(r, labelField, whenField) : null;
    const words = [text, telling].filter((w) => w !== undefined && w !== null).map(String);
    return [
      `${owned ? "their" : "the"} ${this.entity.name}`,
      words.length > 0 ? `(${words.join(", ")})` : "",
      when ? `from ${when.slice(0, 10)}` : "",
    ]
      .filter(Boolean)
      .join(" ");
  }

  /**
   * A choice the subject holds that tells it from the person's other records of its kind
   * ("consumer", "pending move in"), where its name does not: a person with four accounts and no
   * number knows which kind theirs is, and picks it from a list by that; else two choices together
   * ("final bill issued, gas"). Where no choice tells it (two consumer accounts), one kind of it is
   * made theirs alone: the others of that kind are drawn another, as a person who cannot quote an
   * id still knows their record from their others. Null when nothing else is theirs.
   */
  #telling(r: WorldRecord, labelField?: string, whenField?: string): string | null {
    const { idField } = this.entity;
    // What the list the agent reads shows tells the record from the others it sets apart: its
    // name where the list shows names, its day where it shows days ("Meadow invoice" is no help
    // in a list of numbers, dates and statuses, where another invoice shares its day).
    const listers = [...this.#model.tools.values()].filter(
      (t) => t.kind === "read_many" && t.entity === this.entity.name,
    );
    const shown = (field: string | undefined): field is string =>
      field !== undefined &&
      (listers.length === 0 || listers.some((t) => t.view === null || t.view.includes(field)));
    const day = (v: unknown) => String(v).slice(0, 10);
    const others = this.#store
      .ownedBy(this.entity.name, this.#personId)
      .filter(
        (o) =>
          o !== r &&
          !alike(o, r, idField) &&
          !(shown(labelField) && JSON.stringify(o[labelField]) !== JSON.stringify(r[labelField])) &&
          !(shown(whenField) && day(o[whenField]) !== day(r[whenField])),
      );
    if (others.length === 0) return null;
    const choices = [
      ...(this.entity.statuses.usable.length > 0 ? ["status"] : []),
      ...[...this.entity.fields]
        .filter(([, schema]) => Array.isArray(schema?.enum) || Array.isArray(schema?.items?.enum))
        .map(([field]) => field),
    ];
    const told: { field: string; words: string; shown: string }[] = [];
    for (const field of choices) {
      const words = kindWords(r[field]);
      if (words !== null) told.push({ field, words, shown: JSON.stringify(r[field]) });
    }
    const sharing = (kinds: readonly (typeof told)[number][]) =>
      others.filter((o) => kinds.every((k) => JSON.stringify(o[k.field]) === k.shown)).length;
    let best: { kind: (typeof told)[number]; sharing: number } | null = null;
    for (const kind of told) {
      const n = sharing([kind]);
      if (n < others.length && (best === null || n < best.sharing)) best = { kind, sharing: n };
    }
    if (best?.sharing === 0) return best.kind.words;
    // Two kinds together, where no one kind is theirs alone ("final bill issued, gas").
    for (let i = 0; i < told.length; i++)
      for (let j = i + 1; j < told.length; j++) {
        const pair = [told[i], told[j]] as (typeof told)[number][];
        if (sharing(pair) === 0) return pair.map((k) => k.words).join(", ");
      }
    // Where the list shows days and no kind tells the record from another of its day (a date
    // shared by chance), that other one is of another day.
    if (shown(whenField)) {
      const rng = this.#rng.fork("another day");
      for (const o of others) {
        const value = String(o[whenField]);
        const moved = isoDay(Date.parse(value.slice(0, 10)) - (1 + rng.int(27)) * DAY);
        o[whenField] = `${moved}${value.slice(10)}`;
        this.#store.changed(this.entity.name, o);
      }
      return null;
    }
    const apart = this.#setApart(r, others, best?.kind.field);
    return apart ?? best?.kind.words ?? null;
  }

  /**
   * Makes a kind the subject is of its own among the person's records: the others of its kind
   * (`preferred`, else the first choice with another value to draw: a type, the fuels an account
   * supplies) are drawn another. A status is left as it is, as what may be done with a record
   * follows from it. The kind, or null.
   */
  #setApart(r: WorldRecord, others: readonly WorldRecord[], preferred?: string): string | null {
    const kinds = [...this.entity.fields]
      .filter(([field]) => field !== "status" && kindWords(r[field]) !== null)
      .map(([field, schema]) => ({ field, values: otherKinds(r[field], schema) }))
      .filter((k) => k.values.length > 0);
    const kind = kinds.find((k) => k.field === preferred) ?? kinds[0];
    if (kind === undefined) return null;
    const rng = this.#rng.fork("set apart");
    const shown = JSON.stringify(r[kind.field]);
    for (const o of others) {
      if (JSON.stringify(o[kind.field]) !== shown) continue;
      o[kind.field] = rng.pick(kind.values);
      this.#store.changed(this.entity.name, o);
    }
    return kindWords(r[kind.field]);
  }
}

/** A choice in words ("pending move in", "gas and electricity"), or null for what is none. */
function kindWords(value: unknown): string | null {
  if (Array.isArray(value))
    return value.length > 0 && value.every((v) => typeof v === "string")
      ? value.join(" and ").replace(/_/g, " ")
      : null;
  return typeof value === "string" && value !== "" ? value.replace(/_/g, " ") : null;
}

/**
 * The other values a choice could have been drawn as: the schema's other choices, or for a list
 * of choices (fuels), each one alone that is not the list.
 */
function otherKinds(value: unknown, schema: SchemaFragment | undefined): unknown[] {
  const choices = (schema?.enum ?? schema?.items?.enum ?? []).filter(
    (v): v is string => typeof v === "string",
  );
  if (Array.isArray(value) && Array.isArray(schema?.items?.enum)) {
    const shown = JSON.stringify(value);
    return choices.map((c) => [c]).filter((c) => JSON.stringify(c) !== shown);
  }
  return typeof value === "string" && Array.isArray(schema?.enum)
    ? choices.filter((c) => c !== value)
    : [];
}

/** Two records the same in all but their id: a duplicate's twins. */
function alike(a: WorldRecord, b: WorldRecord, idField: string): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => k === idField || JSON.stringify(a[k]) === JSON.stringify(b[k]));
}
