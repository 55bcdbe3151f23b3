import { signal } from "@preact/signals";

/** Light, dark, or the system's choice; kept in local storage (a preference, not a secret). */
export type Theme = "system" | "light" | "dark";

const KEY = "colloquy.theme";
export const theme = signal<Theme>((localStorage.getItem(KEY) as Theme | null) ?? "system");

export function applyTheme(): void {
  if (theme.value === "system") {
    delete document.documentElement.dataset.theme;
  } else {
    document.documentElement.dataset.theme = theme.value;
  }
}

export function nextTheme(): void {
  theme.value = theme.value === "system" ? "light" : theme.value === "light" ? "dark" : "system";
  localStorage.setItem(KEY, theme.value);
  applyTheme();
}
