// The market room's public surface: the client, its errors, schemas, request types and pagers.
export { createMarketClient } from "./client.ts";
export type {
  MarketApi,
  MarketCallEvent,
  MarketClient,
  MarketClientOptions,
  MarketMetrics,
  RetryOptions,
} from "./client.ts";
export { MarketError, isMarketError } from "./errors.ts";
export type { MarketErrorKind } from "./errors.ts";
export * from "./pagination.ts";
export type { RateLimitState } from "./rateLimit.ts";
export { encodeStickerSelectors } from "./requests.ts";
export type * from "./requests.ts";
export { ROUTES, endpointOf } from "./routes.ts";
export type { Endpoint, RouteName } from "./routes.ts";
export * from "./schemas.ts";
