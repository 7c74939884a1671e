// Times as people read them: in their own time zone, with the exact UTC value on hover and for screen readers
// in `datetime`, so a time in a log line or an alert can be matched with what the page shows.

import { h } from "./dom.js";

/** The UTC value of an RFC 3339 timestamp, as `2026-11-26 14:00:05 UTC`. */
export function utc(timestamp) {
  const date = new Date(timestamp);
  return Number.isNaN(date.getTime()) ? String(timestamp) : `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/**
 * A `<time>` element showing `timestamp` in local time (UTC on hover); `fallback` (text) when there is none.
 * `compact` leaves out the year when it is this year's, for tables.
 */
export function localTime(timestamp, fallback = "", { compact = false } = {}) {
  if (!timestamp) return fallback;
  const date = new Date(timestamp);
  if (Number.isNaN(date.getTime())) return String(timestamp);
  const format = compact
    ? { month: "short", day: "numeric", hour: "numeric", minute: "2-digit", second: "2-digit",
      year: date.getFullYear() === new Date().getFullYear() ? undefined : "numeric" }
    : { dateStyle: "medium", timeStyle: "medium" };
  return h("time", { datetime: date.toISOString(), title: utc(timestamp) }, date.toLocaleString(undefined, format));
}

/** How far `timestamp` is from now, in words ("in 5 min", "3 h ago"), for a time that matters relative to now. */
export function relative(timestamp, now = Date.now()) {
  const seconds = Math.round((new Date(timestamp).getTime() - now) / 1000);
  if (Number.isNaN(seconds)) return "";
  const size = Math.abs(seconds);
  const text = size < 60 ? `${size} s` : size < 3600 ? `${Math.round(size / 60)} min`
    : size < 172800 ? `${Math.round(size / 3600)} h` : `${Math.round(size / 86400)} days`;
  if (size < 5) return "now";
  return seconds > 0 ? `in ${text}` : `${text} ago`;
}
