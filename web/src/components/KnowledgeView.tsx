import { useRef, useState } from "preact/hooks";
import { documents, uploads } from "../state/store";
import { deleteDocument, dismissUpload, upload } from "../state/actions";

/** The tenant's documents: upload (with progress), status and versions, delete. */
export function KnowledgeView() {
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);

  function take(files: FileList | null) {
    for (const file of Array.from(files ?? [])) void upload(file);
  }

  return (
    <div class="knowledge">
      <h1>Knowledge</h1>
      <div class={`dropzone${dragging ? " dragging" : ""}`}
        onDragOver={(e) => { e.preventDefault(); setDragging(true); }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => { e.preventDefault(); setDragging(false); take(e.dataTransfer?.files ?? null); }}>
        <p>Drop PDF, DOCX, HTML, Markdown, TXT or CSV files here, or</p>
        <button type="button" onClick={() => input.current?.click()}>Choose files…</button>
        <input ref={input} type="file" name="file" multiple hidden aria-label="Files to upload"
          accept=".pdf,.docx,.html,.htm,.md,.markdown,.txt,.csv"
          onChange={(e) => { take(e.currentTarget.files); e.currentTarget.value = ""; }} />
      </div>
      {uploads.value.length > 0 && (
        <ul class="uploads" aria-label="Uploads">
          {uploads.value.map((u) => (
            <li key={u.id} class={`upload ${u.state}`}>
              <span class="name">{u.filename}</span>
              <progress max={u.total || 1} value={u.sent} aria-label={`Upload of ${u.filename}`} />
              <span class="percent">{u.total ? Math.round((100 * u.sent) / u.total) : 0}%</span>
              <span class="state">{u.state === "failed" ? u.error : u.state}</span>
              {u.state !== "uploading" && (
                <button type="button" class="ghost" aria-label={`Dismiss ${u.filename}`} onClick={() => dismissUpload(u.id)}>×</button>
              )}
            </li>
          ))}
        </ul>
      )}
      <table class="documents">
        <caption>Documents</caption>
        <thead>
          <tr><th scope="col">File</th><th scope="col">Version</th><th scope="col">Status</th><th scope="col">Passages</th><th scope="col">Ingested</th><th scope="col"><span class="sr-only">Actions</span></th></tr>
        </thead>
        <tbody>
          {documents.value.map((d) => (
            <tr key={d.id} data-document-id={d.id}>
              <td>{d.filename}</td>
              <td>v{d.version}</td>
              <td><span class={`badge ${d.status}`}>{d.status}</span></td>
              <td>{d.chunk_count}</td>
              <td><time dateTime={d.ingested_at}>{new Date(d.ingested_at).toLocaleString()}</time></td>
              <td>
                <button type="button" class="ghost" aria-label={`Delete ${d.filename}`}
                  onClick={() => { if (confirm(`Delete ${d.filename}? It leaves search at once.`)) void deleteDocument(d.id); }}>Delete</button>
              </td>
            </tr>
          ))}
          {documents.value.length === 0 && <tr><td colSpan={6} class="muted">No documents yet.</td></tr>}
        </tbody>
      </table>
    </div>
  );
}
