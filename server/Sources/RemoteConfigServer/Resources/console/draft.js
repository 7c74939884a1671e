// The server-side draft of one project: loaded with its ETag, saved whole with `If-Match`, published with a
// description. A 412 (someone saved the draft since we read it) or a 409 (a version was published since the
// draft's base) is raised as a Conflict for the view to explain.

import { ApiError, call, projectPath } from "./api.js";
import { button, message } from "./dom.js";
import { allParameters, normalized } from "./template-model.js";

/** A write refused because the draft or the published template moved on. */
export class Conflict extends Error {
  constructor(kind, error) {
    super(error.message);
    this.kind = kind; // "draft" (412) or "published" (409 ABORTED)
    this.error = error;
  }
}

/** One project's draft. */
export class Draft {
  constructor(project) {
    this.project = project;
    this.template = normalized({});
    this.etag = null;
    this.base = "0";
    this.latest = null;
    this.changes = 0;
  }

  /** Reads the draft and the published version number, and counts the draft's changes. */
  async load() {
    const [draft, published] = await Promise.all([
      call("GET", projectPath(this.project, "/remoteConfig/draft")),
      call("GET", projectPath(this.project, "/remoteConfig")),
    ]);
    this.accept(draft);
    this.latest = published.data.version ? published.data.version.versionNumber : null;
    await this.countChanges();
    return this;
  }

  accept(answer) {
    this.etag = answer.etag;
    this.base = answer.data.baseVersionNumber || "0";
    this.template = normalized(answer.data);
  }

  /** How many parameters and conditions differ from the published template (the server's diff). */
  async countChanges() {
    if (!this.latest) {
      this.changes = allParameters(this.template).length + this.template.conditions.length;
      return;
    }
    const { data } = await call("GET", projectPath(this.project, "/remoteConfig:diff"), { query: { from: this.latest, to: "draft" } });
    const count = (side) => side.added.length + side.removed.length + side.changed.length;
    this.changes = count(data.parameters) + count(data.conditions) + (data.conditions.orderChanged ? 1 : 0);
  }

  /** Applies `change` to a copy of the template and saves it as the draft; the copy becomes the draft. */
  async save(change) {
    const next = structuredClone(this.template);
    change(next);
    try {
      this.accept(await call("PUT", projectPath(this.project, "/remoteConfig/draft"), { body: next, ifMatch: this.etag }));
    } catch (error) {
      if (error instanceof ApiError && error.status === 412) throw new Conflict("draft", error);
      throw error;
    }
    await this.countChanges();
  }

  /** Publishes the draft; `force` publishes over versions published since its base. */
  async publish(description, force = false) {
    try {
      const { data } = await call("POST", projectPath(this.project, "/remoteConfig/draft:publish"), {
        body: { description, updateOrigin: "CONSOLE" }, ifMatch: this.etag, query: force ? { force: "true" } : undefined,
      });
      return data.version;
    } catch (error) {
      if (error instanceof ApiError && error.status === 412) throw new Conflict("draft", error);
      if (error instanceof ApiError && error.status === 409) throw new Conflict("published", error);
      throw error;
    }
  }

  /** Throws the draft away (the published template is untouched). */
  async discard() {
    await call("DELETE", projectPath(this.project, "/remoteConfig/draft"));
  }
}

/** The message that explains a conflict, with the way out it offers (reload; publish anyway). */
export function conflictMessage(conflict, { reload, force }) {
  if (conflict.kind === "published") {
    return message("error conflict",
      "Someone published a new version after this draft was started, so publishing the draft would undo their changes. Reload to compare (History shows what they changed), or publish this draft anyway.",
      button("Reload", reload, { class: "primary", id: "conflict-reload" }),
      force ? button("Publish anyway", force, { class: "danger", id: "conflict-force" }) : null);
  }
  return message("error conflict",
    "Someone else saved this draft since you loaded it (another tab or another person), so your change was not saved. Reload to see their version, then make your change again.",
    button("Reload", reload, { class: "primary", id: "conflict-reload" }));
}
