// docker-compose.yml against a subset of the Compose schema and against the rest of the repository
// (.env.example, the Dockerfile, the shutdown watchdog), and through a real Compose implementation's
// `config` where one is installed (`npm run test:docker` runs the image itself).
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { SHUTDOWN_TIMEOUT_MS } from "../../src/shutdown.ts";
import { REPO_ROOT } from "./support.ts";

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), "utf8");

const Duration = z.string().regex(/^(\d+(\.\d+)?(ms|s|m|h))+$/, "a Compose duration such as 5s or 1m30s");
const Healthcheck = z
  .object({
    test: z.union([z.string().min(1), z.array(z.string()).min(2)]),
    interval: Duration.optional(),
    timeout: Duration.optional(),
    retries: z.number().int().positive().optional(),
    start_period: Duration.optional(),
  })
  .strict();
const Service = z
  .object({
    image: z.string().min(1).optional(),
    build: z
      .union([
        z.string().min(1),
        z.object({ context: z.string().min(1), dockerfile: z.string().optional() }).strict(),
      ])
      .optional(),
    restart: z.enum(["no", "always", "on-failure", "unless-stopped"]).optional(),
    environment: z
      .union([
        z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
        z.array(z.string()),
      ])
      .optional(),
    env_file: z.union([z.string(), z.array(z.string())]).optional(),
    volumes: z.array(z.string()).optional(),
    ports: z.array(z.string()).optional(),
    expose: z.array(z.union([z.string(), z.number()])).optional(),
    healthcheck: Healthcheck.optional(),
    depends_on: z
      .union([
        z.array(z.string()),
        z.record(
          z.string(),
          z
            .object({
              condition: z.enum(["service_started", "service_healthy", "service_completed_successfully"]),
            })
            .strict(),
        ),
      ])
      .optional(),
    stop_grace_period: Duration.optional(),
    profiles: z.array(z.string().min(1)).optional(),
    command: z.union([z.string(), z.array(z.string())]).optional(),
  })
  .strict()
  .refine((s) => s.image !== undefined || s.build !== undefined, "a service needs an image or a build");
const Compose = z
  .object({
    services: z.record(z.string(), Service),
    volumes: z.record(z.string(), z.union([z.null(), z.object({}).passthrough()])).optional(),
  })
  .strict();
type Service = z.infer<typeof Service>;

const composeText = read("docker-compose.yml");
const compose = Compose.parse(parseYaml(composeText));
const services = compose.services;

function environmentOf(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((e) => [e.split("=")[0] ?? e, e.split("=").slice(1).join("=")]));
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? "" : String(v)]));
}

function dependsOn(service: Service): Record<string, string> {
  const deps = service.depends_on ?? {};
  if (Array.isArray(deps)) return Object.fromEntries(deps.map((d) => [d, "service_started"]));
  return Object.fromEntries(Object.entries(deps).map(([k, v]) => [k, v.condition]));
}

function seconds(duration: string): number {
  const units: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };
  return [...duration.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)].reduce(
    (sum, [, n, unit]) => sum + Number(n) * (units[unit as string] ?? 0),
    0,
  );
}

const envExampleKeys = new Set(
  read(".env.example")
    .split("\n")
    .flatMap((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1] ?? []),
);

