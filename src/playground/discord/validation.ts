// Discord's own limits on what a bot sends, so a bot that would be refused in production is refused here.
import { z } from "zod";

/** A refusal in Discord's shape: status, JSON `{ message, code, errors? }`, optional headers. */
export class DiscordApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: unknown,
    readonly headers?: Record<string, string>,
    /** Extra body fields, e.g. `retry_after` and `global` on 429s. */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export function rateLimited(
  retryAfterSeconds: number,
  headers: Record<string, string> = {},
): DiscordApiFailure {
  return new DiscordApiFailure(
    429,
    0,
    "You are being rate limited.",
    undefined,
    { ...headers, "retry-after": retryAfterSeconds.toFixed(3), "x-ratelimit-scope": "user" },
    { retry_after: retryAfterSeconds, global: false },
  );
}

const EmbedField = z.looseObject({
  name: z.string().min(1).max(256),
  value: z.string().min(1).max(1024),
  inline: z.boolean().optional(),
});

export const EmbedSchema = z.looseObject({
  title: z.string().max(256).optional(),
  description: z.string().max(4096).optional(),
  url: z.string().optional(),
  color: z.number().int().min(0).max(0xffffff).optional(),
  timestamp: z.string().optional(),
  footer: z.looseObject({ text: z.string().max(2048) }).optional(),
  author: z.looseObject({ name: z.string().max(256) }).optional(),
  fields: z.array(EmbedField).max(25).optional(),
});

const ActionRow = z.looseObject({
  type: z.number().int(),
  components: z.array(z.unknown()).max(5).optional(),
});

export const MessageBody = z
  .looseObject({
    content: z.string().max(2000).nullish(),
    embeds: z.array(EmbedSchema).max(10).nullish(),
    components: z.array(ActionRow).max(40).nullish(),
    flags: z.number().int().nullish(),
    attachments: z.array(z.looseObject({ id: z.union([z.string(), z.number()]) })).nullish(),
    allowed_mentions: z.unknown().optional(),
    tts: z.boolean().optional(),
  })
  .superRefine((body, ctx) => {
    for (const id of customIds(body.components ?? [])) {
      if (id.length === 0 || id.length > 100) {
        ctx.addIssue({ code: "custom", message: `custom_id must be 1-100 characters (got ${id.length})` });
      }
    }
  });
export type MessageBody = z.infer<typeof MessageBody>;

const OPTION_NAME = /^[-_\p{L}\p{N}]{1,32}$/u;

interface CommandOptionShape {
  name: string;
  description: string;
  type: number;
  required?: boolean | undefined;
  choices?: { name: string; value: string | number }[] | undefined;
  options?: CommandOptionShape[] | undefined;
  [key: string]: unknown;
}

const CommandOption: z.ZodType<CommandOptionShape> = z.lazy(() =>
  z.looseObject({
    name: z
      .string()
      .regex(OPTION_NAME)
      .refine((n) => n === n.toLowerCase(), "must be lowercase"),
    description: z.string().min(1).max(100),
    type: z.number().int().min(1).max(11),
    required: z.boolean().optional(),
    choices: z
      .array(z.looseObject({ name: z.string().min(1).max(100), value: z.union([z.string(), z.number()]) }))
      .max(25)
      .optional(),
    options: z.array(CommandOption).max(25).optional(),
  }),
);

export const CommandDefinition = z.looseObject({
  name: z
    .string()
    .regex(OPTION_NAME)
    .refine((n) => n === n.toLowerCase(), "must be lowercase"),
  description: z.string().max(100).default(""),
  type: z.number().int().default(1),
  options: z.array(CommandOption).max(25).optional(),
});
export type CommandDefinition = z.infer<typeof CommandDefinition>;
export const CommandList = z.array(CommandDefinition).max(100);

export const AutocompleteData = z.looseObject({
  choices: z
    .array(
      z.looseObject({ name: z.string().min(1).max(100), value: z.union([z.string().max(100), z.number()]) }),
    )
    .max(25),
});

export const ModalData = z.looseObject({
  custom_id: z.string().min(1).max(100),
  title: z.string().min(1).max(45),
  components: z
    .array(z.looseObject({ type: z.number().int() }))
    .min(1)
    .max(5),
});

/** Every custom_id inside a component tree. */
export function customIds(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(customIds);
  if (node === null || typeof node !== "object") return [];
  const record = node as Record<string, unknown>;
  const own = typeof record.custom_id === "string" ? [record.custom_id] : [];
  return [...own, ...customIds(record.components), ...customIds(record.component)];
}

/** Finds the component with this custom_id in a component tree. */
export function findComponent(node: unknown, customId: string): Record<string, unknown> | undefined {
  if (Array.isArray(node)) {
    for (const child of node) {
      const found = findComponent(child, customId);
      if (found) return found;
    }
    return undefined;
  }
  if (node === null || typeof node !== "object") return undefined;
  const record = node as Record<string, unknown>;
  if (record.custom_id === customId) return record;
  return findComponent(record.components, customId) ?? findComponent(record.component, customId);
}

export function invalidForm(error: z.ZodError): DiscordApiFailure {
  return new DiscordApiFailure(400, 50035, "Invalid Form Body", z.treeifyError(error));
}

export function parseOrFail<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidForm(parsed.error);
  return parsed.data;
}
