import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { behaviourOf } from "../../../env/people/stances.ts";
import { isSentence } from "../../../env/quality.ts";
import { agentWrites } from "../../../env/text/agent-written.ts";
import { IdentifierReader } from "../../../env/text/identifiers.ts";
import { awaitsGoAhead } from "../../../env/text/phrases.ts";
import { needsConfirmation } from "../../../env/text/reading.ts";
import { spokenName } from "../../../env/text/slots.ts";
import { CODES_IN_TEXT, saysValue, snake } from "../../../env/util/names.ts";
import { propertiesOf, WorldModel } from "../../../env/world/model.ts";
import { DEFAULTS } from "../../../spec/index.ts";
import {
  agentOf,
  HEAVY,
  lastUserBefore,
  none,
  rowsOf,
  runOf,
  SPECS,
  slipCovers,
  startOf,
  strings,
  summary,
} from "./corpus-runs.ts";

/**
 * The offline roles' checks over runs of corpus specs, each bound applying to the specs given:
 * every corpus spec is checked by one of the files that call this with a part of the corpus.
 */
export function corpusChecks(specs: readonly string[]): void {
  describe("the offline agent on the corpus", () => {
    it(
      "never calls a change without the id of the record it acts on",
      async () => {
        const cases: string[] = [];
        for (const path of specs)
          for (const row of await rowsOf(path))
            for (const message of row.messages)
              if (message.role === "tool" && /"undefined"/.test(message.content))
                cases.push(`${path} ${row.task_id}: ${message.content.slice(0, 160)}`);
        expect(summary(cases)).toEqual(none);
      },
      HEAVY,
    );

    it(
      "ends every conversation well before the default turn limit",
      async () => {
        const cases: string[] = [];
        for (const path of specs)
          for (const row of await rowsOf(path))
            if (row.episode.ended_by === "turn_limit" || row.episode.turns > DEFAULTS.maxTurns / 2)
              cases.push(`${path} ${row.task_id}: ${row.episode.turns} turns`);
        expect(summary(cases)).toEqual(none);
      },
      HEAVY,
    );

    it(
      "says a code of the world's in words to the person (status pending move in), an id as written",
      async () => {
        const cases: string[] = [];
        let said = 0;
        for (const path of specs) {
          const ids = IdentifierReader.of(await agentOf(path));
          for (const row of await rowsOf(path))
            for (const message of row.messages.slice(startOf(row))) {
              if (message.role !== "assistant" || typeof message.content !== "string") continue;
              said++;
              for (const code of message.content.match(CODES_IN_TEXT) ?? [])
                if (!ids.read(code).includes(code))
                  cases.push(
                    `${path} ${row.task_id}: "${code}" in ${message.content.slice(0, 120)}`,
                  );
            }
        }
        expect(said).toBeGreaterThan(1000);
        expect(summary(cases)).toEqual(none);
      },
      HEAVY,
    );

    it(
      "never puts a sentence into an identifier field, except in a recorded slip",
      async () => {
        const DETAIL = /(_id|_number|_code|email|phone|name)$/;
        const cases: string[] = [];
        let checked = 0;
        for (const path of specs) {
          const rows = await rowsOf(path);
          expect(rows.length).toBeGreaterThanOrEqual(300);
          for (const row of rows) {
            row.messages.forEach((message, i) => {
              if (message.role !== "assistant" || slipCovers(row, i)) return;
              for (const c of message.tool_calls ?? []) {
                // Fields nested in objects (a flight's number, a medication's rx number) count too.
                const visit = (value: unknown, field: string | null): void => {
                  if (Array.isArray(value)) for (const v of value) visit(v, field);
                  else if (value !== null && typeof value === "object")
                    for (const [k, v] of Object.entries(value)) visit(v, k);
                  else if (typeof value === "string" && field && DETAIL.test(snake(field))) {
                    checked++;
                    if (isSentence(value))
                      cases.push(
                        `${path} ${row.task_id} message ${i}: ${c.function.name}.${field} = ${JSON.stringify(value)}`,
                      );
                  }
                };
                visit(JSON.parse(c.function.arguments), null);
              }
            });
          }
        }
        expect(checked).toBeGreaterThan(1000);
        expect(summary(cases)).toEqual(none);
      },
      HEAVY,
    );

    it(
      "never asks the person for a hand-off's choice, which is the agent's to make",
      async () => {
        const cases: string[] = [];
        let handoffs = 0;
        for (const path of specs) {
          const model = WorldModel.of(await agentOf(path));
          // "the reason", "the team": what a hand-off requires the agent to choose from a list.
          const choices = [...model.tools.values()]
            .filter((t) => t.kind === "handoff")
            .flatMap((t) =>
              (t.tool.parameters.required ?? []).filter((p) =>
                Array.isArray(propertiesOf(t)[p]?.enum),
              ),
            )
            .map((p) => new RegExp(`\\bthe ${spokenName(p)}\\b`, "i"));
          if (choices.length === 0) continue;
          for (const row of await rowsOf(path))
            row.messages.forEach((message, i) => {
              if (message.role !== "assistant" || slipCovers(row, i)) return;
              if (
                message.tool_calls?.some(
                  (c) => model.tools.get(c.function.name)?.kind === "handoff",
                )
              )
                handoffs++;
              const text = message.content ?? "";
              if (!choices.some((c) => c.test(text))) return;
              // Asked on the way to a hand-off (its next call), or a hand-off refused for want of it.
              const next = row.messages
                .slice(i + 1)
                .find((m) => m.role === "assistant" && (m.tool_calls?.length ?? 0) > 0);
              const handingOff =
                next?.role === "assistant" &&
                next.tool_calls?.some((c) => model.tools.get(c.function.name)?.kind === "handoff");
              if ((/\?/.test(text) && handingOff) || /pass this on without/.test(text))
                cases.push(`${path} ${row.task_id} message ${i}: ${text}`);
            });
        }
        expect(handoffs).toBeGreaterThan(100);
        expect(summary(cases)).toEqual(none);
      },
      HEAVY,
    );

    it(
      "reads every detail of a write back (a code may be in words) and waits for a yes before it",
      async () => {
        const YES = /\b(yes|yeah|yep|sure|ok(ay)?|go ahead|do it|please do|correct)\b/i;
        const NO = /^\W*(no|nope|nah|don'?t|wait|stop)\b/i;
        const cases: string[] = [];
        let writes = 0;
        let refusals = 0;
        for (const path of specs) {
          const agent = await agentOf(path);
          const model = WorldModel.of(agent);
          for (const row of await rowsOf(path)) {
            row.messages.forEach((message, i) => {
              if (message.role !== "assistant" || i < startOf(row)) return;
              for (const c of message.tool_calls ?? []) {
                const tool = model.tools.get(c.function.name);
                if (!tool || !needsConfirmation(agent, tool) || slipCovers(row, i)) continue;
                writes++;
                const where = `${path} ${row.task_id} message ${i} ${c.function.name}`;
                const answer = lastUserBefore(row, i);
                const reply = row.messages[answer];
                const readBack = row.messages[answer - 1];
                const text = readBack?.role === "assistant" ? (readBack.content ?? "") : "";
                if (reply?.role !== "user" || !YES.test(reply.content) || NO.test(reply.content)) {
                  cases.push(`${where}: the person's last word was not a yes`);
                  continue;
                }
                if (!awaitsGoAhead(text)) {
                  cases.push(
                    `${where}: the yes did not answer a read-back (${JSON.stringify(text)})`,
                  );
                  continue;
                }
                // The agent's own free text (a summary, a description it writes) is not the person's to confirm.
                const values = Object.entries(JSON.parse(c.function.arguments) as object)
                  .filter(([param]) => !agentWrites(tool, param))
                  .flatMap(([param, value]) => strings(value).map((v) => [param, v] as const))
                  .filter(([, v]) => v.length >= 3);
                for (const [param, value] of values)
                  if (!saysValue(text.toLowerCase(), value))
                    cases.push(`${where}: ${param} ${JSON.stringify(value)} was not read back`);
              }
            });
            // Told no, the agent does not go on to make the change.
            row.messages.forEach((message, i) => {
              const asked = row.messages[i - 1];
              if (message.role !== "user" || i <= startOf(row) || asked?.role !== "assistant")
                return;
              if (!awaitsGoAhead(asked.content ?? "") || !NO.test(message.content)) return;
              refusals++;
              const next = row.messages[i + 1];
              for (const c of next?.role === "assistant" ? (next.tool_calls ?? []) : []) {
                const tool = model.tools.get(c.function.name);
                if (tool && needsConfirmation(agent, tool))
                  cases.push(`${path} ${row.task_id}: called ${c.function.name} right after a no`);
              }
            });
          }
        }
        expect(writes).toBeGreaterThan(500);
        expect(refusals).toBeGreaterThan(0);
        expect(summary(cases)).toEqual(none);
      },
      HEAVY,
    );

    it(
      "takes a check that found no record for no pass: no write is read back or made after it",
      async () => {
        const cases: string[] = [];
        let missed = 0;
        for (const path of specs) {
          const agent = await agentOf(path);
          const model = WorldModel.of(agent);
          for (const row of await rowsOf(path)) {
            row.messages.forEach((message, i) => {
              if (message.role !== "tool" || i < startOf(row)) return;
              const check = model.tools.get(message.name ?? "");
              if (!check || check.verifies.length === 0) return;
              if (!/"error":\s*"not_found"/.test(message.content)) return;
              missed++;
              const next = row.messages[i + 1];
              if (next?.role !== "assistant" || slipCovers(row, i + 1)) return;
              const where = `${path} ${row.task_id} message ${i + 1}`;
              if (awaitsGoAhead(next.content ?? ""))
                cases.push(`${where}: read back a write after ${check.tool.name} found no record`);
              for (const c of next.tool_calls ?? []) {
                const tool = model.tools.get(c.function.name);
                if (tool && needsConfirmation(agent, tool))
                  cases.push(
                    `${where}: called ${c.function.name} after ${check.tool.name} found no record`,
                  );
              }
            });
          }
        }
        expect(missed).toBeGreaterThan(0);
        expect(summary(cases)).toEqual(none);
      },
      HEAVY,
    );

    it(
      "records every slip it makes, where a check finds it",
      async () => {
        const FINDING = {
          invented_identifier: "unknown_identifier",
          claimed_unperformed_action: "unbacked_action_claim",
          claimed_success_after_error: "success_after_failure",
        } as const;
        const cases: string[] = [];
        const kinds = new Set<string>();
        for (const path of specs) {
          const agent = await agentOf(path);
          const model = WorldModel.of(agent);
          for (const row of await rowsOf(path)) {
            for (const slip of row.episode.slips) {
              kinds.add(slip.kind);
              const where = `${path} ${row.task_id} ${slip.kind} (${slip.detail}) at ${slip.message}`;
              const message = row.messages[slip.message];
              if (message?.role !== "assistant") {
                cases.push(`${where}: not an agent message`);
                continue;
              }
              const calls = message.tool_calls ?? [];
              if (slip.kind === "early_handoff") {
                const handedOff =
                  calls.some((c) => model.tools.get(c.function.name)?.kind === "handoff") ||
                  /colleague/i.test(message.content ?? "");
                if (!handedOff) cases.push(`${where}: no hand-off there`);
              } else if (slip.kind === "skipped_confirmation") {
                const write = calls.some((c) => {
                  const tool = model.tools.get(c.function.name);
                  return tool !== undefined && needsConfirmation(agent, tool);
                });
                const asked = awaitsGoAhead(
                  (
                    row.messages[lastUserBefore(row, slip.message) - 1] as {
                      content?: string | null;
                    }
                  )?.content ?? "",
                );
                if (!write || asked) cases.push(`${where}: no unconfirmed write there`);
              } else {
                const check = FINDING[slip.kind];
                if (
                  !row.conduct.some((f) => f.check === check && f.evidence.message === slip.message)
                )
                  cases.push(
                    `${where}: no ${check} finding (conduct: ${JSON.stringify(row.conduct)})`,
                  );
              }
            }
          }
        }
        expect(kinds.size).toBeGreaterThanOrEqual(4);
        expect(summary(cases)).toEqual(none);
      },
      HEAVY,
    );
  });

  describe("the offline person on the corpus", () => {
    it(
      "paraphrases a rule when pressing, never quoting it",
      async () => {
        const words = (text: string) =>
          text
            .toLowerCase()
            .replace(/[\uE000\uE001]/g, "")
            .split(/[^a-z0-9']+/)
            .filter(Boolean);
        const cases: string[] = [];
        let pressing = 0;
        for (const path of specs) {
          const agent = await agentOf(path);
          const runs = new Set<string>();
          for (const rule of agent.policy.rules) {
            const w = words(rule.text);
            for (let i = 0; i + 8 <= w.length; i++) runs.add(w.slice(i, i + 8).join(" "));
          }
          for (const row of await rowsOf(path)) {
            const stance = agent.axes.stance.find((s) => s.name === row.situation.axes.stance);
            if (!stance || behaviourOf(stance) !== "pressuring") continue;
            pressing++;
            for (const message of row.messages) {
              if (message.role !== "user") continue;
              const w = words(message.content);
              for (let i = 0; i + 8 <= w.length; i++) {
                const run = w.slice(i, i + 8).join(" ");
                if (runs.has(run)) {
                  cases.push(`${path} ${row.task_id}: "${run}"`);
                  break;
                }
              }
            }
          }
        }
        expect(pressing).toBeGreaterThan(100);
        expect(summary(cases)).toEqual(none);
      },
      HEAVY,
    );
  });

  describe("the offline writer on the corpus", () => {
    it(
      "varies its openings and never puts a filler code where a name is expected",
      async () => {
        const frame = (text: string) =>
          text
            .toLowerCase()
            .replace(/\S*\d\S*/g, "#")
            .split(/[^a-z#']+/)
            .filter(Boolean)
            .slice(0, 5)
            .join(" ");
        const cases: string[] = [];
        for (const path of specs) {
          const rows = await rowsOf(path);
          expect(rows.length).toBeGreaterThanOrEqual(500);
          const frames = new Set<string>();
          for (const row of rows) {
            const first = row.messages[startOf(row)];
            if (first?.role === "user") frames.add(frame(first.content));
            for (const [param, value] of Object.entries(row.episode.goal.arguments))
              if (/_name$/.test(snake(param)) && typeof value === "string")
                if (/^[A-Z][a-z]+-\d{3}$/.test(value))
                  cases.push(`${path} ${row.task_id}: ${param} = ${value}`);
          }
          if (frames.size < rows.length * 0.25)
            cases.push(`${path}: ${frames.size} opening frames in ${rows.length} rows`);
        }
        expect(summary(cases)).toEqual(none);
      },
      HEAVY,
    );
  });

  describe("the run's quality on the corpus", () => {
    /** Ids a utility tool's answer would carry had it made a record. */
    function createdIdIn(content: string, idFields: ReadonlySet<string>): string | null {
      let body: unknown;
      try {
        body = JSON.parse(content);
      } catch {
        return null;
      }
      if (body === null || typeof body !== "object") return null;
      const key = Object.keys(body).find((k) => idFields.has(k) || k === "created_at");
      return key ?? null;
    }

    it("the quality table: every figure in bounds on every corpus spec, with no warning", async () => {
      const table: string[] = [];
      const problems: string[] = [];
      const pct = (f: { fraction: number | null }) =>
        f.fraction === null ? "   —  " : `${(f.fraction * 100).toFixed(1).padStart(5)}%`;
      table.push(
        [
          "spec".padEnd(17),
          "exercised",
          "loops ",
          "empty ",
          "sentences",
          "confirmed",
          "openings",
          "reached",
          "off schema",
          "refused",
          "utility",
          "never called",
        ].join(" | "),
      );
      for (const path of specs.filter((p) => p.startsWith(SPECS))) {
        const name = basename(path, ".json");
        const agent = await agentOf(path);
        const { rows, quality: q, warnings } = await runOf(path);
        expect(q, name).not.toBeNull();
        if (!q) continue;
        const model = WorldModel.of(agent);
        const utilities = new Set(
          agent.tools.filter((t) => t.role === "utility").map((t) => t.name),
        );
        const idFields = new Set([...model.entities.values()].map((e) => e.idField));
        let utilityCalls = 0;
        for (const row of rows) {
          const names = new Map<string, string>();
          for (const message of row.messages) {
            if (message.role === "assistant")
              for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
            if (message.role !== "tool") continue;
            const tool = names.get(message.tool_call_id) ?? message.name ?? "";
            if (!utilities.has(tool)) continue;
            utilityCalls++;
            const created = createdIdIn(message.content, idFields);
            if (created)
              problems.push(
                `${name} ${row.id}: ${tool} answered with ${created}: ${message.content}`,
              );
          }
        }
        table.push(
          [
            name.padEnd(17),
            pct(q.situation_tool_exercised).padEnd(9),
            pct(q.loops),
            pct(q.empty_lookups),
            pct(q.sentence_arguments).padEnd(9),
            pct(q.confirmed_writes).padEnd(9),
            pct(q.distinct_openings).padEnd(8),
            pct(q.goal_reached).padEnd(7),
            pct(q.answers_off_schema).padEnd(10),
            pct(q.refused_calls).padEnd(7),
            String(utilityCalls).padEnd(7),
            `${q.tools_never_called.join(", ") || "—"}  (${rows.length} rows)`,
          ].join(" | "),
        );
        const check = (ok: boolean, what: string) => {
          if (!ok) problems.push(`${name}: ${what}`);
        };
        const f = (x: { count: number; of: number; fraction: number | null }) =>
          `${x.count}/${x.of} = ${x.fraction}`;
        check(rows.length === 500, `${rows.length} rows`);
        check(
          (q.situation_tool_exercised.fraction ?? 0) >= 0.95,
          `situation_tool_exercised ${f(q.situation_tool_exercised)} < 0.95`,
        );
        check((q.loops.fraction ?? 0) <= 0.01, `loops ${f(q.loops)} > 0.01`);
        if (q.empty_lookups.of > 0)
          check(
            (q.empty_lookups.fraction ?? 0) <= 0.05,
            `empty_lookups ${f(q.empty_lookups)} > 0.05`,
          );
        check(
          (q.sentence_arguments.fraction ?? 0) <= 0.005,
          `sentence_arguments ${f(q.sentence_arguments)} > 0.005`,
        );
        if (q.confirmed_writes.of >= 20)
          check(
            (q.confirmed_writes.fraction ?? 0) >= 0.95,
            `confirmed_writes ${f(q.confirmed_writes)} < 0.95`,
          );
        check(
          (q.distinct_openings.fraction ?? 0) >= 0.25,
          `distinct_openings ${f(q.distinct_openings)} < 0.25`,
        );
        check(
          q.answers_off_schema.count === 0,
          `answers_off_schema ${f(q.answers_off_schema)}: the world answered outside a tool's output schema`,
        );
        // The offline roles on a plain row (normal world, ok condition, no slip) get the person what they came for.
        check(
          (q.goal_reached.fraction ?? 1) >= 0.99,
          `goal_reached ${f(q.goal_reached)} < 0.99 on plain rows`,
        );
        check(
          q.refused_calls.count === 0,
          `refused_calls ${f(q.refused_calls)}: the agent made calls the world refused as malformed`,
        );
        check(
          q.tools_never_called.length === 0,
          `tools never called: ${q.tools_never_called.join(", ")}`,
        );
        for (const warning of warnings.filter((w) => w.startsWith("quality:")))
          problems.push(`${name}: warning ${warning}`);
      }
      console.log(`\n${table.join("\n")}\n`);
      expect(problems).toEqual([]);
    });
  });
}
