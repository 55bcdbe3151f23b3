import { useRef, useState } from "preact/hooks";
import { ColloquyError, type Citation, type Passage } from "@colloquy/client";
import { documents } from "../state/store";
import { describe, readPassage } from "../state/actions";
import { Markdown } from "./Markdown";

type Reading =
  | { state: "loading" }
  | { state: "read"; passage: Passage }
  | { state: "gone" }
  | { state: "failed"; reason: string };

/** The passages a turn was grounded on, as numbered footnotes; each opens its passage and its text. */
export function Citations({ citations, confidence }: { citations: Citation[]; confidence?: number | undefined }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState<{ citation: Citation; n: number } | null>(null);
  const [reading, setReading] = useState<Reading>({ state: "loading" });
  const latest = useRef(0);
  if (citations.length === 0) return null;

  function show(citation: Citation, n: number) {
    const request = ++latest.current;
    const settle = (next: Reading) => {
      if (latest.current === request) setReading(next);
    };
    setOpen({ citation, n });
    setReading({ state: "loading" });
    dialog.current?.showModal();
    readPassage(citation.document_id, citation.chunk_index).then(
      (passage) => settle({ state: "read", passage }),
      (error) => settle(error instanceof ColloquyError && error.code === "PASSAGE_NOT_FOUND"
        ? { state: "gone" } : { state: "failed", reason: describe(error) }));
  }
  const document = open ? documents.value.find((d) => d.id === open.citation.document_id) : undefined;
  return (
    <div class="citations">
      <span class="label">Sources</span>
      <ol>
        {citations.map((citation, i) => (
          <li key={`${citation.document_id}:${citation.chunk_index}`}>
            <button type="button" class="footnote" onClick={() => show(citation, i + 1)}
              aria-label={`Source ${i + 1}: ${citation.source}${citation.section ? `, ${citation.section}` : ""}`}>
              <sup>[{i + 1}]</sup> {citation.source}{citation.section ? ` › ${citation.section}` : ""}
            </button>
          </li>
        ))}
      </ol>
      <dialog ref={dialog} class="passage" onClose={() => setOpen(null)} aria-labelledby="passage-title">
        {open && (
          <form method="dialog">
            <h2 id="passage-title">[{open.n}] {open.citation.source}</h2>
            <PassageText reading={reading} />
            <dl>
              <dt>Section</dt><dd>{open.citation.section || "—"}</dd>
              <dt>Passage</dt><dd>chunk {open.citation.chunk_index}</dd>
              <dt>Score</dt><dd>{open.citation.score.toFixed(3)}</dd>
              {confidence !== undefined && (<><dt>Turn confidence</dt><dd>{confidence.toFixed(2)}</dd></>)}
              <dt>Document</dt><dd><code>{open.citation.document_id}</code></dd>
              {reading.state === "read" && (<><dt>Version</dt><dd>v{reading.passage.version}{document ? `, ${document.status}, ${document.chunk_count} passages` : ""}</dd></>)}
            </dl>
            <button type="submit" autoFocus>Close</button>
          </form>
        )}
      </dialog>
    </div>
  );
}

/** The passage as the document has it: its own Markdown, rendered through the same sanitizer as answers. */
function PassageText({ reading }: { reading: Reading }) {
  switch (reading.state) {
    case "loading":
      return <p class="passage-text muted" aria-busy="true">Reading the passage…</p>;
    case "read":
      return <blockquote class="passage-text"><Markdown text={reading.passage.text} /></blockquote>;
    case "gone":
      return <p class="passage-text muted">This passage is no longer in the knowledge base: its document was deleted or replaced by a newer version.</p>;
    case "failed":
      return <p class="passage-text problem" role="alert">The passage could not be read: {reading.reason}</p>;
  }
}
