-- The closure of a user's DMs (its dm_closed_at) they were last told about in an interaction reply:
-- the notice goes out once per closure, whichever install they use the bot through.
-- AlterTable
ALTER TABLE "users" ADD COLUMN     "dm_noticed_at" TIMESTAMPTZ(3);
