// What a stop turned off, in words for the reply or DM that says so.
import type { StoppedAutomation } from "../db/repos/automation.ts";

export type { StoppedAutomation };

const quoted = (s: string) => `"${s.replace(/[\p{Cc}\p{Cf}]/gu, "").slice(0, 50)}"`;

function list(items: readonly string[], max = 3): string {
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}

/** One sentence, e.g. "2 live-armed rules disarmed ("A", "B"), 1 guard turned off, auto-accept off". */
export function describeStopped(s: StoppedAutomation): string | undefined {
  const parts: string[] = [];
  if (s.rules.length > 0) {
    parts.push(
      `${s.rules.length} armed rule${s.rules.length === 1 ? "" : "s"} disarmed (${list(s.rules.map(quoted))})`,
    );
  }
  if (s.guards.length > 0) {
    const what = s.guards.map(
      (g) => `${g.kind === "buy_order" ? "order" : "listing"} ${g.itemName ?? g.subjectId}`,
    );
    parts.push(`${s.guards.length} guard${s.guards.length === 1 ? "" : "s"} turned off (${list(what)})`);
  }
  if (s.autoAccept) parts.push("trade auto-accept turned off");
  return parts.length === 0 ? undefined : parts.join("; ");
}
