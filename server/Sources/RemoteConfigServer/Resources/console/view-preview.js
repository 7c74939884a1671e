// Preview: fill in an app's context and see what a fetch would answer from the published template, a version
// or the draft, and why (`remoteConfig:evaluate`).

import { call, projectPath } from "./api.js";
import { field, h, message, replace, select } from "./dom.js";

const SOURCES = { CONDITION: "condition", DEFAULT: "default value", IN_APP_DEFAULT: "in-app default (nothing sent)" };

/** Renders the preview form of `project` into `view`. */
export async function previewView(view, { project }) {
  const { data } = await call("GET", projectPath(project, "/remoteConfig:listVersions"), { query: { pageSize: 50 } });
  const versions = data.versions || [];
  const inputs = {
    versionNumber: select([["", "Published template"], ["draft", "Draft"], ...versions.map((v) => [v.versionNumber, `Version ${v.versionNumber}`])], "", { id: "preview-version" }),
    platform: select([["", "(not sent)"], ["IOS", "iOS"], ["ANDROID", "Android"], ["WEB", "Web"]], "", { id: "preview-platform" }),
    appVersion: h("input", { id: "preview-app-version", placeholder: "2.1.0", autocomplete: "off" }),
    appBuild: h("input", { id: "preview-app-build", autocomplete: "off" }),
    appId: h("input", { id: "preview-app-id", placeholder: "com.example.shop", autocomplete: "off" }),
    countryCode: h("input", { id: "preview-country", placeholder: "JP", autocomplete: "off", maxLength: 8 }),
    languageCode: h("input", { id: "preview-language", placeholder: "ja-JP", autocomplete: "off" }),
    appInstanceId: h("input", { id: "preview-instance", autocomplete: "off" }),
    customSignals: h("textarea", { id: "preview-signals", rows: 2, placeholder: '{"plan": "pro"}', spellcheck: false }),
  };
  const output = h("div", { id: "preview-result", "aria-live": "polite" });
  const form = h("form", { class: "card", id: "preview-form" },
    h("h2", {}, "What would this app get?"),
    h("div", { class: "row" }, field("Template", inputs.versionNumber), field("Platform", inputs.platform)),
    h("div", { class: "row" }, field("App version", inputs.appVersion), field("App build", inputs.appBuild), field("App id", inputs.appId)),
    h("div", { class: "row" }, field("Country", inputs.countryCode), field("Language", inputs.languageCode), field("App instance id", inputs.appInstanceId, "For percent conditions")),
    field("Custom signals (JSON object)", inputs.customSignals),
    h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary", id: "preview-button" }, "Preview")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const context = {};
    for (const name of ["platform", "appVersion", "appBuild", "appId", "countryCode", "languageCode", "appInstanceId"]) {
      if (inputs[name].value.trim()) context[name] = inputs[name].value.trim();
    }
    if (inputs.customSignals.value.trim()) {
      try { context.customSignals = JSON.parse(inputs.customSignals.value); } catch {
        replace(output, message("error", "Custom signals must be a JSON object, such as {\"plan\": \"pro\"}."));
        return;
      }
    }
    // The previous answer goes at once, so it is never read as the answer to this context.
    replace(output, h("p", { class: "muted" }, "Evaluating…"));
    const body = { context };
    if (inputs.versionNumber.value) body.versionNumber = inputs.versionNumber.value;
    try {
      const answer = await call("POST", projectPath(project, "/remoteConfig:evaluate"), { body });
      replace(output, result(answer.data));
      output.scrollIntoView({ block: "start" });
    } catch (error) {
      replace(output, message("error", error.message));
    }
  });
  replace(view, form, output);
}

/** What a fetch's `state` means for the app, in words. */
const STATES = {
  UPDATE: "Values for this app: it applies the values below",
  EMPTY_CONFIG: "Nothing applies to this app: it keeps its in-app defaults",
  NO_TEMPLATE: "Nothing published yet: the app keeps its in-app defaults",
};

function truth(value) {
  return value === true ? "true" : value === false ? "false" : "unknown (an input it reads was not sent)";
}

function result(answer) {
  const parameters = Object.entries(answer.parameters || {});
  const conditions = Object.entries(answer.conditions || {});
  return h("div", { class: "card" },
    h("h2", {}, "Answer"),
    h("p", { id: "preview-state", dataset: { state: answer.state } }, STATES[answer.state] || answer.state,
      answer.templateVersion ? ` (version ${answer.templateVersion})` : ""),
    parameters.length ? h("div", { class: "table-wrap" }, h("table", { id: "preview-parameters" },
      h("thead", {}, h("tr", {}, ["Parameter", "Value sent", "Why"].map((text) => h("th", { scope: "col" }, text)))),
      h("tbody", {}, parameters.map(([key, item]) => h("tr", { dataset: { key } },
        h("td", { dataset: { label: "Parameter" } }, h("code", {}, key)),
        h("td", { class: "value", dataset: { label: "Value sent" } }, item.value ?? "(nothing)"),
        h("td", { class: "why", dataset: { label: "Why" } }, item.source === "CONDITION" ? `condition ${item.condition}` : SOURCES[item.source] || item.source)))))) : h("p", { class: "muted" }, "No parameters."),
    conditions.length ? [h("h3", {}, "Conditions"), h("ul", { id: "preview-conditions" }, conditions.map(([name, value]) =>
      h("li", { dataset: { condition: name, truth: String(value) } }, h("span", { class: "chip condition" }, name), " ", truth(value))))] : null);
}
