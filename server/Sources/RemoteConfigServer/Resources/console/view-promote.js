// Promoting another environment's published version into this project (docs/api.md "Environments"): the
// three-way table with a choice per parameter, the dry run's result and its impact on this project's apps, then
// the publish, draft or change request.

import { ApiError, call, projectPath } from "./api.js";
import { button, field, h, message, replace, select } from "./dom.js";
import { impactPanel } from "./impact.js";

const STATUS = {
  UNCHANGED: "the same in both", SOURCE_CHANGED: "changed in the source", TARGET_CHANGED: "changed here since (a hotfix)",
  BOTH_CHANGED: "changed in both (a conflict)", LOCAL: "local to each environment",
};

/** One row of the table: the parameter, its status in words, and whether to take the source's. */
function parameterRow(entry, chosen) {
  const movable = entry.status !== "UNCHANGED" && entry.status !== "LOCAL";
  const box = h("input", { type: "checkbox", "data-key": entry.key, checked: entry.promoted, disabled: !movable,
    "aria-label": `Promote ${entry.key}` });
  box.addEventListener("change", () => { if (box.checked) chosen.add(entry.key); else chosen.delete(entry.key); });
  if (entry.promoted) chosen.add(entry.key);
  return h("tr", { "data-status": entry.status },
    h("td", { dataset: { label: "Promote" } }, box),
    h("td", { dataset: { label: "Parameter" } }, h("code", {}, entry.key)),
    h("td", { dataset: { label: "Status" } }, STATUS[entry.status] || entry.status));
}

/** Renders the Promote page of `project` into `view`. */
export async function promoteView(view, { project, editable }) {
  const { data: list } = await call("GET", "/v1/projects");
  const sources = (list.projects || []).filter((p) => p.promotesTo === project);
  const target = (list.projects || []).find((p) => p.projectId === project) || {};
  if (!sources.length) {
    replace(view, message("info", `No project promotes to ${project}. Link one (its environment, such as staging) with "promotesTo": "${project}" in PATCH /v1/projects/{id}.`));
    return;
  }
  const from = select(sources.map((p) => [p.projectId, p.environmentName ? `${p.environmentName} (${p.projectId})` : p.projectId]),
    sources[0].projectId, { id: "promote-from" });
  const mode = select([["PUBLISH", "Publish"], ["CHANGE_REQUEST", "Change request"], ["DRAFT", "Draft"]],
    target.requireApproval ? "CHANGE_REQUEST" : "PUBLISH", { id: "promote-as" });
  if (target.requireApproval) mode.querySelector('option[value="PUBLISH"]').disabled = true;
  const plan = h("div", { id: "promote-plan" });
  const outcome = h("div", { id: "promote-outcome", "aria-live": "polite" });
  const chosen = new Set();
  let etag = "*";

  const run = async (validateOnly, parameters) => {
    const body = { from: from.value, validateOnly, as: mode.value };
    if (parameters) body.parameters = parameters;
    return call("POST", projectPath(project, "/remoteConfig:promote"), { body, ifMatch: etag });
  };

  const draw = async () => {
    replace(plan, h("p", { class: "muted" }, "Comparing…"));
    replace(outcome);
    chosen.clear();
    etag = "*";
    let answer;
    try {
      answer = await run(true);
    } catch (error) {
      // A conflict: show what conflicts; naming those parameters takes the source's.
      if (!(error instanceof ApiError) || error.status !== 409) throw error;
      replace(plan, message("error", error.message));
      return;
    }
    etag = answer.etag || "*";
    const data = answer.data;
    const rows = (data.parameters || []).map((entry) => parameterRow(entry, chosen));
    const base = data.base ? `since version ${data.base.versionNumber}, promoted last` : "no earlier promotion: every difference is the source's";
    replace(plan,
      h("p", { id: "promote-summary" }, `From ${data.from.project} version ${data.from.versionNumber} into version ${data.to.versionNumber} of ${project} (${base}).`),
      h("div", { class: "table-wrap" }, h("table", { id: "promote-table" },
        h("caption", { class: "visually-hidden" }, "Each parameter, how it differs, and whether the source's is taken"),
        h("thead", {}, h("tr", {}, ["Promote", "Parameter", "Status"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, rows))),
      (data.conditions || []).filter((c) => c.status !== "SAME" && c.status !== "KEPT").length
        ? h("ul", { id: "promote-conditions" }, data.conditions.filter((c) => c.status !== "SAME" && c.status !== "KEPT")
          .map((c) => h("li", {}, `condition `, h("code", {}, c.name), `: ${c.status.toLowerCase()}`)))
        : null,
      h("details", { id: "promote-result" }, h("summary", {}, "The resulting template"),
        h("pre", { class: "json" }, JSON.stringify(data.template, null, 2))),
      data.changed ? impactPanel(project, { template: data.template }) : h("p", { class: "muted" }, "Nothing to promote: this version was promoted already."),
      editable ? h("div", { class: "row" }, field("As", mode), button("Promote", promote, { id: "promote-go", class: "primary", disabled: !data.changed })) : null);
  };

  const promote = async () => {
    const parameters = [...chosen];
    if (!parameters.length) {
      replace(outcome, message("error", "Tick at least one parameter to promote."));
      return;
    }
    try {
      const { data } = await run(false, parameters);
      const made = data.version ? `Published version ${data.version.versionNumber}.`
        : data.changeRequest ? `Opened ${data.changeRequest.name}: it is published once approved.`
          : data.draft ? "Saved as the draft: review and publish it on the Parameters page." : "Nothing changed.";
      // Planned again against what is there now, so a second click cannot reuse the ETag this one spent.
      await draw();
      replace(outcome, message("success", made));
    } catch (error) {
      replace(outcome, message("error", error.message));
    }
  };

  from.addEventListener("change", () => draw().catch((error) => replace(plan, message("error", error.message))));
  replace(view,
    h("section", { class: "card", id: "promote" },
      h("h2", {}, "Promote"),
      h("p", { class: "muted" }, "Take another environment's published version into this project. Parameters changed here since the last promotion (hotfixes) are kept unless you tick them; local parameters never move."),
      h("div", { class: "row" }, field("From", from)),
      plan, outcome));
  await draw();
}
