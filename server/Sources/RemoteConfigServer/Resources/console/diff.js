// A `remoteConfig:diff` answer, readable at a glance: what was added, removed and changed, and for a change,
// each changed field before → after.

import { h } from "./dom.js";
import { showValue } from "./template-model.js";

function describe(field, object) {
  if (!object) return "";
  switch (field) {
    case "defaultValue": return showValue(object.defaultValue);
    case "conditionalValues":
      return Object.entries(object.conditionalValues || {}).map(([name, value]) => `${name}: ${showValue(value)}`).join("; ") || "(none)";
    case "group": return object.parameterGroup || "(no group)";
    default: return object[field] === undefined ? "(none)" : String(object[field]);
  }
}

function summary(kind, object) {
  if (!object) return "";
  if (kind === "conditions") return object.expression;
  return `${object.valueType || "STRING"} · default ${showValue(object.defaultValue)}`;
}

function section(kind, title, side) {
  const items = [
    ...side.added.map((change) => h("li", { class: "added" }, h("span", { class: "badge" }, "Added"), " ", h("code", {}, change.name), " ", h("span", { class: "muted" }, summary(kind, change.after)))),
    ...side.removed.map((change) => h("li", { class: "removed" }, h("span", { class: "badge" }, "Removed"), " ", h("code", {}, change.name), " ", h("span", { class: "muted" }, summary(kind, change.before)))),
    ...side.changed.map((change) => h("li", { class: "changed" }, h("span", { class: "badge" }, "Changed"), " ", h("code", {}, change.name),
      h("ul", {}, (change.changedFields || []).map((field) => h("li", {},
        h("span", { class: "field-name" }, field), ": ",
        h("del", {}, describe(field, change.before)), " → ", h("ins", {}, describe(field, change.after))))))),
  ];
  if (kind === "conditions" && side.orderChanged) items.push(h("li", { class: "changed" }, h("span", { class: "badge" }, "Changed"), " the order of evaluation"));
  return h("section", {}, h("h3", {}, title), items.length ? h("ul", { class: "diff-list" }, items) : h("p", { class: "muted" }, "No change."));
}

/** The diff as elements. */
export function renderDiff(diff) {
  const name = (side) => {
    if (side === "draft") return "the draft";
    if (/^\d+$/.test(side)) return `version ${side}`;
    return side.replace(/^changeRequests\//, "change request ");
  };
  return h("div", { class: "diff", id: "diff" },
    h("h2", {}, `From ${name(diff.from)} to ${name(diff.to)}`),
    section("parameters", "Parameters", diff.parameters),
    section("conditions", "Conditions", diff.conditions));
}
