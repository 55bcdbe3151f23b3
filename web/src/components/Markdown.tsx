import { useMemo } from "preact/hooks";
import { renderMarkdown } from "../markdown";

/** Model output: Markdown rendered and sanitized (see markdown.ts), never the model's own HTML. */
export function Markdown({ text, streaming }: { text: string; streaming?: boolean }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div class={`markdown${streaming ? " streaming" : ""}`} dangerouslySetInnerHTML={{ __html: html }} />;
}
