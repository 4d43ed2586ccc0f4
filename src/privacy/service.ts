// The user's own data as one service for /account export and /account delete: bound to the
// database, the logger and the clock. Built once by src/services.ts.
import type { Db } from "../db/types.ts";
import type { Logger } from "../log.ts";
import { deleteUserData, previewDelete, type DeletePreview, type DeleteResult } from "./deleteUserData.ts";
import { exportUserData, type ExportResult } from "./exportUserData.ts";

export interface PrivacyService {
  /** Everything stored about the user, as files to attach. */
  export(input: { discordUserId: string }): Promise<ExportResult>;
  /** What a delete would erase and stop; undefined when nothing is stored. */
  previewDelete(discordUserId: string): Promise<DeletePreview | undefined>;
  /** Stops the user's automation, then erases every row of theirs. */
  delete(input: { discordUserId: string }): Promise<DeleteResult>;
}

export function createPrivacyService(opts: { db: Db; logger: Logger; now: () => Date }): PrivacyService {
  const deps = { prisma: opts.db, logger: opts.logger, now: opts.now };
  return {
    export: (input) => exportUserData(deps, input),
    previewDelete: (discordUserId) => previewDelete(opts.db, discordUserId),
    delete: (input) => deleteUserData(deps, input),
  };
}
