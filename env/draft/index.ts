export { type BehaviourRule, behaviourOf, behaviourRule } from "./behaviour.ts";
export { chooseTemplate, type Draft, type DraftOptions, draftAgent } from "./draft.ts";
export { type AskCoverage, type CoverageGap, type CoverageGapOptions, coverageGap } from "./gap.ts";
export { DRAFT_TEMPLATES, type DraftTemplate } from "./templates.ts";
