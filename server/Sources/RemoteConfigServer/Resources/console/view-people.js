// People (admins of every project): who signed in with the identity provider, their roles and sessions, and
// the role bindings that give people, groups and email domains their roles.

import { call } from "./api.js";
import { actorLabel, button, confirmDialog, field, h, message, replace, select, when } from "./dom.js";

function rolesText(roles) {
  if (!roles || !roles.length) return "no role";
  return roles.map((grant) => `${grant.role} on ${grant.project || "every project"}`).join("; ");
}

/** Renders the People page into `view`. */
export async function peopleView(view) {
  const notice = h("div", { id: "people-notice", "aria-live": "polite" });
  const people = h("div", {});
  const bindings = h("div", {});
  const projects = ((await call("GET", "/v1/projects")).data.projects || []).map((project) => project.projectId);

  const load = async () => {
    const [users, bound] = await Promise.all([
      call("GET", "/v1/users", { query: { pageSize: 1000 } }),
      call("GET", "/v1/roleBindings"),
    ]);
    const list = users.data.users || [];
    replace(people, list.length ? h("div", { class: "table-wrap" }, h("table", { id: "people" },
      h("thead", {}, h("tr", {}, ["Person", "Groups", "Roles", "Last sign-in", ""].map((text) => h("th", { scope: "col" }, text)))),
      h("tbody", {}, list.map((user) => h("tr", { dataset: { user: user.name } },
        h("td", { dataset: { label: "Person" } }, user.displayName || user.email, h("div", { class: "muted" }, user.email, user.emailVerified ? "" : " (not verified)")),
        h("td", { dataset: { label: "Groups" } }, (user.groups || []).join(", ")),
        h("td", { dataset: { label: "Roles" } }, rolesText(user.roles)),
        h("td", { dataset: { label: "Last sign-in" } }, when(user.lastSignInTime)),
        h("td", {}, button("End sessions", () => endSessions(user), { class: "link danger", "aria-label": `End the sessions of ${user.email}` })))))))
      : h("p", { class: "muted" }, "Nobody has signed in with the identity provider yet."));
    const rows = bound.data.roleBindings || [];
    replace(bindings, rows.length ? h("div", { class: "table-wrap" }, h("table", { id: "role-bindings" },
      h("thead", {}, h("tr", {}, ["Member", "Role", "Project", "Made by", ""].map((text) => h("th", { scope: "col" }, text)))),
      h("tbody", {}, rows.map((binding) => h("tr", { dataset: { binding: binding.name } },
        h("td", { dataset: { label: "Member" } }, h("code", {}, binding.member)),
        h("td", { dataset: { label: "Role" } }, binding.role),
        h("td", { dataset: { label: "Project" } }, binding.project || "every project"),
        h("td", { dataset: { label: "Made by" } }, binding.createdBy.bootstrap ? "--oidc-admins at start" : actorLabel(binding.createdBy)),
        h("td", {}, button("Remove", () => remove(binding), { class: "link danger", "aria-label": `Remove ${binding.member} as ${binding.role}` })))))))
      : h("p", { class: "muted" }, "No role bindings yet."));
  };

  const endSessions = async (user) => {
    if (!(await confirmDialog(`End every session of ${user.email}?`, "They are signed out on every server at once; their keys keep working within their roles.", "End sessions", true))) return;
    try {
      await call("DELETE", `/v1/${user.name}/sessions`);
      replace(notice, message("success", `Ended the sessions of ${user.email}.`));
    } catch (error) {
      replace(notice, message("error", error.message));
    }
  };
  const remove = async (binding) => {
    if (!(await confirmDialog(`Remove ${binding.member} as ${binding.role}?`, "The role is taken away at once, from their keys too.", "Remove", true))) return;
    try {
      await call("DELETE", `/v1/${binding.name}`);
      replace(notice, message("success", `Removed ${binding.member} as ${binding.role}.`));
      await load();
    } catch (error) {
      replace(notice, message("error", error.message));
    }
  };

  const member = h("input", { id: "binding-member", autocomplete: "off", placeholder: "alice@example.com, group:mobile-release, domain:example.com", required: true });
  const role = select([["viewer", "Viewer"], ["editor", "Editor"], ["admin", "Admin"]], "viewer", { id: "binding-role" });
  const project = select([["", "Every project"], ...projects.map((id) => [id, id])], "", { id: "binding-project" });
  const form = h("form", { class: "card", id: "create-binding" },
    h("h2", {}, "Give a role"),
    h("div", { class: "row" },
      field("Person, group or domain", member, "An email, group:NAME as the identity provider names it, or domain:NAME"),
      field("Role", role), field("Project", project)),
    h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary", id: "create-binding-button" }, "Give role")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const { data } = await call("POST", "/v1/roleBindings", { body: { member: member.value.trim(), role: role.value, project: project.value || undefined } });
      replace(notice, message("success", `${data.member} is now ${data.role} on ${data.project || "every project"}.`));
      member.value = "";
      await load();
    } catch (error) {
      replace(notice, message("error", error.message));
    }
  });
  await load();
  replace(view, h("h1", {}, "People"), notice,
    h("h2", {}, "Who signed in"), people,
    h("h2", {}, "Role bindings"), bindings, form);
}
