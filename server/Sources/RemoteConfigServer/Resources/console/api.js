// The API client: every call carries the signed-in key as a bearer token, or, for a person signed in with
// the team's identity provider, the session cookie (which scripts cannot read) and, on writes, the session's
// CSRF token. The key lives only in this tab's sessionStorage (and in memory): never in a URL, a cookie or a
// log line.

const STORAGE = "remote-config.console.key";
let memoryKey = null;

/** The key of this tab, or null when signed out. */
export function currentKey() {
  if (memoryKey === null) {
    try { memoryKey = sessionStorage.getItem(STORAGE); } catch { memoryKey = null; }
  }
  return memoryKey;
}

/** Keeps the key for this tab only. */
export function rememberKey(key) {
  memoryKey = key;
  try { sessionStorage.setItem(STORAGE, key); } catch { /* memory only */ }
}

/** Forgets the key (sign out). */
export function forgetKey() {
  memoryKey = null;
  try { sessionStorage.removeItem(STORAGE); } catch { /* nothing kept */ }
}

let csrfToken = null;

/** Keeps the CSRF token of the person's session (from `GET /v1/me`), sent with every write. */
export function rememberCsrf(token) {
  csrfToken = token || null;
}

/** An answer of the API that is not 2xx, in the API's error shape. */
export class ApiError extends Error {
  constructor(status, body) {
    const error = (body && body.error) || {};
    super(error.message || `the server answered ${status}`);
    this.status = status;
    this.statusName = error.status || "";
    this.details = error.details || [];
  }
  /** The first detail's reason, if any. */
  get reason() { return this.details.length ? this.details[0].reason : ""; }
}

/**
 * One call. `options`: `body` (sent as JSON), `ifMatch`, `query` (an object). Answers `{data, etag, status}`;
 * throws ApiError for a non-2xx answer.
 */
export async function call(method, path, options = {}) {
  const headers = { Accept: "application/json" };
  const key = options.key ?? currentKey();
  if (key) headers.Authorization = `Bearer ${key}`;
  if (options.ifMatch) headers["If-Match"] = options.ifMatch;
  if (!key && csrfToken && method !== "GET" && method !== "HEAD") headers["X-RC-CSRF"] = csrfToken;
  let body;
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  let url = path;
  if (options.query) {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(options.query)) {
      if (value !== undefined && value !== null && value !== "") query.set(name, value);
    }
    if ([...query].length) url += `?${query}`;
  }
  let response;
  try {
    // The session cookie goes with calls made without a key; a key's calls carry nothing else.
    response = await fetch(url, { method, headers, body, cache: "no-store", credentials: key ? "omit" : "same-origin" });
  } catch {
    throw new ApiError(0, { error: { message: "the server cannot be reached" } });
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = text; }
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return { data, etag: response.headers.get("ETag"), status: response.status };
}

/** `/v1/projects/{p}` plus `rest`, the project id escaped. */
export function projectPath(project, rest = "") {
  return `/v1/projects/${encodeURIComponent(project)}${rest}`;
}
