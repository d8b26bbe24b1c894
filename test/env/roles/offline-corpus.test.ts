import { corpusChecks } from "./corpus-checks.ts";
import { CORPUS_PARTS } from "./corpus-runs.ts";

// The first part of the corpus; offline-roles.test.ts checks the second beside the roles' other
// checks, so that two workers share the simulation.
corpusChecks(CORPUS_PARTS[0]);
