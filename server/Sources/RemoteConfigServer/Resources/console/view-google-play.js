// Store sync, Google Play half: the project's link to its app on Google Play (`…/storeSync/googlePlay`), the live
// release the last sync read, how it went (errors in Google's words made plain by the server), "Sync now"
// (editors), and the settings with the service account's key (admins; the key goes in and never comes back).

import { call, projectPath } from "./api.js";
import { button, field, h, message, replace, select, when } from "./dom.js";

/** The release fields a link may copy, with the parameter types each may go into. */
const FIELDS = [
  ["versionName", "Version name (the release's name)", ["STRING"]],
  ["versionCode", "Version code (the highest of the release)", ["NUMBER", "STRING"]],
  ["inAppUpdatePriority", "In-app update priority (0–5)", ["NUMBER", "STRING"]],
  ["userFraction", "Share of users (staged rollout)", ["NUMBER", "STRING"]],
  ["releaseNotes", "Release notes (en-US, else the first)", ["STRING"]],
];

/** Members of an answer that are status, never sent back as settings. */
const STATUS = new Set(["serviceAccount", "lastSyncTime", "liveRelease", "lastError", "consecutiveFailures",
  "nextSyncTime", "updateTime", "result", "publishedVersionNumber", "changeRequest"]);

/** Every parameter of a template (top level and in groups) with its type. */
function parameterTypes(template) {
  const all = { ...(template.parameters || {}) };
  for (const group of Object.values(template.parameterGroups || {})) Object.assign(all, group.parameters || {});
  return Object.entries(all).map(([key, parameter]) => [key, parameter.valueType || "STRING"]).sort(([a], [b]) => a.localeCompare(b));
}

function dl(rows) {
  return h("dl", { class: "facts" }, rows.filter(Boolean).map(([term, value, props = {}]) =>
    [h("dt", {}, term), h("dd", props, value)]));
}

/** The live release as people say it: "2.3.0 (versionCode 230), completed". */
export function releaseText(release) {
  if (!release) return "not read yet";
  const state = release.status === "inProgress"
    ? `staged rollout to ${Math.round((release.userFraction || 0) * 100)}% of users` : "completed: every user can get it";
  return `${release.name || "unnamed"} (versionCode ${release.versionCode}), ${state}`;
}

/** What a sync's answer means, in a sentence. */
function outcome(answer) {
  const live = answer.liveRelease ? `the live release is ${releaseText(answer.liveRelease)}` : "the track was read";
  switch (answer.result) {
    case "PUBLISHED": return message("success", `Synced: ${live}; published version ${answer.publishedVersionNumber}.`);
    case "CHANGE_REQUEST": return message("success", `Synced: ${live}; proposed as ${answer.changeRequest} (this project publishes through approved change requests).`);
    case "UNCHANGED": return message("info", `Synced: ${live}, which the parameters already say; nothing to publish.`);
    case "NOT_LIVE": return message("info", `Synced: ${answer.lastError || "the track has no live release"}.`);
    case "FAILED": return message("error", `The sync failed, nothing changed: ${answer.lastError || "no reason given"}.`);
    default: return message("info", "Synced.");
  }
}

/** The last outcome as the status shows it. */
function lastOutcome(link) {
  if (!link.lastSyncTime) return "no sync yet";
  if (link.consecutiveFailures > 0) return `failed (${link.consecutiveFailures} in a row; retried with a growing wait)`;
  return link.lastError ? "synced, with a note below" : "synced";
}

