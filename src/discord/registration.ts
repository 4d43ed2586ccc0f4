// Slash-command registration: one bulk overwrite (global, or one guild while developing), skipped
// at start when the definitions' hash matches what was last registered for that scope.
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { Routes, type REST } from "discord.js";
import { getCommandHash, setCommandHash } from "../db/repos/state.ts";
import type { Db } from "../db/types.ts";
import type { Logger } from "../log.ts";
import type { CommandDefinition } from "./command.ts";

export interface RegistrationStore {
  get(scope: string): Promise<string | undefined>;
  set(scope: string, hash: string): Promise<void>;
}

export interface RegistrationTarget {
  readonly rest: REST;
  readonly applicationId: string;
  /** Register to this guild only (instant updates); global otherwise. */
  readonly guildId?: string | undefined;
}

/** "global" or "guild:<id>": the key of the stored hash. */
export function registrationScope(guildId: string | undefined): string {
  return guildId === undefined ? "global" : `guild:${guildId}`;
}

/** Stable across key order, so re-ordering a definition object does not re-register. */
export function definitionsHash(applicationId: string, definitions: readonly CommandDefinition[]): string {
  return createHash("sha256")
    .update(applicationId)
    .update("\n")
    .update(stableJson(definitions))
    .digest("hex");
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** One PUT replacing every command of the scope with `definitions`. */
export async function registerCommands(
  target: RegistrationTarget,
  definitions: readonly CommandDefinition[],
): Promise<void> {
  const route =
    target.guildId === undefined
      ? Routes.applicationCommands(target.applicationId)
      : Routes.applicationGuildCommands(target.applicationId, target.guildId);
  await target.rest.put(route, { body: definitions });
}

export async function ensureCommandsRegistered(
  target: RegistrationTarget & {
    readonly definitions: readonly CommandDefinition[];
    readonly store: RegistrationStore;
    readonly logger: Logger;
  },
): Promise<{ registered: boolean; scope: string; hash: string }> {
  const log = target.logger.child({ module: "registration" });
  const scope = registrationScope(target.guildId);
  const hash = definitionsHash(target.applicationId, target.definitions);
  const previous = await target.store.get(scope);
  if (previous === hash) {
    log.info({ scope, commands: target.definitions.length }, "slash commands unchanged; not re-registering");
    return { registered: false, scope, hash };
  }
  await registerCommands(target, target.definitions);
  await target.store.set(scope, hash);
  log.info({ scope, commands: target.definitions.map((d) => d.name) }, "slash commands registered");
  return { registered: true, scope, hash };
}

/** Keeps the hash in the database (table command_registrations). */
export function dbRegistrationStore(db: Db): RegistrationStore {
  return {
    get: async (scope) => (await getCommandHash(db, scope)) ?? undefined,
    set: (scope, hash) => setCommandHash(db, scope, hash),
  };
}

/** Keeps the hash in `<dir>/command-registration.json`, for tools that run without a database. */
export function fileRegistrationStore(dir: string): RegistrationStore {
  const file = path.join(dir, "command-registration.json");
  const read = async (): Promise<Record<string, string>> => {
    try {
      const parsed = JSON.parse(await readFile(file, "utf8")) as unknown;
      return parsed !== null && typeof parsed === "object" ? (parsed as Record<string, string>) : {};
    } catch {
      return {};
    }
  };
  return {
    get: async (scope) => (await read())[scope],
    async set(scope, hash) {
      const next = { ...(await read()), [scope]: hash };
      await mkdir(dir, { recursive: true });
      await writeFile(`${file}.tmp`, JSON.stringify(next, null, 2));
      await rename(`${file}.tmp`, file);
    },
  };
}
