// Privacy verbs: export what is stored about a user, delete it, and prune what outlived its retention.
export { exportUserData, packExport, type ExportFile, type ExportResult } from "./exportUserData.ts";
export {
  deleteUserData,
  previewDelete,
  type DeletePreview,
  type DeleteResult,
  type ErasedKind,
} from "./deleteUserData.ts";
export { pruneExpired, retentionFromConfig, type RetentionPolicy, type PruneResult } from "./retention.ts";
