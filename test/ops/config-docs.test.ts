// Every setting the bot reads is documented twice (.env.example and the README table), and nothing documented is stale.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EnvSchema } from "../../src/config/index.ts";
import { REPO_ROOT } from "./support.ts";

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), "utf8");
const schemaKeys = Object.keys(EnvSchema.shape).sort();

// `KEY=` lines, and `# KEY=value` lines that show a default without overriding it.
const envExampleKeys = read(".env.example")
  .split("\n")
  .flatMap((line) => /^(?:# )?([A-Z][A-Z0-9_]*)=/.exec(line)?.[1] ?? []);

/** Variables the image sets for itself: .env.example must never set them (only show them commented). */
const IMAGE_OWNED = ["NODE_ENV", "DATA_DIR", "HTTP_HOST", "HTTP_PORT"];

/** Backticked names in the rows of the README's Configuration table. */
function readmeConfigKeys(): string[] {
  const readme = read("README.md");
  const section = /^## Configuration\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
  if (section === undefined) throw new Error("README.md has no '## Configuration' section");
  return section
    .split("\n")
    .filter((line) => line.startsWith("|"))
    .flatMap((line) =>
      [...(line.split("|")[1] ?? "").matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1] as string),
    );
}

describe("configuration documentation", () => {
  it("GIVEN the variables src/config reads WHEN .env.example is read THEN each appears there as KEY=", () => {
    expect(schemaKeys.length).toBeGreaterThan(10);
    const missing = schemaKeys.filter((k) => !envExampleKeys.includes(k));
    expect(missing).toEqual([]);
  });

  it("GIVEN the variables src/config reads WHEN the README is read THEN each has a row in its Configuration table", () => {
    const documented = readmeConfigKeys();
    const missing = schemaKeys.filter((k) => !documented.includes(k));
    expect(missing).toEqual([]);
  });

  it("GIVEN .env.example WHEN copied to .env for the image THEN it sets none of the variables the image sets for itself", () => {
    const set = read(".env.example")
      .split("\n")
      .flatMap((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1] ?? []);
    expect(set.filter((k) => IMAGE_OWNED.includes(k))).toEqual([]);
    for (const k of IMAGE_OWNED) expect(envExampleKeys).toContain(k);
  });

  it("GIVEN .env.example and the README table WHEN read THEN they name no variable that neither the bot nor docker-compose.yml uses", () => {
    const compose = read("docker-compose.yml");
    const used = (k: string) => schemaKeys.includes(k) || compose.includes(`\${${k}`);
    expect(envExampleKeys.filter((k) => !used(k))).toEqual([]);
    expect(readmeConfigKeys().filter((k) => !used(k))).toEqual([]);
    expect(new Set(envExampleKeys).size, "a variable is listed twice in .env.example").toBe(
      envExampleKeys.length,
    );
  });
});