describe("docker-compose.yml", () => {
  it("GIVEN the file WHEN parsed THEN it matches the Compose subset and every service has an image or a build", () => {
    expect(Object.keys(services).sort()).toEqual(["bot", "db", "grafana", "prometheus"]);
    expect(services.db?.image).toMatch(/^postgres:\d+/);
    expect(services.bot?.build).toBeDefined();
  });

  it("GIVEN the monitoring profile WHEN plain `docker compose up` runs THEN only the bot and its database start, and with the profile Prometheus and Grafana come from pinned images", () => {
    const inProfile = Object.entries(services)
      .filter(([, s]) => (s.profiles ?? []).includes("monitoring"))
      .map(([name]) => name)
      .sort();
    expect(inProfile).toEqual(["grafana", "prometheus"]);
    for (const name of ["bot", "db"]) expect(services[name]?.profiles, name).toBeUndefined();
    expect(services.prometheus?.image).toMatch(/^prom\/prometheus:v\d+\.\d+\.\d+$/);
    expect(services.grafana?.image).toMatch(/^grafana\/grafana:\d+\.\d+\.\d+$/);
  });

  it("GIVEN the monitoring services WHEN they start THEN they mount the repository's rules, dashboard and provisioning, which exist, and Prometheus loads its config from there", () => {
    const binds = Object.values(services).flatMap((s) =>
      (s.volumes ?? []).filter((v) => v.startsWith("./")).map((v) => v.split(":")),
    );
    expect(binds.map(([source]) => source).sort()).toEqual([
      "./monitoring/grafana/dashboards",
      "./monitoring/grafana/provisioning",
      "./monitoring/prometheus",
    ]);
    for (const [source, , mode] of binds) {
      expect(existsSync(path.join(REPO_ROOT, source ?? "")), source).toBe(true);
      expect(mode, `${source ?? ""} is mounted read-only`).toBe("ro");
    }
    const command = services.prometheus?.command;
    expect(Array.isArray(command) ? command : []).toContain("--config.file=/etc/prometheus/prometheus.yml");
    expect(dependsOn(services.grafana as Service)).toEqual({ prometheus: "service_healthy" });
  });

  it("GIVEN services that depend on others WHEN started THEN they wait for a healthy dependency, which has a healthcheck", () => {
    expect(services.db?.healthcheck).toBeDefined();
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, condition] of Object.entries(dependsOn(service))) {
        expect(services[dependency], `${name} depends on unknown service ${dependency}`).toBeDefined();
        expect(condition, `${name} -> ${dependency}`).toBe("service_healthy");
        expect(services[dependency]?.healthcheck, `${dependency} has no healthcheck`).toBeDefined();
      }
    }
    expect(dependsOn(services.bot as Service)).toEqual({ db: "service_healthy" });
  });

  it("GIVEN named volumes WHEN mounted THEN each is declared at the top level and each declared one is used", () => {
    const used = Object.values(services).flatMap((s) =>
      (s.volumes ?? []).flatMap((v) => {
        const source = v.split(":")[0] ?? "";
        return source.startsWith(".") || source.startsWith("/") || source.startsWith("~") ? [] : [source];
      }),
    );
    const declared = Object.keys(compose.volumes ?? {});
    expect(new Set(used)).toEqual(new Set(declared));
  });

  it("GIVEN variables interpolated in the file WHEN an operator fills .env THEN each is documented in .env.example", () => {
    const referenced = [
      ...composeText.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)|\$([A-Za-z_][A-Za-z0-9_]*)/g),
    ].map((m) => m[1] ?? m[2]);
    expect(referenced.length).toBeGreaterThan(0);
    for (const name of referenced) expect(envExampleKeys, `${name} is not in .env.example`).toContain(name);
    expect(services.bot?.env_file).toBe(".env");
  });

  it("GIVEN the bot service WHEN it runs THEN its port, data volume and database URL agree with the Dockerfile and the db service", () => {
    const bot = services.bot as Service;
    const env = environmentOf(bot);
    expect(env.HTTP_HOST, "inside a container the endpoint must listen beyond loopback").toBe("0.0.0.0");
    // Health and metrics inside the compose network only: exposed, never published on the host.
    expect(bot.ports ?? []).toEqual([]);
    expect((bot.expose ?? []).map(String)).toContain(env.HTTP_PORT);

    const dataDir = /^\s*DATA_DIR=(\S+)/m.exec(read("Dockerfile"))?.[1];
    expect(dataDir).toBeDefined();
    expect((bot.volumes ?? []).map((v) => v.split(":")[1])).toContain(dataDir);

    const dbEnv = environmentOf(services.db as Service);
    const url = new URL(env.DATABASE_URL?.replace(/\$\{[^}]+\}/g, "secret") ?? "");
    expect(url.hostname).toBe("db");
    expect(url.username).toBe(dbEnv.POSTGRES_USER);
    expect(url.pathname).toBe(`/${dbEnv.POSTGRES_DB}`);
  });

  it("GIVEN any service WHEN the stack is up THEN nothing is published on the host but Grafana on loopback (health, metrics, Prometheus and Postgres stay inside the network)", () => {
    for (const [name, service] of Object.entries(services)) {
      expect(service.ports ?? [], `${name} publishes a port`).toEqual(
        name === "grafana" ? ["127.0.0.1:3000:3000"] : [],
      );
    }
  });

  it("GIVEN the image's HEALTHCHECK WHEN compose runs the bot THEN it probes the port the bot listens on", () => {
    const dockerfile = read("Dockerfile");
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n\s+CMD .*\/healthz/m);
    expect(dockerfile).toMatch(/process\.env\.HTTP_PORT/);
    expect(services.bot?.healthcheck, "the image's own HEALTHCHECK is kept").toBeUndefined();
  });

  it("GIVEN docker stop WHEN the bot shuts down THEN the grace period outlasts its own shutdown watchdog", () => {
    const grace = services.bot?.stop_grace_period;
    expect(grace).toBeDefined();
    expect(seconds(grace ?? "0s")).toBeGreaterThan(SHUTDOWN_TIMEOUT_MS / 1000);
  });
});

