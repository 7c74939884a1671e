// Sign-in: with the team's identity provider when the server has single sign-on, and with an API key
// (checked against the server, kept for this tab only) unless the operator turned that off.

import { call } from "./api.js";
import { field, h, message, replace } from "./dom.js";
import * as session from "./session.js";

/** Renders the sign-in choices into `main`; `done` runs once a key is accepted. */
export async function signInView(main, done) {
  let config = { provider: null, tokenSignIn: true };
  try { config = (await call("GET", "/console/auth/config", { key: "" })).data; } catch { /* an older server */ }
  if (config.provider) {
    const next = location.hash ? `/console${location.hash}` : "/console";
    const login = `${config.provider.loginUrl}?next=${encodeURIComponent(next.replace(/#.*$/, "") || "/console")}`;
    main.append(h("div", { class: "card narrow", id: "sso" },
      h("h1", {}, "Sign in"),
      h("p", {}, "Sign in with your team's account; your roles come from the groups and bindings an admin set up."),
      h("div", { class: "buttons" },
        h("a", { class: "button primary", id: "sso-sign-in", href: login }, `Sign in with ${config.provider.name}`))));
  }
  if (!config.tokenSignIn) {
    if (!config.provider) main.append(message("error", "Signing in with a key is turned off on this server, and single sign-on is not set up."));
    return;
  }
  // No `name` on the input and a POST form: even without JavaScript the key never lands in a URL.
  const input = h("input", { type: "password", id: "api-key", autocomplete: "off", spellcheck: false, required: true });
  const feedback = h("div", { id: "sign-in-feedback" });
  const form = h("form", { method: "post", class: "card narrow", id: "sign-in" },
    h(config.provider ? "h2" : "h1", {}, config.provider ? "Or sign in with an API key" : "Sign in"),
    h("p", {}, "Use an API key (admin, editor or viewer). The key is kept only for this browser tab and is forgotten when you sign out or close the tab."),
    field("API key", input),
    feedback,
    h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary", id: "sign-in-button" }, "Sign in")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) return;
    replace(feedback);
    try {
      await session.signIn(key);
      input.value = "";
      await done();
    } catch (error) {
      replace(feedback, message("error", `Not signed in: ${error.message}`));
      input.focus();
    }
  });
  main.append(form);
  if (!config.provider) input.focus();
}
