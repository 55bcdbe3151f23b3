import { signal } from "@preact/signals";

/**
 * Light, dark, or the system's choice; kept in local storage (a preference, not a secret). The page
 * always carries the theme in effect as `data-theme`, so the style sheet states each theme once.
 */
export type Theme = "system" | "light" | "dark";

const KEY = "colloquy.theme";
const systemDark = window.matchMedia("(prefers-color-scheme: dark)");
export const theme = signal<Theme>((localStorage.getItem(KEY) as Theme | null) ?? "system");

export function applyTheme(): void {
  const dark = theme.value === "dark" || (theme.value === "system" && systemDark.matches);
  document.documentElement.dataset.theme = dark ? "dark" : "light";
}

systemDark.addEventListener("change", applyTheme);

export function nextTheme(): void {
  theme.value = theme.value === "system" ? "light" : theme.value === "light" ? "dark" : "system";
  localStorage.setItem(KEY, theme.value);
  applyTheme();
}
