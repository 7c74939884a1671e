// The audit log, newest first: a project's (`…/auditLog`) or, for admins, every project's (`/v1/auditLog`).

import { call, projectPath } from "./api.js";
import { button, h, replace, when } from "./dom.js";

/** Who acted, without the key: the key id goes on its own line beneath, where it is never cut mid-word. */
function whoActed(actor, key) {
  if (actor && actor.email) return key ? `${actor.email} via ${actor.displayName || "a key"}` : actor.email;
  if (actor && actor.displayName) return actor.displayName;
  return key ? "(unnamed key)" : "the server";
}

function detailText(detail) {
  if (!detail || typeof detail !== "object") return "";
  return Object.entries(detail).map(([name, value]) => `${name}: ${typeof value === "object" ? JSON.stringify(value) : value}`).join(" · ");
}

/** Renders the audit log of `project` (null: every project) into `view`. */
export async function auditView(view, { project }) {
  const path = project ? projectPath(project, "/auditLog") : "/v1/auditLog";
  const events = [];
  let token = null;
  const body = h("tbody", {});
  const more = h("div", {});
  const load = async () => {
    const { data } = await call("GET", path, { query: { pageSize: 100, pageToken: token } });
    events.push(...(data.events || []));
    token = data.nextPageToken || null;
    replace(body, events.map((event) => h("tr", {},
      h("td", { dataset: { label: "When" } }, when(event.time)),
      project ? null : h("td", { dataset: { label: "Project" } }, event.project || ""),
      h("td", { dataset: { label: "Who" } }, whoActed(event.actor, event.actorKey), event.actorKey ? h("div", { class: "muted actor-key" }, event.actorKey) : null),
      h("td", { dataset: { label: "What" } }, h("code", {}, event.action)),
      h("td", { class: "detail", dataset: { label: "Detail" } }, detailText(event.detail)))));
    replace(more, token ? button("Show older events", load) : null);
  };
  await load();
  const headings = ["When", ...(project ? [] : ["Project"]), "Who", "What", "Detail"];
  replace(view,
    project ? null : h("h1", {}, "Audit log"),
    events.length ? h("div", { class: "table-wrap" }, h("table", { id: "audit" },
      h("thead", {}, h("tr", {}, headings.map((text) => h("th", { scope: "col" }, text)))), body)) : h("p", { class: "muted" }, "No events yet."),
    more);
}
