/** The session's narrative state (merged after every turn): what the story or case knows so far. */
export function NarrativePanel({ state }: { state: Record<string, unknown> | null }) {
  return (
    <aside class="narrative" aria-label="Narrative state">
      <h2>Narrative state</h2>
      {state === null || Object.keys(state).length === 0
        ? <p class="muted">Nothing yet: it fills in as the conversation goes.</p>
        : <Value value={state} />}
    </aside>
  );
}

function Value({ value }: { value: unknown }) {
  if (Array.isArray(value)) {
    if (value.length === 0) return <span class="muted">none</span>;
    return <ul>{value.map((item, i) => <li key={i}><Value value={item} /></li>)}</ul>;
  }
  if (value !== null && typeof value === "object") {
    return (
      <dl>
        {Object.entries(value as Record<string, unknown>).map(([key, item]) => (
          <div key={key}><dt>{key.replaceAll("_", " ")}</dt><dd><Value value={item} /></dd></div>
        ))}
      </dl>
    );
  }
  return <span>{value === null ? "—" : String(value)}</span>;
}
