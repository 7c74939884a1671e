// Webhooks of a project (admins; docs/api.md "Webhooks"): the list, each with its recent deliveries; creation
// (the signing secret shown once), enable/disable, a test ping, secret rotation and deletion.

import { ApiError, call, projectPath } from "./api.js";
import { button, confirmDialog, field, h, message, newId, replace, select } from "./dom.js";
import { localTime } from "./local-time.js";
import { deliveriesList } from "./webhook-deliveries.js";

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

const idOf = (webhook) => webhook.name.replace(/^webhooks\//, "");

/** The "shown once" panel for a new signing secret, with a copy button. */
function secretPanel(webhook, rotated, dismiss) {
  const secret = h("input", { id: "webhook-secret", readOnly: true, value: webhook.secret, class: "secret", spellcheck: false, autocomplete: "off" });
  const copied = h("span", { class: "muted", id: "webhook-secret-copied", "aria-live": "polite" });
  return h("section", { class: "message success secret-panel", id: "webhook-secret-panel", "aria-labelledby": "webhook-secret-title" },
    h("div", { class: "secret-body" },
      h("h2", { id: "webhook-secret-title" }, rotated ? "New signing secret" : "Webhook created: its signing secret"),
      h("p", {}, h("strong", {}, "Copy it now: you will not see this secret again. "),
        `Receivers at ${webhook.url} check the RC-Webhook-Signature header with it`,
        rotated ? "; the previous secret keeps signing beside it for 24 hours, so receivers can switch at their pace." : "."),
      field("Signing secret", secret),
      h("div", { class: "buttons start" },
        button("Copy secret", async () => {
          try {
            await navigator.clipboard.writeText(webhook.secret);
            copied.textContent = "Copied.";
          } catch {
            secret.select();
            copied.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
          }
        }, { id: "copy-webhook-secret", class: "primary" }),
        button("I have saved it", dismiss, { id: "dismiss-webhook-secret" }),
        copied)));
}

/** Renders the Webhooks page of `project` into `view`. */
export async function webhooksView(view, { project, admin }) {
  if (!admin) {
    replace(view, message("info", "Only an admin can see and change this project's webhooks."));
    return;
  }
  const notice = h("div", { id: "webhooks-notice", "aria-live": "polite" });
  const secretHolder = h("div", { id: "webhook-secret-holder" });
  const list = h("div", { id: "webhooks" });
  const collection = projectPath(project, "/webhooks");
  let webhooks = (await call("GET", collection)).data.webhooks || [];

  const showSecret = (webhook, rotated) => {
    replace(secretHolder, secretPanel(webhook, rotated, () => {
      replace(secretHolder);
      const card = list.querySelector(`[data-webhook="${CSS.escape(idOf(webhook))}"] h3`);
      if (card) card.focus();
    }));
    const input = document.getElementById("webhook-secret");
    secretHolder.scrollIntoView({ block: "start" });
    input.focus();
    input.select();
  };

  const reload = async () => {
    webhooks = (await call("GET", collection)).data.webhooks || [];
    render();
  };

  const act = async (work) => {
    try {
      await work();
    } catch (error) {
      replace(notice, message("error", error.message));
    }
  };

  const card = (webhook) => {
    const id = idOf(webhook);
    const path = `${collection}/${encodeURIComponent(id)}`;
    const deliveries = deliveriesList(project, webhook, notice);
    const titleId = newId("webhook");
    const toggle = () => act(async () => {
      await call("PATCH", path, { body: { enabled: !webhook.enabled } });
      replace(notice, message("success", webhook.enabled
        ? `Disabled ${webhook.url}: it gets no new deliveries; those queued wait until it is enabled again.`
        : `Enabled ${webhook.url}: queued deliveries go out now.`));
      await reload();
    });
    const ping = (event) => act(async () => {
      const trigger = event.currentTarget;
      trigger.disabled = true;
      try {
        const { data } = await call("POST", `${path}:test`);
        replace(notice, message("success", `Test ping queued (delivery ${data.id}): its state shows below as it is sent.`));
        await deliveries.refresh();
      } finally {
        trigger.disabled = false;
      }
    });
    const rotate = () => act(async () => {
      if (!(await confirmDialog(`Rotate the secret of ${webhook.url}?`,
        "A new signing secret is made and shown once. For 24 hours every delivery is signed with both the new and the old one, so the receiver can switch without missing a delivery.",
        "Rotate secret"))) return;
      const { data } = await call("POST", `${path}:rotateSecret`);
      replace(notice);
      showSecret(data, true);
    });
    const remove = () => act(async () => {
      if (!(await confirmDialog(`Delete the webhook to ${webhook.url}?`,
        "It gets nothing more, and its delivery log goes with it. Deliveries not sent yet are dropped. This cannot be undone.",
        "Delete webhook", true))) return;
      await call("DELETE", path);
      replace(notice, message("success", `Deleted the webhook to ${webhook.url}.`));
      await reload();
    });
    const events = webhook.events.includes("*") ? [h("span", { class: "chip" }, "all events")]
      : webhook.events.map((event) => h("code", { class: "chip" }, event));
    const element = h("li", { class: "card webhook", dataset: { webhook: id }, "aria-labelledby": titleId },
      h("div", { class: "webhook-head" },
        h("div", { class: "webhook-title" },
          h("h3", { id: titleId, tabIndex: -1 }, h("code", { class: "webhook-url" }, webhook.url)),
          webhook.description ? h("div", { class: "description" }, webhook.description) : null),
        h("span", { class: `state ${webhook.enabled ? "state-delivered" : "state-off"} webhook-enabled` }, webhook.enabled ? "Enabled" : "Disabled")),
      h("dl", { class: "facts" },
        h("dt", {}, "Events"), h("dd", { class: "webhook-events" }, events),
        h("dt", {}, "Format"), h("dd", {}, webhook.format === "SLACK" ? "Slack message" : "JSON"),
        h("dt", {}, "Created"), h("dd", {}, localTime(webhook.createTime))),
      h("div", { class: "buttons start" },
        button("Send test ping", ping, { class: "primary ping", "aria-label": `Send a test ping to ${webhook.url}` }),
        button(webhook.enabled ? "Disable" : "Enable", toggle, { class: "toggle", "aria-label": `${webhook.enabled ? "Disable" : "Enable"} ${webhook.url}` }),
        button("Rotate secret", rotate, { class: "rotate", "aria-label": `Rotate the signing secret of ${webhook.url}` }),
        button("Delete", remove, { class: "danger delete", "aria-label": `Delete the webhook to ${webhook.url}` })),
      deliveries.element);
    deliveries.refresh();
    return element;
  };

  function render() {
    replace(list, webhooks.length
      ? h("ul", { class: "webhook-list" }, webhooks.map(card))
      : h("p", { class: "muted", id: "webhooks-empty" },
        "No webhooks yet. Add one below to tell Slack or your own systems about every change of this project."));
  }

  replace(view,
    h("p", { class: "muted" }, "A webhook receives a signed POST the moment a change of this project is committed: ",
      "a new version, a change request's progress, a rollout's steps. Failed deliveries are retried for 24 hours."),
    notice, secretHolder, list, createForm(collection, async (webhook) => {
      replace(notice);
      await reload();
      showSecret(webhook, false);
    }));
  render();
}

/** The "Add a webhook" form; `created(webhook)` gets the new webhook (with its secret). */
function createForm(collection, created) {
  const url = h("input", { id: "webhook-url", type: "url", autocomplete: "off", spellcheck: false, placeholder: "https://hooks.slack.com/services/…", "aria-required": "true" });
  const all = h("input", { type: "checkbox", id: "webhook-event-all", value: "*" });
  const boxes = EVENTS.map(([name]) => h("input", { type: "checkbox", id: `webhook-event-${name.replace(".", "-")}`, value: name, checked: name === "template.published" }));
  all.addEventListener("change", () => { for (const box of boxes) box.disabled = all.checked; });
  const format = select([["JSON", "JSON (for your own systems)"], ["SLACK", "Slack message (for a Slack incoming webhook)"]], "JSON", { id: "webhook-format" });
  const description = h("input", { id: "webhook-description", autocomplete: "off", maxLength: 500, placeholder: "Release channel in Slack" });
  const errors = {
    url: h("div", { class: "field-error", id: "webhook-url-error" }),
    events: h("div", { class: "field-error", id: "webhook-events-error" }),
    format: h("div", { class: "field-error", id: "webhook-format-error" }),
    description: h("div", { class: "field-error", id: "webhook-description-error" }),
    other: h("div", { id: "webhook-form-error" }),
  };
  const controls = { url, format, description };
  const eventsSet = h("fieldset", { id: "webhook-events", "aria-describedby": "webhook-events-error" },
    h("legend", {}, "Events"),
    h("div", { class: "check" }, all, h("label", { htmlFor: all.id }, h("strong", {}, "All events"), h("span", { class: "muted" }, " (*), including ones added later"))),
    h("div", { class: "event-grid" }, EVENTS.map(([name, text], i) => h("div", { class: "check" }, boxes[i],
      h("label", { htmlFor: boxes[i].id }, h("code", {}, name), h("span", { class: "muted event-when" }, text))))),
    errors.events);
  for (const [name, control] of Object.entries(controls)) control.setAttribute("aria-describedby", errors[name].id);
  const form = h("form", { class: "card", id: "create-webhook", noValidate: true },
    h("h2", {}, "Add a webhook"),
    h("div", { class: "field" }, h("label", { htmlFor: url.id }, "URL"), url,
      h("div", { class: "hint" }, "Where the POST goes: https:// (or http://). For Slack, the incoming webhook's URL."), errors.url),
    eventsSet,
    h("div", { class: "row" },
      h("div", { class: "field" }, h("label", { htmlFor: format.id }, "Format"), format, errors.format),
      h("div", { class: "field" }, h("label", { htmlFor: description.id }, "Description (optional)"), description, errors.description)),
    errors.other,
    h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary", id: "create-webhook-button" }, "Add webhook")));

  const clear = () => {
    for (const element of Object.values(errors)) replace(element);
    for (const control of [...Object.values(controls), eventsSet]) control.removeAttribute("aria-invalid");
  };
  // A refusal names its field (`url`, `events`, `events[2]`…): the message goes under that field.
  const showError = (error) => {
    const named = error instanceof ApiError ? error.details.find((detail) => detail.field) : null;
    const name = named ? named.field.replace(/\[\d+\]$/, "") : "";
    if (errors[name] && name !== "other") {
      replace(errors[name], h("span", { role: "alert" }, error.message));
      const target = controls[name] || eventsSet;
      target.setAttribute("aria-invalid", "true");
      (controls[name] || (all.checked ? all : boxes.find((b) => !b.disabled))).focus();
    } else {
      replace(errors.other, message("error", error.message));
    }
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clear();
    const events = all.checked ? ["*"] : boxes.filter((box) => box.checked).map((box) => box.value);
    const body = { url: url.value.trim(), events, format: format.value };
    if (description.value.trim()) body.description = description.value.trim();
    const submit = form.querySelector("#create-webhook-button");
    submit.disabled = true;
    try {
      const { data } = await call("POST", collection, { body });
      url.value = "";
      description.value = "";
      await created(data);
    } catch (error) {
      showError(error);
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}
