-- Datasets (issue 36): a workspace's test cases for its agents, versioned on every change to their
-- items. An item's content is never updated in place: each revision is its own row, part of the
-- versions from valid_from up to (not including) valid_to, NULL while it is current. Reading version v
-- is then `valid_from <= v AND (valid_to IS NULL OR valid_to > v)`, and what a version holds never
-- changes, without copying the items a change left alone. Only the manager reads or writes these
-- tables: no engine role is granted them.
CREATE TABLE "datasets" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    -- The current version; every change takes the dataset's row lock, so versions never interleave.
    "version" INTEGER NOT NULL DEFAULT 1,
    "item_count" INTEGER NOT NULL DEFAULT 0,
    -- Item revisions kept over all versions: what the history cap (DATASET_HISTORY_MAX_ROWS) counts.
    "stored_rows" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "datasets_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "datasets_workspace_id_created_at_id_idx" ON "datasets"("workspace_id", "created_at", "id");
ALTER TABLE "datasets" ADD CONSTRAINT "datasets_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "dataset_versions" (
    "dataset_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "change" TEXT NOT NULL,
    "item_count" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "dataset_versions_pkey" PRIMARY KEY ("dataset_id", "version")
);
ALTER TABLE "dataset_versions" ADD CONSTRAINT "dataset_versions_dataset_id_fkey" FOREIGN KEY ("dataset_id") REFERENCES "datasets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "dataset_items" (
    -- One revision of an item.
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "dataset_id" UUID NOT NULL,
    -- The item itself, the same over its revisions.
    "item_id" UUID NOT NULL,
    -- The item's place in the dataset, kept by its revisions: items read in the order they were added.
    "seq" BIGSERIAL NOT NULL,
    "input" JSONB NOT NULL,
    "expected" JSONB,
    "metadata" JSONB,
    "valid_from" INTEGER NOT NULL,
    "valid_to" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "dataset_items_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "dataset_items_valid_range_check" CHECK ("valid_to" IS NULL OR "valid_to" > "valid_from")
);
-- A version's items in order (every read pages through them by seq).
CREATE INDEX "dataset_items_dataset_id_seq_idx" ON "dataset_items"("dataset_id", "seq");
-- At most one current revision per item.
CREATE UNIQUE INDEX "dataset_items_current_item_key" ON "dataset_items"("dataset_id", "item_id") WHERE "valid_to" IS NULL;
ALTER TABLE "dataset_items" ADD CONSTRAINT "dataset_items_dataset_id_fkey" FOREIGN KEY ("dataset_id") REFERENCES "datasets"("id") ON DELETE CASCADE ON UPDATE CASCADE;
