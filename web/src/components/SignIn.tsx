import { useEffect, useState } from "preact/hooks";
import { fetchDevKey, signIn } from "../state/actions";

/** An API key (`ck_…`) or a JWT, checked against the server, kept in this tab's session storage. */
export function SignIn() {
  const [token, setToken] = useState("");
  const [userId, setUserId] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [devKey, setDevKey] = useState<string | null>(null);

  useEffect(() => {
    void fetchDevKey().then(setDevKey);
  }, []);

  async function submit(value: string, user: string) {
    setBusy(true);
    setError(null);
    const refused = await signIn({ token: value.trim(), ...(user.trim() ? { userId: user.trim() } : {}) });
    setBusy(false);
    if (refused) setError(refused);
  }

  return (
    <main class="signin">
      <form class="card" onSubmit={(e) => { e.preventDefault(); void submit(token, userId); }}>
        <h1>Colloquy</h1>
        <p class="muted">Sign in with a tenant API key or a JWT from your identity provider.</p>
        <label>
          API key or JWT
          <input type="password" name="credential" autoComplete="off" required value={token} autoFocus
            onInput={(e) => setToken(e.currentTarget.value)} placeholder="ck_… or eyJ…" />
        </label>
        <label>
          User id <span class="muted">(optional, with an API key: act for one of the tenant's users)</span>
          <input type="text" name="user" value={userId} onInput={(e) => setUserId(e.currentTarget.value)} />
        </label>
        {error && <p class="error" role="alert">{error}</p>}
        <button type="submit" disabled={busy || token.trim() === ""}>{busy ? "Checking…" : "Sign in"}</button>
        {devKey && (
          <div class="devkey">
            <p class="muted">This development server offers its development key to a browser on this machine.</p>
            <button type="button" class="secondary" disabled={busy} onClick={() => void submit(devKey, "")}>
              Use the development key
            </button>
          </div>
        )}
      </form>
    </main>
  );
}
