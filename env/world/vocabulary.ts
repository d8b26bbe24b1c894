/** Word lists the world draws plausible values from. Fictional, varied, never schema echoes. */

export const FIRST_NAMES = [
  "Amara",
  "Bilal",
  "Chen",
  "Dalia",
  "Emeka",
  "Freya",
  "Gustavo",
  "Hana",
  "Ivan",
  "Jasmine",
  "Kofi",
  "Leila",
  "Mateo",
  "Nadia",
  "Oskar",
  "Priya",
  "Quentin",
  "Rosa",
  "Soren",
  "Tamsin",
  "Umar",
  "Valentina",
  "Wendell",
  "Ximena",
  "Yusuf",
  "Zara",
  "Aiko",
  "Bruno",
  "Catalina",
  "Dmitri",
  "Esme",
  "Farid",
  "Greta",
  "Hugo",
  "Ingrid",
  "Jonah",
  "Kamala",
  "Luca",
  "Mira",
  "Nikhil",
  "Olga",
  "Pavel",
  "Rania",
  "Samir",
  "Thea",
  "Uriel",
  "Vera",
  "Wei",
  "Yara",
  "Zoltan",
];

export const LAST_NAMES = [
  "Abiodun",
  "Bergström",
  "Castillo",
  "Dubois",
  "Eriksen",
  "Fitzgerald",
  "Gonzaga",
  "Haddad",
  "Ito",
  "Jovanovic",
  "Kowalski",
  "Lindqvist",
  "Mwangi",
  "Nakamura",
  "O'Connell",
  "Petrov",
  "Quispe",
  "Rahman",
  "Santos",
  "Tanaka",
  "Uchenna",
  "Varga",
  "Whitfield",
  "Xu",
  "Yilmaz",
  "Zhang",
  "Almeida",
  "Brennan",
  "Chaudhry",
  "Delacroix",
  "Esposito",
  "Fischer",
  "Gallagher",
  "Hoffmann",
  "Iqbal",
  "Jensen",
  "Kaur",
  "Lombardi",
  "Moreau",
  "Novak",
  "Okafor",
  "Park",
  "Reyes",
  "Schmidt",
  "Torres",
  "Wójcik",
];

export const MAIL_DOMAINS = [
  "fastmail.com",
  "proton.me",
  "outlook.com",
  "gmail.com",
  "icloud.com",
  "posteo.net",
];

export const STREETS = [
  "Alder Lane",
  "Birch Road",
  "Canal Street",
  "Dover Close",
  "Elm Avenue",
  "Fennel Way",
  "Granite Row",
  "Harbour View",
  "Ivy Crescent",
  "Juniper Drive",
  "Kestrel Court",
  "Linden Street",
  "Maple Terrace",
  "Northgate",
  "Orchard Hill",
  "Pine Walk",
  "Quarry Lane",
  "Rowan Place",
  "Saffron Street",
  "Thistle Way",
];

/** Where people live: city, postal code, state or region, country. */
export const PLACES = [
  { city: "Portland", zip: "97205", state: "OR", country: "US" },
  { city: "Leeds", zip: "LS1 4AP", state: "West Yorkshire", country: "GB" },
  { city: "Austin", zip: "78701", state: "TX", country: "US" },
  { city: "Lyon", zip: "69002", state: "Auvergne-Rhône-Alpes", country: "FR" },
  { city: "Toronto", zip: "M5V 2T6", state: "ON", country: "CA" },
  { city: "Melbourne", zip: "3000", state: "VIC", country: "AU" },
  { city: "Denver", zip: "80202", state: "CO", country: "US" },
  { city: "Dublin", zip: "D02 X285", state: "Leinster", country: "IE" },
  { city: "Madison", zip: "53703", state: "WI", country: "US" },
  { city: "Bristol", zip: "BS1 5TR", state: "Bristol", country: "GB" },
  { city: "Seattle", zip: "98101", state: "WA", country: "US" },
  { city: "Boston", zip: "02108", state: "MA", country: "US" },
  { city: "Manchester", zip: "M1 1AE", state: "Greater Manchester", country: "GB" },
  { city: "Edinburgh", zip: "EH1 1YZ", state: "Scotland", country: "GB" },
  { city: "Vancouver", zip: "V6B 1A1", state: "BC", country: "CA" },
] as const;
export type Place = (typeof PLACES)[number];
export const CITIES = PLACES.map((p) => [p.city, p.zip] as const);

export const PRODUCTS = [
  "trail running shoes",
  "wireless earbuds",
  "cast-iron skillet",
  "merino wool sweater",
  "standing desk lamp",
  "espresso grinder",
  "yoga mat",
  "rain jacket",
  "mechanical keyboard",
  "ceramic planter",
  "travel backpack",
  "smart thermostat",
  "linen bedsheet set",
  "cordless drill",
  "water filter jug",
  "hiking socks (3 pack)",
  "noise-cancelling headphones",
  "bamboo cutting board",
  "electric kettle",
  "desk chair cushion",
];

