// Change requests and schedules (API.md "Publish workflow"): their place in the console, kept apart. The
// server does not have these routes yet, so the tab stays hidden (`changeRequestsAvailable`) and this view
// only says so. When the workflow lands: list (`GET …/remoteConfig/changeRequests`), show with its diff
// (`renderDiff` from diff.js), approve, reject, publish and cancel, here.

import { h, replace } from "./dom.js";

/** Whether the project tabs show "Change requests". */
export const changeRequestsAvailable = false;

/** Renders the change requests of `project` into `view`. */
export async function changesView(view) {
  replace(view, h("p", { class: "muted" }, "Change requests are not available on this server yet."));
}
