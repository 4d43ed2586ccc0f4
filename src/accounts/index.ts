// Account verbs: link, unlink, status, key check, and the linked-account gate.
export type { AccountDeps } from "./deps.ts";
export { linkAccount, KEY_REJECTED, type LinkedAccount } from "./linkAccount.ts";
export { unlinkAccount, type UnlinkResult } from "./unlinkAccount.ts";
export { accountStatus, type AccountStatus } from "./accountStatus.ts";
export { checkAccountKey, type KeyCheck } from "./checkAccountKey.ts";
export { requireAccount, NOT_LINKED, type LinkedUser } from "./requireAccount.ts";
export {
  requireLinkedUser,
  LINK_FIRST,
  type LinkedUserRecord,
  type LinkRefusal,
  type UserRef,
} from "./requireLinkedUser.ts";
