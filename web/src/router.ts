import { route, type Route } from "./state/store";

/** The address bar holds the view: `#/chat/<id>`, `#/knowledge`, `#/replay/<id>`. */

export function parse(hash: string): Route {
  const [view, id] = hash.replace(/^#\/?/, "").split("/");
  const sessionId = id ? decodeURIComponent(id) : undefined;
  switch (view) {
    case "knowledge":
      return { view: "knowledge" };
    case "replay":
      return sessionId ? { view: "replay", sessionId } : { view: "replay" };
    default:
      return sessionId ? { view: "chat", sessionId } : { view: "chat" };
  }
}

export function href(target: Route): string {
  switch (target.view) {
    case "knowledge":
      return "#/knowledge";
    case "replay":
      return target.sessionId ? `#/replay/${encodeURIComponent(target.sessionId)}` : "#/replay";
    default:
      return target.sessionId ? `#/chat/${encodeURIComponent(target.sessionId)}` : "#/chat";
  }
}

export function navigate(target: Route): void {
  const next = href(target);
  if (location.hash !== next) {
    location.hash = next;
  } else {
    route.value = target;
  }
}

export function startRouter(): void {
  const update = () => {
    route.value = parse(location.hash);
  };
  window.addEventListener("hashchange", update);
  update();
}
