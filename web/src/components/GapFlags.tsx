import type { GapView } from "../state/turns";

/** What the knowledge did not say (seed 000's gap detection): the attribute and a suggestion. */
export function GapFlags({ gaps }: { gaps: GapView[] }) {
  if (gaps.length === 0) return null;
  return (
    <ul class="gaps" aria-label="Knowledge gaps">
      {gaps.map((gap, i) => (
        <li key={i} class="gap"><span class="flag" aria-hidden="true">⚑</span> <strong>{gap.attribute}</strong>: {gap.suggestion}</li>
      ))}
    </ul>
  );
}
