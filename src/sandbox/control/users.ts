// Control over users and keys: create users, list them with balances, their inventories, set balances, revoke keys.
import { z } from "zod";
import { notFound } from "../errors.ts";
import { makeAsset, makeUser } from "../factory.ts";
import { MoneyField } from "../http.ts";
import type { DemoUser } from "../seed.ts";
import type { Store, UserRec } from "../state/index.ts";

export interface UserInfo extends DemoUser {
  kind: UserRec["kind"];
  balance: number;
  pending: number;
  revoked: boolean;
  stallPublic: boolean;
}

export interface InventoryAsset {
  asset_id: string;
  market_hash_name: string;
  float_value: number;
  paint_seed: number;
}

export interface UserControl {
  revokeKey(apiKey: string): void;
  createUser(input: { name: string; balance?: number }): DemoUser;
  users(): UserInfo[];
  /** Asset ids the user can list. */
  inventory(platformId: string): string[];
  inventoryDetails(platformId: string): InventoryAsset[];
  setBalance(platformId: string, cents: number): void;
  balance(platformId: string): { balance: number; pending: number };
}

export function userControl(store: Store): UserControl {
  let userCounter = 0;
  return {
    revokeKey(apiKey) {
      const u = store.usersByKey.get(apiKey);
      if (!u) throw notFound("API key");
      u.revoked = true;
    },

    createUser(input) {
      const name = z.string().min(1).max(40).parse(input.name);
      const balance = MoneyField.parse(input.balance ?? 0);
      userCounter += 1;
      const platformId = String(42420000000001000n + BigInt(store.users.size + userCounter));
      const apiKey = `sandbox-${name.replace(/[^a-z0-9]/gi, "").toLowerCase() || "user"}-key-${platformId}`;
      const u = makeUser(store, { name, platformId, apiKey, kind: "demo", balance, autoAcceptMs: undefined });
      for (let i = 0; i < 4; i++) makeAsset(store, u, {});
      return { name: u.name, platformId: u.platformId, apiKey: u.apiKey };
    },

    users: () =>
      [...store.users.values()].map((u) => ({
        name: u.name,
        platformId: u.platformId,
        apiKey: u.apiKey,
        kind: u.kind,
        balance: u.balance,
        pending: u.pending,
        revoked: u.revoked,
        stallPublic: u.stallPublic,
      })),

    inventory: (platformId) => [...store.user(platformId).inventory.keys()],

    inventoryDetails: (platformId) =>
      [...store.user(platformId).inventory.values()].map((a) => ({
        asset_id: a.assetId,
        market_hash_name: a.item.marketHashName,
        float_value: a.item.floatValue,
        paint_seed: a.item.paintSeed,
      })),

    setBalance(platformId, cents) {
      const amount = MoneyField.parse(cents);
      const u = store.user(platformId);
      const delta = amount - u.balance;
      if (delta !== 0) {
        store.post(u.platformId, delta > 0 ? "deposit" : "withdrawal", delta, 0, {
          reason: "sandbox control",
        });
      }
    },

    balance: (platformId) => {
      const u = store.user(platformId);
      return { balance: u.balance, pending: u.pending };
    },
  };
}
