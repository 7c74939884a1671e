// The bar above the parameters and conditions: the draft's state, Publish (with a description) and Discard,
// and where conflicts are explained.

import { button, confirmDialog, field, h, message, modal, replace } from "./dom.js";
import { Conflict, conflictMessage } from "./draft.js";
import { impactPanel } from "./impact.js";

/** The bar for `draft`; `reload()` re-reads everything. Returns `{element, update(), showError(error)}`. */
export function draftBar(draft, editable, reload) {
  const element = h("div", { class: "draft-bar", id: "draft-bar" });
  const notice = h("div", { id: "draft-notice" });

  const showError = (error) => {
    if (error instanceof Conflict) {
      replace(notice, conflictMessage(error, {
        reload: () => reload(),
        force: error.kind === "published" ? () => publish(true) : null,
      }));
      notice.querySelector("#conflict-reload").focus();
    } else if (error.reason === "APPROVAL_REQUIRED") {
      replace(notice, message("error", "This project publishes only through approved change requests.",
        h("a", { href: `#/projects/${encodeURIComponent(draft.project)}/changes`, id: "to-changes" }, "Propose the draft")));
    } else {
      replace(notice, message("error", error.message));
    }
  };

  const publish = async (force = false) => {
    const description = await modal("Publish the draft", (close) => {
      const text = h("textarea", { id: "publish-description", rows: 3, maxLength: 256 });
      const form = h("form", { method: "dialog", class: "stack" },
        h("p", {}, `Publishes the draft as version ${Number(draft.latest || 0) + 1}; apps get it on their next fetch.`),
        impactPanel(draft.project, { draft: true }),
        field("Description", text, "What changed and why, for the history"),
        h("div", { class: "buttons" },
          button("Cancel", () => close(undefined)),
          h("button", { type: "submit", class: "primary", id: "publish-confirm" }, force ? "Publish anyway" : "Publish")));
      form.addEventListener("submit", (event) => { event.preventDefault(); close(text.value.trim()); });
      setTimeout(() => text.focus(), 0);
      return form;
    });
    if (description === undefined) return;
    try {
      const version = await draft.publish(description, force);
      await reload(message("success", `Published version ${version.versionNumber}.`));
    } catch (error) {
      showError(error);
    }
  };

  const discard = async () => {
    if (!(await confirmDialog("Discard the draft?", "Every unpublished change is lost; the published template stays as it is.", "Discard", true))) return;
    try {
      await draft.discard();
      await reload(message("info", "Draft discarded."));
    } catch (error) {
      showError(error);
    }
  };

  const update = () => {
    const published = draft.latest ? `Published: version ${draft.latest}.` : "Nothing published yet.";
    const state = draft.changes
      ? `Draft: ${draft.changes} unpublished change${draft.changes === 1 ? "" : "s"}${draft.base !== "0" ? ` (based on version ${draft.base})` : ""}.`
      : "The draft matches the published template.";
    element.classList.toggle("changed", Boolean(draft.changes));
    replace(element,
      h("div", { class: "draft-state" }, h("strong", { id: "draft-state" }, state), " ", h("span", { class: "muted" }, published)),
      editable ? h("div", { class: "buttons" },
        button("Discard draft", discard, { id: "discard-draft", disabled: !draft.changes }),
        button("Publish changes", () => publish(false), { class: "primary", id: "publish", disabled: !draft.changes })) : null,
      notice);
  };
  update();
  return { element, update, showError, notice };
}
