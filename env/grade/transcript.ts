import type { Row } from "../../spec/index.ts";

/** A row as a judge reads it: the conversation in plain text, then the conduct checks' findings. */
export function transcript(row: Row): string {
  const lines = row.messages.map((m, i) => {
    if (m.role === "system") return `[${i}] SYSTEM PROMPT: ${m.content}`;
    if (m.role === "user") return `[${i}] CUSTOMER: ${m.content}`;
    if (m.role === "tool") return `[${i}] TOOL RESULT (${m.name}): ${m.content}`;
    const calls = (m.tool_calls ?? [])
      .map((c) => `${c.function.name}(${c.function.arguments})`)
      .join("; ");
    return `[${i}] AGENT: ${[m.content, calls ? `calls ${calls}` : ""].filter(Boolean).join(" — ")}`;
  });
  const findings = row.conduct.map((f) => `- ${f.check} at [${f.evidence.message}]: ${f.detail}`);
  return [
    "CONVERSATION",
    ...lines,
    "",
    "CONDUCT CHECKS (deterministic)",
    ...(findings.length > 0 ? findings : ["- none found"]),
  ].join("\n");
}
