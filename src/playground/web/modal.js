// The bot's modals (forms): drawn from the interaction response, submitted as a real modal interaction.
import { avatar, el } from "./render.js";

const $ = (id) => document.getElementById(id);

/** The text inputs of a modal, whether wrapped in labels (type 18) or in action rows. */
function modalInputs(modal) {
  const inputs = [];
  for (const row of modal.components ?? []) {
    if (row.type === 18 && row.component) {
      inputs.push({ label: row.label, description: row.description, input: row.component });
    } else if (row.type === 1) {
      for (const input of row.components ?? [])
        inputs.push({ label: input.label, description: undefined, input });
    } else if (row.type === 10) {
      inputs.push({ text: row.content });
    }
  }
  return inputs;
}

/**
 * @param {object} ctx api, me(), bot()
 * @returns openModal(modal): shows a modal the bot answered with (type 9) and submits it
 */
export function createModals(ctx) {
  const openModal = (modal) => {
    const root = $("modal-root");
    root.replaceChildren();
    const backdrop = el("div", "modal-backdrop");
    const dialog = el("form", "modal");
    dialog.setAttribute("role", "dialog");
    dialog.setAttribute("aria-modal", "true");
    dialog.setAttribute("aria-label", modal.title ?? "Form");
    const header = el("div", "modal-header");
    header.append(avatar(ctx.bot(), "small"), el("h2", "modal-title", modal.title ?? "Form"));
    dialog.append(header);
    const body = el("div", "modal-body");
    const fields = [];
    for (const item of modalInputs(modal)) {
      if (item.text !== undefined) {
        body.append(el("p", "modal-text", item.text));
        continue;
      }
      const { input } = item;
      if (input.type !== 4) {
        body.append(el("p", "muted small", "(a component the playground does not show)"));
        continue;
      }
      const required = input.required !== false;
      const wrap = el("label", "modal-field");
      const label = el("span", "modal-label", item.label ?? input.custom_id);
      if (required) label.append(el("span", "required-star", " *"));
      wrap.append(label);
      if (item.description) wrap.append(el("span", "modal-description", item.description));
      const control = el(input.style === 2 ? "textarea" : "input", "modal-input");
      control.name = input.custom_id;
      control.dataset.customId = input.custom_id;
      if (input.placeholder) control.placeholder = input.placeholder;
      if (input.value) control.value = input.value;
      control.required = required;
      if (input.min_length !== undefined) control.minLength = input.min_length;
      if (input.max_length !== undefined) control.maxLength = input.max_length;
      wrap.append(control);
      body.append(wrap);
      fields.push(control);
    }
    const error = el("div", "modal-error");
    error.setAttribute("role", "alert");
    body.append(error);
    const footer = el("div", "modal-footer");
    const cancel = el("button", "link-button", "Cancel");
    cancel.type = "button";
    const submit = el("button", "btn btn-primary", "Submit");
    submit.type = "submit";
    footer.append(cancel, submit);
    dialog.append(body, footer);
    const close = () => root.replaceChildren();
    cancel.addEventListener("click", close);
    backdrop.addEventListener("click", (event) => event.target === backdrop && close());
    dialog.addEventListener("keydown", (event) => event.key === "Escape" && close());
    dialog.addEventListener("submit", async (event) => {
      event.preventDefault();
      submit.disabled = true;
      try {
        const answer = await ctx.api("/api/interactions/modal", {
          method: "POST",
          body: {
            user: ctx.me(),
            customId: modal.custom_id,
            fields: Object.fromEntries(fields.map((f) => [f.name, f.value])),
          },
        });
        if (!answer.ok) {
          error.textContent = "Something went wrong: the application did not respond.";
          submit.disabled = false;
          return;
        }
        close();
        if (answer.type === 9) openModal(answer.data);
      } catch (failure) {
        error.textContent = failure.message;
        submit.disabled = false;
      }
    });
    backdrop.append(dialog);
    root.append(backdrop);
    (fields[0] ?? submit).focus();
  };
  return openModal;
}
