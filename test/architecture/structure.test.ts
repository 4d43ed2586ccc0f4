// The house's shape, checked: no import circles, no file past ~400 lines, no folder crowded past
// ~20 source files, arrows one way (commands -> src, never back but from the composition root).
import path from "node:path";
import { describe, expect, it } from "vitest";
import { circles, localImports, read, sourceFiles } from "./sourceGraph.ts";

const CODE = sourceFiles("src", "commands");
const MAX_LINES = 400;
const MAX_FILES_PER_FOLDER = 20;
/** The app's root and the registration script: the only code under src that lists the commands. */
const COMPOSITION_ROOTS = ["src/app.ts", "src/discord/deployCommands.ts"];

describe("the source tree's structure", () => {
  it("GIVEN every source file WHEN its imports are followed THEN no file reaches itself again", () => {
    expect(circles(CODE)).toEqual([]);
  });

  it("GIVEN every source file WHEN its lines are counted THEN none passes 400", () => {
    const long = CODE.map((f) => ({ file: f, lines: read(f).split("\n").length - 1 })).filter(
      (f) => f.lines > MAX_LINES,
    );
    expect(long).toEqual([]);
  });

  it("GIVEN every folder WHEN its own source files are counted THEN none holds more than 20", () => {
    const perFolder = new Map<string, number>();
    for (const f of CODE)
      perFolder.set(path.posix.dirname(f), (perFolder.get(path.posix.dirname(f)) ?? 0) + 1);
    const crowded = [...perFolder].filter(([, n]) => n > MAX_FILES_PER_FOLDER);
    expect(crowded).toEqual([]);
  });

  it("GIVEN the code under src WHEN it imports THEN only the composition roots reach commands", () => {
    const back = CODE.filter((f) => f.startsWith("src/") && !COMPOSITION_ROOTS.includes(f)).flatMap((f) =>
      localImports(f)
        .filter((t) => t.startsWith("commands/"))
        .map((t) => `${f} -> ${t}`),
    );
    expect(back).toEqual([]);
  });

  it("GIVEN the background work WHEN its folders are listed THEN each flow has a folder of its own, and no alerts hub is left", () => {
    const folders = new Set(CODE.filter((f) => f.startsWith("src/")).map((f) => f.split("/")[1]));
    for (const flow of ["runtime", "background", "outbox", "feed", "watch", "accountPollers"]) {
      expect(folders.has(flow), flow).toBe(true);
    }
    expect(CODE.filter((f) => f.startsWith("src/alerts/"))).toEqual([]);
  });
});
