// The alert engine as one of the app's background services: built from the app's context, sending
// through Discord, following the handlers' rule changes while it runs.
import { createDiscordAlertSender } from "../discord/outbound/alertSender.ts";
import { dmChannelOpener } from "../discord/outbound/dmChannels.ts";
import type { AppContext, BackgroundService } from "./context.ts";
import { createAlertEngine, type AlertEngine } from "./engine.ts";

export interface AlertEngineService extends BackgroundService {
  readonly engine: AlertEngine;
}

/**
 * The alert engine as one of the app's background services (src/app.ts DEFAULT_SERVICES): every
 * replica runs delivery; the one holding the leader lock also runs the feed and the pollers.
 */
export function alertEngineService(ctx: AppContext): AlertEngineService {
  const engine = createAlertEngine({
    config: ctx.config,
    prisma: ctx.database.prisma,
    databaseUrl: ctx.database.url,
    market: ctx.market,
    fates: ctx.fates,
    scheduler: ctx.scheduler,
    sender: createDiscordAlertSender(ctx.client, ctx.logger),
    openKey: (sealed, userId) => ctx.vault.decrypt(sealed, userId),
    logger: ctx.logger,
    now: ctx.deps.now,
    metrics: ctx.metrics,
  });
  const openDmChannel = dmChannelOpener({
    client: ctx.client,
    prisma: ctx.database.prisma,
    logger: ctx.logger,
  });
  let unsubscribe: (() => void) | undefined;
  return {
    name: "alerts",
    engine,
    async start() {
      // The handlers' rule changes reach the matcher at once, not at the next feed cycle's sync;
      // a new watcher's DM channel is opened before their first alert needs it.
      unsubscribe ??= ctx.ruleChanges.subscribe((change) => {
        engine.onRuleChange(change);
        openDmChannel(change);
      });
      await engine.start();
    },
    async stop() {
      unsubscribe?.();
      unsubscribe = undefined;
      await engine.stop();
    },
  };
}
