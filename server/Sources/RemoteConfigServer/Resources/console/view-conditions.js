// Conditions, in evaluation order: name, expression, colour and which parameters use them; add, edit,
// reorder and delete (editors), the expression checked as it is typed.

import { button, confirmDialog, field, h, message, modal, replace, select } from "./dom.js";
import { Draft } from "./draft.js";
import { draftBar } from "./draft-bar.js";
import { liveCheck } from "./expression-check.js";
import { conditionUsers, removeCondition, renameConditionReferences, TAG_COLORS } from "./template-model.js";

/** Renders the conditions of `project` into `view`. */
export async function conditionsView(view, { project, editable }) {
  const draft = await new Draft(project).load();
  const reload = async (notice) => {
    await draft.load();
    bar.update();
    replace(bar.notice, notice || null);
    render();
  };
  const bar = draftBar(draft, editable, reload);
  const list = h("div", { id: "conditions" });

  const shown = (focusName) => {
    bar.update();
    replace(bar.notice, message("success", "Saved to the draft. Publish to make it live."));
    render();
    const again = focusName && list.querySelector(`[data-condition="${CSS.escape(focusName)}"] button`);
    if (again) again.focus();
  };
  const saved = async (change, focusName) => {
    await draft.save(change);
    shown(focusName);
  };

  const edit = async (index) => {
    const result = await conditionDialog(project, draft, index);
    if (result instanceof Error) bar.showError(result);
    else if (result) shown(result);
  };
  const move = (index, by) => saved((template) => {
    const [item] = template.conditions.splice(index, 1);
    template.conditions.splice(index + by, 0, item);
  }, draft.template.conditions[index].name).catch((error) => bar.showError(error));
  const remove = async (condition) => {
    const users = conditionUsers(draft.template, condition.name);
    const text = users.length
      ? `Its values in ${users.join(", ")} are deleted with it.`
      : "No parameter uses it.";
    if (!(await confirmDialog(`Delete condition ${condition.name}?`, text, "Delete", true))) return;
    await saved((template) => removeCondition(template, condition.name)).catch((error) => bar.showError(error));
  };

  function render() {
    const conditions = draft.template.conditions;
    replace(list, conditions.length
      ? h("ol", { class: "conditions" }, conditions.map((condition, index) => {
        const users = conditionUsers(draft.template, condition.name);
        return h("li", { class: "condition-item", dataset: { condition: condition.name } },
          h("div", {},
            h("span", { class: `chip condition tag-${(condition.tagColor || "none").toLowerCase()}` }, condition.name),
            h("code", { class: "expression" }, condition.expression),
            h("div", { class: "muted" }, users.length ? `Used by ${users.join(", ")}` : "Not used by any parameter")),
          editable ? h("div", { class: "param-actions" },
            button("Edit", () => edit(index), { "aria-label": `Edit condition ${condition.name}` }),
            button("Up", () => move(index, -1), { disabled: index === 0, "aria-label": `Move ${condition.name} up` }),
            button("Down", () => move(index, 1), { disabled: index === conditions.length - 1, "aria-label": `Move ${condition.name} down` }),
            button("Delete", () => remove(condition), { class: "link", "aria-label": `Delete condition ${condition.name}` })) : null);
      }))
      : h("p", { class: "muted" }, "No conditions yet."));
  }

  replace(view, bar.element,
    h("p", { class: "muted" }, "Conditions are evaluated in this order; for each parameter the first true condition with a value wins."),
    editable ? h("div", { class: "toolbar" }, button("Add condition", () => edit(null), { class: "primary", id: "add-condition" })) : null,
    list);
  render();
}

/** The condition form; saves into `draft` itself. Resolves with the saved name, a Conflict, or undefined. */
function conditionDialog(project, draft, index) {
  const existing = index === null ? null : draft.template.conditions[index];
  return modal(existing ? `Edit condition ${existing.name}` : "Add a condition", (close) => {
    const name = h("input", { id: "cond-name", value: existing ? existing.name : "", required: true, maxLength: 100, autocomplete: "off" });
    const expression = h("textarea", { id: "cond-expression", rows: 3, value: existing ? existing.expression : "", spellcheck: false, required: true });
    const color = select([["", "None"], ...TAG_COLORS.map((c) => [c, c.charAt(0) + c.slice(1).toLowerCase().replace("_", " ")])], existing ? existing.tagColor || "" : "", { id: "cond-color" });
    const output = h("div", { id: "cond-check", class: "check-output", "aria-live": "polite" });
    const position = existing ? index : draft.template.conditions.length;
    const build = (template) => {
      const condition = { name: name.value.trim(), expression: expression.value };
      if (color.value) condition.tagColor = color.value;
      if (existing) {
        template.conditions[index] = condition;
        renameConditionReferences(template, existing.name, condition.name);
      } else {
        template.conditions.push(condition);
      }
      return template;
    };
    const check = liveCheck(project, expression, output, () => ({ template: build(structuredClone(draft.template)), index: position }));
    const feedback = h("div", {});
    const form = h("form", { method: "dialog", class: "stack" },
      field("Name", name),
      field("Expression", expression, "For example: device.os == 'ios' && app.version.<(['2.0.0'])"),
      output,
      field("Colour", color),
      feedback,
      h("div", { class: "buttons" },
        button("Cancel", () => close(undefined)),
        h("button", { type: "submit", class: "primary", id: "cond-save" }, "Save to draft")));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await draft.save(build);
        close(name.value.trim());
      } catch (error) {
        if (error.kind) { close(error); return; }
        replace(feedback, message("error", error.message));
      }
    });
    if (existing) check();
    setTimeout(() => name.focus(), 0);
    return form;
  });
}
