// Imported first by src/main.ts, so it runs before any library is even loaded: an empty `KEY=`
// (from .env files, compose, `--env-file .env.example`) means unset, also for libraries that read
// the environment themselves (discord.js takes SHARD_COUNT and SHARDS from it).
import { dropEmptyEnvironment } from "./index.ts";

dropEmptyEnvironment();
