// The playground in a real browser: link a key, add a watch rule, get the alert DM live, buy from it; owners' buttons; escaping.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, findChromium, startTestPlayground, type TestPlayground } from "./support.ts";

const chromiumPath = findChromium();
if (!chromiumPath) {
  process.stdout.write(
    "\nNOTICE: no Chromium found (/usr/bin/chromium); the playground's browser tests are SKIPPED.\n" +
      "        Install it with `apt-get install -y chromium` (.ci/run does) or set CHROMIUM_PATH.\n\n",
  );
}

const SCREENSHOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../docs/playground.png");
/** Generous for a 2-core machine; the feed polls every second in the playground. */
const ALERT_WAIT_MS = 15_000;
const UI_WAIT_MS = 10_000;

describe.skipIf(!chromiumPath)("the playground in a browser", () => {
  let pg: TestPlayground;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [pg, browser] = await Promise.all([
      startTestPlayground(),
      chromium.launch({ executablePath: chromiumPath as string, args: CHROMIUM_ARGS }),
    ]);
    page = await browser.newPage({ viewport: { width: 1360, height: 820 } });
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(pg.url);
    await page.locator("body.ready").waitFor({ timeout: UI_WAIT_MS });
    expect(problems).toEqual([]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await pg?.stop();
    expect(pg?.errorLogs() ?? []).toEqual([]);
  });

  const composer = () => page.locator("#composer-input");
  const message = (text: string | RegExp) => page.locator("article.msg", { hasText: text }).last();

  /**
   * Types "/" and picks a command from the bot's registered list, as a user would. The page
   * redraws the composer when its live connection reconnects (it refetches what it missed), so a
   * pick interrupted by a redraw is typed again, until the composer is in command mode.
   */
  async function pickCommand(path: string): Promise<void> {
    const deadline = Date.now() + UI_WAIT_MS * 2;
    for (;;) {
      try {
        await composer().click({ timeout: 2_000 });
        await composer().fill(`/${path}`, { timeout: 2_000 });
        await page
          .locator(".composer-popup .popup-item", { hasText: `/${path}` })
          .first()
          .click({ timeout: 3_000 });
        await page.locator(".composer-box.command-mode").waitFor({ timeout: 2_000 });
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
      }
    }
  }

  it("GIVEN alice in the page WHEN she links her key, adds a rule and a matching listing appears THEN the alert DM arrives live and Buy then Confirm purchase buys it", async () => {
    // /account link opens the bot's modal; the key comes from the control panel, as a user would copy it.
    await pickCommand("account link");
    await page.locator(".send-button").click();
    await page.locator(".modal").waitFor({ timeout: UI_WAIT_MS });
    const key = (await page.locator("#sandbox-key").textContent()) ?? "";
    expect(key).toMatch(/^sandbox-alice-key-/);
    await page.locator(".modal .modal-input").fill(key);
    await page.locator(".modal button[type=submit]").click();
    await message("Account linked").waitFor({ timeout: UI_WAIT_MS });
    expect(await message("Account linked").textContent()).toContain("Only you can see this");

    // /watch add, its item picked from the suggestions the bot answers for what was typed.
    await pickCommand("watch add");
    await page.locator('.opt[data-option="name"] input').fill("cheap ember");
    await page.locator(".cmd-add-option").selectOption("item");
    const itemInput = page.locator('.opt[data-option="item"] input');
    await itemInput.pressSequentially("Falcon Rifle | Ember Tide");
    const suggestions = page.locator('.composer-popup[data-query="Falcon Rifle | Ember Tide"] .popup-item');
    await suggestions.first().waitFor({ timeout: UI_WAIT_MS });
    const names = await suggestions.allTextContents();
    expect(names.every((n) => n.includes("Falcon Rifle | Ember Tide"))).toBe(true);
    await suggestions.first().click();
    const item = await itemInput.inputValue();
    expect(names).toContain(item);
    await page.locator(".cmd-add-option").selectOption("max_price");
    await page.locator('.opt[data-option="max_price"] input').fill("20");
    await page.locator(".send-button").click();
    await message("Watching: cheap ember").waitFor({ timeout: UI_WAIT_MS });

    // The control panel makes a listing the rule accepts; the alert DM shows up without a reload.
    const ruleOption = page.locator("#rule-pick option", { hasText: "cheap ember" });
    await ruleOption.waitFor({ state: "attached", timeout: UI_WAIT_MS });
    await page.locator("#rule-pick").selectOption((await ruleOption.getAttribute("value")) ?? "");
    expect(await page.locator('input[name="item"]').inputValue()).toBe(item);
    await page.locator("#create-listing").click();
    const listed = page.locator("#last-listing[data-listing-id]");
    await listed.waitFor({ timeout: UI_WAIT_MS });
    const listingId = (await listed.getAttribute("data-listing-id")) ?? "";
    await page.locator('button[data-channel="dm"] .badge').waitFor({ timeout: ALERT_WAIT_MS });
    await page.locator('button[data-channel="dm"]').click();
    const alert = message(`Listing ${listingId}`);
    await alert.waitFor({ timeout: UI_WAIT_MS });
    expect(await alert.textContent()).toContain(`New listing: ${item}`);
    await page.screenshot({ path: SCREENSHOT });

    await alert.getByRole("button", { name: "Buy", exact: true }).click();
    const confirm = page.getByRole("button", { name: "Confirm purchase" });
    await confirm.waitFor({ timeout: UI_WAIT_MS });
    await confirm.click();
    await message("Purchase complete").waitFor({ timeout: UI_WAIT_MS });

    // The sandbox agrees: the listing is sold, and the trade's buyer is alice.
    const alice = pg.sandbox.users.find((u) => u.name === "alice");
    const response = await fetch(`${pg.sandbox.baseUrl}/me/trades?role=buyer`, {
      headers: { authorization: alice?.apiKey ?? "" },
    });
    const { trades } = (await response.json()) as {
      trades: { contract_id: string; buyer_id: string; contract: { state: string } }[];
    };
    const trade = trades.find((t) => t.contract_id === listingId);
    expect(trade?.buyer_id).toBe(alice?.platformId);
    expect(trade?.contract.state).toBe("sold");
  }, 60_000);

  it("GIVEN alice's public search results WHEN bob presses her Next button THEN only bob sees the bot's “isn't yours”", async () => {
    await page.locator('button[data-channel="general"]').click();
    await pickCommand("search");
    await page.locator(".send-button").click();
    const results = message("Search results");
    await results.getByRole("button", { name: /Next/ }).waitFor({ timeout: UI_WAIT_MS });

    await page.locator("#user-picker").selectOption("bob");
    await page.locator('#messages[data-view^="bob:"]').waitFor({ timeout: UI_WAIT_MS });
    await message("Search results").getByRole("button", { name: /Next/ }).click();
    const refusal = message("isn't yours");
    await refusal.waitFor({ timeout: UI_WAIT_MS });
    expect(await refusal.textContent()).toContain("Only you can see this");

    // Back as alice: bob's private refusal is not in her channel.
    await page.locator("#user-picker").selectOption("alice");
    await page.locator('#messages[data-view^="alice:"]').waitFor({ timeout: UI_WAIT_MS });
    await message("Search results").waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator("article.msg", { hasText: "isn't yours" }).count()).toBe(0);
  }, 60_000);

  it("GIVEN a message full of markup WHEN the page shows it THEN it is text: no element, handler or script link comes from it", async () => {
    const double = pg.playground.double;
    double.postMessage(double.channelId, {
      content: '<img src=x onerror="window.__owned=1"> **bold** [click](javascript:window.__owned=2)',
      embeds: [
        { title: "<script>window.__owned=3</script>", description: "<b>not bold</b> <t:1700000000:R>" },
      ],
    });
    const shown = message("<img src=x");
    await shown.waitFor({ timeout: UI_WAIT_MS });
    expect(await shown.locator("img").count()).toBe(0);
    expect(await shown.locator("script, b").count()).toBe(0);
    expect(await shown.locator("strong").textContent()).toBe("bold");
    expect(await shown.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(await shown.locator(".embed-title").textContent()).toBe("<script>window.__owned=3</script>");
    expect(await shown.locator("time.md-time").textContent()).toMatch(/ago/);
    expect(await page.evaluate(() => (globalThis as { __owned?: number }).__owned)).toBeUndefined();
  });
});
