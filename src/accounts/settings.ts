// A user's settings: where alerts go, spend caps, which alerts, quiet hours. Reading them needs no
// linked key (a user may set caps before linking); a row is made on first use.
import { spentInWindow } from "../db/repos/purchases.ts";
import { ensureUser, updateSettings, type SettingsPatch, type UserSettings } from "../db/repos/users.ts";
import type { Db } from "../db/types.ts";
import type { Cents } from "../money.ts";

export type { UserSettings };

export interface SettingsChange {
  /** Alerts to the user's DMs, or to one channel of a server. */
  readonly destination?:
    | { readonly kind: "dm" }
    | { readonly kind: "channel"; readonly guildId: string; readonly channelId: string };
  /** null removes the cap. */
  readonly perPurchaseCapCents?: Cents | null;
  readonly dailyCapCents?: Cents | null;
  readonly alerts?: Partial<UserSettings["alerts"]>;
  /** null removes quiet hours. */
  readonly quietHours?: { readonly startMinute: number; readonly endMinute: number } | null;
  /** IANA zone the quiet hours are read in. */
  readonly timezone?: string;
}

/** The settings, with what the daily cap counts right now (open bids, orders, offers, 24 h spend). */
export type SettingsView = UserSettings & { readonly committedCents: Cents };

export async function showSettings(
  deps: { readonly prisma: Db },
  input: { readonly discordUserId: string },
): Promise<SettingsView> {
  const user = await ensureUser(deps.prisma, input.discordUserId);
  return { ...user.settings, committedCents: await spentInWindow(deps.prisma, user.id) };
}

/** Applies only what the change names; returns the settings as they now stand. */
export async function changeSettings(
  deps: { readonly prisma: Db },
  input: { readonly discordUserId: string; readonly change: SettingsChange },
): Promise<SettingsView> {
  const user = await ensureUser(deps.prisma, input.discordUserId);
  const c = input.change;
  const patch: SettingsPatch = {};
  if (c.destination?.kind === "dm") {
    patch.defaultDestination = "dm";
    patch.defaultGuildId = null;
    patch.defaultChannelId = null;
  } else if (c.destination?.kind === "channel") {
    patch.defaultDestination = "channel";
    patch.defaultGuildId = c.destination.guildId;
    patch.defaultChannelId = c.destination.channelId;
  }
  if (c.perPurchaseCapCents !== undefined) patch.perPurchaseCapCents = c.perPurchaseCapCents;
  if (c.dailyCapCents !== undefined) patch.dailyCapCents = c.dailyCapCents;
  if (c.alerts !== undefined) patch.alerts = c.alerts;
  if (c.quietHours !== undefined) patch.quietHours = c.quietHours;
  if (c.timezone !== undefined) patch.timezone = c.timezone;
  const saved = await updateSettings(deps.prisma, user.id, patch);
  return { ...saved, committedCents: await spentInWindow(deps.prisma, user.id) };
}
