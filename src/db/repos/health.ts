// The database health probe the metrics poll (src/metricsDatabase.ts): one trivial round trip.
import type { Db } from "../types.ts";

export async function ping(db: Db): Promise<void> {
  await db.$queryRaw`SELECT 1`;
}
