// The environment an external tool run by the bot (pg_dump, pg_restore) inherits, plus what it needs
// for this run: the one place outside src/config/index.ts that reads process.env.

export function childEnvironment(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}
