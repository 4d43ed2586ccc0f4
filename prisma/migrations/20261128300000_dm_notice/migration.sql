-- When a user whose DMs bounced was last told so in an interaction reply: the notice goes out once
-- per closure (dm_closed_at newer than dm_noticed_at), whichever install they use the bot through.
-- AlterTable
ALTER TABLE "users" ADD COLUMN     "dm_noticed_at" TIMESTAMPTZ(3);
