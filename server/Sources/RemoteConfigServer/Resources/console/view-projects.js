// Projects: the list, and (admins) a form to create one.

import { call } from "./api.js";
import { field, h, message, replace, when } from "./dom.js";

/** Renders the project list into `view`. */
export async function projectsView(view, { admin }) {
  const { data } = await call("GET", "/v1/projects");
  const projects = environmentsTogether(data.projects || []);
  replace(view, h("h1", {}, "Projects"));
  if (projects.length === 0) view.append(h("p", { class: "muted" }, "No projects yet."));
  else {
    view.append(h("ul", { class: "cards", id: "projects" }, projects.map((project) =>
      h("li", { class: "card", "data-project": project.projectId },
        h("a", { href: `#/projects/${encodeURIComponent(project.projectId)}/parameters`, class: "title" },
          project.displayName || project.projectId),
        project.environmentName || project.promotesTo
          ? h("div", { class: "environment" },
            project.environmentName ? h("span", { class: "env-badge" }, project.environmentName) : null,
            project.promotesTo ? ` → ${project.promotesTo}` : null)
          : null,
        h("div", { class: "muted" }, project.projectId, " · created ", when(project.createTime))))));
  }
  if (admin) view.append(createForm());
}

function createForm() {
  const id = h("input", { id: "new-project-id", required: true, pattern: "[a-z][a-z0-9\\-]{2,62}", autocomplete: "off" });
  const name = h("input", { id: "new-project-name", autocomplete: "off" });
  const feedback = h("div", {});
  const form = h("form", { class: "card", id: "create-project" },
    h("h2", {}, "Create a project"),
    h("div", { class: "row" },
      field("Project id", id, "3 to 63 lowercase letters, digits or dashes, starting with a letter"),
      field("Display name", name)),
    feedback,
    h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary" }, "Create project")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await call("POST", "/v1/projects", { body: { projectId: id.value.trim(), displayName: name.value.trim() || undefined } });
      location.hash = `#/projects/${encodeURIComponent(id.value.trim())}/parameters`;
    } catch (error) {
      replace(feedback, message("error", error.message));
    }
  });
  return form;
}

/**
 * One app's environments side by side: projects linked by `promotesTo` are listed together, each chain in the
 * order its versions travel (dev, staging, production), the apps in the order the server listed them.
 */
function environmentsTogether(projects) {
  const byId = new Map(projects.map((p) => [p.projectId, p]));
  const chain = (project) => {
    const path = [project.projectId];
    let next = project.promotesTo;
    while (next && byId.has(next) && !path.includes(next)) { path.push(next); next = byId.get(next).promotesTo; }
    return path;
  };
  const app = (project) => chain(project).at(-1);
  const apps = [...new Set(projects.map(app))];
  return projects.slice().sort((a, b) =>
    apps.indexOf(app(a)) - apps.indexOf(app(b)) || chain(b).length - chain(a).length);
}
