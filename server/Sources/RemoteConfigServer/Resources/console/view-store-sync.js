// Store sync: the project's link to its App Store listing (`…/storeSync`), how the last sync went, when the next
// one is due, "Sync now" (editors, `…/storeSync:run`), and the link's settings (admins create and edit it); then
// the same for Google Play (view-google-play.js).

import { call, projectPath } from "./api.js";
import { button, field, h, message, replace, select, when } from "./dom.js";
import { googlePlayView } from "./view-google-play.js";

/** The store listing's fields a link may copy, as API.md names them, with what they are. */
const FIELDS = [
  ["version", "Version in the store"],
  ["trackViewUrl", "Store page URL"],
  ["minimumOsVersion", "Minimum OS version"],
  ["releaseNotes", "Release notes"],
  ["currentVersionReleaseDate", "Release date of that version"],
];

/** Members of an answer that describe the last sync, never sent back as settings. */
const STATUS = new Set(["lastSyncTime", "lastStoreVersion", "lastError", "consecutiveFailures", "nextSyncTime",
  "updateTime", "pendingStoreVersion", "pendingUntil", "result", "publishedVersionNumber", "changeRequest"]);

/** Every STRING parameter of a template (top level and in groups): the only possible targets. */
function stringParameters(template) {
  const all = { ...(template.parameters || {}) };
  for (const group of Object.values(template.parameterGroups || {})) Object.assign(all, group.parameters || {});
  return Object.entries(all).filter(([, parameter]) => (parameter.valueType || "STRING") === "STRING").map(([key]) => key).sort();
}

function dl(rows) {
  return h("dl", { class: "facts" }, rows.filter(Boolean).map(([term, value, props = {}]) =>
    [h("dt", {}, term), h("dd", props, value)]));
}

/** What a sync's answer means, in a sentence. */
function outcome(answer) {
  const store = answer.lastStoreVersion ? `the store shows ${answer.lastStoreVersion}` : "the store was read";
  switch (answer.result) {
    case "PUBLISHED": return message("success", `Synced: ${store}; published version ${answer.publishedVersionNumber}.`);
    case "CHANGE_REQUEST": return message("success", `Synced: ${store}; proposed as ${answer.changeRequest} (this project publishes through approved change requests).`);
    case "UNCHANGED": return message("info", `Synced: ${store}, which the parameters already say; nothing to publish.`);
    case "FAILED": return message("error", `The sync failed, nothing changed: ${answer.lastError || "no reason given"}.`);
    default: return message("info", "Synced.");
  }
}

