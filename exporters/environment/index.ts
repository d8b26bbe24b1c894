export {
  checkEnvironmentOutput,
  type EnvironmentOutputCheck,
  type ExportedEnvironment,
  exportEnvironment,
} from "./export.ts";
