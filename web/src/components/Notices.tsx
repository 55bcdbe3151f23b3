import { notices } from "../state/store";
import { dismiss } from "../state/actions";

export function Notices() {
  return (
    <div class="notices" role="status" aria-live="polite">
      {notices.value.map((notice) => (
        <div key={notice.id} class={`notice ${notice.kind}`}>
          <span>{notice.text}</span>
          <button type="button" class="ghost" aria-label="Dismiss" onClick={() => dismiss(notice.id)}>×</button>
        </div>
      ))}
    </div>
  );
}
