// "Watch similar" on alerts and listing views: the rule a listing suggests, shown, then saved with one
// press (Save rule), or after changing it in a form filled from the listing (Adjust…).
import { ButtonStyle, LabelBuilder, ModalBuilder, TextInputBuilder, TextInputStyle } from "discord.js";
import { z } from "zod";
import { describeFilters } from "../../src/watch/describeFilters.ts";
import type { RuleView } from "../../src/watch/rules.ts";
import {
  adjustSimilarRule,
  proposeSimilarRule,
  SimilarRuleSchema,
  type SimilarRule,
} from "../../src/watch/similarRule.ts";
import { WATCH_ACTIONS } from "../../src/discord/actions.ts";
import {
  modal,
  type BaseContext,
  type ComponentContext,
  type ComponentHandler,
  type ModalHandler,
} from "../../src/discord/command.ts";
import { embed } from "../../src/discord/render/embeds.ts";
import { truncate } from "../../src/discord/render/format.ts";
import { button, row } from "../../src/discord/render/button.ts";
import { UserFacingError } from "../../src/errors.ts";
import { parseId } from "../../src/input/parse.ts";

const DRAFT_KIND = "watch.like";
/** Long enough to look the rule over. */
const DRAFT_TTL_MS = 60 * 60_000;

const SimilarForm = z.object({
  name: z.string(),
  max_price: z.string(),
  float_range: z.string(),
  seeds: z.string(),
});

function gone(): UserFacingError {
  return new UserFacingError(
    "expired",
    "This proposal was already saved, or it expired; press Watch similar on the listing again.",
  );
}

/** The proposal as stored with its draft, read without taking it (the form may be cancelled). */
async function peekProposal(ctx: BaseContext, draftId: string): Promise<SimilarRule> {
  const proposal = await ctx.deps.drafts.peek(
    { discordId: ctx.user.id },
    { id: draftId, kind: DRAFT_KIND, schema: SimilarRuleSchema },
  );
  if (proposal === undefined) throw gone();
  return proposal;
}

/** Takes the proposal once: a second press or another replica finds nothing. */
async function takeProposal(ctx: BaseContext, draftId: string): Promise<SimilarRule> {
  const taken = await ctx.deps.drafts.take(
    { discordId: ctx.user.id },
    { id: draftId, kind: DRAFT_KIND, schema: SimilarRuleSchema },
  );
  if (!taken.ok) throw gone();
  return taken.payload;
}

function savedEmbed(rule: RuleView) {
  return embed({
    tone: "success",
    title: truncate(`Watching: ${rule.name}`, 256),
    description: `${rule.summary}\n\nAlerts go to your DMs. \`/watch edit rule:${truncate(rule.name, 50)}\` changes it.`,
  });
}

/** Shows the rule the listing suggests, with Save rule and Adjust…. Nothing is saved yet. */
export function openSimilar(): ComponentHandler {
  return {
    defer: "ephemeral",
    async run(ctx: ComponentContext) {
      const listingId = parseId("listing", ctx.id.subject);
      const market = await ctx.deps.reads.forUser(ctx.user.id);
      const { listing: _listing, ...proposal } = await proposeSimilarRule({ market }, { listingId });
      const draft = await ctx.deps.drafts.create(
        { discordId: ctx.user.id },
        { kind: DRAFT_KIND, payload: proposal, ttlMs: DRAFT_TTL_MS },
      );
      const ttl = { ttlMs: DRAFT_TTL_MS };
      return {
        ephemeral: true,
        embeds: [
          embed({
            tone: "info",
            title: truncate(`Watch things like this: ${proposal.name}`, 256),
            description:
              `${describeFilters(proposal.filters)}\n\nAlerts go to your DMs. **Save rule** saves it as shown; ` +
              "**Adjust…** changes its name, price, float range or seeds first.",
            footer: `From listing ${listingId}`,
          }),
        ],
        components: row([
          button("Save rule", ButtonStyle.Success, ctx.customId(WATCH_ACTIONS.similarSave, draft.id, ttl)),
          button("Adjust…", ButtonStyle.Secondary, ctx.customId(WATCH_ACTIONS.similarAdjust, draft.id, ttl)),
        ]),
      };
    },
  };
}

/** Save rule: the proposal as shown, saved under a free name. */
export function saveSimilar(): ComponentHandler {
  return {
    defer: "update",
    async run(ctx: ComponentContext) {
      const proposal = await takeProposal(ctx, ctx.id.subject);
      const rule = await ctx.deps.rules.saveSimilar({ discordId: ctx.user.id, proposal });
      await ctx.update({ embeds: [savedEmbed(rule)], components: [] });
    },
  };
}

const field = (id: keyof z.infer<typeof SimilarForm>, label: string, hint: string, value: string) =>
  new LabelBuilder()
    .setLabel(label)
    .setDescription(hint)
    .setTextInputComponent(
      new TextInputBuilder()
        .setCustomId(id)
        .setStyle(TextInputStyle.Short)
        .setRequired(false)
        .setMaxLength(id === "seeds" ? 600 : 60)
        .setValue(value),
    );

/** Adjust…: the form filled from the proposal (a database read only: the form must answer first). */
export function adjustSimilar(): ComponentHandler {
  return {
    defer: false,
    async run(ctx: ComponentContext) {
      const draftId = ctx.id.subject;
      const p = await peekProposal(ctx, draftId);
      const f = p.filters;
      const range =
        f.min_float === undefined && f.max_float === undefined
          ? ""
          : `${f.min_float ?? ""}-${f.max_float ?? ""}`;
      await ctx.showModal(
        new ModalBuilder()
          .setCustomId(ctx.customId(WATCH_ACTIONS.similarForm, draftId, { ttlMs: DRAFT_TTL_MS }))
          .setTitle("Watch things like this")
          .addLabelComponents(
            field("name", "Rule name", "Up to 50 characters.", [...p.name].slice(0, 50).join("")),
            field(
              "max_price",
              "Max price (USD)",
              "Empty: no ceiling.",
              f.max_price === undefined ? "" : (f.max_price / 100).toFixed(2),
            ),
            field("float_range", "Float range", 'e.g. "0.01-0.07"; empty: any float.', range),
            field(
              "seeds",
              "Pattern seeds",
              "e.g. 661, 670; empty: any seed.",
              (f.paint_seeds ?? []).join(", "),
            ),
          ),
      );
    },
  };
}

/** The form's submission: the adjusted proposal saved (the draft taken once). */
export function similarFormSubmit(): ModalHandler {
  return modal({
    defer: "ephemeral",
    fields: SimilarForm,
    async run(ctx, form) {
      // Checked before the draft is taken: a typo in the form leaves the proposal to fix and resend.
      const adjusted = adjustSimilarRule(await peekProposal(ctx, ctx.id.subject), form);
      await takeProposal(ctx, ctx.id.subject);
      const rule = await ctx.deps.rules.saveSimilar({ discordId: ctx.user.id, proposal: adjusted });
      return { ephemeral: true, embeds: [savedEmbed(rule)] };
    },
  });
}
