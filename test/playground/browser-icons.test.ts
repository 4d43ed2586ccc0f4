// The playground's own icons (voice channel, "Only you can see this", attached files) are drawn as
// inline SVG, so they show on a machine without an emoji font instead of as empty boxes.
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, findChromium, startTestPlayground, type TestPlayground } from "./support.ts";

const chromiumPath = findChromium();
if (!chromiumPath) {
  process.stdout.write(
    "\nNOTICE: no Chromium found (/usr/bin/chromium); the icon browser tests are SKIPPED.\n" +
      "        Install it with `apt-get install -y chromium` or set CHROMIUM_PATH.\n\n",
  );
}

const UI_WAIT_MS = 10_000;
/** Emoji and symbol code points a machine without an emoji font draws as boxes. */
const EMOJI = /[\u{1F300}-\u{1FAFF}\u{2600}-\u{27BF}]/u;

describe.skipIf(!chromiumPath)("the playground's icons", () => {
  let pg: TestPlayground;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [pg, browser] = await Promise.all([
      startTestPlayground(),
      chromium.launch({ executablePath: chromiumPath as string, args: CHROMIUM_ARGS }),
    ]);
    page = await browser.newPage({ viewport: { width: 1360, height: 820 } });
    await page.goto(pg.url);
    await page.locator("body.ready").waitFor({ timeout: UI_WAIT_MS });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await pg?.stop();
  });

  /** The icon's drawn size, and whether it is an SVG with paths rather than a glyph. */
  const drawn = (selector: string) =>
    page
      .locator(selector)
      .first()
      .evaluate((node) => {
        const svg = node.querySelector("svg");
        const box = svg?.getBoundingClientRect();
        return {
          svg: svg !== null && svg.querySelectorAll("path").length > 0,
          width: box?.width ?? 0,
          height: box?.height ?? 0,
          text: node.textContent ?? "",
        };
      });

  it("GIVEN the server's channel list WHEN it is drawn THEN the voice channel's icon is an SVG of visible size with no emoji glyph", async () => {
    const icon = await drawn(".channel[disabled] .channel-icon");
    expect(icon.svg).toBe(true);
    expect(icon.width).toBeGreaterThan(8);
    expect(icon.height).toBeGreaterThan(8);
    expect(icon.text).not.toMatch(EMOJI);
  });

  it("GIVEN a private answer WHEN it is shown THEN its 'Only you can see this' eye is an SVG of visible size, AND the page's chrome holds no emoji glyph", async () => {
    await page.locator("#composer-input").click();
    await page.locator("#composer-input").fill("/help");
    await page.locator(".composer-popup .popup-item", { hasText: "/help" }).first().click();
    await page.locator(".composer-box.command-mode").waitFor({ timeout: UI_WAIT_MS });
    await page.locator(".send-button").click();
    await page.locator(".ephemeral-note").last().waitFor({ timeout: UI_WAIT_MS });

    const eye = await drawn(".ephemeral-note .eye");
    expect(eye.svg).toBe(true);
    expect(eye.width).toBeGreaterThan(8);
    expect(eye.text).not.toMatch(EMOJI);
    const chrome = await page.locator(".channel-icon, .ephemeral-note, .file-icon").allTextContents();
    expect(chrome.length).toBeGreaterThan(2);
    expect(chrome.filter((t) => EMOJI.test(t))).toEqual([]);
  });
});
