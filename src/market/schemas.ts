// zod schemas for every marketplace resource (spec section 2), gathered from src/market/schemas/
// so importers name one module. The reading policy (ADR 011): tolerant where the live service
// varies (unknown fields ignored, numeric strings read as numbers, null read as absent, one
// unreadable list element dropped and counted instead of failing the page), strict where a wrong
// value would mislead the user (ids, the prices of what is bought or bid on). Types are derived
// from the schemas.
export {
  Cents,
  ErrorBody,
  Id,
  LooseInt,
  LooseNumber,
  LooseString,
  SignedAmount,
  Timestamp,
  collectDropped,
  droppedElement,
  isUnreadableAmount,
  readTolerantly,
  tolerantArray,
} from "./schemas/primitives.ts";
export type { DroppedElement, UnreadableAmount } from "./schemas/primitives.ts";
export * from "./schemas/listings.ts";
export * from "./schemas/buyOrders.ts";
export * from "./schemas/trades.ts";
export * from "./schemas/account.ts";
