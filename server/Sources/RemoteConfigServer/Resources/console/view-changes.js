// Change requests and schedules (docs/api.md "Publish workflow"): the list, one request with its diff
// against the published template, approve, reject, publish and cancel; proposing the draft (optionally at
// a time); and, for admins, whether the project requires approval.

import { call, projectPath } from "./api.js";
import { button, field, h, message, modal, replace, select, when, actorLabel } from "./dom.js";
import { renderDiff } from "./diff.js";
import { impactPanel } from "./impact.js";

const STATES = ["OPEN", "APPROVED", "SCHEDULED", "PUBLISHED", "REJECTED", "CANCELLED"];

/** Asks for an optional comment (approve, reject); resolves undefined when dismissed. */
function askComment(title, confirmText) {
  return modal(title, (close) => {
    const comment = h("textarea", { id: "cr-comment", rows: 2, maxLength: 1000 });
    const form = h("form", { method: "dialog", class: "stack" }, field("Comment (optional)", comment),
      h("div", { class: "buttons" }, button("Cancel", () => close(undefined)),
        h("button", { type: "submit", class: "primary", id: "cr-comment-confirm" }, confirmText)));
    form.addEventListener("submit", (event) => { event.preventDefault(); close(comment.value.trim()); });
    setTimeout(() => comment.focus(), 0);
    return form;
  });
}

