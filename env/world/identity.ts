import type { Rng } from "../rng.ts";
import { memoized } from "../util/memo.ts";
import { isoDay } from "./dates.ts";
import { patternCheck } from "./pattern.ts";
import {
  FIRST_NAMES,
  LAST_NAMES,
  MAIL_DOMAINS,
  PLACES,
  type Place,
  STREETS,
} from "./vocabulary.ts";

/** Who a person is: the details they can state about themselves, from which their records are made. */
export interface Identity {
  name: string;
  first_name: string;
  last_name: string;
  email: string;
  /** A phone number as people write it: `+1 (687) 555-3284`. */
  phone: string;
  /** An ISO date, 18 to 85 years before the world's today. */
  date_of_birth: string;
  /** The street line: `14 Alder Lane`. */
  street: string;
  city: string;
  zip: string;
  /** A state, province or region. */
  state: string;
  country: string;
  /** The whole postal address on one line: `14 Alder Lane, Portland 97205`. */
  address: string;
}

/** The details that say who a person is: theirs alone, where a zip or a city is shared by many. */
export const PERSONAL_DETAILS: ReadonlySet<string> = new Set([
  "name",
  "first_name",
  "last_name",
  "email",
  "phone",
  "date_of_birth",
]);
/** Where someone lives, shared by many: a lookup by these alone finds places, not a person. */
export const PLACE_DETAILS: ReadonlySet<string> = new Set(["zip", "city", "state", "country"]);

/** The detail of an identity a field holds, by the field's name (`billing_zip` → zip), or null. */
export const identityKey: (field: string) => keyof Identity | null = memoized((field) =>
  readIdentityKey(field.toLowerCase()),
);

function readIdentityKey(f: string): keyof Identity | null {
  if (/^(first_?name|given_name|forename)$/.test(f)) return "first_name";
  if (/^(last_?name|surname|family_name)$/.test(f)) return "last_name";
  if (
    /^(name|full_?name|(customer|patient|guest|caller|policyholder|account_?holder|card_?holder|user|member|passenger|contact|holder)_(full_)?name|name_on_(account|card|losing_account)|account_?holder|account_holder_name)$/.test(
      f,
    )
  )
    return "name";
  if (/^((contact|user|customer|guest|patient|account|primary|admin)_)?e?mail(_address)?$/.test(f))
    return "email";
  if (
    /^((contact|callback|home|mobile|cell|primary|customer|patient|guest|account)_)?(phone|phone_?number|mobile|mobile_number|telephone|tel|cell)$/.test(
      f,
    )
  )
    return "phone";
  if (/^(dob|date_?of_?birth|birth_?date|birthday)$/.test(f)) return "date_of_birth";
  if (
    /^((billing|home|supply|mailing|shipping|residential)_)?(zip|zip_?code|post_?code|postal_?code)$/.test(
      f,
    )
  )
    return "zip";
  if (
    /^(address_line_?1|address1|street|street_address|street_line|line1|house_and_street)$/.test(f)
  )
    return "street";
  if (/^((billing|home|supply|mailing|residential|current|default)_)?address$/.test(f))
    return "address";
  if (/^(city|town)$/.test(f)) return "city";
  if (/^(state|province|region|county|state_code)$/.test(f)) return "state";
  if (/^country(_code)?$/.test(f)) return "country";
  return null;
}

/**
 * A person's identity, deterministic for the stream; serial 0 is the person the conversation is
 * with. They live in one of `places` (those whose postal codes the spec's patterns accept).
 */
