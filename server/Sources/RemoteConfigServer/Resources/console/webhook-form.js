// The webhook form, for adding one (on the page) and editing one (in a dialog): URL, events as checkboxes
// ("All events" is `*`), format and description. A refusal is shown under the field it names (`url`, `events`,
// `events[2]`, `format`, `description`); anything else above the buttons.

import { ApiError } from "./api.js";
import { button, h, message, replace, select } from "./dom.js";

/** The events a webhook may ask for, as the API names them, with when each is sent. */
const EVENTS = [
  ["template.published", "A new version is published (publish, rollback, change request, schedule, store sync, rollout step)"],
  ["changeRequest.opened", "A change request is opened"],
  ["changeRequest.approved", "A change request is approved"],
  ["changeRequest.rejected", "A change request is rejected"],
  ["changeRequest.cancelled", "A change request is cancelled"],
  ["rollout.started", "A rollout starts"],
  ["rollout.halted", "A rollout is halted"],
  ["rollout.completed", "A rollout is completed"],
  ["storeSync.failed", "A store sync fails"],
  ["ping", "Test pings (“Send test ping” reaches every webhook whatever it asks for)"],
];

/**
 * The form. `prefix` makes the ids (`webhook-url`…); `initial` a webhook to edit (null: a new one, asking for
 * template.published); `send(body)` makes the call, `done(answer)` gets its data; `cancel` adds a Cancel button.
 */
export function webhookForm({ prefix, title = null, initial = null, submitText, send, done, cancel = null }) {
  const id = (name) => `${prefix}-${name}`;
  const chosen = initial ? initial.events : ["template.published"];
  const url = h("input", { id: id("url"), type: "url", autocomplete: "off", spellcheck: false, value: initial ? initial.url : "",
    placeholder: "https://hooks.slack.com/services/…", "aria-required": "true" });
  const all = h("input", { type: "checkbox", id: id("event-all"), value: "*", checked: chosen.includes("*") });
  // "All events" shows every box ticked (and locked); unticking it gives back the boxes as they were, or all
  // ticked for a webhook that had `*`, so narrowing it down means unticking what is not wanted.
  const boxes = EVENTS.map(([name]) => h("input", { type: "checkbox", id: id(`event-${name.replace(".", "-")}`), value: name,
    checked: chosen.includes("*") || chosen.includes(name), disabled: chosen.includes("*") }));
  let before = boxes.map((box) => box.checked);
  all.addEventListener("change", () => {
    if (all.checked) before = boxes.map((box) => box.checked);
    boxes.forEach((box, i) => {
      box.disabled = all.checked;
      box.checked = all.checked || before[i];
    });
  });
  const format = select([["JSON", "JSON (for your own systems)"], ["SLACK", "Slack message (for a Slack incoming webhook)"]],
    initial ? initial.format : "JSON", { id: id("format") });
  const description = h("input", { id: id("description"), autocomplete: "off", maxLength: 500, value: initial ? initial.description || "" : "",
    placeholder: "Release channel in Slack" });
  const error = (name) => h("div", { class: "field-error", id: id(`${name}-error`) });
  const errors = { url: error("url"), events: error("events"), format: error("format"), description: error("description"), other: h("div", { id: id("form-error") }) };
  const controls = { url, format, description };
  const eventsSet = h("fieldset", { id: id("events"), "aria-describedby": errors.events.id },
    h("legend", {}, "Events"),
    h("div", { class: "check" }, all, h("label", { htmlFor: all.id }, h("strong", {}, "All events"), h("span", { class: "muted" }, " (*), including ones added later"))),
    h("div", { class: "event-grid" }, EVENTS.map(([name, text], i) => h("div", { class: "check" }, boxes[i],
      h("label", { htmlFor: boxes[i].id }, h("code", {}, name), h("span", { class: "muted event-when" }, text))))),
    errors.events);
  for (const [name, control] of Object.entries(controls)) control.setAttribute("aria-describedby", errors[name].id);
  const submit = h("button", { type: "submit", class: "primary", id: title ? `create-${prefix}-button` : id("save") }, submitText);
  const form = h("form", { class: title ? "card" : null, id: title ? `create-${prefix}` : id("form"), noValidate: true },
    title ? h("h2", {}, title) : null,
    h("div", { class: "field" }, h("label", { htmlFor: url.id }, "URL"), url,
      h("div", { class: "hint" }, "Where the POST goes: https:// (or http://). For Slack, the incoming webhook's URL."), errors.url),
    eventsSet,
    h("div", { class: "row" },
      h("div", { class: "field" }, h("label", { htmlFor: format.id }, "Format"), format, errors.format),
      h("div", { class: "field" }, h("label", { htmlFor: description.id }, "Description (optional)"), description, errors.description)),
    errors.other,
    h("div", { class: "buttons" }, cancel ? button("Cancel", cancel) : null, submit));

  const clear = () => {
    for (const element of Object.values(errors)) replace(element);
    for (const control of [...Object.values(controls), eventsSet]) control.removeAttribute("aria-invalid");
  };
  const showError = (failure) => {
    const named = failure instanceof ApiError ? failure.details.find((detail) => detail.field) : null;
    const name = named ? named.field.replace(/\[\d+\]$/, "") : "";
    if (errors[name] && name !== "other") {
      replace(errors[name], h("span", { role: "alert" }, failure.message));
      (controls[name] || eventsSet).setAttribute("aria-invalid", "true");
      (controls[name] || (all.checked ? all : boxes.find((box) => !box.disabled))).focus();
    } else {
      replace(errors.other, message("error", failure.message));
    }
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clear();
    const events = all.checked ? ["*"] : boxes.filter((box) => box.checked).map((box) => box.value);
    const body = { url: url.value.trim(), events, format: format.value };
    if (description.value.trim() || initial) body.description = description.value.trim();
    submit.disabled = true;
    try {
      const { data } = await send(body);
      if (!initial) {
        url.value = "";
        description.value = "";
      }
      await done(data);
    } catch (failure) {
      showError(failure);
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}
