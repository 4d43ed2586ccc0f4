// Alerts as the handlers see them: /alerts recent, and the one-time "your DMs are closed" notice
// the router adds to a user's next reply. Bound to the database; built once by src/services.ts.
import { claimDmNotice, releaseDmNotice } from "../db/repos/users.ts";
import type { Db } from "../db/types.ts";
import { recentAlerts, type RecentAlerts } from "./actions.ts";

export interface AlertService {
  /** The user's latest alerts, delivered or not (closed DMs, quiet hours). */
  recent(input: { discordId: string; limit?: number }): Promise<RecentAlerts>;
  /** Takes the closed-DM notice once per closure: when it is due, the closure's time. */
  claimDmNotice(discordId: string): Promise<Date | undefined>;
  /** Gives the notice back when the reply carrying it could not be sent. */
  releaseDmNotice(discordId: string): Promise<void>;
}

export function createAlertService(opts: { db: Db }): AlertService {
  return {
    recent: (input) => recentAlerts(opts.db, input),
    claimDmNotice: (discordId) => claimDmNotice(opts.db, discordId),
    releaseDmNotice: (discordId) => releaseDmNotice(opts.db, discordId),
  };
}
