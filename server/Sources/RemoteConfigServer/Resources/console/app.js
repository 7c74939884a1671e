// The console's shell: sign-in, navigation and the hash routes (`#/projects/{p}/parameters`…). The hash holds
// only places, never the key.

import { ApiError, call, projectPath } from "./api.js";
import { announce, button, h, message, replace } from "./dom.js";
import * as session from "./session.js";
import { signInView } from "./view-signin.js";
import { projectsView } from "./view-projects.js";
import { parametersView } from "./view-parameters.js";
import { conditionsView } from "./view-conditions.js";
import { historyView } from "./view-history.js";
import { previewView } from "./view-preview.js";
import { keysView } from "./view-keys.js";
import { auditView } from "./view-audit.js";
import { changesView } from "./view-changes.js";
import { storeSyncView } from "./view-store-sync.js";
import { insightsView } from "./view-insights.js";
import { rolloutsView } from "./view-rollouts.js";
import { webhooksView } from "./view-webhooks.js";
import { peopleView } from "./view-people.js";
import { promoteView } from "./view-promote.js";

const projectTabs = [
  ["parameters", "Parameters", parametersView],
  ["conditions", "Conditions", conditionsView],
  ["history", "History", historyView],
  ["preview", "Preview", previewView],
  ["insights", "Insights", insightsView],
  ["rollouts", "Rollouts", rolloutsView],
  ["audit", "Audit log", auditView],
  // The publish workflow: its own module (view-changes.js).
  ["changes", "Change requests", changesView],
  ["promote", "Promote", promoteView],
  ["store-sync", "Store sync", storeSyncView],
  // Admins only: the routes refuse everyone else.
  ["webhooks", "Webhooks", webhooksView],
];

function parseHash() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  return parts;
}

function link(href, text, current) {
  return h("a", { href, "aria-current": current ? "page" : null }, text);
}

async function renderNav(parts) {
  const nav = document.getElementById("nav");
  const who = document.getElementById("who");
  if (!session.signedIn()) {
    replace(nav);
    replace(who);
    return;
  }
  const top = parts[0] || "projects";
  const items = [link("#/projects", "Projects", top === "projects" && parts.length < 2)];
  if (session.isAdmin()) {
    items.push(link("#/keys", "API keys", top === "keys"));
    items.push(link("#/audit", "Audit log", top === "audit"));
    if (session.isGlobalAdmin() && session.singleSignOn()) items.push(link("#/people", "People", top === "people"));
  }
  replace(nav, h("ul", {}, items.map((item) => h("li", {}, item))));
  const role = await session.roleLabel(top === "projects" ? parts[1] : null);
  const person = session.person();
  replace(who,
    person ? h("span", { class: "person", id: "person", title: person.email }, person.displayName || person.email) : null,
    h("span", { class: "role", id: "role" }, `Signed in: ${role}`),
    button("Sign out", async () => {
      await session.signOut();
      location.hash = "#/";
      route();
    }, { id: "sign-out" }));
}

/** The project as `GET /v1/projects/{p}` answers it, or `{}` when it cannot be read (the page shows the id). */
async function projectInfo(project) {
  try {
    const { data } = await call("GET", projectPath(project));
    return data || {};
  } catch {
    return {};
  }
}

function projectHeader(project, info, tab, editable, admin) {
  const tabs = projectTabs.filter(([id]) => id !== "webhooks" || admin);
  const name = info.displayName && info.displayName !== project ? info.displayName : null;
  // Every page of an environment says which one it is, and where its versions are promoted to.
  const environment = info.environmentName || info.promotesTo
    ? h("p", { class: "environment", id: "environment" },
      info.environmentName ? h("span", { class: "env-badge" }, info.environmentName) : null,
      info.promotesTo ? [" promotes to ", h("a", { href: `#/projects/${encodeURIComponent(info.promotesTo)}/promote` }, info.promotesTo)] : null)
    : null;
  return h("div", { class: "project-head" },
    h("h1", { id: "project-title" }, name || project, name ? h("span", { class: "muted project-id" }, project) : null),
    environment,
    editable ? null : h("p", { class: "muted", id: "read-only" }, "Read only: this key is a viewer of this project."),
    h("nav", { class: "tabs", "aria-label": "Project" },
      h("ul", {}, tabs.map(([id, text]) =>
        h("li", {}, link(`#/projects/${encodeURIComponent(project)}/${id}`, text, id === tab))))));
}

let generation = 0;

/** Renders the place the hash names. */
async function route() {
  const mine = ++generation;
  const main = document.getElementById("main");
  announce("");
  const parts = parseHash();
  try {
    if (!session.signedIn()) {
      await renderNav([]);
      replace(main);
      await signInView(main, async () => { location.hash = "#/projects"; await route(); });
      return;
    }
    await renderNav(parts);
    if (mine !== generation) return;
    const view = h("div", { class: "view" });
    if (session.hasNoRole()) {
      replace(main, h("div", { class: "card narrow", id: "no-access" },
        h("h1", {}, "No access yet"),
        h("p", {}, "You are signed in, but no role has been given to you on any project. Ask an admin of this server to add a role binding for you, your group or your email domain.")));
      return;
    }
    if (parts[0] === "keys" && session.isAdmin()) {
      replace(main, view);
      await keysView(view);
    } else if (parts[0] === "people" && session.isGlobalAdmin()) {
      replace(main, view);
      await peopleView(view);
    } else if (parts[0] === "audit" && session.isAdmin()) {
      replace(main, view);
      await auditView(view, { project: null });
    } else if (parts[0] === "projects" && parts[1]) {
      const project = parts[1];
      const tab = projectTabs.find(([id]) => id === parts[2]) || projectTabs[0];
      const [editable, info] = await Promise.all([session.canEdit(project), projectInfo(project)]);
      if (mine !== generation) return;
      replace(main, projectHeader(project, info, tab[0], editable, session.isAdmin()), view);
      await tab[2](view, { project, editable, admin: session.isAdmin() });
    } else {
      replace(main, view);
      await projectsView(view, { admin: session.isAdmin() });
    }
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      session.forget();
      replace(main, message("error", `Signed out: ${error.message}.`));
      await renderNav([]);
      const again = h("div", {});
      main.append(again);
      await signInView(again, async () => { await route(); });
      return;
    }
    main.append(message("error", error.message || String(error)));
  }
}

async function start() {
  // A pasted key of this tab, or the session cookie of a person signed in with the identity provider.
  try { await session.refresh(); } catch { session.forget(); }
  // After a navigation, keyboard and screen-reader users continue from the new page's content.
  window.addEventListener("hashchange", async () => {
    await route();
    if (!document.querySelector("dialog[open]") && session.signedIn()) document.getElementById("main").focus({ preventScroll: true });
  });
  await route();
}

start();
