// The page's icons drawn as inline SVG: emoji glyphs show as empty boxes on machines without an emoji font.
const SVG = "http://www.w3.org/2000/svg";

/** Each icon: a 24x24 view box and its paths (filled with the text colour). */
const PATHS = {
  // A speaker with two sound waves: voice channels.
  speaker: [
    "M3 9v6h4l5 4V5L7 9H3z",
    "M14.5 8.2a5 5 0 0 1 0 7.6l-1.3-1.5a3 3 0 0 0 0-4.6z",
    "M16.9 5.2a9 9 0 0 1 0 13.6l-1.3-1.5a7 7 0 0 0 0-10.6z",
  ],
  // An open eye: "Only you can see this".
  eye: [
    "M12 5C6.5 5 2.7 9.1 1.5 12c1.2 2.9 5 7 10.5 7s9.3-4.1 10.5-7C21.3 9.1 17.5 5 12 5zm0 11.5a4.5 4.5 0 1 1 0-9 4.5 4.5 0 0 1 0 9z",
    "M12 9.5a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5z",
  ],
  // A page with a folded corner: attached files.
  file: ["M6 2h8l6 6v14H6zm8 1.5V9h5.5z"],
};

/** An inline SVG icon of `name` in a span of class `className`, labelled for screen readers. */
export function icon(name, className, label) {
  const span = document.createElement("span");
  if (className) span.className = className;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "1em");
  svg.setAttribute("height", "1em");
  svg.setAttribute("fill", "currentColor");
  svg.setAttribute("class", "icon");
  svg.dataset.icon = name;
  if (label) {
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", label);
  } else {
    svg.setAttribute("aria-hidden", "true");
  }
  for (const d of PATHS[name] ?? []) {
    const path = document.createElementNS(SVG, "path");
    path.setAttribute("d", d);
    svg.append(path);
  }
  span.append(svg);
  return span;
}
