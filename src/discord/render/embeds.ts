// Embeds with the bot's consistent look: colour and marker by tone, bounded sizes.
import type { APIEmbed, APIEmbedField } from "discord.js";
import { COLOURS, MARKERS, type Tone } from "./theme.ts";
import { truncate } from "./format.ts";

export interface EmbedSpec {
  readonly tone: Tone;
  readonly title?: string;
  readonly description?: string;
  readonly fields?: readonly { name: string; value: string; inline?: boolean }[];
  readonly footer?: string;
  readonly url?: string;
  readonly thumbnailUrl?: string;
  readonly imageUrl?: string;
  readonly timestamp?: Date;
}

/** An embed within Discord's limits (title 256, description 4096, 25 fields of 256/1024). */
export function embed(spec: EmbedSpec): APIEmbed {
  const fields: APIEmbedField[] = (spec.fields ?? []).slice(0, 25).map((f) => ({
    name: truncate(f.name, 256),
    value: truncate(f.value === "" ? "—" : f.value, 1024),
    ...(f.inline === undefined ? {} : { inline: f.inline }),
  }));
  return {
    color: COLOURS[spec.tone],
    ...(spec.title ? { title: truncate(spec.title, 256) } : {}),
    ...(spec.description ? { description: truncate(spec.description, 4096) } : {}),
    ...(fields.length > 0 ? { fields } : {}),
    ...(spec.footer ? { footer: { text: truncate(spec.footer, 2048) } } : {}),
    ...(spec.url ? { url: spec.url } : {}),
    ...(spec.thumbnailUrl ? { thumbnail: { url: spec.thumbnailUrl } } : {}),
    ...(spec.imageUrl ? { image: { url: spec.imageUrl } } : {}),
    ...(spec.timestamp ? { timestamp: spec.timestamp.toISOString() } : {}),
  };
}

/** A one-paragraph notice: "❌ The marketplace did not answer in time…". */
export function notice(tone: Tone, text: string, title?: string): APIEmbed {
  return embed({
    tone,
    description: `${MARKERS[tone]} ${text}`,
    ...(title ? { title } : {}),
  });
}
