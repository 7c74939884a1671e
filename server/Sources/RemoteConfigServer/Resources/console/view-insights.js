// Fleet insights of a project (docs/api.md "Fleet insights"): adoption of each app version over time per
// platform, drawn here as an SVG chart (no library), how high the minimum version can go, and each parameter's
// value shares.

import { ApiError, call, projectPath } from "./api.js";
import { field, h, message, replace, select, when } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const SERIES = 6;

/** An SVG element with attributes and children (`h` makes HTML elements only). */
function s(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null) element.setAttribute(name, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined) element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

const count = (n) => Number(n || 0).toLocaleString("en-US");
const percent = (share) => `${(Number(share || 0) * 100).toFixed(1)}%`;
const day = (start, hourly) => {
  const date = new Date(start);
  return hourly ? date.toISOString().slice(5, 13).replace("T", " ") + "h" : date.toISOString().slice(5, 10);
};

/** The versions drawn: the most common at the last bucket, the rest summed as "other". */
function seriesOf(buckets) {
  const totals = new Map();
  for (const bucket of buckets) {
    for (const [version, n] of Object.entries(bucket.versions || {})) totals.set(version, (totals.get(version) || 0) + n);
  }
  const last = buckets.length ? buckets[buckets.length - 1].versions || {} : {};
  const ranked = [...totals.keys()].sort((a, b) => (last[b] || 0) - (last[a] || 0) || totals.get(b) - totals.get(a));
  const named = ranked.slice(0, SERIES);
  const series = named.map((version) => ({ name: version, values: buckets.map((b) => (b.versions || {})[version] || 0) }));
  if (ranked.length > SERIES) {
    const rest = new Set(ranked.slice(SERIES));
    series.push({ name: "other versions", values: buckets.map((b) =>
      Object.entries(b.versions || {}).reduce((sum, [v, n]) => sum + (rest.has(v) ? n : 0), 0)) });
  }
  return series;
}

/** A line chart of active instances per version, one line per series, with a legend; `notes` adds a text to a
 * version's legend entry (the day its forecast says it can become the minimum). */
