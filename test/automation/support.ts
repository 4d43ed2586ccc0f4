// Shared by the automation suites: the alert engine's steps run by the test (the engine's own
// loops are stopped), each finished and its DMs delivered, and arming live through Discord.
import { expect } from "vitest";
import { alertEngineOf, type Bot, type BotUser } from "../support/harness.ts";
import { answer, buttonId, textOf } from "../commands/trading-support.ts";

/** Delivers every queued alert. */
export async function deliverAll(bot: Bot): Promise<void> {
  while ((await alertEngineOf(bot).runDeliveryOnce()).claimed > 0);
}

/** One feed cycle, its purchases finished, its DMs delivered. */
export async function feedOnce(bot: Bot): Promise<void> {
  await alertEngineOf(bot).runFeedOnce();
  await alertEngineOf(bot).autoBuyer.idle();
  await deliverAll(bot);
}

/** Arms live through /watch arm and its confirmation's Arm button; resolves with what the confirmation showed. */
export async function armLive(bot: Bot, user: BotUser, rule: string, maxBuys = 1): Promise<string> {
  const quote = await answer(bot.double.slash(user, "watch arm", { rule, mode: "live", max_buys: maxBuys }));
  // Read before Arm is pressed: the press edits the confirmation in place.
  const shown = textOf(quote);
  const armed = await answer(bot.double.button(user, buttonId(quote, "Arm"), quote));
  expect(textOf(armed)).toContain(`Armed live: ${rule}`);
  return shown;
}
