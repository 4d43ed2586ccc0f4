// The one place buttons are made: a button, a row of them, Previous/Next paging, and the ids of
// buttons on delivered DMs. Every render and command builds its buttons here.
import {
  ButtonStyle,
  ComponentType,
  type APIActionRowComponent,
  type APIButtonComponentWithCustomId,
  type APIComponentInMessageActionRow,
} from "discord.js";
import { encodeCustomId } from "../customId.ts";

export type ActionRow = APIActionRowComponent<APIComponentInMessageActionRow>;

/** Makes the custom id of a button or menu: `(action, subject) => ctx.customId(action, subject, …)`. */
export type IdFor = (action: string, subject: string) => string;

type Style = ButtonStyle.Primary | ButtonStyle.Secondary | ButtonStyle.Success | ButtonStyle.Danger;

/** A button; `disabled`, when given, is stated either way (paging buttons say whether they work). */
export function button(
  label: string,
  style: Style,
  customId: string,
  disabled?: boolean,
): APIButtonComponentWithCustomId {
  return {
    type: ComponentType.Button,
    style,
    label,
    custom_id: customId,
    ...(disabled === undefined ? {} : { disabled }),
  };
}

/** One row of at most five buttons, or no row at all. */
export function row(buttons: readonly APIButtonComponentWithCustomId[]): ActionRow[] {
  return buttons.length === 0 ? [] : [{ type: ComponentType.ActionRow, components: buttons.slice(0, 5) }];
}

export interface Paging {
  readonly previousId: string;
  readonly nextId: string;
  readonly hasPrevious: boolean;
  readonly hasNext: boolean;
}

/** Previous/Next, or nothing when everything fits on one page. */
export function pagingRow(p: Paging | undefined): ActionRow[] {
  if (!p || (!p.hasPrevious && !p.hasNext)) return [];
  return row([
    button("◀ Previous", ButtonStyle.Secondary, p.previousId, !p.hasPrevious),
    button("Next ▶", ButtonStyle.Secondary, p.nextId, !p.hasNext),
  ]);
}

/**
 * Ids for the buttons of a delivered DM: owned by its user and never expiring, since the DM stays
 * after any restart (no interaction is at hand to make them with `ctx.customId`).
 */
export function dmIds(ownerId: string): IdFor {
  return (action, subject) => encodeCustomId({ action, subject, owner: ownerId });
}
