export { type ExportedEnvironment, exportEnvironment } from "./export.ts";
