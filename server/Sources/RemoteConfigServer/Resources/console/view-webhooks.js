// Webhooks of a project (admins; docs/api.md "Webhooks"): the list, each with its recent deliveries; creation
// (the signing secret shown once), enable/disable, a test ping, secret rotation and deletion.

import { call, projectPath } from "./api.js";
import { button, confirmDialog, field, h, message, modal, newId, replace } from "./dom.js";
import { localTime } from "./local-time.js";
import { deliveriesList } from "./webhook-deliveries.js";
import { webhookForm } from "./webhook-form.js";


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

  // `focus` (CSS, in the list): where keyboard focus goes once redrawn, so it is not lost with the old buttons.
  const reload = async (focus = null) => {
    webhooks = (await call("GET", collection)).data.webhooks || [];
    render();
    const target = focus && list.querySelector(focus);
    if (target) target.focus();
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
      await reload(`[data-webhook="${CSS.escape(id)}"] button.toggle`);
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
    const edit = () => act(async () => {
      const saved = await modal(`Edit the webhook to ${webhook.url}`, (close) => webhookForm({
        prefix: "edit-webhook", initial: webhook, submitText: "Save", cancel: () => close(null),
        send: (body) => call("PATCH", path, { body }),
        done: (data) => close(data),
      }));
      if (!saved) return;
      replace(notice, message("success", `Saved the webhook to ${saved.url}.`));
      await reload(`[data-webhook="${CSS.escape(id)}"] button.edit`);
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
      webhook.enabled ? null : h("p", { class: "muted webhook-disabled-note" },
        "Disabled: new events are not sent to it; deliveries already queued, and test pings, wait until it is enabled again."),
      h("div", { class: "buttons start" },
        button("Send test ping", ping, { class: "primary ping", "aria-label": `Send a test ping to ${webhook.url}` }),
        button(webhook.enabled ? "Disable" : "Enable", toggle, { class: "toggle", "aria-label": `${webhook.enabled ? "Disable" : "Enable"} ${webhook.url}` }),
        button("Edit", edit, { class: "edit", "aria-label": `Edit the webhook to ${webhook.url}` }),
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
    notice, secretHolder, list, webhookForm({
      prefix: "webhook", title: "Add a webhook", submitText: "Add webhook",
      send: (body) => call("POST", collection, { body }),
      done: async (webhook) => {
        replace(notice);
        await reload();
        showSecret(webhook, false);
      },
    }));
  render();
}
