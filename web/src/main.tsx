import { render } from "preact";
import { App } from "./components/App";
import { restoreCredential } from "./state/actions";
import { startRouter } from "./router";
import { applyTheme } from "./theme";
import "./styles.css";

applyTheme();
restoreCredential();
startRouter();
render(<App />, document.getElementById("app")!);