/** Renders the change requests of `project` into `view`. */
export async function changesView(view, { project, editable, admin }) {
  const base = projectPath(project, "/remoteConfig/changeRequests");
  const notice = h("div", { id: "cr-notice" });
  const list = h("div", {});
  const detail = h("div", { id: "cr-detail", "aria-live": "polite" });
  const filter = select([["", "Every state"], ...STATES.map((s) => [s, s.charAt(0) + s.slice(1).toLowerCase()])], "", { id: "cr-filter" });
  filter.addEventListener("change", () => load());

  const act = async (request, action, body, query) => {
    try {
      const { data } = await call("POST", `${base}/${request.name.split("/")[1]}:${action}`, { body, query });
      replace(notice, message("success", `Change request ${request.name.split("/")[1]} is ${data.state.toLowerCase()}.`));
      await load();
      await show(data);
    } catch (error) {
      const offerForce = action === "publish" && error.status === 409 && error.statusName === "ABORTED";
      replace(notice, message("error", error.message,
        offerForce ? button("Publish anyway", () => act(request, "publish", undefined, { force: "true" }), { class: "danger", id: "cr-force" }) : null));
    }
  };

  async function show(summary) {
    const id = summary.name.split("/")[1];
    const { data: request } = await call("GET", `${base}/${id}`);
    const open = ["OPEN", "APPROVED", "SCHEDULED"].includes(request.state);
    replace(detail, h("div", { class: "card", id: "cr-card" },
      h("h2", {}, `Change request ${id} · ${request.state}`),
      h("p", {}, request.description || "(no description)"),
      h("p", { class: "muted" }, `By ${actorLabel(request.author)}, ${when(request.createTime)}; based on version ${request.baseVersionNumber}`,
        request.publishTime ? `; to publish at ${when(request.publishTime)}` : "",
        request.publishedVersionNumber ? `; published as version ${request.publishedVersionNumber}` : ""),
      request.approvals && request.approvals.length
        ? h("ul", { id: "cr-approvals" }, request.approvals.map((a) => h("li", {}, `Approved by ${actorLabel(a)}, ${when(a.time)}`, a.comment ? `: ${a.comment}` : "")))
        : h("p", { class: "muted" }, "No approvals yet."),
      // What it would do to the apps out there, read before anyone approves or publishes it.
      open ? impactPanel(project, { changeRequest: id }) : null,
      editable && open ? h("div", { class: "buttons" },
        button("Approve", async () => { const c = await askComment("Approve", "Approve"); if (c !== undefined) await act(request, "approve", c ? { comment: c } : {}); }, { id: "cr-approve" }),
        button("Reject", async () => { const c = await askComment("Reject", "Reject"); if (c !== undefined) await act(request, "reject", c ? { comment: c } : {}); }, { id: "cr-reject" }),
        button("Cancel request", () => act(request, "cancel", {}), { id: "cr-cancel" }),
        button("Publish now", () => act(request, "publish"), { class: "primary", id: "cr-publish" })) : null,
      request.diff ? renderDiff(request.diff) : null));
  }

  async function load() {
    const { data } = await call("GET", base, { query: { state: filter.value, pageSize: 100 } });
    const requests = data.changeRequests || [];
    replace(list, requests.length ? h("div", { class: "table-wrap" }, h("table", { id: "change-requests" },
      h("thead", {}, h("tr", {}, ["Id", "State", "Description", "Author", "Created", ""].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, requests.map((request) => {
        const id = request.name.split("/")[1];
        return h("tr", { dataset: { id } },
          h("td", { dataset: { label: "Id" } }, id),
          h("td", { dataset: { label: "State" } }, request.state),
          h("td", { dataset: { label: "Description" } }, request.description || ""),
          h("td", { dataset: { label: "Author" } }, actorLabel(request.author)),
          h("td", { dataset: { label: "Created" } }, when(request.createTime)),
          h("td", {}, button("Show", () => show(request), { "aria-label": `Show change request ${id}`, class: "show" })));
      })))) : h("p", { class: "muted" }, "No change requests."));
  }

  const propose = async () => {
    const choice = await modal("Propose the draft", (close) => {
      const description = h("textarea", { id: "cr-description", rows: 2, maxLength: 256 });
      const at = h("input", { id: "cr-time", type: "datetime-local" });
      const form = h("form", { method: "dialog", class: "stack" },
        h("p", {}, "Opens a change request with the saved draft as it is now; others review it before it is published."),
        field("Description", description), field("Publish at (optional, your local time)", at),
        h("div", { class: "buttons" }, button("Cancel", () => close(undefined)),
          h("button", { type: "submit", class: "primary", id: "cr-propose-confirm" }, "Propose")));
      form.addEventListener("submit", (event) => { event.preventDefault(); close({ description: description.value.trim(), at: at.value }); });
      setTimeout(() => description.focus(), 0);
      return form;
    });
    if (!choice) return;
    try {
      const draft = await call("GET", projectPath(project, "/remoteConfig/draft"));
      const body = { description: choice.description };
      if (choice.at) body.publishTime = new Date(choice.at).toISOString();
      const { data } = await call("POST", base, { body, ifMatch: draft.etag });
      replace(notice, message("success", `Opened change request ${data.name.split("/")[1]}.`));
      await load();
      await show(data);
    } catch (error) {
      replace(notice, message("error", error.status === 404 ? "There is no saved draft to propose: change something on the Parameters or Conditions tab first." : error.message));
    }
  };

  const settings = admin ? await settingsForm(project, notice) : null;
  await load();
  replace(view, notice,
    h("div", { class: "toolbar" }, field("Show", filter),
      editable ? button("Propose the draft", propose, { class: "primary", id: "cr-propose" }) : null),
    list, detail, settings);
}

/** Admins: whether publishing needs an approved change request, and how many approvals. */
async function settingsForm(project, notice) {
  const { data } = await call("GET", projectPath(project));
  const required = h("input", { type: "checkbox", id: "cr-require", checked: !!data.requireApproval });
  const count = h("input", { type: "number", id: "cr-count", min: 1, max: 10, value: data.approvalsRequired || 1 });
  const form = h("form", { class: "card", id: "cr-settings" },
    h("h2", {}, "Approval settings"),
    h("div", { class: "check" }, required, h("label", { htmlFor: required.id }, "Publishing requires an approved change request")),
    field("Approvals required", count),
    h("div", { class: "buttons" }, h("button", { type: "submit" }, "Save settings")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await call("PATCH", projectPath(project), { body: { requireApproval: required.checked, approvalsRequired: Number(count.value) } });
      replace(notice, message("success", "Approval settings saved."));
    } catch (error) {
      replace(notice, message("error", error.message));
    }
  });
  return form;
}
