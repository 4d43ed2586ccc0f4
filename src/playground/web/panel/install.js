// "Installed to my account": a toggle for the acting user and the servers without the bot, where
// only an account install lets them use its commands (ADR 022).
import { el } from "../render.js";

/**
 * ctx: { api, me(), channelId(), openChannel(id), reloadCommands(), elsewhere: [{ id, name, channels }] }.
 * Adds its own section to the channel sidebar; returns { refresh() } to call after a user switch.
 */
export function mountInstalls(root, ctx) {
  const section = el("div", "install-section");
  const toggle = el("input", "");
  toggle.type = "checkbox";
  toggle.id = "account-install";
  const label = el("label", "channel small");
  label.htmlFor = toggle.id;
  label.title =
    "Install the app to this user's account: use it in servers without the bot and get alerts by DM";
  label.append(toggle, el("span", "channel-name", "Installed to my account"));
  const list = el("ul", "channel-list");
  list.id = "elsewhere-list";
  section.append(el("div", "section-title", "Servers without the bot"), list, label);
  root.append(section);
  // Another channel picked in the sidebar: this list's highlight follows.
  root.addEventListener("click", (event) => {
    if (!list.contains(event.target)) queueMicrotask(() => draw());
  });

  const draw = () => {
    list.replaceChildren();
    for (const guild of ctx.elsewhere) {
      for (const c of guild.channels) {
        const b = el("button", `channel${c.id === ctx.channelId() ? " active" : ""}`);
        b.type = "button";
        b.dataset.channel = c.name;
        b.title = `${guild.name}: commands here need "Installed to my account"`;
        b.append(el("span", "channel-icon", "#"), el("span", "channel-name", c.name));
        b.addEventListener("click", async () => {
          await ctx.openChannel(c.id);
          draw();
        });
        const item = el("li", "");
        item.append(b);
        list.append(item);
      }
    }
  };

  toggle.addEventListener("change", async () => {
    toggle.disabled = true;
    try {
      await ctx.api("/api/installs", { method: "POST", body: { user: ctx.me(), installed: toggle.checked } });
      await ctx.reloadCommands();
    } finally {
      toggle.disabled = false;
    }
  });

  return {
    async refresh() {
      const { installed } = await ctx.api(`/api/installs?user=${encodeURIComponent(ctx.me())}`);
      toggle.checked = installed;
      draw();
    },
  };
}
