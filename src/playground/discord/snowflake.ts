// Snowflake ids as Discord makes them: the creation time sits in the high bits, so ids sort by time
// and @discordjs/rest and discord.js can derive timestamps and rate-limit buckets from them.
import { randomBytes } from "node:crypto";

const DISCORD_EPOCH = 1_420_070_400_000n;
let increment = 0n;

/** A fresh snowflake for the given time (18-19 digits for current dates). */
export function snowflake(atMs: number = Date.now()): string {
  increment = (increment + 1n) & 0xfffn;
  const worker = 1n << 17n;
  return (((BigInt(atMs) - DISCORD_EPOCH) << 22n) | worker | increment).toString();
}

/** The creation time encoded in a snowflake. */
export function snowflakeTime(id: string): number {
  return Number((BigInt(id) >> 22n) + DISCORD_EPOCH);
}

/** An opaque interaction token, shaped like Discord's (long, url-safe). */
export function interactionToken(): string {
  return `aW50ZXJhY3Rpb246${randomBytes(72).toString("base64url")}`;
}
