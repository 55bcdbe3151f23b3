/** What the embedding page says on the widget's script tag. */
export interface WidgetSettings {
  /** The tenant's public key (`cpk_…`). */
  apiKey: string;
  /** Where Colloquy answers: the origin the script was loaded from. */
  server: string;
  persona: string;
  primaryColor: string;
  position: "bottom-right" | "bottom-left";
  greeting: string;
}

const COLOR = /^#[0-9a-fA-F]{3,8}$|^[a-z]+$|^rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)$/;

export function readSettings(script: HTMLScriptElement): WidgetSettings {
  const data = script.dataset;
  const color = data.primaryColor ?? "";
  return {
    apiKey: data.apiKey ?? "",
    server: new URL(script.src, location.href).origin,
    persona: (data.persona ?? "Assistant").slice(0, 60),
    // Only a plain colour reaches the style sheet: the attribute is the page's, but it is still input.
    primaryColor: COLOR.test(color) ? color : "#0066ff",
    position: data.position === "bottom-left" ? "bottom-left" : "bottom-right",
    greeting: (data.greeting ?? "Hi! How can I help?").slice(0, 300),
  };
}
