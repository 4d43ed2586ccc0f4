// /account export: everything stored about the user as one JSON document, in files small enough for Discord.
import { gzipSync } from "node:zlib";
import type { Db } from "../db/types.ts";
import type { Logger } from "../log.ts";
import { readUserData, type UserData } from "./userData.ts";

/** Names the document's shape; bumped when a field changes meaning (PRIVACY.md "Export format"). */
export const EXPORT_FORMAT = "account-export";
export const EXPORT_VERSION = 1;

/** Below Discord's smallest upload limit (10 MiB) with room for the message around it. */
export const DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024;

export interface ExportFile {
  readonly name: string;
  readonly data: Buffer;
}

export type ExportResult =
  | { readonly found: false }
  | {
      readonly found: true;
      /** One file, or the parts of one gzip file in order (joined with `cat` they unzip as one). */
      readonly files: readonly ExportFile[];
      readonly compressed: boolean;
      /** Rows per section, for the reply. */
      readonly counts: Readonly<Record<string, number>>;
    };

export function exportDocument(data: UserData, discordId: string, at: Date): Record<string, unknown> {
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: at.toISOString(),
    discordId,
    account: data.account,
    autoAcceptSetting: data.autoAcceptSetting,
    ...data.lists,
  };
}

/**
 * The JSON as is when it fits one file; gzip when it does not; gzip cut in parts when even that is
 * too big (each part its own message: a user's history is bounded by retention, so parts are rare).
 */
export function packExport(json: string, maxFileBytes: number): { files: ExportFile[]; compressed: boolean } {
  const raw = Buffer.from(json, "utf8");
  if (raw.length <= maxFileBytes)
    return { files: [{ name: "account-export.json", data: raw }], compressed: false };
  const zipped = gzipSync(raw, { level: 9 });
  if (zipped.length <= maxFileBytes) {
    return { files: [{ name: "account-export.json.gz", data: zipped }], compressed: true };
  }
  const parts = Math.ceil(zipped.length / maxFileBytes);
  const files = Array.from({ length: parts }, (_, i) => ({
    name: `account-export.json.gz.part${i + 1}of${parts}`,
    data: zipped.subarray(i * maxFileBytes, (i + 1) * maxFileBytes),
  }));
  return { files, compressed: true };
}

export async function exportUserData(
  deps: { readonly prisma: Db; readonly logger: Logger; readonly now: () => Date },
  input: { readonly discordUserId: string; readonly maxFileBytes?: number },
): Promise<ExportResult> {
  const data = await readUserData(deps.prisma, input.discordUserId);
  if (data === undefined) return { found: false };
  const doc = exportDocument(data, input.discordUserId, deps.now());
  const packed = packExport(JSON.stringify(doc, null, 2), input.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES);
  const counts: Record<string, number> = { ...countsOf(data) };
  deps.logger
    .child({ module: "privacy" })
    .info(
      { discordUserId: input.discordUserId, files: packed.files.length, compressed: packed.compressed },
      "account data exported",
    );
  return { found: true, ...packed, counts };
}

export function countsOf(data: UserData): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [section, rows] of Object.entries(data.lists)) out[section] = rows.length;
  out["autoAcceptSetting"] = data.autoAcceptSetting === null ? 0 : 1;
  return out;
}