export const VARIANTS = [
  "size 8",
  "size 9",
  "size 10",
  "size M",
  "size L",
  "black",
  "navy",
  "olive",
  "grey",
  "white",
];

export const MERCHANTS = [
  "Greenleaf Grocers",
  "Metro Transit",
  "Northside Pharmacy",
  "Cinder Coffee",
  "Parcel Post",
  "City Power & Light",
  "Blue Harbor Rent",
  "StreamBox",
  "Summit Fitness",
  "Corner Hardware",
  "Lantern Books",
  "Quickfuel Station",
];

export const PAYEES = [
  "City Power & Light",
  "Blue Harbor Rent",
  "Clearwave Internet",
  "Aqua Utilities",
  "Sunrise Insurance",
  "StreamBox",
];

export const CARRIERS = ["UPS", "FedEx", "DHL", "USPS", "Royal Mail", "Canada Post"];

export const SCAN_PLACES = [
  "sorting hub, Memphis",
  "local depot",
  "out for delivery",
  "customs, Leipzig",
  "regional hub, Reno",
];

export const WORDS = [
  "amber",
  "basalt",
  "cobalt",
  "delta",
  "ember",
  "fjord",
  "garnet",
  "harbor",
  "indigo",
  "jade",
  "kelp",
  "lumen",
  "meadow",
  "nimbus",
  "onyx",
  "pebble",
  "quartz",
  "ridge",
  "sable",
  "tundra",
];

export const ISSUES = [
  "VPN keeps disconnecting",
  "Laptop will not boot after update",
  "Cannot access shared drive",
  "Printer on floor 3 jams",
  "Email not syncing on phone",
  "Need a second monitor",
  "Locked out after password change",
  "Teams calls drop audio",
  "Software licence expired",
  "Wi-Fi slow in meeting room B",
];

/** Countries by their ISO 3166-1 alpha-2 codes, where people travel to and ship from. */
export const COUNTRY_CODES = [
  "US",
  "GB",
  "CA",
  "FR",
  "AU",
  "IE",
  "MX",
  "DE",
  "ES",
  "IT",
  "JP",
  "NL",
  "PT",
  "BR",
  "IN",
  "ZA",
  "NZ",
  "SE",
  "CH",
  "GR",
  "TH",
  "AR",
  "DK",
  "KR",
];

export const CURRENCIES = ["USD", "EUR", "GBP", "CAD"];

export const REASONS = [
  "arrived damaged",
  "wrong size",
  "no longer needed",
  "ordered by mistake",
  "better price elsewhere",
  "late delivery",
  "not as described",
];

/** Status vocabularies: usable states, and final states in which a change is refused. */
export const STATUSES: Record<string, { usable: string[]; terminal: string[] }> = {
  order: {
    usable: ["pending", "processing", "shipped", "delivered"],
    terminal: ["cancelled", "refunded"],
  },
  account: { usable: ["open"], terminal: ["closed", "frozen"] },
  card: { usable: ["active"], terminal: ["frozen", "cancelled"] },
  ticket: { usable: ["open", "pending"], terminal: ["closed"] },
  booking: { usable: ["confirmed"], terminal: ["cancelled"] },
  reservation: { usable: ["confirmed"], terminal: ["cancelled"] },
  subscription: { usable: ["active"], terminal: ["cancelled", "expired"] },
  payment: { usable: ["scheduled", "completed"], terminal: ["cancelled", "refunded"] },
  transfer: { usable: ["completed"], terminal: ["reversed"] },
  item: { usable: ["delivered", "shipped"], terminal: ["returned", "exchanged"] },
  transaction: { usable: ["posted", "pending"], terminal: ["reversed"] },
  payee: { usable: ["active"], terminal: ["removed"] },
  default: { usable: ["active"], terminal: ["closed"] },
};

/** The status a change verb leaves a record in. */
export const STATUS_AFTER: Record<string, string> = {
  cancel: "cancelled",
  refund: "refunded",
  close: "closed",
  freeze: "frozen",
  unfreeze: "active",
  block: "blocked",
  unblock: "active",
  lock: "locked",
  unlock: "active",
  exchange: "exchange_requested",
  return: "return_requested",
  approve: "approved",
  reject: "rejected",
  archive: "archived",
  confirm: "confirmed",
  reopen: "open",
  open: "open",
  escalate: "escalated",
  suspend: "suspended",
  activate: "active",
  deactivate: "inactive",
  restore: "active",
  reactivate: "active",
  resume: "active",
  reinstate: "active",
};

/**
 * Verbs whose status a record takes only where its entity knows that status or the tool names the
 * entity (`submit_claim` submits a claim; `meter_reading_submit` submits a reading, not its account).
 */
export const STATUS_AFTER_NAMED: Record<string, string> = {
  submit: "submitted",
  resolve: "resolved",
  pause: "paused",
};

/** Verbs that take a record out of the world. */
export const DELETE_VERBS = new Set(["delete", "remove"]);

/** Verbs that bring a record back from a final state, so they are not refused on one. */
export const REVIVING_VERBS = new Set([
  "unfreeze",
  "unblock",
  "unlock",
  "reopen",
  "activate",
  "restore",
]);
