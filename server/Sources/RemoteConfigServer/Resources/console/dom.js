// Small DOM helpers: elements built with properties (never HTML strings, so no value is ever parsed as
// markup), labelled fields, status messages and a modal confirmation.

let fieldCounter = 0;

/** `h("button", {type: "button", onclick}, "text", child…)`: an element with properties and children. */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "class") element.className = value;
    else if (name === "dataset") Object.assign(element.dataset, value);
    // `list` and `form` are read-only properties: only their attributes can be set.
    else if (name in element && !name.includes("-") && name !== "list" && name !== "form") element[name] = value;
    else element.setAttribute(name, value === true ? "" : value);
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces an element's children. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** A new id for a label's `for`. */
export function newId(prefix = "f") {
  fieldCounter += 1;
  return `${prefix}-${fieldCounter}`;
}

/** A labelled control: `<div class=field><label for=id>text</label>control hint</div>`. */
export function field(text, control, hint) {
  if (!control.id) control.id = newId();
  const parts = [h("label", { htmlFor: control.id }, text), control];
  if (hint) {
    const hintElement = h("div", { class: "hint", id: `${control.id}-hint` }, hint);
    control.setAttribute("aria-describedby", hintElement.id);
    parts.push(hintElement);
  }
  return h("div", { class: "field" }, parts);
}

/** A `<select>` with `[value, text]` options. */
export function select(options, value, props = {}) {
  const element = h("select", props);
  for (const option of options) {
    const [optionValue, text] = Array.isArray(option) ? option : [option, option];
    element.append(h("option", { value: optionValue, selected: optionValue === value }, text));
  }
  return element;
}

/** Shows a short message in the page's live region (read out by screen readers). */
export function announce(text, kind = "info") {
  const status = document.getElementById("status");
  replace(status, text ? h("div", { class: `message ${kind}` }, text) : null);
}

/** An inline message box; `actions` are buttons shown with it. */
export function message(kind, text, ...actions) {
  return h("div", { class: `message ${kind}`, role: kind === "error" ? "alert" : "status" },
    h("span", {}, text), actions.length ? h("span", { class: "actions" }, actions) : null);
}

/** A button. */
export function button(text, onclick, props = {}) {
  return h("button", { type: "button", onclick, ...props }, text);
}

/**
 * A modal dialog (`<dialog>`, so Escape closes it and focus stays inside). `build(close)` returns its content;
 * resolves with what `close(value)` was given (undefined when dismissed).
 */
export function modal(title, build) {
  return new Promise((resolve) => {
    const titleId = newId("dlg");
    const dialog = h("dialog", { class: "modal", "aria-labelledby": titleId });
    let result;
    const close = (value) => { result = value; dialog.close(); };
    dialog.addEventListener("close", () => { dialog.remove(); resolve(result); });
    dialog.append(h("h2", { id: titleId }, title), build(close));
    document.body.append(dialog);
    dialog.showModal();
  });
}

/** Asks for confirmation; resolves true only when confirmed. */
export function confirmDialog(title, text, confirmText = "Confirm", danger = false) {
  return modal(title, (close) => h("div", {},
    h("p", {}, text),
    h("div", { class: "buttons" },
      button("Cancel", () => close(false)),
      button(confirmText, () => close(true), { class: danger ? "danger" : "primary" }))))
    .then((value) => value === true);
}

/** A local time for an RFC 3339 timestamp. */
export function when(timestamp) {
  if (!timestamp) return "";
  const date = new Date(timestamp);
  return Number.isNaN(date.getTime()) ? timestamp : date.toLocaleString();
}

/** A local time to the minute, for times recorded to the minute (a key's last use). */
export function whenMinute(timestamp) {
  if (!timestamp) return "";
  const date = new Date(timestamp);
  return Number.isNaN(date.getTime()) ? timestamp : date.toLocaleString([], { dateStyle: "short", timeStyle: "short" });
}

/**
 * Who did something, as people read it: the person's email (or the key's name), with the key beside it so a
 * display name alone never stands for someone it is not. `actor` is `{user, email, key, displayName}`.
 */
export function actorLabel(actor) {
  if (!actor) return "the server";
  if (typeof actor === "string") return actor;
  // The key beside its name, as the command line shows it: two keys may carry names that look alike.
  const key = actor.key ? (actor.displayName ? `${actor.displayName} (${actor.key})` : actor.key) : null;
  if (actor.email) return key ? `${actor.email} via ${key}` : actor.email;
  return key || (actor.displayName ? `${actor.displayName} (the server)` : "the server");
}
