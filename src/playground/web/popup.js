// The composer's suggestion list (commands, or the bot's autocomplete choices): shown above the box, driven by keys.
import { el } from "./render.js";

/**
 * @param {HTMLElement} parent where the list lives (the composer form)
 * @returns the list's controls; `key(event)` is true when the list used the key
 */
export function createPopup(parent) {
  const popup = el("div", "composer-popup");
  popup.hidden = true;
  popup.setAttribute("role", "listbox");
  parent.append(popup);
  let items = [];
  let highlighted = 0;
  /** The control whose list is shown: a late blur of another control must not close it. */
  let owner;

  const close = () => {
    popup.hidden = true;
    popup.replaceChildren();
    items = [];
    owner = undefined;
  };

  const highlight = (index) => {
    const rows = popup.querySelectorAll(".popup-item");
    if (rows.length === 0) return;
    highlighted = (index + rows.length) % rows.length;
    rows.forEach((row, i) => row.classList.toggle("highlighted", i === highlighted));
    rows[highlighted].scrollIntoView({ block: "nearest" });
  };

  /**
   * `query`: which text the list answers (autocomplete), so the page and its tests can tell a stale
   * list apart; `by`: the control the list belongs to.
   */
  const show = (title, list, query, by) => {
    popup.replaceChildren();
    owner = by;
    if (query === undefined) delete popup.dataset.query;
    else popup.dataset.query = query;
    items = list;
    highlighted = 0;
    if (list.length === 0) {
      close();
      return;
    }
    popup.append(el("div", "popup-title", title));
    list.forEach((item, index) => {
      const row = el("div", "popup-item");
      row.setAttribute("role", "option");
      row.dataset.value = item.key;
      row.append(el("span", "popup-item-name", item.name));
      if (item.description) row.append(el("span", "popup-item-description", item.description));
      row.addEventListener("mousedown", (event) => {
        // Keep the input's focus: a click should pick, not blur first.
        event.preventDefault();
        item.pick();
      });
      row.addEventListener("mousemove", () => highlight(index));
      popup.append(row);
    });
    popup.hidden = false;
    highlight(0);
  };

  /** Arrow keys, Enter/Tab and Escape inside an open list; true when the key was used. */
  const key = (event) => {
    if (popup.hidden || items.length === 0) return false;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      highlight(highlighted + (event.key === "ArrowDown" ? 1 : -1));
      return true;
    }
    if (event.key === "Enter" || event.key === "Tab") {
      event.preventDefault();
      items[highlighted]?.pick();
      return true;
    }
    if (event.key === "Escape") {
      event.preventDefault();
      close();
      return true;
    }
    return false;
  };

  /** Closes the list if it is `control`'s (after that control lost the focus). */
  const closeFor = (control) => {
    if (owner === control) close();
  };

  return { show, close, closeFor, key, isOpen: () => !popup.hidden };
}
