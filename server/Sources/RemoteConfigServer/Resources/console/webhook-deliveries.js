// One webhook's recent deliveries (`…/webhooks/{id}/deliveries`, newest first): their state, attempts and last
// answer, a Redeliver button each, and "Older deliveries" for the next page. While a delivery is pending the list
// reads itself again every two seconds, so a ping is seen arriving without reloading the page.

import { call, projectPath } from "./api.js";
import { button, h, message, replace } from "./dom.js";
import { localTime, relative } from "./local-time.js";

const PAGE = 10;
const POLL_MS = 2000;
const POLL_TRIES = 45;

/** What a state means, in a word people read. */
const STATES = {
  PENDING: ["Pending", "state-pending", "waiting for its next attempt"],
  DELIVERED: ["Delivered", "state-delivered", "the receiver answered 2xx"],
  FAILED: ["Failed", "state-failed", "given up after 24 hours of retries"],
};

function stateBadge(delivery) {
  const [text, kind, meaning] = STATES[delivery.state] || [delivery.state, "", ""];
  return h("span", { class: `state ${kind}`, title: meaning, dataset: { state: delivery.state } }, text);
}

function lastAnswer(delivery) {
  if (!delivery.attempts) return h("span", { class: "muted" }, "not attempted yet");
  const status = delivery.lastStatus ? `HTTP ${delivery.lastStatus}` : "";
  // The server's error for a refused status starts with that status: it is said once.
  const error = delivery.lastError && delivery.lastError !== status
    ? delivery.lastError.replace(status ? `${status}: ` : "", "") : "";
  const failed = delivery.state !== "DELIVERED" || Boolean(delivery.lastError);
  return [
    status ? h("span", { class: failed && delivery.lastError ? "http-status error-text" : "http-status" }, status) : null,
    error ? h("span", { class: "error-text delivery-error" }, error) : null,
    !status && !error ? h("span", { class: "muted" }, "no answer recorded") : null,
  ];
}

function nextAttempt(delivery) {
  if (delivery.state !== "PENDING" || !delivery.nextAttemptTime) return h("span", { class: "muted" }, "—");
  return [localTime(delivery.nextAttemptTime, "", { compact: true }), " ", h("span", { class: "muted relative" }, `(${relative(delivery.nextAttemptTime)})`)];
}

/**
 * The deliveries list of `webhook` in `project`. Answers `{element, refresh()}`; `refresh()` reads the newest page
 * again (after a ping) and keeps reading while one is pending.
 */
export function deliveriesList(project, webhook, notice) {
  const id = webhook.name.replace(/^webhooks\//, "");
  const path = projectPath(project, `/webhooks/${encodeURIComponent(id)}/deliveries`);
  const body = h("div", { class: "deliveries-body" });
  const element = h("section", { class: "deliveries", "aria-label": `Recent deliveries to ${webhook.url}` },
    h("div", { class: "toolbar" },
      h("h3", {}, "Recent deliveries"),
      button("Refresh", () => refresh(), { class: "link refresh-deliveries", "aria-label": `Refresh the deliveries to ${webhook.url}` })),
    body);
  let shown = [];
  let nextPageToken = null;
  let timer = null;
  let tries = 0;

  const redeliver = async (delivery, trigger) => {
    trigger.disabled = true;
    try {
      await call("POST", `${path}/${encodeURIComponent(delivery.id)}:redeliver`);
      replace(notice, message("success", `Delivery ${delivery.id} (${delivery.type}) queued again: the next attempt is now.`));
      await refresh();
    } catch (error) {
      replace(notice, message("error", error.message));
      trigger.disabled = false;
    }
  };

  const row = (delivery) => h("tr", { dataset: { delivery: delivery.id, state: delivery.state } },
    h("td", { dataset: { label: "Event" } }, h("code", {}, delivery.type),
      h("div", { class: "muted small" }, localTime(delivery.createTime, "", { compact: true }))),
    h("td", { dataset: { label: "State" } }, stateBadge(delivery)),
    h("td", { class: "attempts", dataset: { label: "Attempts" } }, String(delivery.attempts)),
    h("td", { class: "last-answer", dataset: { label: "Last answer" } }, lastAnswer(delivery)),
    h("td", { dataset: { label: "Last attempt" } }, localTime(delivery.lastAttemptTime, h("span", { class: "muted" }, "—"), { compact: true })),
    h("td", { dataset: { label: "Next attempt" } }, nextAttempt(delivery)),
    h("td", {}, delivery.state === "PENDING" && !delivery.attempts ? null
      : button(delivery.state === "PENDING" ? "Retry now" : "Redeliver", (event) => redeliver(delivery, event.currentTarget),
        { class: "redeliver", "aria-label": `${delivery.state === "PENDING" ? "Retry now" : "Redeliver"} ${delivery.type} delivery ${delivery.id}` })));

  const render = () => {
    if (!shown.length) {
      replace(body, h("p", { class: "muted empty-deliveries" },
        "Nothing sent yet. Deliveries appear here when a subscribed event happens; “Send test ping” sends one now."));
      return;
    }
    replace(body,
      h("div", { class: "table-wrap" }, h("table", { class: "deliveries-table" },
        h("caption", { class: "visually-hidden" }, `Deliveries to ${webhook.url}, newest first`),
        h("thead", {}, h("tr", {}, ["Event", "State", "Attempts", "Last answer", "Last attempt", "Next attempt", ""]
          .map((text) => h("th", { scope: "col" }, text || h("span", { class: "visually-hidden" }, "Actions"))))),
        h("tbody", {}, shown.map(row)))),
      nextPageToken ? h("div", { class: "buttons" }, button("Older deliveries", older, { class: "older-deliveries" })) : null);
  };

  const older = async () => {
    try {
      const { data } = await call("GET", path, { query: { pageSize: PAGE, pageToken: nextPageToken } });
      shown = shown.concat(data.deliveries || []);
      nextPageToken = data.nextPageToken || null;
      render();
    } catch (error) {
      replace(notice, message("error", error.message));
    }
  };

  // Keeps reading while something is on its way (a pending delivery due within a minute), at most ~90 s after
  // the last action, and never once the page is gone.
  const poll = () => {
    clearTimeout(timer);
    const soon = shown.some((d) => d.state === "PENDING" && (!d.nextAttemptTime || new Date(d.nextAttemptTime) - Date.now() < 60000));
    if (!soon || tries >= POLL_TRIES) return;
    tries += 1;
    timer = setTimeout(() => { if (element.isConnected) load().catch(() => {}); }, POLL_MS);
  };

  const load = async () => {
    const { data } = await call("GET", path, { query: { pageSize: Math.max(PAGE, shown.length) } });
    shown = data.deliveries || [];
    nextPageToken = data.nextPageToken || null;
    render();
    poll();
  };

  const refresh = async () => {
    tries = 0;
    try {
      await load();
    } catch (error) {
      replace(body, message("error", `The deliveries cannot be read: ${error.message}`));
    }
  };

  replace(body, h("p", { class: "muted" }, "Loading deliveries…"));
  return { element, refresh };
}
