/** Entry point of the web client: loads the language, checks the session, renders the app. */
import { render } from "preact";
import { App } from "./components/App.tsx";
import { loadLanguage, preferredLanguage } from "./i18n.ts";
import { boot } from "./session.ts";
import { applyTheme } from "./theme.ts";
import { registerWorker } from "./push.ts";

applyTheme();
await Promise.all([loadLanguage(preferredLanguage()), boot()]);
// The static splash of index.html must go: Preact would keep it as a stranger above the app,
// where it fills the screen and body{overflow:hidden} hides the real view below it.
const root = document.getElementById("app")!;
root.replaceChildren();
render(<App />, root);
registerWorker();
