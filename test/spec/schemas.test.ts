import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { schemaFiles } from "../../bin/schemas.ts";
import { AgentSpecSchema } from "../../spec/index.ts";
import { referenceSpec } from "../fixtures/reference-spec.ts";

const DIR = join(import.meta.dirname, "../../schemas");

describe("JSON Schemas", () => {
  it("are current: schemas/ holds exactly what `npm run schemas` would write", async () => {
    const expected = schemaFiles();
    expect((await readdir(DIR)).sort()).toEqual([...expected.keys()].sort());
    for (const [file, content] of expected)
      expect(await readFile(join(DIR, file), "utf8"), file).toBe(content);
  });

  it("describe the agent spec as zod does: required fields and tool formats", async () => {
    const schema = JSON.parse(await readFile(join(DIR, "agent-spec.json"), "utf8"));
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.required).toEqual(["name", "system_prompt", "tools", "policy"]);
    expect(schema.properties.tools.items.anyOf).toHaveLength(3);
    expect(AgentSpecSchema.safeParse(referenceSpec).success).toBe(true);
  });
});
