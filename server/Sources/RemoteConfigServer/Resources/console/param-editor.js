// The parameter form (a modal): key, type, description, group, default value and one value per condition,
// each value either text or "use the in-app default". Saving is the caller's (the draft), so a refusal from
// the server is shown in the form, which stays open.

import { button, field, h, message, modal, newId, replace, select } from "./dom.js";
import { VALUE_TYPES } from "./template-model.js";

function valueControl(type, value, props) {
  if (type === "BOOLEAN") return select([["true", "true"], ["false", "false"]], value === "true" ? "true" : "false", props);
  if (type === "JSON") return h("textarea", { rows: 3, value: value ?? "", spellcheck: false, ...props });
  return h("input", { value: value ?? "", autocomplete: "off", spellcheck: false, inputMode: type === "NUMBER" ? "decimal" : null, ...props });
}

/** One value row: the value control and its "in-app default" checkbox. */
function valueEditor(label, idPrefix, type, value) {
  const state = { text: value && !value.useInAppDefault ? value.value ?? "" : "", inApp: !!(value && value.useInAppDefault) };
  const holder = h("div", { class: "value-editor" });
  const render = (currentType) => {
    const control = valueControl(currentType, state.text, { id: `${idPrefix}-value`, disabled: state.inApp });
    control.addEventListener("input", () => { state.text = control.value; });
    control.addEventListener("change", () => { state.text = control.value; });
    if (currentType === "BOOLEAN") state.text = control.value;
    const inApp = h("input", { type: "checkbox", id: `${idPrefix}-inapp`, checked: state.inApp });
    inApp.addEventListener("change", () => { state.inApp = inApp.checked; control.disabled = inApp.checked; });
    replace(holder, field(label, control),
      h("div", { class: "check" }, inApp, h("label", { htmlFor: inApp.id }, "Use in-app default")));
  };
  render(type);
  return { element: holder, retype: render, value: () => (state.inApp ? { useInAppDefault: true } : { value: state.text }) };
}

/**
 * Opens the form for `item` (`{key, group, parameter}`, or null for a new parameter) of `template`.
 * `save(key, group, parameter)` persists; it throws to keep the form open with the error shown.
 */
export function editParameter(template, item, save) {
  const parameter = item ? item.parameter : { defaultValue: { value: "" }, valueType: "STRING" };
  const conditions = template.conditions.map((condition) => condition.name);
  return modal(item ? `Edit parameter ${item.key}` : "Add a parameter", (close) => {
    let type = parameter.valueType || "STRING";
    const key = h("input", { id: "param-key", value: item ? item.key : "", required: true, autocomplete: "off", spellcheck: false });
    const typeSelect = select(VALUE_TYPES.map((t) => [t, t.charAt(0) + t.slice(1).toLowerCase()]), type, { id: "param-type" });
    const description = h("textarea", { id: "param-description", rows: 2, value: parameter.description || "" });
    const groups = Object.keys(template.parameterGroups);
    const listId = newId("groups");
    const group = h("input", { id: "param-group", value: item && item.group ? item.group : "", list: listId, autocomplete: "off" });
    const defaultEditor = valueEditor("Default value", "param-default", type, parameter.defaultValue);
    const rows = [];
    const rowsHolder = h("div", { class: "conditional-values", id: "param-conditional-values" });
    const addSelect = select([], "", { id: "param-add-condition" });
    const addArea = h("div", { class: "row add-condition" });

    const renderRows = () => {
      replace(rowsHolder, rows.map((row) => row.element));
      const unused = conditions.filter((name) => !rows.some((row) => row.name === name));
      replace(addSelect, unused.map((name) => h("option", { value: name }, name)));
      replace(addArea, unused.length
        ? [field("Condition", addSelect), button("Add value for condition", () => addRow(addSelect.value), { id: "param-add-conditional" })]
        : h("p", { class: "muted" }, conditions.length ? "Every condition has a value." : "No conditions yet: add them on the Conditions tab."));
    };
    const addRow = (name, value = { value: "" }, focus = true) => {
      const index = rows.length;
      const editor = valueEditor(`Value when “${name}”`, `param-cv-${index}`, type, value);
      const row = {
        name, editor,
        element: h("div", { class: "conditional", dataset: { condition: name } }, editor.element,
          button("Remove", () => { rows.splice(rows.indexOf(row), 1); renderRows(); addSelect.focus(); }, { class: "link", "aria-label": `Remove the value for ${name}` })),
      };
      rows.push(row);
      renderRows();
      if (focus) row.element.querySelector("input, select, textarea").focus();
    };
    for (const [name, value] of Object.entries(parameter.conditionalValues || {})) addRow(name, value, false);
    renderRows();

    typeSelect.addEventListener("change", () => {
      type = typeSelect.value;
      defaultEditor.retype(type);
      for (const row of rows) row.editor.retype(type);
    });

    const feedback = h("div", { id: "param-feedback" });
    const form = h("form", { method: "dialog", class: "stack" },
      h("div", { class: "row" },
        field("Key", key, "Letters, digits and _; not starting with a digit"),
        field("Type", typeSelect)),
      field("Description", description),
      field("Group", group, "Optional; an existing group or a new name"),
      h("datalist", { id: listId }, groups.map((name) => h("option", { value: name }))),
      h("fieldset", {}, h("legend", {}, "Default"), defaultEditor.element),
      h("fieldset", {}, h("legend", {}, "Conditional values (the first true condition, in the conditions' order, wins)"), rowsHolder, addArea),
      feedback,
      h("div", { class: "buttons" },
        button("Cancel", () => close(undefined)),
        h("button", { type: "submit", class: "primary", id: "param-save" }, "Save to draft")));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const result = {
        defaultValue: defaultEditor.value(),
        valueType: type,
      };
      if (description.value.trim()) result.description = description.value.trim();
      if (rows.length) result.conditionalValues = Object.fromEntries(rows.map((row) => [row.name, row.editor.value()]));
      try {
        await save(key.value.trim(), group.value.trim() || null, result);
        close(true);
      } catch (error) {
        replace(feedback, message("error", error.message,
          ...(error.details || []).map((detail) => h("span", { class: "detail" }, `${detail.field}: ${detail.reason}`))));
        if (error.kind) close(error); // a conflict: the view explains it
      }
    });
    setTimeout(() => key.focus(), 0);
    return form;
  });
}
