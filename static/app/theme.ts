/** Light, dark or system theme, remembered in this browser. */

/** The saved choice: "system" (default), "light" or "dark". */
function savedTheme(): string {
  return localStorage.getItem("parley.theme") ?? "system";
}

/** Applies the saved (or given) theme to the document. */
export function applyTheme(theme = savedTheme()): void {
  localStorage.setItem("parley.theme", theme);
  if (theme === "system") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}
