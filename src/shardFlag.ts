// The argument a ShardingManager gives its shard processes, so main.ts runs the bot instead of
// another manager. Its own module: main.ts reads it before loading discord.js.
export const SHARD_PROCESS_FLAG = "--shard";
