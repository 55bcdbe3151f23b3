import { useRef, useState } from "preact/hooks";
import type { Citation } from "@colloquy/client";
import { documents } from "../state/store";

/** The passages a turn was grounded on, as numbered footnotes; each opens its passage. */
export function Citations({ citations, confidence }: { citations: Citation[]; confidence?: number | undefined }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState<{ citation: Citation; n: number } | null>(null);
  if (citations.length === 0) return null;

  function show(citation: Citation, n: number) {
    setOpen({ citation, n });
    dialog.current?.showModal();
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
            <dl>
              <dt>Section</dt><dd>{open.citation.section ?? "—"}</dd>
              <dt>Passage</dt><dd>chunk {open.citation.chunk_index}</dd>
              <dt>Score</dt><dd>{open.citation.score.toFixed(3)}</dd>
              {confidence !== undefined && (<><dt>Turn confidence</dt><dd>{confidence.toFixed(2)}</dd></>)}
              <dt>Document</dt><dd><code>{open.citation.document_id}</code></dd>
              {document && (<><dt>Version</dt><dd>v{document.version}, {document.status}, {document.chunk_count} passages</dd></>)}
            </dl>
            <button type="submit" autoFocus>Close</button>
          </form>
        )}
      </dialog>
    </div>
  );
}
