// Global test setup: prepares the migrated template database once per run (see test/support/db.ts).
export default async function setup(): Promise<() => Promise<void>> {
  const mod = await import("./dbGlobal.ts").catch(() => undefined);
  if (mod) return mod.globalDatabaseSetup();
  return async () => {};
}
