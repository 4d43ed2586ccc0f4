// A private form asking one price (in USD) for a listing: the Bid and Make offer buttons open one.
import { LabelBuilder, ModalBuilder, TextInputBuilder, TextInputStyle } from "discord.js";
import { parseId } from "../input/parse.ts";
import type { ComponentHandler } from "./command.ts";

const FORM_TTL_MS = 15 * 60_000;

export interface ListingPriceForm {
  /** The modal's action; its custom id carries the listing id as subject. */
  readonly action: string;
  /** The text input's custom id: the field the modal handler reads. */
  readonly field: string;
  title(listingId: string): string;
  readonly label: string;
  readonly description: string;
}

/** A button handler opening `form` for the listing named by the button's subject. */
export function openListingPriceForm(form: ListingPriceForm): ComponentHandler {
  return {
    // A form must be the first answer: nothing slow happens before it.
    defer: false,
    async run(ctx) {
      const listingId = parseId("listing", ctx.id.subject);
      await ctx.showModal(
        new ModalBuilder()
          .setCustomId(ctx.customId(form.action, listingId, { ttlMs: FORM_TTL_MS }))
          .setTitle(form.title(listingId))
          .addLabelComponents(
            new LabelBuilder()
              .setLabel(form.label)
              .setDescription(form.description)
              .setTextInputComponent(
                new TextInputBuilder()
                  .setCustomId(form.field)
                  .setStyle(TextInputStyle.Short)
                  .setRequired(true)
                  .setMaxLength(24)
                  .setPlaceholder("e.g. 12.50"),
              ),
          ),
      );
    },
  };
}
