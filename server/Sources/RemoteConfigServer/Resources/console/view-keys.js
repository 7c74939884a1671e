// API keys (admins): the list, creation (the secret shown once, with a copy button) and revocation.

import { call } from "./api.js";
import { button, confirmDialog, field, h, message, replace, select, when, whenMinute } from "./dom.js";

/** How people tell a key apart: its display name, or for a key created without one, its role and first characters
 * (the resource name `apiKeys/…` means nothing to a reader). */
function keyLabel(key) {
  if (key.displayName) return key.displayName;
  return `unnamed ${key.role} key${key.keyPrefix ? ` ${key.keyPrefix}…` : ""}`;
}

/** Renders the keys into `view`. */
export async function keysView(view) {
  const notice = h("div", { id: "keys-notice" });
  const list = h("div", {});
  const [{ data }, projects] = await Promise.all([call("GET", "/v1/apiKeys"), call("GET", "/v1/projects")]);
  let keys = data.apiKeys || [];
  const projectIds = (projects.data.projects || []).map((project) => project.projectId);
  // Owners by their email; only an admin of every project may list people, so others see the owner's id.
  const owners = new Map();
  try {
    for (const user of (await call("GET", "/v1/users", { query: { pageSize: 1000 } })).data.users || []) owners.set(user.name, user.email);
  } catch { /* not an admin of every project */ }

  const reload = async () => {
    keys = (await call("GET", "/v1/apiKeys")).data.apiKeys || [];
    render();
  };
  const revoke = async (key) => {
    if (!(await confirmDialog(`Revoke ${keyLabel(key)}?`, "Apps and people using this key are refused within a second. This cannot be undone.", "Revoke", true))) return;
    try {
      await call("DELETE", `/v1/${key.name}`);
      replace(notice, message("success", `Revoked ${keyLabel(key)}.`));
      await reload();
    } catch (error) {
      replace(notice, message("error", error.message));
    }
  };

  function render() {
    replace(list, h("div", { class: "table-wrap" }, h("table", { id: "keys" },
      h("thead", {}, h("tr", {}, ["Name", "Role", "Project", "Owner", "Key starts with", "Created", "Last used", ""].map((text) => h("th", { scope: "col" }, text)))),
      h("tbody", {}, keys.map((key) => h("tr", { dataset: { key: key.name } },
        h("td", { dataset: { label: "Name" } }, key.displayName || h("span", { class: "unnamed" }, `Unnamed ${key.role} key`)),
        h("td", { dataset: { label: "Role" } }, key.role),
        h("td", { dataset: { label: "Project" } }, key.project || "all projects"),
        h("td", { dataset: { label: "Owner" } }, key.owner ? (owners.get(key.owner) || key.owner) : h("span", { class: "muted" }, "no owner")),
        h("td", { dataset: { label: "Key starts with" } }, h("code", {}, key.keyPrefix || "")),
        h("td", { dataset: { label: "Created" } }, when(key.createTime)),
        h("td", { dataset: { label: "Last used" } }, key.lastUsedTime ? whenMinute(key.lastUsedTime) : h("span", { class: "muted" }, "never")),
        h("td", {}, button("Revoke", () => revoke(key), { class: "link danger", "aria-label": `Revoke ${keyLabel(key)}` }))))))));
  }

  const name = h("input", { id: "key-name", autocomplete: "off" });
  const role = select([["viewer", "Viewer (read)"], ["editor", "Editor (drafts, publish, rollback)"], ["admin", "Admin (projects and keys)"], ["client", "Client (an app's fetches)"]], "viewer", { id: "key-role" });
  const project = select([["", "All projects"], ...projectIds.map((id) => [id, id])], "", { id: "key-project" });
  const created = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "card", id: "create-key" },
    h("h2", {}, "Create a key"),
    h("div", { class: "row" }, field("Display name", name), field("Role", role), field("Project", project, "A client key needs one")),
    h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary", id: "create-key-button" }, "Create key")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const body = { displayName: name.value.trim() || undefined, role: role.value, project: project.value || undefined };
      const { data: key } = await call("POST", "/v1/apiKeys", { body });
      const secret = h("input", { id: "new-key-secret", readOnly: true, value: key.key, class: "secret", spellcheck: false });
      const copied = h("span", { class: "muted", "aria-live": "polite" });
      replace(created, h("div", { class: "message success" },
        h("p", {}, "Copy the key now: it is not shown again."),
        field("New key", secret),
        button("Copy", async () => {
          try { await navigator.clipboard.writeText(key.key); copied.textContent = "Copied."; } catch {
            secret.select();
            copied.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
          }
        }, { id: "copy-key" }), " ", copied));
      name.value = "";
      await reload();
      secret.focus();
      secret.select();
    } catch (error) {
      replace(created, message("error", error.message));
    }
  });
  replace(view, h("h1", {}, "API keys"), notice, created, list, form);
  render();
}
