// Rendering helpers for Discord messages: theme, embeds, formatting.
export { COLOURS, MARKERS, type Tone } from "./theme.ts";
export { embed, notice, type EmbedSpec } from "./embeds.ts";
export { absoluteTime, money, relativeTime, sanitise, truncate } from "./format.ts";
