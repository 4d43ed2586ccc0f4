// The logger's two faces: readable lines for people, JSON for machines — secrets redacted in both.
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, prettyDestination } from "../src/log.ts";

function capture(): { out: Writable; text: () => string } {
  const chunks: string[] = [];
  const out = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { out, text: () => chunks.join("") };
}

const SECRET_KEY = "live-key-5f3a9c1e7b2d4a6f8e0c";
const TRADE_TOKEN = "tt-9a8b7c6d5e4f";

describe("logger", () => {
  it("GIVEN pretty output WHEN a line carries an API key and a trade token THEN the line is readable and both are redacted", () => {
    const { out, text } = capture();
    const log = createLogger({ level: "info" }, prettyDestination(out));

    log.info(
      { userId: "42", apiKey: SECRET_KEY, trade: { id: "7", trade_token: TRADE_TOKEN } },
      "trade alert queued",
    );

    const written = text();
    expect(written).toContain("trade alert queued");
    expect(written).toMatch(/INFO/);
    expect(written).not.toContain('{"level"');
    expect(written).not.toContain(SECRET_KEY);
    expect(written).not.toContain(TRADE_TOKEN);
    expect(written).toContain("[redacted]");
  });

  it("GIVEN JSON output WHEN the same line is logged THEN it is one JSON object with the secrets redacted", () => {
    const { out, text } = capture();
    const log = createLogger({ level: "info" }, out as unknown as Parameters<typeof createLogger>[1]);

    log.info({ apiKey: SECRET_KEY, headers: { authorization: SECRET_KEY } }, "market call");

    const line = JSON.parse(text().trim()) as Record<string, unknown>;
    expect(line.msg).toBe("market call");
    expect(line.apiKey).toBe("[redacted]");
    expect(JSON.stringify(line)).not.toContain(SECRET_KEY);
  });

  it("GIVEN secrets nested deep and header names in any case WHEN logged THEN none of them reaches the line", () => {
    const { out, text } = capture();
    const log = createLogger({ level: "info" }, out as unknown as Parameters<typeof createLogger>[1]);
    const deep = { a: { b: { c: { d: { e: { apiKey: SECRET_KEY, keep: "visible" } } } } } };

    log.info(
      {
        deep,
        request: { headers: { AUTHORIZATION: SECRET_KEY, "X-Api-Key": SECRET_KEY, Accept: "json" } },
        list: [{ nested: [{ Trade_Token: TRADE_TOKEN }] }],
        map: new Map([["Authorization", SECRET_KEY]]),
      },
      "deep secrets",
    );

    const written = text();
    expect(written).not.toContain(SECRET_KEY);
    expect(written).not.toContain(TRADE_TOKEN);
    expect(written).toContain("visible");
    expect(written).toContain('"Accept":"json"');
    // The caller's object is untouched.
    expect(deep.a.b.c.d.e.apiKey).toBe(SECRET_KEY);
  });
});
