// The app's operations endpoint: /healthz checks and /metrics over the app's parts (see src/app.ts).
import type { AppContext } from "../background/context.ts";
import { contractCheck, databaseCheck, feedCheck, feedLagLimitMs, gatewayCheck } from "./health.ts";
import { startHttpServer, type HttpServer } from "./server.ts";

export type { HttpServer } from "./server.ts";
export { isGatewayUp } from "./health.ts";

export function startOpsServer(ctx: AppContext): Promise<HttpServer> {
  return startHttpServer({
    host: ctx.config.HTTP_HOST,
    port: opsPort(ctx.config.HTTP_PORT, ctx.client.shard?.ids),
    logger: ctx.logger,
    metrics: ctx.metrics,
    checks: {
      discord: gatewayCheck(ctx.client),
      database: databaseCheck(ctx.database.pool),
      feed: feedCheck(() => ctx.metrics.feedHealth(), feedLagLimitMs(ctx.config.POLL_INTERVAL_MS)),
      market: contractCheck(ctx.market.contractDrift),
    },
  });
}

/**
 * Under the ShardingManager every shard is a process of its own: the manager keeps HTTP_PORT
 * and shard N listens on HTTP_PORT + 1 + N (docs/operations.md). Port 0 stays 0 (tests).
 */
export function opsPort(httpPort: number, shardIds: readonly number[] | undefined): number {
  const first = shardIds?.[0];
  if (httpPort === 0 || first === undefined) return httpPort;
  return httpPort + 1 + first;
}