export function adoptionChart(buckets, platform, hourly, room = 760, notes = {}) {
  const series = seriesOf(buckets);
  if (!buckets.length || !series.length) return h("p", { class: "muted", id: "adoption-empty" }, "No app instances counted in this window.");
  // Drawn at the width it is shown at, so its labels stay readable on a phone.
  const width = Math.max(320, Math.min(900, Math.round(room))), height = 260, left = 56, right = 12, top = 12, bottom = 30;
  const max = Math.max(1, ...series.flatMap((line) => line.values));
  const x = (i) => left + (buckets.length === 1 ? (width - left - right) / 2 : (i * (width - left - right)) / (buckets.length - 1));
  const y = (v) => top + (height - top - bottom) * (1 - v / max);
  const label = `Active ${platform} instances by app version, ${day(buckets[0].start, hourly)} to ${day(buckets[buckets.length - 1].start, hourly)}`;
  const chart = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", id: "adoption-chart", role: "img", "aria-label": label },
    s("title", {}, label),
    [0, 0.5, 1].map((f) => [
      s("line", { class: "axis", x1: left, x2: width - right, y1: y(max * f), y2: y(max * f) }),
      s("text", { class: "label", x: left - 6, y: y(max * f) + 4, "text-anchor": "end" }, count(Math.round(max * f))),
    ]),
    s("text", { class: "label", x: buckets.length === 1 ? x(0) : left, y: height - 8, "text-anchor": buckets.length === 1 ? "middle" : "start" }, day(buckets[0].start, hourly)),
    buckets.length > 1 ? s("text", { class: "label", x: width - right, y: height - 8, "text-anchor": "end" }, day(buckets[buckets.length - 1].start, hourly)) : null,
    series.map((line, n) => s("g", { class: `series s${n}`, "data-version": line.name },
      s("polyline", { class: `series s${n}`, points: line.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ") }),
      line.values.map((v, i) => s("circle", { class: `series s${n}`, cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 2.5 },
        s("title", {}, `${line.name}: ${count(v)} on ${day(buckets[i].start, hourly)}`))))));
  const legend = h("ul", { class: "legend", id: "adoption-legend" }, series.map((line, n) =>
    h("li", { "data-version": line.name }, h("span", { class: `swatch s${n}`, "aria-hidden": "true" }),
      `${line.name} (${count(line.values[line.values.length - 1])})`,
      notes[line.name] ? h("span", { class: "muted forecast-note" }, ` · ${notes[line.name]}`) : null)));
  return h("div", {}, chart, legend);
}

/** The minimum-version figures of one platform (`insights/minimumVersion`): the current minimum, the newest
 * version within the share, and when each newer one is expected to get there. */
function minimumCard(data, limit) {
  if (!data.activeInstances) return h("p", { class: "muted", id: "minimum-empty" }, "No app instances of this platform in the last 7 days.");
  const about = (n) => `about ${count(n)}`;
  const lines = [
    h("p", { id: "minimum-current" }, data.current
      ? ["Current minimum: ", h("code", {}, data.current.value), ` (${data.current.parameter}), blocks ${percent(data.current.blockedShare)} (${about(data.current.blockedInstances)})`]
      : "Current minimum: none (the parameter is not a version for this platform's newest version)."),
    data.recommended ? h("p", { id: "minimum-recommended" },
      h("strong", {}, `Recommended within ${percent(limit)}: `), h("code", {}, data.recommended.version),
      `, blocks ${percent(data.recommended.blockedShare)} (${about(data.recommended.blockedInstances)})`) : null,
    data.unknownShare > 0 ? h("p", { class: "muted" }, `${percent(data.unknownShare)} run a version that cannot be compared; counted as blocked.`) : null,
  ];
  const rows = (data.forecast || []).map((entry) => h("tr", {},
    h("td", { dataset: { label: "Version" } }, h("code", {}, entry.version)),
    h("td", { dataset: { label: "Blocks now" } }, percent(entry.blockedShare)),
    h("td", { dataset: { label: `Within ${percent(limit)} by` } }, entry.reachesMaxBlockedShare || (entry.basedOnDays < 5 ? "too few days" : "not falling")),
    h("td", { dataset: { label: "Days of data" } }, String(entry.basedOnDays))));
  const table = rows.length ? h("div", { class: "table-wrap" }, h("table", { id: "minimum-forecast" },
    h("caption", { class: "visually-hidden" }, "When each newer version is expected to block no more than the share"),
    h("thead", {}, h("tr", {}, ["Version", "Blocks now", `Within ${percent(limit)} by`, "Days of data"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, rows))) : null;
  return h("div", {}, lines, table);
}

/** What a policy's last check decided, in words. */
const RESULTS = {
  RAISED: "raised it to", PROPOSED: "proposed", UNCHANGED: "left it unchanged", NOT_ENOUGH_DATA: "found too little data",
  LIMITED: "was held back by a limit",
};

/** The minimum-version policy (`minimumVersionPolicy`): its limits and what its last check did. */
function policyCard(policy, project) {
  if (!policy.enabled) {
    return h("p", { class: "muted", id: "minimum-policy" }, "Raised by itself: off. An admin can let the server raise the minimum within limits (PUT …/minimumVersionPolicy, see the API documentation).");
  }
  const slot = policy.condition ? ` (condition ${policy.condition})` : "";
  const limits = [
    `to the recommendation within ${percent(policy.maxBlockedShare)}`,
    `once at least ${count(policy.minActiveInstances)} instances were seen`,
    policy.neverAbove ? `never above ${policy.neverAbove}` : null,
    policy.keepBehindLatest ? `${policy.keepBehindLatest} release${policy.keepBehindLatest === 1 ? "" : "s"} behind the latest` : null,
  ].filter(Boolean).join(", ");
  const how = policy.action === "PUBLISH" ? "published at once" : "as a change request";
  const hours = policy.checkIntervalSeconds / 3600;
  const every = hours >= 24 && hours % 24 === 0 ? `${hours / 24 === 1 ? "day" : `${hours / 24} days`}` : hours >= 1 ? `${hours} h` : `${policy.checkIntervalSeconds / 60} min`;
  const last = policy.lastCheckTime ? h("p", { id: "minimum-policy-last" },
    `Last check ${when(policy.lastCheckTime)}: `, h("strong", {}, RESULTS[policy.lastResult] || policy.lastResult),
    policy.lastResult === "RAISED" || policy.lastResult === "PROPOSED" ? [" ", h("code", {}, policy.lastRecommendation)] : null,
    policy.lastDetail ? ` — ${policy.lastDetail}` : null,
    policy.lastChangeRequest && policy.lastResult === "PROPOSED" ? [" ", h("a", { href: `#/projects/${encodeURIComponent(project)}/changes` }, policy.lastChangeRequest)] : null)
    : h("p", { class: "muted", id: "minimum-policy-last" }, "Not checked yet.");
  return h("div", { id: "minimum-policy" },
    h("p", {}, h("strong", {}, "Raised by itself: "), `${policy.platform} ${policy.parameter}${slot}, ${limits}; checked every ${every}, ${how}.`),
    last);
}

/** The parameters' value shares, as Firebase's console shows "% of fetches that received this value". */
function parameterTable(data) {
  const rows = Object.entries(data.parameters || {}).flatMap(([key, parameter]) => (parameter.sources || []).map((source, i) =>
    h("tr", {},
      h("td", { dataset: { label: "Parameter" } }, h("code", { class: i === 0 ? null : "muted" }, key)),
      h("td", { dataset: { label: "Decided by" } }, source.source === "CONDITION" ? `condition ${source.condition}` : source.source === "DEFAULT" ? "default value" : "in-app default"),
      h("td", { dataset: { label: "Answers" } }, count(source.answers)),
      h("td", { class: "share-cell", dataset: { label: "Share" } }, h("meter", { min: 0, max: 1, value: source.share || 0 }), percent(source.share)))));
  if (!rows.length) return h("p", { class: "muted" }, "No answers counted in this window.");
  return h("div", { class: "table-wrap" }, h("table", { id: "parameter-shares" },
    h("caption", { class: "visually-hidden" }, "Share of answers per parameter and what decided the value"),
    h("thead", {}, h("tr", {}, ["Parameter", "Decided by", "Answers", "Share"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, rows)));
}

/** Renders the Insights page of `project` into `view`. */
export async function insightsView(view, { project }) {
  let versions;
  try {
    ({ data: versions } = await call("GET", projectPath(project, "/insights/versions")));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && !error.message.startsWith("project ")) {
      replace(view, message("info", "This server does not count fleet insights."));
      return;
    }
    throw error;
  }
  if (!versions.enabled) {
    replace(view, message("info", "Insights are turned off on this server (--insights off): nothing is counted."));
    return;
  }
  const platforms = (versions.platforms || []).map((p) => p.platform);
  if (!platforms.length) platforms.push("IOS");
  const platform = select(platforms.map((p) => [p, p]), platforms[0], { id: "insights-platform" });
  const bucket = select([["DAY", "By day"], ["HOUR", "By hour (14 days)"]], "DAY", { id: "insights-bucket" });
  const adoption = h("div", { id: "adoption" });
  const totals = h("p", { class: "muted", id: "insights-totals" });
  const maxBlocked = select([["0.005", "0.5%"], ["0.01", "1%"], ["0.02", "2%"], ["0.05", "5%"]], "0.01", { id: "minimum-max-blocked" });
  const minimum = h("div", { id: "minimum" });
  let notes = {};
  const drawMinimum = async () => {
    const { data } = await call("GET", projectPath(project, "/insights/minimumVersion"), { query: { platform: platform.value, maxBlockedShare: maxBlocked.value } });
    const limit = Number(maxBlocked.value);
    replace(minimum, minimumCard(data, limit));
    notes = Object.fromEntries((data.forecast || []).filter((f) => f.reachesMaxBlockedShare)
      .map((f) => [f.version, `within ${percent(limit)} by ${f.reachesMaxBlockedShare}`]));
    if (data.recommended) notes[data.recommended.version] = `recommended minimum (blocks ${percent(data.recommended.blockedShare)})`;
  };
  const drawAdoption = async () => {
    replace(adoption, h("p", { class: "muted" }, "Loading…"));
    const { data } = await call("GET", projectPath(project, "/insights/timeline"), { query: { platform: platform.value, bucket: bucket.value } });
    const summary = (versions.platforms || []).find((p) => p.platform === platform.value);
    replace(totals, summary ? `${count(summary.activeInstances)} active ${platform.value} instances and ${count(summary.answers)} answers in the last 7 days.` : "");
    drawn = { buckets: data.buckets || [], platform: platform.value, hourly: bucket.value === "HOUR", width: adoption.clientWidth };
    replace(adoption, adoptionChart(drawn.buckets, drawn.platform, drawn.hourly, drawn.width || 760, notes));
  };
  // A phone turned sideways, a window resized: drawn again at the new width.
  let drawn = null;
  new ResizeObserver(() => {
    if (!drawn || !adoption.isConnected || Math.abs(adoption.clientWidth - drawn.width) < 40) return;
    drawn.width = adoption.clientWidth;
    replace(adoption, adoptionChart(drawn.buckets, drawn.platform, drawn.hourly, drawn.width, notes));
  }).observe(adoption);
  const redraw = () => drawMinimum().then(drawAdoption).catch((error) => replace(adoption, message("error", error.message)));
  platform.addEventListener("change", redraw);
  bucket.addEventListener("change", redraw);
  maxBlocked.addEventListener("change", redraw);
  const { data: parameters } = await call("GET", projectPath(project, "/insights/parameters"));
  const { data: policy } = await call("GET", projectPath(project, "/minimumVersionPolicy"));
  replace(view,
    h("section", { class: "card", id: "insights-adoption" },
      h("h2", {}, "Adoption by app version"),
      h("div", { class: "row" }, field("Platform", platform), field("Buckets", bucket)),
      totals, adoption),
    h("section", { class: "card", id: "insights-minimum" },
      h("h2", {}, "Minimum supported version"),
      h("p", { class: "muted" }, "How high the minimum can go without blocking more than a share of the platform's active instances (last 7 days), and when newer versions are expected to get there."),
      h("div", { class: "row" }, field("Block at most", maxBlocked)),
      minimum, policyCard(policy, project)),
    h("section", { class: "card", id: "insights-parameters" },
      h("h2", {}, "What apps received"),
      h("p", { class: "muted" }, `Of ${count(parameters.answers)} answers in the last 7 days.`),
      parameterTable(parameters)));
  await redraw();
}
