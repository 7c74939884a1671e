// Who is signed in and what the key may do, found from what the API lets it call (the API has no
// "who am I" route): any admin route read → admin; a `validateOnly` publish check → editor of that project.

import { ApiError, call, currentKey, forgetKey, projectPath, rememberKey } from "./api.js";

const state = { admin: false, editorOf: new Map() };

/** Checks a key, and keeps it for this tab when the API accepts it. Throws ApiError otherwise. */
export async function signIn(key) {
  try {
    await call("GET", "/v1/projects", { key });
  } catch (error) {
    if (error.status === 403) throw new ApiError(403, { error: { message: "this is a client key: it opens only the fetch routes; sign in with an admin, editor or viewer key" } });
    throw error;
  }
  rememberKey(key);
  await refresh();
}

/** Forgets the key and everything learnt about it. */
export function signOut() {
  forgetKey();
  state.admin = false;
  state.editorOf.clear();
}

/** Whether a key is kept for this tab. */
export function signedIn() {
  return currentKey() !== null;
}

/** Re-learns the key's role (after a reload of the page). */
export async function refresh() {
  state.editorOf.clear();
  try {
    await call("GET", "/v1/apiKeys");
    state.admin = true;
  } catch (error) {
    if (error.status === 401) throw error;
    state.admin = false;
  }
}

/** Whether the key is an admin (keys, projects, the global audit log). */
export function isAdmin() {
  return state.admin;
}

/** Whether the key may edit `project`'s template (editor or admin of it). Remembered per project. */
export async function canEdit(project) {
  if (state.editorOf.has(project)) return state.editorOf.get(project);
  let allowed = false;
  try {
    // Publishes nothing: `validateOnly` checks an empty template as a publish would, and needs the editor role.
    await call("PUT", projectPath(project, "/remoteConfig"), { query: { validateOnly: "true" }, ifMatch: "*", body: {} });
    allowed = true;
  } catch (error) {
    if (error.status === 401) throw error;
    allowed = error.status !== 403 && error.status !== 404;
  }
  state.editorOf.set(project, allowed);
  return allowed;
}

/** The role to show: admin, editor (of `project`) or viewer. */
export async function roleLabel(project) {
  if (state.admin) return "admin";
  if (project && (await canEdit(project))) return "editor";
  return project ? "viewer" : "viewer or editor";
}
