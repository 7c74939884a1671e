// The impact of a change before it is made (docs/api.md "Impact"): the sentence the server writes, and the
// parameters whose answers change, for the change request page and the publish dialog.

import { call, projectPath } from "./api.js";
import { h, replace } from "./dom.js";

const percent = (share) => `${(share * 100).toFixed(1)}%`;
const shown = (value) => (value === null || value === undefined ? "in-app default" : `"${value}"`);

/**
 * A panel that estimates what `candidate` (`{draft: true}`, `{changeRequest: id}` or `{template}`) would
 * change for the app instances seen recently; it fills itself in when the answer comes.
 */
export function impactPanel(project, candidate) {
  const panel = h("section", { class: "impact", id: "impact", "aria-live": "polite", "aria-busy": "true" },
    h("h3", {}, "Impact on apps seen in the last 7 days"),
    h("p", { class: "muted" }, "Estimating…"));
  call("POST", projectPath(project, "/remoteConfig:impact"), { body: candidate }).then(({ data }) => {
    const forced = data.forceUpdate && data.forceUpdate.newlyRequired > 0;
    const changes = (data.changes || []).slice(0, 8);
    replace(panel,
      panel.firstChild,
      h("p", { id: "impact-summary", class: forced ? "impact-summary forced" : "impact-summary" }, data.summary),
      changes.length ? h("ul", { class: "impact-changes", id: "impact-changes" }, changes.map((change) =>
        h("li", {}, h("code", {}, change.parameter), `: ${shown(change.from)} → ${shown(change.to)} for `,
          h("strong", {}, percent(change.share)), `${change.margin > 0 ? ` ± ${percent(change.margin)}` : ""} (about ${change.instances.toLocaleString("en-US")})`))) : null,
      data.sample.instances > 0
        ? h("p", { class: "hint" }, `Estimated from ${data.sample.instances.toLocaleString("en-US")} sampled app instances of about ${data.sample.activeInstances.toLocaleString("en-US")} active.`)
        : null);
    panel.setAttribute("aria-busy", "false");
  }).catch((error) => {
    replace(panel, panel.firstChild,
      h("p", { class: "muted", id: "impact-summary" }, `The impact could not be estimated: ${error.message}.`));
    panel.setAttribute("aria-busy", "false");
  });
  return panel;
}
