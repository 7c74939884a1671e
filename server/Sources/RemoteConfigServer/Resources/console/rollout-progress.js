// A rollout's progress: a bar of the share of its audience now in, and its steps in order (published with the
// version and time, next with its time, or planned), each with the share of answers its condition matched while
// it was live, read from the fleet insights (`…/insights/parameters?since=&until=`).

import { call, projectPath } from "./api.js";
import { h, replace } from "./dom.js";
import { localTime, relative, utc } from "./local-time.js";

const HOUR = 3600 * 1000;

/** Seconds as people say them ("1 hour", "2 days", "90 seconds"). */
export function duration(seconds) {
  const n = Number(seconds || 0);
  const unit = (value, word) => `${value} ${word}${value === 1 ? "" : "s"}`;
  if (n > 0 && n % 86400 === 0) return unit(n / 86400, "day");
  if (n > 0 && n % 3600 === 0) return unit(n / 3600, "hour");
  if (n > 0 && n % 60 === 0) return unit(n / 60, "minute");
  return unit(n, "second");
}

const percentText = (share) => `${(Number(share || 0) * 100).toFixed(1)}%`;

/** The bar: how much of the audience gets the new value now. */
function bar(rollout) {
  // Completing makes the value the default: everyone has it, whatever step it was completed from.
  const percent = rollout.state === "COMPLETED" ? 100 : Number(rollout.percent || 0);
  const steps = rollout.steps || [];
  const fill = h("div", { class: `rollout-fill ${rollout.state === "HALTED" ? "halted" : ""}` });
  // Set through the CSSOM: the console's CSP allows no inline style attribute.
  fill.style.width = `${Math.max(0, Math.min(100, percent))}%`;
  const text = rollout.state === "HALTED" ? `Halted at ${percent}%: no app instance gets the new value any more`
    : rollout.state === "COMPLETED" ? "Completed: every app instance gets the new value"
      : rollout.state === "PROPOSED" ? "Not started: it starts once its change request is approved and published"
      : `${percent}% of the audience, step ${Number(rollout.currentStep || 0) + 1} of ${steps.length}`;
  return h("div", { class: "rollout-progress" },
    h("div", { class: "rollout-bar", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": 100, "aria-valuenow": percent,
      "aria-valuetext": text, "aria-label": `Progress of the rollout of ${rollout.parameter}` }, fill),
    h("div", { class: "rollout-bar-text" }, text));
}

/** Planned times of the steps after the next one: the next step's time plus the holds between. */
function plannedTimes(rollout) {
  const times = [];
  const steps = rollout.steps || [];
  const current = Number(rollout.currentStep || 0);
  if (rollout.state !== "RUNNING" || !rollout.nextStepTime) return times;
  let at = new Date(rollout.nextStepTime).getTime();
  for (let i = current + 1; i < steps.length; i += 1) {
    times[i] = at;
    at += Number(steps[i].holdSeconds || 0) * 1000;
  }
  return times;
}

/** What happened to step `i`, in words, with its times. */
function stepStatus(rollout, i, published, planned) {
  const current = Number(rollout.currentStep || 0);
  if (published) {
    return [h("span", { class: "step-state done" }, i === current && ["RUNNING", "PAUSED"].includes(rollout.state) ? "Live" : "Published"),
      ` as version ${published.versionNumber}, `, localTime(published.time, "", { compact: true })];
  }
  if (["HALTED", "COMPLETED", "PROPOSED"].includes(rollout.state)) {
    return h("span", { class: "muted" }, { PROPOSED: "Waiting for approval", HALTED: "Not reached: halted", COMPLETED: "Not needed: completed before" }[rollout.state]);
  }
  if (rollout.state === "PAUSED") return h("span", { class: "muted" }, "Waits until the rollout is resumed");
  if (i === current + 1 && rollout.nextStepTime) {
    return [h("span", { class: "step-state next" }, "Next"), " at ", localTime(rollout.nextStepTime, "", { compact: true }),
      h("span", { class: "muted" }, ` (${relative(rollout.nextStepTime)})`)];
  }
  return planned[i] ? [h("span", { class: "muted" }, "Planned, about "), localTime(new Date(planned[i]).toISOString(), "", { compact: true })]
    : h("span", { class: "muted" }, "Planned");
}

