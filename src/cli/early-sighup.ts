// Imported first by main, so this runs before the other modules load: Node's default for SIGHUP is
// to exit, and a SIGHUP sent during start-up (a config-map watcher, an impatient operator) must not
// kill the process. A SIGHUP that comes before the exporter runs is remembered and acted on once it does.

let handler: (() => void) | undefined;
let pending = false;

process.on("SIGHUP", () => {
  if (handler) handler();
  else pending = true;
});

/** Sets what SIGHUP does from now on; runs it at once if one came while nothing was set. */
export function onSighup(next: () => void): void {
  handler = next;
  if (pending) {
    pending = false;
    next();
  }
}
