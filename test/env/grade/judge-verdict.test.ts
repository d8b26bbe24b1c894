import { describe, expect, it } from "vitest";
import { llmGrade } from "../../../env/grade/judges.ts";
import type { Row } from "../../../spec/index.ts";
import { financeSpec } from "../../fixtures/reference-spec.ts";
import { completion, OpenAICompatibleServer } from "../../support/openai-compatible-server.ts";
import { offlineRows } from "../../support/specs.ts";

describe("judges", () => {
  it("reads the verdict out of an answer with other braces in it", async () => {
    const server = await OpenAICompatibleServer.start();
    try {
      server.script(
        completion({
          content:
            'Looking at {the transcript}: {"reward": 1, "reason": "fine {really}", "failure_class": null} done.',
        }),
      );
      const [row] = await offlineRows(financeSpec, 1);
      expect(await llmGrade(row as Row, { spec: `judge@${server.url}` })).toMatchObject({
        reward: 1,
        reason: "fine {really}",
      });
    } finally {
      await server.close();
    }
  });
});
