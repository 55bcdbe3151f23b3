import { render } from "preact";
import { readSettings } from "./settings";
import { ChatWidget } from "./ChatWidget";
import css from "./widget.css?inline";

/**
 * `<script src="https://colloquy.example/widget.js" data-api-key="cpk_…"></script>`: the widget mounts
 * itself in a shadow root at the end of the page, so the page's styles do not reach it and its styles
 * do not reach the page.
 */
function mount(script: HTMLScriptElement): void {
  const settings = readSettings(script);
  const host = document.createElement("div");
  host.id = "colloquy-widget";
  document.body.appendChild(host);
  const root = host.attachShadow({ mode: "open" });
  // A constructed style sheet is not inline style, so a page whose Content-Security-Policy forbids
  // inline styles still shows the widget as it should.
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  root.adoptedStyleSheets = [sheet];
  const app = document.createElement("div");
  root.appendChild(app);
  if (!settings.apiKey.startsWith("cpk_")) {
    console.error("Colloquy widget: data-api-key must be the tenant's public key (cpk_…); a secret key must never be put in a page");
    return;
  }
  render(<ChatWidget settings={settings} />, app);
}

const script = document.currentScript;
if (script instanceof HTMLScriptElement) {
  if (document.body) mount(script);
  else document.addEventListener("DOMContentLoaded", () => mount(script), { once: true });
}
