// Who is signed in and what they may do, from `GET /v1/me`: a key pasted into this tab, or a person signed
// in with the team's identity provider (a session cookie the page cannot read, and its CSRF token).

import { ApiError, call, currentKey, forgetKey, rememberCsrf, rememberKey } from "./api.js";

const state = { admin: false, me: null };

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

/** Forgets the key, ends a person's session, and forgets everything learnt about them. */
export async function signOut() {
  const person = state.me && !state.me.key;
  if (person) {
    try { await call("POST", "/console/auth/logout", { body: {} }); } catch { /* ended or expired already */ }
  }
  forgetKey();
  rememberCsrf(null);
  state.admin = false;
  state.me = null;
}

/** Forgets what was learnt without calling the server (the session or key is no longer valid). */
export function forget() {
  forgetKey();
  rememberCsrf(null);
  state.admin = false;
  state.me = null;
}

/** Whether a key is kept for this tab, or a person is signed in. */
export function signedIn() {
  return currentKey() !== null || state.me !== null;
}

/** The person signed in (`GET /v1/me`'s `user`), or null for a key without an owner. */
export function person() {
  return state.me ? state.me.user : null;
}

/** Whether the caller is an admin of every project (people and role bindings). */
export function isGlobalAdmin() {
  return state.me !== null && state.me.roles.some((grant) => grant.role === "admin" && grant.project === null);
}

/** Whether the server has single sign-on (people exist to manage). */
export function singleSignOn() {
  return state.singleSignOn === true;
}

/** Whether the person (or key) has no role anywhere yet. */
export function hasNoRole() {
  return state.me !== null && state.me.roles.length === 0;
}

/** Re-learns who is signed in and their roles (after a reload of the page, or a sign-in). */
export async function refresh() {
  if (state.singleSignOn === undefined) {
    try { state.singleSignOn = (await call("GET", "/console/auth/config", { key: "" })).data.provider !== null; } catch { state.singleSignOn = false; }
  }
  try {
    const { data } = await call("GET", "/v1/me");
    state.me = data;
    rememberCsrf(data.csrfToken);
  } catch (error) {
    state.me = null;
    if (currentKey() !== null || error.status !== 401) throw error;
  }
  state.admin = state.me !== null && state.me.roles.some((grant) => grant.role === "admin");
}

/** The role on `project` (or on every project when null), from `/v1/me`'s roles. */
function roleOn(project) {
  if (!state.me) return null;
  const rank = { viewer: 1, editor: 2, admin: 3 };
  let best = null;
  for (const grant of state.me.roles) {
    if (grant.project !== null && grant.project !== project) continue;
    if (!(grant.role in rank)) continue;
    if (best === null || rank[grant.role] > rank[best]) best = grant.role;
  }
  return best;
}

/** Whether the key is an admin (keys, projects, the global audit log). */
export function isAdmin() {
  return state.admin;
}

/** Whether the caller may edit `project`'s template (editor or admin of it). */
export async function canEdit(project) {
  const role = roleOn(project);
  return role === "editor" || role === "admin";
}

/** The role to show: admin, editor (of `project`) or viewer. */
export async function roleLabel(project) {
  if (project) return roleOn(project) || "no role";
  const global = roleOn(null);
  if (global) return global;
  const grants = state.me ? state.me.roles.filter((grant) => grant.project !== null) : [];
  if (!grants.length) return "no role yet";
  const shown = grants.slice(0, 2).map((grant) => `${grant.role} of ${grant.project}`).join(", ");
  return grants.length > 2 ? `${shown} and ${grants.length - 2} more` : shown;
}
