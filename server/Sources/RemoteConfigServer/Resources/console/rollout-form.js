// The "Start a rollout" form: a parameter of the published template, a value fitting its type, an optional
// audience expression (checked as it is typed, as a publish would check it), the steps (percent and hold) and a
// description. A refusal is shown under the field it names (`parameter`, `value`, `audience`, `steps[1].percent`…).

import { ApiError, call, projectPath } from "./api.js";
import { button, h, replace, select } from "./dom.js";
import { allParameters } from "./template-model.js";

const UNITS = [["1", "seconds"], ["60", "minutes"], ["3600", "hours"], ["86400", "days"]];
const DEFAULT_STEPS = [[1, 1, "3600"], [10, 1, "86400"], [50, 1, "86400"], [100, 0, "3600"]];

function labelled(id, text, control, error, hint) {
  control.id = id;
  const parts = [h("label", { htmlFor: id }, text), control];
  const described = [];
  if (hint) {
    parts.push(h("div", { class: "hint", id: `${id}-hint` }, hint));
    described.push(`${id}-hint`);
  }
  if (error) {
    parts.push(error);
    described.push(error.id);
  }
  if (described.length) control.setAttribute("aria-describedby", described.join(" "));
  return h("div", { class: "field" }, parts);
}

function valueControl(type) {
  if (type === "BOOLEAN") return select([["true", "true"], ["false", "false"]], "true");
  if (type === "JSON") return h("textarea", { rows: 3, spellcheck: false, placeholder: "{\"enabled\": true}" });
  return h("input", { autocomplete: "off", spellcheck: false, inputMode: type === "NUMBER" ? "decimal" : null });
}

