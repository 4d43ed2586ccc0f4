-- The bot's DM channel with each user, kept from the last DM, so a fan-out does not spend half
-- of Discord's global request budget re-opening channels it already has.
-- AlterTable
ALTER TABLE "users" ADD COLUMN     "dm_channel_id" TEXT;
