// `npm run doctor` (and `docker compose run --rm bot doctor`): reads every marketplace endpoint the
// bot uses, prints what differs from what the bot reads, exits 0 (holds), 1 (drift) or 2 (cannot run).
import "../config/emptyMeansUnset.ts";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { DOCTOR_USAGE, DoctorConfigError, loadDoctorConfig } from "../config/doctor.ts";
import { runDoctor } from "./run.ts";

export async function doctorMain(argv: readonly string[]): Promise<number> {
  let config;
  try {
    config = loadDoctorConfig(argv);
  } catch (error) {
    if (!(error instanceof DoctorConfigError)) throw error;
    process.stderr.write(`${error.problems.map((p) => `- ${p}`).join("\n")}\n\n${DOCTOR_USAGE}\n`);
    return 2;
  }
  if (config === "help") {
    process.stdout.write(`${DOCTOR_USAGE}\n`);
    return 0;
  }
  const outcome = await runDoctor(config);
  process.stdout.write(outcome.text);
  return outcome.exitCode;
}

const script = process.argv[1];
const isEntry = script !== undefined && import.meta.url === pathToFileURL(path.resolve(script)).href;
if (isEntry) {
  process.exitCode = await doctorMain(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`the doctor could not run: ${error instanceof Error ? error.name : "error"}\n`);
    return 2;
  });
}
