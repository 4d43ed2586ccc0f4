// What pressing a message's button or choosing in its menu does: a real component interaction, with Discord's spinner and failure line.

/** Discord keeps a pressed button spinning until the bot edits the message; give up after this. */
const SPINNER_LIMIT_MS = 15_000;

/**
 * @param {object} ctx api, me(), openModal()
 * @returns pressComponent(message, customId, values, control): a button press or a menu choice, sent as an interaction
 */
export function createPresser(ctx) {
  return async function pressComponent(message, customId, values, control) {
    const article = document.querySelector(`article.msg[data-id="${CSS.escape(message.id)}"]`);
    const error = article?.querySelector(".interaction-error");
    if (error) error.textContent = "";
    control.classList.add("pending");
    control.disabled = true;
    const release = () => {
      control.classList.remove("pending");
      control.disabled = false;
    };
    try {
      const answer = await ctx.api("/api/interactions/component", {
        method: "POST",
        body: { user: ctx.me(), messageId: message.id, customId, ...(values ? { values } : {}) },
      });
      if (!answer.ok) {
        release();
        if (error) error.textContent = "This interaction failed";
        return;
      }
      if (answer.type === 9) ctx.openModal(answer.data);
      // A deferred update ends when the bot edits the message, which redraws it without the spinner.
      if (answer.type === 6) setTimeout(release, SPINNER_LIMIT_MS);
      else release();
    } catch (failure) {
      release();
      if (error) error.textContent = failure.message;
    }
  };
}
