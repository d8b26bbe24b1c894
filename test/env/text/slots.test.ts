import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { OfflineAgent } from "../../../env/roles/offline-agent.ts";
import { bare, readValue } from "../../../env/text/slots.ts";
import { type ToolModel, WorldModel } from "../../../env/world/model.ts";
import type { AgentSpec, ChatMessage } from "../../../spec/index.ts";
import { mcpTool } from "../../support/specs.ts";

const SPEC = {
  name: "workspaces",
  system_prompt: "You help the admins of a team workspace product.",
  policy: [],
  tools: [
    mcpTool(
      "find_workspace",
      "Find a workspace by its domain or by the email of one of its admins.",
      { domain: { type: "string" }, admin_email: { type: "string", format: "email" } },
      [],
    ),
    mcpTool(
      "list_offices",
      "List the offices, optionally in one city.",
      { city: { type: "string" } },
      [],
    ),
    mcpTool("invite_users", "Invite users to a workspace by email.", {
      workspace_id: { type: "string", pattern: "^ws_[A-Za-z0-9]{8}$" },
      emails: { type: "array", items: { type: "string", format: "email" } },
    }),
    mcpTool("submit_claim", "Submit a draft claim.", {
      claim_id: { type: "string" },
      declaration_accepted: { type: "boolean" },
    }),
    mcpTool("waitlist_add", "Add the patient to a therapist's waitlist.", {
      therapist_id: { type: "string" },
      until_date: { type: "string", format: "date" },
    }),
    mcpTool("register_move_out", "Register a move out.", {
      account_number: { type: "string" },
      forwarding_address: { type: "string" },
      forwarding_postcode: { type: "string" },
    }),
    mcpTool("find_account_by_address", "Find an account by its address.", {
      address_line_1: { type: "string" },
      postcode: { type: "string" },
    }),
    mcpTool("claim_note_add", "Add a note to a claim.", {
      claim_id: { type: "string" },
      note: { type: "string", maxLength: 2000 },
    }),
    mcpTool("suspend_line", "Suspend a line.", {
      line_id: { type: "string" },
      resume_date: { type: "string", format: "date" },
    }),
    mcpTool("prescription_transfer_request", "Ask for prescriptions to be moved here.", {
      patient_id: { type: "string" },
      medications: {
        type: "array",
        items: {
          type: "object",
          properties: {
            medication_name: { type: "string" },
            other_pharmacy_rx_number: { type: "string" },
          },
        },
      },
    }),
    mcpTool("transfer_funds", "Move money from one account to another.", {
      from_account_id: { type: "string", pattern: "^ACC-\\d{5}$" },
      to_account_id: { type: "string", pattern: "^ACC-\\d{5}$" },
      amount: { type: "number" },
    }),
  ],
} as unknown as AgentSpec;

const model = WorldModel.of(Agent.from(SPEC));
const tool = (name: string) => model.tools.get(name) as ToolModel;