/** A Compose implementation on this machine: `docker compose` (v2) or `docker-compose` (v1). */
function composeCommand(): string[] | undefined {
  for (const cmd of [["docker", "compose"], ["docker-compose"]]) {
    const probe = spawnSync(cmd[0] as string, [...cmd.slice(1), "version"], { stdio: "ignore" });
    if (probe.status === 0) return cmd;
  }
  return undefined;
}

const composeCli = composeCommand();

describe.skipIf(composeCli === undefined)("docker-compose.yml read by Compose itself", () => {
  it("GIVEN .env copied from .env.example WHEN Compose resolves the file THEN it accepts it, the bot gets the compose database and the image's own settings, and nothing is published", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "compose-config-"));
    try {
      copyFileSync(path.join(REPO_ROOT, "docker-compose.yml"), path.join(dir, "docker-compose.yml"));
      copyFileSync(path.join(REPO_ROOT, ".env.example"), path.join(dir, ".env"));
      const [cmd, ...args] = composeCli ?? [];
      const out = execFileSync(cmd as string, [...args, "config"], {
        cwd: dir,
        encoding: "utf8",
        // Only the .env file speaks: no variable from the test's own environment.
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
      });
      const resolved = parseYaml(out) as {
        services: Record<
          string,
          {
            environment?: Record<string, string>;
            ports?: unknown[];
            profiles?: string[];
            stop_grace_period?: string;
          }
        >;
      };
      const bot = resolved.services.bot;
      expect(bot?.environment?.DATABASE_URL).toBe("postgresql://bot:bot@db:5432/bot");
      // .env.example sets none of what the image sets for itself; compose sets HTTP_* to the same.
      for (const k of ["NODE_ENV", "DATA_DIR"]) expect(bot?.environment ?? {}).not.toHaveProperty(k);
      expect(bot?.environment?.HTTP_HOST).toBe("0.0.0.0");
      // Compose v2 leaves the profile's services out; v1 lists them with their profile.
      const always = Object.entries(resolved.services).filter(([, s]) => (s.profiles ?? []).length === 0);
      expect(always.map(([name]) => name).sort()).toEqual(["bot", "db"]);
      for (const [name, service] of always) {
        expect(service.ports ?? [], `${name} publishes a port`).toEqual([]);
      }
      expect(seconds(bot?.stop_grace_period ?? "0s")).toBeGreaterThan(SHUTDOWN_TIMEOUT_MS / 1000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it("GIVEN the monitoring profile WHEN Compose resolves it THEN Grafana is published on loopback only, with the default admin password from .env.example's empty value", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "compose-config-"));
    try {
      copyFileSync(path.join(REPO_ROOT, "docker-compose.yml"), path.join(dir, "docker-compose.yml"));
      copyFileSync(path.join(REPO_ROOT, ".env.example"), path.join(dir, ".env"));
      const [cmd, ...args] = composeCli ?? [];
      const out = execFileSync(cmd as string, [...args, "--profile", "monitoring", "config"], {
        cwd: dir,
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
      });
      const resolved = parseYaml(out) as {
        services: Record<string, { environment?: Record<string, string>; ports?: unknown[] }>;
      };
      expect(Object.keys(resolved.services).sort()).toEqual(["bot", "db", "grafana", "prometheus"]);
      const grafana = resolved.services.grafana;
      expect(grafana?.environment?.GF_SECURITY_ADMIN_PASSWORD).toBe("admin");
      const ports = JSON.stringify(grafana?.ports ?? []);
      expect(ports).toContain("127.0.0.1");
      expect(ports).toContain("3000");
      expect(resolved.services.prometheus?.ports ?? []).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
