// How advanced buy orders (made on the website) read in Discord: the expression as is, in a code
// span that always closes, within Discord's size limits; on /buyorder and in fill alerts.
import { describe, expect, it } from "vitest";
import { OutboxPayload, toOutboxPayload } from "../../src/outbox/payload.ts";
import { alertLine, renderAlert } from "../../src/discord/render/alerts/alerts.ts";
import {
  ADVANCED_ORDER,
  aggregatesEmbed,
  buyOrderEmbed,
  buyOrdersPageMessage,
  expressionCode,
} from "../../src/discord/render/buyOrders.ts";
import type { BuyOrderView } from "../../src/trading/buyOrders.ts";

const NO_PAGING = { previousId: "p", nextId: "n", hasPrevious: false, hasNext: false };

function advanced(expression: string, orderId = "1001"): BuyOrderView {
  return {
    orderId,
    itemName: undefined,
    expression,
    maxPriceCents: 1250,
    quantity: 3,
    boughtCount: 1,
    constraints: {},
    createdAt: undefined,
  };
}

/** The text Discord shows for an inline code span, or throws when `text` is not one whole span. */
function codeContent(text: string): string {
  const fence = /^`+/.exec(text)?.[0];
  if (!fence || !text.endsWith(fence) || text.length < fence.length * 2 + 1)
    throw new Error(`not a span: ${text}`);
  const inner = text.slice(fence.length, -fence.length);
  if (inner.includes(fence)) throw new Error(`the fence closes early: ${text}`);
  return fence.length > 1 ? inner.slice(1, -1) : inner;
}

describe("expressionCode", () => {
  it("GIVEN an expression with markdown and a mention THEN it is shown as is, unescaped, in one span", () => {
    const expr = 'Item.Name == "**Rifle** | _Tide_" && @everyone > 1';
    expect(codeContent(expressionCode(expr, 200))).toBe(expr);
  });

  it.each(["a `b` c", "`edge`", "a ``b`` c"])(
    "GIVEN the expression %j holding backticks THEN the span still closes around all of it",
    (expr) => {
      const shown = codeContent(expressionCode(expr, 200));
      expect(shown.replace(/ˋ/g, "`")).toBe(expr);
    },
  );

  it("GIVEN a long expression THEN it is cut with the ellipsis inside the span", () => {
    const shown = codeContent(expressionCode("x > 1 && ".repeat(500), 200));
    expect(Array.from(shown)).toHaveLength(200);
    expect(shown.endsWith("…")).toBe(true);
  });

  it("GIVEN newlines and bidi overrides THEN the expression stays on one line in stored order", () => {
    const shown = codeContent(expressionCode("a == 1\n&& b\u202E == 2", 200));
    expect(shown).toBe("a == 1 && b  == 2");
  });
});

describe("advanced orders on /buyorder pages and receipts", () => {
  it("GIVEN ten advanced orders with huge expressions THEN the page fits one embed and every line is whole", () => {
    const orders = Array.from({ length: 10 }, (_, i) =>
      advanced(`Price < ${i} && `.repeat(400), `${2000 + i}`),
    );
    const [page] = buyOrdersPageMessage({ orders, page: 0, total: 10, hasMore: false }, NO_PAGING).embeds;
    const description = page?.description ?? "";
    expect(description.length).toBeLessThanOrEqual(4096);
    const lines = description.split("\n");
    expect(lines).toHaveLength(10);
    for (const [i, line] of lines.entries()) {
      expect(line).toContain(ADVANCED_ORDER);
      expect(line).toContain(`\`${2000 + i}\``);
      expect((line.match(/`/g) ?? []).length % 2).toBe(0);
    }
  });

  it("GIVEN an edited advanced order THEN the receipt names it, shows the expression and says where to edit it", () => {
    const e = buyOrderEmbed(advanced("Wear < 0.07 && Seed in [661, 670]"), "Buy order updated");
    expect(e.title).toBe(`Buy order updated: ${ADVANCED_ORDER}`);
    expect(e.fields?.find((f) => f.name === "Expression")?.value).toBe("`Wear < 0.07 && Seed in [661, 670]`");
    expect(e.fields?.some((f) => f.name === "Constraints")).toBe(false);
    expect(e.description).toContain("only be edited on the website");
  });

  it("GIVEN another buyer's advanced order among a listing's matches THEN it is listed with its expression", () => {
    const e = aggregatesEmbed(
      "Buy orders this listing would fill",
      [{ itemName: undefined, expression: "Wear < 0.2", maxPriceCents: 900, quantity: 2, constraints: {} }],
      "none",
      "Listing 1",
    );
    expect(e.description).toBe(`**$9.00** × 2 · ${ADVANCED_ORDER} \`Wear < 0.2\``);
  });
});

describe("fill alerts of advanced orders", () => {
  const fill = {
    kind: "buy_order_fill",
    orderId: "3001",
    expression: "Wear < 0.07 && Seed == 661",
    priceCents: 2000,
    boughtCount: 2,
    newlyBought: 2,
    quantity: 5,
  } as const;

  it("GIVEN a fill of an order without an item name THEN the DM names the expression", () => {
    const { alert } = toOutboxPayload(fill);
    const [e] = renderAlert(alert, "42").embeds;
    expect(e?.title).toBe(`Buy order filled: ${ADVANCED_ORDER}`);
    expect(e?.description).toContain("2 of 5 so far");
    expect(e?.description).toContain("Expression: `Wear < 0.07 && Seed == 661`");
    expect(e?.footer?.text).toBe("Buy order 3001");
    expect(alertLine(fill)).toBe(
      `✅ Buy order ${ADVANCED_ORDER} \`Wear < 0.07 && Seed == 661\`: 2 of 5 bought`,
    );
  });

  it("GIVEN a fill alert queued before advanced orders existed THEN it still reads and renders", () => {
    const stored = {
      v: 1,
      alert: { ...fill, expression: undefined, itemName: "Rifle | Tidewater (Field Worn)" },
    };
    const { alert } = OutboxPayload.parse(JSON.parse(JSON.stringify(stored)));
    expect(renderAlert(alert, "42").embeds[0]?.title).toBe(
      "Buy order filled: Rifle | Tidewater (Field Worn)",
    );
  });
});
