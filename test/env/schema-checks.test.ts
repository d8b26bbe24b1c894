import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { depthProblems, refCycle, schemaFindings, valueCheck } from "../../env/schema-checks.ts";
import { helpdeskSpec } from "../fixtures/reference-spec.ts";

describe("depthProblems", () => {
  it("names the first place past the limit in each part, and nothing within it", () => {
    const deep = () => {
      let value: unknown = {};
      for (let i = 0; i < 10; i++) value = { a: value };
      return value;
    };
    expect(depthProblems({ tools: [{ x: deep() }, { y: 1 }], world: deep() }, 8)).toEqual([
      {
        path: "tools[0].x.a.a.a.a.a",
        message: "nests objects and arrays more than 8 deep; a spec may nest at most 8 levels",
      },
      { path: "world.a.a.a.a.a.a.a", message: expect.stringMatching(/more than 8 deep/) },
    ]);
    expect(depthProblems({ tools: [{ x: deep() }] }, 64)).toEqual([]);
  });

  it("walks arrays with holes and objects shared many times over without blowing up", () => {
    const holes: unknown[] = [1, 2, 3];
    delete holes[1];
    expect(depthProblems({ tools: holes })).toEqual([]);
    // Sixty levels of two references to the same object: 2^60 paths, sixty objects.
    let shared: Record<string, unknown> = {};
    for (let i = 0; i < 60; i++) shared = { a: shared, b: shared };
    expect(depthProblems({ x: shared })).toEqual([]);
  });
});

describe("refCycle", () => {
  const at = "tools[0].function.parameters";
  it("finds a loop through allOf, not, if and anchors, and lets recursion through properties be", () => {
    expect(refCycle({ $defs: { a: { not: { $ref: "#/$defs/a" } } } }, at)?.path).toBe(
      `${at}.$defs.a.not.$ref`,
    );
    expect(refCycle({ $defs: { a: { $anchor: "x", if: { $ref: "#x" } } } }, at)?.message).toMatch(
      /#\/\$defs\/a → #\/\$defs\/a\/if → #\/\$defs\/a comes back/,
    );
    expect(refCycle({ allOf: [{ $ref: "#" }] }, at)?.path).toBe(`${at}.allOf[0].$ref`);
    expect(refCycle({ properties: { child: { $ref: "#" } } }, at)).toBeNull();
    expect(refCycle({ items: { $ref: "#" } }, at)).toBeNull();
    expect(refCycle({ $ref: "http://elsewhere/schema.json" }, at)).toBeNull();
  });
});

describe("schema findings", () => {
  it("claim nothing about a schema that means something else out of its tool (a reference to #)", () => {
    // Reproduction (property test): checking this enum alone made `#` point at itself, and ajv overflowed.
    const spec = JSON.parse(JSON.stringify(helpdeskSpec));
    spec.tools[0].outputSchema.properties.priority.$ref = "#";
    expect(Agent.from(spec).warnings).toEqual([]);
    expect(valueCheck({ $ref: "#", enum: ["a"] }, {})).toBeNull();
    expect(valueCheck(true as never, {})).toBeNull();
  });

  it("report a loop of references in an output schema instead of checking its values", () => {
    const output = {
      $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } },
      properties: { x: { $ref: "#/$defs/a", enum: [1] } },
    };
    expect(schemaFindings(output, "tools[0].outputSchema").problems).toEqual([
      expect.objectContaining({ path: "tools[0].outputSchema.$defs.a.$ref" }),
    ]);
  });
});
