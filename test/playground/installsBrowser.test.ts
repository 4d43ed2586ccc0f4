// The page's "Installed to my account" switch and its server without the bot, in a real browser.
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, findChromium, startTestPlayground, type TestPlayground } from "./support.ts";

const chromiumPath = findChromium();
const UI_WAIT_MS = 10_000;

describe.skipIf(!chromiumPath)("installed to my account, in the page", () => {
  let pg: TestPlayground;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    [pg, browser] = await Promise.all([
      startTestPlayground(),
      chromium.launch({ executablePath: chromiumPath as string, args: CHROMIUM_ARGS }),
    ]);
    page = await browser.newPage({ viewport: { width: 1360, height: 820 } });
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(pg.url);
    await page.locator("body.ready").waitFor({ timeout: UI_WAIT_MS });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await pg?.stop();
    expect(problems).toEqual([]);
    expect(pg?.errorLogs() ?? []).toEqual([]);
  });

  it("GIVEN alice in the page WHEN she ticks Installed to my account and opens the server without the bot THEN her install is on, the channel opens, and bob's switch stays off", async () => {
    const double = pg.playground.double;
    const alice = double.user("alice");
    const toggle = page.locator("#account-install");
    await expect(toggle.isChecked()).resolves.toBe(false);

    await toggle.check();
    await double.waitFor(() => double.hasAccountInstall(alice.id), UI_WAIT_MS, "alice's account install");
    // The switch is disabled while the page reloads the command list; it comes back on.
    await expect.poll(() => toggle.isEnabled(), { timeout: UI_WAIT_MS }).toBe(true);
    await expect(toggle.isChecked()).resolves.toBe(true);

    const hangout = page.locator("#elsewhere-list button", { hasText: "hangout" });
    await hangout.click();
    await page.locator("#chat-title", { hasText: "#hangout" }).waitFor({ timeout: UI_WAIT_MS });
    const channelId = double.guilds[1]?.channels[0]?.id ?? "";
    await page.locator(`#messages[data-view="alice:${channelId}"]`).waitFor({ timeout: UI_WAIT_MS });
    // The channel list redraws after the messages view: wait for the mark rather than read it once.
    await expect.poll(() => hangout.getAttribute("class"), { timeout: UI_WAIT_MS }).toContain("active");

    await page.locator("#user-picker").selectOption("bob");
    await page.locator('#messages[data-view^="bob:"]').waitFor({ timeout: UI_WAIT_MS });
    await expect.poll(() => toggle.isChecked(), { timeout: UI_WAIT_MS }).toBe(false);
    expect(double.hasAccountInstall(double.user("bob").id)).toBe(false);
    expect(double.hasAccountInstall(alice.id)).toBe(true);
  });
});