describe("reading a detail from what the person said", () => {
  it("reads a list of emails, the top-level domain `.me` no word of a sentence", () => {
    for (const text of ["leila.park22@proton.me", "It's leila.park22@proton.me, ada@example.org"])
      expect(readValue(model, tool("invite_users"), "emails", text, true)?.value).toEqual(
        text.match(/[\w.]+@[\w.]+/g),
      );
  });

  it("ends a value at a closing thanks, typed with a slip too", () => {
    const read = (text: string) =>
      readValue(model, tool("prescription_transfer_request"), "medications", text, false)?.value;
    for (const thanks of ["and thank you", "and thnak you", "and tahnks", ", thanks"])
      expect(
        read(
          `with medications medication name Labror, other pharmacy rx number RX-387882 ${thanks}`,
        ),
      ).toEqual([{ medication_name: "Labror", other_pharmacy_rx_number: "RX-387882" }]);
    expect(bare("It's 5 Quay Street, thnak you.")).toBe("5 Quay Street");
  });

  it('ends a value at the "for me", "please" or "asap" that closes a request, at a hedge after it, and at a clause of the person\'s own ("and forgive me if…")', async () => {
    const hotel = WorldModel.of(await Agent.load("test/fixtures/specs/hotel.json"));
    const send = hotel.tools.get("send_invoice") as ToolModel;
    for (const text of [
      "Can you send the invoice of my reservation HLD-2YVWY4, with company name Sable Company for me?",
      "Send the invoice, with company name Sable Company for me. Thanks.",
      "I need to send the invoice of my reservation HLD-01NWLC with company name Sable Company I think",
      "Send the invoice, with company name Sable Company, I guess.",
      "I want to send the invoice, with company name Sable Company and I'd like it actually done this time Thank you",
      "send the invoice of my reservation HLD-6SQV8V, with company name Sable Company asap please.",
      "need to send the invoice, with company name Sable Company, quickly please.",
      "send the invoice with company name Sable Company please",
      "send the invoice of my reservation HLD-T0DEVV, with company name Sable Company asap",
      "send the invoice, with company name Sable Company right away!",
      "I need to send the invoice, with company name Sable Company and forgive me if I don't take your word for it.",
    ])
      expect(readValue(hotel, send, "company_name", text, false)?.value).toBe("Sable Company");
  });

  it("reads no value of a label followed by 'and' or 'but': 'find my account by name and thank you' gives no name", async () => {
    // Reproduction: telecom's agent looked the person up under the full name "and".
    const telecom = WorldModel.of(await Agent.load("test/fixtures/specs/telecom.json"));
    const find = telecom.tools.get("find_account_by_name") as ToolModel;
    const read = (text: string) => readValue(telecom, find, "full_name", text, false)?.value;
    expect(read("I want to find my account by name and thank you")).toBeUndefined();
    expect(read("I want to find my account by name but I'm not sure it's there")).toBeUndefined();
    expect(read("find my account with full name Ingrid Okafor and thank you")).toBe(
      "Ingrid Okafor",
    );
  });

  it("reads the id said after its kind's name, not a later value of its shape (a flight number)", async () => {
    const airline = WorldModel.of(await Agent.load("test/fixtures/specs/airline.json"));
    const change = airline.tools.get("change_flights") as ToolModel;
    const read = (text: string) => readValue(airline, change, "reservation_id", text, false)?.value;
    expect(
      read(
        "Change the flights of my reservation QVA9JO using my payment method card_3477, with new flights flight number BC1708, date 2026-05-02.",
      ),
    ).toBe("QVA9JO");
    expect(read("It's reservation ID: WEOVHC, flight BC1708.")).toBe("WEOVHC");
    // Said alone, the one id there is is it.
    expect(read("QVA9JO")).toBe("QVA9JO");
  });

  it('reads no name out of "find my account by name and no more waiting"', async () => {
    const telecom = WorldModel.of(await Agent.load("test/fixtures/specs/telecom.json"));
    const find = telecom.tools.get("find_account_by_name") as ToolModel;
    const read = (text: string) => readValue(telecom, find, "full_name", text, false)?.value;
    expect(read("I need you to find my account by name and no more waiting.")).toBeUndefined();
    expect(read("Find my account by name, with full name Kamala Zhang.")).toBe("Kamala Zhang");
  });

  it('reads no choice out of "I\'m a bit lost"', async () => {
    const telecom = WorldModel.of(await Agent.load("test/fixtures/specs/telecom.json"));
    const suspend = telecom.tools.get("suspend_line") as ToolModel;
    const read = (text: string) => readValue(telecom, suspend, "reason", text, false)?.value;
    expect(
      read("hi there. sorry, i'm a bit lost. i think i have to suspend my line?"),
    ).toBeUndefined();
    expect(read("My phone is lost, please suspend my line.")).toBe("lost");
  });

  it('reads "HI." asked for a code as that code, not a greeting', () => {
    expect(bare("HI.")).toBe("HI");
    expect(bare("Hi, it's MX.")).toBe("MX");
    expect(bare("Sure.")).toBe("");
  });

  it('reads a yes or a no from the answer past its lead-in: "Sure, it\'s no." is a no', () => {
    const read = (text: string) =>
      readValue(model, tool("submit_claim"), "declaration_accepted", text, true)?.value;
    expect(read("Sure, it's no.")).toBe(false);
    expect(read("Sure, it's yes.")).toBe(true);
    expect(read("No.")).toBe(false);
    expect(read("Yes, I accept.")).toBe(true);
    expect(read("Okay, no.")).toBe(false);
    expect(read("It's true.")).toBe(true);
    expect(read("Not sure.")).toBeUndefined();
  });

  it('reads "change my check-in to …" into the new check-in, and a count by the word after it, never a date\'s year', async () => {
    const hotel = WorldModel.of(await Agent.load("test/fixtures/specs/hotel.json"));
    const modify = hotel.tools.get("modify_reservation_dates") as ToolModel;
    const read = (param: string, text: string, asked: boolean) =>
      readValue(hotel, modify, param, text, asked)?.value;
    for (const asked of [false, true]) {
      expect(read("new_check_in", "Please change my check-in to 2026-08-05.", asked)).toBe(
        "2026-08-05",
      );
      expect(read("nights", "Move my check-in to 2026-08-05, for 3 nights.", asked)).toBe(3);
    }
    expect(read("nights", "2026-08-05", true)).toBeUndefined();
    expect(read("nights", "2026-08-05, and 4 please", true)).toBe(4);
    // Unasked, a number without its name is no count.
    expect(read("nights", "Move it to 2026-08-05, room 12.", false)).toBeUndefined();
  });

  it("reads no unasked date said as a start into an end, nor one said as an end into a start", () => {
    const until = (text: string) =>
      readValue(model, tool("waitlist_add"), "until_date", text, false)?.value;
    expect(until("it's about my therapist (tundra therapist) from 2026-06-14")).toBeUndefined();
    expect(until("put me on the waitlist until 2026-07-01")).toBe("2026-07-01");
    expect(until("any time before 2026-07-01 works")).toBe("2026-07-01");
    const resume = (text: string) =>
      readValue(model, tool("suspend_line"), "resume_date", text, false)?.value;
    expect(resume("suspend my line (indigo line) from 2026-03-27, it's lost")).toBeUndefined();
    expect(resume("please resume it on 2026-07-01")).toBe("2026-07-01");
    expect(
      readValue(model, tool("waitlist_add"), "until_date", "from 2026-06-14", true)?.value,
    ).toBe("2026-06-14");
  });

  it('reads a new address after "to" up to the next detail, for the write that moves it only', () => {
    const said = "register a new move out to 208 Kestrel Court, with forwarding postcode M1 1AE!";
    expect(
      readValue(model, tool("register_move_out"), "forwarding_address", said, false)?.value,
    ).toBe("208 Kestrel Court");
    expect(
      readValue(model, tool("find_account_by_address"), "address_line_1", said, false),
    ).toBeNull();
  });

  it("reads a choice said after its detail's name over another said of a record ('my account (electricity)')", async () => {
    const energy = WorldModel.of(await Agent.load("test/fixtures/specs/utility-energy.json"));
    const fuel = (said: string) =>
      readValue(energy, energy.tools.get("report_outage") as ToolModel, "fuel", said, false)?.value;
    expect(
      fuel(
        "Can you look into my account (electricity)?\nI want to report my outage, with postcode BS1 5TR, with fuel gas.",
      ),
    ).toBe("gas");
    expect(fuel("There's no power, my electricity is out")).toBe("electricity");
    // What a record of theirs is, in brackets, is no choice for the change.
    const saas = WorldModel.of(await Agent.load("test/fixtures/specs/saas-admin.json"));
    const plan = (said: string) =>
      readValue(saas, saas.tools.get("update_billing_plan") as ToolModel, "plan", said, false)
        ?.value;
    expect(plan("It's my workspace (Meadow workspace, free) from 2026-06-09")).toBeUndefined();
    expect(plan("It's my workspace (Meadow workspace, free), plan business")).toBe("business");
  });

  it("reads a labelled address whole, commas and all, from details set off by semicolons", () => {
    const read = (said: string) =>
      readValue(model, tool("register_move_out"), "forwarding_address", said, false)?.value;
    expect(
      read(
        "Here you go: move out date 2026-09-30; forwarding address 48 Thistle Way, Vancouver V6B 1A1; forwarding postcode V6B 1A1.",
      ),
    ).toBe("48 Thistle Way, Vancouver V6B 1A1");
    // Set off by commas, the details keep their own: an address there ends at the next comma.
    expect(
      read(
        "Here you go: move out date 2026-09-30, forwarding address 48 Thistle Way, forwarding postcode V6B 1A1.",
      ),
    ).toBe("48 Thistle Way");
  });

  it("reads a list of codes its pattern takes, Montenegro's ME too, and no sentence as one", async () => {
    const telecom = WorldModel.of(await Agent.load("test/fixtures/specs/telecom.json"));
    const roaming = telecom.tools.get("roaming_pass_add") as ToolModel;
    const read = (text: string) =>
      readValue(telecom, roaming, "destination_countries", text, true)?.value;
    expect(read("sure, it's TX and DK and ME!")).toEqual(["TX", "DK", "ME"]);
    expect(read("I want it and me")).toBeUndefined();
  });

  it("reads a code said without a comma before the next words as its first word, and a spaced number whole", async () => {
    const hotel = WorldModel.of(await Agent.load("test/fixtures/specs/hotel.json"));
    const invoice = hotel.tools.get("send_invoice") as ToolModel;
    expect(
      readValue(
        hotel,
        invoice,
        "vat_number",
        "send the invoice of my reservation HLD-50G1NS with vat number VAT-416415 I know there's some rule about this",
        false,
      )?.value,
    ).toBe("VAT-416415");
    expect(
      readValue(hotel, invoice, "vat_number", "with vat number PT 509 876 543", false)?.value,
    ).toBe("PT 509 876 543");
  });

  it("takes a note asked for as said, a polite one too, but no request said again", () => {
    const note = (text: string) =>
      readValue(model, tool("claim_note_add"), "note", text, true)?.value;
    expect(note("Sure it's Please use my mobile number to reach me.")).toMatch(
      /^Please use my mobile number to reach me/,
    );
    expect(note("Can you just add the note?")).toBeUndefined();
  });

  it("strips a lead-in word only when it is a word: Okafor and Hiroshi keep their first letters", () => {
    expect(bare("Okafor")).toBe("Okafor");
    expect(bare("ok, Okafor")).toBe("Okafor");
    expect(bare("Hiroshi")).toBe("Hiroshi");
    expect(bare("hi! it's Hiroshi.")).toBe("Hiroshi");
    expect(bare("Yessenia")).toBe("Yessenia");
    expect(bare("Sure, it's 5 Quay Street.")).toBe("5 Quay Street");
  });

  it("takes the id the person owns, not the one they disown", () => {
    const read = readValue(
      model,
      tool("transfer_funds"),
      "from_account_id",
      "No, ACC-65116 isn't mine. It's ACC-56116.",
      true,
    );
    expect(read?.value).toBe("ACC-56116");
  });
});

describe("the offline agent and a listing that takes no required argument", () => {
  it("asks for the person's detail that narrows it before listing everyone's records", async () => {
    const agent = new OfflineAgent({ slipRate: 0 }).start(Agent.from(SPEC), 1);
    const conversation: ChatMessage[] = [
      { role: "system", content: "You help the admins of a team workspace product." },
      { role: "user", content: "I need to find my workspace." },
    ];
    const turn = await agent.respond(conversation);
    expect(turn.message.tool_calls).toBeUndefined();
    expect(turn.message.content).toMatch(/email address/i);
  });

  it("lists a catalog a city narrows without asking the person where they live", async () => {
    const agent = new OfflineAgent({ slipRate: 0 }).start(Agent.from(SPEC), 1);
    const turn = await agent.respond([
      { role: "system", content: "You help the admins of a team workspace product." },
      { role: "user", content: "Could you list the offices?" },
    ]);
    expect(turn.message.tool_calls?.[0]?.function.name).toBe("list_offices");
  });
});