/** Renders the store sync page of `project` into `view`. */
export async function storeSyncView(view, { project, editable, admin }) {
  const notice = h("div", { id: "store-sync-notice", "aria-live": "polite" });
  const statusCard = h("section", { class: "card", id: "store-sync-status", "aria-labelledby": "store-sync-status-title" });
  const settingsCard = h("div", {});
  const [{ data: first }, { data: template }] = await Promise.all([
    call("GET", projectPath(project, "/storeSync")),
    call("GET", projectPath(project, "/remoteConfig")),
  ]);
  let link = first;
  const targets = stringParameters(template || {});

  const showStatus = () => {
    const linked = Boolean(link.appStoreId);
    const next = !linked ? "" : link.enabled ? when(link.nextSyncTime) || "due now" : "not scheduled: the link is off";
    replace(statusCard,
      h("h2", { id: "store-sync-status-title" }, "App Store"),
      linked ? dl([
        ["App", `App Store id ${link.appStoreId}, ${String(link.country || "").toUpperCase()} storefront`, { id: "store-sync-app" }],
        ["Syncing", link.enabled ? `on, every ${duration(link.intervalSeconds)}` : "off: only “Sync now” reads the store", { id: "store-sync-enabled" }],
        ["Last sync", when(link.lastSyncTime) || "never", { id: "store-sync-last" }],
        ["Store version", link.lastStoreVersion || "not read yet", { id: "store-sync-version" }],
        link.pendingStoreVersion ? ["Waiting", `version ${link.pendingStoreVersion}, published after ${when(link.pendingUntil)}`, { id: "store-sync-pending" }] : null,
        ["Last error", link.lastError || "none", { id: "store-sync-error", class: link.lastError ? "error-text" : null }],
        ["Next sync", next, { id: "store-sync-next" }],
      ]) : h("p", { class: "muted", id: "store-sync-none" },
        admin ? "Not linked to the App Store yet: fill in the settings below." : "Not linked to the App Store yet; an admin can link it."),
      editable && linked ? h("div", { class: "buttons" }, button("Sync now", syncNow, { class: "primary sync-now", id: "sync-now" })) : null);
  };

  const syncNow = async (event) => {
    const trigger = event.currentTarget;
    trigger.disabled = true;
    replace(notice, message("info", "Reading the App Store…"));
    try {
      const { data } = await call("POST", projectPath(project, "/storeSync:run"));
      link = data;
      replace(notice, outcome(data));
      showStatus();
      showSettings();
    } catch (error) {
      replace(notice, message("error", error.message));
      trigger.disabled = false;
    }
  };

  const showSettings = () => {
    const enabled = h("input", { type: "checkbox", id: "store-sync-enabled-input", checked: link.appStoreId ? link.enabled : true, disabled: !admin });
    const appStoreId = h("input", { id: "store-sync-app-id", value: link.appStoreId || "", inputMode: "numeric", autocomplete: "off", placeholder: "123456789", disabled: !admin });
    const country = h("input", { id: "store-sync-country", value: link.country || "us", maxLength: 2, autocomplete: "off", disabled: !admin });
    const interval = h("input", { id: "store-sync-interval", type: "number", min: 1, value: link.intervalSeconds || 3600, disabled: !admin });
    const autoApprove = h("input", { type: "checkbox", id: "store-sync-auto-approve", checked: Boolean(link.autoApprove), disabled: !admin });
    const mapped = link.parameters || {};
    const mapping = FIELDS.map(([name, text]) => {
      const current = Object.keys(mapped).find((key) => mapped[key] === name) || "";
      const control = select([["", "(not copied)"], ...targets.map((key) => [key, key])], current,
        { id: `store-sync-map-${name}`, disabled: !admin });
      return { name, control, element: field(text, control) };
    });
    const errors = h("div", { id: "store-sync-errors" });
    const form = h("form", { class: "card", id: "store-sync-form" },
      h("h2", {}, "App Store settings"),
      h("div", { class: "check" }, enabled, h("label", { htmlFor: enabled.id }, "Sync on a schedule (saving then syncs at once)")),
      h("div", { class: "row" },
        field("App Store id", appStoreId, "The digits after “id” in the app's App Store URL"),
        field("Storefront", country, "Two letters: us, jp, gb…"),
        field("Sync every (seconds)", interval, "3600 is hourly")),
      h("fieldset", {}, h("legend", {}, "Copy into parameters"),
        h("p", { class: "hint" }, targets.length
          ? "Each store field can fill one STRING parameter of the published template; the others stay yours."
          : "The published template has no STRING parameter yet: publish one (say current_version) first."),
        h("div", { class: "row" }, mapping.map((item) => item.element))),
      h("div", { class: "check" }, autoApprove, h("label", { htmlFor: autoApprove.id }, "Approve the change requests it opens, where the project requires approval")),
      errors,
      admin ? h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary", id: "store-sync-save" }, link.appStoreId ? "Save" : "Link to the App Store"))
        : h("p", { class: "muted" }, "Only an admin can change the link."));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const parameters = {};
      for (const item of mapping) if (item.control.value) parameters[item.control.value] = item.name;
      // Settings this page does not edit (added by a newer server) go back as they were.
      const body = Object.fromEntries(Object.entries(link).filter(([name]) => !STATUS.has(name)));
      Object.assign(body, {
        enabled: enabled.checked, appStoreId: appStoreId.value.trim(), country: country.value.trim(),
        intervalSeconds: Number(interval.value), parameters, autoApprove: autoApprove.checked,
      });
      try {
        const { data } = await call("PUT", projectPath(project, "/storeSync"), { body });
        link = data;
        replace(notice, message("success", data.enabled
          ? "Saved. The server syncs it now, then on schedule: the status below follows."
          : "Saved. Syncing is off: “Sync now” reads the store when you ask."));
        showStatus();
        showSettings();
        if (data.enabled) refresh(data.lastSyncTime, 6);
      } catch (error) {
        const fields = error.details.map((detail) => detail.field).filter(Boolean);
        replace(errors, message("error", fields.length ? `${error.message} (${fields.join(", ")})` : error.message));
      }
    });
    replace(settingsCard, form);
  };

  // After a save that syncs in the background, show its outcome without a reload: read the status again a few
  // times, until the sync has happened.
  const refresh = async (before, tries) => {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (!view.isConnected || tries <= 0) return;
    try {
      link = (await call("GET", projectPath(project, "/storeSync"))).data;
      showStatus();
      if (link.lastSyncTime === before) refresh(before, tries - 1);
    } catch {
      // The status stays as it was; the next visit reads it again.
    }
  };

  const googlePlay = h("section", { id: "store-sync-google-play", class: "store" });
  replace(view,
    h("p", { class: "muted" }, "The server reads the app's store listings and publishes a new version when a store shows a new one, ",
      "copying the fields you choose into their parameters. The decisions (who must update) stay in your conditions."),
    h("section", { id: "store-sync-app-store", class: "store" }, notice, statusCard, settingsCard),
    googlePlay);
  showStatus();
  showSettings();
  await googlePlayView(googlePlay, { project, editable, admin });
}

/** Seconds as people say them. */
function duration(seconds) {
  if (seconds % 86400 === 0) return seconds === 86400 ? "day" : `${seconds / 86400} days`;
  if (seconds % 3600 === 0) return seconds === 3600 ? "hour" : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? "minute" : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}
