export { conditionOf, coordinateOfCalls, worldOf } from "./classify.ts";
export { type IngestedTraces, type IngestOptions, ingestTraces } from "./ingest.ts";
export { keyOf, tracePicture, wilson } from "./picture.ts";
