import type { Knex } from "knex";

// The deployment's provider, recorded so that every process agrees on it (a process started without PROVIDER
// follows this record, never a default of its own). One row, `default`, for now; carrier routing makes this
// the table of connectors, with routes naming them.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE connectors (
      id uuid PRIMARY KEY DEFAULT gen_uuid_v7(),
      name text NOT NULL,
      type text NOT NULL CHECK (type IN ('simulator', 'smpp')),
      smpp jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT connectors_name_key UNIQUE (name),
      CONSTRAINT connectors_smpp_check CHECK ((type = 'smpp') = (smpp IS NOT NULL))
    );
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
