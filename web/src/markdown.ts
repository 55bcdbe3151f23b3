import DOMPurify from "dompurify";
import { Marked } from "marked";

/**
 * Model output as safe HTML. Markdown is rendered by marked with raw HTML turned into visible text
 * (the model never gets to write markup), and the result goes through DOMPurify all the same, which
 * removes scripts, event handlers and `javascript:` URLs should anything slip through.
 */
const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html({ text }) {
      return escapeHtml(text);
    },
  },
});

const purify = DOMPurify();
purify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
  }
});

export function renderMarkdown(text: string): string {
  const html = marked.parse(text) as string;
  return purify.sanitize(html, { FORBID_TAGS: ["style", "form", "input", "button", "iframe"], FORBID_ATTR: ["style"] });
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}
