// Answers an interaction according to its state (reply, edit of a deferral, follow-up) and
// remembers how it was acknowledged, so handlers never pick the discord.js call themselves.
import {
  MessageFlags,
  type BaseMessageOptions,
  type MessageComponentInteraction,
  type ModalBuilder,
  type RepliableInteraction,
} from "discord.js";

/**
 * How the router answers before the handler runs. Anything that touches the marketplace or the
 * database must defer: Discord drops interactions not acknowledged within 3 seconds.
 */
export type DeferMode = "ephemeral" | "public" | false;
/** Components and modals may also defer as an update of the message they sit on. */
export type ComponentDeferMode = DeferMode | "update";

/** A message a handler returns or sends. Ephemeral messages are seen only by the user. */
export interface Reply extends Pick<BaseMessageOptions, "content" | "embeds" | "components" | "files"> {
  readonly ephemeral?: boolean;
}

/** New content for the message a component sits on. */
export type MessageUpdate = Pick<BaseMessageOptions, "content" | "embeds" | "components" | "files">;

type Acknowledged =
  "reply" | "deferred-ephemeral" | "deferred-public" | "deferred-update" | "update" | "modal";

/** Mentions are never pinged from bot replies: item names and user text may contain @everyone. */
const NO_MENTIONS = { parse: [] } as const;

export class Responder {
  private state: Acknowledged | undefined;
  private firstAt: number | undefined;
  private privateOnly = false;

  constructor(
    private readonly interaction: RepliableInteraction,
    private readonly onFirstResponse: (atMs: number) => void = () => undefined,
  ) {}

  /** True once Discord has been answered in any way. */
  get acknowledged(): boolean {
    return this.state !== undefined;
  }

  /** True while the user still waits for something: nothing sent, or a "thinking…" deferral. */
  get awaitingAnswer(): boolean {
    return (
      this.state === undefined || this.state === "deferred-ephemeral" || this.state === "deferred-public"
    );
  }

  /** True once a message answer exists that a follow-up can come after (not a modal). */
  get canFollowUp(): boolean {
    return this.state !== undefined && this.state !== "modal";
  }

  get firstResponseAt(): number | undefined {
    return this.firstAt;
  }

  /** From now on every answer is ephemeral: the app may not post publicly here (ADR 022). */
  keepPrivate(): void {
    this.privateOnly = true;
  }

  async defer(mode: ComponentDeferMode): Promise<void> {
    return this.deferAs(this.privateOnly && mode === "public" ? "ephemeral" : mode);
  }

  private async deferAs(mode: ComponentDeferMode): Promise<void> {
    if (mode === false || this.state) return;
    if (mode === "update") {
      await (this.interaction as MessageComponentInteraction).deferUpdate();
      this.mark("deferred-update");
      return;
    }
    await this.interaction.deferReply(mode === "ephemeral" ? { flags: MessageFlags.Ephemeral } : {});
    this.mark(mode === "ephemeral" ? "deferred-ephemeral" : "deferred-public");
  }

  async reply(reply: Reply): Promise<void> {
    const { ephemeral: asked = false, ...message } = reply;
    const ephemeral = asked || this.privateOnly;
    const flags = ephemeral ? MessageFlags.Ephemeral : undefined;
    const i = this.interaction;
    switch (this.state) {
      case undefined:
        await i.reply({ ...message, allowedMentions: NO_MENTIONS, ...(flags ? { flags } : {}) });
        this.mark("reply");
        return;
      case "deferred-ephemeral":
        await i.editReply({ ...message, allowedMentions: NO_MENTIONS });
        this.state = "reply";
        return;
      case "deferred-public":
        if (ephemeral) {
          // A public "thinking…" cannot turn private: remove it and answer privately instead.
          await i.deleteReply().catch(() => undefined);
          await i.followUp({ ...message, allowedMentions: NO_MENTIONS, flags: MessageFlags.Ephemeral });
        } else {
          await i.editReply({ ...message, allowedMentions: NO_MENTIONS });
        }
        this.state = "reply";
        return;
      default:
        await i.followUp({ ...message, allowedMentions: NO_MENTIONS, ...(flags ? { flags } : {}) });
    }
  }

  async followUp(reply: Reply): Promise<void> {
    if (!this.state) return this.reply(reply);
    const { ephemeral: asked = false, ...message } = reply;
    const ephemeral = asked || this.privateOnly;
    await this.interaction.followUp({
      ...message,
      allowedMentions: NO_MENTIONS,
      ...(ephemeral ? { flags: MessageFlags.Ephemeral } : {}),
    });
  }

  /** Edits the message a component (or a modal opened from one) sits on. */
  async update(update: MessageUpdate): Promise<void> {
    const i = this.interaction;
    if (this.state === undefined && (i.isMessageComponent() || (i.isModalSubmit() && i.isFromMessage()))) {
      await i.update({ ...update, allowedMentions: NO_MENTIONS });
      this.mark("update");
      return;
    }
    if (this.state === "deferred-update" || this.state === "update") {
      await i.editReply({ ...update, allowedMentions: NO_MENTIONS });
      this.state = "update";
      return;
    }
    if (i.isMessageComponent()) {
      await i.message.edit({ ...update, allowedMentions: NO_MENTIONS });
      return;
    }
    throw new Error("update() needs a component interaction or a modal opened from a message");
  }

  async showModal(modal: ModalBuilder): Promise<void> {
    if (this.state)
      throw new Error("a modal must be the first answer: declare the handler with defer: false");
    const i = this.interaction;
    if (!("showModal" in i)) throw new Error("this interaction cannot show a modal");
    await i.showModal(modal);
    this.mark("modal");
  }

  private mark(state: Acknowledged): void {
    this.state = state;
    if (this.firstAt === undefined) {
      this.firstAt = Date.now();
      this.onFirstResponse(this.firstAt);
    }
  }
}
