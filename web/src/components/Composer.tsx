import { useEffect, useRef, useState } from "preact/hooks";
import { chosenModels, knownModels, running } from "../state/store";
import { send, stop } from "../state/actions";
import { navigate } from "../router";

/**
 * The message box. Enter sends, Shift+Enter starts a new line, Escape stops the answer. While a turn
 * streams, Send becomes Stop. Several models, comma-separated, fan the turn out to columns.
 */
export function Composer() {
  const [text, setText] = useState("");
  const [models, setModels] = useState(chosenModels.value.join(", "));
  const box = useRef<HTMLTextAreaElement>(null);
  const busy = running.value !== null;

  useEffect(() => {
    box.current?.focus();
  }, []);

  async function submit() {
    if (busy || text.trim() === "") return;
    const message = text;
    setText("");
    await send(message, (sessionId) => navigate({ view: "chat", sessionId }));
    box.current?.focus();
  }

  return (
    <form class="composer" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
      <textarea ref={box} name="message" rows={2} aria-label="Message" placeholder="Ask something… (Enter to send, Shift+Enter for a new line)"
        value={text} onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            void submit();
          } else if (e.key === "Escape" && busy) {
            e.preventDefault();
            stop();
          }
        }} />
      <div class="composer-bar">
        <label class="models">
          Models
          <input type="text" name="models" list="known-models" value={models} placeholder="default"
            title="One model, or several separated by commas to compare them side by side"
            onInput={(e) => {
              setModels(e.currentTarget.value);
              chosenModels.value = e.currentTarget.value.split(",").map((m) => m.trim()).filter((m) => m !== "");
            }} />
          <datalist id="known-models">
            {knownModels.value.map((m) => <option key={m} value={m} />)}
          </datalist>
        </label>
        {busy
          ? <button type="button" class="stop" onClick={stop} title="Stop the answer (Escape)">■ Stop</button>
          : <button type="submit" disabled={text.trim() === ""}>Send</button>}
      </div>
    </form>
  );
}
