// Rollouts of a project (docs/api.md "Rollouts"): each rollout's progress and next step, pause, resume, halt and
// complete (editors), and a form to start one. The halt token, for a monitoring tool's alert, is shown once.

import { ApiError, call, projectPath } from "./api.js";
import { button, confirmDialog, h, message, newId, replace, select, actorLabel } from "./dom.js";
import { localTime } from "./local-time.js";
import { progress } from "./rollout-progress.js";
import { rolloutForm } from "./rollout-form.js";

const STATES = {
  PROPOSED: ["Waiting for approval", "state-pending"],
  RUNNING: ["Running", "state-delivered"],
  PAUSED: ["Paused", "state-pending"],
  HALTED: ["Halted", "state-failed"],
  COMPLETED: ["Completed", "state-off"],
};
const POLL_MS = 2000;

const idOf = (rollout) => rollout.name.replace(/^rollouts\//, "");

/** A value as a fetch sends it; an empty string said in words, since it shows as nothing. */
const shownValue = (value) => value === "" ? h("span", { class: "muted rollout-value" }, "(empty string)") : h("code", { class: "rollout-value" }, String(value ?? ""));

/** Why a rollout is paused, in words. */
function pauseReason(rollout) {
  switch (rollout.pauseReason) {
    case "EDITED": return "Paused because a publish changed its parameter or condition; check the change, then resume, halt or complete.";
    case "STEP_FAILED": return "Paused because publishing its next step failed (the template it would publish was refused); see the audit log, then resume, halt or complete.";
    case "MANUAL": case null: case undefined: return "Paused by an editor: the next step waits until it is resumed.";
    default: return `Paused (${rollout.pauseReason}): the next step waits until it is resumed.`;
  }
}

/** How a halted or completed rollout ended: the version that ended it and when. */
function ending(rollout) {
  if (!["HALTED", "COMPLETED"].includes(rollout.state) || !rollout.endVersionNumber) return null;
  return h("p", { class: "rollout-ending" },
    rollout.state === "HALTED"
      ? `Halted by version ${rollout.endVersionNumber}, `
      : `Completed by version ${rollout.endVersionNumber}, which made the value the default, `,
    localTime(rollout.endTime), ".");
}

/** The "shown once" panel for a new rollout's halt token, with the alert hook to give a monitoring tool. */
function haltTokenPanel(rollout, dismiss) {
  const hook = `${location.origin}/v1/rollouts/${idOf(rollout)}:halt`;
  const token = h("input", { id: "rollout-halt-token", readOnly: true, value: rollout.haltToken, class: "secret", spellcheck: false, autocomplete: "off" });
  const url = h("input", { id: "rollout-halt-url", readOnly: true, value: hook, class: "secret", spellcheck: false, autocomplete: "off" });
  const copied = h("span", { class: "muted", "aria-live": "polite" });
  const copy = (text, input, what) => async () => {
    try {
      await navigator.clipboard.writeText(text);
      copied.textContent = `${what} copied.`;
    } catch {
      input.select();
      copied.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
    }
  };
  return h("section", { class: "message success secret-panel", id: "rollout-halt-panel", "aria-labelledby": "rollout-halt-title" },
    h("div", { class: "secret-body" },
      h("h2", { id: "rollout-halt-title" }, `Rollout of ${rollout.parameter} started: its halt token`),
      h("p", {}, h("strong", {}, "Copy the halt token now: you will not see it again. "),
        "Point your error tracker's or monitoring tool's alert webhook at the URL below with the token as a bearer token; ",
        "any body is fine. When the alert fires, the rollout halts within a second and every app gets the value it had before. ",
        "Repeated calls are harmless, and the token opens nothing else."),
      h("div", { class: "field" }, h("label", { htmlFor: token.id }, "Halt token"), token),
      h("div", { class: "field" }, h("label", { htmlFor: url.id }, "Alert hook URL (POST)"), url),
      h("pre", { class: "hook-example", id: "rollout-halt-example", tabIndex: 0, "aria-label": "Example call" },
        `curl -X POST -H "Authorization: Bearer ${rollout.haltToken}" \\\n  ${hook}`),
      h("div", { class: "buttons start" },
        button("Copy token", copy(rollout.haltToken, token, "Token"), { class: "primary", id: "copy-halt-token" }),
        button("Copy URL", copy(hook, url, "URL"), { id: "copy-halt-url" }),
        button("I have saved it", dismiss, { id: "dismiss-halt-token" }),
        copied)));
}

/** Renders the Rollouts page of `project` into `view`. */
export async function rolloutsView(view, { project, editable }) {
  const collection = projectPath(project, "/rollouts");
  const notice = h("div", { id: "rollouts-notice", "aria-live": "polite" });
  const tokenHolder = h("div", { id: "rollout-halt-holder" });
  const list = h("div", { id: "rollouts" });
  const filter = select([["", "All states"], ["RUNNING", "Running"], ["PAUSED", "Paused"], ["PROPOSED", "Waiting for approval"], ["HALTED", "Halted"], ["COMPLETED", "Completed"]], "", { id: "rollouts-state" });
  // The list comes a page at a time; the page shows every rollout, so it follows them all.
  const listAll = async (state) => {
    const all = [];
    let pageToken = null;
    do {
      const { data } = await call("GET", collection, { query: { state, pageSize: 300, pageToken } });
      all.push(...(data.rollouts || []));
      pageToken = data.nextPageToken || null;
    } while (pageToken);
    return all;
  };
  let rollouts;
  try {
    rollouts = await listAll("");
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && !error.message.startsWith("project ")) {
      replace(view, message("info", "This server does not run rollouts (it answered 404 to …/rollouts): update it to roll a value out step by step."));
      return;
    }
    throw error;
  }
  let timer = null;

  const reload = async () => {
    rollouts = await listAll(filter.value);
    render();
  };
  // While a step is due within a minute, read again, so the page shows it published without a reload.
  const poll = () => {
    clearTimeout(timer);
    const soon = rollouts.some((r) => r.state === "RUNNING" && r.nextStepTime && new Date(r.nextStepTime) - Date.now() < 60000);
    if (soon) timer = setTimeout(() => { if (list.isConnected) reload().catch(() => {}); }, POLL_MS);
  };

  const act = async (rollout, action, done) => {
    try {
      const { data } = await call("POST", `${collection}/${encodeURIComponent(idOf(rollout))}:${action}`);
      replace(notice, message("success", done(data)));
      await reload();
      // Keyboard focus goes to what replaced the pressed button (Pause ↔ Resume), else to the rollout's title.
      const card = list.querySelector(`[data-rollout="${CSS.escape(idOf(rollout))}"]`);
      const next = card && (card.querySelector({ pause: "button.resume", resume: "button.pause" }[action] || "none") || card.querySelector("h3"));
      if (next) next.focus();
    } catch (error) {
      replace(notice, message("error", error.message));
    }
  };
  const halt = async (rollout) => {
    if (!(await confirmDialog(`Halt the rollout of ${rollout.parameter}?`,
      `A new version is published without its condition ${rollout.conditionName}: every app instance gets the value it had before the rollout. It cannot be resumed; start a new rollout to try again.`,
      "Halt rollout", true))) return;
    await act(rollout, "halt", () => `Halted the rollout of ${rollout.parameter}: everyone gets the value they had before.`);
  };
  const complete = async (rollout) => {
    if (!(await confirmDialog(`Complete the rollout of ${rollout.parameter}?`,
      `A new version is published with ${rollout.value} as the default value of ${rollout.parameter}, for every app instance, and the condition ${rollout.conditionName} removed. While the project requires approval, a change request that does so is opened instead.`,
      "Complete rollout"))) return;
    await act(rollout, "complete", (data) => data.state === "COMPLETED"
      ? `Completed: ${rollout.parameter} is ${rollout.value} for everyone.`
      : `Proposed the completion as ${data.changeRequest}: approving and publishing it makes ${rollout.value} the value of ${rollout.parameter} for everyone.`);
  };

  const card = (rollout) => {
    const [stateText, stateClass] = STATES[rollout.state] || [rollout.state, ""];
    const titleId = newId("rollout");
    const live = ["RUNNING", "PAUSED"].includes(rollout.state);
    const actions = editable && live ? h("div", { class: "buttons start rollout-actions" },
      rollout.state === "RUNNING"
        ? button("Pause", () => act(rollout, "pause", () => `Paused the rollout of ${rollout.parameter}: no further step until it is resumed.`), { class: "pause", "aria-label": `Pause the rollout of ${rollout.parameter}` })
        : button("Resume", () => act(rollout, "resume", () => `Resumed the rollout of ${rollout.parameter}.`), { class: "primary resume", "aria-label": `Resume the rollout of ${rollout.parameter}` }),
      button("Complete", () => complete(rollout), { class: "complete", "aria-label": `Complete the rollout of ${rollout.parameter}` }),
      button("Halt", () => halt(rollout), { class: "danger halt", "aria-label": `Halt the rollout of ${rollout.parameter}` })) : null;
    const situation = rollout.state === "PAUSED" ? message("info", pauseReason(rollout))
      : rollout.state === "PROPOSED" ? message("info", `Proposed as ${rollout.changeRequest || "a change request"}: approving and publishing it starts the rollout.`,
        h("a", { href: `#/projects/${encodeURIComponent(project)}/changes` }, "Open change requests"))
        : null;
    return h("li", { class: "card rollout", dataset: { rollout: idOf(rollout), state: rollout.state }, "aria-labelledby": titleId },
      h("div", { class: "rollout-head" },
        h("div", { class: "rollout-title" },
          h("h3", { id: titleId, tabIndex: -1 }, h("code", {}, rollout.parameter), " → ", shownValue(rollout.value)),
          rollout.description ? h("div", { class: "description" }, rollout.description) : null),
        h("span", { class: `state ${stateClass} rollout-state` }, stateText)),
      h("dl", { class: "facts" },
        h("dt", {}, "Audience"), h("dd", {}, rollout.audience ? h("code", {}, rollout.audience) : "every app instance"),
        h("dt", {}, "Condition"), h("dd", {}, h("code", {}, rollout.conditionName || "")),
        h("dt", {}, rollout.state === "PROPOSED" ? "Proposed" : "Started"), h("dd", {}, localTime(rollout.createTime), rollout.author ? ` by ${actorLabel(rollout.author)}` : "")),
      situation,
      progress(project, rollout),
      ending(rollout),
      actions);
  };

  function render() {
    const empty = filter.value ? "No rollout in this state." : editable
      ? "No rollouts yet. Start one below: a new value for 1% of apps, then more on a schedule, halted at once if something goes wrong."
      : "No rollouts yet. An editor of this project can start one.";
    replace(list, rollouts.length ? h("ul", { class: "rollout-list" }, rollouts.map(card)) : h("p", { class: "muted", id: "rollouts-empty" }, empty));
    poll();
  }
  filter.addEventListener("change", () => reload().catch((error) => replace(notice, message("error", error.message))));

  // Drawn again after each start, so the form never still holds the rollout just started.
  const formHolder = h("div", {});
  const showForm = (template) => replace(formHolder, rolloutForm(project, template, async (rollout) => {
      showForm(template);
      replace(notice, rollout.state === "PROPOSED"
        ? message("success", `This project publishes through approved change requests: the rollout is proposed as ${rollout.changeRequest}.`)
        : message("success", `Started the rollout of ${rollout.parameter}: version ${(rollout.history || [])[0]?.versionNumber ?? "?"} gives it to ${rollout.percent}% of the audience.`));
      await reload();
      if (rollout.haltToken) {
        replace(tokenHolder, haltTokenPanel(rollout, () => {
          replace(tokenHolder);
          list.querySelector(`[data-rollout="${CSS.escape(idOf(rollout))}"] h3`)?.focus();
        }));
        tokenHolder.scrollIntoView({ block: "start" });
        const input = document.getElementById("rollout-halt-token");
        input.focus();
        input.select();
      }
    }));
  if (editable) showForm((await call("GET", projectPath(project, "/remoteConfig"))).data || {});
  replace(view,
    h("p", { class: "muted" }, "A rollout gives a parameter a new value for a growing share of app instances, step by step on a schedule; ",
      "halting it gives everyone back the value they had before, in one publish."),
    notice, tokenHolder,
    h("div", { class: "toolbar rollouts-toolbar" }, h("h2", {}, "Rollouts"), h("div", { class: "field compact" }, h("label", { htmlFor: filter.id }, "Show"), filter)),
    list, formHolder);
  render();
}
