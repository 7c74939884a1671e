// Parameters, as Firebase's console shows them: by group, each with its type, description, default and
// conditional values; a search; add, edit and delete (editors), every change saved to the draft.

import { button, confirmDialog, field, h, message, replace } from "./dom.js";
import { Draft } from "./draft.js";
import { draftBar } from "./draft-bar.js";
import { editParameter } from "./param-editor.js";
import { allParameters, putParameter, removeParameter, showValue } from "./template-model.js";

/** Renders the parameters of `project` into `view`. */
export async function parametersView(view, { project, editable }) {
  const draft = await new Draft(project).load();
  let query = "";
  const reload = async (notice) => {
    await draft.load();
    bar.update();
    replace(bar.notice, notice || null);
    render();
  };
  const bar = draftBar(draft, editable, reload);
  const search = h("input", { type: "search", id: "search", placeholder: "Key, description or value", autocomplete: "off" });
  const list = h("div", { id: "parameters" });
  search.addEventListener("input", () => { query = search.value.trim().toLowerCase(); render(); });

  const save = (previous) => async (key, group, parameter) => {
    await draft.save((template) => putParameter(template, key, group, parameter, previous));
  };
  const afterEdit = async (result, focusKey) => {
    if (result instanceof Error) { bar.showError(result); return; }
    if (result) { bar.update(); replace(bar.notice, message("success", "Saved to the draft. Publish to make it live.")); render(); }
    const again = focusKey && list.querySelector(`[data-key="${CSS.escape(focusKey)}"] button`);
    if (again) again.focus();
  };
  const add = async () => afterEdit(await editParameter(draft.template, null, save(null)));
  const edit = async (item) => afterEdit(await editParameter(draft.template, item, save(item.key)), item.key);
  const remove = async (item) => {
    if (!(await confirmDialog(`Delete ${item.key}?`, "The parameter leaves the draft; apps keep it until you publish.", "Delete", true))) return;
    try {
      await draft.save((template) => removeParameter(template, item.key));
      await afterEdit(true);
    } catch (error) {
      bar.showError(error);
    }
  };

  function matches({ key, parameter }) {
    if (!query) return true;
    const texts = [key, parameter.description || "", showValue(parameter.defaultValue),
      ...Object.entries(parameter.conditionalValues || {}).flatMap(([name, value]) => [name, showValue(value)])];
    return texts.some((text) => text.toLowerCase().includes(query));
  }

  function row(item) {
    const { key, parameter } = item;
    const conditional = Object.entries(parameter.conditionalValues || {});
    return h("li", { class: "param", dataset: { key } },
      h("div", { class: "param-name" },
        h("code", { class: "key" }, key),
        h("span", { class: `chip type-${(parameter.valueType || "STRING").toLowerCase()}` }, parameter.valueType || "STRING"),
        parameter.description ? h("div", { class: "muted description" }, parameter.description) : null),
      h("dl", { class: "param-values" },
        conditional.map(([name, value]) => [h("dt", {}, h("span", { class: "chip condition" }, name)), h("dd", { class: "value" }, showValue(value))]),
        h("dt", {}, "Default"), h("dd", { class: "value default" }, showValue(parameter.defaultValue))),
      editable ? h("div", { class: "param-actions" },
        button("Edit", () => edit(item), { "aria-label": `Edit ${key}`, class: "edit" }),
        button("Delete", () => remove(item), { "aria-label": `Delete ${key}`, class: "delete link" })) : null);
  }

  function render() {
    const items = allParameters(draft.template).filter(matches);
    const groups = new Map([[null, []]]);
    for (const name of Object.keys(draft.template.parameterGroups)) groups.set(name, []);
    for (const item of items) groups.get(item.group).push(item);
    const sections = [];
    for (const [name, members] of groups) {
      if (members.length === 0 && (query || name === null)) continue;
      const description = name ? draft.template.parameterGroups[name].description : null;
      sections.push(h("section", { class: "group", dataset: { group: name || "" } },
        h("h2", {}, name || "Parameters without a group", description ? h("span", { class: "muted" }, ` · ${description}`) : null),
        members.length ? h("ul", { class: "params" }, members.map(row)) : h("p", { class: "muted" }, "No parameters in this group.")));
    }
    if (!sections.length) sections.push(h("p", { class: "muted", id: "no-parameters" }, query ? "No parameter matches the search." : "No parameters yet."));
    replace(list, sections);
  }

  replace(view,
    bar.element,
    h("div", { class: "toolbar" },
      field("Search parameters", search),
      editable ? button("Add parameter", add, { class: "primary", id: "add-parameter" }) : null),
    list);
  render();
}
