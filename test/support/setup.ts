// Per-file test setup: fail on unhandled rejections and unexpected console.error.
import { afterAll, beforeAll } from "vitest";

const problems: unknown[] = [];
const onRejection = (reason: unknown) => problems.push(reason);
const originalError = console.error;

beforeAll(() => {
  process.on("unhandledRejection", onRejection);
  console.error = (...args: unknown[]) => {
    problems.push(args.map(String).join(" "));
    originalError(...args);
  };
});

afterAll(() => {
  process.off("unhandledRejection", onRejection);
  console.error = originalError;
  if (problems.length > 0) {
    throw new Error(`unexpected console.error or unhandled rejection: ${problems.map(String).join("; ")}`);
  }
});
