// Sign-in: an API key, checked against the server, kept for this tab only.

import { field, h, message, replace } from "./dom.js";
import * as session from "./session.js";

/** Renders the sign-in form into `main`; `done` runs once a key is accepted. */
export function signInView(main, done) {
  // No `name` on the input and a POST form: even without JavaScript the key never lands in a URL.
  const input = h("input", { type: "password", id: "api-key", autocomplete: "off", spellcheck: false, required: true });
  const feedback = h("div", { id: "sign-in-feedback" });
  const form = h("form", { method: "post", class: "card narrow", id: "sign-in" },
    h("h1", {}, "Sign in"),
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
  input.focus();
}
