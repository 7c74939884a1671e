// Checks a condition's expression while it is typed: the draft with the condition in place goes to
// `PUT …/remoteConfig?validateOnly=true`, which answers exactly what a publish would and stores nothing. A
// parse error's character position (the message ends "at N") is shown under the expression.

import { ApiError, call, projectPath } from "./api.js";
import { h, replace } from "./dom.js";

/**
 * Wires `textarea` to `output`: checks `candidate()` (`{template, index}`) 300 ms after the last keystroke.
 * Answers `check()` to run it at once; the latest answer wins.
 */
export function liveCheck(project, textarea, output, candidate) {
  let timer = null;
  let sequence = 0;
  const check = async () => {
    clearTimeout(timer);
    const mine = ++sequence;
    const { template, index } = candidate();
    if (!textarea.value.trim()) {
      show(output, textarea, { ok: false, text: "An expression is required." });
      return;
    }
    replace(output, h("span", { class: "muted" }, "Checking…"));
    let result;
    try {
      await call("PUT", projectPath(project, "/remoteConfig"), { query: { validateOnly: "true" }, ifMatch: "*", body: template });
      result = { ok: true };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      result = problem(error, index, textarea.value);
    }
    if (mine === sequence) show(output, textarea, result);
  };
  textarea.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(check, 300);
  });
  return check;
}

/** The problem of condition `index` in a refused template: its message and, for a parse error, the position. */
function problem(error, index, expression) {
  const prefix = `conditions[${index}]`;
  const mine = error.details.filter((detail) => detail.field && detail.field.startsWith(prefix));
  if (error.status === 400 && error.details.length && !mine.length) {
    // Only other parts of the draft are refused: this expression itself is fine.
    return { ok: true };
  }
  const detail = mine.find((item) => item.field.endsWith(".expression")) || mine[0];
  const text = (detail && detail.message) || error.message;
  const at = /\bat (\d+)$/.exec(text);
  return { ok: false, text, position: at && detail && detail.field.endsWith(".expression") ? Number(at[1]) : null, expression };
}

function show(output, textarea, result) {
  textarea.setAttribute("aria-invalid", result.ok ? "false" : "true");
  if (result.ok) {
    replace(output, h("span", { class: "ok", id: "expression-ok" }, "✓ The expression is valid."));
    return;
  }
  const parts = [h("div", { class: "bad", id: "expression-error" }, result.text)];
  if (result.position !== null && result.position !== undefined) {
    const characters = [...result.expression];
    const at = Math.min(result.position, characters.length);
    parts.push(h("pre", { class: "caret", id: "expression-caret", "aria-label": `The problem is at character ${at + 1}` },
      characters.slice(0, at).join(""),
      h("mark", {}, characters[at] ?? " "),
      characters.slice(at + 1).join(""),
      "\n", " ".repeat(at), "^"));
  }
  replace(output, parts);
  // On a narrow screen the expression scrolls sideways: bring the marked character into view.
  const pre = output.querySelector("pre.caret");
  const mark = pre && pre.querySelector("mark");
  if (mark) pre.scrollLeft = Math.max(0, mark.offsetLeft - pre.offsetLeft - pre.clientWidth / 2);
}
