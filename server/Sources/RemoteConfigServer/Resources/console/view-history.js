// History: every version with who, when, how and its description; the diff between any two versions or the
// draft; rollback (editors) after a confirmation.

import { call, projectPath } from "./api.js";
import { button, confirmDialog, field, h, message, replace, select, when } from "./dom.js";
import { renderDiff } from "./diff.js";

function how(version) {
  const origin = { REST_API: "API", CONSOLE: "console", CLI: "command line", STORE_SYNC: "store sync", CHANGE_REQUEST: "change request", VERSION_POLICY: "minimum version policy", ROLLOUT: "rollout" }[version.updateOrigin] || version.updateOrigin;
  const type = { INCREMENTAL_UPDATE: "update", FORCED_UPDATE: "forced update", ROLLBACK: `rollback to version ${version.rollbackSource}` }[version.updateType] || version.updateType;
  return `${type} · ${origin}`;
}

/** Renders the history of `project` into `view`. */
export async function historyView(view, { project, editable }) {
  const versions = [];
  let nextPageToken = null;
  const notice = h("div", { id: "history-notice" });
  const table = h("div", {});
  const diffOutput = h("div", { "aria-live": "polite" });
  const from = select([], "", { id: "diff-from" });
  const to = select([], "", { id: "diff-to" });

  const loadPage = async () => {
    const { data } = await call("GET", projectPath(project, "/remoteConfig:listVersions"), { query: { pageSize: 50, pageToken: nextPageToken } });
    versions.push(...(data.versions || []));
    nextPageToken = data.nextPageToken || null;
  };
  const reload = async () => {
    versions.length = 0;
    nextPageToken = null;
    await loadPage();
    render();
  };

  const rollback = async (version) => {
    if (!(await confirmDialog(`Roll back to version ${version.versionNumber}?`,
      `Publishes a copy of version ${version.versionNumber} as a new version; apps get it on their next fetch. The draft is not changed.`,
      "Roll back", true))) return;
    try {
      const { data } = await call("POST", projectPath(project, "/remoteConfig:rollback"), { body: { versionNumber: version.versionNumber, updateOrigin: "CONSOLE" } });
      await reload();
      replace(notice, message("success", `Rolled back: version ${data.version.versionNumber} is a copy of version ${version.versionNumber}.`));
    } catch (error) {
      replace(notice, message("error", error.message));
    }
  };

  const compare = async () => {
    try {
      const { data } = await call("GET", projectPath(project, "/remoteConfig:diff"), { query: { from: from.value, to: to.value } });
      replace(diffOutput, renderDiff(data));
    } catch (error) {
      replace(diffOutput, message("error", error.message));
    }
  };

  function render() {
    const latest = versions.length ? versions[0].versionNumber : null;
    const options = [["draft", "Draft"], ...versions.map((version) => [version.versionNumber, `Version ${version.versionNumber}`])];
    const keepFrom = from.value || (versions[1] ? versions[1].versionNumber : latest);
    const keepTo = to.value || latest || "draft";
    replace(from, options.map(([value, text]) => h("option", { value, selected: value === keepFrom }, text)));
    replace(to, options.map(([value, text]) => h("option", { value, selected: value === keepTo }, text)));
    if (!versions.length) {
      replace(table, h("p", { class: "muted" }, "Nothing published yet."));
      return;
    }
    replace(table,
      h("div", { class: "table-wrap" }, h("table", { id: "versions" },
        h("caption", { class: "visually-hidden" }, "Published versions, newest first"),
        h("thead", {}, h("tr", {}, ["Version", "When", "Who", "How", "Description", ""].map((text) => h("th", { scope: "col" }, text)))),
        h("tbody", {}, versions.map((version) => h("tr", { dataset: { version: version.versionNumber } },
          h("td", { dataset: { label: "Version" } }, version.versionNumber, version.versionNumber === latest ? h("span", { class: "chip live" }, "live") : null),
          h("td", { dataset: { label: "When" } }, when(version.updateTime)),
          h("td", { dataset: { label: "Who" } }, version.updateUser ? version.updateUser.email : ""),
          h("td", { dataset: { label: "How" } }, how(version)),
          h("td", { dataset: { label: "Description" } }, version.description || ""),
          h("td", {}, editable && version.versionNumber !== latest
            ? button("Roll back", () => rollback(version), { "aria-label": `Roll back to version ${version.versionNumber}`, class: "rollback" })
            : null)))))),
      nextPageToken ? button("Show older versions", async () => { await loadPage(); render(); }) : null);
  }

  await loadPage();
  replace(view,
    notice,
    h("h2", {}, "Versions"),
    table,
    h("form", { class: "card", id: "compare" },
      h("h2", {}, "Compare"),
      h("div", { class: "row" }, field("From", from), field("To", to)),
      h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary", id: "compare-button" }, "Show differences"))),
    diffOutput);
  view.querySelector("#compare").addEventListener("submit", (event) => { event.preventDefault(); compare(); });
  render();
}
