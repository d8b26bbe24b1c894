import { memoized } from "../util/memo.ts";

const GENERIC = new Set([
  "string",
  "str",
  "text",
  "value",
  "example",
  "sample",
  "placeholder",
  "null",
  "none",
  "undefined",
  "n a",
  "na",
  "tbd",
  "todo",
  "xxx",
  "xxxx",
  "xxxxx",
  "foo",
  "bar",
  "baz",
  "test",
  "abc",
  "abc123",
  "123",
  "1234",
  "12345",
  "123456",
  "1234567",
  "12345678",
  "0000",
  "000000",
  "id",
  "your id",
  "unknown",
  "lorem ipsum",
]);

const NAMES = new Set([
  "john doe",
  "jane doe",
  "john smith",
  "jane smith",
  "first name",
  "last name",
  "full name",
  "your name",
  "customer name",
  "user name",
  "name",
  "first last",
  "firstname lastname",
  "joe bloggs",
]);

const PHONES = new Set([
  "1234567890",
  "123 456 7890",
  "5555555555",
  "555 555 5555",
  "0000000000",
  "000 000 0000",
  "12345678901",
  "1 234 567 8900",
  "xxx xxx xxxx",
  "phone",
  "phone number",
  "your phone number",
]);

const ADDRESSES = new Set([
  "123 main st",
  "123 main street",
  "address",
  "street address",
  "your address",
  "1 example street",
]);

const PLACEHOLDER_EMAIL =
  /@(example\.(com|org|net)|domain\.com|email\.com|test\.com|mail\.com)$|^(user|email|test|your|name|john\.doe|jane\.doe)@/;
/**
 * A template slot: `<order_id>`, `{{name}}`, `[email]`, `${id}` anywhere, `%NAME%`. The slot's
 * name is bounded (64 characters) because `${` can start anywhere: an unbounded `[^}]*` after
 * each of thousands of `${` reads to the end of the value every time, which is quadratic.
 */
const TEMPLATE =
  /^<[^>]{0,64}>$|^\{\{?[^}]{0,64}\}?\}$|^\[[^\]]{0,64}\]$|\$\{[^}]{0,64}\}|^%[a-z_]{1,64}%$/i;

/** Words of a value for comparison: lower case, punctuation and underscores as spaces. */
function words(value: string): string {
  const keep = value.includes("@") ? /[^a-z0-9@.]+/g : /[^a-z0-9]+/g;
  return value
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .replace(keep, " ")
    .trim();
}

/** {@link words} of a spec's parameter names and descriptions, worked out once. */
const specWords = memoized(words);

/**
 * Whether an argument echoes the schema instead of the person's details: a generic placeholder, a
 * stock name, email, phone or address, the parameter's own name, its description, or the example
 * the description gives. Returns the reason, or null for a real-looking value.
 */
export function placeholderReason(
  param: string,
  value: string,
  description = "",
  example?: string,
): string | null {
  const raw = value.trim();
  if (raw === "") return "it is empty";
  if (TEMPLATE.test(raw)) return "it is a template slot";
  const w = words(raw);
  const name = specWords(param);
  if (
    w === name ||
    w.replace(/ /g, "") === name.replace(/ /g, "") ||
    w === `your ${name}` ||
    w === `the ${name}` ||
    w === `${name} here`
  ) {
    return "it repeats the parameter's name";
  }
  // "the customer's email" describes an email; a summary that quotes the person ("The customer
  // said: I'd like my account summary") says something: only a phrase about as short as the name.
  if (
    /^(your|the|customer s|customer|user s|user)\s/.test(w) &&
    w.split(" ").length <= name.split(" ").length + 4 &&
    name.split(" ").some((part) => part.length > 2 && w.includes(part))
  ) {
    return "it describes the value instead of giving it";
  }
  if (description && w.length > 3 && w === specWords(description))
    return "it repeats the parameter's description";
  if (example && raw === example) return "it is the example from the tool's description";
  if (GENERIC.has(w)) return "it is a generic placeholder";
  if (NAMES.has(w)) return "it is a stock placeholder name";
  if (raw.includes("@") && PLACEHOLDER_EMAIL.test(raw.toLowerCase()))
    return "it is a placeholder email address";
  if (PHONES.has(w) || /^(\d)\1{6,}$/.test(w.replace(/ /g, "")))
    return "it is a placeholder phone number";
  if (ADDRESSES.has(w)) return "it is a placeholder address";
  if (/^x+$|^\?+$|^\.+$|^-+$/.test(raw)) return "it is a placeholder";
  return null;
}