/** Renders the Google Play half of the store sync page of `project` into `section`. */
export async function googlePlayView(section, { project, editable, admin }) {
  const notice = h("div", { id: "play-notice", "aria-live": "polite" });
  const statusCard = h("section", { class: "card", id: "play-status", "aria-labelledby": "play-status-title" });
  const settingsCard = h("div", {});
  const [{ data: first }, { data: template }] = await Promise.all([
    call("GET", projectPath(project, "/storeSync/googlePlay")),
    call("GET", projectPath(project, "/remoteConfig")),
  ]);
  let link = first;
  const parameters = parameterTypes(template || {});
  const conditions = ((template || {}).conditions || []).map((condition) => condition.name);

  const showStatus = () => {
    const linked = Boolean(link.packageName);
    const next = !linked ? "" : link.enabled ? when(link.nextSyncTime) || "due now" : "not scheduled: the link is off";
    replace(statusCard,
      h("h2", { id: "play-status-title" }, "Google Play"),
      linked ? dl([
        ["App", `${link.packageName}, ${link.track} track`, { id: "play-app" }],
        ["Service account", link.serviceAccount ? link.serviceAccount.clientEmail : "none", { id: "play-account" }],
        ["Syncing", link.enabled ? `on, every ${duration(link.intervalSeconds)}` : "off: only “Sync now” reads Google Play", { id: "play-enabled" }],
        ["Live release", releaseText(link.liveRelease), { id: "play-release" }],
        ["Counts as live", link.stagedRollouts === "ANY_LIVE" ? "a completed release, or a staged rollout in progress" : "completed releases only", { id: "play-staged" }],
        ["Last sync", when(link.lastSyncTime) || "never", { id: "play-last" }],
        ["Last outcome", lastOutcome(link), { id: "play-outcome" }],
        ["Last error", link.lastError || "none", { id: "play-error", class: link.lastError ? "error-text" : null }],
        ["Next sync", next, { id: "play-next" }],
      ]) : h("p", { class: "muted", id: "play-none" },
        admin ? "Not linked to Google Play yet: fill in the settings below." : "Not linked to Google Play yet; an admin can link it."),
      editable && linked ? h("div", { class: "buttons" }, button("Sync now", syncNow, { class: "primary sync-now", id: "play-sync-now" })) : null);
  };

  const syncNow = async (event) => {
    const trigger = event.currentTarget;
    trigger.disabled = true;
    replace(notice, message("info", "Reading Google Play…"));
    try {
      const { data } = await call("POST", projectPath(project, "/storeSync/googlePlay:run"));
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
    const linked = Boolean(link.packageName);
    const enabled = h("input", { type: "checkbox", id: "play-enabled-input", checked: linked ? link.enabled : true, disabled: !admin });
    const packageName = h("input", { id: "play-package", value: link.packageName || "", autocomplete: "off", placeholder: "com.example.app", disabled: !admin });
    const track = h("input", { id: "play-track", value: link.track || "production", autocomplete: "off", disabled: !admin });
    const interval = h("input", { id: "play-interval", type: "number", min: 60, value: link.intervalSeconds || 3600, disabled: !admin });
    const staged = select([["COMPLETED_ONLY", "Completed releases only"], ["ANY_LIVE", "A staged rollout counts too"]],
      link.stagedRollouts || "COMPLETED_ONLY", { id: "play-staged-input", disabled: !admin });
    const condition = select([["", "(none: the default values)"], ...conditions.map((name) => [name, name])],
      link.condition || "", { id: "play-condition", disabled: !admin });
    const key = h("input", { type: "file", id: "play-key", accept: "application/json,.json", disabled: !admin });
    const autoApprove = h("input", { type: "checkbox", id: "play-auto-approve", checked: Boolean(link.autoApprove), disabled: !admin });
    const mapped = link.parameters || {};
    const mapping = FIELDS.map(([name, text, types]) => {
      const current = Object.keys(mapped).find((parameter) => mapped[parameter] === name) || "";
      const fitting = parameters.filter(([, type]) => types.includes(type)).map(([parameter]) => [parameter, parameter]);
      const control = select([["", "(not copied)"], ...fitting], current, { id: `play-map-${name}`, disabled: !admin });
      return { name, control, element: field(text, control) };
    });
    const account = link.serviceAccount
      ? `Stored: the key ${link.serviceAccount.privateKeyId.slice(0, 8)}… of ${link.serviceAccount.clientEmail}. Choose a file only to replace it.`
      : "The JSON key file of the service account invited in Play Console (read-only access is enough).";
    const errors = h("div", { id: "play-errors" });
    const form = h("form", { class: "card", id: "play-form" },
      h("h2", {}, "Google Play settings"),
      h("div", { class: "check" }, enabled, h("label", { htmlFor: enabled.id }, "Sync on a schedule (saving then syncs at once)")),
      h("div", { class: "row" },
        field("Package name", packageName, "As in the app's Play Store URL: ?id=com.example.app"),
        field("Track", track, "production, beta, alpha, internal or a custom track"),
        field("Sync every (seconds)", interval, "3600 is hourly")),
      h("div", { class: "row" },
        field("Counts as live", staged, "Halted and draft releases never count"),
        field("Write into the condition", condition, "Typically one with device.os == 'android', so iOS values stay as they are")),
      field("Service account key", key, account),
      h("fieldset", {}, h("legend", {}, "Copy into parameters"),
        h("p", { class: "hint" }, parameters.length
          ? "Names and notes fill STRING parameters; codes, priority and share fill NUMBER or STRING ones."
          : "The published template has no parameter yet: publish one (say current_build_android) first."),
        h("div", { class: "row" }, mapping.map((item) => item.element))),
      h("div", { class: "check" }, autoApprove, h("label", { htmlFor: autoApprove.id }, "Approve the change requests it opens, where the project requires approval")),
      errors,
      admin ? h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary", id: "play-save" }, linked ? "Save" : "Link to Google Play"))
        : h("p", { class: "muted" }, "Only an admin can change the link."));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const targets = {};
      for (const item of mapping) if (item.control.value) targets[item.control.value] = item.name;
      const body = Object.fromEntries(Object.entries(link).filter(([name]) => !STATUS.has(name)));
      Object.assign(body, {
        enabled: enabled.checked, packageName: packageName.value.trim(), track: track.value.trim(),
        intervalSeconds: Number(interval.value), stagedRollouts: staged.value, condition: condition.value || null,
        parameters: targets, autoApprove: autoApprove.checked,
      });
      if (key.files && key.files[0]) {
        try {
          body.serviceAccountKey = JSON.parse(await key.files[0].text());
        } catch {
          replace(errors, message("error", "The key file is not JSON: download the service account's key as JSON in Google Cloud."));
          return;
        }
      }
      try {
        const { data } = await call("PUT", projectPath(project, "/storeSync/googlePlay"), { body });
        link = data;
        replace(notice, message("success", data.enabled
          ? "Saved. The server syncs it now, then on schedule: the status above follows."
          : "Saved. Syncing is off: “Sync now” reads Google Play when you ask."));
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

  const refresh = async (before, tries) => {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (!section.isConnected || tries <= 0) return;
    try {
      link = (await call("GET", projectPath(project, "/storeSync/googlePlay"))).data;
      showStatus();
      if (link.lastSyncTime === before) refresh(before, tries - 1);
    } catch {
      // The status stays as it was; the next visit reads it again.
    }
  };

  replace(section,
    h("p", { class: "muted" }, "The server reads the app's release track through the Google Play Developer API with a ",
      "service account you give it, and publishes a new version when the live release changes."),
    notice, statusCard, settingsCard);
  showStatus();
  showSettings();
}

/** Seconds as people say them. */
function duration(seconds) {
  if (seconds % 86400 === 0) return seconds === 86400 ? "day" : `${seconds / 86400} days`;
  if (seconds % 3600 === 0) return seconds === 3600 ? "hour" : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? "minute" : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}
