// Pure functions over a template in Firebase's JSON shape: finding, moving and removing parameters, and
// keeping conditional values in step when a condition is renamed or deleted.

export const VALUE_TYPES = ["STRING", "BOOLEAN", "NUMBER", "JSON"];
export const TAG_COLORS = ["BLUE", "BROWN", "CYAN", "DEEP_ORANGE", "GREEN", "INDIGO", "LIME", "ORANGE", "PINK", "PURPLE", "TEAL"];

/** The template with its three collections present and nothing but them and `version` kept. */
export function normalized(template) {
  return {
    conditions: Array.isArray(template.conditions) ? template.conditions : [],
    parameters: template.parameters || {},
    parameterGroups: template.parameterGroups || {},
  };
}

/** Every parameter as `{key, group, parameter}`, top-level ones first (group null). */
export function allParameters(template) {
  const list = Object.entries(template.parameters || {}).map(([key, parameter]) => ({ key, group: null, parameter }));
  for (const [group, body] of Object.entries(template.parameterGroups || {})) {
    for (const [key, parameter] of Object.entries(body.parameters || {})) list.push({ key, group, parameter });
  }
  return list;
}

/** The parameter named `key`, as `{key, group, parameter}`, or undefined. */
export function findParameter(template, key) {
  return allParameters(template).find((item) => item.key === key);
}

/** Removes the parameter `key` wherever it is; an emptied group stays (it keeps its description). */
export function removeParameter(template, key) {
  delete template.parameters[key];
  for (const body of Object.values(template.parameterGroups)) {
    if (body.parameters) delete body.parameters[key];
  }
}

/** Puts `parameter` under `key` in `group` (null: top level), replacing `previousKey` if given. */
export function putParameter(template, key, group, parameter, previousKey = key) {
  if (previousKey) removeParameter(template, previousKey);
  if (group) {
    template.parameterGroups[group] ||= { parameters: {} };
    template.parameterGroups[group].parameters ||= {};
    template.parameterGroups[group].parameters[key] = parameter;
  } else {
    template.parameters[key] = parameter;
  }
}

/** Keys of the parameters that have a value for condition `name`. */
export function conditionUsers(template, name) {
  return allParameters(template)
    .filter(({ parameter }) => parameter.conditionalValues && name in parameter.conditionalValues)
    .map(({ key }) => key);
}

/** Deletes condition `name` and every conditional value for it (what else could they mean?). */
export function removeCondition(template, name) {
  template.conditions = template.conditions.filter((condition) => condition.name !== name);
  for (const { parameter } of allParameters(template)) {
    if (parameter.conditionalValues) delete parameter.conditionalValues[name];
  }
}

/** Renames condition references from `from` to `to` in every parameter, keeping their order. */
export function renameConditionReferences(template, from, to) {
  if (from === to) return;
  for (const { parameter } of allParameters(template)) {
    const values = parameter.conditionalValues;
    if (!values || !(from in values)) continue;
    parameter.conditionalValues = Object.fromEntries(
      Object.entries(values).map(([name, value]) => [name === from ? to : name, value]));
  }
}

/** A value for people: the text, or "(in-app default)". */
export function showValue(value) {
  if (!value) return "(none)";
  if (value.useInAppDefault) return "(in-app default)";
  return value.value ?? "";
}