export function makeIdentity(
  rng: Rng,
  serial: number,
  today: number,
  places: readonly Place[] = PLACES,
): Identity {
  const f = rng.int(FIRST_NAMES.length);
  const l = rng.int(LAST_NAMES.length);
  const first = FIRST_NAMES[f] as string;
  const last = LAST_NAMES[l] as string;
  const local = `${FIRST_LOCAL[f]}.${LAST_LOCAL[l]}`;
  const { city, zip, state, country } = rng.pick(places.length > 0 ? places : PLACES);
  const street = `${1 + rng.int(240)} ${rng.pick(STREETS)}`;
  const years = 18 + rng.int(68);
  const born = today - years * 365.25 * 86_400_000 - rng.int(365) * 86_400_000;
  return {
    name: `${first} ${last}`,
    first_name: first,
    last_name: last,
    email: `${local}${serial > 0 ? serial : ""}@${rng.pick(MAIL_DOMAINS)}`,
    phone: `+1 (${200 + rng.int(700)}) 555-${String(rng.int(10_000)).padStart(4, "0")}`,
    date_of_birth: isoDay(born),
    street,
    city,
    zip,
    state,
    country,
    address: `${street}, ${city} ${zip}`,
  };
}

/** A name as part of an email's local part: lower case, accents and other signs dropped. */
function localWord(name: string): string {
  return name
    .toLowerCase()
    .normalize("NFD")
    .replace(/[^a-z.]/g, "");
}

/** Each first and last name as its part of `first.last`, worked out once: normalising a name is costly. */
const FIRST_LOCAL = FIRST_NAMES.map(localWord);
const LAST_LOCAL = LAST_NAMES.map(localWord);

/** The places whose postal codes fit every zip or postcode pattern of a spec's parameters. */
export function placesFitting(patterns: readonly string[]): Place[] {
  const checks = patterns.flatMap((p) => patternCheck(p) ?? []);
  const fitting = PLACES.filter((place) =>
    checks.every((accepts) => accepts(place.zip) || accepts(place.zip.replace(/\s/g, ""))),
  );
  return fitting.length > 0 ? fitting : [...PLACES];
}

/** The ways a phone number is written, most readable first: the one a field's pattern accepts is stored. */
export function phoneForms(phone: string): string[] {
  const digits = phone.replace(/\D/g, "");
  const national = digits.slice(-10);
  const [a, b, c] = [national.slice(0, 3), national.slice(3, 6), national.slice(6)];
  return [
    phone,
    `+${digits}`,
    national,
    `${a}-${b}-${c}`,
    `(${a}) ${b}-${c}`,
    digits,
    `+${digits.slice(0, -10)} ${a} ${b} ${c}`,
  ];
}

/**
 * An identity detail as a field stores it, fitted to the field's pattern when it has one (a phone
 * as `6875553284` for `^\d{10}$`); undefined when no form of it fits.
 */
export function identityValue(
  key: keyof Identity,
  identity: Identity,
  pattern?: string,
): string | undefined {
  if (!pattern) return identity[key];
  const forms =
    key === "phone"
      ? phoneForms(identity.phone)
      : key === "zip"
        ? [identity.zip, identity.zip.replace(/\s/g, "")]
        : key === "date_of_birth"
          ? [identity.date_of_birth, identity.date_of_birth.split("-").reverse().join("/")]
          : [identity[key]];
  const fits = patternCheck(pattern);
  return fits ? forms.find(fits) : forms[0];
}

/**
 * A detail as a person states it, in the form a parameter's pattern takes (a phone as digits for
 * `^\d{10}$`): the first of its usual forms that fits, else as it is.
 */
export function fitDetail(field: string, value: string, pattern?: string): string {
  if (!pattern) return value;
  const fits = patternCheck(pattern);
  if (!fits || fits(value)) return value;
  const key = identityKey(field);
  const forms =
    key === "phone"
      ? phoneForms(value)
      : key === "zip"
        ? [value.replace(/\s/g, ""), value.toUpperCase()]
        : key === "date_of_birth"
          ? [value.split("-").reverse().join("/"), value.split("-").join("/")]
          : [value.trim()];
  return forms.find(fits) ?? value;
}

/** A detail reduced to what identifies it: digits of a phone, letters of a name, a zip without spaces. */
export function detailKey(field: string, value: unknown): string {
  const text = String(value)
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .trim();
  const key = identityKey(field);
  if (key === "phone") return text.replace(/\D/g, "").slice(-10);
  if (key === "zip") return text.replace(/[^a-z0-9]/g, "");
  return text.replace(/[^a-z0-9@.]+/g, " ").trim();
}
