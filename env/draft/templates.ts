import { amount, date, id, oneOf, text, tool } from "./template-tools.ts";

/** A domain the offline drafter can start from: the words that choose it, and its spec. */
export interface DraftTemplate {
  id: string;
  title: string;
  /** Words of a sentence that point at this domain (singular, lower case). */
  words: readonly string[];
  spec: {
    name: string;
    system_prompt: string;
    tools: Record<string, unknown>[];
    policy: { id: string; text: string; tools?: string[] }[];
  };
}

/** The offline drafter's domains, in the order ties are broken. */
export const DRAFT_TEMPLATES: readonly DraftTemplate[] = [
  {
    id: "retail-orders",
    title: "retail orders",
    words: [
      "shop",
      "store",
      "order",
      "retail",
      "ecommerce",
      "e-commerce",
      "purchase",
      "return",
      "exchange",
      "delivery",
      "shipping",
      "parcel",
      "customer",
    ],
    spec: {
      name: "retail orders assistant",
      system_prompt:
        "You are the support agent of an online shop. You look up, cancel, refund and exchange orders and track parcels, with the tools only.",
      tools: [
        tool(
          "get_order",
          "Look up one order by its id.",
          { order_id: id("Order id, such as #W2847103") },
          ["order_id"],
          "read",
        ),
        tool(
          "list_orders",
          "List the orders of a customer found by the email on their account.",
          { email: text("The customer's email address") },
          ["email"],
          "read",
        ),
        tool(
          "track_shipment",
          "Where the parcel of an order is now.",
          { order_id: id("Order id, such as #W2847103") },
          ["order_id"],
          "read",
        ),
        tool(
          "cancel_order",
          "Cancel an order that has not shipped yet.",
          { order_id: id("Order id, such as #W2847103"), reason: text("Why the customer cancels") },
          ["order_id", "reason"],
          "destructive",
        ),
        tool(
          "refund_order",
          "Refund a delivered order to the original payment method.",
          { order_id: id("Order id, such as #W2847103"), amount: amount("Amount to refund") },
          ["order_id", "amount"],
          "destructive",
        ),
        tool(
          "exchange_item",
          "Exchange an item of a delivered order for another variant.",
          {
            order_id: id("Order id, such as #W2847103"),
            item_id: id("Item id, such as ITM-55012"),
            new_variant: text("The variant wanted instead"),
          },
          ["order_id", "item_id", "new_variant"],
          "write",
        ),
      ],
      policy: [
        {
          id: "identify_first",
          text: "Find the customer's account by their email before acting on any order.",
        },
        {
          id: "cancel_unshipped_only",
          text: "Only cancel orders that have not shipped; a shipped order is returned instead.",
          tools: ["cancel_order"],
        },
        {
          id: "no_invented_orders",
          text: "Never state an order id, amount or status the customer did not give or a tool did not return.",
        },
      ],
    },
  },
  {
    id: "personal-finance",
    title: "personal finance and payments",
    words: [
      "finance",
      "financial",
      "bank",
      "banking",
      "money",
      "payment",
      "pay",
      "transfer",
      "account",
      "balance",
      "card",
      "budget",
      "wallet",
      "loan",
    ],
    spec: {
      name: "personal finance assistant",
      system_prompt:
        "You are a personal finance assistant for a retail bank. You answer questions about the customer's accounts and carry out payments and transfers with the tools.",
      tools: [
        tool(
          "find_customer",
          "Find a customer by the email on their profile.",
          { email: text("The customer's email address") },
          ["email"],
          "read",
        ),
        tool(
          "get_balance",
          "Current and available balance of one account.",
          { account_id: id("Account id, such as ACC-40213") },
          ["account_id"],
          "read",
        ),
        tool(
          "list_transactions",
          "Recent transactions of one account, newest first.",
          { account_id: id("Account id, such as ACC-40213") },
          ["account_id"],
          "read",
        ),
        tool(
          "transfer_funds",
          "Move money between two of the customer's own accounts.",
          {
            from_account_id: id("Account id, such as ACC-40213"),
            to_account_id: id("Account id, such as ACC-40213"),
            amount: amount("Amount to move"),
          },
          ["from_account_id", "to_account_id", "amount"],
          "destructive",
        ),
        tool(
          "pay_bill",
          "Pay a saved payee from one account.",
          {
            account_id: id("Account id, such as ACC-40213"),
            payee_id: id("Payee id, such as PAY-7781"),
            amount: amount("Amount to pay"),
            date: date("Day to pay on"),
          },
          ["account_id", "payee_id", "amount"],
          "destructive",
        ),
        tool(
          "freeze_card",
          "Freeze a payment card at once, for a lost or stolen card.",
          { card_id: id("Card id, such as CRD-30917") },
          ["card_id"],
          "write",
        ),
      ],
      policy: [
        {
          id: "own_accounts_only",
          text: "Never move money from an account the customer has not named as theirs.",
        },
        {
          id: "exact_amounts",
          text: "Do not split, round or change an amount the customer gave.",
          tools: ["transfer_funds", "pay_bill"],
        },
        { id: "no_advice", text: "Do not give investment or tax advice." },
      ],
    },
  },
  {
    id: "travel-booking",
    title: "airline and travel booking",
    words: [
      "airline",
      "flight",
      "fly",
      "travel",
      "trip",
      "booking",
      "book",
      "reservation",
      "seat",
      "baggage",
      "hotel",
      "ticket",
      "itinerary",
      "passenger",
    ],
    spec: {
      name: "travel booking assistant",
      system_prompt:
        "You are the booking assistant of an airline. You look up, change and cancel reservations and add baggage, with the tools only.",
      tools: [
        tool(
          "find_reservation",
          "Look up a reservation by its booking code and the passenger's last name.",
          {
            booking_code: id("Booking code, such as QX7R2M"),
            last_name: text("The passenger's last name"),
          },
          ["booking_code", "last_name"],
          "read",
        ),
        tool(
          "search_flights",
          "Flights between two airports on a day.",
          {
            origin: id("Airport code, such as LHR"),
            destination: id("Airport code, such as JFK"),
            date: date("Day of travel"),
          },
          ["origin", "destination", "date"],
          "read",
        ),
        tool(
          "change_flight",
          "Move a reservation to another flight.",
          {
            booking_code: id("Booking code, such as QX7R2M"),
            flight_number: id("Flight number, such as QX1042"),
          },
          ["booking_code", "flight_number"],
          "write",
        ),
        tool(
          "cancel_reservation",
          "Cancel a reservation; the refund follows the fare rules.",
          {
            booking_code: id("Booking code, such as QX7R2M"),
            reason: text("Why the passenger cancels"),
          },
          ["booking_code", "reason"],
          "destructive",
        ),
        tool(
          "add_baggage",
          "Add checked bags to a reservation.",
          {
            booking_code: id("Booking code, such as QX7R2M"),
            bags: { type: "integer", minimum: 1, maximum: 3, description: "Bags to add" },
          },
          ["booking_code", "bags"],
          "write",
        ),
        tool(
          "get_flight_status",
          "Departure, arrival and delay of one flight.",
          { flight_number: id("Flight number, such as QX1042") },
          ["flight_number"],
          "read",
        ),
      ],
      policy: [
        {
          id: "verify_passenger",
          text: "Find the reservation by booking code and last name before changing anything.",
        },
        {
          id: "fare_difference",
          text: "Tell the passenger any fare difference before changing a flight.",
          tools: ["change_flight"],
        },
        {
          id: "no_invented_flights",
          text: "Never state a flight, time or price a tool did not return.",
        },
      ],
    },
  },
  {
    id: "healthcare-appointments",
    title: "healthcare appointments",
    words: [
      "health",
      "healthcare",
      "clinic",
      "doctor",
      "patient",
      "appointment",
      "medical",
      "hospital",
      "nurse",
      "therapy",
      "physio",
      "dentist",
      "prescription",
      "care",
    ],
    spec: {
      name: "clinic appointments assistant",
      system_prompt:
        "You are the front desk assistant of a clinic. You book, move and cancel patients' appointments, with the tools only. You give no medical advice.",
      tools: [
        tool(
          "find_patient",
          "Find a patient by their date of birth and phone number.",
          {
            date_of_birth: date("The patient's date of birth"),
            phone: text("The patient's phone number"),
          },
          ["date_of_birth", "phone"],
          "read",
        ),
        tool(
          "list_appointments",
          "A patient's upcoming appointments.",
          { patient_id: id("Patient id, such as PT-20931") },
          ["patient_id"],
          "read",
        ),
        tool(
          "find_open_slots",
          "Open slots of a clinician on a day.",
          { clinician_id: id("Clinician id, such as CL-118"), date: date("The day wanted") },
          ["clinician_id", "date"],
          "read",
        ),
        tool(
          "book_appointment",
          "Book a patient into an open slot.",
          {
            patient_id: id("Patient id, such as PT-20931"),
            slot_id: id("Slot id, such as SL-40077"),
          },
          ["patient_id", "slot_id"],
          "write",
        ),
        tool(
          "reschedule_appointment",
          "Move an appointment to another open slot.",
          {
            appointment_id: id("Appointment id, such as AP-77120"),
            slot_id: id("Slot id, such as SL-40077"),
          },
          ["appointment_id", "slot_id"],
          "write",
        ),
        tool(
          "cancel_appointment",
          "Cancel an appointment.",
          {
            appointment_id: id("Appointment id, such as AP-77120"),
            reason: text("Why the patient cancels"),
          },
          ["appointment_id", "reason"],
          "destructive",
        ),
      ],
      policy: [
        {
          id: "identify_patient",
          text: "Find the patient by date of birth and phone before reading or changing appointments.",
        },
        {
          id: "no_medical_advice",
          text: "Do not give medical advice; suggest the patient asks their clinician.",
        },
        {
          id: "late_cancellation",
          text: "Tell the patient that cancelling less than 24 hours ahead may be charged.",
          tools: ["cancel_appointment"],
        },
      ],
    },
  },
  {
    id: "telecom-support",
    title: "telecom and IT support",
    words: [
      "telecom",
      "phone",
      "mobile",
      "internet",
      "broadband",
      "network",
      "sim",
      "plan",
      "it",
      "helpdesk",
      "support",
      "outage",
      "router",
      "password",
      "laptop",
      "ticket",
      "technical",
    ],
    spec: {
      name: "telecom support assistant",
      system_prompt:
        "You are the support agent of a mobile and broadband provider. You check lines and outages, change plans and open repair tickets, with the tools only.",
      tools: [
        tool(
          "find_subscriber",
          "Find a subscriber by the phone number on their account.",
          { phone: text("The subscriber's phone number") },
          ["phone"],
          "read",
        ),
        tool(
          "check_outage",
          "Known outages at a postcode.",
          { postcode: text("Postcode, such as 94107") },
          ["postcode"],
          "read",
        ),
        tool(
          "run_line_test",
          "Test the line of a subscriber's service.",
          { service_id: id("Service id, such as SRV-558201") },
          ["service_id"],
          "read",
        ),
        tool(
          "open_ticket",
          "Open a repair ticket for a service.",
          {
            service_id: id("Service id, such as SRV-558201"),
            summary: text("What is wrong, in one line"),
          },
          ["service_id", "summary"],
          "write",
        ),
        tool(
          "change_plan",
          "Move a subscriber to another plan from the next bill.",
          {
            subscriber_id: id("Subscriber id, such as SUB-90412"),
            plan_id: oneOf(["basic", "plus", "unlimited"], "The plan wanted"),
          },
          ["subscriber_id", "plan_id"],
          "write",
        ),
        tool(
          "reset_password",
          "Send a password reset link to the subscriber's email.",
          { subscriber_id: id("Subscriber id, such as SUB-90412") },
          ["subscriber_id"],
          "write",
        ),
      ],
      policy: [
        {
          id: "identify_subscriber",
          text: "Find the subscriber by their phone number before changing anything.",
        },
        {
          id: "outage_first",
          text: "Check for an outage before running a line test or opening a ticket.",
          tools: ["run_line_test", "open_ticket"],
        },
        { id: "no_invented_tickets", text: "Never quote a ticket number a tool did not return." },
      ],
    },
  },
  {
    id: "insurance-claims",
    title: "insurance claims",
    words: [
      "insurance",
      "insurer",
      "claim",
      "policy",
      "coverage",
      "premium",
      "deductible",
      "accident",
      "damage",
      "adjuster",
      "insured",
    ],
    spec: {
      name: "insurance claims assistant",
      system_prompt:
        "You are the claims assistant of an insurer. You look up policies, file and update claims and explain what a policy covers, with the tools only.",
      tools: [
        tool(
          "find_policy",
          "Look up an insurance policy by its number and the holder's last name.",
          {
            policy_number: id("Policy number, such as POL-3310592"),
            last_name: text("The policyholder's last name"),
          },
          ["policy_number", "last_name"],
          "read",
        ),
        tool(
          "get_coverage",
          "What a policy covers, its limits and its deductible.",
          { policy_number: id("Policy number, such as POL-3310592") },
          ["policy_number"],
          "read",
        ),
        tool(
          "file_claim",
          "File a new claim against a policy.",
          {
            policy_number: id("Policy number, such as POL-3310592"),
            incident_date: date("Day of the incident"),
            description: text("What happened"),
          },
          ["policy_number", "incident_date", "description"],
          "write",
        ),
        tool(
          "get_claim",
          "Status of one claim.",
          { claim_id: id("Claim id, such as CLM-804417") },
          ["claim_id"],
          "read",
        ),
        tool(
          "upload_document",
          "Attach a document to a claim.",
          {
            claim_id: id("Claim id, such as CLM-804417"),
            document_type: oneOf(["photo", "receipt", "police_report"], "Kind of document"),
          },
          ["claim_id", "document_type"],
          "write",
        ),
        tool(
          "withdraw_claim",
          "Withdraw a claim the policyholder no longer wants.",
          { claim_id: id("Claim id, such as CLM-804417") },
          ["claim_id"],
          "destructive",
        ),
      ],
      policy: [
        {
          id: "verify_holder",
          text: "Find the policy by number and last name before filing or changing a claim.",
        },
        {
          id: "no_payout_promises",
          text: "Never promise a payout amount or that a claim will be accepted.",
        },
        {
          id: "deductible_shown",
          text: "Tell the policyholder the deductible before filing a claim.",
          tools: ["file_claim"],
        },
      ],
    },
  },
];
