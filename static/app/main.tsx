/** Entry point of the web client: loads the language, checks the session, renders the app. */
import { render } from "preact";
import { App } from "./components/App.tsx";
import { loadLanguage, preferredLanguage } from "./i18n.ts";
import { boot } from "./session.ts";
import { applyTheme } from "./theme.ts";

applyTheme();
await Promise.all([loadLanguage(preferredLanguage()), boot()]);
render(<App />, document.getElementById("app")!);
