// The playground's composer and chat in a real browser, as a newcomer meets them: README lines typed or
// pasted whole, hints, Escape, ranking, a chat that stays at the bottom, menus that open upward, the
// panel's fault labels and user switch, and a layout that holds in a narrow window.
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CommandDef } from "../../src/playground/web/slashCommands.js";
import { CHROMIUM_ARGS, findChromium, pageApi, startTestPlayground, type TestPlayground } from "./support.ts";

const chromiumPath = findChromium();
if (!chromiumPath) {
  process.stdout.write(
    "\nNOTICE: no Chromium found (/usr/bin/chromium); the composer's browser tests are SKIPPED.\n" +
      "        Install it with `apt-get install -y chromium` or set CHROMIUM_PATH.\n\n",
  );
}

const UI_WAIT_MS = 10_000;
/** The page's clipboard, typed here without the DOM library (the tests compile for node). */
type WithClipboard = { navigator: { clipboard: { writeText(text: string): Promise<void> } } };
const ITEM = "Falcon Rifle | Ember Tide (Pristine)";

describe.skipIf(!chromiumPath)("the playground's composer and chat in a browser", () => {
  let pg: TestPlayground;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    [pg, browser] = await Promise.all([
      startTestPlayground(),
      chromium.launch({ executablePath: chromiumPath as string, args: CHROMIUM_ARGS }),
    ]);
    const context = await browser.newContext({ viewport: { width: 1360, height: 820 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: pg.url });
    page = await context.newPage();
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

  const composer = () => page.locator("#composer-input");
  const hint = () => page.locator(".composer-hint");
  const message = (text: string | RegExp) => page.locator("article.msg", { hasText: text }).last();
  /** Types a command's name and picks it with Enter once the list offers it, as a user does. */
  const typeCommand = async (target: Page, path: string) => {
    await target.locator("#composer-input").fill(`/${path}`);
    await target
      .locator(`.composer-popup .popup-item[data-value="${path}"]`)
      .waitFor({ timeout: UI_WAIT_MS });
    await target.locator("#composer-input").press("Enter");
    await target.locator(".composer-box.command-mode").waitFor({ timeout: UI_WAIT_MS });
  };
  const leaveCommand = async () => {
    if ((await page.locator(".cmd-cancel").count()) > 0) await page.locator(".cmd-cancel").click();
    await composer().waitFor({ timeout: UI_WAIT_MS });
  };

  it("GIVEN the README's /search line WHEN typed whole and Enter pressed THEN it runs with every option filled", async () => {
    await composer().click();
    await composer().fill(`/search item:${ITEM} max_price:120 max_float:0.07 sort:Lowest price`);
    await expect.poll(() => hint().textContent(), { timeout: UI_WAIT_MS }).toMatch(/Enter runs \/search/);
    await composer().press("Enter");
    const results = message(`≤ $120.00`);
    await results.waitFor({ timeout: UI_WAIT_MS });
    expect(await results.textContent()).toContain(ITEM);
    expect(await results.textContent()).toContain("float ≤ 0.07");
  });

  it("GIVEN a /watch add line on the clipboard WHEN pasted THEN its options fill the command's boxes, and Enter sends it", async () => {
    await leaveCommand();
    await page.evaluate(
      (text) => (globalThis as unknown as WithClipboard).navigator.clipboard.writeText(text),
      `/watch add name:pasted rule item:"${ITEM}" max_price:20`,
    );
    await composer().click();
    await page.keyboard.press("Control+V");
    await page.locator(".composer-box.command-mode").waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator(".cmd-chip").textContent()).toBe("/watch add");
    expect(await page.locator('.opt[data-option="name"] input').inputValue()).toBe("pasted rule");
    expect(await page.locator('.opt[data-option="item"] input').inputValue()).toBe(ITEM);
    expect(await page.locator('.opt[data-option="max_price"] input').inputValue()).toBe("20");
    await page.locator('.opt[data-option="max_price"] input').press("Enter");
    await message("Watching: pasted rule").waitFor({ timeout: UI_WAIT_MS });
  });

  it("GIVEN a line naming an option the command lacks WHEN Enter is pressed THEN the hint names it and nothing is sent", async () => {
    await leaveCommand();
    await composer().fill("/search colour:red");
    await composer().press("Enter");
    await expect.poll(() => hint().textContent(), { timeout: UI_WAIT_MS }).toMatch(/no option “colour”/);
    expect(await page.locator(".composer-box.command-mode").count()).toBe(0);
  });

  it("GIVEN /he typed WHEN the suggestions show THEN /help comes first", async () => {
    await leaveCommand();
    await composer().fill("/he");
    const first = page.locator(".composer-popup .popup-item").first();
    await first.waitFor({ timeout: UI_WAIT_MS });
    expect(await first.getAttribute("data-value")).toBe("help");
    await composer().fill("");
  });

  it("GIVEN /watch add picked WHEN its first required box has the cursor THEN the hint is that option's description", async () => {
    const { body } = await pageApi<{ commands: CommandDef[] }>(
      pg.url,
      `/api/commands?user=alice&channelId=${pg.playground.double.channelId}`,
    );
    const add = body.commands.find((c) => c.name === "watch")?.options?.find((o) => o.name === "add");
    const description = add?.options?.find((o) => o.name === "name")?.description ?? "";
    expect(description).not.toBe("");
    await typeCommand(page, "watch add");
    await expect
      .poll(() => page.locator(":focus").getAttribute("id"), { timeout: UI_WAIT_MS })
      .toBe("opt-name");
    expect(await hint().textContent()).toBe(`name (required): ${description}`);
  });

  it("GIVEN suggestions open under an option WHEN Escape is pressed THEN they close and the command stays", async () => {
    await page.locator(".cmd-add-option").selectOption("item");
    const item = page.locator('.opt[data-option="item"] input');
    await item.pressSequentially("Falcon");
    await page
      .locator('.composer-popup[data-query="Falcon"] .popup-item')
      .first()
      .waitFor({ timeout: UI_WAIT_MS });
    await item.press("Escape");
    await page.locator(".composer-popup").waitFor({ state: "hidden", timeout: UI_WAIT_MS });
    expect(await page.locator(".cmd-chip").textContent()).toBe("/watch add");
    expect(await item.inputValue()).toBe("Falcon");
    // A second Escape has no list to close: the command still stays.
    await item.press("Escape");
    expect(await page.locator(".cmd-chip").textContent()).toBe("/watch add");
  });

  it("GIVEN a long chat at the bottom WHEN a command with many option rows fills the composer THEN the newest message stays in view", async () => {
    await leaveCommand();
    const double = pg.playground.double;
    for (let i = 0; i < 40; i += 1) double.postMessage(double.channelId, { content: `filler line ${i}` });
    const last = page.locator("article.msg", { hasText: "filler line 39" });
    await last.waitFor({ timeout: UI_WAIT_MS });
    await typeCommand(page, "buyorder create");
    for (const option of ["max_float", "min_float", "paint_seeds", "stickers", "keychains"]) {
      await page.locator(".cmd-add-option").selectOption(option);
    }
    const gap = () =>
      page.locator("#messages").evaluate((box) => box.scrollHeight - box.scrollTop - box.clientHeight);
    await expect.poll(gap, { timeout: UI_WAIT_MS }).toBeLessThan(2);
    const [box, shown] = await Promise.all([page.locator("#messages").boundingBox(), last.boundingBox()]);
    expect((shown?.y ?? 0) + (shown?.height ?? 0)).toBeLessThanOrEqual(
      (box?.y ?? 0) + (box?.height ?? 0) + 1,
    );
    await leaveCommand();
  });

  it("GIVEN a select menu in the last message WHEN opened THEN it opens upward, inside the chat", async () => {
    const double = pg.playground.double;
    // Enough above it that the menu has room upward and none below.
    for (let i = 0; i < 20; i += 1) double.postMessage(double.channelId, { content: `before the menu ${i}` });
    const options = Array.from({ length: 6 }, (_, i) => ({ label: `Choice ${i}`, value: `c${i}` }));
    double.postMessage(double.channelId, {
      content: "pick one near the bottom",
      components: [{ type: 1, components: [{ type: 3, custom_id: "demo:pick", options }] }],
    });
    const shown = message("pick one near the bottom");
    await shown.waitFor({ timeout: UI_WAIT_MS });
    await shown.locator(".select-trigger").click();
    const list = shown.locator(".select-list");
    await list.waitFor({ timeout: UI_WAIT_MS });
    expect(await shown.locator(".select.upward").count()).toBe(1);
    const [chat, menu] = await Promise.all([page.locator("#messages").boundingBox(), list.boundingBox()]);
    expect(menu?.y ?? 0).toBeGreaterThanOrEqual(chat?.y ?? 0);
    expect((menu?.y ?? 0) + (menu?.height ?? 0)).toBeLessThanOrEqual((chat?.y ?? 0) + (chat?.height ?? 0));
    await shown.locator(".select-trigger").click();
  });

  it("GIVEN alice linked and an order placed from a typed line WHEN she picks it in /buyorder list's menu THEN Cancel order cancels it", async () => {
    await leaveCommand();
    await typeCommand(page, "account link");
    await page.locator(".send-button").click({ timeout: UI_WAIT_MS });
    await page.locator(".modal .modal-input").fill((await page.locator("#sandbox-key").textContent()) ?? "");
    await page.locator(".modal button[type=submit]").click({ timeout: UI_WAIT_MS });
    await message("Account linked").waitFor({ timeout: UI_WAIT_MS });

    await composer().fill(`/buyorder create item:${ITEM} max_price:4 quantity:1`);
    await composer().press("Enter");
    await message(/Place order/)
      .getByRole("button", { name: "Place order" })
      .click({ timeout: UI_WAIT_MS });
    const created = message("Buy order created");
    await created.waitFor({ timeout: UI_WAIT_MS });
    const orderId = /Buy order (\d+)/.exec((await created.textContent()) ?? "")?.[1] ?? "";
    expect(orderId).not.toBe("");

    await typeCommand(page, "buyorder list");
    await page.locator(".send-button").click({ timeout: UI_WAIT_MS });
    const list = message("Your buy orders");
    await list.locator(".select-trigger").click({ timeout: UI_WAIT_MS });
    await list.locator(".select-option", { hasText: `order ${orderId}` }).click({ timeout: UI_WAIT_MS });
    await list.getByRole("button", { name: "Cancel order" }).click({ timeout: UI_WAIT_MS });
    await message(`Buy order ${orderId} cancelled`).waitFor({ timeout: UI_WAIT_MS });
  });

  it("GIVEN a 5xx on every route WHEN injected from the panel THEN the list says what fails and where", async () => {
    await page.locator('select[name="route"]').selectOption("**");
    await page.locator('select[name="kind"]').selectOption("5xx");
    await page.getByRole("button", { name: "Inject fault" }).click();
    const listed = page.locator(".panel-faults li").first();
    await expect
      .poll(() => listed.textContent(), { timeout: UI_WAIT_MS })
      .toBe("5xx: service unavailable on every route");
    await page.getByRole("button", { name: "Clear faults" }).click();
    await page.locator(".panel-faults li", { hasText: "No faults" }).waitFor({ timeout: UI_WAIT_MS });
  });

  it("GIVEN the Faults card WHEN a contract drift is applied THEN the list names the renamed field; WHEN cleared THEN no drift is left", async () => {
    await page.locator('select[name="drift"]').selectOption("rename");
    await page.getByRole("button", { name: "Apply drift" }).click();
    const listed = page.locator(".panel-drift li").first();
    await expect
      .poll(() => listed.textContent(), { timeout: UI_WAIT_MS })
      .toBe("Field item.market_hash_name renamed to name");
    await page.getByRole("button", { name: "Clear drift" }).click();
    await page.locator(".panel-drift li", { hasText: "No drift" }).waitFor({ timeout: UI_WAIT_MS });
  });

  it("GIVEN alice's listing and typed fields in the panel WHEN bob is picked THEN the panel shows none of them", async () => {
    await page.locator('input[name="item"]').fill("Viper SMG | Night Bloom (Lightly Used)");
    await page.locator("#create-listing").click();
    await page.locator("#last-listing[data-listing-id]").waitFor({ timeout: UI_WAIT_MS });
    await page.locator('input[name="listing"]').fill("9007199254741123");
    await page.locator("#user-picker").selectOption("bob");
    await page.locator('#messages[data-view^="bob:"]').waitFor({ timeout: UI_WAIT_MS });
    await expect
      .poll(() => page.locator("#sandbox-key").textContent(), { timeout: UI_WAIT_MS })
      .toMatch(/bob/);
    expect(await page.locator("#last-listing").textContent()).toBe("");
    expect(await page.locator("#last-listing[data-listing-id]").count()).toBe(0);
    expect(await page.locator('input[name="listing"]').inputValue()).toBe("");
    expect(await page.locator('input[name="item"]').inputValue()).not.toBe(
      "Viper SMG | Night Bloom (Lightly Used)",
    );
    await page.locator("#user-picker").selectOption("alice");
    await page.locator('#messages[data-view^="alice:"]').waitFor({ timeout: UI_WAIT_MS });
  });

  it("GIVEN a 600 px wide window with the panel open WHEN the page lays out THEN nothing overflows and the chat keeps a usable width", async () => {
    await page.setViewportSize({ width: 600, height: 800 });
    await expect
      .poll(() => page.locator("html").evaluate((root) => root.scrollWidth), { timeout: UI_WAIT_MS })
      .toBeLessThanOrEqual(600);
    const chat = await page.locator("main.chat").boundingBox();
    expect(chat?.width ?? 0).toBeGreaterThanOrEqual(360);
    expect(await page.locator("#composer-input").isVisible()).toBe(true);
    // The panel is a drawer over the chat, not a column that squeezes it; it can be closed.
    expect(
      await page.locator("#panel").evaluate((p) => p.ownerDocument.defaultView?.getComputedStyle(p).position),
    ).toBe("fixed");
    await page.locator("#panel-toggle").click();
    expect(await page.locator("#panel").isVisible()).toBe(false);
    await page.locator("#panel-toggle").click();
    await page.setViewportSize({ width: 1360, height: 820 });

    // Opened in a narrow window, the page starts with the chat in view, and a command's boxes get a line of their own.
    const narrow = await browser.newPage({ viewport: { width: 600, height: 800 } });
    narrow.on("pageerror", (error) => problems.push(error.message));
    await narrow.goto(pg.url);
    await narrow.locator("body.ready").waitFor({ timeout: UI_WAIT_MS });
    expect(await narrow.locator("#panel").isVisible()).toBe(false);
    await typeCommand(narrow, "buyorder create");
    const item = narrow.locator('.opt[data-option="item"] input');
    await item.waitFor({ timeout: UI_WAIT_MS });
    expect((await item.boundingBox())?.width ?? 0).toBeGreaterThanOrEqual(200);
    expect(await narrow.locator('.opt[data-option="item"] .opt-name').isVisible()).toBe(true);
    await narrow.close();
  });
});
