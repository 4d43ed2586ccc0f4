// An open playground page across a restart of the bot: a clear offline banner while it is down, and
// every view fetched again once it is back (the restarted local Discord has new ids for everything).
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, findChromium, startTestPlayground, type TestPlayground } from "./support.ts";

const chromiumPath = findChromium();
if (!chromiumPath) {
  process.stdout.write(
    "\nNOTICE: no Chromium found (/usr/bin/chromium); the playground's restart browser test is SKIPPED.\n" +
      "        Install it with `apt-get install -y chromium` or set CHROMIUM_PATH.\n\n",
  );
}

const UI_WAIT_MS = 15_000;

describe.skipIf(!chromiumPath)("an open playground page when the bot restarts", () => {
  let first: TestPlayground | undefined;
  let second: TestPlayground | undefined;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    [first, browser] = await Promise.all([
      startTestPlayground(),
      chromium.launch({ executablePath: chromiumPath as string, args: CHROMIUM_ARGS }),
    ]);
    page = await browser.newPage({ viewport: { width: 1360, height: 820 } });
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(first.url);
    await page.locator("body.ready").waitFor({ timeout: UI_WAIT_MS });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await first?.stop();
    await second?.stop();
    expect(problems).toEqual([]);
    expect(second?.errorLogs() ?? []).toEqual([]);
  });

  it("GIVEN alice's DM open WHEN the bot stops THEN a banner says it is offline, and a message sent meanwhile says so too", async () => {
    const pg = first as TestPlayground;
    await page.locator('button[data-channel="dm"]').click();
    const oldDm = pg.playground.double.openDm(pg.playground.double.user("alice").id);
    await page.locator(`#messages[data-view="alice:${oldDm}"]`).waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator("#offline-banner").isVisible()).toBe(false);

    await pg.stop();
    const banner = page.locator("#offline-banner");
    await banner.waitFor({ state: "visible", timeout: UI_WAIT_MS });
    expect(await banner.textContent()).toMatch(/The bot is offline/);

    await page.locator("#composer-input").fill("anyone there?");
    await page.locator("#composer-input").press("Enter");
    await expect
      .poll(() => page.locator(".composer-hint").textContent(), { timeout: UI_WAIT_MS })
      .toMatch(/The bot is offline/);
  });

  it("GIVEN the page left open WHEN the bot is back on the same port THEN the banner goes, every view is fetched again, the draft stays and a new DM appears live", async () => {
    const port = Number(new URL((first as TestPlayground).url).port);
    second = await startTestPlayground({}, port);
    const double = second.playground.double;
    const newDm = double.openDm(double.user("alice").id);

    await page.locator("body[data-synced]").waitFor({ timeout: UI_WAIT_MS });
    await page.locator("#offline-banner").waitFor({ state: "hidden", timeout: UI_WAIT_MS });
    // The DM shown is the restarted bot's DM channel, not the old one.
    await page.locator(`#messages[data-view="alice:${newDm}"]`).waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator("#user-picker option").allTextContents()).toEqual(
      double.users.map((u) => u.globalName ?? u.username),
    );
    const key = second.sandbox.users.find((u) => u.name === "alice")?.apiKey ?? "";
    expect(await page.locator("#sandbox-key").textContent()).toBe(key);

    // What was being typed when the bot went away is still there.
    expect(await page.locator("#composer-input").inputValue()).toBe("anyone there?");

    // An alert sent after the restart shows up without a reload.
    double.postMessage(newDm, { content: "Alert after the restart" });
    await page
      .locator("article.msg", { hasText: "Alert after the restart" })
      .waitFor({ timeout: UI_WAIT_MS });

    // The guild's channels are the new ones too: a command typed there reaches the restarted bot.
    await page.locator('button[data-channel="general"]').click();
    await page.locator(`#messages[data-view="alice:${double.channelId}"]`).waitFor({ timeout: UI_WAIT_MS });
    await page.locator("#composer-input").fill("/help");
    await page.locator('.composer-popup .popup-item[data-value="help"]').waitFor({ timeout: UI_WAIT_MS });
    await page.locator("#composer-input").press("Enter");
    await page.locator(".composer-box.command-mode").waitFor({ timeout: UI_WAIT_MS });
    await page.locator(".send-button").click();
    await page
      .locator("article.msg", { hasText: "List what the bot can do" })
      .waitFor({ timeout: UI_WAIT_MS });
  }, 60_000);
});
