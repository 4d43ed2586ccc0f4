// How the bot reads Discord's context and authorizing integration owners, case by case, and what a refused DM means.
import { describe, expect, it } from "vitest";
import { InteractionContextType, PermissionFlagsBits, PermissionsBitField } from "discord.js";
import { toSendResult } from "../../src/discord/outbound/alertSender.ts";
import { installContextOf } from "../../src/discord/install.ts";

const GUILD = "1187364777435021392";
const USER = "284102390284013568";
const perms = (...bits: bigint[]) => new PermissionsBitField(bits.reduce((a, b) => a | b, 0n));
const CAN_POST = perms(PermissionFlagsBits.SendMessages, PermissionFlagsBits.UseExternalApps);

describe("installContextOf", () => {
  it("GIVEN the app installed to the server WHEN a member runs a command there THEN it is a server install and may answer publicly", () => {
    expect(
      installContextOf({
        context: InteractionContextType.Guild,
        authorizingIntegrationOwners: { 0: GUILD, 1: USER },
        guildId: GUILD,
        appPermissions: perms(PermissionFlagsBits.SendMessages),
      }),
    ).toEqual({ surface: "guild", serverInstall: true, accountInstall: true, publicAllowed: true });
  });

  it("GIVEN only the user's install WHEN they run a command in a server allowing external apps THEN it may answer publicly but not post as the server's bot", () => {
    expect(
      installContextOf({
        context: InteractionContextType.Guild,
        authorizingIntegrationOwners: { 1: USER },
        guildId: GUILD,
        appPermissions: CAN_POST,
      }),
    ).toEqual({ surface: "guild", serverInstall: false, accountInstall: true, publicAllowed: true });
  });

  it("GIVEN only the user's install WHEN the server turns external apps off THEN answers stay private", () => {
    const install = installContextOf({
      context: InteractionContextType.Guild,
      authorizingIntegrationOwners: { 1: USER },
      guildId: GUILD,
      appPermissions: perms(PermissionFlagsBits.SendMessages),
    });
    expect(install.publicAllowed).toBe(false);
  });

  it("GIVEN a group DM with other people WHEN the user runs a command THEN answers stay private", () => {
    expect(
      installContextOf({
        context: InteractionContextType.PrivateChannel,
        authorizingIntegrationOwners: { 1: USER },
        guildId: null,
        appPermissions: CAN_POST,
      }),
    ).toEqual({
      surface: "private_channel",
      serverInstall: false,
      accountInstall: true,
      publicAllowed: false,
    });
  });

  it("GIVEN the bot's DM WHEN either install authorized it THEN answers may be public", () => {
    for (const owners of [{ 0: "0" }, { 1: USER }]) {
      const install = installContextOf({
        context: InteractionContextType.BotDM,
        authorizingIntegrationOwners: owners,
        guildId: null,
        appPermissions: perms(),
      });
      expect(install).toMatchObject({ surface: "bot_dm", publicAllowed: true });
    }
  });

  it("GIVEN a payload from before installs (no context, no owners) WHEN read THEN it is the server install it always was", () => {
    expect(
      installContextOf({
        context: null,
        authorizingIntegrationOwners: {},
        guildId: GUILD,
        appPermissions: null,
      }),
    ).toEqual({ surface: "guild", serverInstall: true, accountInstall: false, publicAllowed: true });
  });
});

describe("a DM refused with Missing Access", () => {
  it("GIVEN a DM answered 50001 (what account installs can meet) WHEN mapped for the outbox THEN it is kept and told like closed DMs; in a channel it stays permanent", () => {
    const refused = { ok: false, reason: "missing_access", code: 50001 } as const;
    expect(toSendResult(refused, "dm")).toEqual({ kind: "dm_closed" });
    expect(toSendResult(refused, "channel")).toEqual({ kind: "permanent", reason: "missing_access (50001)" });
  });
});
