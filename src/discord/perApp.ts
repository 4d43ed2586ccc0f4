// State that belongs to one running bot (result pagers, name caches), keyed by that bot's deps
// object: two bots in one process (tests, restarts) never share it, and no global registry exists.
export function perApp<D extends object, T>(create: (deps: D) => T): (deps: D) => T {
  const byApp = new WeakMap<D, T>();
  return (deps) => {
    let value = byApp.get(deps);
    if (value === undefined) {
      value = create(deps);
      byApp.set(deps, value);
    }
    return value;
  };
}
