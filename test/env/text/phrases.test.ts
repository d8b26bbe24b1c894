import { describe, expect, it } from "vitest";
import { givesGoAhead, questionsIn, yesOrNo } from "../../../env/text/phrases.ts";
import { growth } from "../../support/hostile.ts";

describe("a person's yes or no", () => {
  it.each([
    ["Yes.", true],
    ["Yes, please.", true],
    ["yep", true],
    ["Okay.", true],
    ["Hmm, alright.", true],
    ["Sure, no problem.", true],
    ["No problem, go ahead.", true],
    ["Well, yes.", true],
    ["It's true.", null],
    ["No.", false],
    ["Okay, no.", false],
    ["Right, no thanks.", false],
    ["OK... not now.", false],
    ["Sure, it's no.", false],
    ["Yes, no, wait.", false],
    ["Don't.", false],
    ["Not sure, let me think.", null],
    ["Well.", null],
    ["What would it cost?", null],
  ])("%j reads as %j", (text, expected) => {
    expect(yesOrNo(text)).toBe(expected);
  });

  it.each([
    ["Yes, please go ahead.", true],
    ["Yes, obviously. You don't need to keep checking with me.", true],
    ["Okay.", true],
    ["I suppose so, go ahead.", true],
    ["That's right.", true],
    ["Okay, no.", false],
    ["Yes, but change the date first.", false],
    ["Okay, yes, but not today.", false],
    ["Wait, go ahead with the other one.", false],
    ["That's not right, don't go ahead.", false],
    ["No, don't do it.", false],
    ["Hold on.", false],
    // A person saying it again leads in with "Look,", "Again,", "As I said,", "To be clear,".
    ["Look, Yes.", true],
    ["Again, yes.", true],
    ["As I said, go ahead.", true],
    ["To be clear, no.", false],
  ])("%j lets the agent act: %j", (text, expected) => {
    expect(givesGoAhead(text)).toBe(expected);
  });

  it("reads a long run of fillers in linear time", () => {
    const read = (n: number) => yesOrNo(`${"okay, hmm, ".repeat(n)}well x`);
    expect(read(10)).toBeNull();
    expect(growth(read, 20_000)).toBeLessThan(8);
  });
});

describe("questionsIn", () => {
  it('takes "What our system shows is X." for a statement, and "What is your email" for a question', () => {
    expect(
      questionsIn(
        "I understand that's not what you have. What our system shows is name Garnet workspace; I can only go by that here. Is there anything else I can help with?",
      ),
    ).toEqual(["Is there anything else I can help with?"]);
    expect(questionsIn("Thanks. What is your email")).toEqual(["What is your email"]);
    expect(questionsIn("Which one do you mean?")).toEqual(["Which one do you mean?"]);
  });
});
