-- Named seed tiers: a user's lists of pattern seeds that watch rules can follow by name.
-- CreateTable
CREATE TABLE "seed_tiers" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "seeds" INTEGER[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "seed_tiers_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "seed_tiers_user_id_name_key" ON "seed_tiers"("user_id", "name");

-- AddForeignKey
ALTER TABLE "seed_tiers" ADD CONSTRAINT "seed_tiers_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