/**
 * The progress of `rollout`: the bar and its steps. The steps' shares of answers are filled in afterwards
 * (`shares` is called with the step list's elements), so the page shows at once.
 */
export function progress(project, rollout) {
  const steps = rollout.steps || [];
  const history = rollout.history || [];
  const planned = plannedTimes(rollout);
  const shareCells = [];
  const items = steps.map((step, i) => {
    const published = [...history].reverse().find((entry) => entry.step === i);
    const current = i === Number(rollout.currentStep || 0) && ["RUNNING", "PAUSED"].includes(rollout.state);
    const share = h("div", { class: "step-share muted" });
    if (published) shareCells.push({ cell: share, entry: published, next: history[history.indexOf(published) + 1] });
    return h("li", { class: `step ${published ? "reached" : ""} ${current ? "current" : ""}`, dataset: { step: i },
      "aria-current": current ? "step" : null },
    h("div", { class: "step-percent" }, h("span", { class: "visually-hidden" }, `Step ${i + 1}: `), `${step.percent}%`),
    h("div", { class: "step-hold muted" }, i === steps.length - 1 ? "last step" : `then held ${duration(step.holdSeconds)}`),
    h("div", { class: "step-status" }, stepStatus(rollout, i, published, planned)),
    share);
  });
  const list = h("ol", { class: "stepper", "aria-label": `Steps of the rollout of ${rollout.parameter}` }, items);
  fillShares(project, rollout, shareCells).catch(() => {
    for (const { cell } of shareCells) replace(cell, "Share of answers: not available");
  });
  return h("div", {}, bar(rollout), list);
}

const floorHour = (time) => Math.floor(time / HOUR) * HOUR;
const ceilHour = (time) => Math.ceil(time / HOUR) * HOUR;

/**
 * For each published step: the share of the project's answers for which the rollout's condition was true,
 * counted over the UTC hours the step was live (insights count per hour, so a step shorter than an hour shares
 * its hour with its neighbours; the label says which hours).
 */
async function fillShares(project, rollout, cells) {
  if (!cells.length) return;
  const end = ["HALTED", "COMPLETED"].includes(rollout.state) && rollout.endTime ? new Date(rollout.endTime).getTime() : Date.now();
  await Promise.all(cells.map(async ({ cell, entry, next }) => {
    const since = new Date(entry.time).getTime();
    const until = Math.max(since + 1000, next ? new Date(next.time).getTime() : end);
    const { data } = await call("GET", projectPath(project, "/insights/parameters"),
      { query: { since: new Date(since).toISOString(), until: new Date(until).toISOString() } });
    if (!data.enabled) {
      replace(cell, "Share of answers: insights are off on this server");
      return;
    }
    const matched = (data.conditions || {})[rollout.conditionName] || { matched: 0, share: 0 };
    const from = utc(new Date(floorHour(since)).toISOString());
    const to = utc(new Date(ceilHour(until)).toISOString());
    // "14:00–16:00 UTC" within a day; with the dates ("11-25 10:00 – 11-26 17:00 UTC") across days.
    const hours = from.slice(0, 10) === to.slice(0, 10) || to.slice(11, 16) === "00:00" && ceilHour(until) - floorHour(since) <= 24 * HOUR
      ? `${from.slice(11, 16)}–${to.slice(11, 16)} UTC`
      : `${from.slice(5, 16)} – ${to.slice(5, 16)} UTC`;
    replace(cell,
      h("span", { class: "share-value", title: `The rollout's condition ${rollout.conditionName} was true for ${matched.matched} of the project's ${data.answers} answers counted in the hours ${hours} (insights count per UTC hour).` },
        h("strong", {}, percentText(matched.share)), " share of answers in the window"),
      h("span", { class: "share-window" }, ` (${Number(matched.matched || 0).toLocaleString("en-US")} of ${Number(data.answers || 0).toLocaleString("en-US")}, ${hours})`),
      // Hours are the smallest count: a step live for less than one shares its hours' answers with its neighbours.
      until - since < HOUR && next ? h("span", { class: "share-note" }, "; live for less than an hour, so these hours include the next step's answers") : null);
  }));
}
