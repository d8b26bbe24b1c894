export { passRateText } from "./card.ts";
export { describeHubRepo, type HubRevision, loadFromHub } from "./load.ts";
export { type PushResult, pushToHub } from "./push.ts";