/** The form; `created(rollout)` gets the answer of the create call (with its halt token). */
export function rolloutForm(project, template, created) {
  const parameters = allParameters(template).sort((a, b) => a.key.localeCompare(b.key));
  const typeOf = (key) => (parameters.find((item) => item.key === key)?.parameter.valueType) || "STRING";
  const error = (name) => h("div", { class: "field-error", id: `rollout-${name}-error` });
  const errors = { parameter: error("parameter"), value: error("value"), audience: error("audience"), steps: error("steps"), description: error("description") };
  const general = h("div", { id: "rollout-form-error" });
  if (!parameters.length) {
    return h("section", { class: "card", id: "create-rollout" }, h("h2", {}, "Start a rollout"),
      h("p", { class: "muted", id: "rollout-no-parameters" }, "The published template has no parameter yet: add one on the Parameters tab and publish it, then roll a new value out here."));
  }
  const parameter = select(parameters.map((item) => [item.key, `${item.key} (${item.parameter.valueType || "STRING"})`]), parameters[0].key);
  const valueHolder = h("div", {});
  let value;
  const showValue = () => {
    value = valueControl(typeOf(parameter.value));
    const current = parameters.find((item) => item.key === parameter.value)?.parameter.defaultValue;
    const now = current ? (current.useInAppDefault ? "the in-app default" : JSON.stringify(current.value ?? "")) : "nothing";
    replace(valueHolder, labelled("rollout-value", "New value", value, errors.value, `Its default now: ${now}. The rollout's apps get this value instead.`));
  };
  parameter.addEventListener("change", showValue);
  showValue();

  const audience = h("textarea", { rows: 2, spellcheck: false, placeholder: "device.os == 'ios' && app.version.>=(['2.3.0'])" });
  const audienceCheck = h("div", { class: "check-output", id: "rollout-audience-check", "aria-live": "polite" });
  let timer = null;
  let sequence = 0;
  audience.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => checkAudience(++sequence), 300);
  });
  // Checked as a publish would check it (`validateOnly`): the template plus a condition with this expression.
  const checkAudience = async (mine) => {
    const expression = audience.value.trim();
    if (!expression) { replace(audienceCheck); audience.removeAttribute("aria-invalid"); return; }
    const candidate = { conditions: [...(template.conditions || []), { name: "rollout_audience_check", expression }],
      parameters: template.parameters || {}, parameterGroups: template.parameterGroups || {} };
    let problem = null;
    try {
      await call("PUT", projectPath(project, "/remoteConfig"), { query: { validateOnly: "true" }, ifMatch: "*", body: candidate });
    } catch (failure) {
      if (!(failure instanceof ApiError)) throw failure;
      const mineDetail = failure.details.find((d) => d.field && d.field.startsWith(`conditions[${candidate.conditions.length - 1}]`));
      problem = mineDetail ? mineDetail.message || failure.message : failure.status === 400 && failure.details.length ? null : failure.message;
      // The check names its stand-in condition; the person typed an audience, not a condition.
      if (problem) problem = problem.replace(/^condition "rollout_audience_check": /, "");
    }
    if (mine !== sequence) return;
    audience.setAttribute("aria-invalid", problem ? "true" : "false");
    replace(audienceCheck, problem ? h("span", { class: "bad" }, problem) : h("span", { class: "ok" }, "✓ The expression is valid."));
  };

  const stepRows = h("ol", { class: "step-rows", id: "rollout-steps" });
  const rows = [];
  const renumber = () => {
    rows.forEach((row, i) => {
      row.label.textContent = `Step ${i + 1}`;
      const last = i === rows.length - 1;
      row.holdGroup.hidden = last;
      row.holdNote.textContent = last ? "last step: stays until you complete or halt the rollout" : "";
      row.remove.disabled = rows.length === 1;
      row.percent.setAttribute("aria-label", `Step ${i + 1}: percent of the audience`);
      row.hold.setAttribute("aria-label", `Step ${i + 1}: hold for`);
      row.unit.setAttribute("aria-label", `Step ${i + 1}: unit of the hold`);
      row.remove.setAttribute("aria-label", `Remove step ${i + 1}`);
      row.percent.id = `rollout-step-${i}-percent`;
      row.hold.id = `rollout-step-${i}-hold`;
      row.unit.id = `rollout-step-${i}-unit`;
    });
  };
  const addRow = (percent, amount, unit) => {
    const row = {
      label: h("span", { class: "step-label" }),
      percent: h("input", { type: "number", min: 1, max: 100, step: "any", value: percent, class: "step-percent-input" }),
      hold: h("input", { type: "number", min: 0, step: "any", value: amount, class: "step-hold-input" }),
      unit: select(UNITS, unit),
      holdNote: h("span", { class: "hint" }),
    };
    row.holdGroup = h("span", { class: "step-inputs" }, h("span", { class: "muted" }, "then hold"), row.hold, row.unit);
    row.remove = button("Remove", () => {
      rows.splice(rows.indexOf(row), 1);
      row.element.remove();
      renumber();
    }, { class: "link danger" });
    row.element = h("li", { class: "step-row" }, row.label,
      h("span", { class: "step-inputs" }, row.percent, h("span", { "aria-hidden": "true" }, "%")), row.holdGroup, row.holdNote,
      row.remove);
    rows.push(row);
    stepRows.append(row.element);
    renumber();
    return row;
  };
  for (const [percent, amount, unit] of DEFAULT_STEPS) addRow(percent, amount, unit);
  const addStep = button("Add a step", () => {
    const last = rows[rows.length - 1];
    addRow(100, 0, "3600").percent.focus();
    if (last && Number(last.percent.value) >= 100) last.percent.value = "";
  }, { id: "rollout-add-step" });

  const description = h("input", { autocomplete: "off", maxLength: 500, placeholder: "New checkout for iOS" });
  const submit = h("button", { type: "submit", class: "primary", id: "create-rollout-button" }, "Start rollout");
  const form = h("form", { class: "card", id: "create-rollout", noValidate: true },
    h("h2", {}, "Start a rollout"),
    h("div", { class: "row" },
      labelled("rollout-parameter", "Parameter", parameter, errors.parameter, "From the published template"),
      valueHolder),
    labelled("rollout-audience", "Audience (optional)", audience, errors.audience,
      "A condition expression; empty means every app instance. The steps' percentages are of this audience."),
    audienceCheck,
    h("fieldset", { id: "rollout-steps-fieldset", "aria-describedby": errors.steps.id },
      h("legend", {}, "Steps"),
      h("p", { class: "hint" }, "Each step publishes a new version giving the value to that share of the audience; an app instance in at one step stays in at every later one."),
      stepRows, addStep, errors.steps),
    labelled("rollout-description", "Description (optional)", description, errors.description),
    general,
    h("div", { class: "buttons" }, submit));

  const clear = () => {
    for (const element of [...Object.values(errors), general]) replace(element);
    for (const element of form.querySelectorAll("[aria-invalid=true]")) element.removeAttribute("aria-invalid");
  };
  const showError = (failure) => {
    const detail = failure instanceof ApiError ? failure.details.find((d) => d.field) : null;
    const field = detail ? detail.field : "";
    const name = field.replace(/[[.].*$/, "");
    if (!errors[name]) {
      replace(general, h("div", { class: "message error", role: "alert" }, failure.message));
      return;
    }
    replace(errors[name], h("span", { role: "alert" }, failure.message));
    const step = /^steps\[(\d+)\](?:\.(percent|holdSeconds))?/.exec(field);
    const target = step && rows[Number(step[1])] ? (step[2] === "holdSeconds" ? rows[Number(step[1])].hold : rows[Number(step[1])].percent)
      : { parameter, value, audience, description }[name] || rows[0].percent;
    target.setAttribute("aria-invalid", "true");
    target.focus();
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clear();
    const steps = rows.map((row, i) => {
      const step = { percent: Number(row.percent.value) };
      if (i < rows.length - 1) step.holdSeconds = Math.round(Number(row.hold.value) * Number(row.unit.value));
      return step;
    });
    const body = { parameter: parameter.value, value: value.value, steps };
    if (audience.value.trim()) body.audience = audience.value.trim();
    if (description.value.trim()) body.description = description.value.trim();
    submit.disabled = true;
    try {
      const { data } = await call("POST", projectPath(project, "/rollouts"), { body });
      await created(data);
    } catch (failure) {
      showError(failure);
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}
